//! Which entries a flush or compaction keeps: per user key, the newest
//! version in each snapshot stripe survives; older versions in the same
//! stripe are dropped; a tombstone older than every snapshot is dropped
//! (with everything under it) when no deeper level can hold the key.

use crate::types::{parse_internal_key, SequenceNumber, ValueType};

/// The decision for one entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Write it to the output.
    Keep,
    /// Shadowed by a newer version no snapshot separates it from, a
    /// dropped tombstone included (`rocksdb.compaction.key.drop.new`, as
    /// RocksDB counts the versions under a tombstone it drops).
    DropShadowed,
    /// A tombstone nothing can see any more, at a level below which no file
    /// holds its key (`rocksdb.compaction.key.drop.obsolete`).
    DropObsolete,
}

/// Stateful filter over entries arriving in internal-key order.
#[derive(Debug)]
pub struct DropRules {
    snapshots: Vec<SequenceNumber>,
    current_key: Vec<u8>,
    has_current: bool,
    last_stripe: Option<usize>,
}

impl DropRules {
    /// `snapshots`: sequence numbers of live snapshots, any order.
    pub fn new(mut snapshots: Vec<SequenceNumber>) -> Self {
        snapshots.sort_unstable();
        snapshots.dedup();
        DropRules {
            snapshots,
            current_key: Vec::new(),
            has_current: false,
            last_stripe: None,
        }
    }

    /// Index of the smallest snapshot `>= seq` (= number of snapshots when
    /// the entry is newer than all of them).
    fn stripe(&self, seq: SequenceNumber) -> usize {
        self.snapshots.partition_point(|&s| s < seq)
    }

    /// Decides for one entry. `bottommost(user_key)` says whether no deeper
    /// level may hold the key; it is only called for tombstones.
    /// Malformed keys are kept (the caller's checksums catch real damage).
    pub fn decide(&mut self, ikey: &[u8], bottommost: impl FnOnce(&[u8]) -> bool) -> Decision {
        let Some(p) = parse_internal_key(ikey) else {
            return Decision::Keep;
        };
        if !self.has_current || p.user_key != self.current_key.as_slice() {
            self.current_key.clear();
            self.current_key.extend_from_slice(p.user_key);
            self.has_current = true;
            self.last_stripe = None;
        }
        // The versions under a dropped tombstone are in its stripe (the
        // oldest: below every snapshot), so they fall to the rule below.
        let stripe = self.stripe(p.seq);
        if self.last_stripe == Some(stripe) {
            return Decision::DropShadowed;
        }
        self.last_stripe = Some(stripe);
        if p.value_type == ValueType::Deletion && stripe == 0 && bottommost(p.user_key) {
            return Decision::DropObsolete;
        }
        Decision::Keep
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::make_internal_key;

    fn run(entries: &[(&str, u64, ValueType)], snaps: Vec<u64>, bottom: bool) -> Vec<Decision> {
        let mut r = DropRules::new(snaps);
        entries
            .iter()
            .map(|(k, s, t)| r.decide(&make_internal_key(k.as_bytes(), *s, *t), |_| bottom))
            .collect()
    }

    use Decision::*;
    const V: ValueType = ValueType::Value;
    const D: ValueType = ValueType::Deletion;

    #[test]
    fn newest_version_wins_without_snapshots() {
        assert_eq!(
            run(
                &[("a", 9, V), ("a", 5, V), ("a", 1, D), ("b", 3, V)],
                vec![],
                false
            ),
            [Keep, DropShadowed, DropShadowed, Keep]
        );
    }

    #[test]
    fn snapshots_keep_the_version_they_see() {
        // Snapshot at 6 sees a@5; snapshot at 2 sees a@1.
        assert_eq!(
            run(
                &[("a", 9, V), ("a", 5, V), ("a", 4, V), ("a", 1, V)],
                vec![6, 2],
                false
            ),
            [Keep, Keep, DropShadowed, Keep]
        );
    }

    #[test]
    fn tombstones_drop_only_at_the_bottom_and_below_all_snapshots() {
        assert_eq!(
            run(&[("a", 9, D), ("a", 5, V), ("a", 3, V)], vec![], true),
            [DropObsolete, DropShadowed, DropShadowed]
        );
        assert_eq!(
            run(&[("a", 9, D), ("a", 5, V)], vec![], false),
            [Keep, DropShadowed]
        );
        // A snapshot at 7 still sees a@5, so neither goes.
        assert_eq!(
            run(&[("a", 9, D), ("a", 5, V)], vec![7], true),
            [Keep, Keep]
        );
    }
}
