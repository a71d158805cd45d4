//! A single-threaded histogram with RocksDB's buckets and arithmetic
//! (`HistogramStat` in RocksDB's `monitoring/histogram.cc`): what db_bench
//! keeps per thread, and what [`super::Statistics`] hands out as a snapshot.

use std::fmt::Write as _;

use super::buckets::{bucket_index, bucket_range, BUCKET_COUNT, BUCKET_LIMITS};

/// Summary numbers of a histogram (RocksDB's `HistogramData`, plus P75,
/// P99.9 and P99.99).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct HistogramData {
    /// Number of samples.
    pub count: u64,
    /// Sum of the samples.
    pub sum: u64,
    /// Smallest sample (0 when empty).
    pub min: u64,
    /// Largest sample (0 when empty); RocksDB's dump prints it as P100.
    pub max: u64,
    /// Mean (0 when empty).
    pub average: f64,
    /// Population standard deviation (0 when empty).
    pub std_dev: f64,
    /// 50th percentile.
    pub median: f64,
    /// 75th percentile.
    pub p75: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// 99.99th percentile.
    pub p9999: f64,
}

/// A histogram of `u64` samples in RocksDB's buckets (not thread-safe; see
/// `AtomicHistogram` for the shared one).
#[derive(Debug, Clone, PartialEq)]
pub struct HistogramImpl {
    buckets: [u64; BUCKET_COUNT],
    /// Raw minimum: starts at the last bucket limit, as in RocksDB.
    min: u64,
    max: u64,
    count: u64,
    sum: u64,
    /// Kept as `f64` so large samples (compaction times) cannot overflow it.
    sum_squares: f64,
}

impl Default for HistogramImpl {
    fn default() -> Self {
        Self::new()
    }
}

impl HistogramImpl {
    /// An empty histogram.
    pub fn new() -> Self {
        HistogramImpl {
            buckets: [0; BUCKET_COUNT],
            min: BUCKET_LIMITS[BUCKET_COUNT - 1],
            max: 0,
            count: 0,
            sum: 0,
            sum_squares: 0.0,
        }
    }

    /// Builds a histogram from raw parts (used by snapshots of the atomic
    /// histogram). `count` is taken as the sum of `buckets`.
    pub(crate) fn from_parts(
        buckets: [u64; BUCKET_COUNT],
        min: u64,
        max: u64,
        sum: u64,
        sum_squares: f64,
    ) -> Self {
        let count = buckets.iter().fold(0u64, |a, b| a.wrapping_add(*b));
        HistogramImpl {
            buckets,
            min,
            max,
            count,
            sum,
            sum_squares,
        }
    }

    /// Records one sample.
    pub fn add(&mut self, value: u64) {
        let b = &mut self.buckets[bucket_index(value)];
        *b = b.wrapping_add(1);
        self.min = self.min.min(value);
        self.max = self.max.max(value);
        self.count = self.count.wrapping_add(1);
        self.sum = self.sum.wrapping_add(value);
        let v = value as f64;
        self.sum_squares += v * v;
    }

    /// Adds all samples of `other` into `self`.
    pub fn merge(&mut self, other: &HistogramImpl) {
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.count = self.count.wrapping_add(other.count);
        self.sum = self.sum.wrapping_add(other.sum);
        self.sum_squares += other.sum_squares;
        for (a, b) in self.buckets.iter_mut().zip(other.buckets.iter()) {
            *a = a.wrapping_add(*b);
        }
    }

    /// Forgets every sample.
    pub fn clear(&mut self) {
        *self = HistogramImpl::new();
    }

    /// True when no sample was recorded.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Number of samples.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Sum of samples (wraps on overflow, as RocksDB's does).
    pub fn sum(&self) -> u64 {
        self.sum
    }

    /// Sum of squared samples.
    pub fn sum_squares(&self) -> f64 {
        self.sum_squares
    }

    /// Smallest sample, 0 when empty.
    pub fn min(&self) -> u64 {
        if self.count == 0 {
            0
        } else {
            self.min
        }
    }

    /// Largest sample, 0 when empty.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// Sample count of every bucket, in bucket order.
    pub fn bucket_counts(&self) -> &[u64; BUCKET_COUNT] {
        &self.buckets
    }

    /// The `p`-th percentile (`p` in 0..=100): finds the bucket where the
    /// cumulative count reaches `count * p / 100`, interpolates linearly
    /// between the bucket's limits, and clamps to [min, max]; RocksDB's
    /// `HistogramStat::Percentile`.
    pub fn percentile(&self, p: f64) -> f64 {
        let threshold = self.count as f64 * (p / 100.0);
        let mut cumulative: u64 = 0;
        for (b, &in_bucket) in self.buckets.iter().enumerate() {
            cumulative = cumulative.wrapping_add(in_bucket);
            if cumulative as f64 >= threshold {
                let (left_point, right_point) = bucket_range(b);
                let left_sum = cumulative.wrapping_sub(in_bucket);
                let mut pos = 0.0;
                if in_bucket != 0 {
                    pos = (threshold - left_sum as f64) / in_bucket as f64;
                }
                let mut r = left_point as f64 + (right_point - left_point) as f64 * pos;
                // Same clamping order as RocksDB (matters when empty).
                if r < self.min as f64 {
                    r = self.min as f64;
                }
                if r > self.max as f64 {
                    r = self.max as f64;
                }
                return r;
            }
        }
        self.max as f64
    }

    /// The 50th percentile.
    pub fn median(&self) -> f64 {
        self.percentile(50.0)
    }

    /// Mean of the samples, 0 when empty.
    pub fn average(&self) -> f64 {
        if self.count == 0 {
            0.0
        } else {
            self.sum as f64 / self.count as f64
        }
    }

    /// Population standard deviation, 0 when empty.
    pub fn std_dev(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        let n = self.count as f64;
        let s = self.sum as f64;
        let variance = (self.sum_squares * n - s * s) / (n * n);
        variance.max(0.0).sqrt()
    }

    /// The summary numbers.
    pub fn data(&self) -> HistogramData {
        HistogramData {
            count: self.count,
            sum: self.sum,
            min: self.min(),
            max: self.max(),
            average: self.average(),
            std_dev: self.std_dev(),
            median: self.median(),
            p75: self.percentile(75.0),
            p95: self.percentile(95.0),
            p99: self.percentile(99.0),
            p999: self.percentile(99.9),
            p9999: self.percentile(99.99),
        }
    }

    /// The text block db_bench prints after `Microseconds per <op>:` with
    /// `--histogram=1` (RocksDB's `HistogramStat::ToString`), byte for byte:
    /// count/average/stddev, min/median/max, percentiles, a dashed line, then
    /// one line per non-empty bucket with its count, percentage, cumulative
    /// percentage and one `#` per 5%.
    pub fn to_db_bench_string(&self) -> String {
        let mut r = String::new();
        let _ = writeln!(
            r,
            "Count: {} Average: {:.4}  StdDev: {:.2}",
            self.count,
            self.average(),
            self.std_dev()
        );
        let _ = writeln!(
            r,
            "Min: {}  Median: {:.4}  Max: {}",
            self.min(),
            self.median(),
            self.max()
        );
        let _ = writeln!(
            r,
            "Percentiles: P50: {:.2} P75: {:.2} P99: {:.2} P99.9: {:.2} P99.99: {:.2}",
            self.percentile(50.0),
            self.percentile(75.0),
            self.percentile(99.0),
            self.percentile(99.9),
            self.percentile(99.99)
        );
        r.push_str("------------------------------------------------------\n");
        if self.count == 0 {
            return r;
        }
        let mult = 100.0 / self.count as f64;
        let mut cumulative: u64 = 0;
        for (b, &in_bucket) in self.buckets.iter().enumerate() {
            if in_bucket == 0 {
                continue;
            }
            cumulative = cumulative.wrapping_add(in_bucket);
            let (lo, hi) = bucket_range(b);
            let _ = write!(
                r,
                "{} {:>7}, {:>7} ] {:>8} {:>7.3}% {:>7.3}% ",
                if b == 0 { '[' } else { '(' },
                lo,
                hi,
                in_bucket,
                mult * in_bucket as f64,
                mult * cumulative as f64
            );
            let marks = (mult * in_bucket as f64 / 5.0 + 0.5) as usize;
            r.extend(std::iter::repeat_n('#', marks));
            r.push('\n');
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every histogram block (`Count: ...` up to the last bucket line) of a
    /// db_bench output.
    fn blocks(sample: &str) -> Vec<Vec<&str>> {
        let lines: Vec<&str> = sample.lines().collect();
        let mut out = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            if l.starts_with("Count: ") && l.contains(" Average: ") {
                let mut block = vec![*l];
                for next in &lines[i + 1..] {
                    if next.starts_with('(') || next.starts_with('[') || block.len() < 4 {
                        block.push(next);
                    } else {
                        break;
                    }
                }
                out.push(block);
            }
        }
        out
    }

    fn field<T: std::str::FromStr>(line: &str, key: &str) -> Option<T> {
        let at = line.find(key)? + key.len();
        line[at..].split_whitespace().next()?.parse().ok()
    }

    /// Rebuilds a histogram from a db_bench block: every bucket's samples at
    /// its upper limit, except the printed min and max. The min/median/max
    /// line, the percentile line and the bucket lines depend only on bucket
    /// counts, min and max, so they must come out byte for byte.
    fn rebuild(block: &[&str]) -> HistogramImpl {
        let min: u64 = field(block[1], "Min: ").unwrap_or(0);
        let max: u64 = field(block[1], "Max: ").unwrap_or(0);
        let mut rows = Vec::new();
        for line in &block[4..] {
            let rest = &line[1..];
            let (range, tail) = rest.split_once(']').unwrap_or(("", ""));
            let hi: u64 = range
                .split_once(',')
                .and_then(|(_, hi)| hi.trim().parse().ok())
                .unwrap_or(0);
            let n: u64 = tail
                .split_whitespace()
                .next()
                .and_then(|c| c.parse().ok())
                .unwrap_or(0);
            rows.push((hi, n));
        }
        let mut samples = Vec::new();
        for &(hi, n) in &rows {
            samples.extend(std::iter::repeat_n(hi.min(max), n as usize));
        }
        if let Some(first) = samples.first_mut() {
            *first = min;
        }
        if let Some(last) = samples.last_mut() {
            *last = max;
        }
        let mut h = HistogramImpl::new();
        for v in samples {
            h.add(v);
        }
        h
    }

    #[test]
    fn matches_every_db_bench_7_8_3_block() {
        let mut checked = 0;
        for sample in [
            include_str!("../../testdata/stats/db_bench_7.8.3_small.txt"),
            include_str!("../../testdata/stats/db_bench_7.8.3_stalls.txt"),
            include_str!("../../testdata/stats/db_bench_7.8.3_blob.txt"),
        ] {
            for block in blocks(sample) {
                let h = rebuild(&block);
                let ours = h.to_db_bench_string();
                let ours: Vec<&str> = ours.lines().collect();
                assert_eq!(ours.len(), block.len());
                assert_eq!(field::<u64>(ours[0], "Count: "), field(block[0], "Count: "));
                assert_eq!(ours[1..], block[1..]);
                checked += 1;
            }
        }
        assert!(checked >= 8, "only {checked} blocks");
    }

    #[test]
    fn exact_header_for_known_samples() {
        let mut h = HistogramImpl::new();
        for v in [1u64, 2, 3, 4, 5, 6, 7, 8, 9, 10] {
            h.add(v);
        }
        let s = h.to_db_bench_string();
        let expect = "Count: 10 Average: 5.5000  StdDev: 2.87\n\
Min: 1  Median: 5.0000  Max: 10\n\
Percentiles: P50: 5.00 P75: 7.50 P99: 9.90 P99.9: 9.99 P99.99: 10.00\n\
------------------------------------------------------\n\
[       0,       1 ]        1  10.000%  10.000% ##\n\
(       1,       2 ]        1  10.000%  20.000% ##\n\
(       2,       3 ]        1  10.000%  30.000% ##\n\
(       3,       4 ]        1  10.000%  40.000% ##\n\
(       4,       6 ]        2  20.000%  60.000% ####\n\
(       6,      10 ]        4  40.000% 100.000% ########\n";
        assert_eq!(s, expect);
    }

    #[test]
    fn empty_histogram() {
        let h = HistogramImpl::new();
        assert_eq!(h.median(), 0.0);
        assert_eq!(h.percentile(99.0), 0.0);
        assert_eq!(h.min(), 0);
        assert_eq!(
            h.to_db_bench_string(),
            "Count: 0 Average: 0.0000  StdDev: 0.00\nMin: 0  Median: 0.0000  Max: 0\n\
Percentiles: P50: 0.00 P75: 0.00 P99: 0.00 P99.9: 0.00 P99.99: 0.00\n\
------------------------------------------------------\n"
        );
    }

    #[test]
    fn stats_and_merge() {
        let mut a = HistogramImpl::new();
        let mut b = HistogramImpl::new();
        for v in 0..100u64 {
            a.add(v);
            b.add(v + 1000);
        }
        assert_eq!(a.min(), 0);
        assert_eq!(a.max(), 99);
        assert!((a.average() - 49.5).abs() < 1e-12);
        // Population std dev of 0..100 is sqrt((100^2-1)/12).
        assert!((a.std_dev() - ((10000.0f64 - 1.0) / 12.0).sqrt()).abs() < 1e-9);
        a.merge(&b);
        assert_eq!(a.count(), 200);
        assert_eq!(a.max(), 1099);
        assert_eq!(a.sum(), 4950 + 4950 + 100_000);
        // The 100th sample closes bucket (76, 110], so interpolation lands
        // on that bucket's upper limit.
        assert_eq!(a.median(), 110.0);
        assert!(a.percentile(99.0) > 1000.0);
        a.clear();
        assert!(a.is_empty());
        assert_eq!(a, HistogramImpl::new());
    }

    #[test]
    fn percentile_clamps_to_min_and_max() {
        let mut h = HistogramImpl::new();
        h.add(1000); // bucket (870, 1300]
        assert_eq!(h.percentile(0.0), 1000.0);
        assert_eq!(h.percentile(50.0), 1000.0);
        assert_eq!(h.percentile(100.0), 1000.0);
    }

    #[test]
    fn large_samples_do_not_overflow_std_dev() {
        let mut h = HistogramImpl::new();
        h.add(5_000_000_000);
        h.add(5_000_000_000);
        h.add(15_000_000_000);
        assert!(h.std_dev().is_finite());
        assert!(h.std_dev() > 4.0e9 && h.std_dev() < 5.0e9);
    }

    proptest::proptest! {
        #[test]
        fn merge_equals_adding_everything(
            a in proptest::collection::vec(0u64..10_000_000, 0..200),
            b in proptest::collection::vec(0u64..10_000_000, 0..200),
        ) {
            let mut ha = HistogramImpl::new();
            let mut hb = HistogramImpl::new();
            let mut all = HistogramImpl::new();
            for &v in &a { ha.add(v); all.add(v); }
            for &v in &b { hb.add(v); all.add(v); }
            ha.merge(&hb);
            proptest::prop_assert_eq!(ha.count(), all.count());
            proptest::prop_assert_eq!(ha.bucket_counts(), all.bucket_counts());
            proptest::prop_assert_eq!(ha.to_db_bench_string(), all.to_db_bench_string());
        }

        #[test]
        fn percentiles_are_monotone_and_within_min_max(
            v in proptest::collection::vec(0u64..100_000_000, 1..300),
        ) {
            let mut h = HistogramImpl::new();
            for &x in &v { h.add(x); }
            let mut last = f64::MIN;
            for p in [0.0, 1.0, 25.0, 50.0, 75.0, 95.0, 99.0, 99.9, 99.99, 100.0] {
                let q = h.percentile(p);
                proptest::prop_assert!(q >= last);
                proptest::prop_assert!(q >= h.min() as f64 && q <= h.max() as f64);
                last = q;
            }
        }
    }
}
