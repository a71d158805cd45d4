//! Metrics derived from parsed output and process accounting.
//!
//! Definitions (also in `docs/lab.md`):
//! - `waf` = (WAL + flush + compaction + blob bytes written) / user bytes written,
//!   from tickers `rocksdb.wal.bytes`, `rocksdb.flush.write.bytes`,
//!   `rocksdb.compact.write.bytes`, `rocksdb.blobdb.blob.file.bytes.written`
//!   over `rocksdb.bytes.written`, blob bytes counted once (see [`waf`]).
//! - `wamp` = RocksDB's `Sum` row W-Amp of the compaction stats table
//!   ((flush + compaction writes) / flushed bytes, no WAL).
//! - `cpu_pct` = (user + sys CPU of the bench process) / wall / cores x 100.
//! - `cpu_us_op` = (user + sys CPU of the bench process, in µs) / the
//!   primary benchmark's operations: the CPU cost of an operation with
//!   everything the step's process did (background flushes and compactions
//!   included), less noisy than wall time on a shared host.
//! - `l0_files_end`, `l0_mb_end`, `sst_mb_end` = L0 files, L0 MB and all
//!   SST MB (10^6 bytes) in the step's last compaction stats table: the
//!   tree the step left; `deepest_level_end` = the deepest level holding
//!   files in that table (0: L0 only).
//! - `comp_cpu_sec` = SUM of `rocksdb.compaction.times.cpu_micros` / 1e6
//!   (falls back to `CompMergeCPU(sec)` of the Sum row).
//! - `waf_no_wal` = `waf` without the WAL term (see [`waf_no_wal`]).
//! - `block_cache_hit_rate` = `rocksdb.block.cache.hit` / (hit + miss).
//! - `flush_micros_per_flush` = SUM / COUNT of `rocksdb.db.flush.micros`, or
//!   for LevelDB the mean flush time from its info LOG (the `LOG:` line).
//! - `sst_write_p50`, `sst_write_p99` = P50 / P99 of `rocksdb.sst.write.micros`;
//!   `blob_write_p50`, `blob_write_p99` = those of
//!   `rocksdb.blobdb.blob.file.write.micros` (only when they have samples).

use std::collections::BTreeMap;

use strata_bench::dbbench_text::BenchOutput;

/// Write amplification by our definition: (WAL + flush + compaction + blob
/// bytes written) / user bytes written; `None` when no user bytes were written.
///
/// Blob bytes are counted once. RocksDB's `rocksdb.flush.write.bytes` and
/// `rocksdb.compact.write.bytes` already include the blob files written by
/// flush and compaction (checked on db_bench 7.8.3: 20,000 x 4 KB values with
/// blob files gave flush 75.7 MB, blob 77.1 MB, SSTs 0.4 MB), so
/// `rocksdb.blobdb.blob.file.bytes.written` is added only when flush +
/// compaction bytes are smaller than it, i.e. when the engine's flush and
/// compaction tickers evidently exclude blob files.
pub(crate) fn waf(tickers: &BTreeMap<String, u64>) -> Option<f64> {
    let t = |k: &str| tickers.get(k).copied().unwrap_or(0) as f64;
    let user = t("rocksdb.bytes.written");
    if user <= 0.0 {
        return None;
    }
    Some((t("rocksdb.wal.bytes") + table_and_blob_bytes(tickers)) / user)
}

/// Write amplification without the WAL: (flush + compaction + blob bytes
/// written) / user bytes written, blob bytes counted once as in [`waf`];
/// `None` when no user bytes were written. Turning the WAL off lowers
/// [`waf`] by definition; this is the figure that can show whether it
/// changes anything else.
pub(crate) fn waf_no_wal(tickers: &BTreeMap<String, u64>) -> Option<f64> {
    let user = tickers.get("rocksdb.bytes.written").copied().unwrap_or(0) as f64;
    if user <= 0.0 {
        return None;
    }
    Some(table_and_blob_bytes(tickers) / user)
}

/// Flush + compaction bytes written, plus the blob file bytes when the flush
/// and compaction tickers evidently exclude them (see [`waf`]).
fn table_and_blob_bytes(tickers: &BTreeMap<String, u64>) -> f64 {
    let t = |k: &str| tickers.get(k).copied().unwrap_or(0) as f64;
    let (flush, compact, blob) = (
        t("rocksdb.flush.write.bytes"),
        t("rocksdb.compact.write.bytes"),
        t("rocksdb.blobdb.blob.file.bytes.written"),
    );
    let blob_extra = if flush + compact < blob { blob } else { 0.0 };
    flush + compact + blob_extra
}

/// Block cache hit rate, `rocksdb.block.cache.hit` / (hit + miss); `None`
/// when the step looked nothing up in the block cache.
pub(crate) fn block_cache_hit_rate(tickers: &BTreeMap<String, u64>) -> Option<f64> {
    let t = |k: &str| tickers.get(k).copied().unwrap_or(0) as f64;
    let (hit, miss) = (t("rocksdb.block.cache.hit"), t("rocksdb.block.cache.miss"));
    (hit + miss > 0.0).then(|| hit / (hit + miss))
}

/// The literal ticker sum (WAL + flush + compaction + blob) / user bytes,
/// which counts RocksDB's blob bytes twice; kept as `waf_tickers` for reference.
pub(crate) fn waf_tickers(tickers: &BTreeMap<String, u64>) -> Option<f64> {
    let t = |k: &str| tickers.get(k).copied().unwrap_or(0) as f64;
    let user = t("rocksdb.bytes.written");
    if user <= 0.0 {
        return None;
    }
    let w = t("rocksdb.wal.bytes")
        + t("rocksdb.flush.write.bytes")
        + t("rocksdb.compact.write.bytes")
        + t("rocksdb.blobdb.blob.file.bytes.written");
    Some(w / user)
}

/// CPU use in percent of `cores` over `wall` seconds.
pub(crate) fn cpu_pct(user_sec: f64, sys_sec: f64, wall_sec: f64, cores: u32) -> Option<f64> {
    if wall_sec <= 0.0 || cores == 0 {
        return None;
    }
    Some((user_sec + sys_sec) / wall_sec / cores as f64 * 100.0)
}

/// Process accounting for one step.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Accounting {
    /// Wall seconds.
    pub wall_sec: f64,
    /// User CPU seconds.
    pub user_sec: f64,
    /// System CPU seconds.
    pub sys_sec: f64,
    /// Peak RSS KB.
    pub max_rss_kb: u64,
    /// Cores available to the run.
    pub cores: u32,
}

/// The operation whose percentiles are a step's unprefixed `p50`, `p99`...:
/// its reads when it has any (a Get, then a seek, then a YCSB scan), else
/// the first operation the bench printed. YCSB E prints its inserts before
/// its scans, so "first" would make E's P99 that of its 5% inserts.
pub(crate) fn headline_op<'a>(ops: &[&'a str]) -> Option<&'a str> {
    ["read", "seek", "scan"]
        .iter()
        .find_map(|r| ops.iter().find(|op| *op == r).copied())
        .or_else(|| ops.first().copied())
}

/// Flattens parsed output and accounting into the metric map of a result row.
pub(crate) fn metrics(o: &BenchOutput, acc: &Accounting) -> BTreeMap<String, f64> {
    let mut m = BTreeMap::new();
    if let Some(b) = o.primary() {
        m.insert("ops_sec".into(), b.ops_sec);
        m.insert("micros_op".into(), b.micros_op);
        if let Some(v) = b.mb_sec {
            m.insert("mb_sec".into(), v);
        }
        if let Some(v) = b.seconds {
            m.insert("bench_sec".into(), v);
        }
        if let Some(v) = b.operations {
            m.insert("operations".into(), v as f64);
        }
        if let Some(v) = b.found {
            m.insert("found".into(), v as f64);
        }
        if let Some(v) = b.reads {
            m.insert("reads".into(), v as f64);
            if v > 0 {
                m.insert(
                    "found_pct".into(),
                    b.found.unwrap_or(0) as f64 / v as f64 * 100.0,
                );
            }
        }
        let ops: Vec<&str> = o
            .histograms
            .iter()
            .filter(|(bench, _, _)| bench == &b.name)
            .map(|(_, op, _)| op.as_str())
            .collect();
        let headline = headline_op(&ops);
        for (bench, op, h) in &o.histograms {
            if bench != &b.name {
                continue;
            }
            for (k, v) in h.percentiles().into_iter().chain([("avg", h.average)]) {
                m.insert(format!("{op}_{k}"), v);
                if Some(op.as_str()) == headline {
                    m.insert(k.to_string(), v);
                }
            }
        }
    }
    for (k, v) in &o.tickers {
        m.insert(k.clone(), *v as f64);
    }
    for (k, h) in &o.stat_histograms {
        for (s, v) in [
            ("p50", h.p50),
            ("p95", h.p95),
            ("p99", h.p99),
            ("p100", h.p100),
            ("count", h.count as f64),
            ("sum", h.sum as f64),
        ] {
            m.insert(format!("{k}.{s}"), v);
        }
    }
    if let Some(g) = o
        .stat_histograms
        .get("rocksdb.db.get.micros")
        .filter(|g| g.count > 0)
    {
        m.insert("get_p50".into(), g.p50);
        m.insert("get_p99".into(), g.p99);
    }
    for (col, name) in [
        ("W-Amp", "wamp"),
        ("Comp(sec)", "comp_sec"),
        ("CompMergeCPU(sec)", "comp_merge_cpu_sec"),
        ("Write(GB)", "compaction_table_write_gb"),
        ("Read(GB)", "compaction_table_read_gb"),
    ] {
        if let Some(v) = o.compaction_sum.get(col) {
            m.insert(name.into(), *v);
        }
    }
    // The tree the step left: what `waitforcompaction` did not compact
    // because no level was due. L0 left behind is compaction still owed, so
    // two runs' W-Amp compare fairly only beside it.
    if let Some(v) = o.compaction_l0.get("Files") {
        m.insert("l0_files_end".into(), *v);
    }
    if let Some(v) = o.deepest_level {
        m.insert("deepest_level_end".into(), f64::from(v));
    }
    if let Some(v) = o.compaction_l0.get("Size(MB)") {
        m.insert("l0_mb_end".into(), *v);
    }
    if let Some(v) = o.compaction_sum.get("Size(MB)") {
        m.insert("sst_mb_end".into(), *v);
    }
    let t = |k: &str| o.tickers.get(k).map(|v| *v as f64);
    if let Some(w) = waf(&o.tickers) {
        m.insert("waf".into(), w);
    }
    if let Some(w) = waf_no_wal(&o.tickers) {
        m.insert("waf_no_wal".into(), w);
    }
    if let Some(w) = waf_tickers(&o.tickers) {
        m.insert("waf_tickers".into(), w);
    }
    if let Some(r) = block_cache_hit_rate(&o.tickers) {
        m.insert("block_cache_hit_rate".into(), r);
    }
    let sampled = |k: &str| o.stat_histograms.get(k).filter(|h| h.count > 0);
    if let Some(h) = sampled("rocksdb.db.flush.micros") {
        m.insert(
            "flush_micros_per_flush".into(),
            h.sum as f64 / h.count as f64,
        );
    } else if let Some(v) = o.log_flush_micros_per_flush {
        m.insert("flush_micros_per_flush".into(), v);
    }
    for (hist, name) in [
        ("rocksdb.sst.write.micros", "sst_write"),
        ("rocksdb.blobdb.blob.file.write.micros", "blob_write"),
    ] {
        if let Some(h) = sampled(hist) {
            m.insert(format!("{name}_p50"), h.p50);
            m.insert(format!("{name}_p99"), h.p99);
        }
    }
    if let Some(f) = t("rocksdb.flush.write.bytes").filter(|f| *f > 0.0) {
        let c = t("rocksdb.compact.write.bytes").unwrap_or(0.0);
        m.insert("wamp_exact".into(), (f + c) / f);
    }
    if let Some(v) = t("rocksdb.compact.read.bytes") {
        m.insert("compact_read_gb".into(), v / 1e9);
    }
    if let Some(v) = t("rocksdb.compact.write.bytes") {
        m.insert("compact_write_gb".into(), v / 1e9);
    }
    if let Some(v) = t("rocksdb.flush.write.bytes") {
        m.insert("flush_gb".into(), v / 1e9);
    }
    let stall = t("rocksdb.stall.micros").or(o.cumulative_stall_sec.map(|s| s * 1e6));
    if let Some(s) = stall {
        m.insert("stall_micros".into(), s);
        m.insert("stall_sec".into(), s / 1e6);
    }
    let cpu = o
        .stat_histograms
        .get("rocksdb.compaction.times.cpu_micros")
        .map(|h| h.sum as f64 / 1e6)
        .or_else(|| o.compaction_sum.get("CompMergeCPU(sec)").copied());
    if let Some(c) = cpu {
        m.insert("comp_cpu_sec".into(), c);
        m.insert("comp_cpu_micros".into(), c * 1e6);
    }
    m.insert("wall_sec".into(), acc.wall_sec);
    m.insert("user_sec".into(), acc.user_sec);
    m.insert("sys_sec".into(), acc.sys_sec);
    m.insert("max_rss_mb".into(), acc.max_rss_kb as f64 / 1024.0);
    if let Some(c) = cpu_pct(acc.user_sec, acc.sys_sec, acc.wall_sec, acc.cores) {
        m.insert("cpu_pct".into(), c);
    }
    if let Some(c) = cpu_us_op(o, acc) {
        m.insert("cpu_us_op".into(), c);
    }
    m
}

/// CPU µs of the step's process per operation of its primary benchmark;
/// `None` without an operation count (given, or ops/s x seconds) or CPU time.
pub(crate) fn cpu_us_op(o: &BenchOutput, acc: &Accounting) -> Option<f64> {
    let b = o.primary()?;
    let ops = b
        .operations
        .map(|n| n as f64)
        .or_else(|| b.seconds.map(|s| s * b.ops_sec))?;
    let cpu = acc.user_sec + acc.sys_sec;
    (ops >= 1.0 && cpu > 0.0).then(|| cpu * 1e6 / ops)
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_bench::dbbench_text::parse_output;

    fn t(pairs: &[(&str, u64)]) -> BTreeMap<String, u64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    /// The byte tickers WAF reads: user, WAL, flush, compaction and blob
    /// file bytes written.
    fn written([user, wal, flush, compact, blob]: [u64; 5]) -> BTreeMap<String, u64> {
        t(&[
            ("rocksdb.bytes.written", user),
            ("rocksdb.wal.bytes", wal),
            ("rocksdb.flush.write.bytes", flush),
            ("rocksdb.compact.write.bytes", compact),
            ("rocksdb.blobdb.blob.file.bytes.written", blob),
        ])
    }

    #[test]
    fn waf_sums_all_writes_over_user_bytes() {
        // Engine whose flush/compaction tickers exclude blob files: blob added.
        let tk = written([1000, 1000, 50, 150, 800]);
        assert_eq!(waf(&tk), Some(2.0));
        assert_eq!(waf_tickers(&tk), Some(2.0));
        // RocksDB semantics (flush bytes include blob files): blob counted once.
        let tk = written([1000, 1000, 900, 100, 850]);
        assert_eq!(waf(&tk), Some(2.0));
        assert_eq!(waf_tickers(&tk), Some(2.85));
        assert_eq!(waf(&t(&[("rocksdb.wal.bytes", 5)])), None);
    }

    #[test]
    fn waf_no_wal_leaves_out_the_wal_and_counts_blob_bytes_once() {
        let tk = written([1000, 1000, 50, 150, 800]);
        assert_eq!(waf_no_wal(&tk), Some(1.0));
        let tk = written([1000, 1000, 900, 100, 850]);
        assert_eq!(waf_no_wal(&tk), Some(1.0));
        // With the WAL off, waf and waf_no_wal agree.
        let tk = written([400, 0, 300, 500, 0]);
        assert_eq!(waf_no_wal(&tk), Some(2.0));
        assert_eq!(waf(&tk), waf_no_wal(&tk));
        assert_eq!(waf_no_wal(&t(&[("rocksdb.flush.write.bytes", 5)])), None);
    }

    #[test]
    fn block_cache_hit_rate_needs_lookups() {
        let tk = t(&[
            ("rocksdb.block.cache.hit", 30),
            ("rocksdb.block.cache.miss", 10),
        ]);
        assert_eq!(block_cache_hit_rate(&tk), Some(0.75));
        let tk = t(&[("rocksdb.block.cache.miss", 10)]);
        assert_eq!(block_cache_hit_rate(&tk), Some(0.0));
        let tk = t(&[
            ("rocksdb.block.cache.hit", 0),
            ("rocksdb.block.cache.miss", 0),
        ]);
        assert_eq!(block_cache_hit_rate(&tk), None);
    }

    #[test]
    fn file_write_latencies_only_from_histograms_with_samples() {
        let so = "fillrandom   :      10.000 micros/op 100000 ops/sec 1.000 seconds 100000 operations;   10.0 MB/s\n\
            STATISTICS:\n\
            rocksdb.db.flush.micros P50 : 900.000000 P95 : 2000.000000 P99 : 2500.000000 P100 : 3000.000000 COUNT : 4 SUM : 6000\n\
            rocksdb.blobdb.blob.file.write.micros P50 : 0.000000 P95 : 0.000000 P99 : 0.000000 P100 : 0.000000 COUNT : 0 SUM : 0\n\
            rocksdb.sst.write.micros P50 : 3.500000 P95 : 9.000000 P99 : 14.000000 P100 : 90.000000 COUNT : 800 SUM : 4000\n";
        let m = metrics(&parse_output(so, ""), &Accounting::default());
        assert_eq!(m["flush_micros_per_flush"], 1500.0);
        assert_eq!(m["sst_write_p50"], 3.5);
        assert_eq!(m["sst_write_p99"], 14.0);
        assert!(!m.contains_key("blob_write_p50"), "{m:?}");
        assert!(!m.contains_key("blob_write_p99"));
        let so = so.replace("COUNT : 0 SUM : 0", "COUNT : 10 SUM : 70");
        let m = metrics(&parse_output(&so, ""), &Accounting::default());
        assert_eq!(m["blob_write_p50"], 0.0);
    }

    #[test]
    fn cpu_per_operation_from_the_process_time() {
        let so = "fillrandom   :      10.000 micros/op 100000 ops/sec 1.000 seconds 100000 operations;   10.0 MB/s\n";
        let acc = Accounting {
            wall_sec: 1.5,
            user_sec: 0.3,
            sys_sec: 0.2,
            max_rss_kb: 0,
            cores: 2,
        };
        let m = metrics(&parse_output(so, ""), &acc);
        assert!((m["cpu_us_op"] - 5.0).abs() < 1e-9, "{m:?}");
        // No CPU time measured: no figure rather than 0.
        let m = metrics(&parse_output(so, ""), &Accounting::default());
        assert!(!m.contains_key("cpu_us_op"));
    }

    #[test]
    fn ycsb_e_p99_is_its_scans_not_its_inserts() {
        assert_eq!(headline_op(&["insert", "scan"]), Some("scan"));
        assert_eq!(headline_op(&["read", "update"]), Some("read"));
        assert_eq!(headline_op(&["write", "seek"]), Some("seek"));
        assert_eq!(headline_op(&["insert"]), Some("insert"));
        assert_eq!(headline_op(&["write", "delete"]), Some("write"));
        assert_eq!(headline_op(&[]), None);
        let so =
            "ycsb_e       :      50.000 micros/op 20000 ops/sec 1.000 seconds 20000 operations;\n\
            Microseconds per insert:\n\
            Count: 1000 Average: 10.0000  StdDev: 1.00\n\
            Min: 1  Median: 10.0000  Max: 20\n\
            Percentiles: P50: 10.00 P75: 12.00 P99: 19.00 P99.9: 20.00 P99.99: 20.00\n\
            ------------------------------------------------------\n\
            Microseconds per scan:\n\
            Count: 19000 Average: 50.0000  StdDev: 5.00\n\
            Min: 20  Median: 50.0000  Max: 300\n\
            Percentiles: P50: 50.00 P75: 60.00 P99: 150.00 P99.9: 250.00 P99.99: 300.00\n\
            ------------------------------------------------------\n";
        let m = metrics(&parse_output(so, ""), &Accounting::default());
        assert_eq!((m["insert_p99"], m["scan_p99"]), (19.0, 150.0), "{m:?}");
        assert_eq!((m["p99"], m["p50"]), (150.0, 50.0), "{m:?}");
    }

    #[test]
    fn cpu_pct_divides_by_cores() {
        assert_eq!(cpu_pct(1.5, 0.5, 2.0, 2), Some(50.0));
        assert_eq!(cpu_pct(1.0, 0.0, 0.0, 2), None);
    }

    #[test]
    fn metrics_from_captured_output() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../strata-bench/testdata/");
        let so = std::fs::read_to_string(format!("{dir}fillrandom_compact_7.8.3.stdout")).unwrap();
        let o = parse_output(&so, "");
        let m = metrics(
            &o,
            &Accounting {
                wall_sec: 2.0,
                user_sec: 1.0,
                sys_sec: 1.0,
                max_rss_kb: 2048,
                cores: 2,
            },
        );
        // (52800000 + 29898392 + 51313123 + 0) / 52800000
        let expect = (52_800_000.0 + 29_898_392.0 + 51_313_123.0) / 52_800_000.0;
        assert!((m["waf"] - expect).abs() < 1e-12);
        assert_eq!(m["wamp"], 2.4);
        assert!((m["comp_cpu_sec"] - 0.250694).abs() < 1e-12);
        assert_eq!(m["cpu_pct"], 50.0);
        assert_eq!(m["stall_micros"], 371015.0);
        assert_eq!(m["max_rss_mb"], 2.0);
        assert!(m["p99"] >= m["p50"]);
        assert_eq!(m["p50"], m["write_p50"]);
        // No WAL term: (29898392 + 51313123) / 52800000.
        let expect = (29_898_392.0 + 51_313_123.0) / 52_800_000.0;
        assert!((m["waf_no_wal"] - expect).abs() < 1e-12);
        assert_eq!(m["flush_micros_per_flush"], 611_149.0 / 52.0);
        assert_eq!(m["block_cache_hit_rate"], 0.0);
        // 7.8.3 prints no rocksdb.sst.write.micros and an empty blob histogram.
        assert!(!m.contains_key("sst_write_p50") && !m.contains_key("blob_write_p99"));
        let so =
            std::fs::read_to_string(format!("{dir}readrandomwriterandom_7.8.3.stdout")).unwrap();
        let m = metrics(&parse_output(&so, ""), &Accounting::default());
        assert_eq!(m["block_cache_hit_rate"], 23_316.0 / (23_316.0 + 14_250.0));
    }
}
