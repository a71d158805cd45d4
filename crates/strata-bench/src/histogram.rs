//! RocksDB's bucketed histogram (`HistogramImpl`), for db_bench's
//! `Microseconds per <op>:` blocks.
//!
//! This is the engine's own `strata::stats::HistogramImpl`, so the bench and
//! the engine's `rocksdb.stats` print histograms identically; the tests
//! below pin its text against the RocksDB 7.8.3 capture.

/// A histogram of non-negative integer samples with db_bench's text form.
pub type DbBenchHistogram = strata::stats::HistogramImpl;

#[cfg(test)]
fn bucket_limits() -> &'static [u64] {
    &strata::stats::BUCKET_LIMITS
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
