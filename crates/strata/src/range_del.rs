//! Range tombstones and their fragmentation (RocksDB's
//! `FragmentedRangeTombstoneList`).
//!
//! A range tombstone deletes every user key in `[begin, end)` written with a
//! smaller sequence number. Tombstones may overlap; reads need, for one user
//! key, the newest tombstone covering it that a reader at sequence `read_seq`
//! sees. [`FragmentedTombstones`] cuts a set of tombstones at every begin and
//! end key into non-overlapping fragments, each holding the sequence numbers
//! of all the tombstones spanning it, newest first, so that question is one
//! binary search over fragments and one over a fragment's sequences.
//!
//! Compactions ask the same question with `read_seq` set to the top of a
//! key's snapshot stripe ([`FragmentedTombstones::max_covering_seq`]), keep
//! only the newest sequence of a fragment per stripe
//! ([`FragmentedTombstones::compact`]) and cut the fragments at an output
//! file's boundaries ([`FragmentedTombstones::truncate`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::error::Result;
use crate::iter::InternalIterator;
use crate::types::{pack_seq_and_type, parse_internal_key, SequenceNumber, ValueType};

/// One range tombstone: the user keys in `[begin, end)` are deleted as of
/// sequence number `seq`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RangeTombstone {
    /// First deleted user key (inclusive).
    pub begin: Vec<u8>,
    /// End of the deleted range (exclusive).
    pub end: Vec<u8>,
    /// Sequence number of the deletion.
    pub seq: SequenceNumber,
}

impl RangeTombstone {
    /// A tombstone over `[begin, end)` at `seq`.
    pub fn new(begin: impl Into<Vec<u8>>, end: impl Into<Vec<u8>>, seq: SequenceNumber) -> Self {
        RangeTombstone {
            begin: begin.into(),
            end: end.into(),
            seq,
        }
    }

    /// True if the range holds no key (`begin >= end`); such tombstones
    /// delete nothing.
    pub fn is_empty(&self) -> bool {
        self.begin >= self.end
    }
}

/// A piece of the key space `[begin, end)` with the sequence numbers of
/// the tombstones that span it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fragment {
    /// First user key of the fragment (inclusive).
    pub begin: Vec<u8>,
    /// End of the fragment (exclusive).
    pub end: Vec<u8>,
    /// Sequence numbers of the tombstones covering the fragment, descending
    /// and distinct; never empty.
    pub seqs: Vec<SequenceNumber>,
}

/// A set of range tombstones cut into sorted, non-overlapping fragments.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FragmentedTombstones {
    fragments: Vec<Fragment>,
}

impl FragmentedTombstones {
    /// Fragments `tombstones` (in any order; empty ranges are ignored).
    pub fn new<'a>(tombstones: impl IntoIterator<Item = &'a RangeTombstone>) -> Self {
        // Sweep the boundary keys in order; at each one, tombstones ending
        // there leave the active set and those beginning there join it.
        let mut events: BTreeMap<&[u8], (Vec<SequenceNumber>, Vec<SequenceNumber>)> =
            BTreeMap::new();
        for t in tombstones {
            if t.is_empty() {
                continue;
            }
            events.entry(&t.begin).or_default().0.push(t.seq);
            events.entry(&t.end).or_default().1.push(t.seq);
        }
        let mut active: BTreeMap<SequenceNumber, usize> = BTreeMap::new();
        let mut fragments = Vec::new();
        let mut prev: Option<&[u8]> = None;
        for (key, (starts, ends)) in events {
            if let Some(p) = prev {
                if !active.is_empty() {
                    fragments.push(Fragment {
                        begin: p.to_vec(),
                        end: key.to_vec(),
                        seqs: active.keys().rev().copied().collect(),
                    });
                }
            }
            for s in ends {
                if let Some(n) = active.get_mut(&s) {
                    *n -= 1;
                    if *n == 0 {
                        active.remove(&s);
                    }
                }
            }
            for s in starts {
                *active.entry(s).or_default() += 1;
            }
            prev = Some(key);
        }
        FragmentedTombstones { fragments }
    }

    /// Wraps fragments that are already sorted, non-overlapping and have
    /// descending, distinct, non-empty sequence lists (as
    /// [`FragmentedTombstones::fragments`] returns them); `None` otherwise.
    pub fn from_fragments(fragments: Vec<Fragment>) -> Option<Self> {
        for (i, f) in fragments.iter().enumerate() {
            if f.begin >= f.end || f.seqs.is_empty() || f.seqs.windows(2).any(|w| w[0] <= w[1]) {
                return None;
            }
            if i > 0 && fragments[i - 1].end > f.begin {
                return None;
            }
        }
        Some(FragmentedTombstones { fragments })
    }

    /// The fragments, sorted by key.
    pub fn fragments(&self) -> &[Fragment] {
        &self.fragments
    }

    /// True if there is no fragment.
    pub fn is_empty(&self) -> bool {
        self.fragments.is_empty()
    }

    /// The fragment containing `key`, if any.
    fn fragment_for(&self, key: &[u8]) -> Option<&Fragment> {
        // First fragment whose end is past the key.
        let i = self.fragments.partition_point(|f| f.end.as_slice() <= key);
        self.fragments.get(i).filter(|f| f.begin.as_slice() <= key)
    }

    /// The largest sequence number `<= read_seq` of a tombstone covering
    /// `key`, if any.
    pub fn max_covering_seq(&self, key: &[u8], read_seq: SequenceNumber) -> Option<SequenceNumber> {
        let f = self.fragment_for(key)?;
        let i = f.seqs.partition_point(|&s| s > read_seq);
        f.seqs.get(i).copied()
    }

    /// True if a tombstone visible at `read_seq` deletes the version of
    /// `key` written at `entry_seq`.
    pub fn covers(&self, key: &[u8], entry_seq: SequenceNumber, read_seq: SequenceNumber) -> bool {
        self.max_covering_seq(key, read_seq)
            .is_some_and(|s| s > entry_seq)
    }

    /// Keeps, per fragment, only the newest sequence number in each
    /// snapshot stripe (`snapshots` ascending; a stripe is the sequences
    /// above one snapshot up to and including the next), as a compaction
    /// may: an older tombstone in the same stripe as a newer one over the
    /// same keys is invisible to every reader.
    pub fn compact(&mut self, snapshots: &[SequenceNumber]) {
        let stripe = |s: SequenceNumber| snapshots.partition_point(|&snap| snap < s);
        for f in &mut self.fragments {
            let mut last = None;
            f.seqs.retain(|&s| {
                let st = stripe(s);
                let keep = last != Some(st);
                last = Some(st);
                keep
            });
        }
    }

    /// Removes every sequence number for which `drop` is true (a
    /// compaction dropping tombstones at the bottom level), and the
    /// fragments left without one.
    pub fn retain_seqs(&mut self, mut keep: impl FnMut(SequenceNumber) -> bool) {
        for f in &mut self.fragments {
            f.seqs.retain(|&s| keep(s));
        }
        self.fragments.retain(|f| !f.seqs.is_empty());
    }

    /// The fragments cut to the user keys in `[lo, hi)` (`None` bounds are
    /// open), for an output file covering that range.
    pub fn truncate(&self, lo: Option<&[u8]>, hi: Option<&[u8]>) -> FragmentedTombstones {
        let mut fragments = Vec::new();
        for f in &self.fragments {
            let begin = match lo {
                Some(lo) if lo > f.begin.as_slice() => lo,
                _ => f.begin.as_slice(),
            };
            let end = match hi {
                Some(hi) if hi < f.end.as_slice() => hi,
                _ => f.end.as_slice(),
            };
            if begin < end {
                fragments.push(Fragment {
                    begin: begin.to_vec(),
                    end: end.to_vec(),
                    seqs: f.seqs.clone(),
                });
            }
        }
        FragmentedTombstones { fragments }
    }

    /// The tombstones the fragments stand for: one per fragment and
    /// sequence number, sorted by begin key, then sequence descending.
    pub fn tombstones(&self) -> impl Iterator<Item = RangeTombstone> + '_ {
        self.fragments.iter().flat_map(|f| {
            f.seqs
                .iter()
                .map(|&s| RangeTombstone::new(f.begin.clone(), f.end.clone(), s))
        })
    }
}

/// Fragments the union of several tombstone sets.
pub fn union<'a>(sets: impl IntoIterator<Item = &'a FragmentedTombstones>) -> FragmentedTombstones {
    let all: Vec<RangeTombstone> = sets.into_iter().flat_map(|s| s.tombstones()).collect();
    FragmentedTombstones::new(&all)
}

/// An iterator over internal keys that shows every entry a range tombstone
/// visible at `read_seq` covers as a point deletion at the entry's own
/// sequence number (with an empty value). The DB iterator reading through
/// it then skips covered keys, and a covered merge operand ends the
/// operands of its key, as a point deletion would.
pub struct RangeDelMaskIter {
    inner: Box<dyn InternalIterator>,
    tombstones: Arc<FragmentedTombstones>,
    read_seq: SequenceNumber,
    masked: bool,
    key: Vec<u8>,
}

impl RangeDelMaskIter {
    /// Wraps `inner`; a tombstone set without fragments leaves every entry
    /// as it is.
    pub fn new(
        inner: Box<dyn InternalIterator>,
        tombstones: Arc<FragmentedTombstones>,
        read_seq: SequenceNumber,
    ) -> Self {
        RangeDelMaskIter {
            inner,
            tombstones,
            read_seq,
            masked: false,
            key: Vec::new(),
        }
    }

    fn update(&mut self) {
        self.masked = false;
        if !self.inner.valid() || self.tombstones.is_empty() {
            return;
        }
        let Some(p) = parse_internal_key(self.inner.key()) else {
            return;
        };
        if p.seq <= self.read_seq && self.tombstones.covers(p.user_key, p.seq, self.read_seq) {
            self.masked = true;
            self.key.clear();
            self.key.extend_from_slice(p.user_key);
            self.key
                .extend_from_slice(&pack_seq_and_type(p.seq, ValueType::Deletion).to_le_bytes());
        }
    }
}

impl InternalIterator for RangeDelMaskIter {
    fn valid(&self) -> bool {
        self.inner.valid()
    }
    fn seek_to_first(&mut self) {
        self.inner.seek_to_first();
        self.update();
    }
    fn seek_to_last(&mut self) {
        self.inner.seek_to_last();
        self.update();
    }
    fn seek(&mut self, target: &[u8]) {
        self.inner.seek(target);
        self.update();
    }
    fn seek_for_prev(&mut self, target: &[u8]) {
        self.inner.seek_for_prev(target);
        self.update();
    }
    fn next(&mut self) {
        self.inner.next();
        self.update();
    }
    fn prev(&mut self) {
        self.inner.prev();
        self.update();
    }
    fn key(&self) -> &[u8] {
        if self.masked {
            &self.key
        } else {
            self.inner.key()
        }
    }
    fn value(&self) -> &[u8] {
        if self.masked {
            &[]
        } else {
            self.inner.value()
        }
    }
    fn pinned_value(&self) -> Option<crate::pinnable::PinnableSlice> {
        if self.masked {
            None
        } else {
            self.inner.pinned_value()
        }
    }
    fn status(&self) -> Result<()> {
        self.inner.status()
    }
}

/// A forward iterator over a flush's or compaction's input that leaves
/// out every entry a range tombstone deletes in the entry's own snapshot
/// stripe (`snapshots` ascending): no reader can see such an entry, and
/// the merges and drop rules downstream never meet it.
pub struct CoveredSkipIter<I> {
    inner: I,
    tombstones: Arc<FragmentedTombstones>,
    snapshots: Vec<SequenceNumber>,
    skipped: u64,
    /// Left-out blob index entries, for the blob garbage accounting.
    skipped_blob_indexes: Vec<(Vec<u8>, Vec<u8>)>,
}

impl<I: InternalIterator> CoveredSkipIter<I> {
    /// Wraps `inner`.
    pub fn new(
        inner: I,
        tombstones: Arc<FragmentedTombstones>,
        snapshots: Vec<SequenceNumber>,
    ) -> Self {
        CoveredSkipIter {
            inner,
            tombstones,
            snapshots,
            skipped: 0,
            skipped_blob_indexes: Vec::new(),
        }
    }

    /// Entries left out so far.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Takes the blob index entries left out since the last call: the
    /// blob values they point to are garbage, as a dropped put's are.
    pub fn take_skipped_blob_indexes(&mut self) -> Vec<(Vec<u8>, Vec<u8>)> {
        std::mem::take(&mut self.skipped_blob_indexes)
    }

    fn covered(&self) -> bool {
        let Some(p) = parse_internal_key(self.inner.key()) else {
            return false;
        };
        let i = self.snapshots.partition_point(|&s| s < p.seq);
        let top = self
            .snapshots
            .get(i)
            .copied()
            .unwrap_or(SequenceNumber::MAX);
        self.tombstones.covers(p.user_key, p.seq, top)
    }

    fn skip_covered(&mut self) {
        if self.tombstones.is_empty() {
            return;
        }
        while self.inner.valid() && self.covered() {
            self.skipped += 1;
            if parse_internal_key(self.inner.key())
                .is_some_and(|p| p.value_type == ValueType::BlobIndex)
            {
                self.skipped_blob_indexes
                    .push((self.inner.key().to_vec(), self.inner.value().to_vec()));
            }
            self.inner.next();
        }
    }
}

impl<I: InternalIterator> InternalIterator for CoveredSkipIter<I> {
    fn valid(&self) -> bool {
        self.inner.valid()
    }
    fn seek_to_first(&mut self) {
        self.inner.seek_to_first();
        self.skip_covered();
    }
    fn seek_to_last(&mut self) {
        // Forward only: flushes and compactions never step back.
        self.inner.seek_to_last();
    }
    fn seek(&mut self, target: &[u8]) {
        self.inner.seek(target);
        self.skip_covered();
    }
    fn seek_for_prev(&mut self, target: &[u8]) {
        self.inner.seek_for_prev(target);
    }
    fn next(&mut self) {
        self.inner.next();
        self.skip_covered();
    }
    fn prev(&mut self) {
        self.inner.prev();
    }
    fn key(&self) -> &[u8] {
        self.inner.key()
    }
    fn value(&self) -> &[u8] {
        self.inner.value()
    }
    fn status(&self) -> Result<()> {
        self.inner.status()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frag(ts: &[(&str, &str, u64)]) -> FragmentedTombstones {
        let ts: Vec<_> = ts
            .iter()
            .map(|&(b, e, s)| RangeTombstone::new(b, e, s))
            .collect();
        FragmentedTombstones::new(&ts)
    }

    fn shape(f: &FragmentedTombstones) -> Vec<(String, String, Vec<u64>)> {
        f.fragments()
            .iter()
            .map(|f| {
                (
                    String::from_utf8(f.begin.clone()).unwrap(),
                    String::from_utf8(f.end.clone()).unwrap(),
                    f.seqs.clone(),
                )
            })
            .collect()
    }

    fn s(b: &str, e: &str, seqs: &[u64]) -> (String, String, Vec<u64>) {
        (b.into(), e.into(), seqs.to_vec())
    }

    #[test]
    fn overlapping_tombstones_are_cut_at_every_boundary() {
        let f = frag(&[("a", "e", 5), ("c", "g", 9), ("c", "d", 3)]);
        assert_eq!(
            shape(&f),
            vec![
                s("a", "c", &[5]),
                s("c", "d", &[9, 5, 3]),
                s("d", "e", &[9, 5]),
                s("e", "g", &[9]),
            ]
        );
    }

    #[test]
    fn gaps_and_empty_ranges_make_no_fragment() {
        let f = frag(&[("a", "b", 1), ("c", "d", 2), ("x", "x", 3), ("z", "y", 4)]);
        assert_eq!(shape(&f), vec![s("a", "b", &[1]), s("c", "d", &[2])]);
        assert!(frag(&[]).is_empty());
    }

    #[test]
    fn duplicate_tombstones_keep_one_sequence() {
        let f = frag(&[("a", "c", 4), ("a", "c", 4), ("b", "c", 4)]);
        assert_eq!(shape(&f), vec![s("a", "b", &[4]), s("b", "c", &[4])]);
    }

    #[test]
    fn covering_sequence_respects_the_read_sequence() {
        let f = frag(&[("b", "f", 10), ("d", "h", 20)]);
        assert_eq!(f.max_covering_seq(b"a", 100), None);
        assert_eq!(f.max_covering_seq(b"b", 100), Some(10));
        assert_eq!(f.max_covering_seq(b"e", 100), Some(20));
        assert_eq!(f.max_covering_seq(b"e", 19), Some(10));
        assert_eq!(f.max_covering_seq(b"e", 9), None);
        assert_eq!(f.max_covering_seq(b"h", 100), None);
        assert!(f.covers(b"e", 15, 100));
        assert!(!f.covers(b"e", 15, 19));
        assert!(!f.covers(b"e", 20, 100));
    }

    #[test]
    fn compact_keeps_the_newest_sequence_per_stripe() {
        let mut f = frag(&[("a", "c", 3), ("a", "c", 5), ("a", "c", 8), ("b", "d", 12)]);
        f.compact(&[5]);
        assert_eq!(
            shape(&f),
            vec![
                s("a", "b", &[8, 5]),
                s("b", "c", &[12, 5]),
                s("c", "d", &[12])
            ]
        );
        let mut all = frag(&[("a", "c", 3), ("a", "c", 5)]);
        all.compact(&[]);
        assert_eq!(shape(&all), vec![s("a", "c", &[5])]);
    }

    #[test]
    fn retain_and_truncate() {
        let mut f = frag(&[("a", "e", 5), ("c", "g", 9)]);
        f.retain_seqs(|s| s != 5);
        assert_eq!(shape(&f), vec![s("c", "e", &[9]), s("e", "g", &[9])]);
        let f = frag(&[("a", "e", 5), ("c", "g", 9)]);
        let t = f.truncate(Some(b"b"), Some(b"d"));
        assert_eq!(shape(&t), vec![s("b", "c", &[5]), s("c", "d", &[9, 5])]);
        assert_eq!(shape(&f.truncate(None, None)), shape(&f));
        assert!(f.truncate(Some(b"x"), None).is_empty());
    }

    #[test]
    fn from_fragments_checks_the_invariants() {
        let f = frag(&[("a", "e", 5), ("c", "g", 9)]);
        let again = FragmentedTombstones::from_fragments(f.fragments().to_vec()).unwrap();
        assert_eq!(again, f);
        let bad = |b: &str, e: &str, seqs: Vec<u64>| {
            FragmentedTombstones::from_fragments(vec![Fragment {
                begin: b.into(),
                end: e.into(),
                seqs,
            }])
        };
        assert!(bad("b", "a", vec![1]).is_none());
        assert!(bad("a", "b", vec![]).is_none());
        assert!(bad("a", "b", vec![1, 2]).is_none());
        assert!(FragmentedTombstones::from_fragments(vec![
            Fragment {
                begin: b"a".to_vec(),
                end: b"c".to_vec(),
                seqs: vec![1]
            },
            Fragment {
                begin: b"b".to_vec(),
                end: b"d".to_vec(),
                seqs: vec![1]
            },
        ])
        .is_none());
    }

    /// The fragments answer every point query as a scan of the raw
    /// tombstones does.
    #[test]
    fn matches_a_scan_of_the_tombstones() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        for _ in 0..200 {
            let n = next(8);
            let ts: Vec<_> = (0..n)
                .map(|_| {
                    let b = next(20) as u8;
                    let e = next(20) as u8;
                    RangeTombstone::new(vec![b], vec![e], next(30))
                })
                .collect();
            let f = FragmentedTombstones::new(&ts);
            let again = FragmentedTombstones::from_fragments(f.fragments().to_vec());
            assert_eq!(again.as_ref(), Some(&f));
            for k in 0..21u8 {
                for read in [0, 5, 15, 29, 100] {
                    let want = ts
                        .iter()
                        .filter(|t| t.begin[0] <= k && k < t.end[0] && t.seq <= read)
                        .map(|t| t.seq)
                        .max();
                    assert_eq!(f.max_covering_seq(&[k], read), want, "{ts:?} key {k}");
                }
            }
        }
    }
}
