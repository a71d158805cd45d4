//! A whole report against its golden copy: the tiny study's stored rows
//! (`testdata/report/tiny-quick`, a fake-bench run of
//! `testdata/studies/tiny.toml` with 20,000 keys) rendered by `lab report`
//! must give `testdata/golden/report.md` byte for byte. Regenerate the
//! golden file with `STRATA_UPDATE_GOLDEN=1` after an intended change.

mod common;

use common::{assert_golden, read};

#[test]
fn the_tiny_study_report_matches_its_golden_copy() {
    let (_d, sdir) = common::tiny_report();
    let md = read(&sdir.join("report.md"));
    assert!(md.contains("## Verdicts on the published claims"), "{md}");
    assert_golden("report.md", &md);
}
