//! End-to-end verdicts: every finding kind reproduced, failed (reversed or
//! not reproduced) and inconclusive, on the fake db_bench whose figures are
//! known (`--fake_scale` sets a variant's speed, `--fake_noise` spreads its
//! repeats), and the report's verdict section against its golden copy.

mod common;

use std::path::Path;

use common::{assert_golden, read, run_fake, study};

/// (id, kind-specific fields, expected verdict)
const FINDINGS: &[(&str, &str, &str)] = &[
    ("cross-yes", "kind = \"crossover\"\nalong = \"value_size\"\nseries_axis = \"layout\"\nseries = [\"inline\", \"blob\"]\nbetween = [\"256\", \"2048\"]", "reproduced"),
    ("cross-window", "kind = \"crossover\"\nalong = \"value_size\"\nseries_axis = \"layout\"\nseries = [\"inline\", \"blob\"]\nbetween = [\"2048\", \"4096\"]", "not reproduced"),
    ("cross-rev", "kind = \"crossover\"\nalong = \"value_size\"\nseries_axis = \"layout\"\nseries = [\"blob\", \"inline\"]", "reversed"),
    ("cross-twins", "kind = \"crossover\"\nalong = \"value_size\"\nseries_axis = \"layout\"\nseries = [\"inline\", \"twin\"]", "not reproduced"),
    ("cross-noisy", "kind = \"crossover\"\nalong = \"value_size\"\nseries_axis = \"layout\"\nseries = [\"inline\", \"noisy\"]", "inconclusive"),
    ("order-yes", "kind = \"ordering\"\nalong = \"value_size\"\nseries_axis = \"layout\"\nseries = [\"fast\", \"inline\"]", "reproduced"),
    ("order-rev", "kind = \"ordering\"\nalong = \"value_size\"\nseries_axis = \"layout\"\nseries = [\"inline\", \"fast\"]", "reversed"),
    ("order-twins", "kind = \"ordering\"\nalong = \"value_size\"\nseries_axis = \"layout\"\nseries = [\"inline\", \"twin\"]", "not reproduced"),
    ("order-noisy", "kind = \"ordering\"\nalong = \"value_size\"\nseries_axis = \"layout\"\nseries = [\"noisy\", \"inline\"]", "inconclusive"),
    ("ratio-yes", "kind = \"ratio\"\nalong = \"value_size\"\nseries_axis = \"layout\"\nseries = [\"inline\", \"fast\"]\nrange = [1.4, 1.6]", "reproduced"),
    ("ratio-off", "kind = \"ratio\"\nalong = \"value_size\"\nseries_axis = \"layout\"\nseries = [\"inline\", \"fast\"]\nrange = [2.0, 3.0]", "not reproduced"),
    ("ratio-larger", "kind = \"ratio\"\nalong = \"value_size\"\nseries_axis = \"layout\"\nseries = [\"inline\", \"fast\"]\nrange = [1.1, 1.3]", "reproduced, larger than published"),
    ("ratio-rev", "kind = \"ratio\"\nalong = \"value_size\"\nseries_axis = \"layout\"\nseries = [\"inline\", \"fast\"]\nrange = [0.5, 0.8]", "reversed"),
    ("ratio-noisy", "kind = \"ratio\"\nseries_axis = \"layout\"\nseries = [\"inline\", \"noisy\"]\nwhere = { value_size = \"256\" }\nrange = [1.0, 1.1]", "inconclusive"),
    ("mono-yes", "kind = \"monotonic\"\nalong = \"value_size\"\nwhere = { layout = \"inline\" }\ndirection = \"decreasing\"", "reproduced"),
    ("mono-rev", "kind = \"monotonic\"\nalong = \"value_size\"\nwhere = { layout = \"inline\" }\ndirection = \"increasing\"", "reversed"),
    ("mono-flat", "kind = \"monotonic\"\nalong = \"value_size\"\nwhere = { layout = \"blob\" }\ndirection = \"increasing\"", "not reproduced"),
    ("mono-ratio", "kind = \"monotonic\"\nalong = \"value_size\"\nseries_axis = \"layout\"\nseries = [\"inline\", \"blob\"]\ndirection = \"increasing\"", "reproduced"),
    ("mono-noisy", "kind = \"monotonic\"\nalong = \"value_size\"\nwhere = { layout = \"noisyblob\" }\ndirection = \"increasing\"", "inconclusive"),
    ("argmax-yes", "kind = \"argmax\"\nalong = \"value_size\"\nwhere = { layout = \"inline\" }\nexpected = [\"256\"]", "reproduced"),
    ("argmax-no", "kind = \"argmax\"\nalong = \"value_size\"\nwhere = { layout = \"inline\" }\nexpected = [\"4096\"]", "not reproduced"),
    ("argmax-min", "kind = \"argmax\"\nalong = \"value_size\"\nwhere = { layout = \"inline\" }\nexpected = [\"4096\"]\nminimize = true", "reproduced"),
    ("argmax-flat", "kind = \"argmax\"\nalong = \"value_size\"\nwhere = { layout = \"blob\" }\nexpected = [\"interior\"]", "not reproduced"),
    ("argmax-noisy", "kind = \"argmax\"\nalong = \"value_size\"\nwhere = { layout = \"noisyblob\" }\nexpected = [\"2048\"]", "inconclusive"),
    ("parity-yes", "kind = \"parity\"\nalong = \"value_size\"\nseries_axis = \"layout\"\nseries = [\"inline\", \"twin\"]", "reproduced"),
    ("parity-no", "kind = \"parity\"\nalong = \"value_size\"\nseries_axis = \"layout\"\nseries = [\"inline\", \"fast\"]", "not reproduced"),
    ("parity-noisy", "kind = \"parity\"\nalong = \"value_size\"\nseries_axis = \"layout\"\nseries = [\"inline\", \"noisy\"]", "inconclusive"),
    ("bound-yes", "kind = \"bound\"\nmetric = \"stall_sec\"\nalong = \"value_size\"\nmax = 0.1", "reproduced"),
    ("bound-no", "kind = \"bound\"\nalong = \"value_size\"\nwhere = { layout = \"blob\" }\nmax = 1000", "not reproduced"),
    ("bound-noisy", "kind = \"bound\"\nalong = \"value_size\"\nwhere = { layout = \"noisyblob\" }\nmax = 550000", "inconclusive"),
    ("noisy-across", "kind = \"ordering\"\nalong = \"value_size\"\nwhere = { value_size = \"256\" }\nseries_axis = \"layout\"\nseries = [\"noisy\", \"twin\"]", "inconclusive"),
];

fn study_text() -> String {
    let mut t = study("kinds");
    for (id, body, _) in FINDINGS {
        let metric = if body.contains("metric =") {
            String::new()
        } else {
            "metric = \"ops_sec\"\n".into()
        };
        t.push_str(&format!(
            "\n[[finding]]\nid = \"{id}\"\nclaim = \"{id}\"\npublished = \"-\"\nstep = \"fillrandom\"\n{metric}{body}\n"
        ));
    }
    t
}

fn run_study(dir: &Path) -> String {
    let spec = dir.join("kinds.toml");
    std::fs::write(&spec, study_text()).unwrap();
    read(&run_fake(&spec, &dir.join("out"), &[]).join("report.md"))
}

/// The markdown between the verdicts heading and the next section.
fn verdict_section(md: &str) -> String {
    let start = md
        .find("## Verdicts on the published claims")
        .expect("verdict section");
    let rest = &md[start..];
    let end = rest[3..].find("\n## ").map(|i| i + 4).unwrap_or(rest.len());
    rest[..end].to_string()
}

#[test]
fn every_kind_gets_the_verdict_its_data_supports() {
    let d = tempfile::tempdir().unwrap();
    let md = run_study(d.path());
    let mut wrong = Vec::new();
    for (id, _, want) in FINDINGS {
        let row = md
            .lines()
            .find(|l| l.starts_with(&format!("| {id} |")))
            .unwrap_or_else(|| panic!("no row for {id}\n{md}"));
        if !row.contains(&format!("| strata | {want} |")) {
            wrong.push(format!("{id}: want {want}: {row}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The report opens with the verdicts: before the setup.
    let v = md.find("## Verdicts on the published claims").unwrap();
    assert!(v < md.find("## Setup").unwrap());
    let n = FINDINGS.len();
    let count = |w: &str| FINDINGS.iter().filter(|f| f.2 == w).count();
    assert!(
        md.contains(&format!(
            "- strata: {} reproduced, {} reproduced, larger than published, {} not reproduced, {} reversed, {} inconclusive (repeats per cell that would decide them: ",
            count("reproduced"),
            count("reproduced, larger than published"),
            count("not reproduced"),
            count("reversed"),
            count("inconclusive")
        )),
        "{}",
        verdict_section(&md)
    );
    // Each undecided claim with the repeats that would decide it, or why
    // there is no estimate.
    let summary = md.lines().find(|l| l.starts_with("- strata: ")).unwrap();
    for (id, _, want) in FINDINGS {
        if *want == "inconclusive" {
            assert!(summary.contains(&format!("`{id}` ")), "{id}: {summary}");
        }
    }
    assert!(summary.contains("`cross-noisy` about "), "{summary}");
    // Every kind estimates them: trends, best points and bounds too.
    for id in ["mono-noisy", "argmax-noisy", "bound-noisy"] {
        assert!(summary.contains(&format!("`{id}` about ")), "{summary}");
    }
    assert!(!summary.contains("no estimate"), "{summary}");
    assert!(summary.ends_with(&format!(") of {n} claims.")), "{summary}");
    // The engine the study names but that did not run is one line, not a row per claim.
    assert!(!md.contains("| rocksdb |"));

    assert_golden("verdicts.md", &verdict_section(&md));
}

/// A claim about more cores than the host has, scoped to the published
/// scale, is listed as not testable here at a smaller scale with the cores
/// it needs, not left out; a scale-scoped claim that names no cores is left
/// out; and an engine whose every cell is skipped says why.
#[test]
fn multi_core_claims_of_a_small_host_are_listed_not_testable_with_the_cores_needed() {
    let text = r#"
name = "cores"
title = "Cores"
question = "Are claims about more cores listed?"
repeats = 3
engines = ["strata", "leveldb"]
[flags]
num = 1000
statistics = 1
max_subcompactions = 2
[[axis]]
name = "cpus"
values = [1, 4096]
[[step]]
benchmarks = "fillrandom,stats"
[scales.quick]
axis_values = { cpus = [1] }
[scales.full]
[[finding]]
id = "many-cores"
claim = "Throughput rises with cores."
published = "-"
kind = "monotonic"
metric = "ops_sec"
step = "fillrandom"
along = "cpus"
direction = "increasing"
scales = ["full"]
[[finding]]
id = "full-only"
claim = "Throughput is above 1 op/s."
published = "-"
kind = "bound"
metric = "ops_sec"
step = "fillrandom"
min = 1
scales = ["full"]
[[finding]]
id = "here"
claim = "Throughput is above 1 op/s here."
published = "-"
kind = "bound"
metric = "ops_sec"
step = "fillrandom"
min = 1
"#;
    let (d, spec) = common::study_in_temp("cores", text);
    let fake = common::fake_bench();
    let out = run_fake(
        &spec,
        &d.path().join("out"),
        &["--engines", "strata,leveldb", "--leveldb-bench", &fake],
    );
    let md = read(&out.join("report.md"));
    let v = verdict_section(&md);
    let row = v
        .lines()
        .find(|l| l.starts_with("| many-cores |"))
        .unwrap_or_else(|| panic!("no row for the multi-core claim\n{v}"));
    assert!(row.contains("| strata | not testable here |"), "{row}");
    assert!(
        row.contains("judged at the `full` scale, which needs 4096 cores; this host has"),
        "{row}"
    );
    assert!(!v.contains("| full-only |"), "{v}");
    assert!(
        v.contains(&format!(
            "- strata: 1 reproduced, 0 not reproduced, 0 reversed, 0 inconclusive, 1 not testable here (needs 4096 cores; this host has {}) of 2 claims.",
            std::thread::available_parallelism().unwrap()
        )),
        "{v}"
    );
    assert!(
        v.contains("- leveldb: every cell skipped, so not judged (LevelDB's db_bench has no --max_subcompactions (set to 2))"),
        "{v}"
    );
}

#[test]
fn a_cell_pinned_to_more_cores_than_the_host_has_is_skipped_and_its_claim_not_testable() {
    let text = r#"
name = "pinned"
title = "Pinned"
question = "Are cells of more cores than the host has run?"
repeats = 3
engines = ["strata"]
[flags]
num = 1000
statistics = 1
[[axis]]
name = "cpus"
values = [1, 4096]
[[step]]
benchmarks = "fillrandom,stats"
[scales.quick]
[[finding]]
id = "many-cores"
claim = "Throughput at 4096 cores is above 1 op/s."
published = "-"
kind = "bound"
metric = "ops_sec"
step = "fillrandom"
where = { cpus = "4096" }
min = 1
[[finding]]
id = "one-core"
claim = "Throughput at one core is above 1 op/s."
published = "-"
kind = "bound"
metric = "ops_sec"
step = "fillrandom"
where = { cpus = "1" }
min = 1
"#;
    let (d, spec) = common::study_in_temp("pinned", text);
    let out = run_fake(&spec, &d.path().join("out"), &["--engines", "strata"]);
    let all = common::rows(&out.join("results.jsonl"));
    let cores = all[0].host.cores;
    let (pinned, one): (Vec<_>, Vec<_>) = all.iter().partition(|r| r.cell["cpus"] == "4096");
    assert_eq!(pinned.len(), 3, "{all:?}");
    for r in &pinned {
        assert!(!r.ok && r.wall_sec == 0.0, "{r:?}");
        assert_eq!(
            r.error.as_deref(),
            Some(format!("skipped: the cell pins 4096 cores; this host has {cores}").as_str())
        );
    }
    assert!(one.iter().all(|r| r.ok), "{one:?}");
    let md = read(&out.join("report.md"));
    let section = md.split("## Skipped cells").nth(1).expect(&md);
    assert!(
        section.contains(&format!(
            "- strata skips the cell pinned to 4096 cores: this host has {cores}."
        )),
        "{section}"
    );
    // Not a failure, and the claim about it is not testable, not failed.
    assert!(!md.contains("## Failed runs"), "{md}");
    let v = verdict_section(&md);
    let row = v
        .lines()
        .find(|l| l.starts_with("| many-cores |"))
        .unwrap_or_else(|| panic!("no row\n{v}"));
    assert!(row.contains("| strata | not testable here |"), "{row}");
    assert!(row.contains("needs 4096 cores"), "{row}");
    let row = v.lines().find(|l| l.starts_with("| one-core |")).expect(&v);
    assert!(row.contains("| strata | reproduced |"), "{row}");
}
