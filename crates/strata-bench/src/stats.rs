//! Per-thread benchmark measurements (db_bench's `Stats`) and the figures
//! of the per-benchmark result line ([`Summary`]; the line's text is
//! `dbbench_text`'s `result_line`).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram as Hdr;

use crate::dbbench_text::histogram::DbBenchHistogram;

/// The operation kinds db_bench histograms by, in its print order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum OpType {
    /// Get
    Read,
    /// Put
    Write,
    /// Delete
    Delete,
    /// Merge (mergerandom, readrandommergerandom)
    Merge,
    /// Seek
    Seek,
    /// Read-modify-write (db_bench's updaterandom); a YCSB update
    Update,
    /// A YCSB insert of a new record
    Insert,
    /// A YCSB scan (seek, then up to `--ycsb_max_scan_length` nexts)
    Scan,
    /// A YCSB read-modify-write
    ReadModifyWrite,
}

impl OpType {
    /// The word after `Microseconds per`.
    pub fn name(self) -> &'static str {
        match self {
            OpType::Read => "read",
            OpType::Write => "write",
            OpType::Delete => "delete",
            OpType::Merge => "merge",
            OpType::Seek => "seek",
            OpType::Update => "update",
            OpType::Insert => "insert",
            OpType::Scan => "scan",
            OpType::ReadModifyWrite => "readmodifywrite",
        }
    }
}

/// Latency of one op type: db_bench's bucketed histogram in microseconds (for
/// the text output) and an HDR histogram in nanoseconds (exact percentiles
/// for the JSON report).
#[derive(Debug, Clone)]
pub struct Latency {
    /// RocksDB-bucketed, microseconds.
    pub buckets: DbBenchHistogram,
    /// HDR, nanoseconds, 3 significant digits.
    pub hdr: Hdr<u64>,
}

impl Latency {
    fn new() -> Self {
        Self {
            buckets: DbBenchHistogram::new(),
            hdr: new_hdr(),
        }
    }
    fn record(&mut self, nanos: u64) {
        self.buckets.add(nanos / 1000);
        self.hdr.saturating_record(nanos.max(1));
    }
    fn merge(&mut self, other: &Latency) {
        self.buckets.merge(&other.buckets);
        // Same bounds on both sides: add cannot fail.
        let _ = self.hdr.add(&other.hdr);
    }
}

/// An empty latency histogram in nanoseconds: 3 significant digits from
/// 1 ns to 1 hour (longer values are recorded as 1 hour).
pub fn new_hdr() -> Hdr<u64> {
    // Cannot fail for these bounds.
    Hdr::new_with_bounds(1, 3_600_000_000_000, 3)
        .unwrap_or_else(|_| Hdr::new(3).unwrap_or_else(|_| unreachable_hdr()))
}

fn unreachable_hdr() -> Hdr<u64> {
    // `Hdr::new(3)` only fails for sigfig > 5.
    panic!("hdrhistogram rejected 3 significant digits")
}

/// Measurements of one thread (or, after [`Stats::merge`], of all threads).
#[derive(Debug, Clone)]
pub struct Stats {
    start: Instant,
    finish: Instant,
    /// Sum over threads of each thread's elapsed seconds.
    pub seconds: f64,
    /// Operations done.
    pub done: u64,
    /// Bytes moved (key + value), for MB/s.
    pub bytes: u64,
    /// The message after the figures, e.g. `(X of Y found)`.
    pub message: String,
    /// Latency per op type (only with `--histogram` or a JSON report).
    pub hist: BTreeMap<OpType, Latency>,
    record_latency: bool,
    last_op_finish: Instant,
    /// Excluded from the merged result (the background writer of readwhilewriting).
    pub exclude_from_merge: bool,
    /// How far the paced operation stream lagged its schedule at the last
    /// completion (after a merge: the largest over threads); zero unpaced.
    pub behind_schedule: Duration,
}

impl Stats {
    /// Starts the clock.
    pub fn start(record_latency: bool) -> Self {
        let now = Instant::now();
        Self {
            start: now,
            finish: now,
            seconds: 0.0,
            done: 0,
            bytes: 0,
            message: String::new(),
            hist: BTreeMap::new(),
            record_latency,
            last_op_finish: now,
            exclude_from_merge: false,
            behind_schedule: Duration::ZERO,
        }
    }

    /// Records `n` finished ops of kind `op`, timed from the previous op's
    /// finish as db_bench times them (or from the slot set by
    /// [`Stats::next_op_starts_at`]); returns when they finished and the
    /// latency in nanoseconds, when latencies are recorded.
    pub fn finished_ops(&mut self, n: u64, op: OpType) -> Option<(Instant, u64)> {
        self.done += n;
        if !self.record_latency {
            return None;
        }
        let now = Instant::now();
        let nanos = now
            .saturating_duration_since(self.last_op_finish)
            .as_nanos() as u64;
        self.hist
            .entry(op)
            .or_insert_with(Latency::new)
            .record(nanos);
        self.last_op_finish = now;
        Some((now, nanos))
    }

    /// Times the next op from `scheduled` (its slot under a target rate,
    /// so waiting behind a slow op counts as latency) instead of from the
    /// previous op's finish.
    pub fn next_op_starts_at(&mut self, scheduled: Instant) {
        self.last_op_finish = scheduled;
    }

    /// Adds bytes for the MB/s figure.
    pub fn add_bytes(&mut self, n: u64) {
        self.bytes += n;
    }

    /// Appends to the message (space separated).
    pub fn add_message(&mut self, msg: &str) {
        if !self.message.is_empty() {
            self.message.push(' ');
        }
        self.message.push_str(msg);
    }

    /// Stops the clock.
    pub fn stop(&mut self) {
        self.finish = Instant::now();
        self.seconds = self.finish.duration_since(self.start).as_secs_f64();
    }

    /// Folds another thread's stats in (start = earliest, finish = latest,
    /// seconds summed, the first non-empty message kept).
    pub fn merge(&mut self, other: &Stats) {
        for (op, lat) in &other.hist {
            match self.hist.get_mut(op) {
                Some(mine) => mine.merge(lat),
                None => {
                    self.hist.insert(*op, lat.clone());
                }
            }
        }
        self.done += other.done;
        self.bytes += other.bytes;
        self.seconds += other.seconds;
        self.start = self.start.min(other.start);
        self.finish = self.finish.max(other.finish);
        self.behind_schedule = self.behind_schedule.max(other.behind_schedule);
        if self.message.is_empty() {
            self.message = other.message.clone();
        }
    }

    /// Wall-clock seconds from the first start to the last finish.
    pub fn elapsed(&self) -> f64 {
        self.finish
            .duration_since(self.start)
            .as_secs_f64()
            .max(1e-9)
    }

    /// The figures of the report line.
    pub fn summary(&self) -> Summary {
        let done = self.done.max(1);
        let elapsed = self.elapsed();
        Summary {
            micros_per_op: self.seconds * 1e6 / done as f64,
            ops_per_sec: done as f64 / elapsed,
            elapsed,
            ops: done,
            mb_per_sec: (self.bytes > 0).then(|| self.bytes as f64 / 1_048_576.0 / elapsed),
            message: self.message.clone(),
        }
    }
}

/// The figures of one benchmark's report line.
#[derive(Debug, Clone, PartialEq)]
pub struct Summary {
    /// Sum of per-thread time / ops.
    pub micros_per_op: f64,
    /// Ops / wall time.
    pub ops_per_sec: f64,
    /// Wall seconds.
    pub elapsed: f64,
    /// Ops (at least 1, as db_bench pretends).
    pub ops: u64,
    /// MB/s (MiB of key+value per wall second), when bytes were counted.
    pub mb_per_sec: Option<f64>,
    /// Trailing message.
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_sums_ops_and_keeps_first_message() {
        let mut a = Stats::start(true);
        let mut b = Stats::start(true);
        a.finished_ops(3, OpType::Read);
        b.finished_ops(4, OpType::Read);
        b.finished_ops(1, OpType::Write);
        b.add_message("(1 of 2 found)");
        a.add_bytes(10);
        b.add_bytes(5);
        a.stop();
        b.stop();
        a.merge(&b);
        assert_eq!(a.done, 8);
        assert_eq!(a.bytes, 15);
        assert_eq!(a.message, "(1 of 2 found)");
        assert_eq!(a.hist[&OpType::Read].buckets.count(), 2);
        assert_eq!(a.hist[&OpType::Read].hdr.len(), 2);
        let h = crate::dbbench_text::histogram::format_histograms(&a);
        assert!(h.starts_with("Microseconds per read:\nCount: 2 "), "{h}");
        assert!(h.contains("Microseconds per write:\nCount: 1 "), "{h}");
    }
}
