//! `--json_report=PATH`: every figure of the run in a versioned schema
//! (documented in docs/strata-bench.md, "JSON report").

use std::collections::BTreeMap;

use serde::Serialize;

use crate::dbbench_text::{CompactionRow, Statistics};
use crate::dbdir::DiskUsage;
use crate::runner::BenchResult;
use crate::sampler::Interval;
use crate::stats::Latency;
use crate::sysinfo::ProcessUsage;

/// Schema identifier.
pub const SCHEMA: &str = "strata-bench-report";
/// Schema version; bumped on any incompatible change.
pub const SCHEMA_VERSION: u32 = 1;

/// Client-side latency of one op type, in microseconds (from an HDR
/// histogram recorded in nanoseconds: exact to 3 significant digits).
#[derive(Debug, Clone, Serialize)]
pub struct LatencyReport {
    /// Samples.
    pub count: u64,
    /// Mean.
    pub mean_us: f64,
    /// Standard deviation.
    pub stddev_us: f64,
    /// Minimum.
    pub min_us: f64,
    /// P50.
    pub p50_us: f64,
    /// P75.
    pub p75_us: f64,
    /// P90.
    pub p90_us: f64,
    /// P95.
    pub p95_us: f64,
    /// P99.
    pub p99_us: f64,
    /// P99.9.
    pub p99_9_us: f64,
    /// P99.99.
    pub p99_99_us: f64,
    /// Maximum.
    pub max_us: f64,
}

impl LatencyReport {
    fn from(l: &Latency) -> Self {
        let h = &l.hdr;
        let q = |p: f64| h.value_at_quantile(p) as f64 / 1000.0;
        Self {
            count: h.len(),
            mean_us: h.mean() / 1000.0,
            stddev_us: h.stdev() / 1000.0,
            min_us: h.min() as f64 / 1000.0,
            p50_us: q(0.50),
            p75_us: q(0.75),
            p90_us: q(0.90),
            p95_us: q(0.95),
            p99_us: q(0.99),
            p99_9_us: q(0.999),
            p99_99_us: q(0.9999),
            max_us: h.max() as f64 / 1000.0,
        }
    }
}

/// One benchmark's figures.
#[derive(Debug, Clone, Serialize)]
pub struct BenchmarkReport {
    /// Benchmark name.
    pub name: String,
    /// Client threads merged into the figures.
    pub threads: usize,
    /// Operations.
    pub ops: u64,
    /// Wall seconds.
    pub elapsed_seconds: f64,
    /// Operations per wall second.
    pub ops_per_sec: f64,
    /// Sum of per-thread seconds * 1e6 / ops (db_bench's micros/op).
    pub micros_per_op: f64,
    /// MiB of key+value per wall second; null when the benchmark moves no bytes.
    pub mb_per_sec: Option<f64>,
    /// Key+value bytes moved.
    pub bytes: u64,
    /// db_bench's trailing message, e.g. `(1738 of 2000 found)`.
    pub message: String,
    /// Client latency per op type (`read`, `write`, ...).
    pub latency: BTreeMap<String, LatencyReport>,
    /// The target rate in force over all threads (`--target_ops_per_sec`,
    /// or `--ycsb_target_ops_per_sec` on ycsb_*); null: closed loop.
    pub target_ops_per_sec: Option<f64>,
    /// The largest DB-directory size sampled during the benchmark (at each
    /// interval and at the end; without intervals, at the end only).
    pub peak_disk_bytes: u64,
    /// The largest resident set size of the bench process sampled (VmRSS,
    /// at each interval and at the end).
    pub peak_rss_bytes: u64,
    /// The largest of the process's own memory sampled: VmRSS without the
    /// pages of mapped files (`RssFile`), which under mmap reads are the
    /// DB's tables in the OS page cache, outside the RSS of an engine that
    /// reads them with `pread`. The figure to compare engines' memory by.
    pub peak_own_memory_bytes: u64,
    /// How far the paced operation stream lagged its schedule at the end
    /// (at each thread's last completion, the largest over threads); 0.0
    /// when it kept up or unpaced.
    pub behind_schedule_ms: f64,
    /// One element per `--report_interval_seconds` interval, in order
    /// (empty without it).
    pub intervals: Vec<Interval>,
}

/// Write amplification under the two common definitions.
#[derive(Debug, Clone, Serialize)]
pub struct WriteAmp {
    /// RocksDB's: the `Sum` row `W-Amp` of the Compaction Stats table =
    /// (flush + compaction (+ blob) bytes written) / bytes flushed. No WAL,
    /// no user bytes. Without a Sum row: the same ratio from the tickers
    /// `rocksdb.flush.write.bytes` and `rocksdb.compact.write.bytes`.
    pub compaction_stats_w_amp: Option<f64>,
    /// End to end: (rocksdb.wal.bytes + rocksdb.flush.write.bytes +
    /// rocksdb.compact.write.bytes) / rocksdb.bytes.written. Needs --statistics.
    pub end_to_end: Option<f64>,
    /// The definitions above, in words, for readers of the file.
    pub definitions: BTreeMap<&'static str, &'static str>,
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// Always [`SCHEMA`].
    pub schema: &'static str,
    /// [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// Engine name (`Strata`, `RocksDB`).
    pub engine: String,
    /// Engine version.
    pub engine_version: String,
    /// Arguments after `strata bench`.
    pub command_line: Vec<String>,
    /// Every flag's effective value.
    pub flags: BTreeMap<String, String>,
    /// The seed base used (printed as `Set seed to` when --seed was 0).
    pub seed: u64,
    /// DB directory.
    pub db_path: String,
    /// Seconds since the Unix epoch when the run started.
    pub started_at_unix: u64,
    /// Wall seconds of the whole run.
    pub wall_seconds: f64,
    /// Per-benchmark figures in run order.
    pub benchmarks: Vec<BenchmarkReport>,
    /// Tickers and histograms of the statistics dump; null without --statistics.
    pub statistics: Option<Statistics>,
    /// Rows of the Compaction Stats table (`L0`.., `Sum`, `Int`), by column header.
    pub compaction_stats: Vec<CompactionRow>,
    /// Write amplification.
    pub write_amplification: WriteAmp,
    /// Microseconds writers were stalled (ticker `rocksdb.stall.micros`);
    /// null without --statistics.
    pub stall_micros: Option<u64>,
    /// `Cumulative stall: ... X percent` of `rocksdb.stats`.
    pub stall_percent: Option<f64>,
    /// Process CPU and memory.
    pub process: ProcessUsage,
    /// Bytes in the DB directory at the end, by file kind.
    pub disk: DiskUsage,
}

/// Builds the per-benchmark part.
pub fn benchmark_report(r: &BenchResult) -> BenchmarkReport {
    let s = r.stats.summary();
    BenchmarkReport {
        name: r.name.clone(),
        threads: r.threads,
        ops: s.ops,
        elapsed_seconds: s.elapsed,
        ops_per_sec: s.ops_per_sec,
        micros_per_op: s.micros_per_op,
        mb_per_sec: s.mb_per_sec,
        bytes: r.stats.bytes,
        message: s.message.trim().to_string(),
        latency: r
            .stats
            .hist
            .iter()
            .map(|(op, l)| (op.name().to_string(), LatencyReport::from(l)))
            .collect(),
        target_ops_per_sec: r.target_ops_per_sec,
        peak_disk_bytes: r.peak_disk_bytes,
        peak_rss_bytes: r.peak_rss_bytes,
        peak_own_memory_bytes: r.peak_own_memory_bytes,
        behind_schedule_ms: r.stats.behind_schedule.as_secs_f64() * 1e3,
        intervals: r.intervals.clone(),
    }
}

/// Computes both write-amplification figures.
pub fn write_amp(stats: Option<&Statistics>, rows: &[CompactionRow]) -> WriteAmp {
    // From the table's Sum row; when the engine's table has none, the same
    // definition from tickers: (flush + compaction bytes) / flush bytes.
    let compaction_stats_w_amp = rows
        .iter()
        .find(|r| r.level == "Sum")
        .and_then(|r| r.num("W-Amp"))
        .or_else(|| {
            let s = stats?;
            let t = |n: &str| s.tickers.get(n).copied().unwrap_or(0) as f64;
            let flush = t("rocksdb.flush.write.bytes");
            (flush > 0.0).then(|| (flush + t("rocksdb.compact.write.bytes")) / flush)
        });
    let end_to_end = stats.and_then(|s| {
        let t = |n: &str| s.tickers.get(n).copied().unwrap_or(0) as f64;
        let user = t("rocksdb.bytes.written");
        (user > 0.0).then(|| {
            (t("rocksdb.wal.bytes")
                + t("rocksdb.flush.write.bytes")
                + t("rocksdb.compact.write.bytes"))
                / user
        })
    });
    let mut definitions = BTreeMap::new();
    definitions.insert(
        "compaction_stats_w_amp",
        "RocksDB's Compaction Stats Sum-row W-Amp: (flush + compaction + blob bytes written) / bytes flushed; excludes WAL and user bytes",
    );
    definitions.insert(
        "end_to_end",
        "(rocksdb.wal.bytes + rocksdb.flush.write.bytes + rocksdb.compact.write.bytes) / rocksdb.bytes.written; flush and compaction bytes include blob files",
    );
    WriteAmp {
        compaction_stats_w_amp,
        end_to_end,
        definitions,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dbbench_text::{parse_db_stats, parse_statistics};

    #[test]
    fn write_amp_both_definitions() {
        let stats = parse_statistics(
            "rocksdb.bytes.written COUNT : 100\nrocksdb.wal.bytes COUNT : 120\nrocksdb.flush.write.bytes COUNT : 50\nrocksdb.compact.write.bytes COUNT : 30\n",
        );
        let rows = parse_db_stats(include_str!(
            "../testdata/rocksdb-7.8.3/stats-benchmark.txt"
        ))
        .levels;
        let w = write_amp(Some(&stats), &rows);
        assert_eq!(w.end_to_end, Some(2.0));
        assert_eq!(w.compaction_stats_w_amp, Some(1.9));
        let w = write_amp(Some(&stats), &[]);
        assert_eq!(
            w.compaction_stats_w_amp,
            Some(1.6),
            "ticker fallback (50 + 30) / 50"
        );
        let w = write_amp(None, &[]);
        assert_eq!((w.end_to_end, w.compaction_stats_w_amp), (None, None));
    }
}
