//! The range-deletion meta block (RocksDB's `rocksdb.range_del`): a
//! table's range tombstones.
//!
//! Byte layout: see `docs/formats/sstable.md` ("Range-deletion block").
//! Each entry's key is the tombstone's begin key as an internal key of type
//! [`RANGE_DELETION_TYPE`] and its value the exclusive end user key, in
//! internal-key order; the writer stores the fragments of
//! [`FragmentedTombstones`], one entry per fragment and sequence number.

use std::sync::Arc;

use crate::coding::decode_fixed64;
use crate::error::{Error, Result};
use crate::iter::InternalIterator;
use crate::range_del::{FragmentedTombstones, RangeTombstone};
use crate::types::SequenceNumber;

use super::block::{bytewise_cmp, Block};
use super::block_builder::BlockBuilder;

/// Metaindex name of the range-deletion block.
pub const META_RANGE_DEL: &str = "rocksdb.range_del";

/// Type byte of a range-deletion block key (RocksDB's
/// `kTypeRangeDeletion`); no data block entry has it.
pub const RANGE_DELETION_TYPE: u8 = 0x0F;

/// The block contents for `tombstones` (restart interval 1).
pub fn encode_range_del_block(tombstones: &FragmentedTombstones) -> Vec<u8> {
    let mut b = BlockBuilder::new(1);
    let mut key = Vec::new();
    for t in tombstones.tombstones() {
        key.clear();
        key.extend_from_slice(&t.begin);
        key.extend_from_slice(&((t.seq << 8) | u64::from(RANGE_DELETION_TYPE)).to_le_bytes());
        b.add(&key, &t.end);
    }
    b.finish().to_vec()
}

/// Decodes a range-deletion block into its tombstones, fragmented. Entries
/// may overlap (RocksDB writes them unfragmented); each must have the range
/// deletion type and a begin key below its end key.
///
/// # Errors
/// `Corruption` naming the block's file and offset for a malformed block
/// or entry.
pub fn decode_range_del_block(block: &Arc<Block>) -> Result<FragmentedTombstones> {
    let bad = |m: String| Error::corruption(&**block.file_name(), block.offset(), m);
    let mut list = Vec::new();
    // Entries are compared bytewise only to step through them in order.
    let mut it = block.iter(bytewise_cmp);
    it.seek_to_first();
    while it.valid() {
        let k = it.key();
        let Some(n) = k.len().checked_sub(8) else {
            return Err(bad(format!(
                "range-deletion entry {} has a key of {} bytes, shorter than 8",
                list.len(),
                k.len()
            )));
        };
        let trailer = decode_fixed64(&k[n..]).unwrap_or(0);
        let t = (trailer & 0xff) as u8;
        let seq: SequenceNumber = trailer >> 8;
        if t != RANGE_DELETION_TYPE {
            return Err(bad(format!(
                "range-deletion entry {} has type {t:#x}, not {RANGE_DELETION_TYPE:#x}",
                list.len()
            )));
        }
        let (begin, end) = (&k[..n], it.value());
        if begin >= end {
            return Err(bad(format!(
                "range-deletion entry {} has begin key not below its end key",
                list.len()
            )));
        }
        list.push(RangeTombstone::new(begin, end, seq));
        it.next();
    }
    it.status()?;
    Ok(FragmentedTombstones::new(&list))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(data: Vec<u8>) -> Arc<Block> {
        Arc::new(Block::new(data, Arc::from("t.sst"), 42).unwrap())
    }

    #[test]
    fn round_trip() {
        let ts = [
            RangeTombstone::new("a", "m", 7),
            RangeTombstone::new("c", "z", 9),
            RangeTombstone::new("q", "r", 3),
        ];
        let f = FragmentedTombstones::new(&ts);
        let enc = encode_range_del_block(&f);
        assert_eq!(decode_range_del_block(&block(enc)).unwrap(), f);
        let empty = FragmentedTombstones::default();
        let enc = encode_range_del_block(&empty);
        assert!(decode_range_del_block(&block(enc)).unwrap().is_empty());
    }

    #[test]
    fn unfragmented_entries_are_fragmented() {
        let mut b = BlockBuilder::new(1);
        let key = |k: &str, seq: u64| {
            let mut v = k.as_bytes().to_vec();
            v.extend_from_slice(&((seq << 8) | 0x0F).to_le_bytes());
            v
        };
        b.add(&key("a", 5), b"e");
        b.add(&key("c", 9), b"g");
        let f = decode_range_del_block(&block(b.finish().to_vec())).unwrap();
        assert_eq!(f.fragments().len(), 3);
        assert_eq!(f.max_covering_seq(b"d", 100), Some(9));
        assert_eq!(f.max_covering_seq(b"b", 100), Some(5));
    }

    #[test]
    fn malformed_entries_are_corruption() {
        let one = |k: &[u8], v: &[u8]| {
            let mut b = BlockBuilder::new(1);
            b.add(k, v);
            decode_range_del_block(&block(b.finish().to_vec()))
                .unwrap_err()
                .to_string()
        };
        let mut k = b"a".to_vec();
        k.extend_from_slice(&((5u64 << 8) | 1).to_le_bytes());
        assert!(one(&k, b"b").contains("type 0x1"), "{}", one(&k, b"b"));
        assert!(one(b"short", b"b").contains("shorter than 8"));
        let mut k = b"c".to_vec();
        k.extend_from_slice(&((5u64 << 8) | 0x0F).to_le_bytes());
        let e = one(&k, b"b");
        assert!(
            e.contains("begin key not below") && e.contains("t.sst"),
            "{e}"
        );
    }
}
