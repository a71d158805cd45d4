//! [`WriteBatch`]: a group of updates applied atomically, and the payload of
//! one WAL record.
//!
//! Encoding (RocksDB/LevelDB `WriteBatch` rep, see `docs/formats/wal.md`):
//! `fixed64 sequence`, `fixed32 count`, then `count` records, each a tag byte
//! (a [`ValueType`]) and a varint-length-prefixed key, followed for `Value`,
//! `BlobIndex`, `Merge` and `RangeDeletion` by a varint-length-prefixed
//! value (a range deletion's key is its begin, its value its end). A record for a column
//! family other than "default" (id 0) has the tag plus [`CF_TAG_OFFSET`] and
//! a varint32 family id after it.

use std::fmt;

use crate::coding::{put_varint32, Decoder};
use crate::error::{Error, Result};
use crate::types::{SequenceNumber, ValueType};

/// Bytes of the batch header: sequence (8) and count (4).
pub const HEADER_SIZE: usize = 12;

/// Added to a record's [`ValueType`] tag when a varint32 column family id
/// follows it (tags 4, 5, 6, 7 and 19: deletion, value, blob index, merge
/// operand and range deletion in a family other than "default").
pub const CF_TAG_OFFSET: u8 = 4;

/// A set of puts, deletes and merges that the DB applies atomically: after a crash
/// either all of them are visible or none is. Operations apply in the order
/// they were added, and the batch's records get consecutive sequence numbers
/// starting at the batch's sequence number.
#[derive(Clone, PartialEq, Eq)]
pub struct WriteBatch {
    rep: Vec<u8>,
    /// Ids of the column families other than "default" the batch writes
    /// to, ascending (empty for most batches).
    cfs: Vec<u32>,
    /// Set when an operation could not be encoded (a key or value of 4 GiB
    /// or more, or more than `u32::MAX` records); see [`WriteBatch::check`].
    invalid: Option<String>,
}

/// One operation of a batch, borrowed from its encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchOp<'a> {
    /// The column family's id (0 = "default").
    pub cf: u32,
    /// `Value` (put), `Deletion` (delete), `BlobIndex` (put of a value
    /// stored in a blob file; `value` is the encoded blob index) or
    /// `Merge` (a merge operand).
    pub value_type: ValueType,
    /// The user key.
    pub key: &'a [u8],
    /// The value; empty for deletions.
    pub value: &'a [u8],
}

impl Default for WriteBatch {
    fn default() -> Self {
        Self::new()
    }
}

impl WriteBatch {
    /// An empty batch.
    pub fn new() -> Self {
        WriteBatch {
            rep: vec![0; HEADER_SIZE],
            cfs: Vec::new(),
            invalid: None,
        }
    }

    /// Adds a put of `key` to `value`.
    pub fn put(&mut self, key: impl AsRef<[u8]>, value: impl AsRef<[u8]>) {
        self.add(0, ValueType::Value, key.as_ref(), Some(value.as_ref()));
    }

    /// Adds a delete of `key`.
    pub fn delete(&mut self, key: impl AsRef<[u8]>) {
        self.add(0, ValueType::Deletion, key.as_ref(), None);
    }

    /// Adds a merge of `operand` into `key`: reads combine it with the
    /// key's older versions through the family's merge operator
    /// ([`Options::merge_operator`](crate::Options::merge_operator)).
    pub fn merge(&mut self, key: impl AsRef<[u8]>, operand: impl AsRef<[u8]>) {
        self.add(0, ValueType::Merge, key.as_ref(), Some(operand.as_ref()));
    }

    /// Adds a deletion of every key in `[begin, end)` (RocksDB's
    /// `DeleteRange`): reads at or after the batch's sequence number see
    /// none of the range's older versions. An empty range (`begin >= end`)
    /// deletes nothing.
    pub fn delete_range(&mut self, begin: impl AsRef<[u8]>, end: impl AsRef<[u8]>) {
        self.add(
            0,
            ValueType::RangeDeletion,
            begin.as_ref(),
            Some(end.as_ref()),
        );
    }

    /// Adds a deletion of every key in `[begin, end)` in column family `cf`.
    pub fn delete_range_cf(
        &mut self,
        cf: &crate::ColumnFamily,
        begin: impl AsRef<[u8]>,
        end: impl AsRef<[u8]>,
    ) {
        self.add(
            cf.id(),
            ValueType::RangeDeletion,
            begin.as_ref(),
            Some(end.as_ref()),
        );
    }

    /// Adds a put of `key` to `value` in column family `cf`.
    pub fn put_cf(
        &mut self,
        cf: &crate::ColumnFamily,
        key: impl AsRef<[u8]>,
        value: impl AsRef<[u8]>,
    ) {
        self.add(
            cf.id(),
            ValueType::Value,
            key.as_ref(),
            Some(value.as_ref()),
        );
    }

    /// Adds a delete of `key` in column family `cf`.
    pub fn delete_cf(&mut self, cf: &crate::ColumnFamily, key: impl AsRef<[u8]>) {
        self.add(cf.id(), ValueType::Deletion, key.as_ref(), None);
    }

    /// Adds a merge of `operand` into `key` in column family `cf`.
    pub fn merge_cf(
        &mut self,
        cf: &crate::ColumnFamily,
        key: impl AsRef<[u8]>,
        operand: impl AsRef<[u8]>,
    ) {
        self.add(
            cf.id(),
            ValueType::Merge,
            key.as_ref(),
            Some(operand.as_ref()),
        );
    }

    /// Adds an operation for the family with id `cf` (tests and tools).
    pub(crate) fn add_raw(&mut self, cf: u32, t: ValueType, key: &[u8], value: &[u8]) {
        let v = (t != ValueType::Deletion).then_some(value);
        self.add(cf, t, key, v);
    }

    /// Adds a put whose value lives in a blob file; `index` is the encoded
    /// blob index (used by the write path when values are separated).
    pub(crate) fn put_blob_index(&mut self, key: &[u8], index: &[u8]) {
        self.add(0, ValueType::BlobIndex, key, Some(index));
    }

    fn add(&mut self, cf: u32, t: ValueType, key: &[u8], value: Option<&[u8]>) {
        let too_big = |b: &[u8]| u32::try_from(b.len()).is_err();
        if too_big(key) || value.is_some_and(too_big) {
            self.invalid = Some("a key or value of 4 GiB or more".into());
            return;
        }
        let Some(count) = self.count().checked_add(1) else {
            self.invalid = Some("more than 2^32-1 operations".into());
            return;
        };
        if cf == 0 {
            self.rep.push(t as u8);
        } else {
            if let Err(i) = self.cfs.binary_search(&cf) {
                self.cfs.insert(i, cf);
            }
            self.rep.push(t as u8 + CF_TAG_OFFSET);
            put_varint32(&mut self.rep, cf);
        }
        put_varint32(&mut self.rep, key.len() as u32);
        self.rep.extend_from_slice(key);
        if let Some(v) = value {
            put_varint32(&mut self.rep, v.len() as u32);
            self.rep.extend_from_slice(v);
        }
        self.set_count(count);
    }

    /// `Err(InvalidArgument)` if an operation could not be added because a
    /// key or value was 4 GiB or larger or the batch had `u32::MAX`
    /// operations; such operations are left out of the batch, so the write
    /// path must call this and refuse the batch.
    pub(crate) fn check(&self) -> Result<()> {
        match &self.invalid {
            Some(m) => Err(Error::InvalidArgument(format!("write batch has {m}"))),
            None => Ok(()),
        }
    }

    /// Removes every operation (the sequence number is reset to 0).
    pub fn clear(&mut self) {
        self.cfs.clear();
        self.rep.clear();
        self.rep.resize(HEADER_SIZE, 0);
        self.invalid = None;
    }

    /// Number of operations.
    pub fn count(&self) -> u32 {
        let b = self.rep.get(8..12).unwrap_or(&[0; 4]);
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    }

    fn set_count(&mut self, n: u32) {
        if let Some(b) = self.rep.get_mut(8..12) {
            b.copy_from_slice(&n.to_le_bytes());
        }
    }

    /// True if the batch holds no operation.
    pub fn is_empty(&self) -> bool {
        self.count() == 0
    }

    /// Sequence number of the first operation (set by the write path).
    pub(crate) fn sequence(&self) -> SequenceNumber {
        let b = self.rep.get(..8).unwrap_or(&[0; 8]);
        u64::from_le_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
    }

    /// Sets the sequence number of the first operation.
    pub(crate) fn set_sequence(&mut self, seq: SequenceNumber) {
        if let Some(b) = self.rep.get_mut(..8) {
            b.copy_from_slice(&seq.to_le_bytes());
        }
    }

    /// Ids of the column families other than "default" the batch writes
    /// to, ascending.
    pub(crate) fn families(&self) -> &[u32] {
        &self.cfs
    }

    /// The encoded batch: exactly the payload of its WAL record.
    pub(crate) fn data(&self) -> &[u8] {
        &self.rep
    }

    /// Size of the encoded batch in bytes (RocksDB's `GetDataSize`).
    pub fn data_size(&self) -> usize {
        self.rep.len()
    }

    /// Approximate size of the batch in bytes, for write-buffer accounting
    /// and batching decisions (RocksDB's `ApproximateSize`: today the same as
    /// [`WriteBatch::data_size`]).
    pub fn approximate_size(&self) -> usize {
        self.rep.len()
    }

    /// Parses and fully validates an encoded batch (a WAL record read from
    /// `file_name` at `offset`). A short header, a truncated or unknown
    /// record, trailing bytes or a count that does not match the records is
    /// `Corruption` naming that file and offset.
    pub(crate) fn from_data(data: Vec<u8>, file_name: &str, offset: u64) -> Result<WriteBatch> {
        let bad = |m: String| Error::corruption(file_name, offset, format!("write batch: {m}"));
        if data.len() < HEADER_SIZE {
            return Err(bad(format!(
                "{} bytes, shorter than its header",
                data.len()
            )));
        }
        let mut batch = WriteBatch {
            rep: data,
            cfs: Vec::new(),
            invalid: None,
        };
        let mut d = Decoder::new(batch.rep.get(HEADER_SIZE..).unwrap_or(&[]));
        let mut found: u64 = 0;
        let mut cfs = Vec::new();
        while !d.is_empty() {
            let at = HEADER_SIZE + d.position();
            match decode_op(&mut d) {
                None => return Err(bad(format!("malformed record at batch byte {at}"))),
                Some(op) if op.cf != 0 => {
                    if let Err(i) = cfs.binary_search(&op.cf) {
                        cfs.insert(i, op.cf);
                    }
                }
                Some(_) => {}
            }
            found += 1;
        }
        batch.cfs = cfs;
        if found != u64::from(batch.count()) {
            return Err(bad(format!(
                "header count {} but {found} records",
                batch.count()
            )));
        }
        Ok(batch)
    }

    /// The operations in order. A batch is always well formed (built through
    /// this API or validated by [`WriteBatch::from_data`]), so iteration
    /// needs no error; it would simply end early on malformed bytes.
    pub(crate) fn iter(&self) -> impl Iterator<Item = BatchOp<'_>> + '_ {
        let mut d = Decoder::new(self.rep.get(HEADER_SIZE..).unwrap_or(&[]));
        std::iter::from_fn(move || decode_op(&mut d))
    }

    /// Appends `other`'s operations after this batch's (group commit). This
    /// batch's sequence number is kept.
    pub fn append(&mut self, other: &WriteBatch) {
        if let Some(m) = &other.invalid {
            self.invalid = Some(m.clone());
        }
        match self.count().checked_add(other.count()) {
            Some(n) => {
                self.rep
                    .extend_from_slice(other.rep.get(HEADER_SIZE..).unwrap_or(&[]));
                self.set_count(n);
                for &cf in &other.cfs {
                    if let Err(i) = self.cfs.binary_search(&cf) {
                        self.cfs.insert(i, cf);
                    }
                }
            }
            None => self.invalid = Some("more than 2^32-1 operations".into()),
        }
    }
}

/// Decodes one record; `None` at the end or on malformed input.
fn decode_op<'a>(d: &mut Decoder<'a>) -> Option<BatchOp<'a>> {
    let tag = d.u8()?;
    let (value_type, cf) = match ValueType::from_u8(tag) {
        Some(t) => (t, 0),
        None => {
            let t = ValueType::from_u8(tag.checked_sub(CF_TAG_OFFSET)?)?;
            (t, d.varint32()?)
        }
    };
    let key = d.length_prefixed()?;
    let value = match value_type {
        ValueType::Deletion => &[][..],
        ValueType::Value | ValueType::BlobIndex | ValueType::Merge | ValueType::RangeDeletion => {
            d.length_prefixed()?
        }
    };
    Some(BatchOp {
        cf,
        value_type,
        key,
        value,
    })
}

impl fmt::Debug for WriteBatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut l = f.debug_struct("WriteBatch");
        l.field("sequence", &self.sequence())
            .field("count", &self.count())
            .field("bytes", &self.rep.len());
        let ops: Vec<String> = self
            .iter()
            .take(16)
            .map(|op| {
                format!(
                    "{:?}({}{})",
                    op.value_type,
                    op.key.escape_ascii(),
                    if op.value_type == ValueType::Deletion {
                        String::new()
                    } else {
                        format!(" => {} bytes", op.value.len())
                    }
                )
            })
            .collect();
        l.field("ops", &ops);
        if let Some(m) = &self.invalid {
            l.field("invalid", m);
        }
        l.finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::coding::{put_fixed32, put_fixed64};
    use proptest::prelude::*;

    #[test]
    fn builds_and_iterates_in_order() {
        let mut b = WriteBatch::new();
        assert!(b.is_empty());
        assert_eq!(b.data_size(), HEADER_SIZE);
        b.put(b"a", b"1");
        b.delete(b"b");
        b.put_blob_index(b"c", b"idx");
        b.set_sequence(100);
        assert_eq!(b.count(), 3);
        assert_eq!(b.sequence(), 100);
        let ops: Vec<_> = b.iter().collect();
        assert_eq!(ops.len(), 3);
        assert_eq!(
            ops[0],
            BatchOp {
                cf: 0,
                value_type: ValueType::Value,
                key: b"a",
                value: b"1"
            }
        );
        assert_eq!(
            (ops[1].value_type, ops[1].key),
            (ValueType::Deletion, &b"b"[..])
        );
        assert_eq!(ops[2].value_type, ValueType::BlobIndex);
        assert_eq!(ops[2].value, b"idx");
        // Exact LevelDB encoding.
        let mut want = Vec::new();
        put_fixed64(&mut want, 100);
        put_fixed32(&mut want, 3);
        want.extend_from_slice(b"\x01\x01a\x011\x00\x01b\x02\x01c\x03idx");
        assert_eq!(b.data(), &want[..]);
        assert_eq!(b.approximate_size(), want.len());
        b.clear();
        assert!(b.is_empty());
        assert_eq!(b.sequence(), 0);
        assert_eq!(b.iter().count(), 0);
    }

    #[test]
    fn append_concatenates_and_keeps_sequence() {
        let mut a = WriteBatch::new();
        a.set_sequence(5);
        a.put(b"k1", b"v1");
        let mut b = WriteBatch::new();
        b.set_sequence(99);
        b.delete(b"k2");
        b.put(b"k3", b"v3");
        a.append(&b);
        assert_eq!(a.count(), 3);
        assert_eq!(a.sequence(), 5);
        let keys: Vec<&[u8]> = a.iter().map(|o| o.key).collect();
        assert_eq!(keys, vec![&b"k1"[..], b"k2", b"k3"]);
        a.check().unwrap();
        let c = WriteBatch::from_data(a.data().to_vec(), "f", 0).unwrap();
        assert_eq!(c, a);
    }

    #[test]
    fn malformed_batches_are_corruption() {
        let mut good = WriteBatch::new();
        good.put(b"key", b"value");
        good.delete(b"gone");
        let data = good.data().to_vec();
        // Every strict prefix is malformed.
        for cut in 0..data.len() {
            let e = WriteBatch::from_data(data[..cut].to_vec(), "000009.log", 77).unwrap_err();
            match e {
                Error::Corruption { file, offset, .. } => {
                    assert_eq!((file.as_str(), offset), ("000009.log", 77));
                }
                other => panic!("{other:?}"),
            }
        }
        let mut wrong_count = data.clone();
        wrong_count[8] = 3;
        assert!(WriteBatch::from_data(wrong_count, "f", 0).is_err());
        let mut bad_tag = data.clone();
        bad_tag[HEADER_SIZE] = 8;
        assert!(WriteBatch::from_data(bad_tag, "f", 0).is_err());
        let mut trailing = data.clone();
        trailing.push(0);
        assert!(WriteBatch::from_data(trailing, "f", 0).is_err());
        assert!(WriteBatch::from_data(data, "f", 0).is_ok());
    }

    #[test]
    fn family_records_carry_the_family_id() {
        let mut b = WriteBatch::new();
        b.add_raw(3, ValueType::Value, b"k", b"v");
        b.put(b"d", b"1");
        b.add_raw(300, ValueType::Deletion, b"x", b"");
        b.add_raw(2, ValueType::BlobIndex, b"b", b"idx");
        let c = WriteBatch::from_data(b.data().to_vec(), "f", 0).unwrap();
        assert_eq!(c.families(), &[2, 3, 300]);
        assert_eq!(b.families(), &[2, 3, 300]);
        let got: Vec<_> = c.iter().map(|o| (o.cf, o.value_type, o.key)).collect();
        assert_eq!(
            got,
            vec![
                (3, ValueType::Value, &b"k"[..]),
                (0, ValueType::Value, b"d"),
                (300, ValueType::Deletion, b"x"),
                (2, ValueType::BlobIndex, b"b"),
            ]
        );
        // Tag 5 (a value in a family), family 3, then the key and value.
        assert_eq!(
            &b.data()[HEADER_SIZE..HEADER_SIZE + 6],
            b"\x05\x03\x01k\x01v"
        );
    }

    #[test]
    fn merge_records_round_trip_with_and_without_a_family() {
        let mut b = WriteBatch::new();
        b.merge(b"counter", 7u64.to_le_bytes());
        b.add_raw(2, ValueType::Merge, b"k", b"op");
        b.set_sequence(9);
        // Tag 3, then the key and the operand; tag 7, family 2, key, operand.
        let mut want = b"\x03\x07counter\x08".to_vec();
        want.extend_from_slice(&7u64.to_le_bytes());
        want.extend_from_slice(b"\x07\x02\x01k\x02op");
        assert_eq!(&b.data()[HEADER_SIZE..], &want[..]);
        let c = WriteBatch::from_data(b.data().to_vec(), "000003.log", 0).unwrap();
        let got: Vec<_> = c
            .iter()
            .map(|o| (o.cf, o.value_type, o.key, o.value))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    0,
                    ValueType::Merge,
                    &b"counter"[..],
                    &7u64.to_le_bytes()[..]
                ),
                (2, ValueType::Merge, b"k", b"op"),
            ]
        );
        assert_eq!(c.families(), &[2]);
        // A merge record cut before its operand is corruption.
        let cut = b.data().len() - 1;
        let e = WriteBatch::from_data(b.data()[..cut].to_vec(), "000003.log", 40).unwrap_err();
        assert!(e.is_corruption(), "{e}");
    }

    #[test]
    fn debug_shows_ops() {
        let mut b = WriteBatch::new();
        b.put(b"k\x01", b"vv");
        let s = format!("{b:?}");
        assert!(
            s.contains("Value(k") && s.contains("x01 => 2 bytes)"),
            "{s}"
        );
        assert!(s.contains("count: 1"), "{s}");
    }

    proptest! {
        #[test]
        fn round_trip(ops in proptest::collection::vec(
            (0u8..3, proptest::collection::vec(any::<u8>(), 0..20),
             proptest::collection::vec(any::<u8>(), 0..300)), 0..20),
            seq in 0u64..(1 << 56)) {
            let mut b = WriteBatch::new();
            for (kind, k, v) in &ops {
                match kind {
                    0 => b.put(k, v),
                    1 => b.delete(k),
                    _ => b.merge(k, v),
                }
            }
            b.set_sequence(seq);
            let c = WriteBatch::from_data(b.data().to_vec(), "f", 0).unwrap();
            prop_assert_eq!(c.sequence(), seq);
            prop_assert_eq!(c.count() as usize, ops.len());
            let got: Vec<_> = c.iter().collect();
            prop_assert_eq!(got.len(), ops.len());
            for (op, (kind, k, v)) in got.iter().zip(&ops) {
                prop_assert_eq!(op.key, &k[..]);
                match kind {
                    0 => {
                        prop_assert_eq!(op.value_type, ValueType::Value);
                        prop_assert_eq!(op.value, &v[..]);
                    }
                    1 => prop_assert_eq!(op.value_type, ValueType::Deletion),
                    _ => {
                        prop_assert_eq!(op.value_type, ValueType::Merge);
                        prop_assert_eq!(op.value, &v[..]);
                    }
                }
            }
        }

        #[test]
        fn random_bytes_never_panic(data in proptest::collection::vec(any::<u8>(), 0..64)) {
            if let Ok(b) = WriteBatch::from_data(data, "f", 0) {
                prop_assert_eq!(b.iter().count(), b.count() as usize);
            }
        }
    }
}
