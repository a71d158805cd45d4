//! Open-loop pacing (`--target_ops_per_sec`, and `--ycsb_target_ops_per_sec`
//! on the ycsb_* benchmarks): a thread's operations are scheduled at even
//! intervals from its start, and each one's latency counts from its
//! scheduled start, so an operation that waits behind a slow one shows that
//! wait (no coordinated omission).

use std::time::{Duration, Instant};

/// Paces one thread at a target rate. Unpaced (rate 0), every call returns
/// at once and the thread is never behind.
#[derive(Debug, Clone)]
pub struct Pacer {
    /// Operations a second; `None`: unpaced.
    rate: Option<f64>,
    /// The schedule's origin: the first operation's slot.
    origin: Instant,
    /// Operations scheduled so far (the next one's slot is `origin + ops / rate`).
    ops: u64,
}

/// The last stretch before a slot is spun, not slept: a sleep overshoots by
/// tens of microseconds, which would count as latency.
const SPIN: Duration = Duration::from_micros(150);

impl Pacer {
    /// A pacer at `ops_per_sec` (0 or less: unpaced), its first slot now.
    pub fn new(ops_per_sec: f64) -> Self {
        Self {
            rate: (ops_per_sec > 0.0 && ops_per_sec.is_finite()).then_some(ops_per_sec),
            origin: Instant::now(),
            ops: 0,
        }
    }

    /// Whether it paces at all.
    pub fn is_paced(&self) -> bool {
        self.rate.is_some()
    }

    /// The scheduled start of the next operation (now when unpaced).
    pub fn next_slot(&self) -> Instant {
        match self.rate {
            Some(r) => self.origin + Duration::from_secs_f64(self.ops as f64 / r),
            None => Instant::now(),
        }
    }

    /// Counts `n` operations as done: the next slot moves `n` steps on.
    pub fn done(&mut self, n: u64) {
        if self.rate.is_some() {
            self.ops += n;
        }
    }

    /// How far `now` is past the next slot: the lag of the operation
    /// stream behind its schedule (zero when on time or unpaced).
    pub fn behind(&self, now: Instant) -> Duration {
        match self.rate {
            Some(_) => now.saturating_duration_since(self.next_slot()),
            None => Duration::ZERO,
        }
    }

    /// Waits for the next slot (not at all when it has passed) and returns
    /// it: the scheduled start of the operation about to begin.
    pub fn wait(&self) -> Instant {
        if self.rate.is_none() {
            return Instant::now();
        }
        let due = self.next_slot();
        let now = Instant::now();
        if due > now + SPIN {
            std::thread::sleep(due - now - SPIN);
        }
        while Instant::now() < due {
            std::hint::spin_loop();
        }
        due
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_paced_thread_keeps_its_schedule() {
        let mut p = Pacer::new(2000.0);
        assert!(p.is_paced());
        let first = p.wait();
        let mut prev = first;
        for _ in 0..20 {
            p.done(1);
            let s = p.wait();
            let step = s - prev;
            assert!(
                step.abs_diff(Duration::from_micros(500)) <= Duration::from_nanos(1),
                "{step:?}"
            );
            prev = s;
        }
        // Scheduled starts run on from the first, not from when each
        // operation happened to begin.
        assert!((prev - first).abs_diff(Duration::from_millis(10)) <= Duration::from_nanos(1));
        assert!(Instant::now() >= prev);
        assert_eq!(p.behind(prev), Duration::ZERO);
    }

    #[test]
    fn a_batch_moves_the_schedule_by_its_size_and_lag_is_measured() {
        let mut p = Pacer::new(1000.0);
        let first = p.wait();
        p.done(10);
        let next = p.next_slot();
        assert!((next - first).abs_diff(Duration::from_millis(10)) <= Duration::from_nanos(1));
        assert_eq!(
            p.behind(next + Duration::from_millis(3)),
            Duration::from_millis(3)
        );
        assert_eq!(p.behind(next - Duration::from_millis(3)), Duration::ZERO);
    }

    #[test]
    fn unpaced_never_waits_nor_lags() {
        let mut p = Pacer::new(0.0);
        assert!(!p.is_paced());
        p.done(1_000_000);
        let t = Instant::now();
        p.wait();
        assert!(t.elapsed() < Duration::from_millis(50));
        assert_eq!(
            p.behind(Instant::now() + Duration::from_secs(5)),
            Duration::ZERO
        );
    }
}
