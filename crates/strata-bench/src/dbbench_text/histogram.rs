//! `Microseconds per <op>:` blocks (`--histogram`): RocksDB's
//!
//! ```text
//! Count: 2000 Average: 7.3065  StdDev: 214.78
//! Min: 2  Median: 2.3806  Max: 9607
//! Percentiles: P50: 2.38 P75: 2.76 P99: 6.67 P99.9: 63.50 P99.99: 9240.00
//! ------------------------------------------------------
//! (       1,       2 ]      498  24.900%  24.900% #####
//! ```
//!
//! and LevelDB's, which has no `Percentiles:` line and `[ a, b )` buckets.
//!
//! `strata bench` writes RocksDB's form with the engine's own histogram
//! ([`DbBenchHistogram`]), so the bench and the engine's `rocksdb.stats`
//! print histograms identically; the tests pin its text against the
//! RocksDB 7.8.3 capture.

use serde::Serialize;

use super::number::{after, num};
use crate::stats::Stats;

/// RocksDB's bucketed histogram (`HistogramImpl`) of non-negative integer
/// samples, with db_bench's text form (`to_db_bench_string`).
pub type DbBenchHistogram = strata::stats::HistogramImpl;

/// One bucket row: samples between `lower` and `upper`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Bucket {
    /// Lower limit.
    pub lower: f64,
    /// Upper limit.
    pub upper: f64,
    /// Samples in the bucket.
    pub count: u64,
    /// Printed `[ lower, upper )`, as LevelDB prints its rows (RocksDB's
    /// are `( lower, upper ]`).
    pub half_open: bool,
}

/// One parsed histogram block (microseconds).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Histogram {
    /// Sample count.
    pub count: u64,
    /// Mean.
    pub average: f64,
    /// Standard deviation.
    pub std_dev: f64,
    /// Smallest sample.
    pub min: f64,
    /// Median as printed on the `Min:` line.
    pub median: f64,
    /// Largest sample.
    pub max: f64,
    /// 50th percentile (`P50:`, else the Median, else from the buckets).
    pub p50: f64,
    /// 75th percentile.
    pub p75: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// 99.99th percentile.
    pub p9999: f64,
    /// Whether the block printed a `Percentiles:` line (LevelDB's does
    /// not: its percentiles are computed from the buckets).
    pub percentiles_printed: bool,
    /// Bucket rows in order.
    pub buckets: Vec<Bucket>,
}

impl Histogram {
    /// The percentiles by the names the lab's metrics use (`p50` ...
    /// `p9999`), in that order.
    pub fn percentiles(&self) -> [(&'static str, f64); 5] {
        [
            ("p50", self.p50),
            ("p75", self.p75),
            ("p99", self.p99),
            ("p999", self.p999),
            ("p9999", self.p9999),
        ]
    }

    /// Reads one line of a block's body into `self`; false if the line is
    /// not one (the block has ended, or the line is a separator).
    pub fn read_line(&mut self, line: &str) -> bool {
        let t: Vec<&str> = line.split_whitespace().collect();
        let get = |k: &str| after(&t, k).and_then(num);
        if line.starts_with("Count:") {
            self.count = get("Count:").unwrap_or(0.0) as u64;
            self.average = get("Average:").unwrap_or(0.0);
            self.std_dev = get("StdDev:").unwrap_or(0.0);
        } else if line.starts_with("Min:") {
            self.min = get("Min:").unwrap_or(0.0);
            self.median = get("Median:").unwrap_or(0.0);
            self.max = get("Max:").unwrap_or(0.0);
            if self.p50 == 0.0 {
                self.p50 = self.median;
            }
        } else if line.starts_with("Percentiles:") {
            self.percentiles_printed = true;
            self.p50 = get("P50:").unwrap_or(self.p50);
            self.p75 = get("P75:").unwrap_or(0.0);
            self.p99 = get("P99:").unwrap_or(0.0);
            self.p999 = get("P99.9:").unwrap_or(0.0);
            self.p9999 = get("P99.99:").unwrap_or(0.0);
        } else if line.starts_with('[') || line.starts_with('(') {
            if let Some(b) = parse_bucket(line) {
                self.buckets.push(b);
            }
        } else {
            return false;
        }
        true
    }

    /// Completes a block: LevelDB's block (no `Percentiles:` line,
    /// `[ a, b )` rows) gets its percentiles from its buckets, as LevelDB's
    /// own `Histogram::Percentile` computes its Median: linear within the
    /// bucket that crosses the rank, clamped to Min and Max. A RocksDB block
    /// that lost its `Percentiles:` line keeps them 0, so the loss shows.
    pub fn finish(&mut self) {
        let buckets: Vec<Bucket> = self
            .buckets
            .iter()
            .filter(|b| b.half_open)
            .copied()
            .collect();
        if self.percentiles_printed || buckets.is_empty() {
            return;
        }
        let total: f64 = buckets.iter().map(|b| b.count as f64).sum();
        let (min, max) = (self.min, self.max);
        let pct = |p: f64| -> f64 {
            let threshold = total * p / 100.0;
            let mut sum = 0.0;
            for b in &buckets {
                let n = b.count as f64;
                sum += n;
                if sum >= threshold && n > 0.0 {
                    let pos = (threshold - (sum - n)) / n;
                    return (b.lower + (b.upper - b.lower) * pos).clamp(min, max.max(min));
                }
            }
            max
        };
        let p50 = if self.p50 == 0.0 { pct(50.0) } else { self.p50 };
        (self.p75, self.p99, self.p999, self.p9999) = (pct(75.0), pct(99.0), pct(99.9), pct(99.99));
        self.p50 = p50;
    }
}

/// Parses a block's body (the lines after `Microseconds per <op>:`), as
/// `parse_output` reads it inside a whole output.
#[cfg(test)]
pub fn parse_histogram(text: &str) -> Histogram {
    let mut h = Histogram::default();
    for line in text.lines().map(str::trim) {
        if !h.read_line(line) && !line.starts_with("---") && !line.is_empty() {
            break;
        }
    }
    h.finish();
    h
}

/// A bucket row, `[ 0, 1 ) 159320 79.660% ...` (LevelDB) or
/// `( 1, 2 ] 498 24.900% ...` (RocksDB).
fn parse_bucket(line: &str) -> Option<Bucket> {
    let t: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || "[](),".contains(c))
        .filter(|x| !x.is_empty())
        .collect();
    let close = line.find([')', ']'])?;
    Some(Bucket {
        lower: num(t.first()?)?,
        upper: num(t.get(1)?)?,
        count: t.get(2)?.parse().ok()?,
        half_open: line.starts_with('[') && line[close..].starts_with(')'),
    })
}

/// The `--histogram` blocks that follow a result line, one per op type.
pub fn format_histograms(stats: &Stats) -> String {
    let mut out = String::new();
    for (op, lat) in &stats.hist {
        out.push_str(&format!(
            "Microseconds per {}:\n{}\n",
            op.name(),
            lat.buckets.to_db_bench_string()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::OpType;

    /// LevelDB's block: percentiles from the buckets.
    #[test]
    fn leveldb_block_gets_percentiles_from_its_buckets() {
        let h = parse_histogram(crate::dbbench_text::samples::LEVELDB_HISTOGRAM);
        assert_eq!((h.count, h.min, h.max, h.std_dev), (1000, 1.0, 20.0, 2.0));
        assert!(!h.percentiles_printed);
        assert_eq!(h.p50, 2.75, "the Median");
        // Rank 750: [3, 4), 150 of its 300 in.
        assert_eq!(h.p75, 3.5);
        // Rank 990: the end of [10, 12).
        assert_eq!(h.p99, 12.0);
        assert!((h.p999 - 19.8).abs() < 1e-9, "{}", h.p999);
        assert_eq!(h.buckets.len(), 5);
        assert!(h.buckets.iter().all(|b| b.half_open), "[ a, b ) buckets");
    }

    /// What `strata bench --histogram` writes reads back: the figures of
    /// the engine's histogram, to the printed precision.
    #[test]
    fn written_blocks_read_back() {
        let mut s = Stats::start(true);
        for _ in 0..50 {
            s.finished_ops(1, OpType::Read);
        }
        s.finished_ops(1, OpType::Write);
        s.stop();
        let text = format_histograms(&s);
        let blocks: Vec<&str> = text.split("Microseconds per ").skip(1).collect();
        assert_eq!(blocks.len(), 2, "{text}");
        for (block, (op, lat)) in blocks.iter().zip(&s.hist) {
            let (name, body) = block.split_once(":\n").unwrap();
            assert_eq!(name, op.name());
            let h = parse_histogram(body);
            let b: &DbBenchHistogram = &lat.buckets;
            assert_eq!(h.count, b.count());
            assert_eq!(h.min, b.min() as f64);
            assert_eq!(h.max, b.max() as f64);
            assert!(h.percentiles_printed);
            let close = |a: f64, want: f64| (a - want).abs() <= 0.005 + want * 1e-9;
            assert!(
                close(h.p50, b.percentile(50.0)),
                "{} {}",
                h.p50,
                b.percentile(50.0)
            );
            assert!(close(h.p99, b.percentile(99.0)));
            assert_eq!(h.buckets.iter().map(|b| b.count).sum::<u64>(), b.count());
        }
    }

    /// A RocksDB block whose `Percentiles:` line is missing keeps its
    /// percentiles 0 rather than made up from `( a, b ]` rows.
    #[test]
    fn rocksdb_block_without_percentiles_keeps_them_zero() {
        let h = parse_histogram(
            "Count: 2 Average: 1.5000  StdDev: 0.50\nMin: 1  Median: 1.5000  Max: 2\n------\n[       0,       1 ]        1  50.000%  50.000% ##\n(       1,       2 ]        1  50.000% 100.000% ##\n",
        );
        assert_eq!(h.buckets.len(), 2);
        assert_eq!((h.p50, h.p75, h.p99), (1.5, 0.0, 0.0), "the Median only");
    }

    #[test]
    fn block_ends_at_the_first_line_of_something_else() {
        let h = parse_histogram("Count: 1 Average: 1.0000  StdDev: 0.00\nMin: 1  Median: 1.0000  Max: 1\nPercentiles: P50: 1.00 P75: 1.00 P99: 1.00 P99.9: 1.00 P99.99: 1.00\n----\n[ 0, 1 ] 1 100.000% 100.000% #\n\nreadrandom : 1 micros/op\n[ 5, 6 ] 7\n");
        assert_eq!(
            h.buckets,
            vec![Bucket {
                lower: 0.0,
                upper: 1.0,
                count: 1,
                half_open: false
            }]
        );
        assert_eq!((h.p50, h.p9999), (1.0, 1.0));
    }

    #[test]
    fn bucket_limits_match_rocksdb() {
        let l = &strata::stats::BUCKET_LIMITS;
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
            include_str!("../../testdata/rocksdb-7.8.3/all-benchmarks-histogram-statistics.stdout");
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
