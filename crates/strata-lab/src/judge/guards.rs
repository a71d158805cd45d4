//! Sanity guards on the figures a report prints: a ratio whose denominator
//! is too small to mean anything, a latency at the histogram's resolution
//! limit, or a rate of a benchmark that did one operation is not a figure.
//!
//! [`apply`] moves each such metric of a row from `metrics` into `na` with
//! the reason, so every table, chart, finding and comparison built on the
//! rows sees only figures that mean something, while the result files keep
//! the raw ones. [`na_reason`] tells a reader of the rows why a metric of a
//! cell is missing.
//!
//! The rules (also in `docs/lab.md`, section Guards):
//! - `wamp`, `wamp_exact`: n/a when the step flushed (`rocksdb.flush.write.bytes`)
//!   less than [`MIN_BYTES`] or less than [`MIN_TREE_FRACTION`] of the tree
//!   it left (`sst_mb_end`).
//! - `waf`, `waf_no_wal`, `waf_tickers`: the same over user bytes written
//!   (`rocksdb.bytes.written`).
//! - latency percentiles at or below [`LATENCY_FLOOR_US`]: db_bench's and
//!   RocksDB's histograms have [0, 1) us as their first bucket, so such a
//!   percentile is an interpolation inside it.
//! - `ops_sec`, `micros_op`, `mb_sec` of a result line with one operation
//!   (`compact`): the time is `bench_sec`.

use std::collections::{BTreeMap, BTreeSet};

use crate::data::metrics::{guarded_by, Guard};
use crate::data::results::ResultRow;

/// Smallest denominator (bytes) of a W-Amp or WAF figure: 4 MiB.
pub(crate) const MIN_BYTES: f64 = 4.0 * 1024.0 * 1024.0;

/// Smallest denominator of a W-Amp or WAF figure as a fraction of the tree
/// the step left (`sst_mb_end`).
pub(crate) const MIN_TREE_FRACTION: f64 = 0.05;

/// Latency percentiles at or below this many microseconds are withheld.
pub(crate) const LATENCY_FLOOR_US: f64 = 1.0;

/// Benchmarks that are one operation (a step named after one of them and
/// printing no operation count is treated as one operation).
pub(crate) const ONE_OP_BENCHMARKS: &[&str] =
    &["compact", "compactall", "waitforcompaction", "flush"];

/// Reason of a latency percentile at the histogram's resolution.
pub(crate) const LATENCY_REASON: &str = "below 1 us, the histogram's resolution";

/// Reason of a rate of a one-operation benchmark.
pub(crate) const ONE_OP_REASON: &str = "one operation: its time is bench_sec";

/// Reason of a percentile of a `STATISTICS:` histogram without samples.
pub(crate) const NO_SAMPLES_REASON: &str = "no samples";

const PERCENTILE_SUFFIXES: &[&str] = &["_p50", "_p75", "_p99", "_p999", "_p9999"];
const PLAIN_PERCENTILES: &[&str] = &["p50", "p75", "p99", "p999", "p9999"];
const STAT_PERCENTILES: &[&str] = &[".p50", ".p95", ".p99", ".p100"];

/// `12 bytes`, `3.4 KB`, `0.9 MB` (10^3 and 10^6 bytes, as `sst_mb_end`).
pub(crate) fn fmt_bytes(b: f64) -> String {
    if b < 1e3 {
        format!("{b:.0} bytes")
    } else if b < 1e5 {
        format!("{:.1} KB", b / 1e3)
    } else {
        format!("{:.1} MB", b / 1e6)
    }
}

/// Why a ratio over `bytes` (`what over <bytes> <noun>`) is not a figure,
/// given the tree the step left (`tree_mb`, 10^6 bytes); `None` when the
/// denominator is large enough or unknown.
pub(crate) fn small_denominator(
    what: &str,
    noun: &str,
    bytes: Option<f64>,
    tree_mb: Option<f64>,
) -> Option<String> {
    let b = bytes?;
    if b < MIN_BYTES {
        return Some(format!("{what} over {} {noun} (under 4 MiB)", fmt_bytes(b)));
    }
    let tree = tree_mb? * 1e6;
    if b < MIN_TREE_FRACTION * tree {
        return Some(format!(
            "{what} over {} {noun} (under 5% of the {} tree the step left)",
            fmt_bytes(b),
            fmt_bytes(tree)
        ));
    }
    None
}

/// The `STATISTICS:` histogram of a `rocksdb.<name>.<pNN>` metric, when the
/// metric is one of its percentiles.
fn stat_histogram(metric: &str) -> Option<&str> {
    if !metric.starts_with("rocksdb.") {
        return None;
    }
    STAT_PERCENTILES.iter().find_map(|s| metric.strip_suffix(s))
}

/// Whether the histogram `name` counts microseconds (Strata's table of
/// RocksDB's histograms; a name it does not know counts microseconds when
/// the name says so).
fn in_micros(name: &str) -> bool {
    match strata::stats::Histogram::from_name(name) {
        Some(h) => h.unit() == strata::stats::Unit::Micros,
        None => name.contains("micros"),
    }
}

/// Whether `metric` is a latency percentile in microseconds.
pub(crate) fn is_latency_percentile(metric: &str) -> bool {
    if let Some(h) = stat_histogram(metric) {
        return in_micros(h);
    }
    !metric.starts_with("rocksdb.")
        && (PLAIN_PERCENTILES.contains(&metric)
            || PERCENTILE_SUFFIXES.iter().any(|s| metric.ends_with(s)))
}

/// Whether the row's result line was one operation.
fn one_operation(m: &BTreeMap<String, f64>, step: &str) -> bool {
    match m.get("operations") {
        Some(n) => *n <= 1.0,
        None => ONE_OP_BENCHMARKS.contains(&step),
    }
}

/// The metrics of one row that the guards withhold, with their reasons.
pub(crate) fn reasons(m: &BTreeMap<String, f64>, step: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let tree = m.get("sst_mb_end").copied();
    let flushed = m.get("rocksdb.flush.write.bytes").copied();
    if let Some(r) = small_denominator("W-Amp", "flushed", flushed, tree) {
        for k in guarded_by(Guard::FlushedBytes).filter(|k| m.contains_key(*k)) {
            out.insert(k.to_string(), r.clone());
        }
    }
    let user = m.get("rocksdb.bytes.written").copied();
    if let Some(r) = small_denominator("WAF", "of user writes", user, tree) {
        for k in guarded_by(Guard::UserBytes).filter(|k| m.contains_key(*k)) {
            out.insert(k.to_string(), r.clone());
        }
    }
    for (k, v) in m {
        if !is_latency_percentile(k) {
            continue;
        }
        let empty = stat_histogram(k)
            .and_then(|h| m.get(&format!("{h}.count")))
            .is_some_and(|c| *c == 0.0);
        if empty {
            out.insert(k.clone(), NO_SAMPLES_REASON.to_string());
        } else if *v <= LATENCY_FLOOR_US {
            out.insert(k.clone(), LATENCY_REASON.to_string());
        }
    }
    if one_operation(m, step) {
        for k in guarded_by(Guard::Rate).filter(|k| m.contains_key(*k)) {
            out.insert(k.to_string(), ONE_OP_REASON.to_string());
        }
    }
    out
}

/// Moves each guarded metric of each row from `metrics` into `na` with its
/// reason. Failed rows are left alone (their metrics are never shown).
pub(crate) fn apply(rows: &mut [ResultRow]) {
    for r in rows.iter_mut().filter(|r| r.ok) {
        for (k, why) in reasons(&r.metrics, &r.step) {
            r.metrics.remove(&k);
            r.na.insert(k, why);
        }
    }
}

/// Why `metric` is n/a in the rows that [`crate::data::aggregate::values`] reads
/// (successful rows of `engine` and `step` with all `fixed` labels): the
/// distinct reasons joined with "; ", or `None` when no such row withholds it.
pub(crate) fn na_reason(
    rows: &[ResultRow],
    engine: &str,
    step: &str,
    fixed: &BTreeMap<String, String>,
    metric: &str,
) -> Option<String> {
    let reasons: BTreeSet<&str> = rows
        .iter()
        .filter(|r| r.ok && r.engine == engine && r.step == step)
        .filter(|r| fixed.iter().all(|(k, v)| r.cell.get(k) == Some(v)))
        .filter_map(|r| r.na.get(metric).map(String::as_str))
        .collect();
    if reasons.is_empty() {
        None
    } else {
        Some(reasons.into_iter().collect::<Vec<_>>().join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::results::sample_row;

    const MIB: f64 = 1024.0 * 1024.0;

    fn m(pairs: &[(&str, f64)]) -> BTreeMap<String, f64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn wamp_needs_4_mib_flushed() {
        let below = m(&[
            ("wamp", 758.8),
            ("wamp_exact", 758.83),
            ("rocksdb.flush.write.bytes", 900_000.0),
            ("operations", 1000.0),
        ]);
        let r = reasons(&below, "readwrite95");
        assert_eq!(r["wamp"], "W-Amp over 0.9 MB flushed (under 4 MiB)");
        assert_eq!(r["wamp_exact"], r["wamp"]);
        let at = m(&[
            ("wamp", 2.5),
            ("wamp_exact", 2.51),
            ("rocksdb.flush.write.bytes", 4.0 * MIB),
            ("operations", 1000.0),
        ]);
        assert!(reasons(&at, "fillrandom").is_empty());
        let just_below = m(&[
            ("wamp", 2.5),
            ("rocksdb.flush.write.bytes", 4.0 * MIB - 1.0),
        ]);
        assert!(reasons(&just_below, "fillrandom")["wamp"].starts_with("W-Amp over 4.2 MB flushed"));
    }

    #[test]
    fn wamp_needs_5_percent_of_the_tree() {
        // 10 MB flushed into a 250 MB tree: 4%.
        let below = m(&[
            ("wamp", 9.0),
            ("rocksdb.flush.write.bytes", 10e6),
            ("sst_mb_end", 250.0),
        ]);
        assert_eq!(
            reasons(&below, "overwrite")["wamp"],
            "W-Amp over 10.0 MB flushed (under 5% of the 250.0 MB tree the step left)"
        );
        // 10 MB into a 200 MB tree: exactly 5%, kept.
        let at = m(&[
            ("wamp", 9.0),
            ("rocksdb.flush.write.bytes", 10e6),
            ("sst_mb_end", 200.0),
        ]);
        assert!(!reasons(&at, "overwrite").contains_key("wamp"));
        // Without a flushed-bytes ticker nothing is known: kept.
        assert!(reasons(&m(&[("wamp", 9.0), ("sst_mb_end", 1e6)]), "x").is_empty());
    }

    #[test]
    fn waf_needs_4_mib_and_5_percent_of_user_writes() {
        let small = m(&[
            ("waf", 40.0),
            ("waf_no_wal", 39.0),
            ("waf_tickers", 41.0),
            ("rocksdb.bytes.written", 3.0 * MIB),
            ("rocksdb.flush.write.bytes", 100.0 * MIB),
            ("wamp", 1.5),
        ]);
        let r = reasons(&small, "fill");
        for k in guarded_by(Guard::UserBytes) {
            assert_eq!(r[k], "WAF over 3.1 MB of user writes (under 4 MiB)");
        }
        assert!(!r.contains_key("wamp"), "flushed bytes are enough: {r:?}");
        let big = m(&[("waf", 2.0), ("rocksdb.bytes.written", 4.0 * MIB)]);
        assert!(reasons(&big, "fill").is_empty());
        let tree = |mb: f64| {
            m(&[
                ("waf_no_wal", 2.0),
                ("rocksdb.bytes.written", 50e6),
                ("sst_mb_end", mb),
            ])
        };
        assert!(
            reasons(&tree(1001.0), "fill")["waf_no_wal"].contains("under 5% of the 1001.0 MB tree")
        );
        assert!(reasons(&tree(1000.0), "fill").is_empty());
    }

    #[test]
    fn latency_percentiles_at_or_below_1_us_are_withheld() {
        let x = m(&[
            ("p50", 0.5),
            ("p75", 0.99),
            ("p99", 1.0),
            ("p999", 1.01),
            ("p9999", 30.0),
            ("avg", 0.4),
            ("write_p50", 0.8),
            ("read_p99", 3.0),
            ("get_p50", 0.6),
            ("get_p99", 1.9),
            ("sst_write_p50", 0.7),
            ("blob_write_p99", 12.0),
            ("rocksdb.db.get.micros.p50", 0.6),
            ("rocksdb.db.get.micros.p95", 1.7),
            ("rocksdb.db.get.micros.count", 2000.0),
            ("rocksdb.sst.write.micros.p99", 0.9),
            ("rocksdb.numfiles.in.singlecompaction.p50", 1.0),
            ("rocksdb.compression.times.nanos.p50", 0.5),
            ("rocksdb.db.flush.micros.p50", 0.0),
            ("rocksdb.db.flush.micros.count", 0.0),
            ("operations", 1000.0),
        ]);
        let r = reasons(&x, "fillrandom");
        let withheld: Vec<&str> = r.keys().map(String::as_str).collect();
        assert_eq!(
            withheld,
            [
                "get_p50",
                "p50",
                "p75",
                "p99",
                "rocksdb.db.flush.micros.p50",
                "rocksdb.db.get.micros.p50",
                "rocksdb.sst.write.micros.p99",
                "sst_write_p50",
                "write_p50",
            ]
        );
        assert_eq!(r["p50"], LATENCY_REASON);
        assert_eq!(r["rocksdb.db.flush.micros.p50"], NO_SAMPLES_REASON);
    }

    #[test]
    fn one_operation_keeps_the_time_and_drops_the_rates() {
        let compact = m(&[
            ("ops_sec", 0.0),
            ("micros_op", 2_500_000.0),
            ("bench_sec", 2.5),
            ("operations", 1.0),
        ]);
        let r = reasons(&compact, "compact");
        assert_eq!(r.len(), 2, "{r:?}");
        assert_eq!(r["ops_sec"], ONE_OP_REASON);
        assert!(r.contains_key("micros_op"));
        assert!(!r.contains_key("bench_sec"));
        let two = m(&[("ops_sec", 1.0), ("mb_sec", 3.0), ("operations", 2.0)]);
        assert!(reasons(&two, "compact").is_empty());
        // No operation count printed: the step's benchmark decides.
        let bare = m(&[("ops_sec", 0.4), ("mb_sec", 3.0)]);
        assert_eq!(reasons(&bare, "compact").len(), 2);
        assert!(reasons(&bare, "fillrandom").is_empty());
    }

    #[test]
    fn a_compact_step_keeps_bench_sec_from_its_result_line() {
        let out = strata_bench::dbbench_text::parse_output(
            "compact      : 1025850.460 micros/op 0 ops/sec 1.026 seconds 1 operations;\n",
            "",
        );
        let m = crate::data::derive::metrics(&out, &crate::data::derive::Accounting::default());
        assert_eq!(m["bench_sec"], 1.026);
        let r = reasons(&m, "compact");
        assert!(
            r.contains_key("ops_sec") && r.contains_key("micros_op"),
            "{r:?}"
        );
        assert!(!r.contains_key("bench_sec"));
    }

    #[test]
    fn apply_moves_metrics_and_na_reason_reports_them() {
        let mut a = sample_row();
        a.metrics = m(&[("p50", 0.5), ("p99", 4.0), ("operations", 10.0)]);
        let mut b = a.clone();
        b.repeat = 1;
        b.metrics.insert("p50".into(), 2.0);
        let mut failed = a.clone();
        failed.ok = false;
        let mut rows = vec![a, b, failed];
        apply(&mut rows);
        assert!(!rows[0].metrics.contains_key("p50"));
        assert_eq!(rows[0].na["p50"], LATENCY_REASON);
        assert_eq!(rows[0].metrics["p99"], 4.0);
        assert_eq!(rows[1].metrics["p50"], 2.0);
        assert!(rows[1].na.is_empty());
        assert_eq!(rows[2].metrics["p50"], 0.5, "failed rows untouched");
        let cell = rows[0].cell.clone();
        let reason = na_reason(&rows, "rocksdb", "fillrandom", &cell, "p50");
        assert_eq!(reason.as_deref(), Some(LATENCY_REASON));
        assert_eq!(
            na_reason(&rows, "rocksdb", "fillrandom", &cell, "p99"),
            None
        );
        assert_eq!(na_reason(&rows, "strata", "fillrandom", &cell, "p50"), None);
        let other: BTreeMap<String, String> =
            [("value_size".to_string(), "200".to_string())].into();
        assert_eq!(
            na_reason(&rows, "rocksdb", "fillrandom", &other, "p50"),
            None
        );
    }

    #[test]
    fn bytes_print_in_decimal_units() {
        assert_eq!(fmt_bytes(12.0), "12 bytes");
        assert_eq!(fmt_bytes(3_400.0), "3.4 KB");
        assert_eq!(fmt_bytes(99_000.0), "99.0 KB");
        assert_eq!(fmt_bytes(900_000.0), "0.9 MB");
        assert_eq!(fmt_bytes(4.0 * MIB), "4.2 MB");
    }
}
