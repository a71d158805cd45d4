//! RocksDB's bucketed histogram (`HistogramImpl`), for db_bench's
//! `Microseconds per <op>:` blocks.
//!
//! Kept in this small module so it can be swapped for
//! `strata::stats::HistogramImpl` once that lands, without touching callers.

use std::sync::OnceLock;

/// Bucket upper limits: 1, 2, then each previous unrounded limit x1.5,
/// truncated and cut to two significant digits, up to u64::MAX.
fn bucket_limits() -> &'static [u64] {
    static LIMITS: OnceLock<Vec<u64>> = OnceLock::new();
    LIMITS.get_or_init(|| {
        let mut v = vec![1u64, 2];
        let mut val = 2.0f64;
        loop {
            val *= 1.5;
            if val > u64::MAX as f64 {
                break;
            }
            let mut x = val as u64;
            let mut pow = 1u64;
            while x / 10 > 10 {
                x /= 10;
                pow *= 10;
            }
            v.push(x * pow);
        }
        v
    })
}

/// A histogram of non-negative integer samples.
#[derive(Debug, Clone)]
pub struct DbBenchHistogram {
    min: u64,
    max: u64,
    num: u64,
    sum: u64,
    sum_squares: f64,
    buckets: Vec<u64>,
}

impl Default for DbBenchHistogram {
    fn default() -> Self {
        Self::new()
    }
}

impl DbBenchHistogram {
    /// An empty histogram.
    pub fn new() -> Self {
        Self {
            min: u64::MAX,
            max: 0,
            num: 0,
            sum: 0,
            sum_squares: 0.0,
            buckets: vec![0; bucket_limits().len()],
        }
    }

    /// Records one sample.
    pub fn add(&mut self, value: u64) {
        let limits = bucket_limits();
        let idx = limits.partition_point(|l| *l < value).min(limits.len() - 1);
        if let Some(b) = self.buckets.get_mut(idx) {
            *b += 1;
        }
        self.min = self.min.min(value);
        self.max = self.max.max(value);
        self.num += 1;
        self.sum = self.sum.saturating_add(value);
        self.sum_squares += (value as f64) * (value as f64);
    }

    /// Adds every sample of `other`.
    pub fn merge(&mut self, other: &Self) {
        for (a, b) in self.buckets.iter_mut().zip(&other.buckets) {
            *a += b;
        }
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        self.num += other.num;
        self.sum = self.sum.saturating_add(other.sum);
        self.sum_squares += other.sum_squares;
    }

    /// Number of samples.
    pub fn count(&self) -> u64 {
        self.num
    }

    /// Mean (0 when empty).
    pub fn average(&self) -> f64 {
        if self.num == 0 {
            0.0
        } else {
            self.sum as f64 / self.num as f64
        }
    }

    /// Population standard deviation.
    pub fn std_dev(&self) -> f64 {
        if self.num == 0 {
            return 0.0;
        }
        let n = self.num as f64;
        let s = self.sum as f64;
        ((self.sum_squares * n - s * s) / (n * n)).max(0.0).sqrt()
    }

    /// Percentile `p` (0-100), linearly interpolated inside its bucket and
    /// clamped to [min, max], as RocksDB computes it.
    pub fn percentile(&self, p: f64) -> f64 {
        let limits = bucket_limits();
        let threshold = self.num as f64 * (p / 100.0);
        let mut cumulative = 0u64;
        for (b, &count) in self.buckets.iter().enumerate() {
            cumulative += count;
            if cumulative as f64 >= threshold {
                let left = if b == 0 { 0 } else { limits[b - 1] };
                let right = limits[b];
                let left_sum = cumulative - count;
                let pos = if count != 0 {
                    (threshold - left_sum as f64) / count as f64
                } else {
                    0.0
                };
                let mut r = left as f64 + (right - left) as f64 * pos;
                r = r.max(self.min as f64).min(self.max as f64);
                return r;
            }
        }
        self.max as f64
    }

    /// The block db_bench prints after `Microseconds per <op>:`.
    pub fn to_db_bench_string(&self) -> String {
        let limits = bucket_limits();
        let (min, max) = if self.num == 0 {
            (0, 0)
        } else {
            (self.min, self.max)
        };
        let mut s = format!(
            "Count: {} Average: {:.4}  StdDev: {:.2}\nMin: {}  Median: {:.4}  Max: {}\nPercentiles: P50: {:.2} P75: {:.2} P99: {:.2} P99.9: {:.2} P99.99: {:.2}\n",
            self.num,
            self.average(),
            self.std_dev(),
            min,
            self.percentile(50.0),
            max,
            self.percentile(50.0),
            self.percentile(75.0),
            self.percentile(99.0),
            self.percentile(99.9),
            self.percentile(99.99),
        );
        s.push_str("------------------------------------------------------\n");
        if self.num == 0 {
            return s;
        }
        let mult = 100.0 / self.num as f64;
        let mut cumulative = 0u64;
        for (b, &count) in self.buckets.iter().enumerate() {
            if count == 0 {
                continue;
            }
            cumulative += count;
            let left = if b == 0 { 0 } else { limits[b - 1] };
            let marks = (20.0 * (count as f64 / self.num as f64) + 0.5) as usize;
            s.push_str(&format!(
                "{} {:7}, {:7} ] {:8} {:7.3}% {:7.3}% {}\n",
                if b == 0 { '[' } else { '(' },
                left,
                limits[b],
                count,
                mult * count as f64,
                mult * cumulative as f64,
                "#".repeat(marks)
            ));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_limits_match_rocksdb() {
        let l = bucket_limits();
        assert_eq!(
            &l[..16],
            &[1, 2, 3, 4, 6, 10, 15, 22, 34, 51, 76, 110, 170, 250, 380, 580]
        );
        assert!(l.contains(&6600) && l.contains(&9900));
    }

    /// Rebuilds the fillseq histogram of the captured RocksDB 7.8.3 run from
    /// its bucket counts and checks every line we can reproduce.
    #[test]
    fn golden_block_from_rocksdb_capture() {
        let mut h = DbBenchHistogram::new();
        // (bucket upper limit, count) from the capture; one sample per bucket
        // at its upper limit except where min/max pin a value.
        let rows = [
            (2u64, 498u64),
            (3, 1319),
            (4, 23),
            (6, 138),
            (10, 12),
            (15, 4),
            (22, 1),
            (34, 1),
            (51, 1),
            (76, 2),
        ];
        for (limit, count) in rows {
            for _ in 0..count {
                h.add(limit);
            }
        }
        h.add(9607);
        let text = h.to_db_bench_string();
        let lines: Vec<&str> = text.lines().collect();
        assert!(
            lines[0].starts_with("Count: 2000 Average: "),
            "{}",
            lines[0]
        );
        assert!(
            lines[1].starts_with("Min: 2  Median: 2.3806  Max: 9607"),
            "{}",
            lines[1]
        );
        assert!(
            lines[2].starts_with(
                "Percentiles: P50: 2.38 P75: 2.76 P99: 6.67 P99.9: 63.50 P99.99: 9240.00"
            ),
            "{}",
            lines[2]
        );
        assert_eq!(
            lines[3],
            "------------------------------------------------------"
        );
        let capture =
            include_str!("../testdata/rocksdb-7.8.3/all-benchmarks-histogram-statistics.stdout");
        for want in [
            "(       1,       2 ]      498  24.900%  24.900% #####",
            "(       2,       3 ]     1319  65.950%  90.850% #############",
            "(       3,       4 ]       23   1.150%  92.000% ",
            "(    6600,    9900 ]        1   0.050% 100.000% ",
        ] {
            assert!(capture.contains(want), "capture lacks {want:?}");
            assert!(lines.contains(&want), "ours lacks {want:?}:\n{text}");
        }
    }

    #[test]
    fn empty_and_zero_bucket() {
        let h = DbBenchHistogram::new();
        assert!(h.to_db_bench_string().starts_with(
            "Count: 0 Average: 0.0000  StdDev: 0.00\nMin: 0  Median: 0.0000  Max: 0\n"
        ));
        let mut h = DbBenchHistogram::new();
        h.add(0);
        h.add(1);
        let t = h.to_db_bench_string();
        assert!(
            t.contains("[       0,       1 ]        2 100.000% 100.000% ####################\n"),
            "{t}"
        );
    }

    #[test]
    fn merge_adds_counts() {
        let mut a = DbBenchHistogram::new();
        let mut b = DbBenchHistogram::new();
        a.add(5);
        b.add(500);
        a.merge(&b);
        assert_eq!(a.count(), 2);
        assert_eq!(a.percentile(100.0), 500.0);
        assert_eq!(a.percentile(0.0), 5.0);
    }
}
