//! YCSB's `SkewedLatestGenerator` (workload D's `latest` distribution): a
//! zipfian over the records inserted so far, counted back from the newest,
//! so the newest records are read most.

use super::zipfian::{Zipfian, ZIPFIAN_CONSTANT};
use crate::rng::Random64;

/// Draws record numbers skewed towards the last one inserted.
#[derive(Clone, Debug)]
pub struct SkewedLatest {
    zipfian: Zipfian,
}

impl SkewedLatest {
    /// For a key space whose newest record is `last` (YCSB's
    /// `CounterGenerator.lastValue()`: the record count minus one).
    pub fn new(last: u64) -> Self {
        Self {
            zipfian: Zipfian::new(0, last.max(1), ZIPFIAN_CONSTANT),
        }
    }

    /// A record number in `[0, last]`, given the newest record now.
    pub fn next(&mut self, rng: &mut Random64, last: u64) -> u64 {
        last - self.zipfian.next_of(rng, last.max(1)).min(last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newer_records_are_read_more() {
        let mut last = 9_999u64;
        let mut g = SkewedLatest::new(last);
        let mut rng = Random64::new(11);
        let (mut newest_tenth, mut oldest_half) = (0u64, 0u64);
        for i in 0..100_000u64 {
            // Workload D inserts now and then: the newest record moves on.
            if i % 20 == 0 {
                last += 1;
            }
            let k = g.next(&mut rng, last);
            assert!(k <= last);
            let age = last - k;
            if age < (last + 1) / 10 {
                newest_tenth += 1;
            }
            if age >= last.div_ceil(2) {
                oldest_half += 1;
            }
        }
        // Zipfian 0.99 over ~15,000 records: the newest 10% get most reads.
        assert!(newest_tenth > 70_000, "{newest_tenth}");
        assert!(oldest_half < 15_000, "{oldest_half}");
        assert!(oldest_half > 0);
    }
}
