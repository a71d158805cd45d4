//! `--report_interval_seconds=N`: a thread beside the client threads of a
//! benchmark wakes at the end of every N-second interval, samples the
//! engine ([`EngineSample`]), the DB directory's size and the process's
//! resident set size, collects the client figures of the intervals every
//! thread has moved past (see [`crate::intervals`]) and writes their rows
//! to `--report_file`. When the benchmark ends, [`Sampler::finish`] joins
//! both sides into one [`Interval`] per interval.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Condvar, Mutex};
use std::time::Instant;

use serde::Serialize;

use crate::dbdir::disk_usage;
use crate::engine::{BenchEngine, EngineSample};
use crate::intervals::{Board, ClientFigures, Clock, KindLatency};
use crate::report_csv::ReportCsv;
use crate::sysinfo::{current_resident, Resident};

/// The host figures at one moment.
#[derive(Debug, Clone, Copy)]
pub struct Point {
    /// When they were read.
    pub at: Instant,
    /// The engine's figures.
    pub engine: EngineSample,
    /// Bytes in the DB directory.
    pub disk_bytes: u64,
    /// Resident memory of this process.
    pub resident: Resident,
}

impl Point {
    /// Reads them now.
    pub fn take(db: &dyn BenchEngine, db_path: &Path) -> Self {
        Self {
            engine: db.sample(),
            disk_bytes: disk_usage(db_path).total_bytes,
            resident: current_resident(),
            at: Instant::now(),
        }
    }
}

/// One interval of a benchmark: what the clients did in it and the host's
/// figures at its end (an element of the JSON report's
/// `benchmarks[].intervals`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Interval {
    /// Seconds from the benchmark's start to the end of this interval (the
    /// benchmark's end for the last, partial one).
    pub t_end_s: f64,
    /// Operations finished in the interval, all kinds.
    pub ops: u64,
    /// `ops` over the interval's length.
    pub ops_per_sec: f64,
    /// Latency per op kind, by the kind names of `benchmarks[].latency`.
    pub latency: BTreeMap<String, KindLatency>,
    /// The longest time any one thread had an operation due without
    /// finishing one, ending within the interval (a stall shows as a gap;
    /// a paced thread's wait for its next slot does not).
    pub max_gap_ms: f64,
    /// Lag of the paced stream behind its schedule at the interval's end
    /// (at each thread's last completion in it, the largest over threads;
    /// 0.0 unpaced or on time).
    pub behind_schedule_ms: f64,
    /// Write-stall microseconds within the interval (delta of the ticker
    /// `rocksdb.stall.micros`); null if the engine reports none (LevelDB,
    /// fjall; Strata and RocksDB without `--statistics`).
    pub stall_micros: Option<u64>,
    /// L0 files at the sample; null if unknown.
    pub l0_files: Option<u64>,
    /// `rocksdb.estimate-pending-compaction-bytes` at the sample; null if unknown.
    pub pending_compaction_bytes: Option<u64>,
    /// DB directory size at the sample.
    pub disk_bytes: u64,
    /// Resident set size of the bench process at the sample (`VmRSS`).
    pub rss_bytes: u64,
    /// Of `rss_bytes`, pages of files mapped into the process (`RssFile`:
    /// the executable and, under mmap reads, the DB's tables, which the OS
    /// page cache holds for an engine that reads with `pread` too, outside
    /// its RSS). The process's own memory is the difference.
    pub rss_file_bytes: u64,
}

/// What the sampler thread gathered so far.
#[derive(Debug, Default)]
struct Gathered {
    /// Host figures by interval (an interval the sampler overslept is absent).
    ticks: BTreeMap<usize, Point>,
    /// Client figures of complete intervals (those without ops are absent).
    clients: BTreeMap<usize, ClientFigures>,
    csv: Option<ReportCsv>,
    /// Intervals below this have their CSV row.
    written: usize,
}

/// The sampler of one benchmark.
pub struct Sampler<'a> {
    board: &'a Board,
    db: &'a dyn BenchEngine,
    db_path: &'a Path,
    start: Point,
    stop: Mutex<bool>,
    wake: Condvar,
    gathered: Mutex<Gathered>,
}

impl<'a> Sampler<'a> {
    /// A sampler of the benchmark whose threads hand in to `board`; `start`
    /// is the host's figures at its start (the base of the first stall
    /// delta); `csv` the open `--report_file`.
    pub fn new(
        board: &'a Board,
        db: &'a dyn BenchEngine,
        db_path: &'a Path,
        start: Point,
        csv: Option<ReportCsv>,
    ) -> Self {
        Self {
            board,
            db,
            db_path,
            start,
            stop: Mutex::new(false),
            wake: Condvar::new(),
            gathered: Mutex::new(Gathered {
                csv,
                ..Gathered::default()
            }),
        }
    }

    /// Samples at the end of every interval until [`Sampler::stop`].
    pub fn run(&self) {
        let clock = self.board.clock();
        let mut k = 0;
        loop {
            let due = clock.end_of(k);
            let mut stopped = self.stop.lock().unwrap_or_else(|e| e.into_inner());
            loop {
                if *stopped {
                    return;
                }
                let now = Instant::now();
                if now >= due {
                    break;
                }
                stopped = self
                    .wake
                    .wait_timeout(stopped, due - now)
                    .unwrap_or_else(|e| e.into_inner())
                    .0;
            }
            drop(stopped);
            let p = Point::take(self.db, self.db_path);
            let now_index = clock.index_of(p.at);
            let mut g = self.lock();
            g.ticks.insert(k, p);
            self.collect(&mut g, now_index.min(self.board.complete_below()));
            // An overslept interval gets no sample of its own.
            k = (k + 1).max(now_index);
        }
    }

    /// Ends [`Sampler::run`].
    pub fn stop(&self) {
        *self.stop.lock().unwrap_or_else(|e| e.into_inner()) = true;
        self.wake.notify_all();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Gathered> {
        self.gathered.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Takes the client figures of the intervals below `upto` and writes
    /// their CSV rows.
    fn collect(&self, g: &mut Gathered, upto: usize) {
        let clock = self.board.clock();
        let done = self.board.take_below(upto);
        g.clients.extend(done);
        while g.written < upto {
            let ops = g.clients.get(&g.written).map_or(0, |c| c.ops);
            let t_end = (clock.end_of(g.written) - clock.start).as_secs_f64();
            if let Some(csv) = g.csv.as_mut() {
                csv.append(t_end, ops);
            }
            g.written += 1;
        }
    }

    /// After the client threads and [`Sampler::run`] have returned, with
    /// the host's figures at the benchmark's `end`: every interval in order
    /// (the last, partial one only when an operation finished in it).
    pub fn finish(self, end: Point) -> Vec<Interval> {
        let clock = self.board.clock();
        let last = clock.index_of(end.at);
        let mut g = self.lock();
        let rest = self.board.take_below(usize::MAX);
        g.clients.extend(rest);
        // Full intervals only get a CSV row, as in db_bench.
        self.collect(&mut g, last);
        assemble(clock, &self.start, &g.ticks, &end, &g.clients)
    }
}

/// Joins the host's figures (`ticks` by interval, `start` and `end` of the
/// benchmark) and the clients' into the intervals `0..=` the one `end`
/// falls in; the last only when it has operations. An interval without a
/// tick of its own carries the latest figures before it (the end's, for
/// the last).
pub fn assemble(
    clock: Clock,
    start: &Point,
    ticks: &BTreeMap<usize, Point>,
    end: &Point,
    clients: &BTreeMap<usize, ClientFigures>,
) -> Vec<Interval> {
    let last = clock.index_of(end.at);
    let none = ClientFigures::default();
    let mut prev = start;
    let mut out = Vec::new();
    for j in 0..=last {
        let c = clients.get(&j).unwrap_or(&none);
        let (p, t_end) = if j == last {
            if c.ops == 0 {
                break;
            }
            (
                end,
                end.at.saturating_duration_since(clock.start).as_secs_f64(),
            )
        } else {
            let p = ticks
                .get(&j)
                .or_else(|| ticks.range(..j).next_back().map(|(_, p)| p))
                .unwrap_or(start);
            (p, (clock.end_of(j) - clock.start).as_secs_f64())
        };
        let t_start = (clock.period * j as u32).as_secs_f64();
        let length = (t_end - t_start).max(1e-9);
        out.push(Interval {
            t_end_s: t_end,
            ops: c.ops,
            ops_per_sec: c.ops as f64 / length,
            latency: c
                .latency
                .iter()
                .map(|(op, l)| (op.name().to_string(), *l))
                .collect(),
            max_gap_ms: c.max_gap.as_secs_f64() * 1e3,
            behind_schedule_ms: c.behind.as_secs_f64() * 1e3,
            stall_micros: match (p.engine.stall_micros, prev.engine.stall_micros) {
                (Some(now), Some(before)) => Some(now.saturating_sub(before)),
                (Some(now), None) => Some(now),
                _ => None,
            },
            l0_files: p.engine.l0_files,
            pending_compaction_bytes: p.engine.pending_compaction_bytes,
            disk_bytes: p.disk_bytes,
            rss_bytes: p.resident.rss_bytes,
            rss_file_bytes: p.resident.file_bytes,
        });
        prev = p;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn point(at: Instant, stall: Option<u64>, disk: u64) -> Point {
        Point {
            at,
            engine: EngineSample {
                l0_files: Some(disk / 10),
                pending_compaction_bytes: None,
                stall_micros: stall,
            },
            disk_bytes: disk,
            resident: Resident {
                rss_bytes: 1000 + disk,
                file_bytes: 400,
            },
        }
    }

    #[test]
    fn intervals_join_ticks_and_clients() {
        let t0 = Instant::now();
        let s = Duration::from_secs;
        let clock = Clock {
            start: t0,
            period: s(1),
        };
        let start = point(t0, Some(100), 0);
        // Interval 1's tick was overslept: it carries interval 0's figures.
        let ticks: BTreeMap<usize, Point> = [
            (0, point(t0 + s(1), Some(150), 10)),
            (2, point(t0 + s(3), Some(400), 30)),
        ]
        .into();
        let end = point(t0 + Duration::from_millis(3500), Some(450), 40);
        let fig = |ops, gap_ms| ClientFigures {
            ops,
            max_gap: Duration::from_millis(gap_ms),
            ..ClientFigures::default()
        };
        let clients: BTreeMap<usize, ClientFigures> =
            [(0, fig(100, 2)), (2, fig(300, 900)), (3, fig(50, 1))].into();
        let v = assemble(clock, &start, &ticks, &end, &clients);
        let col = |f: fn(&Interval) -> f64| v.iter().map(f).collect::<Vec<_>>();
        assert_eq!(col(|i| i.t_end_s), [1.0, 2.0, 3.0, 3.5]);
        assert_eq!(col(|i| i.ops as f64), [100.0, 0.0, 300.0, 50.0]);
        assert_eq!(col(|i| i.ops_per_sec), [100.0, 0.0, 300.0, 100.0]);
        assert_eq!(col(|i| i.max_gap_ms), [2.0, 0.0, 900.0, 1.0]);
        let stalls: Vec<_> = v.iter().map(|i| i.stall_micros).collect();
        assert_eq!(stalls, [Some(50), Some(0), Some(250), Some(50)]);
        assert_eq!(col(|i| i.disk_bytes as f64), [10.0, 10.0, 30.0, 40.0]);
        assert_eq!(v[3].l0_files, Some(4));
        // No operation in the last, partial interval: no interval.
        let clients: BTreeMap<usize, ClientFigures> = [(0, fig(100, 2))].into();
        let v = assemble(clock, &start, &ticks, &end, &clients);
        assert_eq!(v.len(), 3);
        // An engine without stall figures has none in any interval.
        let quiet = point(t0 + s(1), None, 10);
        let v = assemble(clock, &quiet, &BTreeMap::new(), &quiet, &clients);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].stall_micros, None);
    }
}
