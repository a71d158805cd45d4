//! `strata lab run` end to end on the real engine: a tiny two-axis study
//! through this very binary's `strata bench`, then the report, the charts
//! and the findings are checked.

use std::path::Path;
use std::process::Command;

const STRATA: &str = env!("CARGO_BIN_EXE_strata");

/// The lab's own two-axis test study, shared with its end-to-end tests.
const SPEC: &str = include_str!("../../strata-lab/testdata/studies/tiny.toml");

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Runs the tiny study on Strata with `extra` arguments; returns the temp
/// dir (kept alive), the study's output directory and the process output.
fn run_tiny(
    extra: &[&str],
) -> (
    strata_testkit::TempDir,
    std::path::PathBuf,
    std::process::Output,
) {
    let dir = strata_testkit::tempdir();
    let spec = dir.path().join("tiny.toml");
    std::fs::write(&spec, SPEC).unwrap();
    let out = dir.path().join("out");
    let o = Command::new(STRATA)
        .args(["lab", "run", "--no-settle"])
        .arg(&spec)
        .args(["--scale", "quick", "--engines", "strata"])
        // Enough keys, and a write buffer small enough, for flushes.
        .args(["--set", "num=2000", "--set", "write_buffer_size=262144"])
        .args(extra)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    (dir, out.join("tiny-quick"), o)
}

#[test]
fn tiny_study_runs_on_strata_and_reports() {
    let (_dir, study, o) = run_tiny(&[]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "lab run failed:\n{stdout}\n{stderr}");
    let md = read(&study.join("report.md"));
    assert!(md.contains("Strata"), "{md}");
    assert!(read(&study.join("report.html")).contains("<html"));
    // Each job keeps the options the engine opened with.
    let runs: Vec<_> = std::fs::read_dir(study.join("runs"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .collect();
    assert!(!runs.is_empty());
    for r in &runs {
        let opts = read(&r.join("OPTIONS"));
        assert!(opts.contains("write_buffer_size=262144"), "{}", r.display());
    }
    assert!(
        md.contains(
            "The options each job's engine opened with are kept as `runs/<job>/OPTIONS` (strata)."
        ),
        "{md}"
    );
    // Every run succeeded and produced figures parsed from strata bench.
    let rows = read(&study.join("results.jsonl"));
    let n = rows.lines().count();
    assert!(
        n >= 8,
        "expected 2 value sizes x 2 layouts x 2 repeats (x steps), got {n} rows"
    );
    for line in rows.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["ok"], serde_json::Value::Bool(true), "failed run: {line}");
        assert!(
            v["metrics"]["ops_sec"].as_f64().unwrap_or(0.0) > 0.0,
            "{line}"
        );
    }
    // Charts: valid PNG and SVG files naming the series.
    for id in ["ops", "lat"] {
        let png = std::fs::read(study.join("charts").join(format!("{id}.png"))).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{id}.png is not a PNG");
        let svg = read(&study.join("charts").join(format!("{id}.svg")));
        assert!(svg.starts_with("<svg") || svg.contains("<svg"), "{id}.svg");
        assert!(
            svg.contains("blob") && svg.contains("inline"),
            "{id}.svg lacks the series"
        );
    }
}

#[test]
fn only_runs_and_reports_the_selected_cells() {
    let (_dir, study, o) = run_tiny(&["--repeats", "1", "--only", "value_size=256,layout=blob"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "lab run failed:\n{stderr}");
    let rows = read(&study.join("results.jsonl"));
    assert_eq!(rows.lines().count(), 2, "one cell x two steps:\n{rows}");
    for line in rows.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["cell_id"], "value_size=256,layout=blob", "{line}");
    }
    // `lab report` re-reads the filter from meta.json: one cell, not four.
    let o = Command::new(STRATA)
        .args(["lab", "report"])
        .arg(&study)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let md = read(&study.join("report.md"));
    assert!(md.contains("1 cells"), "{md}");
    assert!(!md.contains("| inline"), "{md}");
}

/// Two separate runs of one study: `lab collect` refuses to merge them
/// silently (the second would overwrite the first's runs), and with
/// `--pool` keeps both as repeats 0-1 and 2-3 of each cell.
#[test]
fn collect_pools_separate_runs_only_when_asked() {
    let (_d1, s1, o1) = run_tiny(&[]);
    let (_d2, s2, o2) = run_tiny(&[]);
    assert!(o1.status.success() && o2.status.success());
    // As if the second run were of another commit.
    for run in std::fs::read_dir(s2.join("runs")).unwrap() {
        let path = run.unwrap().path().join("result.jsonl");
        let rows: Vec<String> = read(&path)
            .lines()
            .map(|l| {
                let mut v: serde_json::Value = serde_json::from_str(l).unwrap();
                v["git_commit"] = serde_json::json!("0000000othercommit");
                v.to_string()
            })
            .collect();
        std::fs::write(&path, rows.join("\n") + "\n").unwrap();
    }
    let out = strata_testkit::tempdir();
    let collect = |extra: &[&str]| {
        Command::new(STRATA)
            .args(["lab", "collect"])
            .arg(s1.parent().unwrap())
            .arg(s2.parent().unwrap())
            .args(extra)
            .arg("--out")
            .arg(out.path())
            .output()
            .unwrap()
    };
    let o = collect(&[]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success() && stderr.contains("--pool"), "{stderr}");
    let _ = std::fs::remove_dir_all(out.path());
    let o = collect(&["--pool"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = |p: &std::path::Path| read(&p.join("results.jsonl")).lines().count();
    let pooled = out.path().join("tiny-quick");
    assert_eq!(rows(&pooled), rows(&s1) + rows(&s2));
    let repeats: std::collections::BTreeSet<u64> = read(&pooled.join("results.jsonl"))
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["repeat"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(repeats.into_iter().collect::<Vec<_>>(), vec![0, 1, 2, 3]);
    // The report says the pool mixes commits.
    let md = read(&pooled.join("report.md"));
    assert!(
        md.contains("Git commits (pooled runs): ") && md.contains("0000000othercommit"),
        "{md}"
    );
}
