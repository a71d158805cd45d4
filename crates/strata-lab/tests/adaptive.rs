//! `lab run --until-decided` on the fake db_bench: the cells of a claim
//! still undecided after the study's repeats get more repeats; the cells of
//! claims already decided do not; the report says how the claims were
//! judged.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::{assert_contains, read, rows, run_fake, study_in_temp};

const STUDY: &str = r#"
name = "adaptive"
title = "Adaptive repeats"
question = "Do undecided claims get more repeats?"
repeats = 3
engines = ["strata"]
[flags]
num = 1000
statistics = 1
histogram = 1
[[axis]]
name = "layout"
[[axis.variant]]
label = "inline"
flags = { enable_blob_files = false }
[[axis.variant]]
label = "fast"
flags = { enable_blob_files = false, fake_scale = 1.5 }
[[axis.variant]]
label = "slow"
flags = { enable_blob_files = false, fake_scale = 0.62, fake_noise = 0.2 }
[[step]]
benchmarks = "fillrandom,stats"
[scales.quick]
[[chart]]
id = "ops"
title = "ops"
step = "fillrandom"
metrics = ["ops_sec"]
x = "layout"
[[finding]]
id = "fast-wins"
claim = "fast is faster than inline"
published = "-"
kind = "ordering"
metric = "ops_sec"
step = "fillrandom"
series_axis = "layout"
series = ["fast", "inline"]
[[finding]]
id = "slow-loses"
claim = "inline is faster than slow"
published = "-"
kind = "ordering"
metric = "ops_sec"
step = "fillrandom"
series_axis = "layout"
series = ["inline", "slow"]
"#;

#[test]
fn undecided_claims_get_more_repeats_and_decided_ones_do_not() {
    let (d, spec) = study_in_temp("adaptive", STUDY);
    let sdir = run_fake(
        &spec,
        &d.path().join("out"),
        &["--until-decided", "--max-repeats", "6"],
    );
    let all = rows(&sdir.join("results.jsonl"));
    let mut repeats: BTreeMap<String, BTreeSet<u32>> = BTreeMap::new();
    for r in &all {
        repeats
            .entry(r.cell_id.clone())
            .or_default()
            .insert(r.repeat);
    }
    let n = |c: &str| repeats.get(c).map_or(0, BTreeSet::len);
    // fast-wins is decided at 3 repeats; slow-loses is not, so its cells
    // (inline and slow) get the next round, to 6.
    assert_eq!(n("layout=fast"), 3, "{repeats:?}");
    assert_eq!(n("layout=slow"), 6, "{repeats:?}");
    assert_eq!(n("layout=inline"), 6, "{repeats:?}");
    let md = read(&sdir.join("report.md"));
    assert_contains(
        &md,
        "Adaptive repeats (`--until-decided`): claims were judged at 3, 6 repeats per cell",
    );
    assert_contains(&md, "each verdict reads its bounds at 5% / 2");
    let row = md
        .lines()
        .find(|l| l.starts_with("| fast-wins |"))
        .expect("fast-wins row");
    assert!(row.contains("| reproduced |"), "{row}");
}

#[test]
fn max_repeats_without_until_decided_is_refused() {
    let (d, spec) = study_in_temp("adaptive", STUDY);
    let o = std::process::Command::new(common::LAB)
        .args(["run", spec.to_str().unwrap(), "--max-repeats", "6", "--out"])
        .arg(d.path().join("out"))
        .output()
        .unwrap();
    assert!(!o.status.success());
    assert_contains(
        &String::from_utf8_lossy(&o.stderr),
        "--max-repeats and --budget go with --until-decided",
    );
}
