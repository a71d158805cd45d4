//! What the lab reads of the bench's JSON report (`--json_report`): per
//! benchmark, the pacing, the peaks, the lag behind schedule and the
//! per-interval samples (`--report_interval_seconds`). Fields the lab does
//! not use are ignored; a missing figure reads as unknown.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// One operation kind's latency within an interval (microseconds).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct KindLatency {
    /// Operations of this kind.
    #[serde(default)]
    pub count: u64,
    /// Median.
    #[serde(default)]
    pub p50_us: Option<f64>,
    /// 99th percentile.
    #[serde(default)]
    pub p99_us: Option<f64>,
    /// 99.9th percentile.
    #[serde(default)]
    pub p99_9_us: Option<f64>,
    /// Largest.
    #[serde(default)]
    pub max_us: Option<f64>,
}

/// One interval's sample.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Interval {
    /// Seconds from the benchmark's start to the interval's end.
    pub t_end_s: f64,
    /// Operations per second in the interval, all kinds.
    #[serde(default)]
    pub ops_per_sec: f64,
    /// Latency per operation kind.
    #[serde(default)]
    pub latency: BTreeMap<String, KindLatency>,
    /// Longest gap between two completions of one thread (ms).
    #[serde(default)]
    pub max_gap_ms: Option<f64>,
    /// Lag behind the schedule at the interval's end (ms).
    #[serde(default)]
    pub behind_schedule_ms: Option<f64>,
    /// The engine's write-stall time within the interval (us).
    #[serde(default)]
    pub stall_micros: Option<f64>,
    /// L0 files at the sample.
    #[serde(default)]
    pub l0_files: Option<f64>,
    /// Estimated pending compaction bytes at the sample.
    #[serde(default)]
    pub pending_compaction_bytes: Option<f64>,
    /// DB directory size at the sample.
    #[serde(default)]
    pub disk_bytes: Option<f64>,
    /// Resident set size of the bench at the sample.
    #[serde(default)]
    pub rss_bytes: Option<f64>,
    /// Of `rss_bytes`, pages of mapped files (the DB's tables under mmap
    /// reads); absent in reports of benches that do not sample it.
    #[serde(default)]
    pub rss_file_bytes: Option<f64>,
}

impl Interval {
    /// The bench's own memory at the sample: its RSS without the pages of
    /// mapped files, which are the OS page cache (an engine that reads its
    /// tables with `pread` holds the same pages outside its RSS).
    pub(crate) fn own_memory_bytes(&self) -> Option<f64> {
        self.rss_bytes
            .map(|r| (r - self.rss_file_bytes.unwrap_or(0.0)).max(0.0))
    }

    /// The interval's longest stall (ms): the larger of the longest gap in
    /// the operation stream and the engine's stall time in the interval
    /// (which bounds its longest stall from above).
    pub(crate) fn stall_ms(&self) -> Option<f64> {
        let engine = self.stall_micros.map(|u| u / 1000.0);
        match (self.max_gap_ms, engine) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (a, b) => a.or(b),
        }
    }
}

/// One benchmark of the report.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Benchmark {
    /// Benchmark name (`ycsb_a`, `overwrite`).
    pub name: String,
    /// Operations per second over the whole benchmark.
    #[serde(default)]
    pub ops_per_sec: f64,
    /// The pacing in force (`None`: closed loop).
    #[serde(default)]
    pub target_ops_per_sec: Option<f64>,
    /// Largest DB-directory size sampled.
    #[serde(default)]
    pub peak_disk_bytes: Option<f64>,
    /// Largest resident set size sampled.
    #[serde(default)]
    pub peak_rss_bytes: Option<f64>,
    /// Largest own memory sampled (RSS without mapped files).
    #[serde(default)]
    pub peak_own_memory_bytes: Option<f64>,
    /// Lag behind the schedule at the end (ms).
    #[serde(default)]
    pub behind_schedule_ms: Option<f64>,
    /// The per-interval samples.
    #[serde(default)]
    pub intervals: Vec<Interval>,
}

#[derive(Deserialize)]
struct Report {
    #[serde(default)]
    benchmarks: Vec<Benchmark>,
}

/// The benchmark of the JSON report at `path` the mix ran: the first one
/// that is not `stats` (nor another report-only pseudo-benchmark).
pub(crate) fn read_mix(path: &Path) -> anyhow::Result<Benchmark> {
    let text =
        std::fs::read_to_string(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let r: Report =
        serde_json::from_str(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    r.benchmarks
        .into_iter()
        .find(|b| !matches!(b.name.as_str(), "stats" | "levelstats" | "sstables"))
        .ok_or_else(|| anyhow::anyhow!("{}: no benchmark in the report", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_contract_report_reads_and_stalls_take_the_larger_source() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        std::fs::write(
            &p,
            r#"{"schema_version": 1, "benchmarks": [
              {"name": "ycsb_a", "ops_per_sec": 900.0, "target_ops_per_sec": 1000.0,
               "peak_disk_bytes": 5000, "peak_rss_bytes": 7000, "behind_schedule_ms": 0.0,
               "intervals": [{"t_end_s": 1.0, "ops": 1000, "ops_per_sec": 1000.0,
                 "latency": {"read": {"count": 500, "p50_us": 3.0, "p99_us": 40.0, "p99_9_us": 90.0, "max_us": 100.0}},
                 "max_gap_ms": 2.0, "behind_schedule_ms": 0.0, "stall_micros": 30000,
                 "l0_files": null, "pending_compaction_bytes": null, "disk_bytes": 5000, "rss_bytes": 7000}]},
              {"name": "stats"}]}"#,
        )
        .unwrap();
        let b = read_mix(&p).unwrap();
        assert_eq!(b.name, "ycsb_a");
        assert_eq!(b.intervals[0].latency["read"].p99_us, Some(40.0));
        assert_eq!(b.intervals[0].stall_ms(), Some(30.0));
        assert_eq!(b.intervals[0].l0_files, None);
        let mut i = b.intervals[0].clone();
        i.stall_micros = None;
        assert_eq!(i.stall_ms(), Some(2.0));
        std::fs::write(&p, r#"{"benchmarks": [{"name": "stats"}]}"#).unwrap();
        assert!(read_mix(&p)
            .unwrap_err()
            .to_string()
            .contains("no benchmark"));
    }
}
