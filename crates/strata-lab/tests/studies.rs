//! The shipped studies (the five published ones, study 5's steady-state
//! variant and its L0-trigger sweep) parse, validate and expand at both scales.

use std::path::Path;

const STUDIES: &[&str] = &[
    "blob",
    "bloom",
    "write_buffer",
    "subcompactions",
    "wal_compaction",
    "wal_compaction_steady",
    "l0_trigger",
];

#[test]
fn shipped_studies_are_valid() {
    for name in STUDIES {
        let p = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../../studies/{name}.toml"));
        let l = strata_lab::spec::load(&p).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(l.spec.name, *name);
        assert!(!l.spec.findings.is_empty(), "{name}: no published findings");
        assert!(!l.spec.charts.is_empty(), "{name}: no charts");
        for scale in ["quick", "full"] {
            let plan = strata_lab::spec::model::expand(&l, scale, None, None).unwrap();
            assert!(!plan.jobs.is_empty());
            assert!(plan.max_disk_need() > 0);
        }
        let quick = strata_lab::spec::model::expand(&l, "quick", None, None).unwrap();
        let full = strata_lab::spec::model::expand(&l, "full", None, None).unwrap();
        assert!(
            quick.max_disk_need() < full.max_disk_need(),
            "{name}: quick must be smaller than full"
        );
    }
}

#[test]
fn blob_full_scale_is_the_published_setup() {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../studies/blob.toml");
    let l = strata_lab::spec::load(&p).unwrap();
    let plan = strata_lab::spec::model::expand(&l, "full", None, None).unwrap();
    assert_eq!(plan.fixed.get("num").map(String::as_str), Some("500000"));
    assert_eq!(plan.repeats, 5);
    assert_eq!(plan.cells.len(), 10);
    // 500,000 x (16 + 16,384) x 2: about 16.4 GB for the largest cell.
    assert_eq!(plan.max_disk_need(), 16_400_000_000);
}
