//! Every shipped study file (studies/: the five published studies and their
//! follow-ups) and sweep (sweeps/: engine comparisons with no claims)
//! parses, validates and expands at both scales, the quick one smaller.

use std::path::{Path, PathBuf};

/// The `.toml` files of a folder at the repository's top, sorted.
fn shipped(folder: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(folder);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    v
}

fn check_scales(p: &Path) -> strata_lab::spec::study::LoadedSpec {
    let l = strata_lab::spec::load(p).unwrap_or_else(|e| panic!("{e}"));
    let name = p.file_stem().unwrap().to_str().unwrap();
    assert_eq!(
        l.spec.name,
        name,
        "{}: name differs from the file",
        p.display()
    );
    assert!(!l.spec.charts.is_empty(), "{name}: no charts");
    let quick = strata_lab::spec::model::expand(&l, "quick", None, None).unwrap();
    let full = strata_lab::spec::model::expand(&l, "full", None, None).unwrap();
    for plan in [&quick, &full] {
        assert!(!plan.jobs.is_empty());
        assert!(plan.max_disk_need() > 0);
        // Repeats are independent: two repeats of one cell and engine draw
        // different keys.
        let first = &plan.jobs[0];
        if let Some(second) = plan
            .jobs
            .iter()
            .find(|j| j.repeat == 1 && j.cell.id == first.cell.id && j.engine == first.engine)
        {
            let seed = |j| plan.job_step_flags(j, 0).get("seed").cloned();
            assert!(seed(first).is_some(), "{name}: no seed");
            assert_ne!(seed(first), seed(second), "{name}: repeats share a seed");
        }
    }
    assert!(
        quick.max_disk_need() < full.max_disk_need(),
        "{name}: quick must be smaller than full"
    );
    l
}

#[test]
fn shipped_studies_are_valid() {
    let studies = shipped("studies");
    assert!(studies.len() >= 8, "{studies:?}");
    for p in studies {
        let l = check_scales(&p);
        assert!(
            !l.spec.findings.is_empty(),
            "{}: no published findings",
            p.display()
        );
    }
}

#[test]
fn shipped_sweeps_are_valid() {
    let sweeps = shipped("sweeps");
    assert!(sweeps.len() >= 5, "{sweeps:?}");
    for p in sweeps {
        let l = check_scales(&p);
        assert!(
            l.spec.findings.is_empty(),
            "{}: a sweep judges no claims",
            p.display()
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
