//! Progress on stderr: db_bench's `... finished N ops` line plus the current
//! ops/sec (only when stderr is a terminal and the run has lasted 2 s) and, with `--stats_interval[_seconds]`, its periodic
//! per-thread interval lines (plus `rocksdb.stats` with `--stats_per_interval`).

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::time::Instant;

use crate::engine::BenchEngine;

/// Per-thread progress reporter.
pub struct Progress {
    tid: usize,
    tty: bool,
    next_report: u64,
    interval_ops: u64,
    interval_secs: u64,
    per_interval: bool,
    start: Instant,
    last_time: Instant,
    last_done: u64,
    db: Option<Arc<dyn BenchEngine>>,
}

/// db_bench's adaptive schedule of `... finished` reports.
pub fn next_report_after(current: u64) -> u64 {
    let step = match current {
        0..1000 => 100,
        1000..5000 => 500,
        5000..10000 => 1000,
        10000..50000 => 5000,
        50000..100000 => 10000,
        100000..500000 => 50000,
        _ => 100000,
    };
    current + step
}

/// The terminal progress line: db_bench's `... finished N ops` plus the
/// current rate, padded and ended with `\r` so the next one overwrites it.
pub fn progress_line(done: u64, ops_per_sec: f64) -> String {
    format!(
        "... finished {done} ops ({ops_per_sec:.0} ops/sec){:30}\r",
        ""
    )
}

impl Progress {
    /// A reporter for thread `tid`.
    pub fn new(
        tid: usize,
        interval_ops: i64,
        interval_secs: i64,
        per_interval: bool,
        db: Option<Arc<dyn BenchEngine>>,
    ) -> Self {
        let now = Instant::now();
        Self {
            tid,
            tty: std::io::stderr().is_terminal(),
            next_report: 100,
            interval_ops: u64::try_from(interval_ops).unwrap_or(0),
            interval_secs: u64::try_from(interval_secs).unwrap_or(0),
            per_interval,
            start: now,
            last_time: now,
            last_done: 0,
            db,
        }
    }

    /// Called after ops complete, with the thread's running total.
    pub fn tick(&mut self, done: u64) {
        if done < self.next_report {
            return;
        }
        if self.interval_ops == 0 && self.interval_secs == 0 {
            self.next_report = next_report_after(self.next_report);
            let now = Instant::now();
            // Only for runs longer than a couple of seconds, and only on a
            // terminal: db_bench's line plus the current rate.
            if self.tty && now.duration_since(self.start).as_secs() >= 2 {
                let secs = now.duration_since(self.last_time).as_secs_f64().max(1e-9);
                let rate = (done - self.last_done) as f64 / secs;
                let mut e = std::io::stderr().lock();
                let _ = e.write_all(progress_line(done, rate).as_bytes());
                let _ = e.flush();
                self.last_time = now;
                self.last_done = done;
            }
            return;
        }
        self.next_report += self.interval_ops.max(1);
        let now = Instant::now();
        if self.interval_secs > 0
            && now.duration_since(self.last_time).as_secs() < self.interval_secs
        {
            return;
        }
        let usecs_int = now.duration_since(self.last_time).as_secs_f64().max(1e-9);
        let usecs_all = now.duration_since(self.start).as_secs_f64().max(1e-9);
        let line = format!(
            "{} ... thread {}: ({},{}) ops and ({:.1},{:.1}) ops/second in ({:.6},{:.6}) seconds\n",
            crate::header::now_string(),
            self.tid,
            done - self.last_done,
            done,
            (done - self.last_done) as f64 / usecs_int,
            done as f64 / usecs_all,
            usecs_int,
            usecs_all
        );
        let mut e = std::io::stderr().lock();
        let _ = e.write_all(line.as_bytes());
        if self.tid == 0 && self.per_interval {
            if let Some(stats) = self.db.as_ref().and_then(|d| d.property("rocksdb.stats")) {
                let _ = writeln!(e, "{stats}");
            }
        }
        self.last_time = now;
        self.last_done = done;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_line_shape() {
        let l = progress_line(1500, 12345.6);
        assert!(
            l.starts_with("... finished 1500 ops (12346 ops/sec)"),
            "{l:?}"
        );
        assert!(l.ends_with(" \r") && !l.contains('\n'));
    }

    #[test]
    fn schedule_matches_db_bench() {
        let mut v = vec![100];
        while v.len() < 14 {
            let n = next_report_after(*v.last().unwrap());
            v.push(n);
        }
        assert_eq!(
            v,
            [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000, 1500, 2000, 2500, 3000]
        );
        assert_eq!(next_report_after(600_000), 700_000);
    }
}
