//! RocksDB's histogram bucket boundaries (`HistogramBucketMapper`).
//!
//! The limits start at 1 and 2; each next one is the previous *unrounded*
//! value times 1.5, truncated to an integer and then cut to its two most
//! significant digits (172 becomes 170). The table stops at the last value that
//! fits in a `u64`, giving 109 buckets: 1, 2, 3, 4, 6, 10, 15, 22, 34, 51, 76,
//! 110, 170, 250, 380, 580, 870, 1300, ... Bucket `i` holds the values in
//! `(limit[i-1], limit[i]]`; bucket 0 holds `[0, 1]`, and the last bucket also
//! takes every value above its limit.

/// Number of buckets (RocksDB's `HistogramStat::buckets_` size).
pub const BUCKET_COUNT: usize = 109;

/// Upper limits of the buckets, computed at compile time the way RocksDB does.
pub const BUCKET_LIMITS: [u64; BUCKET_COUNT] = build_limits();

const fn build_limits() -> [u64; BUCKET_COUNT] {
    let mut out = [0u64; BUCKET_COUNT];
    out[0] = 1;
    out[1] = 2;
    let mut n = 2;
    let mut val = 2.0f64;
    loop {
        val *= 1.5;
        if val > u64::MAX as f64 {
            break;
        }
        let mut v = val as u64;
        let mut pow = 1u64;
        while v / 10 > 10 {
            v /= 10;
            pow *= 10;
        }
        // An index past BUCKET_COUNT fails const evaluation, i.e. the build.
        out[n] = v * pow;
        n += 1;
    }
    assert!(
        n == BUCKET_COUNT,
        "bucket table size differs from RocksDB's"
    );
    out
}

/// The bucket a value falls into (RocksDB's `IndexForValue`).
pub fn bucket_index(value: u64) -> usize {
    if value >= BUCKET_LIMITS[BUCKET_COUNT - 1] {
        BUCKET_COUNT - 1
    } else {
        // First limit >= value (std::lower_bound).
        BUCKET_LIMITS.partition_point(|&limit| limit < value)
    }
}

/// Lower (exclusive, except 0 for bucket 0) and upper limit of a bucket.
pub fn bucket_range(index: usize) -> (u64, u64) {
    let hi = BUCKET_LIMITS[index.min(BUCKET_COUNT - 1)];
    let lo = if index == 0 {
        0
    } else {
        BUCKET_LIMITS[(index - 1).min(BUCKET_COUNT - 1)]
    };
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_starts_like_rocksdb() {
        let expect = [
            1u64, 2, 3, 4, 6, 10, 15, 22, 34, 51, 76, 110, 170, 250, 380, 580, 870, 1300, 1900,
            2900, 4400, 6600, 9900, 14000, 22000, 33000, 50000, 75000, 110000,
        ];
        assert_eq!(&BUCKET_LIMITS[..expect.len()], &expect);
        assert!(BUCKET_LIMITS.windows(2).all(|w| w[0] < w[1]));
        assert!(BUCKET_LIMITS[BUCKET_COUNT - 1] > 10_000_000_000_000_000_000);
    }

    #[test]
    fn bucket_ranges_seen_in_db_bench_output() {
        // Every "(lo, hi ]" pair printed by db_bench 7.8.3 must be a bucket.
        let sample = include_str!("../../testdata/stats/db_bench_7.8.3_blob.txt");
        let mut checked = 0;
        for line in sample.lines() {
            let Some(rest) = line.strip_prefix('(').or_else(|| line.strip_prefix('[')) else {
                continue;
            };
            let Some((range, _)) = rest.split_once(']') else {
                continue;
            };
            let Some((lo, hi)) = range.split_once(',') else {
                continue;
            };
            let (Ok(lo), Ok(hi)) = (lo.trim().parse::<u64>(), hi.trim().parse::<u64>()) else {
                continue;
            };
            let idx = bucket_index(hi);
            assert_eq!(bucket_range(idx), (lo, hi), "line {line}");
            checked += 1;
        }
        assert!(checked > 10);
    }

    #[test]
    fn index_edges() {
        assert_eq!(bucket_index(0), 0);
        assert_eq!(bucket_index(1), 0);
        assert_eq!(bucket_index(2), 1);
        assert_eq!(bucket_index(5), 4);
        assert_eq!(bucket_index(6), 4);
        assert_eq!(bucket_index(7), 5);
        assert_eq!(bucket_index(u64::MAX), BUCKET_COUNT - 1);
    }
}
