//! A histogram many threads can record into at once (RocksDB's lock-free
//! `HistogramStat::Add` with atomic buckets).

use std::sync::atomic::{AtomicU64, Ordering};

use super::buckets::{bucket_index, BUCKET_COUNT, BUCKET_LIMITS};
use super::histogram_impl::HistogramImpl;

/// A thread-safe histogram: every field is an atomic updated with relaxed
/// ordering. A snapshot taken while others record may miss the samples in
/// flight, never corrupt the ones already counted.
#[derive(Debug)]
pub struct AtomicHistogram {
    buckets: [AtomicU64; BUCKET_COUNT],
    min: AtomicU64,
    max: AtomicU64,
    sum: AtomicU64,
    /// `f64` bits of the sum of squared samples.
    sum_squares: AtomicU64,
}

impl Default for AtomicHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl AtomicHistogram {
    /// An empty histogram.
    pub fn new() -> Self {
        AtomicHistogram {
            buckets: std::array::from_fn(|_| AtomicU64::new(0)),
            min: AtomicU64::new(BUCKET_LIMITS[BUCKET_COUNT - 1]),
            max: AtomicU64::new(0),
            sum: AtomicU64::new(0),
            sum_squares: AtomicU64::new(0f64.to_bits()),
        }
    }

    /// Records one sample.
    pub fn add(&self, value: u64) {
        self.buckets[bucket_index(value)].fetch_add(1, Ordering::Relaxed);
        if value < self.min.load(Ordering::Relaxed) {
            self.min.fetch_min(value, Ordering::Relaxed);
        }
        if value > self.max.load(Ordering::Relaxed) {
            self.max.fetch_max(value, Ordering::Relaxed);
        }
        self.sum.fetch_add(value, Ordering::Relaxed);
        let sq = value as f64 * value as f64;
        let _ = self
            .sum_squares
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |bits| {
                Some((f64::from_bits(bits) + sq).to_bits())
            });
    }

    /// Adds this histogram's samples into `into`.
    pub fn merge_into(&self, into: &mut HistogramImpl) {
        into.merge(&self.snapshot());
    }

    /// A consistent-enough copy (count is the sum of the bucket counts).
    pub fn snapshot(&self) -> HistogramImpl {
        let buckets = std::array::from_fn(|i| self.buckets[i].load(Ordering::Relaxed));
        HistogramImpl::from_parts(
            buckets,
            self.min.load(Ordering::Relaxed),
            self.max.load(Ordering::Relaxed),
            self.sum.load(Ordering::Relaxed),
            f64::from_bits(self.sum_squares.load(Ordering::Relaxed)),
        )
    }

    /// Forgets every sample.
    pub fn clear(&self) {
        for b in &self.buckets {
            b.store(0, Ordering::Relaxed);
        }
        self.min
            .store(BUCKET_LIMITS[BUCKET_COUNT - 1], Ordering::Relaxed);
        self.max.store(0, Ordering::Relaxed);
        self.sum.store(0, Ordering::Relaxed);
        self.sum_squares.store(0f64.to_bits(), Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn snapshot_equals_single_threaded_histogram() {
        let a = AtomicHistogram::new();
        let mut p = HistogramImpl::new();
        for v in [0u64, 1, 7, 99, 1234, 5_000_000] {
            a.add(v);
            p.add(v);
        }
        assert_eq!(a.snapshot(), p);
        a.clear();
        assert_eq!(a.snapshot(), HistogramImpl::new());
    }

    #[test]
    fn concurrent_adds_are_all_counted() {
        let a = Arc::new(AtomicHistogram::new());
        let threads: Vec<_> = (0..4u64)
            .map(|t| {
                let a = Arc::clone(&a);
                std::thread::spawn(move || {
                    for i in 0..10_000u64 {
                        a.add(t * 10_000 + i);
                    }
                })
            })
            .collect();
        for t in threads {
            let _ = t.join();
        }
        let s = a.snapshot();
        assert_eq!(s.count(), 40_000);
        assert_eq!(s.sum(), (0..40_000u64).sum::<u64>());
        assert_eq!(s.min(), 0);
        assert_eq!(s.max(), 39_999);
    }
}
