//! The client side of `--report_interval_seconds`: each thread sorts its
//! operations into fixed intervals of the benchmark by completion time and
//! hands each interval's figures to a shared [`Board`] once, when its first
//! operation past the interval completes (one lock per thread and interval,
//! none per operation; the histograms are reset and reused, not
//! reallocated). The board merges the threads' figures of an interval and
//! turns them into a summary once every thread has moved past it.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use hdrhistogram::Histogram as Hdr;
use serde::Serialize;

use crate::stats::{new_hdr, OpType};

/// The intervals of one benchmark: from `start`, each `period` long.
#[derive(Debug, Clone, Copy)]
pub struct Clock {
    /// The benchmark's start.
    pub start: Instant,
    /// The length of one interval.
    pub period: Duration,
}

impl Clock {
    /// The interval `t` falls in (0 for the first).
    pub fn index_of(&self, t: Instant) -> usize {
        let since = t.saturating_duration_since(self.start).as_nanos();
        (since / self.period.as_nanos().max(1)) as usize
    }

    /// When interval `i` ends.
    pub fn end_of(&self, i: usize) -> Instant {
        self.start + self.period * (i as u32 + 1)
    }
}

/// Latency of one op kind within an interval, in microseconds.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct KindLatency {
    /// Operations timed (a write batch is one).
    pub count: u64,
    /// P50.
    pub p50_us: f64,
    /// P99.
    pub p99_us: f64,
    /// P99.9.
    pub p99_9_us: f64,
    /// Maximum.
    pub max_us: f64,
}

impl KindLatency {
    fn of(h: &Hdr<u64>) -> Self {
        let q = |p: f64| h.value_at_quantile(p) as f64 / 1000.0;
        Self {
            count: h.len(),
            p50_us: q(0.50),
            p99_us: q(0.99),
            p99_9_us: q(0.999),
            max_us: h.max() as f64 / 1000.0,
        }
    }
}

/// What the client threads did in one interval, merged.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClientFigures {
    /// Operations finished in the interval.
    pub ops: u64,
    /// Latency per op kind.
    pub latency: BTreeMap<OpType, KindLatency>,
    /// The longest time a thread had an operation due without finishing
    /// one, ending in the interval: from its last completion, or from the
    /// scheduled start of the operation that ended the gap when that came
    /// later (a paced thread waiting for its next slot is not stalled).
    pub max_gap: Duration,
    /// The largest lag behind schedule of a thread at its last completion
    /// in the interval.
    pub behind: Duration,
}

/// One thread's (or, merged, all threads') raw figures of an interval.
#[derive(Debug, Default)]
struct Slice {
    ops: u64,
    hist: Vec<(OpType, Hdr<u64>)>,
    max_gap: Duration,
    behind: Duration,
}

impl Slice {
    fn record(&mut self, op: OpType, nanos: u64) {
        let h = match self.hist.iter().position(|(o, _)| *o == op) {
            Some(i) => &mut self.hist[i].1,
            None => {
                // Once per op kind and thread: later intervals reuse it.
                self.hist.push((op, new_hdr()));
                &mut self.hist.last_mut().expect("just pushed").1
            }
        };
        h.saturating_record(nanos.max(1));
    }

    fn merge(&mut self, other: &Slice) {
        self.ops += other.ops;
        self.max_gap = self.max_gap.max(other.max_gap);
        self.behind = self.behind.max(other.behind);
        for (op, h) in &other.hist {
            if h.is_empty() {
                continue;
            }
            match self.hist.iter_mut().find(|(o, _)| o == op) {
                // Same bounds on both sides: add cannot fail.
                Some((_, mine)) => {
                    let _ = mine.add(h);
                }
                None => self.hist.push((*op, h.clone())),
            }
        }
    }

    fn reset(&mut self) {
        self.ops = 0;
        self.max_gap = Duration::ZERO;
        self.behind = Duration::ZERO;
        for (_, h) in &mut self.hist {
            h.reset();
        }
    }

    fn figures(&self) -> ClientFigures {
        ClientFigures {
            ops: self.ops,
            latency: self
                .hist
                .iter()
                .filter(|(_, h)| !h.is_empty())
                .map(|(op, h)| (*op, KindLatency::of(h)))
                .collect(),
            max_gap: self.max_gap,
            behind: self.behind,
        }
    }
}

#[derive(Debug, Default)]
struct BoardState {
    /// Merged figures of the intervals not summarized yet.
    open: BTreeMap<usize, Slice>,
    /// Per thread: the interval it records now (`usize::MAX`: done).
    at: Vec<usize>,
}

/// Where the threads of one benchmark hand in their intervals.
#[derive(Debug)]
pub struct Board {
    clock: Clock,
    state: Mutex<BoardState>,
}

impl Board {
    /// A board for `threads` threads.
    pub fn new(clock: Clock, threads: usize) -> Self {
        Self {
            clock,
            state: Mutex::new(BoardState {
                open: BTreeMap::new(),
                at: vec![0; threads],
            }),
        }
    }

    /// The intervals' clock.
    pub fn clock(&self) -> Clock {
        self.clock
    }

    /// A recorder for thread `tid` (its first interval starts at the
    /// clock's start).
    pub fn recorder(&self, tid: usize) -> Recorder<'_> {
        Recorder {
            board: self,
            tid,
            index: 0,
            boundary: self.clock.end_of(0),
            last_finish: self.clock.start,
            slice: Slice::default(),
        }
    }

    fn hand_in(&self, tid: usize, index: usize, slice: &Slice, next: usize) {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if slice.ops > 0 {
            st.open.entry(index).or_default().merge(slice);
        }
        if let Some(a) = st.at.get_mut(tid) {
            *a = next;
        }
    }

    /// The lowest interval some thread still records (`usize::MAX` when all
    /// are done): every interval below it is complete.
    pub fn complete_below(&self) -> usize {
        let st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        st.at.iter().copied().min().unwrap_or(usize::MAX)
    }

    /// Summarizes and removes the intervals below `end` (those with no
    /// operation are absent).
    pub fn take_below(&self, end: usize) -> BTreeMap<usize, ClientFigures> {
        let mut st = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let rest = st.open.split_off(&end);
        let done = std::mem::replace(&mut st.open, rest);
        done.into_iter().map(|(i, s)| (i, s.figures())).collect()
    }
}

/// One thread's side: the interval it is in, and its figures so far.
/// Dropping it hands in the last interval and marks the thread done.
#[derive(Debug)]
pub struct Recorder<'a> {
    board: &'a Board,
    tid: usize,
    index: usize,
    boundary: Instant,
    last_finish: Instant,
    slice: Slice,
}

impl Recorder<'_> {
    /// Records `n` operations of kind `op` that finished at `now` after
    /// `nanos`, the thread `behind` its schedule.
    pub fn record(&mut self, now: Instant, nanos: u64, n: u64, op: OpType, behind: Duration) {
        if now >= self.boundary {
            let next = self.board.clock.index_of(now);
            self.board.hand_in(self.tid, self.index, &self.slice, next);
            self.slice.reset();
            self.index = next;
            self.boundary = self.board.clock.end_of(next);
        }
        let s = &mut self.slice;
        s.ops += n;
        s.record(op, nanos);
        // `nanos` runs from the operation's scheduled start (its actual
        // start when not paced), so the shorter of the two is the time
        // the thread had work due and finished none.
        let due = now
            .saturating_duration_since(self.last_finish)
            .min(Duration::from_nanos(nanos));
        s.max_gap = s.max_gap.max(due);
        s.behind = behind;
        self.last_finish = now;
    }
}

impl Drop for Recorder<'_> {
    fn drop(&mut self) {
        self.board
            .hand_in(self.tid, self.index, &self.slice, usize::MAX);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn threads_figures_merge_per_interval_and_complete_when_all_moved_on() {
        let t0 = Instant::now();
        let clock = Clock {
            start: t0,
            period: Duration::from_secs(1),
        };
        let board = Board::new(clock, 2);
        let ms = Duration::from_millis;
        let mut a = board.recorder(0);
        let mut b = board.recorder(1);
        a.record(t0 + ms(100), 1_000, 1, OpType::Read, ms(0));
        a.record(t0 + ms(900), 2_000, 1, OpType::Read, ms(2));
        b.record(t0 + ms(500), 50_000, 10, OpType::Write, ms(0));
        // a moves to interval 2 (an op of 1.3 s, ending there); b stays.
        a.record(t0 + ms(2200), 1_300_000_000, 1, OpType::Read, ms(0));
        assert_eq!(board.complete_below(), 0);
        assert!(board.take_below(board.complete_below()).is_empty());
        b.record(t0 + ms(1500), 60_000, 10, OpType::Write, ms(0));
        assert_eq!(board.complete_below(), 1);
        let first = board.take_below(1);
        let i0 = &first[&0];
        assert_eq!(i0.ops, 12);
        assert_eq!(i0.latency[&OpType::Read].count, 2);
        assert_eq!(i0.latency[&OpType::Write].count, 1);
        assert!((i0.latency[&OpType::Write].max_us - 50.0).abs() < 0.05);
        assert_eq!(
            i0.max_gap,
            Duration::from_micros(50),
            "the longest op: each started after the thread's last completion"
        );
        assert_eq!(i0.behind, ms(2));
        drop(a);
        drop(b);
        assert_eq!(board.complete_below(), usize::MAX);
        let rest = board.take_below(usize::MAX);
        assert_eq!(rest.keys().copied().collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(rest[&1].ops, 10);
        assert_eq!(rest[&2].max_gap, ms(1300));
        assert!((rest[&2].latency[&OpType::Read].max_us - 1_300_000.0).abs() < 1_000.0);
    }

    /// Under pacing the time between completions includes the wait for
    /// the next slot; a gap counts only while an operation was due.
    #[test]
    fn a_paced_threads_wait_for_its_slot_is_no_gap() {
        let t0 = Instant::now();
        let clock = Clock {
            start: t0,
            period: Duration::from_secs(10),
        };
        let board = Board::new(clock, 1);
        let ms = Duration::from_millis;
        let nanos = |d: Duration| d.as_nanos() as u64;
        let mut a = board.recorder(0);
        a.record(t0 + ms(100), nanos(ms(1)), 1, OpType::Write, ms(0));
        // Idle 0.1 s to 0.899 s waiting for its slot; the op took 1 ms.
        a.record(t0 + ms(900), nanos(ms(1)), 1, OpType::Write, ms(0));
        drop(a);
        assert_eq!(board.take_below(usize::MAX)[&0].max_gap, ms(1));

        let board = Board::new(clock, 1);
        let mut a = board.recorder(0);
        a.record(t0 + ms(900), nanos(ms(1)), 1, OpType::Write, ms(0));
        // Scheduled at 1.1 s, finished at 1.5 s: a stall of 0.4 s.
        a.record(t0 + ms(1500), nanos(ms(400)), 1, OpType::Write, ms(0));
        // Scheduled at 1.15 s, behind: due since the last completion.
        a.record(t0 + ms(1600), nanos(ms(450)), 1, OpType::Write, ms(450));
        drop(a);
        assert_eq!(board.take_below(usize::MAX)[&0].max_gap, ms(400));
    }

    #[test]
    fn clock_indexes_by_period() {
        let t0 = Instant::now();
        let c = Clock {
            start: t0,
            period: Duration::from_secs(2),
        };
        assert_eq!(c.index_of(t0), 0);
        assert_eq!(c.index_of(t0 + Duration::from_millis(1999)), 0);
        assert_eq!(c.index_of(t0 + Duration::from_secs(2)), 1);
        assert_eq!(c.end_of(1), t0 + Duration::from_secs(4));
    }
}
