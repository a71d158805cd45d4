//! Every shipped study, run at its quick scale on Strata with the fake bench
//! (`tests/fake_db_bench.sh`), gets a report whose results tables obey the
//! guards. The scan reads each step's table in `report.md` and checks it
//! against the raw figures of `results.jsonl`, with the guard rules written
//! out again here rather than taken from the lab:
//! - no `±` in a cell with fewer than 3 repeats;
//! - no latency percentile (p50, p99, p999, get_p50, get_p99) at or below 1 us;
//! - per step and column, as many repeats withheld (`n/a`, or "k of n n/a")
//!   as the raw rows say the rule withholds: WAF and W-Amp over less than
//!   4 MiB or less than 5% of the tree the step left, latencies at or below
//!   1 us, ops/sec and MB/s of a one-operation step;
//! - a list of reasons after every table with an n/a cell.
//!
//! wal_compaction_steady runs with 2,000 keys (`--set num=2000`), under the 4 MiB
//! of the WAF and W-Amp guards; the others at their quick sizes, so the scan
//! sees both guarded and unguarded figures. The test also requires each kind
//! of guard to have withheld something, so that it cannot pass vacuously.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use common::{crate_dir, fake_bench, lab, read, rows};
use strata_lab::data::results::ResultRow;

const STUDIES: &[(&str, &[&str])] = &[
    ("blob", &[]),
    ("bloom", &[]),
    ("write_buffer", &[]),
    ("subcompactions", &[]),
    ("wal_compaction", &[]),
    ("wal_compaction_steady", &["--set", "num=2000"]),
    ("l0_trigger", &[]),
];

const MIB4: f64 = 4.0 * 1024.0 * 1024.0;
const LATENCIES: &[&str] = &["p50", "p99", "p999", "get_p50", "get_p99"];

/// A results table: its header and rows of cells.
struct Table {
    step: String,
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    /// Whether a list of reasons follows the table.
    reasons: Vec<String>,
}

fn cells(line: &str) -> Vec<String> {
    line.trim()
        .trim_matches('|')
        .split('|')
        .map(|c| c.trim().to_string())
        .collect()
}

/// The step tables of the report's `## Results` section.
fn results_tables(md: &str) -> Vec<Table> {
    let results = md
        .split("\n## Results\n")
        .nth(1)
        .expect("a Results section");
    let results = results.split("\n## ").next().unwrap_or("");
    let mut out = Vec::new();
    for part in results.split("### Step `").skip(1) {
        let step = part.split('`').next().unwrap().to_string();
        let lines: Vec<&str> = part.lines().filter(|l| l.starts_with('|')).collect();
        assert!(lines.len() >= 2, "step {step}: no table");
        let reasons = part
            .lines()
            .filter_map(|l| l.strip_prefix("- "))
            .map(str::to_string)
            .collect();
        out.push(Table {
            step,
            header: cells(lines[0]),
            rows: lines[2..].iter().map(|l| cells(l)).collect(),
            reasons,
        });
    }
    out
}

fn number(s: &str) -> f64 {
    s.trim()
        .replace(',', "")
        .parse()
        .unwrap_or_else(|e| panic!("{s:?}: {e}"))
}

/// The figures a cell prints (its mean, and min and max when shown), not
/// counting a confidence half-width.
fn figures(cell: &str) -> Vec<f64> {
    let cell = match cell.strip_suffix(" n/a)") {
        Some(_) => cell.rsplit_once(" (").unwrap().0,
        None => cell,
    };
    if cell == "n/a" || cell == "-" {
        return Vec::new();
    }
    if let Some((mean, _)) = cell.split_once(" ± ") {
        return vec![number(mean)];
    }
    match cell.split_once(" (") {
        Some((mean, range)) => {
            let (lo, hi) = range.trim_end_matches(')').split_once('–').unwrap();
            vec![number(mean), number(lo), number(hi)]
        }
        None => vec![number(cell)],
    }
}

/// How many repeats a cell withholds, given the row's successful repeats.
fn withheld(cell: &str, ok: usize) -> usize {
    if cell == "n/a" {
        return ok;
    }
    match cell.strip_suffix(" n/a)") {
        Some(rest) => number(
            rest.rsplit_once('(')
                .unwrap()
                .1
                .split(" of ")
                .next()
                .unwrap(),
        ) as usize,
        None => 0,
    }
}

/// Whether the guards withhold `metric` of row `r` (the rules written out anew).
fn expect_withheld(r: &ResultRow, metric: &str) -> Option<&'static str> {
    let m = &r.metrics;
    m.get(metric)?;
    let tree = m.get("sst_mb_end").map(|t| t * 1e6);
    let small = |key: &str| {
        m.get(key)
            .is_some_and(|b| *b < MIB4 || tree.is_some_and(|t| *b < 0.05 * t))
    };
    match metric {
        "waf" if small("rocksdb.bytes.written") => Some("waf"),
        "wamp" if small("rocksdb.flush.write.bytes") => Some("wamp"),
        "ops_sec" | "mb_sec" if m.get("operations") == Some(&1.0) => Some("one-op"),
        l if LATENCIES.contains(&l) && m[l] <= 1.0 => Some("latency"),
        _ => None,
    }
}

fn run_study(out: &Path, name: &str, extra: &[&str]) {
    let study = crate_dir().join(format!("../../studies/{name}.toml"));
    let fake = fake_bench();
    let mut args = vec![
        "run",
        study.to_str().unwrap(),
        "--scale",
        "quick",
        "--no-settle",
    ];
    args.extend(["--engines", "strata", "--strata-bench", &fake]);
    args.extend(["--out", out.to_str().unwrap()]);
    args.extend(extra);
    lab(&args);
}

/// Scans one study's report; returns the repeats withheld per kind of guard.
fn scan(sdir: &Path, name: &str) -> BTreeMap<&'static str, usize> {
    let md = read(&sdir.join("report.md"));
    let raw = rows(&sdir.join("results.jsonl"));
    let mut fired = BTreeMap::new();
    let tables = results_tables(&md);
    assert!(!tables.is_empty(), "{name}: no results tables");
    for t in &tables {
        let col = |c: &str| t.header.iter().position(|h| h == c);
        let okc = col("ok/runs").expect("ok/runs column");
        let ok: Vec<usize> = t
            .rows
            .iter()
            .map(|r| number(r[okc].split('/').next().unwrap()) as usize)
            .collect();
        let mut any_na = false;
        for (row, n) in t.rows.iter().zip(&ok) {
            for (h, cell) in t.header.iter().zip(row).skip(okc + 1) {
                any_na |= cell.contains("n/a");
                if *n < 3 {
                    assert!(
                        !cell.contains('±'),
                        "{name} {}: {h} = {cell} with {n} repeats",
                        t.step
                    );
                } else if !cell.contains("n/a") && cell != "-" {
                    assert!(
                        cell.contains('±'),
                        "{name} {}: {h} = {cell} with {n} repeats",
                        t.step
                    );
                }
                if LATENCIES.contains(&h.as_str()) {
                    for v in figures(cell) {
                        assert!(v > 1.0, "{name} {}: {h} = {cell}", t.step);
                    }
                }
            }
        }
        assert!(
            !any_na || !t.reasons.is_empty(),
            "{name} {}: n/a cells without reasons",
            t.step
        );
        let rows: Vec<&ResultRow> = raw.iter().filter(|r| r.ok && r.step == t.step).collect();
        for metric in ["waf", "wamp", "ops_sec", "mb_sec"].iter().chain(LATENCIES) {
            let mut kind = None;
            let expected = rows
                .iter()
                .filter(|r| {
                    let k = expect_withheld(r, metric);
                    kind = kind.or(k);
                    k.is_some()
                })
                .count();
            let shown = match col(metric) {
                Some(c) => t
                    .rows
                    .iter()
                    .zip(&ok)
                    .map(|(r, n)| withheld(&r[c], *n))
                    .sum(),
                None => 0,
            };
            assert_eq!(
                shown, expected,
                "{name} step {}: {metric} withheld in {shown} repeats of the table, the rule withholds {expected}",
                t.step
            );
            if let Some(k) = kind {
                *fired.entry(k).or_default() += expected;
            }
        }
    }
    fired
}

#[test]
fn every_shipped_study_report_obeys_the_guards() {
    let d = tempfile::tempdir().unwrap();
    let mut fired: BTreeMap<&str, usize> = BTreeMap::new();
    for (name, extra) in STUDIES {
        run_study(d.path(), name, extra);
        for (k, n) in scan(&d.path().join(format!("{name}-quick")), name) {
            *fired.entry(k).or_default() += n;
        }
    }
    for kind in ["waf", "wamp", "one-op", "latency"] {
        assert!(
            fired.get(kind).copied().unwrap_or(0) > 0,
            "no {kind} guard applied in any study: {fired:?}"
        );
    }
    // The one-operation step keeps its time.
    let md = std::fs::read_to_string(d.path().join("subcompactions-quick/report.md")).unwrap();
    let compact = results_tables(&md)
        .into_iter()
        .find(|t| t.step == "compact")
        .expect("a compact step table");
    let sec = compact
        .header
        .iter()
        .position(|h| h == "bench_sec")
        .expect("bench_sec column");
    assert!(compact.rows.iter().all(|r| !figures(&r[sec]).is_empty()));
}

#[test]
fn cell_parsing() {
    assert_eq!(figures("4,000 (3,900–4,100)"), [4000.0, 3900.0, 4100.0]);
    assert_eq!(figures("2.50 ± 0.30"), [2.5]);
    assert_eq!(figures("2.50 ± 0.30 (1 of 4 n/a)"), [2.5]);
    assert_eq!(figures("7.00 (1 of 2 n/a)"), [7.0]);
    assert!(figures("n/a").is_empty());
    assert_eq!(withheld("n/a", 3), 3);
    assert_eq!(withheld("7.00 (1 of 2 n/a)", 2), 1);
    assert_eq!(withheld("7.00 (6.00–8.00)", 2), 0);
}
