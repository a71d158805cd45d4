//! Writes a table file: data blocks, then filter, range-deletion,
//! properties, metaindex, index and footer.
//!
//! Byte layout: see `docs/formats/sstable.md`.

use std::cmp::Ordering;
use std::sync::Arc;

use crate::coding::decode_fixed64;
use crate::error::Result;
use crate::fs::WritableFile;
use crate::range_del::FragmentedTombstones;
use crate::stats::{Histogram, Statistics};
use crate::types::{
    compare_internal_keys, make_internal_key, pack_seq_and_type, user_key, ValueType,
    MAX_SEQUENCE_NUMBER, VALUE_TYPE_FOR_SEEK,
};

use super::block_builder::BlockBuilder;
use super::bloom::BloomBuilder;
use super::compression::{compress_block, CompressionType};
use super::format::{
    block_checksum, BlockHandle, Footer, DATA_BLOCK_HASH_INDEX, INDEX_WITHOUT_VALUE_LENGTH,
    MIN_FORMAT_VERSION,
};
use super::properties::TableProperties;
use super::range_del_block::{encode_range_del_block, META_RANGE_DEL};

/// Metaindex name of the filter block.
pub const META_FILTER: &str = "filter";
/// Metaindex name of the properties block.
pub const META_PROPERTIES: &str = "properties";

/// How tables are laid out (RocksDB's `BlockBasedTableOptions` subset).
#[derive(Debug, Clone, PartialEq)]
pub struct TableOptions {
    /// Target uncompressed size of a data block (`block_size`, 4096).
    pub block_size: usize,
    /// Entries between full keys in a data block (`block_restart_interval`, 16).
    pub block_restart_interval: usize,
    /// Codec for data blocks (RocksDB's default: Snappy).
    pub compression: CompressionType,
    /// Compress the index block with `compression` too
    /// (`enable_index_compression`, true).
    pub enable_index_compression: bool,
    /// Bloom filter bits per key; 0 (the default) builds no filter.
    pub bloom_bits_per_key: f64,
    /// With `Some(ratio)`, each data block carries a hash index of about
    /// `ratio` keys per bucket (`data_block_index_type =
    /// kDataBlockBinaryAndHash` with `data_block_hash_table_util_ratio`);
    /// `None` (the default) searches blocks by binary search alone.
    pub data_block_hash_util_ratio: Option<f64>,
}

impl Default for TableOptions {
    fn default() -> Self {
        TableOptions {
            block_size: 4096,
            block_restart_interval: 16,
            compression: CompressionType::default(),
            enable_index_compression: true,
            bloom_bits_per_key: 0.0,
            data_block_hash_util_ratio: None,
        }
    }
}

/// What a finished table holds, for the manifest.
#[derive(Debug, Clone, PartialEq)]
pub struct TableInfo {
    /// Bytes in the file.
    pub file_size: u64,
    /// First internal key (empty if the table is empty).
    pub smallest_key: Vec<u8>,
    /// Last internal key (empty if the table is empty).
    pub largest_key: Vec<u8>,
    /// Entries written.
    pub num_entries: u64,
    /// Deletion entries written.
    pub num_deletions: u64,
    /// Smallest sequence number (0 if empty).
    pub smallest_seq: u64,
    /// Largest sequence number (0 if empty).
    pub largest_seq: u64,
    /// The properties block as written.
    pub properties: TableProperties,
    /// Data and index blocks stored compressed
    /// (`rocksdb.number.block.compressed`).
    pub blocks_compressed: u64,
    /// Data and index blocks stored uncompressed although a codec was
    /// configured, because compressing did not pay (`rocksdb.number.block.not_compressed`;
    /// 0 with compression off, as in RocksDB).
    pub blocks_not_compressed: u64,
    /// Time the final sync of the file took, in microseconds (0 unless the
    /// builder has statistics).
    pub sync_micros: u64,
}

/// Shortens `start` to a key `s` with `start <= s < limit` (user-key order)
/// by bumping one byte and cutting after it, as RocksDB's bytewise
/// `FindShortestSeparator` does; `None` when no shorter key exists.
///
/// At the first differing byte `d`: if bumping `start[d]` keeps it below
/// `limit[d]`, or `limit` goes on past `d` (so `start[..d] + (start[d]+1)` is
/// a proper prefix of `limit`), the result is `start[..=d]` with that byte
/// bumped. Otherwise (`limit` ends at `d` and `start[d] + 1 == limit[d]`)
/// the first non-0xff byte of `start` after `d` is bumped instead. The
/// prefix case matters: sorted dense keys (db_bench's big-endian numbers)
/// usually differ by one in their first differing byte, and without it
/// those separators stayed full length (8 more bytes per index entry).
pub fn shortest_separator(start: &[u8], limit: &[u8]) -> Option<Vec<u8>> {
    let min = start.len().min(limit.len());
    let diff = start.iter().zip(limit).take_while(|(a, b)| a == b).count();
    if diff >= min {
        return None; // one is a prefix of the other
    }
    let (b, l) = (start[diff], limit[diff]);
    if b >= l {
        return None; // limit sorts before start: nothing to shorten
    }
    let bump_at = if diff + 1 < limit.len() || b + 1 < l {
        diff
    } else {
        // start[..=diff] + 1 == limit: bump a later byte of start.
        diff + 1 + start[diff + 1..].iter().position(|&x| x < 0xff)?
    };
    let mut s = start[..=bump_at].to_vec();
    s[bump_at] += 1;
    Some(s)
}

/// The shortest key `>= key` obtainable by bumping one byte; `None` if `key`
/// is all 0xff.
pub fn short_successor(key: &[u8]) -> Option<Vec<u8>> {
    let i = key.iter().position(|&b| b != 0xff)?;
    let mut s = key[..=i].to_vec();
    s[i] += 1;
    Some(s)
}

/// The type in the trailer of a shortened internal-key separator (with the
/// largest sequence number): 2, as tables have always been written. Its
/// user key lies strictly between two blocks' user keys, so the type does
/// not order it against any entry, and keeping 2 (not the largest type,
/// the merge operand's 3) leaves tables without merges byte for byte as
/// before.
const SEPARATOR_TYPE: ValueType = ValueType::BlobIndex;

/// An internal key that sorts after `last` and before `next` (or after
/// `last` if `next` is `None`), as short as cheaply possible.
pub fn index_separator(last: &[u8], next: Option<&[u8]>) -> Vec<u8> {
    let ul = user_key(last);
    let shorter = match next {
        Some(n) => shortest_separator(ul, user_key(n)),
        None => short_successor(ul),
    };
    if let Some(mut s) = shorter {
        if s.len() < ul.len() && ul < s.as_slice() {
            s.extend_from_slice(
                &pack_seq_and_type(MAX_SEQUENCE_NUMBER, SEPARATOR_TYPE).to_le_bytes(),
            );
            debug_assert_eq!(compare_internal_keys(last, &s), Ordering::Less);
            debug_assert!(next.is_none_or(|n| compare_internal_keys(&s, n) == Ordering::Less));
            return s;
        }
    }
    last.to_vec()
}

/// A user key `s` with `last <= s < next` (or `last <= s` without `next`),
/// as short as cheaply possible: the separator of a user-key index entry.
/// `None` when `last` and `next` are the same user key (no user-key
/// separator can tell their blocks apart).
pub fn user_key_separator(last: &[u8], next: Option<&[u8]>) -> Option<Vec<u8>> {
    let shorter = match next {
        Some(n) if n == last => return None,
        Some(n) => shortest_separator(last, n),
        None => short_successor(last),
    };
    Some(match shorter {
        Some(s) if s.len() < last.len() && last < s.as_slice() => s,
        _ => last.to_vec(),
    })
}

/// Writes one table file. Keys must be added in strictly increasing
/// internal-key order.
pub struct TableBuilder {
    opts: TableOptions,
    out: BlockFile,
    file_name: String,
    data_block: BlockBuilder,
    index_block: BlockBuilder,
    /// The same index with user-key separators (RocksDB's
    /// `index_key_is_user_key`), written instead of `index_block` unless
    /// some user key spans two data blocks.
    user_index_block: BlockBuilder,
    user_index_ok: bool,
    /// Tests only: write the index and footer version of builds before
    /// format version 3, to check that this build still reads them.
    legacy_index: bool,
    last_key: Vec<u8>,
    smallest_key: Vec<u8>,
    pending_handle: Option<BlockHandle>,
    bloom: Option<BloomBuilder>,
    props: TableProperties,
    smallest_seq: u64,
    largest_seq: u64,
    blocks_compressed: u64,
    blocks_not_compressed: u64,
    stats: Option<Arc<Statistics>>,
    /// Range tombstones for the range-deletion block.
    range_tombstones: FragmentedTombstones,
}

impl TableBuilder {
    /// Starts a table written to `file` (named `file_name` in errors).
    pub fn new(opts: &TableOptions, file: Box<dyn WritableFile>, file_name: String) -> Self {
        let bloom = (opts.bloom_bits_per_key > 0.0).then(BloomBuilder::new);
        TableBuilder {
            opts: opts.clone(),
            out: BlockFile {
                file,
                offset: 0,
                scratch: Vec::new(),
            },
            file_name,
            data_block: match opts.data_block_hash_util_ratio {
                Some(ratio) => BlockBuilder::with_hash_index(opts.block_restart_interval, ratio),
                None => BlockBuilder::new(opts.block_restart_interval),
            },
            index_block: BlockBuilder::new_index(1),
            user_index_block: BlockBuilder::new_index(1),
            user_index_ok: true,
            legacy_index: false,
            last_key: Vec::new(),
            smallest_key: Vec::new(),
            pending_handle: None,
            bloom,
            props: TableProperties::default(),
            smallest_seq: u64::MAX,
            largest_seq: 0,
            blocks_compressed: 0,
            blocks_not_compressed: 0,
            stats: None,
            range_tombstones: FragmentedTombstones::default(),
        }
    }

    /// Sets the range tombstones the table stores in its range-deletion
    /// block. The table's smallest and largest keys and sequence numbers
    /// then cover them: the smallest key is at most the first begin key at
    /// its newest tombstone's sequence number, the largest at least the
    /// last end key at sequence number 2^56-1 (which sorts before every
    /// entry of that user key, so the end stays exclusive for lookups).
    pub fn set_range_tombstones(&mut self, tombstones: FragmentedTombstones) {
        self.range_tombstones = tombstones;
    }

    /// Records the size of each block handed to the compressor
    /// (`rocksdb.bytes.compressed`) into `stats`.
    pub fn with_statistics(mut self, stats: Option<Arc<Statistics>>) -> Self {
        self.stats = stats;
        self
    }

    /// The file name given at creation.
    pub fn file_name(&self) -> &str {
        &self.file_name
    }

    /// Adds an entry; `ikey` must sort after every key added before.
    pub fn add(&mut self, ikey: &[u8], value: &[u8]) -> Result<()> {
        debug_assert!(ikey.len() >= 8, "internal key too short");
        debug_assert!(
            self.props.num_entries == 0
                || compare_internal_keys(&self.last_key, ikey) == Ordering::Less,
            "keys added out of order"
        );
        if let Some(h) = self.pending_handle.take() {
            self.add_index_entry(h, Some(ikey));
        }
        if let Some(b) = &mut self.bloom {
            b.add_key(user_key(ikey));
        }
        if self.props.num_entries == 0 {
            self.smallest_key = ikey.to_vec();
        }
        let trailer = ikey
            .len()
            .checked_sub(8)
            .and_then(|n| decode_fixed64(&ikey[n..]))
            .unwrap_or(0);
        let seq = trailer >> 8;
        self.smallest_seq = self.smallest_seq.min(seq);
        self.largest_seq = self.largest_seq.max(seq);
        match ValueType::from_u8((trailer & 0xff) as u8) {
            Some(ValueType::Deletion) => self.props.num_deletions += 1,
            Some(ValueType::Merge) => self.props.num_merge_operands += 1,
            _ => {}
        }
        self.props.num_entries += 1;
        self.props.raw_key_size += ikey.len() as u64;
        self.props.raw_value_size += value.len() as u64;
        self.last_key.clear();
        self.last_key.extend_from_slice(ikey);
        self.data_block.add(ikey, value);
        if self.data_block.size_estimate() >= self.opts.block_size {
            self.flush_data_block()?;
        }
        Ok(())
    }

    fn flush_data_block(&mut self) -> Result<()> {
        if self.data_block.is_empty() {
            return Ok(());
        }
        let raw = self.data_block.finish();
        let raw_len = raw.len();
        let (handle, used) =
            self.out
                .write_block(raw, self.opts.compression, self.stats.as_deref())?;
        self.count_compression(self.opts.compression, used, raw_len);
        self.data_block.reset();
        self.props.num_data_blocks += 1;
        self.props.data_size += handle.end() - handle.offset;
        self.pending_handle = Some(handle);
        Ok(())
    }

    /// Counts a block written with codec `asked` and stored as `used`, as
    /// RocksDB counts every block it hands to the compressor (data and
    /// index alike).
    fn count_compression(&mut self, asked: CompressionType, used: CompressionType, raw_len: usize) {
        if asked == CompressionType::None {
            return;
        }
        if used == CompressionType::None {
            self.blocks_not_compressed += 1;
        } else {
            self.blocks_compressed += 1;
            // RocksDB 7.8 samples only blocks it stored compressed.
            if let Some(s) = &self.stats {
                s.record_histogram(Histogram::BytesCompressed, raw_len as u64);
            }
        }
    }

    /// Adds the index entry of the block just finished (ending at
    /// `last_key`; `next` is the first key of the next block, if any) to
    /// both index forms.
    fn add_index_entry(&mut self, h: BlockHandle, next: Option<&[u8]>) {
        let mut enc = Vec::with_capacity(20);
        h.encode_to(&mut enc);
        let sep = index_separator(&self.last_key, next);
        self.index_block.add(&sep, &enc);
        if self.user_index_ok {
            match user_key_separator(user_key(&self.last_key), next.map(user_key)) {
                Some(s) => self.user_index_block.add(&s, &enc),
                None => self.user_index_ok = false,
            }
        }
    }

    /// Entries added so far.
    pub fn num_entries(&self) -> u64 {
        self.props.num_entries
    }

    /// Bytes written so far plus the block being built.
    pub fn file_size_estimate(&self) -> u64 {
        self.out.offset + self.data_block.size_estimate() as u64
    }

    /// Writes the rest of the table, syncs the file and describes it.
    pub fn finish(mut self) -> Result<TableInfo> {
        self.flush_data_block()?;
        if let Some(h) = self.pending_handle.take() {
            self.add_index_entry(h, None);
        }
        let none = CompressionType::None;
        let mut meta = BlockBuilder::new(1);
        let range_del_handle = if self.range_tombstones.is_empty() {
            None
        } else {
            for t in self.range_tombstones.tombstones() {
                self.props.num_range_deletions += 1;
                self.smallest_seq = self.smallest_seq.min(t.seq);
                self.largest_seq = self.largest_seq.max(t.seq);
            }
            let contents = encode_range_del_block(&self.range_tombstones);
            let (h, _) = self
                .out
                .write_block(&contents, none, self.stats.as_deref())?;
            Some(h)
        };
        if let Some(b) = &self.bloom {
            let contents = b.finish(self.opts.bloom_bits_per_key);
            let (h, _) = self
                .out
                .write_block(&contents, none, self.stats.as_deref())?;
            self.props.filter_size = h.end() - h.offset;
            add_meta_handle(&mut meta, META_FILTER, h);
        }
        // User-key separators when no user key spans two blocks (they
        // sort and seek alike then, 8 bytes shorter each), as RocksDB's
        // `index_key_is_user_key`; docs/formats/sstable.md.
        self.props.index_key_is_user_key = self.user_index_ok;
        let index_contents = if self.user_index_ok {
            self.user_index_block.finish().to_vec()
        } else {
            self.index_block.finish().to_vec()
        };
        self.props.index_size =
            index_contents.len() as u64 + super::format::BLOCK_TRAILER_SIZE as u64;
        self.props.compression_name = self.opts.compression.name().to_string();
        self.props.bloom_bits_per_key = if self.bloom.is_some() {
            self.opts.bloom_bits_per_key
        } else {
            0.0
        };
        self.props.creation_time = crate::clock::unix_now();
        let has_range_dels = self.props.num_range_deletions > 0;
        if self.props.num_entries > 0 || has_range_dels {
            self.props.smallest_seqno = self.smallest_seq;
            self.props.largest_seqno = self.largest_seq;
        }
        let props_contents = self.props.encode();
        let (ph, _) = self
            .out
            .write_block(&props_contents, none, self.stats.as_deref())?;
        add_meta_handle(&mut meta, META_PROPERTIES, ph);
        if let Some(h) = range_del_handle {
            add_meta_handle(&mut meta, META_RANGE_DEL, h);
        }
        let (metaindex, _) = self
            .out
            .write_block(meta.finish(), none, self.stats.as_deref())?;
        // The index takes the data codec unless told not to, as RocksDB's
        // `enable_index_compression`; `rocksdb.index.size` above stays the
        // uncompressed size, as RocksDB reports it.
        let index_codec = if self.opts.enable_index_compression {
            self.opts.compression
        } else {
            none
        };
        let (index, used) =
            self.out
                .write_block(&index_contents, index_codec, self.stats.as_deref())?;
        self.count_compression(index_codec, used, index_contents.len());
        let footer = Footer {
            metaindex,
            index,
            // Versions 1 and 2 (tests only) told the index's key form apart;
            // version 3 leaves that to the property; version 4 only when
            // data blocks may carry a hash index, so that builds reading up
            // to version 3 still read every other table.
            format_version: if self.legacy_index {
                if self.user_index_ok {
                    2
                } else {
                    MIN_FORMAT_VERSION
                }
            } else if self.opts.data_block_hash_util_ratio.is_some() {
                DATA_BLOCK_HASH_INDEX
            } else {
                INDEX_WITHOUT_VALUE_LENGTH
            },
        }
        .encode();
        self.out.file.append(&footer)?;
        self.out.offset += footer.len() as u64;
        let sync_start = self.stats.as_ref().map(|_| std::time::Instant::now());
        self.out.file.sync()?;
        let sync_micros = sync_start.map_or(0, |t| t.elapsed().as_micros() as u64);
        let (mut smallest_key, mut largest_key) = if self.props.num_entries > 0 {
            (self.smallest_key, self.last_key)
        } else {
            (Vec::new(), Vec::new())
        };
        let frags = self.range_tombstones.fragments();
        if let (Some(first), Some(last)) = (frags.first(), frags.last()) {
            let lo = make_internal_key(&first.begin, first.seqs[0], VALUE_TYPE_FOR_SEEK);
            if smallest_key.is_empty() || compare_internal_keys(&lo, &smallest_key).is_lt() {
                smallest_key = lo;
            }
            let hi = make_internal_key(&last.end, MAX_SEQUENCE_NUMBER, VALUE_TYPE_FOR_SEEK);
            if largest_key.is_empty() || compare_internal_keys(&hi, &largest_key).is_gt() {
                largest_key = hi;
            }
        }
        Ok(TableInfo {
            file_size: self.out.offset,
            smallest_key,
            largest_key,
            num_entries: self.props.num_entries,
            num_deletions: self.props.num_deletions,
            smallest_seq: self.props.smallest_seqno,
            largest_seq: self.props.largest_seqno,
            properties: self.props,
            blocks_compressed: self.blocks_compressed,
            blocks_not_compressed: self.blocks_not_compressed,
            sync_micros,
        })
    }

    /// Stops building; the caller deletes the partial file.
    pub fn abandon(self) {}
}

/// Adds the metaindex entry naming the block at `handle` `name`.
fn add_meta_handle(meta: &mut BlockBuilder, name: &str, handle: BlockHandle) {
    let mut enc = Vec::new();
    handle.encode_to(&mut enc);
    meta.add(name.as_bytes(), &enc);
}

/// The file a table is being written to, and where its next block goes.
struct BlockFile {
    file: Box<dyn WritableFile>,
    offset: u64,
    /// Reused for each block's compressed form.
    scratch: Vec<u8>,
}

impl BlockFile {
    /// Compresses (if worthwhile) and appends one block and its trailer;
    /// returns where it went and the codec actually used. With `stats`, the
    /// checksum and the two appends (not the compression) are timed into
    /// `rocksdb.write.raw.block.micros`, as RocksDB's `WriteRawBlock` is.
    fn write_block(
        &mut self,
        raw: &[u8],
        ctype: CompressionType,
        stats: Option<&Statistics>,
    ) -> Result<(BlockHandle, CompressionType)> {
        let used = compress_block(ctype, raw, &mut self.scratch);
        let start = stats.map(|_| std::time::Instant::now());
        let body: &[u8] = if used == CompressionType::None {
            raw
        } else {
            &self.scratch
        };
        let t = used as u8;
        let mut trailer = [0u8; 5];
        trailer[0] = t;
        trailer[1..].copy_from_slice(&block_checksum(body, t).to_le_bytes());
        self.file.append(body)?;
        self.file.append(&trailer)?;
        if let (Some(s), Some(t)) = (stats, start) {
            s.record_histogram(
                Histogram::WriteRawBlockMicros,
                t.elapsed().as_micros() as u64,
            );
        }
        let handle = BlockHandle {
            offset: self.offset,
            size: body.len() as u64,
        };
        self.offset = handle.end();
        Ok((handle, used))
    }
}

#[cfg(test)]
impl TableBuilder {
    /// Writes the index as builds before format version 3 did, with value
    /// lengths, and the footer version they wrote (2, or 1 where a user key
    /// spans two blocks): for tests that this build still reads them.
    pub(crate) fn with_legacy_index(mut self) -> Self {
        self.index_block = BlockBuilder::new(1);
        self.user_index_block = BlockBuilder::new(1);
        self.legacy_index = true;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::make_internal_key;

    /// Regression: db_bench keys (8-byte big-endian number, then padding)
    /// in sorted order usually differ by one in their first differing
    /// byte; the separator must still be cut after that byte, as RocksDB
    /// cuts it, or the index carries 8 more bytes per data block.
    #[test]
    fn separator_of_keys_differing_by_one_is_cut_after_that_byte() {
        let last = b"\x00\x00\x00\x00\x00\x00\x00\x0300000000";
        let next = b"\x00\x00\x00\x00\x00\x00\x00\x0400000000";
        let s = shortest_separator(last, next).unwrap();
        assert_eq!(s, b"\x00\x00\x00\x00\x00\x00\x00\x04");
        assert!(last.as_slice() < s.as_slice() && s.as_slice() < next.as_slice());
        // limit ends at the differing byte: bump a later byte of start.
        assert_eq!(shortest_separator(b"ab1xyz", b"ab2").unwrap(), b"ab1y");
        assert_eq!(
            shortest_separator(b"ab1\xff\xffz", b"ab2").unwrap(),
            b"ab1\xff\xff{"
        );
        assert_eq!(shortest_separator(b"ab1\xff", b"ab2"), None);
        // limit before start, or a prefix: nothing.
        assert_eq!(shortest_separator(b"b", b"a"), None);
        assert_eq!(shortest_separator(b"ab", b"abc"), None);
    }

    /// Every separator sorts in `[start, limit)` and is no longer than
    /// `start`, over many random key pairs.
    #[test]
    fn shortest_separator_stays_between_its_keys() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..20_000 {
            let mk = |r: u64| -> Vec<u8> {
                let len = (r % 5) as usize;
                (0..len)
                    .map(|i| [0u8, 1, 0x30, 0xfe, 0xff][((r >> (8 + 3 * i)) % 5) as usize])
                    .collect()
            };
            let (mut a, mut b) = (mk(next()), mk(next()));
            if a > b {
                std::mem::swap(&mut a, &mut b);
            }
            if a == b {
                continue;
            }
            if let Some(s) = shortest_separator(&a, &b) {
                assert!(a <= s && s < b, "{a:?} <= {s:?} < {b:?}");
                assert!(s.len() <= a.len(), "{a:?} -> {s:?}");
            }
        }
    }

    #[test]
    fn separators_sort_between_and_are_short() {
        let a = make_internal_key(b"apple123", 5, ValueType::Value);
        let b = make_internal_key(b"cherry", 9, ValueType::Value);
        let s = index_separator(&a, Some(&b));
        assert_eq!(user_key(&s), b"b");
        assert_eq!(compare_internal_keys(&a, &s), Ordering::Less);
        assert_eq!(compare_internal_keys(&s, &b), Ordering::Less);
        // Adjacent last bytes: cannot shorten.
        let c = make_internal_key(b"abc1", 5, ValueType::Value);
        let d = make_internal_key(b"abc2", 5, ValueType::Value);
        assert_eq!(index_separator(&c, Some(&d)), c);
        // Same user key across blocks: the last key itself.
        let e = make_internal_key(b"k", 9, ValueType::Value);
        let f = make_internal_key(b"k", 3, ValueType::Value);
        assert_eq!(index_separator(&e, Some(&f)), e);
        // Successor of the last key.
        let g = make_internal_key(b"\x01\xff", 1, ValueType::Value);
        assert_eq!(user_key(&index_separator(&g, None)), b"\x02");
        let h = make_internal_key(b"\xff\xff", 1, ValueType::Value);
        assert_eq!(index_separator(&h, None), h);
    }
}
