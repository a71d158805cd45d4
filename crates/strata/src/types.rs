//! Shared vocabulary: sequence numbers, value types and internal keys.
//!
//! An internal key is `user_key ++ fixed64_le(seq << 8 | type)` (LevelDB's
//! `dbformat.h`; see `docs/formats/sstable.md`). Internal keys sort by user
//! key ascending, then sequence number descending, then type descending, so
//! the newest version of a key comes first.

use std::cmp::Ordering;

use crate::byte_enum::byte_enum;
use crate::coding::decode_fixed64;

/// A write's position in the DB's total order.
pub type SequenceNumber = u64;

/// Largest sequence number that fits the 56 bits an internal key holds.
pub const MAX_SEQUENCE_NUMBER: SequenceNumber = (1 << 56) - 1;

byte_enum! {
    /// What an internal key's entry is.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
    pub enum ValueType {
        /// A tombstone: the key is deleted as of this sequence number.
        Deletion = 0,
        /// A value stored inline.
        Value = 1,
        /// A pointer to a value in a blob file.
        BlobIndex = 2,
        /// A merge operand: the family's merge operator combines it with the
        /// older versions of the key when the key is read (RocksDB's
        /// `kTypeMerge`, which RocksDB numbers 2; Strata's 2 is the blob
        /// index, so a merge is 3).
        Merge = 3,
        /// A range deletion (RocksDB's `kTypeRangeDeletion`): in a write batch
        /// the key is the begin and the value the exclusive end of a range
        /// whose keys are deleted as of this sequence number. Range tombstones
        /// live in the memtable's range-deletion list and the table's
        /// range-deletion block, never among point entries.
        RangeDeletion = 15,
    }
}

/// The type used when seeking: the largest, so that a seek for
/// `(key, seq)` lands on the newest entry with sequence `<= seq`.
pub const VALUE_TYPE_FOR_SEEK: ValueType = ValueType::Merge;

/// Packs a sequence number and a type into the 8-byte trailer.
pub fn pack_seq_and_type(seq: SequenceNumber, t: ValueType) -> u64 {
    debug_assert!(seq <= MAX_SEQUENCE_NUMBER);
    (seq << 8) | t as u64
}

/// Builds an internal key into a fresh buffer.
pub fn make_internal_key(user_key: &[u8], seq: SequenceNumber, t: ValueType) -> Vec<u8> {
    let mut v = Vec::with_capacity(user_key.len() + 8);
    append_internal_key(&mut v, user_key, seq, t);
    v
}

/// Appends an internal key to `dst`.
pub fn append_internal_key(dst: &mut Vec<u8>, user_key: &[u8], seq: SequenceNumber, t: ValueType) {
    dst.extend_from_slice(user_key);
    dst.extend_from_slice(&pack_seq_and_type(seq, t).to_le_bytes());
}

/// A decoded view of an internal key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParsedInternalKey<'a> {
    /// The user's key.
    pub user_key: &'a [u8],
    /// Sequence number of the write.
    pub seq: SequenceNumber,
    /// Entry type.
    pub value_type: ValueType,
}

/// Splits an internal key; `None` if it is shorter than 8 bytes or the type
/// byte is unknown.
pub fn parse_internal_key(ikey: &[u8]) -> Option<ParsedInternalKey<'_>> {
    let n = ikey.len().checked_sub(8)?;
    let trailer = decode_fixed64(&ikey[n..])?;
    Some(ParsedInternalKey {
        user_key: &ikey[..n],
        seq: trailer >> 8,
        value_type: ValueType::from_u8((trailer & 0xff) as u8)?,
    })
}

/// True if `ikey` is a table's largest key made from a range tombstone's
/// exclusive end (sequence number 2^56-1, which no write has): the table
/// holds nothing at that user key.
pub fn is_range_end_bound(ikey: &[u8]) -> bool {
    trailer(ikey) >> 8 == MAX_SEQUENCE_NUMBER
}

/// The user-key part of an internal key (the whole slice if it is too short).
pub fn user_key(ikey: &[u8]) -> &[u8] {
    &ikey[..ikey.len().saturating_sub(8)]
}

/// The packed trailer of an internal key (0 if it is too short).
fn trailer(ikey: &[u8]) -> u64 {
    if ikey.len() < 8 {
        return 0;
    }
    decode_fixed64(&ikey[ikey.len() - 8..]).unwrap_or(0)
}

/// Orders internal keys: user key ascending, then (seq, type) descending.
pub fn compare_internal_keys(a: &[u8], b: &[u8]) -> Ordering {
    match user_key(a).cmp(user_key(b)) {
        Ordering::Equal => trailer(b).cmp(&trailer(a)),
        o => o,
    }
}

/// An owned internal key with the internal-key ordering, for ordered maps.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct InternalKey(pub Vec<u8>);

impl InternalKey {
    /// Builds one from its parts.
    pub fn new(user_key: &[u8], seq: SequenceNumber, t: ValueType) -> Self {
        InternalKey(make_internal_key(user_key, seq, t))
    }
    /// The encoded bytes.
    pub fn encoded(&self) -> &[u8] {
        &self.0
    }
    /// The user key part.
    pub fn user_key(&self) -> &[u8] {
        user_key(&self.0)
    }
}

impl Ord for InternalKey {
    fn cmp(&self, other: &Self) -> Ordering {
        compare_internal_keys(&self.0, &other.0)
    }
}

impl PartialOrd for InternalKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newer_versions_sort_first() {
        let a = make_internal_key(b"k", 10, ValueType::Value);
        let b = make_internal_key(b"k", 5, ValueType::Value);
        let c = make_internal_key(b"l", 100, ValueType::Value);
        assert_eq!(compare_internal_keys(&a, &b), Ordering::Less);
        assert_eq!(compare_internal_keys(&b, &c), Ordering::Less);
        let d = make_internal_key(b"k", 10, ValueType::Deletion);
        assert_eq!(compare_internal_keys(&a, &d), Ordering::Less);
    }

    #[test]
    fn parse_round_trip_and_reject_short() {
        let k = make_internal_key(b"hello", 42, ValueType::Deletion);
        let p = parse_internal_key(&k).unwrap();
        assert_eq!(p.user_key, b"hello");
        assert_eq!(p.seq, 42);
        assert_eq!(p.value_type, ValueType::Deletion);
        assert!(parse_internal_key(b"short").is_none());
        let mut bad = make_internal_key(b"x", 1, ValueType::Value);
        let n = bad.len();
        bad[n - 8] = 0x77;
        assert!(parse_internal_key(&bad).is_none());
        bad[n - 8] = 4;
        assert!(parse_internal_key(&bad).is_none());
    }

    #[test]
    fn merge_is_the_largest_type_so_seeks_find_it() {
        for b in 0..=255u8 {
            if let Some(t) = ValueType::from_u8(b) {
                assert_eq!(t as u8, b);
                // Range deletions are never point entries, so seeks never
                // need to find one.
                assert!(t <= VALUE_TYPE_FOR_SEEK || t == ValueType::RangeDeletion);
            }
        }
        let m = make_internal_key(b"k", 7, ValueType::Merge);
        let seek = make_internal_key(b"k", 7, VALUE_TYPE_FOR_SEEK);
        assert_ne!(compare_internal_keys(&seek, &m), Ordering::Greater);
        assert_eq!(parse_internal_key(&m).unwrap().value_type, ValueType::Merge);
    }
}
