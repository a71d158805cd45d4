//! An iterator's read sampling for read-triggered compaction
//! (`compaction/read_triggered.rs`; LevelDB's `DBIter` sampling): every
//! so many bytes of entries stepped over, the key at hand charges the
//! first table of the iterator's version whose key range holds it, when a
//! second one does too. The gap between samples is drawn uniformly from
//! `[0, 2 x period)`, so its mean is the period and a scan's samples do not
//! fall in step with the tables' layout.

use std::sync::Arc;

use crate::compaction::read_triggered::sampled_charge;
use crate::db::read_charges::ReadCharges;
use crate::version::Version;

/// Samples one iterator's reads.
pub(crate) struct ReadSampler {
    version: Arc<Version>,
    charges: Arc<ReadCharges>,
    /// Mean bytes between samples; 0 samples every entry.
    period: u64,
    /// Bytes left before the next sample.
    until: u64,
    /// xorshift64 state of the gaps' draws.
    rng: u64,
}

impl ReadSampler {
    /// A sampler of reads of `version` every `period` bytes on average,
    /// charging through `charges`; `seed` starts its draws (any value).
    pub fn new(version: Arc<Version>, charges: Arc<ReadCharges>, period: u64, seed: u64) -> Self {
        let mut s = ReadSampler {
            version,
            charges,
            period,
            until: 0,
            rng: seed | 1,
        };
        s.until = s.draw();
        s
    }

    /// The next gap: uniform in `[0, 2 x period)`.
    fn draw(&mut self) -> u64 {
        if self.period == 0 {
            return 0;
        }
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng % self.period.saturating_mul(2)
    }

    /// An entry of user key `ukey` and `bytes` bytes (key and value) was
    /// stepped over: samples `ukey` as often as the bytes call for.
    pub fn on_entry(&mut self, ukey: &[u8], bytes: usize) {
        let mut bytes = bytes as u64;
        loop {
            if bytes < self.until {
                self.until -= bytes;
                return;
            }
            bytes -= self.until;
            if let Some((_, f)) = sampled_charge(&self.version, ukey) {
                self.charges.charge(&f);
            }
            self.until = self.draw();
            if self.period == 0 {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::testutil::{meta, version_with};
    use crate::options::Options;

    fn setup(period: u64) -> (ReadSampler, Arc<Version>, Arc<ReadCharges>) {
        let v = Arc::new(version_with(
            3,
            &[
                (1, meta(10, "a", "m", 1 << 20)),
                (2, meta(5, "a", "z", 1 << 20)),
            ],
        ));
        let charges = Arc::new(ReadCharges::new(&Options {
            read_sampling_multiplier: 1,
            ..Options::default()
        }));
        let s = ReadSampler::new(v.clone(), charges.clone(), period, 42);
        (s, v, charges)
    }

    #[test]
    fn samples_average_one_per_period_of_bytes() {
        let (mut s, v, _) = setup(10_000);
        for _ in 0..100_000 {
            s.on_entry(b"c", 100);
        }
        // 10 MB of entries at a mean gap of 10 kB: about 1,000 samples.
        let n = v.files(1)[0].wasted_reads.get();
        assert!((900..1100).contains(&n), "{n} samples");
        // A key only the last level holds charges nothing.
        let before = v.files(2)[0].wasted_reads.get();
        for _ in 0..100_000 {
            s.on_entry(b"x", 100);
        }
        assert_eq!(v.files(2)[0].wasted_reads.get(), before);
    }

    #[test]
    fn a_period_of_zero_samples_every_entry_once() {
        let (mut s, v, _) = setup(0);
        for _ in 0..50 {
            s.on_entry(b"c", 1 << 20);
        }
        assert_eq!(v.files(1)[0].wasted_reads.get(), 50);
    }

    #[test]
    fn an_exhausted_table_is_nominated() {
        let (mut s, _, charges) = setup(0);
        for _ in 0..99 {
            s.on_entry(b"c", 10);
        }
        assert_eq!(charges.nominee(), None);
        s.on_entry(b"c", 10);
        assert_eq!(charges.nominee(), Some(10));
    }
}
