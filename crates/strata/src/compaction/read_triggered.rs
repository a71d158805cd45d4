//! Read-triggered compaction (LevelDB's seek compaction, Pebble's read
//! compactions): a table that reads keep passing through without finding
//! their key is merged into the level below, so that later reads of the
//! same keys consult one table fewer. RocksDB has none; Strata's is off
//! unless `read_sampling_multiplier` is 0 or more.
//!
//! The charge, as LevelDB's: a point read that reads a data block of one
//! table and then has to read a block of another charges the first; an
//! iterator samples one key per `read_sampling_multiplier` x 64 KiB of
//! entries it steps over on average, and a sampled key held by the key
//! ranges of two or more tables charges the first of them (the one a read
//! of it consults first). A table of `file_size` bytes allows
//! `max(100, file_size / read_compaction_rate)` charges (one per 16 KB by
//! default: a block read for nothing costs about what compacting 16 KB
//! does); the charge that reaches it nominates the table.
//!
//! The DB holds one nominee per column family; the background compacts it
//! when no other compaction is due (this pick comes after the style's own
//! and after those forced by blob garbage) into the next level, as a
//! size-driven pick of that table would. Leveled compaction only: under
//! universal and FIFO compaction the options are refused.
//!
//! Everything here is a pure function of a [`Version`] and the options.

use std::sync::Arc;

use super::leveled::pick_file;
use super::task::{Busy, CompactionReason, CompactionTask};
use crate::options::Options;
use crate::types::user_key;
use crate::version::edit::FileMetaData;
use crate::version::Version;

/// Charges a table allows at the least, whatever its size (LevelDB's and
/// Pebble's floor).
pub const MIN_ALLOWED_SEEKS: u64 = 100;

/// The unit of `read_sampling_multiplier`: an iterator samples a key per
/// multiplier x this many bytes of entries on average (Pebble's).
pub const SAMPLE_PERIOD_UNIT: u64 = 64 << 10;

/// Whether read-triggered compaction is on with `o`.
pub fn enabled(o: &Options) -> bool {
    o.read_sampling_multiplier >= 0
}

/// Charges a table of `file_size` bytes allows before it is nominated:
/// one per `rate` bytes, at least [`MIN_ALLOWED_SEEKS`].
pub fn allowed_seeks(file_size: u64, rate: u64) -> u64 {
    (file_size / rate.max(1)).max(MIN_ALLOWED_SEEKS)
}

/// Whether `charges` on `f` nominate it under `rate`.
pub fn exhausted(f: &FileMetaData, charges: u32, rate: u64) -> bool {
    u64::from(charges) >= allowed_seeks(f.file_size, rate)
}

/// The mean number of entry bytes between two samples of an iterator:
/// `multiplier` x [`SAMPLE_PERIOD_UNIT`]; `None` when iterators do not
/// sample (a negative multiplier). A multiplier of 0 samples every entry.
pub fn sample_period(multiplier: i32) -> Option<u64> {
    u64::try_from(multiplier)
        .ok()
        .map(|m| m.saturating_mul(SAMPLE_PERIOD_UNIT))
}

/// The table a sampled key `ukey` charges, with its level: of the tables
/// whose key ranges hold `ukey` (each such L0 table, newest first, then
/// at most one per deeper level), the first, when there are two or more.
pub fn sampled_charge(v: &Version, ukey: &[u8]) -> Option<(usize, Arc<FileMetaData>)> {
    let mut first: Option<(usize, Arc<FileMetaData>)> = None;
    for level in 0..v.num_levels() {
        let files = v.files(level);
        // Every L0 table may hold it; in a deeper level only the first
        // table ending at or after it.
        let candidates = if level == 0 {
            files
        } else {
            let i = files.partition_point(|f| user_key(&f.largest) < ukey);
            &files[i..(i + 1).min(files.len())]
        };
        let holds =
            |f: &&Arc<FileMetaData>| user_key(&f.smallest) <= ukey && ukey <= user_key(&f.largest);
        for f in candidates.iter().filter(holds) {
            if first.is_some() {
                return first;
            }
            first = Some((level, f.clone()));
        }
    }
    None
}

/// The level of table `number` in `v` if a read-triggered compaction can
/// take it: the table is live and above the last level (a table of the
/// last level has no level to merge into).
pub fn nominee_level(v: &Version, number: u64) -> Option<usize> {
    let last = v.num_levels().checked_sub(1)?;
    (0..last).find(|&l| v.files(l).iter().any(|f| f.number == number))
}

/// The compaction of the nominated table (`busy.read_nominee`) into the
/// next level, as [`pick_file`] makes it (from L0, every L0 table into the
/// base level; deeper, the table with what it overlaps below, or a move
/// down when nothing does), or `None` when read-triggered compaction is
/// off, there is no nominee, it cannot be compacted ([`nominee_level`]) or
/// its inputs are busy.
pub fn pick_read_triggered(v: &Version, busy: &Busy, o: &Options) -> Option<CompactionTask> {
    if o.disable_auto_compactions || !enabled(o) {
        return None;
    }
    let number = busy.read_nominee?;
    let level = nominee_level(v, number)?;
    let f = v.files(level).iter().find(|f| f.number == number)?;
    pick_file(v, busy, o, level, f, CompactionReason::ReadTriggered)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::testutil::{meta, version_with};

    #[test]
    fn a_table_allows_one_charge_per_rate_bytes_and_at_least_a_hundred() {
        assert_eq!(allowed_seeks(64 << 20, 16_000), (64 << 20) / 16_000);
        assert_eq!(allowed_seeks(1 << 20, 16_000), 100);
        assert_eq!(allowed_seeks(0, 16_000), 100);
        assert_eq!(allowed_seeks(1 << 30, 0), 1 << 30);
        let f = meta(1, "a", "b", 3_200_000);
        assert!(!exhausted(&f, 199, 16_000));
        assert!(exhausted(&f, 200, 16_000));
    }

    #[test]
    fn the_sample_period_is_the_multiplier_in_64_kib_units() {
        assert_eq!(sample_period(-1), None);
        assert_eq!(sample_period(0), Some(0));
        assert_eq!(sample_period(16), Some(1 << 20));
    }

    #[test]
    fn a_sample_charges_the_first_of_two_tables_holding_its_key() {
        let v = version_with(
            4,
            &[
                (0, meta(20, "a", "f", 10)),
                (0, meta(19, "d", "k", 10)),
                (1, meta(10, "a", "c", 10)),
                (1, meta(11, "g", "m", 10)),
                (2, meta(5, "a", "z", 10)),
            ],
        );
        let charged = |k: &str| sampled_charge(&v, k.as_bytes()).map(|(l, f)| (l, f.number));
        // L0 newest first, then L1, then L2.
        assert_eq!(charged("e"), Some((0, 20)));
        assert_eq!(charged("h"), Some((0, 19)));
        assert_eq!(charged("b"), Some((0, 20)));
        // Only L1 and L2 hold it.
        assert_eq!(charged("l"), Some((1, 11)));
        // Only L2 holds it: nothing charged.
        assert_eq!(charged("n"), None);
        assert_eq!(charged("zz"), None);
    }

    #[test]
    fn a_nominee_of_the_last_level_or_gone_is_not_compacted() {
        let v = version_with(
            3,
            &[(1, meta(10, "a", "c", 10)), (2, meta(5, "a", "z", 10))],
        );
        assert_eq!(nominee_level(&v, 10), Some(1));
        assert_eq!(nominee_level(&v, 5), None);
        assert_eq!(nominee_level(&v, 7), None);
    }
}
