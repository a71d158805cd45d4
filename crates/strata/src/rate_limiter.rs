//! The I/O rate limiter for background writes (RocksDB's
//! `NewGenericRateLimiter`, option `rate_limiter_bytes_per_sec`).
//!
//! A token bucket refilled every `refill_period` with
//! `rate x refill_period` bytes. Flush and compaction outputs (table and blob
//! files) ask it for their bytes before appending them: flushes at high
//! priority, compactions at low. A request the bucket cannot cover waits in
//! its priority's queue; at each refill the queues are served in order, high
//! first except one refill in `fairness` (10 by default, as RocksDB), where
//! low goes first so compactions are never starved. Unused bytes do not pile
//! up beyond one refill, so an idle period does not allow a later burst.
//! WAL writes and reads are not limited (RocksDB's `kWritesOnly` mode with
//! default write options).

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex};

use crate::error::Result;
use crate::fs::WritableFile;
use crate::stats::{Statistics, Ticker};

/// Whose bytes a request is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IoPriority {
    /// Compaction outputs.
    Low = 0,
    /// Flush outputs.
    High = 1,
}

struct Request {
    id: u64,
    /// Bytes still owed.
    bytes: u64,
}

struct State {
    available: u64,
    next_refill: Instant,
    /// Waiting requests, `[low, high]`, oldest first.
    queues: [VecDeque<Request>; 2],
    next_id: u64,
    /// A waiter is sleeping until the next refill (counted as one drain).
    refill_pending: bool,
    rng: u64,
    drains: u64,
    through: [u64; 2],
}

/// A token bucket shared by every background writer of a DB.
pub struct RateLimiter {
    rate_bytes_per_sec: u64,
    refill_period: Duration,
    refill_bytes: u64,
    fairness: u64,
    state: Mutex<State>,
    cv: Condvar,
}

impl std::fmt::Debug for RateLimiter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RateLimiter")
            .field("rate_bytes_per_sec", &self.rate_bytes_per_sec)
            .field("refill_period", &self.refill_period)
            .finish()
    }
}

impl RateLimiter {
    /// A limiter of `rate_bytes_per_sec` (> 0) refilled every
    /// `refill_period_us` microseconds (RocksDB: 100,000), serving low
    /// priority first at one refill in `fairness` (RocksDB: 10).
    pub fn new(rate_bytes_per_sec: u64, refill_period_us: u64, fairness: u32) -> Self {
        let period = Duration::from_micros(refill_period_us.max(1));
        let refill_bytes = ((rate_bytes_per_sec as u128 * period.as_micros()) / 1_000_000)
            .clamp(1, u64::MAX as u128) as u64;
        RateLimiter {
            rate_bytes_per_sec,
            refill_period: period,
            refill_bytes,
            fairness: fairness.max(1) as u64,
            state: Mutex::new(State {
                available: refill_bytes,
                next_refill: Instant::now() + period,
                queues: [VecDeque::new(), VecDeque::new()],
                next_id: 0,
                refill_pending: false,
                rng: 0x9E37_79B9_7F4A_7C15,
                drains: 0,
                through: [0, 0],
            }),
            cv: Condvar::new(),
        }
    }

    /// The rate, in bytes per second.
    pub fn rate_bytes_per_sec(&self) -> u64 {
        self.rate_bytes_per_sec
    }

    /// The most one request may ask for: one refill's bytes.
    pub fn single_burst_bytes(&self) -> u64 {
        self.refill_bytes
    }

    /// Times a request found the bucket empty and waited for a refill
    /// (RocksDB's `rocksdb.number.rate_limiter.drains`).
    pub fn drains(&self) -> u64 {
        self.state.lock().drains
    }

    /// Bytes granted so far at `pri`.
    pub fn total_bytes_through(&self, pri: IoPriority) -> u64 {
        self.state.lock().through[pri as usize]
    }

    /// Blocks until `bytes` (at most [`Self::single_burst_bytes`]; more is
    /// granted as that much) are granted at `pri`. Returns how many drains
    /// this request counted (0 or more).
    pub fn request(&self, bytes: u64, pri: IoPriority) -> u64 {
        let mut bytes = bytes.min(self.refill_bytes);
        let mut st = self.state.lock();
        let now_through = st.available.min(bytes);
        st.available -= now_through;
        st.through[pri as usize] += now_through;
        bytes -= now_through;
        if bytes == 0 {
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
        st.available = self.refill_bytes;
        // xorshift64: one refill in `fairness` serves low priority first.
        st.rng ^= st.rng << 13;
        st.rng ^= st.rng >> 7;
        st.rng ^= st.rng << 17;
        let low_first = st.rng.is_multiple_of(self.fairness);
        let order = if low_first { [0, 1] } else { [1, 0] };
        for q in order {
            while let Some(front) = st.queues[q].front_mut() {
                if st.available < front.bytes {
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

/// A [`WritableFile`] whose appends first take their bytes from a
/// [`RateLimiter`], in pieces of at most one burst.
pub struct RateLimitedWritable {
    inner: Box<dyn WritableFile>,
    limiter: Arc<RateLimiter>,
    pri: IoPriority,
    stats: Option<Arc<Statistics>>,
}

impl RateLimitedWritable {
    /// Wraps `inner`; drains are counted in `stats` when given.
    pub fn new(
        inner: Box<dyn WritableFile>,
        limiter: Arc<RateLimiter>,
        pri: IoPriority,
        stats: Option<Arc<Statistics>>,
    ) -> Self {
        RateLimitedWritable {
            inner,
            limiter,
            pri,
            stats,
        }
    }
}

impl WritableFile for RateLimitedWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        let burst = self.limiter.single_burst_bytes().max(1) as usize;
        for piece in data.chunks(burst) {
            let drains = self.limiter.request(piece.len() as u64, self.pri);
            if let (Some(s), true) = (&self.stats, drains > 0) {
                s.record_tick(Ticker::NumberRateLimiterDrains, drains);
            }
            self.inner.append(piece)?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        self.inner.flush()
    }

    fn sync(&mut self) -> Result<()> {
        self.inner.sync()
    }

    fn size(&self) -> u64 {
        self.inner.size()
    }
}

/// Wraps `file` in `limit` (a limiter and the priority of its writes) when
/// there is one.
pub fn limit_writes(
    file: Box<dyn WritableFile>,
    limit: Option<&(Arc<RateLimiter>, IoPriority)>,
    stats: Option<&Arc<Statistics>>,
) -> Box<dyn WritableFile> {
    match limit {
        Some((l, pri)) => Box::new(RateLimitedWritable::new(
            file,
            l.clone(),
            *pri,
            stats.cloned(),
        )),
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
        let mut w = limit_writes(f, Some(&(limiter.clone(), IoPriority::Low)), Some(&stats));
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
}
