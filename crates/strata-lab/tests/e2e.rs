//! End-to-end tests: a tiny study through a real db_bench-compatible bench.
//!
//! The bench is `$STRATA_LAB_BENCH` (a command, e.g. `strata bench`) if set,
//! else a `db_bench` on PATH; without either the tests print why and skip.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::{
    assert_contains, assert_png, fake_bench, lab, read, rows, run_fake, run_with, study,
    study_in_temp, svg_texts, LAB,
};

fn bench() -> Option<String> {
    if let Ok(b) = std::env::var("STRATA_LAB_BENCH") {
        return Some(b);
    }
    match strata_lab::find_on_path("db_bench") {
        Some(p) => Some(p.display().to_string()),
        None => {
            eprintln!("SKIPPED: no bench command (set STRATA_LAB_BENCH or install db_bench, e.g. apt-get install rocksdb-tools)");
            None
        }
    }
}

/// A real bench if there is one, else the fake (so these tests run in CI too).
fn bench_or_fake() -> String {
    if std::env::var("STRATA_LAB_BENCH").is_ok() || strata_lab::find_on_path("db_bench").is_some() {
        if let Some(b) = bench() {
            return b;
        }
    }
    fake_bench()
}

fn setup() -> (tempfile::TempDir, PathBuf) {
    study_in_temp("tiny", &study("tiny"))
}

/// The job lines `lab plan` prints for one repeat of `spec` on Strata
/// (with `bench`) and this test binary's `strata-lab`, then `extra`.
fn plan_jobs(spec: &Path, out: &Path, bench: &str, extra: &[&str]) -> String {
    let mut args = vec![
        "plan",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend([
        "--strata-bench",
        bench,
        "--engines",
        "strata",
        "--repeats",
        "1",
    ]);
    args.extend(["--lab-cmd", LAB]);
    args.extend(extra);
    String::from_utf8_lossy(&lab(&args).stdout).to_string()
}

/// The tiny study with a finding that blob overtakes inline, `between`
/// its value sizes if given.
fn tiny_with_crossover(between: &str) -> String {
    format!(
        "{}\n[[finding]]\nid = \"cross\"\nclaim = \"blob overtakes inline\"\npublished = \"p\"\nkind = \"crossover\"\nmetric = \"ops_sec\"\nstep = \"fillrandom\"\nalong = \"value_size\"\nseries_axis = \"layout\"\nseries = [\"inline\", \"blob\"]\n{between}",
        study("tiny")
    )
}

#[test]
fn tiny_study_end_to_end() {
    let Some(b) = bench() else { return };
    let (d, spec) = setup();
    let out = d.path().join("out");
    let o = run_with(&spec, &out, &b, &["--rocksdb-bench", &b]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("report.html"));
    let sdir = out.join("tiny-quick");
    let md = read(&sdir.join("report.md"));
    let html = read(&sdir.join("report.html"));
    assert!(html.contains("<svg") && html.contains("Verdicts on the published claims"));
    for id in ["ops", "lat"] {
        assert_png(&sdir.join(format!("charts/{id}.png")));
        let texts = svg_texts(&sdir.join(format!("charts/{id}.svg")));
        for s in [
            "strata inline",
            "strata blob",
            "rocksdb inline",
            "rocksdb blob",
        ] {
            assert!(
                texts.iter().any(|t| t.starts_with(s)),
                "{id}: series {s} missing in {texts:?}"
            );
        }
    }
    // 4 cells x 2 engines x 2 repeats x 2 steps.
    let all = rows(&sdir.join("results.jsonl"));
    assert_eq!(all.len(), 32);
    assert!(all.iter().all(|r| r.ok), "{:?}", all.iter().find(|r| !r.ok));
    assert!(all.iter().all(|r| r.engine_version.starts_with("RocksDB ")));
    let csv = read(&sdir.join("results.csv"));
    assert_eq!(csv.lines().count(), 33);
    // Findings match the data: recompute the best value size for rocksdb inline.
    let mut means: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for r in all
        .iter()
        .filter(|r| r.engine == "rocksdb" && r.step == "fillrandom" && r.cell["layout"] == "inline")
    {
        means
            .entry(r.cell["value_size"].clone())
            .or_default()
            .push(r.metrics["ops_sec"]);
    }
    let avg = |v: &Vec<f64>| v.iter().sum::<f64>() / v.len() as f64;
    let best = means
        .iter()
        .max_by(|a, b| avg(a.1).total_cmp(&avg(b.1)))
        .map(|(k, _)| k.clone())
        .unwrap();
    let best_h = if best == "256" { "256 B" } else { "2 KB" };
    assert_contains(
        &md,
        &format!("rocksdb, inline, fillrandom: best ops_sec at value_size = {best_h}"),
    );
    let verdict = if best == "256" {
        "| reproduced |"
    } else {
        "| not reproduced |"
    };
    let line = md
        .lines()
        .find(|l| l.starts_with("| bigger-is-slower |") && l.contains("| rocksdb |"))
        .unwrap();
    assert!(line.contains(verdict), "{line}");

    // Comparing the run with itself flags nothing.
    let o = lab(&["compare", sdir.to_str().unwrap(), sdir.to_str().unwrap()]);
    assert!(
        String::from_utf8_lossy(&o.stdout).contains("\n0 of "),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}

#[test]
fn resume_after_interruption() {
    let b = bench_or_fake();
    let (d, spec) = setup();
    let out = d.path().join("out");
    let base = ["--engines", "strata", "--repeats", "1"];
    let mut first = base.to_vec();
    first.extend(["--max-runs", "2"]);
    run_with(&spec, &out, &b, &first);
    let sdir = out.join("tiny-quick");
    let done = strata_lab::data::results::run_files(&sdir);
    assert_eq!(done.len(), 2);
    assert!(!sdir.join("report.md").exists());
    let before: Vec<String> = done
        .iter()
        .map(|p| std::fs::read_to_string(p).unwrap())
        .collect();
    // A job killed mid-way leaves a run directory without result.jsonl
    // (jobs run in a shuffled order: take one the first run did not do).
    let partial = ["256", "2048"]
        .iter()
        .flat_map(|v| {
            ["inline", "blob"].map(|l| format!("runs/strata__value_size_{v}_layout_{l}__r0"))
        })
        .map(|k| sdir.join(k))
        .find(|p| !p.join("result.jsonl").exists())
        .expect("a job the interrupted run did not do");
    std::fs::create_dir_all(partial.join("db")).unwrap();
    std::fs::write(partial.join("step0.stdout"), "garbage from a killed run").unwrap();
    let mut again = base.to_vec();
    again.push("--resume");
    run_with(&spec, &out, &b, &again);
    assert!(
        partial.join("result.jsonl").exists(),
        "the partial job was re-run"
    );
    assert_ne!(
        std::fs::read_to_string(partial.join("step0.stdout")).unwrap(),
        "garbage from a killed run"
    );
    let after = strata_lab::data::results::run_files(&sdir);
    assert_eq!(after.len(), 4);
    for (p, b) in done.iter().zip(&before) {
        assert_eq!(
            &std::fs::read_to_string(p).unwrap(),
            b,
            "{} was re-run",
            p.display()
        );
    }
    assert_eq!(rows(&sdir.join("results.jsonl")).len(), 8);
    assert!(sdir.join("report.md").exists());
}

#[test]
fn missing_rocksdb_is_an_error_unless_allowed_then_strata_runs_alone_and_says_so() {
    let b = bench_or_fake();
    let (d, spec) = setup();
    let out = d.path().join("out");
    // An engine named with --engines that cannot run fails the run, naming
    // it and how to get it, before any job runs.
    let o = Command::new(common::LAB)
        .args([
            "run",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ])
        .args(["--strata-bench", &b, "--no-settle", "--repeats", "1"])
        .args(["--rocksdb-bench", "/nonexistent/db_bench"])
        .args(["--engines", "strata,rocksdb"])
        .output()
        .unwrap();
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_contains(&err, "requested engine `rocksdb` cannot run");
    assert_contains(&err, "--features rocksdb");
    assert_contains(&err, "--allow-missing-engines");
    assert!(strata_lab::data::results::run_files(&out.join("tiny-quick")).is_empty());
    run_with(
        &spec,
        &out,
        &b,
        &[
            "--rocksdb-bench",
            "/nonexistent/db_bench",
            "--repeats",
            "1",
            "--allow-missing-engines",
        ],
    );
    let md = read(&out.join("tiny-quick/report.md"));
    assert_contains(&md, "RocksDB was not measured");
    assert_contains(
        &md,
        "rocksdb was requested but no bench for it is available",
    );
}

#[test]
fn plan_runs_through_gnu_parallel_and_collects() {
    let b = bench_or_fake();
    if strata_lab::find_on_path("parallel").is_none() {
        eprintln!("SKIPPED: GNU parallel not installed");
        return;
    }
    let (d, spec) = setup();
    let out = d.path().join("out");
    let jobs = plan_jobs(&spec, &out, &b, &[]);
    assert_eq!(jobs.lines().count(), 4);
    let jf = d.path().join("jobs.txt");
    std::fs::write(&jf, &jobs).unwrap();
    let st = Command::new("parallel")
        .args([
            "--will-cite",
            "-j2",
            "--halt",
            "now,fail=1",
            "-a",
            jf.to_str().unwrap(),
        ])
        .status()
        .unwrap();
    assert!(st.success());
    let merged = d.path().join("merged");
    lab(&[
        "collect",
        out.to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    let all = rows(&merged.join("tiny-quick/results.jsonl"));
    assert_eq!(all.len(), 8);
    assert!(merged.join("tiny-quick/report.html").exists());
}

/// Runs everywhere (CI included): the fake bench in `tests/fake_db_bench.sh`
/// prints db_bench-format output with known figures, so the findings and
/// verdicts are checked against exact expectations.
#[test]
fn tiny_study_with_fake_bench_always_runs() {
    let (d, spec) = setup();
    std::fs::write(
        &spec,
        tiny_with_crossover("between = [\"256\", \"2048\"]\n"),
    )
    .unwrap();
    let out = d.path().join("out");
    // 20,000 keys: the fake's user bytes (num x (value_size + 16)) pass the
    // report's 4 MiB guard on WAF, so the trade-off table has figures.
    let fake = fake_bench();
    let sdir = run_fake(
        &spec,
        &out,
        &[
            "--rocksdb-bench",
            &fake,
            "--set",
            "num=20000",
            "--repeats",
            "3",
        ],
    );
    // 4 cells x 2 engines x 3 repeats x 2 steps: three repeats, the fewest
    // that decide a verdict.
    let all = rows(&sdir.join("results.jsonl"));
    assert_eq!(all.len(), 48);
    assert!(all
        .iter()
        .all(|r| r.ok && r.engine_version == "FakeBench 1.0"));
    let r = all
        .iter()
        .find(|r| r.cell_id == "value_size=2048,layout=inline" && r.step == "fillrandom")
        .unwrap();
    assert_eq!(r.metrics["ops_sec"], 195312.0);
    // (wal + flush + compaction) / user = 2.5
    assert_eq!(r.metrics["waf"], 2.5);
    let md = read(&sdir.join("report.md"));
    // Independent repeats, a shuffled order and the settle step, stated.
    assert_contains(
        &md,
        "Each of the 3 repeats drew its own keys (seeds 7, 8, 9;",
    );
    assert_contains(&md, "in an order shuffled within each repeat (order seed ");
    assert_contains(&md, "between jobs: none (--no-settle)");
    for e in ["strata", "rocksdb"] {
        assert_contains(&md, &format!("- {e}, fillrandom ops/sec (ops_sec): blob rises above inline by more than 5% between 256 B and 2 KB (blob/inline at 2 KB 2.560 [2.516, 2.605])"));
        // The best point only where a claim asks for it (`bigger-is-slower`
        // along value_size with layout = inline), under that claim.
        assert_contains(&md, &format!("- {e}, inline, fillrandom: best ops_sec at value_size = 256 B (1,562,500), worst at 2 KB (195,312): 256 B/2 KB 8.000 ["));
        assert!(
            !md.contains(&format!("- {e}, blob, fillrandom: best")),
            "{md}"
        );
        let cross = md
            .lines()
            .find(|l| l.starts_with("| cross |") && l.contains(&format!("| {e} |")))
            .unwrap();
        assert!(cross.contains("| reproduced |"), "{cross}");
        let argmax = md
            .lines()
            .find(|l| l.starts_with("| bigger-is-slower |") && l.contains(&format!("| {e} |")))
            .unwrap();
        assert!(argmax.contains("| reproduced |"), "{argmax}");
    }
    for id in ["ops", "lat", "trade"] {
        assert_png(&sdir.join(format!("charts/{id}.png")));
        svg_texts(&sdir.join(format!("charts/{id}.svg")));
    }
    // The trade-off chart's table: both engines print the same figures, so
    // at equal throughput their WAF is the same wherever they are compared.
    // Inline at 2 KB is slower than at 256 B for the same WAF: off the
    // frontier, so not compared.
    assert_contains(
        &md,
        "| layout | point | ops_sec | strata waf | rocksdb waf | strata / rocksdb |",
    );
    assert_contains(&md, "| inline | strata value_size=2 KB | 195,312 | 2.50 | - | dominated by its own value_size=256 B |");
    assert_contains(
        &md,
        "| inline | rocksdb value_size=256 B | 1,562,500 | 2.50* | 2.50 | 1.000 |",
    );
    assert_contains(&md, "Geometric mean of strata / rocksdb at equal ops_sec: 1.000 over 6 points; strata as good or better at 6 of them.");
    assert_contains(&md, "Across engines: 0 of rocksdb's 3 frontier points are dominated by a strata point (as good or better in both ops_sec and waf); 0 of strata's 3 by a rocksdb point.");
    // Nor is it read along its axis like the other charts.
    assert!(!md.contains("WAF against throughput (waf)"), "{md}");
    assert!(!md.contains("WAF against throughput: "), "{md}");
    assert!(
        svg_texts(&sdir.join("charts/ops.svg")).contains(&"strata: blob > inline".to_string()),
        "crossover marker missing"
    );
}

/// `--only` reaches the plan's lines, and `collect` of two parts that ran
/// different cells reports the union of their cells.
#[test]
fn only_survives_plan_run_one_and_collect() {
    let fake = fake_bench();
    let (d, spec) = setup();
    let mut outs = Vec::new();
    for (part, size) in [("a", "256"), ("b", "2048")] {
        let out = d.path().join(part);
        let filter = format!("value_size={size}");
        let jobs = plan_jobs(&spec, &out, &fake, &["--only", &filter]);
        assert_eq!(jobs.lines().count(), 2, "{jobs}");
        for line in jobs.lines() {
            assert!(line.contains(&format!("--only {filter}")), "{line}");
            let st = Command::new("sh").args(["-c", line]).status().unwrap();
            assert!(st.success(), "{line}");
        }
        outs.push(out);
    }
    let merged = d.path().join("merged");
    lab(&[
        "collect",
        outs[0].to_str().unwrap(),
        outs[1].to_str().unwrap(),
        "--out",
        merged.to_str().unwrap(),
    ]);
    assert_eq!(rows(&merged.join("tiny-quick/results.jsonl")).len(), 8);
    let md = read(&merged.join("tiny-quick/report.md"));
    assert_contains(&md, "4 cells");
}

/// An engine that lacks a flag a cell sets: `strata bench --engine=leveldb`
/// refuses `--enable_blob_files=true` naming both, so the blob cells are
/// skipped for LevelDB and the report lists them once, by engine and flag,
/// apart from failed runs. Its build has assertions on: its speed figures
/// are marked as not comparable.
#[test]
fn skipped_cells_and_assertion_builds_are_reported() {
    let (d, spec) = setup();
    // A claim on blob against inline: LevelDB ran half of its cells.
    std::fs::write(&spec, tiny_with_crossover("")).unwrap();
    // The fake as `strata bench`: `--engine=leveldb` names a LevelDB built
    // with assertions and refuses blob files, as the real adapter does.
    let wrapper = d.path().join("bench.sh");
    std::fs::write(
        &wrapper,
        format!(
            r#"eng=strata
for a do shift; case "$a" in --engine=*) eng=${{a#--engine=}} ;; *) set -- "$@" "$a" ;; esac; done
if [ "$eng" = leveldb ]; then
  for a do case "$a" in --enable_blob_files=true)
    echo "ERROR: Not supported: flag '--enable_blob_files' (enable_blob_files=true) is not supported by LevelDB: LevelDB has no blob files" >&2; exit 1 ;;
  esac; done
  echo "LevelDB:    version 1.23 (fake, assertions enabled)"
fi
exec {} "$@"
"#,
            fake_bench()
        ),
    )
    .unwrap();
    let out = d.path().join("out");
    let bench = format!("sh {}", wrapper.display());
    run_with(
        &spec,
        &out,
        &bench,
        &["--engines", "strata,leveldb", "--repeats", "1"],
    );
    let sdir = out.join("tiny-quick");
    let all = rows(&sdir.join("results.jsonl"));
    let skipped: Vec<_> = all
        .iter()
        .filter(|r| r.engine == "leveldb" && !r.ok)
        .collect();
    // Two blob cells x two steps.
    assert_eq!(skipped.len(), 4, "{all:?}");
    assert!(all
        .iter()
        .filter(|r| r.engine == "leveldb" && r.cell["layout"] == "inline")
        .all(|r| r.ok));
    let md = read(&sdir.join("report.md"));
    let section = md.split("## Skipped cells").nth(1).expect(&md);
    assert_contains(section, "- leveldb lacks `--enable_blob_files` (all 2 cells with layout=blob): LevelDB has no blob files.");
    // Once per engine and flag, not per run; not among failed runs.
    assert_eq!(
        md.matches("(all 2 cells with layout=blob)").count(),
        1,
        "{md}"
    );
    // The claim that needs the skipped cells says why LevelDB has no verdict.
    let cross = md
        .lines()
        .find(|l| l.starts_with("| cross |") && l.contains("| leveldb |"))
        .expect(&md);
    assert!(
        cross.contains(
            "| no data | leveldb did not run these cells: it lacks `--enable_blob_files`"
        ),
        "{cross}"
    );
    assert!(!md.contains("## Failed runs"), "{md}");
    // The results tables: no rows for the skipped runs, the LevelDB rows
    // marked, and a sentence saying why.
    assert!(md.contains("† leveldb ran a build with assertions enabled: its speed figures"));
    let results = md.split("## Results").nth(1).unwrap();
    assert_contains(results, "| 256 B | inline | leveldb † | 1/1 |");
    assert!(!results.contains("| blob | leveldb"), "{results}");
    assert_contains(results, "| 256 B | blob | strata | 1/1 |");
}
