//! The properties block: table-wide counters stored as sorted name -> value
//! pairs in the ordinary block format.
//!
//! Names and value encodings: see `docs/formats/sstable.md` ("Properties
//! block").

use std::sync::Arc;

use crate::coding::{decode_fixed64, decode_varint64, put_fixed64, put_varint64};
use crate::error::{Error, Result};
use crate::iter::InternalIterator;

use super::block::{bytewise_cmp, Block};
use super::block_builder::BlockBuilder;

const NUM_ENTRIES: &str = "rocksdb.num.entries";
const NUM_DELETIONS: &str = "rocksdb.deleted.keys";
const NUM_MERGE_OPERANDS: &str = "rocksdb.merge.operands";
const NUM_RANGE_DELETIONS: &str = "rocksdb.num.range-deletions";
const RAW_KEY_SIZE: &str = "rocksdb.raw.key.size";
const RAW_VALUE_SIZE: &str = "rocksdb.raw.value.size";
const DATA_SIZE: &str = "rocksdb.data.size";
const INDEX_SIZE: &str = "rocksdb.index.size";
const FILTER_SIZE: &str = "rocksdb.filter.size";
const NUM_DATA_BLOCKS: &str = "rocksdb.num.data.blocks";
const COMPRESSION: &str = "rocksdb.compression";
const CREATION_TIME: &str = "rocksdb.creation.time";
const SMALLEST_SEQNO: &str = "strata.smallest.seqno";
const LARGEST_SEQNO: &str = "strata.largest.seqno";
const BLOOM_BITS: &str = "strata.bloom.bits.per.key";
const INDEX_KEY_IS_USER_KEY: &str = "rocksdb.index.key.is.user.key";

/// Table-wide facts recorded when the table was written.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TableProperties {
    /// Entries (all types).
    pub num_entries: u64,
    /// Entries of type Deletion.
    pub num_deletions: u64,
    /// Entries of type Merge (merge operands).
    pub num_merge_operands: u64,
    /// Range tombstones in the range-deletion block
    /// (`rocksdb.num.range-deletions`; written only when non-zero).
    pub num_range_deletions: u64,
    /// Sum of internal-key lengths.
    pub raw_key_size: u64,
    /// Sum of value lengths.
    pub raw_value_size: u64,
    /// Bytes of data blocks on disk, trailers included.
    pub data_size: u64,
    /// Bytes of the index block on disk, trailer included.
    pub index_size: u64,
    /// Bytes of the filter block on disk, trailer included (0 = no filter).
    pub filter_size: u64,
    /// Number of data blocks.
    pub num_data_blocks: u64,
    /// RocksDB name of the configured codec (`kSnappyCompression`, ...).
    pub compression_name: String,
    /// Smallest sequence number of any entry (0 if empty).
    pub smallest_seqno: u64,
    /// Largest sequence number of any entry.
    pub largest_seqno: u64,
    /// Seconds since the Unix epoch when the table was finished.
    pub creation_time: u64,
    /// The filter's bits per key (0 = no filter).
    pub bloom_bits_per_key: f64,
    /// The index block's separators are user keys, not internal keys
    /// (`rocksdb.index.key.is.user.key`; absent means false). Set when no
    /// user key spans two data blocks, which saves each separator its
    /// 8-byte sequence trailer.
    pub index_key_is_user_key: bool,
}

impl TableProperties {
    /// Encodes the properties block contents (uncompressed).
    pub fn encode(&self) -> Vec<u8> {
        let v = |x: u64| {
            let mut b = Vec::new();
            put_varint64(&mut b, x);
            b
        };
        let mut bits = Vec::new();
        put_fixed64(&mut bits, self.bloom_bits_per_key.to_bits());
        let mut pairs: Vec<(&str, Vec<u8>)> = vec![
            (NUM_ENTRIES, v(self.num_entries)),
            (NUM_DELETIONS, v(self.num_deletions)),
            (RAW_KEY_SIZE, v(self.raw_key_size)),
            (RAW_VALUE_SIZE, v(self.raw_value_size)),
            (DATA_SIZE, v(self.data_size)),
            (INDEX_SIZE, v(self.index_size)),
            (FILTER_SIZE, v(self.filter_size)),
            (NUM_DATA_BLOCKS, v(self.num_data_blocks)),
            (COMPRESSION, self.compression_name.as_bytes().to_vec()),
            (CREATION_TIME, v(self.creation_time)),
            (SMALLEST_SEQNO, v(self.smallest_seqno)),
            (LARGEST_SEQNO, v(self.largest_seqno)),
            (BLOOM_BITS, bits),
        ];
        // Written only when set, so tables with internal-key separators
        // keep the bytes they had before the property existed.
        if self.index_key_is_user_key {
            pairs.push((INDEX_KEY_IS_USER_KEY, v(1)));
        }
        // Likewise written only for tables that hold merge operands.
        if self.num_merge_operands > 0 {
            pairs.push((NUM_MERGE_OPERANDS, v(self.num_merge_operands)));
        }
        // And only for tables that hold range tombstones.
        if self.num_range_deletions > 0 {
            pairs.push((NUM_RANGE_DELETIONS, v(self.num_range_deletions)));
        }
        pairs.sort_by(|a, b| a.0.cmp(b.0));
        let mut b = BlockBuilder::new(1);
        for (k, val) in &pairs {
            b.add(k.as_bytes(), val);
        }
        b.finish().to_vec()
    }

    /// Decodes a properties block. Unknown names are ignored; a malformed
    /// value is Corruption at the block's offset.
    pub fn decode(block: &Arc<Block>) -> Result<TableProperties> {
        let bad = |name: &str| {
            Error::corruption(
                &**block.file_name(),
                block.offset(),
                format!("bad value for table property {name}"),
            )
        };
        let mut p = TableProperties::default();
        let mut it = block.iter(bytewise_cmp);
        it.seek_to_first();
        let mut seen_entries = false;
        while it.valid() {
            let name = std::str::from_utf8(it.key()).unwrap_or("");
            let val = it.value();
            let num = || match decode_varint64(val) {
                Some((x, n)) if n == val.len() => Ok(x),
                _ => Err(bad(name)),
            };
            match name {
                NUM_ENTRIES => {
                    p.num_entries = num()?;
                    seen_entries = true;
                }
                NUM_DELETIONS => p.num_deletions = num()?,
                NUM_MERGE_OPERANDS => p.num_merge_operands = num()?,
                NUM_RANGE_DELETIONS => p.num_range_deletions = num()?,
                RAW_KEY_SIZE => p.raw_key_size = num()?,
                RAW_VALUE_SIZE => p.raw_value_size = num()?,
                DATA_SIZE => p.data_size = num()?,
                INDEX_SIZE => p.index_size = num()?,
                FILTER_SIZE => p.filter_size = num()?,
                NUM_DATA_BLOCKS => p.num_data_blocks = num()?,
                CREATION_TIME => p.creation_time = num()?,
                SMALLEST_SEQNO => p.smallest_seqno = num()?,
                LARGEST_SEQNO => p.largest_seqno = num()?,
                INDEX_KEY_IS_USER_KEY => p.index_key_is_user_key = num()? != 0,
                COMPRESSION => {
                    p.compression_name =
                        std::str::from_utf8(val).map_err(|_| bad(name))?.to_string()
                }
                BLOOM_BITS => {
                    if val.len() != 8 {
                        return Err(bad(name));
                    }
                    p.bloom_bits_per_key =
                        f64::from_bits(decode_fixed64(val).ok_or_else(|| bad(name))?);
                }
                _ => {}
            }
            it.next();
        }
        it.status()?;
        if !seen_entries {
            return Err(bad(NUM_ENTRIES));
        }
        Ok(p)
    }

    /// `name: value` lines, for `strata inspect`.
    pub fn to_lines(&self) -> Vec<String> {
        let mut lines = vec![
            format!("{NUM_ENTRIES}: {}", self.num_entries),
            format!("{NUM_DELETIONS}: {}", self.num_deletions),
            format!("{RAW_KEY_SIZE}: {}", self.raw_key_size),
            format!("{RAW_VALUE_SIZE}: {}", self.raw_value_size),
            format!("{DATA_SIZE}: {}", self.data_size),
            format!("{INDEX_SIZE}: {}", self.index_size),
            format!("{FILTER_SIZE}: {}", self.filter_size),
            format!("{NUM_DATA_BLOCKS}: {}", self.num_data_blocks),
            format!("{COMPRESSION}: {}", self.compression_name),
            format!("{CREATION_TIME}: {}", self.creation_time),
            format!("{SMALLEST_SEQNO}: {}", self.smallest_seqno),
            format!("{LARGEST_SEQNO}: {}", self.largest_seqno),
            format!("{BLOOM_BITS}: {}", self.bloom_bits_per_key),
            format!(
                "{INDEX_KEY_IS_USER_KEY}: {}",
                u64::from(self.index_key_is_user_key)
            ),
        ];
        if self.num_merge_operands > 0 {
            lines.insert(
                2,
                format!("{NUM_MERGE_OPERANDS}: {}", self.num_merge_operands),
            );
        }
        if self.num_range_deletions > 0 {
            lines.insert(
                2,
                format!("{NUM_RANGE_DELETIONS}: {}", self.num_range_deletions),
            );
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let p = TableProperties {
            num_entries: 1000,
            num_deletions: 3,
            num_merge_operands: 4,
            num_range_deletions: 6,
            raw_key_size: 12345,
            raw_value_size: 1 << 40,
            data_size: 77,
            index_size: 8,
            filter_size: 9,
            num_data_blocks: 10,
            compression_name: "kLZ4Compression".into(),
            smallest_seqno: 5,
            largest_seqno: 99,
            creation_time: 1_700_000_000,
            bloom_bits_per_key: 9.5,
            index_key_is_user_key: true,
        };
        let block = Arc::new(Block::new(p.encode(), Arc::from("t"), 0).unwrap());
        assert_eq!(TableProperties::decode(&block).unwrap(), p);
        // Absent (tables written before the property existed): false.
        let q = TableProperties {
            index_key_is_user_key: false,
            num_merge_operands: 0,
            num_range_deletions: 0,
            ..p
        };
        assert!(!String::from_utf8_lossy(&q.encode()).contains(NUM_MERGE_OPERANDS));
        assert!(!String::from_utf8_lossy(&q.encode()).contains(NUM_RANGE_DELETIONS));
        let block = Arc::new(Block::new(q.encode(), Arc::from("t"), 0).unwrap());
        assert!(
            !TableProperties::decode(&block)
                .unwrap()
                .index_key_is_user_key
        );
    }

    #[test]
    fn missing_entry_count_is_corruption() {
        let mut b = BlockBuilder::new(1);
        b.add(b"other", b"x");
        let block = Arc::new(Block::new(b.finish().to_vec(), Arc::from("t"), 4).unwrap());
        assert!(TableProperties::decode(&block).unwrap_err().is_corruption());
    }
}
