//! The I/O rate limiter for background writes (RocksDB's
//! `NewGenericRateLimiter`, option `rate_limiter_bytes_per_sec`).
//!
//! A token bucket refilled every `refill_period` with
//! `rate x refill_period` bytes. Flush and compaction outputs (table and blob
//! files) ask it for their bytes before writing them, as RocksDB's
//! `WritableFileWriter` does: one request per write buffer (1 MiB with
//! direct I/O, 64 KiB buffered), not per block. Flushes ask at high
//! priority, compactions at low; a file opened while writers are stopped or
//! delayed asks at user priority instead (RocksDB's
//! `GetRateLimiterPriority`), so the jobs that end a stall go first. A
//! request the bucket cannot cover whole waits in its priority's queue; at
//! each refill the queues are served in order: user first, then high before
//! low except one refill in `fairness` (10 by default, as RocksDB), where
//! low goes first so compactions are never starved. A refill
//! tops up a bucket holding less than one refill by one refill, so an idle
//! period banks less than two refills' bytes. WAL writes and reads are not
//! limited (RocksDB's `kWritesOnly` mode with default write options).
//!
//! Auto-tuned (RocksDB's `auto_tuned`, option
//! `rate_limiter_auto_tuned`): the configured rate is a ceiling. The limiter
//! starts at half of it, and every 100 refill periods moves the rate by how
//! often requests found the bucket empty in that window
//! ([`tuned_rate`]): up 5% when more than 90% of the periods drained, down
//! 5% when fewer than half did, to a twentieth of the ceiling when none did.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::error::Result;
use crate::fs::layered::{Layer, Layered};
use crate::fs::WritableFile;
use crate::stats::{Statistics, Ticker};

/// Whose bytes a request is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoPriority {
    /// Compaction outputs.
    Low = 0,
    /// Flush outputs.
    High = 1,
    /// Outputs of a job whose file was opened while writers were stopped or
    /// delayed (RocksDB's `IO_USER`): always served first.
    User = 2,
}

/// Bytes a limited file writes per request with direct I/O (RocksDB's
/// `writable_file_max_buffer_size` default, which its direct-I/O writer
/// grows to).
pub const DIRECT_WRITE_CHUNK: u64 = 1 << 20;
/// Bytes a limited file writes per request with buffered I/O (RocksDB's
/// `WritableFileWriter` initial buffer, which block-sized appends never
/// grow).
pub const BUFFERED_WRITE_CHUNK: u64 = 64 << 10;

/// Refill periods between two auto-tuning steps (RocksDB's
/// `kRefillsPerTune`).
pub const REFILLS_PER_TUNE: u32 = 100;

/// The next rate of an auto-tuned limiter (RocksDB's
/// `GenericRateLimiter::Tune`): `drained_pct` is the share of the refill
/// periods since the last step in which a request found the bucket empty.
/// Above 90% the rate rises 5% (at most `max_rate`); below 50% it falls 5%,
/// and with no drain at all it drops to `max_rate / 20`, never lower.
pub fn tuned_rate(prev_rate: u64, max_rate: u64, drained_pct: u64) -> u64 {
    let floor = max_rate / 20;
    if drained_pct == 0 {
        floor
    } else if drained_pct < 50 {
        floor.max((prev_rate as u128 * 100 / 105) as u64)
    } else if drained_pct > 90 {
        max_rate.min((prev_rate as u128 * 105 / 100) as u64)
    } else {
        prev_rate
    }
}

/// Bytes one refill of `rate` over `period` allows (at least 1).
fn refill_bytes_for(rate: u64, period: Duration) -> u64 {
    ((rate as u128 * period.as_micros()) / 1_000_000).clamp(1, u64::MAX as u128) as u64
}

struct Request {
    id: u64,
    /// Bytes still owed.
    bytes: u64,
}

struct State {
    /// The rate now (the configured one unless auto-tuned).
    rate: u64,
    /// Bytes per refill at `rate`: also the largest single grant.
    refill_bytes: u64,
    available: u64,
    next_refill: Instant,
    /// Waiting requests, `[low, high, user]`, oldest first.
    queues: [VecDeque<Request>; 3],
    next_id: u64,
    /// A waiter is sleeping until the next refill (counted as one drain).
    refill_pending: bool,
    rng: u64,
    drains: u64,
    through: [u64; 3],
    /// When auto-tuning last ran, and the drain count then.
    tuned_at: Instant,
    drains_at_tune: u64,
}

/// A token bucket shared by every background writer of a DB.
pub struct RateLimiter {
    /// The configured rate: the rate, or the ceiling when auto-tuned.
    max_rate: u64,
    auto_tuned: bool,
    refill_period: Duration,
    fairness: u64,
    /// Writers are stopped or delayed (kept by the DB): files opened now
    /// ask at [`IoPriority::User`].
    writes_stalled: AtomicBool,
    state: Mutex<State>,
    cv: Condvar,
}

impl std::fmt::Debug for RateLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimiter")
            .field("max_rate", &self.max_rate)
            .field("auto_tuned", &self.auto_tuned)
            .field("refill_period", &self.refill_period)
            .finish()
    }
}

impl RateLimiter {
    /// A limiter of `rate_bytes_per_sec` (> 0) refilled every
    /// `refill_period_us` microseconds (RocksDB: 100,000), serving low
    /// priority first at one refill in `fairness` (RocksDB: 10).
    #[cfg(test)]
    pub fn new(rate_bytes_per_sec: u64, refill_period_us: u64, fairness: u32) -> Self {
        Self::with_tuning(rate_bytes_per_sec, refill_period_us, fairness, false)
    }

    /// As `RateLimiter::new`; with `auto_tuned`, `rate_bytes_per_sec` is
    /// the ceiling and the limiter starts at half of it (RocksDB's
    /// `NewGenericRateLimiter(..., auto_tuned)`).
    pub fn with_tuning(
        rate_bytes_per_sec: u64,
        refill_period_us: u64,
        fairness: u32,
        auto_tuned: bool,
    ) -> Self {
        let period = Duration::from_micros(refill_period_us.max(1));
        let rate = if auto_tuned {
            (rate_bytes_per_sec / 2).max(1)
        } else {
            rate_bytes_per_sec
        };
        let refill_bytes = refill_bytes_for(rate, period);
        let now = Instant::now();
        RateLimiter {
            max_rate: rate_bytes_per_sec,
            auto_tuned,
            refill_period: period,
            fairness: fairness.max(1) as u64,
            writes_stalled: AtomicBool::new(false),
            state: Mutex::new(State {
                rate,
                refill_bytes,
                available: 0,
                next_refill: now,
                queues: [VecDeque::new(), VecDeque::new(), VecDeque::new()],
                next_id: 0,
                refill_pending: false,
                rng: 0x9E37_79B9_7F4A_7C15,
                drains: 0,
                through: [0, 0, 0],
                tuned_at: now,
                drains_at_tune: 0,
            }),
            cv: Condvar::new(),
        }
    }

    /// The rate now, in bytes per second (below the configured one while
    /// auto-tuning holds it down).
    #[cfg(test)]
    pub fn rate_bytes_per_sec(&self) -> u64 {
        self.state.lock().rate
    }

    /// The most one request may ask for: one refill's bytes at the rate now.
    pub fn single_burst_bytes(&self) -> u64 {
        self.state.lock().refill_bytes
    }

    /// Times a request found the bucket empty and waited for a refill
    /// (RocksDB's `rocksdb.number.rate_limiter.drains`).
    #[cfg(test)]
    pub fn drains(&self) -> u64 {
        self.state.lock().drains
    }

    /// Bytes granted so far at `pri`.
    #[cfg(test)]
    pub fn total_bytes_through(&self, pri: IoPriority) -> u64 {
        self.state.lock().through[pri as usize]
    }

    /// Tells the limiter whether writers are stopped or delayed now.
    pub fn set_writes_stalled(&self, stalled: bool) {
        self.writes_stalled.store(stalled, Ordering::Relaxed);
    }

    /// The priority a file opened now asks at, for a job of priority
    /// `base`: [`IoPriority::User`] while writers are stopped or delayed.
    pub fn priority_for(&self, base: IoPriority) -> IoPriority {
        if self.writes_stalled.load(Ordering::Relaxed) {
            IoPriority::User
        } else {
            base
        }
    }

    /// One auto-tuning step when `REFILLS_PER_TUNE` periods have passed.
    fn maybe_tune(&self, st: &mut State, now: Instant) {
        let since = now.saturating_duration_since(st.tuned_at);
        if !self.auto_tuned || since < self.refill_period * REFILLS_PER_TUNE {
            return;
        }
        let period = self.refill_period.as_nanos();
        let intervals = since.as_nanos().div_ceil(period).max(1);
        let drained_pct = ((st.drains - st.drains_at_tune) as u128 * 100 / intervals) as u64;
        let rate = tuned_rate(st.rate, self.max_rate, drained_pct).max(1);
        st.rate = rate;
        st.refill_bytes = refill_bytes_for(rate, self.refill_period);
        st.tuned_at = now;
        st.drains_at_tune = st.drains;
    }

    /// Blocks until `bytes` (at most [`Self::single_burst_bytes`]; more is
    /// granted as that much) are granted at `pri`. Returns how many drains
    /// this request counted (0 or more).
    pub fn request(&self, bytes: u64, pri: IoPriority) -> u64 {
        let mut st = self.state.lock();
        self.maybe_tune(&mut st, Instant::now());
        let bytes = bytes.min(st.refill_bytes);
        if st.available >= bytes {
            st.available -= bytes;
            st.through[pri as usize] += bytes;
            return 0;
        }
        let id = st.next_id;
        st.next_id += 1;
        st.queues[pri as usize].push_back(Request { id, bytes });
        let mut drains = 0;
        loop {
            if !st.queues[pri as usize].iter().any(|r| r.id == id) {
                return drains;
            }
            let now = Instant::now();
            if now < st.next_refill {
                let wait = st.next_refill - now;
                if st.refill_pending {
                    self.cv.wait_for(&mut st, wait);
                } else {
                    st.refill_pending = true;
                    st.drains += 1;
                    drains += 1;
                    self.cv.wait_for(&mut st, wait);
                    st.refill_pending = false;
                }
            } else {
                self.refill_and_grant(&mut st, now);
                self.cv.notify_all();
            }
        }
    }

    fn refill_and_grant(&self, st: &mut State, now: Instant) {
        st.next_refill = now + self.refill_period;
        // As RocksDB: what is left of the last period carries over, but
        // only a bucket below one refill is topped up.
        if st.available < st.refill_bytes {
            st.available += st.refill_bytes;
        }
        // xorshift64: one refill in `fairness` serves low priority first.
        st.rng ^= st.rng << 13;
        st.rng ^= st.rng >> 7;
        st.rng ^= st.rng << 17;
        let low_first = st.rng.is_multiple_of(self.fairness);
        let order = if low_first { [2, 0, 1] } else { [2, 1, 0] };
        for q in order {
            while let Some(front) = st.queues[q].front_mut() {
                if st.available < front.bytes {
                    // A partial grant, so that a request larger than a
                    // refill (after the rate fell) is not starved.
                    front.bytes -= st.available;
                    st.through[q] += st.available;
                    st.available = 0;
                    break;
                }
                st.available -= front.bytes;
                st.through[q] += front.bytes;
                st.queues[q].pop_front();
            }
        }
    }
}

/// The [`Layer`] that takes its file's bytes from a [`RateLimiter`] one
/// write buffer (`chunk` bytes) at a time, before the data that fills the
/// buffer goes on, and the rest at `flush` or `sync`; requests larger than
/// a burst are split.
pub struct RateLimited {
    limiter: Arc<RateLimiter>,
    pri: IoPriority,
    chunk: u64,
    /// Bytes appended but not yet paid for.
    unpaid: u64,
    stats: Option<Arc<Statistics>>,
}

impl RateLimited {
    /// Pays `chunk` bytes per request at `pri`; drains are counted in
    /// `stats` when given.
    pub fn new(
        limiter: Arc<RateLimiter>,
        pri: IoPriority,
        chunk: u64,
        stats: Option<Arc<Statistics>>,
    ) -> Self {
        RateLimited {
            limiter,
            pri,
            chunk: chunk.max(1),
            unpaid: 0,
            stats,
        }
    }

    fn pay(&mut self, mut bytes: u64) {
        while bytes > 0 {
            let piece = bytes.min(self.limiter.single_burst_bytes().max(1));
            let drains = self.limiter.request(piece, self.pri);
            if let (Some(s), true) = (&self.stats, drains > 0) {
                s.record_tick(Ticker::NumberRateLimiterDrains, drains);
            }
            bytes -= piece;
        }
    }

    fn pay_unpaid(&mut self) {
        let owed = std::mem::take(&mut self.unpaid);
        self.pay(owed);
    }
}

impl Layer for RateLimited {
    fn append(&mut self, inner: &mut dyn WritableFile, data: &[u8]) -> Result<()> {
        self.unpaid += data.len() as u64;
        let whole = self.unpaid / self.chunk * self.chunk;
        if whole > 0 {
            self.unpaid -= whole;
            let mut left = whole;
            while left > 0 {
                self.pay(self.chunk);
                left -= self.chunk;
            }
        }
        inner.append(data)
    }

    fn flush(&mut self, inner: &mut dyn WritableFile) -> Result<()> {
        self.pay_unpaid();
        inner.flush()
    }

    fn sync(&mut self, inner: &mut dyn WritableFile) -> Result<()> {
        self.pay_unpaid();
        inner.sync()
    }
}

/// Wraps `file` in `limit` (a limiter and the job's priority) when there is
/// one. The file asks at [`RateLimiter::priority_for`] that priority, decided
/// now, in chunks of its write buffer: [`DIRECT_WRITE_CHUNK`] when `direct`,
/// else [`BUFFERED_WRITE_CHUNK`].
pub fn limit_writes(
    file: Box<dyn WritableFile>,
    limit: Option<&(Arc<RateLimiter>, IoPriority)>,
    direct: bool,
    stats: Option<&Arc<Statistics>>,
) -> Box<dyn WritableFile> {
    match limit {
        Some((l, pri)) => {
            let chunk = if direct {
                DIRECT_WRITE_CHUNK
            } else {
                BUFFERED_WRITE_CHUNK
            };
            let layer = RateLimited::new(l.clone(), l.priority_for(*pri), chunk, stats.cloned());
            Box::new(Layered::new(file, layer))
        }
        None => file,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_is_held_over_many_refills() {
        // 1 MB/s, 10 ms refills: 300 KB beyond the first burst take ~0.29 s.
        let l = RateLimiter::new(1 << 20, 10_000, 10);
        let burst = l.single_burst_bytes();
        assert_eq!(burst, 10_485);
        let t = Instant::now();
        let mut left = 300_000 + burst;
        while left > 0 {
            let n = left.min(burst);
            l.request(n, IoPriority::Low);
            left -= n;
        }
        let secs = t.elapsed().as_secs_f64();
        let expect = 300_000.0 / (1u64 << 20) as f64;
        assert!(secs >= expect * 0.9, "{secs} < {expect}");
        assert!(secs < expect * 3.0 + 0.2, "{secs} far above {expect}");
        assert_eq!(l.total_bytes_through(IoPriority::Low), 300_000 + burst);
        assert!(l.drains() >= 20, "{}", l.drains());
    }

    #[test]
    fn an_oversized_request_is_granted_as_one_burst() {
        let l = RateLimiter::new(1000, 100_000, 10);
        assert_eq!(l.single_burst_bytes(), 100);
        assert_eq!(l.request(1_000_000, IoPriority::High), 0);
        assert_eq!(l.total_bytes_through(IoPriority::High), 100);
    }

    #[test]
    fn high_priority_is_served_first_but_low_is_not_starved() {
        // One burst per 5 ms refill; a high and a low writer each want 60
        // bursts. High finishes first; low still gets about one refill in ten
        // while high is queued.
        let l = Arc::new(RateLimiter::new(2_000_000, 5_000, 10));
        let burst = l.single_burst_bytes();
        l.request(burst, IoPriority::Low); // empty the bucket
        let run = |pri| {
            let l = l.clone();
            std::thread::spawn(move || {
                for _ in 0..60 {
                    l.request(burst, pri);
                }
                Instant::now()
            })
        };
        let hi = run(IoPriority::High);
        let lo = run(IoPriority::Low);
        let (hi_done, lo_done) = (hi.join().unwrap(), lo.join().unwrap());
        assert!(hi_done < lo_done, "high finished after low");
        assert_eq!(l.total_bytes_through(IoPriority::High), 60 * burst);
    }

    #[test]
    fn limited_file_writes_everything_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let fs = crate::fs::PosixFileSystem;
        let path = dir.path().join("f");
        let f = crate::fs::FileSystem::create(&fs, &path).unwrap();
        let stats = Statistics::new();
        let limiter = Arc::new(RateLimiter::new(100_000, 10_000, 10));
        let mut w = limit_writes(
            f,
            Some(&(limiter.clone(), IoPriority::Low)),
            false,
            Some(&stats),
        );
        let data: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        w.append(&data).unwrap();
        w.sync().unwrap();
        assert_eq!(w.size(), 5000);
        assert_eq!(std::fs::read(&path).unwrap(), data);
        assert_eq!(limiter.total_bytes_through(IoPriority::Low), 5000);
        assert_eq!(
            stats.ticker(Ticker::NumberRateLimiterDrains),
            limiter.drains()
        );
        assert!(limiter.drains() >= 3);
    }

    #[test]
    fn tuning_steps_follow_the_drained_share() {
        let max = 100_000_000;
        // No drain at all: straight to the floor, a twentieth.
        assert_eq!(tuned_rate(50_000_000, max, 0), 5_000_000);
        // Few drains: 5% down, never below the floor.
        assert_eq!(tuned_rate(50_000_000, max, 49), 47_619_047);
        assert_eq!(tuned_rate(5_100_000, max, 10), 5_000_000);
        // 50-90%: unchanged.
        assert_eq!(tuned_rate(50_000_000, max, 50), 50_000_000);
        assert_eq!(tuned_rate(50_000_000, max, 90), 50_000_000);
        // Nearly always drained: 5% up, never above the ceiling.
        assert_eq!(tuned_rate(50_000_000, max, 91), 52_500_000);
        assert_eq!(tuned_rate(99_000_000, max, 100), max);
    }

    #[test]
    fn auto_tuned_limiter_starts_at_half_and_steps_by_its_drains() {
        // 10 MB/s ceiling, 10 ms refills: a tuning step every second. The
        // steps are driven with explicit times and drain counts, so the
        // test does not depend on how promptly sleeping threads wake.
        let l = RateLimiter::with_tuning(10_000_000, 10_000, 10, true);
        assert_eq!(l.rate_bytes_per_sec(), 5_000_000);
        assert_eq!(l.single_burst_bytes(), 50_000);
        let step = Duration::from_millis(10) * REFILLS_PER_TUNE;
        let mut st = l.state.lock();
        let t0 = st.tuned_at;
        // Not a whole step yet: nothing changes.
        st.drains += 100;
        l.maybe_tune(&mut st, t0 + step / 2);
        assert_eq!(st.rate, 5_000_000);
        // Every period of the step drained: 5% up, and the burst with it.
        l.maybe_tune(&mut st, t0 + step);
        assert_eq!(st.rate, 5_250_000);
        assert_eq!(st.refill_bytes, 52_500);
        // 70 of 100 periods drained: unchanged.
        st.drains += 70;
        l.maybe_tune(&mut st, t0 + step * 2);
        assert_eq!(st.rate, 5_250_000);
        // 10 of 100: 5% down.
        st.drains += 10;
        l.maybe_tune(&mut st, t0 + step * 3);
        assert_eq!(st.rate, 5_000_000);
        // A step and a half with no drain: the floor, a twentieth.
        l.maybe_tune(&mut st, t0 + step * 9 / 2);
        assert_eq!(st.rate, 500_000);
        // Never above the ceiling.
        for k in 5..200 {
            st.drains += 1_000;
            l.maybe_tune(&mut st, t0 + step * k);
        }
        assert_eq!(st.rate, 10_000_000);
    }

    #[test]
    fn an_idle_auto_tuned_limiter_falls_to_the_floor_at_its_next_request() {
        // 1 ms refills: a tuning step every 100 ms.
        let l = RateLimiter::with_tuning(10_000_000, 1_000, 10, true);
        std::thread::sleep(Duration::from_millis(120));
        l.request(1, IoPriority::Low);
        assert_eq!(l.rate_bytes_per_sec(), 500_000);
    }

    #[test]
    fn a_fixed_limiter_never_tunes() {
        let l = RateLimiter::new(10_000_000, 1_000, 10);
        std::thread::sleep(Duration::from_millis(150)); // 150 periods
        l.request(1, IoPriority::Low);
        assert_eq!(l.rate_bytes_per_sec(), 10_000_000);
    }

    #[test]
    fn user_priority_goes_before_high_at_every_refill() {
        // Queue a high and a user request behind an empty bucket; the refill
        // covers only one of them, and it must be the user one.
        let l = Arc::new(RateLimiter::new(1_000_000, 50_000, 1_000_000));
        let burst = l.single_burst_bytes();
        l.request(burst, IoPriority::Low); // empty the bucket
        let order = Arc::new(Mutex::new(Vec::new()));
        let go = |pri: IoPriority| {
            let (l, order) = (l.clone(), order.clone());
            std::thread::spawn(move || {
                l.request(burst, pri);
                order.lock().push(pri);
            })
        };
        let hi = go(IoPriority::High);
        std::thread::sleep(Duration::from_millis(10));
        let user = go(IoPriority::User);
        hi.join().unwrap();
        user.join().unwrap();
        assert_eq!(*order.lock(), vec![IoPriority::User, IoPriority::High]);
    }

    #[test]
    fn files_opened_during_a_stall_ask_at_user_priority() {
        let l = RateLimiter::new(1_000_000, 10_000, 10);
        assert_eq!(l.priority_for(IoPriority::Low), IoPriority::Low);
        l.set_writes_stalled(true);
        assert_eq!(l.priority_for(IoPriority::Low), IoPriority::User);
        assert_eq!(l.priority_for(IoPriority::High), IoPriority::User);
        l.set_writes_stalled(false);
        assert_eq!(l.priority_for(IoPriority::High), IoPriority::High);
    }

    #[test]
    fn a_request_that_does_not_fit_waits_whole_and_leaves_the_rest() {
        // 100 ms refills of 10,000 bytes.
        let l = RateLimiter::new(100_000, 100_000, 10);
        assert_eq!(l.request(2_000, IoPriority::Low), 0); // first refill: 8,000 left
        std::thread::sleep(Duration::from_millis(120));
        // 10,000 does not fit in 8,000: it waits for the refill, which is
        // due, and takes its bytes from the 8,000 plus the refill.
        assert_eq!(l.request(10_000, IoPriority::Low), 0);
        assert_eq!(l.total_bytes_through(IoPriority::Low), 12_000);
        // The 8,000 left are granted without waiting.
        let t = Instant::now();
        assert_eq!(l.request(8_000, IoPriority::Low), 0);
        assert!(t.elapsed() < Duration::from_millis(50));
        // Now the bucket is empty.
        assert_eq!(l.request(1, IoPriority::Low), 1);
    }

    #[test]
    fn a_waiting_request_takes_no_partial_grant() {
        // A low request larger than what is left waits whole: the 8,000
        // left stay in the bucket for a request that fits, here a later
        // high one, which is granted at once.
        let l = Arc::new(RateLimiter::new(100_000, 100_000, 10));
        assert_eq!(l.request(2_000, IoPriority::Low), 0); // 8,000 left
        let low = {
            let l = l.clone();
            std::thread::spawn(move || l.request(10_000, IoPriority::Low))
        };
        std::thread::sleep(Duration::from_millis(10));
        let t = Instant::now();
        assert_eq!(l.request(8_000, IoPriority::High), 0);
        assert!(t.elapsed() < Duration::from_millis(50), "{:?}", t.elapsed());
        assert_eq!(low.join().unwrap(), 1);
        assert_eq!(l.total_bytes_through(IoPriority::Low), 12_000);
    }

    #[test]
    fn limited_files_ask_once_per_write_buffer() {
        // A burst larger than the chunk: each request is one chunk, so the
        // bytes granted move in whole chunks until sync pays the rest.
        let dir = tempfile::tempdir().unwrap();
        let fs = crate::fs::PosixFileSystem;
        let limiter = Arc::new(RateLimiter::new(1 << 30, 100_000, 10));
        let f = crate::fs::FileSystem::create(&fs, &dir.path().join("f")).unwrap();
        let mut w = limit_writes(f, Some(&(limiter.clone(), IoPriority::High)), false, None);
        let block = vec![1u8; 4096];
        for _ in 0..15 {
            w.append(&block).unwrap();
        }
        // 60 KiB appended: less than a chunk, nothing asked yet.
        assert_eq!(limiter.total_bytes_through(IoPriority::High), 0);
        w.append(&block).unwrap();
        assert_eq!(
            limiter.total_bytes_through(IoPriority::High),
            BUFFERED_WRITE_CHUNK
        );
        w.append(&block[..100]).unwrap();
        w.sync().unwrap();
        assert_eq!(
            limiter.total_bytes_through(IoPriority::High),
            BUFFERED_WRITE_CHUNK + 100
        );
    }
}
