//! A whole report against its golden copy: the tiny study's stored rows
//! (`testdata/report/tiny-quick`, a fake-bench run of
//! `testdata/studies/tiny.toml` with 20,000 keys) rendered by `lab report`
//! must give `testdata/golden/report.md` byte for byte. Regenerate the
//! golden file with `STRATA_UPDATE_GOLDEN=1` after an intended change.

mod common;

use common::{assert_golden, crate_dir, lab, read};

#[test]
fn the_tiny_study_report_matches_its_golden_copy() {
    let d = tempfile::tempdir().unwrap();
    let sdir = d.path().join("tiny-quick");
    std::fs::create_dir(&sdir).unwrap();
    let stored = crate_dir().join("testdata/report/tiny-quick");
    for f in ["meta.json", "study.toml", "results.jsonl"] {
        std::fs::copy(stored.join(f), sdir.join(f)).unwrap();
    }
    lab(&["report", sdir.to_str().unwrap()]);
    let md = read(&sdir.join("report.md"));
    assert!(md.contains("## Verdicts on the published claims"), "{md}");
    assert_golden("report.md", &md);
}
