//! `strata lab tune` end to end with a bench whose throughput is a known
//! function of the options (`tests/fake_tune_bench.sh`): the search finds
//! the optimum and confirms it, resumes from its log, and runs in rounds
//! from `lab plan`'s lines.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{assert_contains, crate_dir, lab, lab_output, read, search_args, LAB};

fn bench() -> String {
    format!(
        "sh {}",
        crate_dir().join("tests/fake_tune_bench.sh").display()
    )
}

/// `strata-lab CMD <the fake's tuning> --out OUT --strata-bench <the fake>`
/// and then `extra`, run by `lab` (which panics on a failure) or
/// `lab_output` (which does not).
fn on_fake(cmd: &str, out: &Path, extra: &[&str], run: fn(&[&str]) -> Output) -> Output {
    let spec = crate_dir().join("testdata/tunes/fake.toml");
    let args = search_args(cmd, &spec, out, &bench(), extra);
    run(&args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// `lab tune` on the fake with `extra`; panics on a failure.
fn tune(out: &Path, extra: &[&str]) -> Output {
    on_fake("tune", out, extra, lab)
}

/// A new temporary directory and the output directory in it.
fn temp_out() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    (d, out)
}

fn log_lines(dir: &Path) -> Vec<serde_json::Value> {
    read(&dir.join("trials.jsonl"))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The winner's configuration, from the first confirmation run that is
/// not the baseline.
fn winner(log: &[serde_json::Value]) -> serde_json::Value {
    log.iter()
        .find(|t| t["phase"] == "confirm" && t["id"] != "t000")
        .map(|t| t["config"].clone())
        .expect("a confirmed winner")
}

#[test]
fn the_tuner_finds_the_optimum_and_confirms_the_gain() {
    let (_d, out) = temp_out();
    tune(&out, &[]);
    let dir = out.join("tune-fake-quick");
    let log = log_lines(&dir);
    let search = log.iter().filter(|t| t["phase"] == "search").count();
    let confirm = log.iter().filter(|t| t["phase"] == "confirm").count();
    assert_eq!((search, confirm), (12, 6), "{log:?}");
    assert_eq!(log[0]["why"], "baseline");
    assert_eq!(log[1]["why"], "start: a bloom filter");
    assert!(log.iter().any(|t| t["why"] == "model"));
    let w = winner(&log);
    let num = |k: &str| -> f64 { w[k].as_str().unwrap().parse().unwrap() };
    // The fake's throughput without noise (tests/fake_tune_bench.sh): the
    // winner is within 20% of the optimum (32 MiB, universal, 10 bits).
    let x = (num("write_buffer_size").log2() - 25.0) / 2.0;
    let truth = (-x * x / 2.0).exp()
        * (1.0 + 0.2 * num("compaction_style"))
        * (1.0 + 0.01 * num("bloom_bits"));
    assert!(truth >= 0.8 * 1.2 * 1.1, "winner {w}: {truth}");
    let report = read(&dir.join("report.md"));
    assert_contains(&report, "**confirmed**");
    assert_contains(&report, "| write_buffer_size |");
    assert!(dir.join("convergence-strata.png").exists());
    assert!(dir.join("convergence-strata.svg").exists());
    let ini = read(&dir.join("winner-strata.ini"));
    assert_contains(&ini, "[CFOptions \"default\"]");
    assert_contains(&ini, "[TableOptions/BlockBasedTable \"default\"]");
    let opts = read(&dir.join("winner-strata.options"));
    assert_contains(
        &opts,
        &format!(
            "write_buffer_size={}",
            w["write_buffer_size"].as_str().unwrap()
        ),
    );
    // The same tuning again is refused; --resume with a larger budget
    // continues from the log: only the new runs run.
    let o = on_fake("tune", &out, &[], lab_output);
    assert!(!o.status.success());
    assert_contains(&String::from_utf8_lossy(&o.stderr), "--resume");
    tune(&out, &["--resume"]);
    assert_eq!(
        log_lines(&dir).len(),
        18,
        "a finished tuning resumes to nothing new"
    );
}

#[test]
fn a_tuning_runs_in_rounds_from_plan_lines() {
    let (_d, out) = temp_out();
    let mut rounds = 0;
    loop {
        let o = on_fake("plan", &out, &["--batch", "3", "--lab-cmd", LAB], lab);
        let text = String::from_utf8_lossy(&o.stdout).to_string();
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        if lines.is_empty() {
            break;
        }
        assert!(lines.len() <= 6, "a round: {lines:?}");
        for l in lines {
            let st = Command::new("sh").args(["-c", l]).status().unwrap();
            assert!(st.success(), "{l}");
        }
        rounds += 1;
        assert!(rounds < 20, "the tuning does not end");
    }
    let dir = out.join("tune-fake-quick");
    let log = log_lines(&dir);
    assert_eq!(log.len(), 18);
    // 12 search runs in rounds of at most 3, then one confirmation round.
    assert!(rounds >= 5, "{rounds} rounds");
    lab(&["report", dir.to_str().unwrap()]);
    assert_contains(
        &read(&dir.join("report.md")),
        "Confirmation (3 runs of the baseline, 3 of the winner",
    );
}

#[test]
fn bad_tuning_arguments_are_refused_by_name() {
    let (_d, out) = temp_out();
    for (args, want) in [
        (vec!["--budget", "2"], "--budget"),
        (vec!["--batch", "0"], "--batch"),
        (vec!["--engines", "wiredtiger"], "wiredtiger"),
        (vec!["--set", "novalue"], "FLAG=VALUE"),
        (vec!["--scale", "huge"], "huge"),
    ] {
        let o = on_fake("tune", &out, &args, lab_output);
        assert!(!o.status.success(), "{args:?}");
        assert_contains(&String::from_utf8_lossy(&o.stderr), want);
    }
}

#[test]
fn a_reference_grid_ranks_its_cells_and_the_search_is_measured_against_it() {
    let (_d, out) = temp_out();
    tune(&out, &["--grid", "3"]);
    let grid = out.join("tune-fake-quick-grid");
    let log = log_lines(&grid);
    // The baseline, then 3 x 2 x 3 grid cells (the baseline's own is one of them).
    assert_eq!(log[0]["why"], "baseline");
    assert_eq!(log.len(), 1 + 3 * 2 * 3 - 1, "{log:?}");
    assert!(log.iter().all(|t| t["phase"] == "search"));
    let report = read(&grid.join("report.md"));
    assert_contains(&report, "reference grid");
    assert_contains(&report, "| 1 | ");
    let o = tune(&out, &["--reference", grid.to_str().unwrap()]);
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    assert_contains(&text, "confirmed");
    let dir = out.join("tune-fake-quick");
    let report = read(&dir.join("report.md"));
    assert_contains(&report, "Against the reference grid (");
    assert_contains(&report, "of the grid's best");
    // Last, the winner and the grid's best cell run alternating.
    let log = log_lines(&dir);
    let head: Vec<&serde_json::Value> = log.iter().filter(|t| t["phase"] == "reference").collect();
    let confirm = log.iter().filter(|t| t["phase"] == "confirm").count();
    assert_eq!(
        head.len(),
        confirm,
        "as many runs as the confirmation: {log:?}"
    );
    assert!(log[log.len() - head.len()..]
        .iter()
        .all(|t| t["phase"] == "reference"));
    assert_ne!(head[0]["config"], head[1]["config"]);
    assert_eq!(head[0]["config"], head[2]["config"]);
    assert_contains(&report, "Head to head (");
    // Kept without its run directories (as in docs/results), the tuning's
    // report is written again from the merged results alone.
    std::fs::remove_dir_all(dir.join("runs")).unwrap();
    lab(&["report", dir.to_str().unwrap()]);
    assert_eq!(read(&dir.join("report.md")), report);
}
