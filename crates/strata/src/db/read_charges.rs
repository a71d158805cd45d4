//! The mechanism of read-triggered compaction on the read side: charging
//! tables for reads they wasted and holding the family's nominee until the
//! background picks it. The rules (what a read charges, how many charges a
//! table allows, what the compaction takes) are in
//! `compaction/read_triggered.rs`.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::compaction::read_triggered;
use crate::options::Options;
use crate::version::edit::FileMetaData;

/// One column family's charges: on or off, the rate, and the nominee.
#[derive(Debug)]
pub(crate) struct ReadCharges {
    /// `read_sampling_multiplier >= 0`.
    on: bool,
    /// `read_compaction_rate`.
    rate: u64,
    /// The nominated table's number; 0 while there is none.
    nominee: AtomicU64,
}

impl ReadCharges {
    /// Charges as `o` says.
    pub fn new(o: &Options) -> Self {
        ReadCharges {
            on: read_triggered::enabled(o),
            rate: o.read_compaction_rate,
            nominee: AtomicU64::new(0),
        }
    }

    /// Whether reads charge tables at all.
    pub fn on(&self) -> bool {
        self.on
    }

    /// Charges `f` one wasted read; the charge that exhausts it, or any
    /// later one while no table is nominated, nominates it. The background
    /// finds a nominee at its next pick (it looks at least once a second).
    pub fn charge(&self, f: &FileMetaData) {
        if !self.on {
            return;
        }
        let n = f.wasted_reads.charge();
        if read_triggered::exhausted(f, n, self.rate) && self.nominee.load(Ordering::Relaxed) == 0 {
            self.nominee.store(f.number, Ordering::Relaxed);
        }
    }

    /// The nominated table, if any.
    pub fn nominee(&self) -> Option<u64> {
        match self.nominee.load(Ordering::Relaxed) {
            0 => None,
            n => Some(n),
        }
    }

    /// Drops the nomination of table `number` (picked, or no longer
    /// compactable); a later nomination of another table stays.
    pub fn clear(&self, number: u64) {
        let _ = self
            .nominee
            .compare_exchange(number, 0, Ordering::Relaxed, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::testutil::meta;

    fn on(rate: u64) -> ReadCharges {
        ReadCharges::new(&Options {
            read_sampling_multiplier: 16,
            read_compaction_rate: rate,
            ..Options::default()
        })
    }

    #[test]
    fn the_charge_that_exhausts_a_table_nominates_it() {
        let c = on(16_000);
        let f = meta(7, "a", "b", 1000);
        for _ in 0..99 {
            c.charge(&f);
        }
        assert_eq!(c.nominee(), None);
        c.charge(&f);
        assert_eq!(c.nominee(), Some(7));
    }

    #[test]
    fn a_nominee_stays_until_cleared_and_then_the_next_charge_renominates() {
        let c = on(1);
        let a = meta(7, "a", "b", 100);
        let b = meta(8, "c", "d", 100);
        for _ in 0..100 {
            c.charge(&a);
            c.charge(&b);
        }
        assert_eq!(c.nominee(), Some(7));
        c.clear(8);
        assert_eq!(c.nominee(), Some(7));
        c.clear(7);
        assert_eq!(c.nominee(), None);
        c.charge(&b);
        assert_eq!(c.nominee(), Some(8));
    }

    #[test]
    fn off_charges_nothing() {
        let c = ReadCharges::new(&Options::default());
        let f = meta(7, "a", "b", 0);
        for _ in 0..1000 {
            c.charge(&f);
        }
        assert_eq!(c.nominee(), None);
        assert_eq!(f.wasted_reads.get(), 0);
    }
}
