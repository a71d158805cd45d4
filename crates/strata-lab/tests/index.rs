//! `strata lab index DIR`: a results folder's index lists every study run
//! in it with its scale, repeats, engines, date and verdict summaries; each
//! report records the command that ran it.

mod common;

use common::{assert_contains, lab, read, run_fake, study, study_in_temp};

#[test]
fn index_lists_each_study_with_its_verdicts() {
    let (d, spec) = study_in_temp("tiny", &study("tiny"));
    let out = d.path().join("out");
    // The study's own engines (strata, rocksdb): RocksDB, not built in, is
    // left out with a note.
    let sdir = run_fake(&spec, &out, &[]);
    let (_k, kinds) = study_in_temp("kinds", &study("kinds"));
    run_fake(&kinds, &out, &[]);
    let o = lab(&["index", out.to_str().unwrap()]);
    assert_contains(&String::from_utf8_lossy(&o.stdout), "index.md");
    let text = read(&out.join("index.md"));
    assert_contains(
        &text,
        "| study | scale | repeats | engines | date (UTC) | commit | folder |",
    );
    // One row per study directory, linking its report.
    assert_contains(&text, "| tiny | quick | ");
    assert_contains(&text, "[tiny-quick](tiny-quick/report.md)");
    assert_contains(&text, "| kinds | quick | 3 | strata | ");
    // Each study's answer in a line, as its report opens with it.
    assert_contains(&text, "**Answer.** On strata, of ");
    // Each study's verdict summary, as its report opens with it.
    let report = read(&sdir.join("report.md"));
    let summary = report
        .lines()
        .find(|l| l.starts_with("- strata: "))
        .expect("the report's verdict summary");
    assert_contains(&text, summary);
    // The run record: the command line that ran the study is in its
    // report's setup.
    assert_contains(&report, "- Command: `");
    assert_contains(&report, " run ");
    // A folder without studies is an error naming it.
    let empty = d.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_strata-lab"))
        .args(["index", empty.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert_contains(&String::from_utf8_lossy(&o.stderr), "no study directories");
}
