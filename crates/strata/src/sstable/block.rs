//! A parsed block and its iterator.
//!
//! Byte layout: see `docs/formats/sstable.md` ("Block contents"). The
//! iterator walks the block in place: it holds an `Arc<Block>` and offsets,
//! reuses one key buffer, and seeks by binary search over the restart points.

use std::cmp::Ordering;
use std::sync::Arc;

use crate::coding::{decode_fixed32, decode_varint32, decode_varint64};
use crate::error::{Error, Result};
use crate::iter::InternalIterator;
use crate::types::compare_internal_keys;

use super::block_bytes::BlockBytes;
use super::data_block_hash::{self, HashLookup, COLLISION, HASH_INDEX_FLAG};

/// A key ordering used by a block iterator.
pub type KeyCmp = fn(&[u8], &[u8]) -> Ordering;

/// Plain byte order, for meta blocks (metaindex, properties).
pub fn bytewise_cmp(a: &[u8], b: &[u8]) -> Ordering {
    a.cmp(b)
}

/// One block's uncompressed contents with its restart array located and
/// checked.
#[derive(Debug)]
pub struct Block {
    data: BlockBytes,
    /// Offset of the restart array (= end of the entries).
    restart_offset: usize,
    num_restarts: usize,
    file: Arc<str>,
    offset: u64,
    /// True for an index block of format version 3: entry values are block
    /// handles (two varint64s) stored without a length.
    handle_values: bool,
    /// Where the buckets of a data block's hash index lie (empty when the
    /// block has none).
    hash_buckets: std::ops::Range<usize>,
}

impl Block {
    /// Parses the restart array of `data`, which was read from `file` at
    /// `offset` (both used in error messages).
    pub fn new(data: impl Into<BlockBytes>, file: Arc<str>, offset: u64) -> Result<Block> {
        let data: BlockBytes = data.into();
        let bad = |m: String| Error::corruption(&*file, offset, m);
        if data.len() < 4 {
            return Err(bad(format!("block too short ({} bytes)", data.len())));
        }
        let packed = decode_fixed32(&data[data.len() - 4..]).unwrap_or(u32::MAX);
        let n = (packed & !HASH_INDEX_FLAG) as usize;
        // The restart array ends where the hash index starts, if any.
        let mut end = data.len() - 4;
        let mut hash_buckets = 0..0;
        if packed & HASH_INDEX_FLAG != 0 {
            let count = if end >= 2 {
                u16::from_le_bytes([data[end - 2], data[end - 1]]) as usize
            } else {
                0
            };
            if count == 0 || count + 2 > end {
                return Err(bad(format!(
                    "block hash index of {count} buckets does not fit in {} bytes",
                    data.len()
                )));
            }
            let start = end - 2 - count;
            if let Some(i) = data[start..end - 2]
                .iter()
                .position(|&b| b < COLLISION && b as usize >= n)
            {
                return Err(bad(format!(
                    "block hash bucket {i} names restart point {} of {n}",
                    data[start + i]
                )));
            }
            hash_buckets = start..end - 2;
            end = start;
        }
        let max = end / 4;
        if n > max {
            return Err(bad(format!(
                "block restart count {n} does not fit in {} bytes",
                data.len()
            )));
        }
        let restart_offset = end - 4 * n;
        let mut prev: Option<u32> = None;
        for i in 0..n {
            let r = decode_fixed32(&data[restart_offset + 4 * i..]).unwrap_or(u32::MAX);
            let in_order = prev.is_none_or(|p| r > p);
            if !in_order
                || (r as usize >= restart_offset && restart_offset > 0)
                || (i == 0 && r != 0)
            {
                return Err(bad(format!(
                    "block restart point {i} ({r}) is out of order or out of range"
                )));
            }
            prev = Some(r);
        }
        let num_restarts = if restart_offset == 0 { 0 } else { n };
        Ok(Block {
            data,
            restart_offset,
            num_restarts,
            file,
            offset,
            handle_values: false,
            hash_buckets,
        })
    }

    /// Whether the block carries a hash index (a data block of a table
    /// built with `data_block_index_type = kDataBlockBinaryAndHash`).
    pub fn has_hash_index(&self) -> bool {
        !self.hash_buckets.is_empty()
    }

    /// What the block's hash index says of `user_key` ([`HashLookup::Search`]
    /// when it has none).
    pub fn hash_lookup(&self, user_key: &[u8]) -> HashLookup {
        match self.data.get(self.hash_buckets.clone()) {
            Some(b) if self.num_restarts > 0 => data_block_hash::lookup(b, user_key),
            _ => HashLookup::Search,
        }
    }

    /// Marks this block as an index block of format version 3, whose
    /// values are block handles stored without a length.
    pub fn with_handle_values(mut self) -> Block {
        self.handle_values = true;
        self
    }

    /// The bytes of the block's contents in `range`, if it lies inside them.
    pub fn contents(&self, range: std::ops::Range<usize>) -> Option<&[u8]> {
        self.data.get(range)
    }

    /// Size of the uncompressed contents (the block cache's charge).
    pub fn size(&self) -> usize {
        self.data.len()
    }

    /// Offset in the file this block was read from.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The file this block was read from.
    pub fn file_name(&self) -> &Arc<str> {
        &self.file
    }

    /// An iterator ordering keys with `cmp`.
    pub fn iter(self: &Arc<Self>, cmp: KeyCmp) -> BlockIter {
        BlockIter::new(self.clone(), cmp)
    }

    /// An iterator over internal keys (data and index blocks).
    pub fn internal_iter(self: &Arc<Self>) -> BlockIter {
        BlockIter::new(self.clone(), compare_internal_keys)
    }

    fn restart_point(&self, i: usize) -> usize {
        // Validated in `new`.
        self.data
            .get(self.restart_offset + 4 * i..)
            .and_then(decode_fixed32)
            .map_or(self.restart_offset, |r| r as usize)
    }
}

/// Decodes an entry header at `p`: (shared, non_shared, value_len, header
/// size). With `handle_values` the header has no value length: the value is
/// the block handle after the key, two varint64s, and its length is theirs.
#[inline]
fn decode_entry_header(
    data: &[u8],
    p: usize,
    limit: usize,
    handle_values: bool,
) -> Option<(usize, usize, usize, usize)> {
    let hdr = data.get(p..limit)?;
    if handle_values {
        let (shared, a) = decode_varint32(hdr)?;
        let (non_shared, b) = decode_varint32(hdr.get(a..)?)?;
        let value = hdr.get(a + b + non_shared as usize..)?;
        let (_, c) = decode_varint64(value)?;
        let (_, d) = decode_varint64(value.get(c..)?)?;
        return Some((shared as usize, non_shared as usize, c + d, a + b));
    }
    if hdr.len() >= 3 && (hdr[0] | hdr[1] | hdr[2]) < 128 {
        return Some((hdr[0] as usize, hdr[1] as usize, hdr[2] as usize, 3));
    }
    let (shared, a) = decode_varint32(hdr)?;
    let (non_shared, b) = decode_varint32(hdr.get(a..)?)?;
    let (vlen, c) = decode_varint32(hdr.get(a + b..)?)?;
    Some((
        shared as usize,
        non_shared as usize,
        vlen as usize,
        a + b + c,
    ))
}

/// One entry of [`PrevCache`]: where it lies in the block, and where its
/// full key lies in the cache's key buffer.
#[derive(Clone, Copy)]
struct CachedEntry {
    offset: usize,
    next_offset: usize,
    value_start: usize,
    value_len: usize,
    key_start: usize,
    key_end: usize,
}

/// The entries of one restart interval before the one an iterator stepped
/// back from, decoded in the one walk forward that stepping back needs
/// (RocksDB's `DataBlockIter::prev_entries_`): each further step back
/// inside the interval reads the cache instead of walking again from the
/// restart point, so a reverse scan decodes each entry once, as a forward
/// scan does, instead of up to `block_restart_interval` times.
#[derive(Default)]
struct PrevCache {
    entries: Vec<CachedEntry>,
    /// The entries' full keys, one after another.
    keys: Vec<u8>,
    /// The restart interval the entries belong to.
    restart_index: usize,
    /// The iterator's entry: `entries[pos]` while the cache is in use.
    pos: usize,
}

impl PrevCache {
    fn clear(&mut self) {
        self.entries.clear();
        self.keys.clear();
        self.pos = 0;
    }

    fn push(&mut self, it: &BlockIter) {
        let key_start = self.keys.len();
        self.keys.extend_from_slice(&it.key);
        self.entries.push(CachedEntry {
            offset: it.current,
            next_offset: it.next_offset,
            value_start: it.value_start,
            value_len: it.value_len,
            key_start,
            key_end: self.keys.len(),
        });
    }

    /// Whether the iterator at entry offset `current` is at `entries[pos]`.
    fn holds(&self, current: usize) -> bool {
        self.entries
            .get(self.pos)
            .is_some_and(|e| e.offset == current)
    }
}

/// A cursor over one block (LevelDB's `Block::Iter`).
pub struct BlockIter {
    block: Arc<Block>,
    cmp: KeyCmp,
    /// Offset of the current entry; `restart_offset` when not valid.
    current: usize,
    /// Offset just past the current entry.
    next_offset: usize,
    /// Restart region holding the current entry.
    restart_index: usize,
    key: Vec<u8>,
    value_start: usize,
    value_len: usize,
    status: Option<Error>,
    /// Entries decoded by the last step back; see [`PrevCache`].
    prev_cache: PrevCache,
}

impl BlockIter {
    /// A new iterator, not yet positioned.
    pub fn new(block: Arc<Block>, cmp: KeyCmp) -> Self {
        let end = block.restart_offset;
        let n = block.num_restarts;
        BlockIter {
            block,
            cmp,
            current: end,
            next_offset: end,
            restart_index: n,
            key: Vec::new(),
            value_start: 0,
            value_len: 0,
            status: None,
            prev_cache: PrevCache::default(),
        }
    }

    /// Switches to another block (unpositioned), keeping the key buffer's
    /// allocation and the ordering. Clears any error.
    pub fn set_block(&mut self, block: Arc<Block>) {
        self.block = block;
        self.status = None;
        // The cached entries are offsets into the old block.
        self.prev_cache.clear();
        self.invalidate();
    }

    /// The block being iterated.
    pub fn block(&self) -> &Arc<Block> {
        &self.block
    }

    /// Where the current entry's value lies in the block's contents (what
    /// [`crate::PinnableSlice`] keeps instead of a copy); empty when not
    /// positioned.
    pub fn value_range(&self) -> std::ops::Range<usize> {
        self.value_start..self.value_start + self.value_len
    }

    fn invalidate(&mut self) {
        self.current = self.block.restart_offset;
        self.next_offset = self.block.restart_offset;
        self.restart_index = self.block.num_restarts;
        self.key.clear();
    }

    fn corrupt(&mut self, msg: &str) {
        if self.status.is_none() {
            self.status = Some(Error::corruption(
                &*self.block.file,
                self.block.offset,
                format!(
                    "{msg} (entry at offset {} inside the block)",
                    self.next_offset
                ),
            ));
        }
        self.invalidate();
    }

    fn seek_to_restart(&mut self, i: usize) {
        self.key.clear();
        self.restart_index = i;
        self.next_offset = self.block.restart_point(i);
    }

    /// Decodes the entry at `next_offset`; false at the end or on damage.
    fn parse_next(&mut self) -> bool {
        let limit = self.block.restart_offset;
        let p = self.next_offset;
        if p >= limit {
            self.invalidate();
            return false;
        }
        let data = &self.block.data;
        let Some((shared, non_shared, vlen, hlen)) =
            decode_entry_header(data, p, limit, self.block.handle_values)
        else {
            self.corrupt("bad entry header");
            return false;
        };
        let key_start = p + hlen;
        let value_start = key_start + non_shared;
        let end = value_start + vlen;
        if shared > self.key.len() || end > limit {
            self.corrupt("entry overruns the block or shares more than the previous key");
            return false;
        }
        self.key.truncate(shared);
        self.key.extend_from_slice(&data[key_start..value_start]);
        self.current = p;
        self.value_start = value_start;
        self.value_len = vlen;
        self.next_offset = end;
        while self.restart_index + 1 < self.block.num_restarts
            && self.block.restart_point(self.restart_index + 1) <= p
        {
            self.restart_index += 1;
        }
        true
    }

    /// Walks forward from restart point `i` to the first entry that ends at
    /// or after `stop` (the entry before the one at offset `stop`, or the
    /// last entry when `stop` is the end of the entries), keeping every
    /// entry on the way in the [`PrevCache`] for the steps back that follow.
    fn walk_caching(&mut self, i: usize, stop: usize) {
        let mut cache = std::mem::take(&mut self.prev_cache);
        cache.clear();
        cache.restart_index = i;
        self.seek_to_restart(i);
        while self.parse_next() {
            cache.push(self);
            if self.next_offset >= stop {
                cache.pos = cache.entries.len() - 1;
                break;
            }
        }
        if !self.valid() {
            cache.clear();
        }
        self.prev_cache = cache;
    }

    /// The full key stored at restart point `i` (restart entries share
    /// nothing). Only the key's lengths are decoded: a binary search over
    /// the restarts reads no value (nor an index entry's block handle).
    fn restart_key(&self, i: usize) -> Option<&[u8]> {
        let p = self.block.restart_point(i);
        let hdr = self.block.data.get(p..self.block.restart_offset)?;
        let (shared, a) = decode_varint32(hdr)?;
        let (non_shared, b) = decode_varint32(hdr.get(a..)?)?;
        if shared != 0 {
            return None;
        }
        let key_start = if self.block.handle_values {
            a + b
        } else {
            a + b + decode_varint32(hdr.get(a + b..)?)?.1
        };
        hdr.get(key_start..key_start + non_shared as usize)
    }

    /// Positions at the first entry `>= target`, walking forward from
    /// restart point `i` (one the block's hash index named for the
    /// target's user key), without a binary search.
    pub fn seek_in_restart(&mut self, i: usize, target: &[u8]) {
        if i >= self.block.num_restarts {
            self.invalidate();
            return;
        }
        self.seek_to_restart(i);
        while self.parse_next() {
            if (self.cmp)(&self.key, target) != Ordering::Less {
                return;
            }
        }
    }
}

impl InternalIterator for BlockIter {
    fn valid(&self) -> bool {
        self.current < self.block.restart_offset
    }

    fn seek_to_first(&mut self) {
        if self.block.num_restarts == 0 {
            self.invalidate();
            return;
        }
        self.seek_to_restart(0);
        self.parse_next();
    }

    fn seek_to_last(&mut self) {
        if self.block.num_restarts == 0 {
            self.invalidate();
            return;
        }
        self.walk_caching(self.block.num_restarts - 1, self.block.restart_offset);
    }

    fn seek(&mut self, target: &[u8]) {
        let n = self.block.num_restarts;
        if n == 0 {
            self.invalidate();
            return;
        }
        // Last restart point whose key is < target (or 0).
        let (mut left, mut right) = (0usize, n - 1);
        while left < right {
            let mid = (left + right).div_ceil(2);
            let Some(k) = self.restart_key(mid) else {
                self.next_offset = self.block.restart_point(mid);
                self.corrupt("bad restart entry");
                return;
            };
            if (self.cmp)(k, target) == Ordering::Less {
                left = mid;
            } else {
                right = mid - 1;
            }
        }
        self.seek_to_restart(left);
        while self.parse_next() {
            if (self.cmp)(&self.key, target) != Ordering::Less {
                return;
            }
        }
    }

    fn seek_for_prev(&mut self, target: &[u8]) {
        self.seek(target);
        if !self.valid() {
            if self.status.is_some() {
                return;
            }
            self.seek_to_last();
        }
        while self.valid() && (self.cmp)(&self.key, target) == Ordering::Greater {
            self.prev();
        }
    }

    fn next(&mut self) {
        debug_assert!(self.valid());
        self.parse_next();
    }

    fn prev(&mut self) {
        debug_assert!(self.valid());
        let original = self.current;
        if self.prev_cache.holds(original) && self.prev_cache.pos > 0 {
            self.prev_cache.pos -= 1;
            let e = self.prev_cache.entries[self.prev_cache.pos];
            self.current = e.offset;
            self.next_offset = e.next_offset;
            self.value_start = e.value_start;
            self.value_len = e.value_len;
            self.restart_index = self.prev_cache.restart_index;
            self.key.clear();
            self.key
                .extend_from_slice(&self.prev_cache.keys[e.key_start..e.key_end]);
            return;
        }
        while self.block.restart_point(self.restart_index) >= original {
            if self.restart_index == 0 {
                self.invalidate();
                return;
            }
            self.restart_index -= 1;
        }
        self.walk_caching(self.restart_index, original);
    }

    fn key(&self) -> &[u8] {
        &self.key
    }

    fn value(&self) -> &[u8] {
        self.block.contents(self.value_range()).unwrap_or(&[])
    }

    fn status(&self) -> Result<()> {
        match &self.status {
            Some(e) => Err(e.duplicate()),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sstable::block_builder::BlockBuilder;
    use crate::types::{make_internal_key, user_key, ValueType};

    fn build(keys: &[Vec<u8>], interval: usize) -> Arc<Block> {
        let mut b = BlockBuilder::new(interval);
        for (i, k) in keys.iter().enumerate() {
            b.add(k, format!("v{i}").as_bytes());
        }
        Arc::new(Block::new(b.finish().to_vec(), Arc::from("t.sst"), 100).unwrap())
    }

    fn keys(n: usize) -> Vec<Vec<u8>> {
        (0..n)
            .map(|i| make_internal_key(format!("key{:05}", i * 2).as_bytes(), 7, ValueType::Value))
            .collect()
    }

    #[test]
    fn random_moves_match_the_key_list() {
        for interval in [1, 3, 16] {
            let ks = keys(100);
            let block = build(&ks, interval);
            let mut it = block.internal_iter();
            // Expected position: an index into `ks`, or None when invalid.
            let mut at: Option<usize> = None;
            let mut x: u64 = 0x9e37_79b9_7f4a_7c15 ^ interval as u64;
            for step in 0..5_000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let op = x % 10;
                match (op, at) {
                    (0, _) => {
                        it.seek_to_first();
                        at = Some(0);
                    }
                    (1, _) => {
                        it.seek_to_last();
                        at = Some(ks.len() - 1);
                    }
                    (2, _) => {
                        // Keys are even numbers: an odd target lands on the next.
                        let n = (x >> 8) as usize % 201;
                        let target =
                            make_internal_key(format!("key{n:05}").as_bytes(), 7, ValueType::Value);
                        it.seek(&target);
                        at = (n.div_ceil(2) < ks.len()).then_some(n.div_ceil(2));
                    }
                    (3..=5, Some(i)) => {
                        it.next();
                        at = (i + 1 < ks.len()).then_some(i + 1);
                    }
                    (_, Some(i)) => {
                        it.prev();
                        at = i.checked_sub(1);
                    }
                    (_, None) => {
                        it.seek_to_last();
                        at = Some(ks.len() - 1);
                    }
                }
                match at {
                    Some(i) => {
                        assert!(it.valid(), "interval {interval} step {step}");
                        assert_eq!(it.key(), &ks[i][..], "interval {interval} step {step}");
                        assert_eq!(it.value(), format!("v{i}").as_bytes());
                    }
                    None => assert!(!it.valid(), "interval {interval} step {step}"),
                }
            }
            assert!(it.status().is_ok());
        }
    }

    /// Steps back cache the entries they decode; another block laid out
    /// the same way must not be read through the first one's cache.
    #[test]
    fn a_step_back_after_switching_blocks_reads_the_new_block() {
        let a = keys(40);
        let b: Vec<Vec<u8>> = (0..40)
            .map(|i| make_internal_key(format!("kex{:05}", i * 2).as_bytes(), 7, ValueType::Value))
            .collect();
        let (block_a, block_b) = (build(&a, 16), build(&b, 16));
        let mut it = block_a.internal_iter();
        it.seek_to_last();
        it.prev();
        assert_eq!(it.key(), &a[38][..]);
        it.set_block(block_b);
        it.seek(&b[38]);
        assert_eq!(it.key(), &b[38][..]);
        it.prev();
        assert_eq!(it.key(), &b[37][..]);
    }

    #[test]
    fn forward_and_backward_scan() {
        for interval in [1, 2, 16] {
            let ks = keys(100);
            let block = build(&ks, interval);
            let mut it = block.internal_iter();
            it.seek_to_first();
            for (i, k) in ks.iter().enumerate() {
                assert!(it.valid());
                assert_eq!(it.key(), &k[..]);
                assert_eq!(it.value(), format!("v{i}").as_bytes());
                it.next();
            }
            assert!(!it.valid());
            it.seek_to_last();
            for k in ks.iter().rev() {
                assert_eq!(it.key(), &k[..]);
                it.prev();
            }
            assert!(!it.valid());
            assert!(it.status().is_ok());
        }
    }

    #[test]
    fn seek_lands_on_first_key_not_less() {
        let ks = keys(50);
        let block = build(&ks, 4);
        let mut it = block.internal_iter();
        let t = make_internal_key(b"key00031", 7, ValueType::Value);
        it.seek(&t);
        assert_eq!(it.key(), &ks[16][..]);
        it.seek_for_prev(&t);
        assert_eq!(it.key(), &ks[15][..]);
        it.seek(&make_internal_key(b"zzz", 0, ValueType::Value));
        assert!(!it.valid());
        it.seek_for_prev(&make_internal_key(b"a", 0, ValueType::Value));
        assert!(!it.valid());
    }

    #[test]
    fn empty_block_iterates_nothing() {
        let mut b = BlockBuilder::new(16);
        let block = Arc::new(Block::new(b.finish().to_vec(), Arc::from("t"), 0).unwrap());
        let mut it = block.internal_iter();
        it.seek_to_first();
        assert!(!it.valid());
        it.seek_to_last();
        assert!(!it.valid());
        it.seek(b"x");
        assert!(!it.valid());
    }

    #[test]
    fn bad_restart_array_is_corruption() {
        let e = Block::new(vec![1, 2], Arc::from("f.sst"), 9).unwrap_err();
        assert!(e.is_corruption() && e.to_string().contains("f.sst at offset 9"));
        let mut data = vec![0u8; 8];
        data[4..].copy_from_slice(&100u32.to_le_bytes());
        assert!(Block::new(data, Arc::from("f"), 0).is_err());
    }

    /// An index block of format version 3: values are block handles with no
    /// length before them; iteration and seeks find every handle.
    #[test]
    fn handle_values_without_lengths() {
        use crate::sstable::format::BlockHandle;
        let ks = keys(60);
        let handles: Vec<Vec<u8>> = (0..60u64)
            .map(|i| {
                let mut enc = Vec::new();
                BlockHandle {
                    offset: i * 300_000,
                    size: 100 + i * 997,
                }
                .encode_to(&mut enc);
                enc
            })
            .collect();
        let mut with_len = BlockBuilder::new(1);
        let mut b = BlockBuilder::new_index(1);
        for (k, h) in ks.iter().zip(&handles) {
            with_len.add(k, h);
            b.add(k, h);
        }
        let data = b.finish().to_vec();
        assert_eq!(with_len.finish().len() - data.len(), 60);
        let block = Arc::new(
            Block::new(data, Arc::from("t.sst"), 0)
                .unwrap()
                .with_handle_values(),
        );
        let mut it = block.internal_iter();
        it.seek_to_first();
        for (k, h) in ks.iter().zip(&handles) {
            assert_eq!((it.key(), it.value()), (&k[..], &h[..]));
            it.next();
        }
        assert!(!it.valid() && it.status().is_ok());
        it.seek_to_last();
        assert_eq!(it.value(), &handles[59][..]);
        it.prev();
        assert_eq!(it.value(), &handles[58][..]);
        it.seek(&ks[31]);
        assert_eq!(it.value(), &handles[31][..]);
        // A handle cut short is a bad entry, not a panic or a short value.
        let mut cut = BlockBuilder::new_index(1);
        cut.add(&ks[0], &[0x80]);
        let block = Arc::new(
            Block::new(cut.finish().to_vec(), Arc::from("t.sst"), 0)
                .unwrap()
                .with_handle_values(),
        );
        let mut it = block.internal_iter();
        it.seek_to_first();
        assert!(!it.valid() && it.status().unwrap_err().is_corruption());
    }

    fn build_hashed(keys: &[Vec<u8>], interval: usize, ratio: f64) -> Arc<Block> {
        let mut b = BlockBuilder::with_hash_index(interval, ratio);
        for (i, k) in keys.iter().enumerate() {
            b.add(k, format!("v{i}").as_bytes());
        }
        Arc::new(Block::new(b.finish().to_vec(), Arc::from("t.sst"), 100).unwrap())
    }

    /// A point lookup through the hash index lands where a binary search
    /// does, for present keys, keys between them and keys past the ends;
    /// an absent verdict is only given for user keys the block lacks.
    #[test]
    fn hash_lookups_land_where_binary_search_does() {
        for (interval, ratio) in [(1, 0.75), (4, 0.75), (16, 0.75), (4, 0.1), (4, 8.0)] {
            let ks = keys(150);
            let block = build_hashed(&ks, interval, ratio);
            assert!(block.has_hash_index());
            let (mut by_hash, mut by_search) = (block.internal_iter(), block.internal_iter());
            let mut absent = 0;
            for n in 0..301 {
                let uk = format!("key{n:05}");
                let target = make_internal_key(uk.as_bytes(), 7, ValueType::Value);
                by_search.seek(&target);
                let present = n % 2 == 0 && n / 2 < ks.len();
                match block.hash_lookup(uk.as_bytes()) {
                    HashLookup::Absent => {
                        assert!(!present, "{uk} is in the block");
                        absent += 1;
                        continue;
                    }
                    HashLookup::Restart(r) => by_hash.seek_in_restart(r, &target),
                    HashLookup::Search => by_hash.seek(&target),
                }
                if present {
                    assert!(by_hash.valid(), "interval {interval} ratio {ratio}: {uk}");
                    assert_eq!(by_hash.key(), by_search.key());
                    assert_eq!(by_hash.value(), by_search.value());
                } else if by_hash.valid() {
                    assert_ne!(user_key(by_hash.key()), uk.as_bytes());
                }
            }
            // With 8 keys a bucket every bucket is taken.
            assert!(
                absent > 0 || ratio > 1.0,
                "interval {interval} ratio {ratio}: no key known absent"
            );
            assert!(by_hash.status().is_ok() && by_search.status().is_ok());
        }
    }

    /// A block past 254 restart points is written without a hash index and
    /// reads as any other block.
    #[test]
    fn too_many_restarts_for_a_hash_index_leaves_it_out() {
        let ks = keys(300);
        let block = build_hashed(&ks, 1, 0.75);
        assert!(!block.has_hash_index());
        assert_eq!(block.hash_lookup(b"key00002"), HashLookup::Search);
        let mut it = block.internal_iter();
        it.seek(&ks[255]);
        assert_eq!(it.key(), &ks[255][..]);
    }

    /// Damage to the hash index is Corruption naming the file and offset
    /// when the block is parsed, never a panic or a wrong restart point.
    #[test]
    fn damaged_hash_index_is_corruption() {
        let ks = keys(60);
        let block = build_hashed(&ks, 4, 0.75);
        let data = block.data.to_vec();
        let len = data.len();
        let count = u16::from_le_bytes([data[len - 6], data[len - 5]]) as usize;
        // A bucket naming restart point 200 of 15.
        let mut bad = data.clone();
        let first_bucket = len - 6 - count;
        bad[first_bucket] = 200;
        let e = Block::new(bad, Arc::from("f.sst"), 9).unwrap_err();
        assert!(
            e.is_corruption() && e.to_string().contains("f.sst at offset 9"),
            "{e}"
        );
        // A bucket count larger than the block.
        let mut bad = data.clone();
        bad[len - 6..len - 4].copy_from_slice(&u16::MAX.to_le_bytes());
        assert!(Block::new(bad, Arc::from("f"), 0)
            .unwrap_err()
            .is_corruption());
        // Zero buckets.
        let mut bad = data.clone();
        bad[len - 6..len - 4].copy_from_slice(&0u16.to_le_bytes());
        assert!(Block::new(bad, Arc::from("f"), 0)
            .unwrap_err()
            .is_corruption());
        // A flagged count with no room for the bucket count.
        let tiny = (1u32 | HASH_INDEX_FLAG).to_le_bytes().to_vec();
        assert!(Block::new(tiny, Arc::from("f"), 0)
            .unwrap_err()
            .is_corruption());
        let mut five = vec![7u8];
        five.extend_from_slice(&(1u32 | HASH_INDEX_FLAG).to_le_bytes());
        assert!(Block::new(five, Arc::from("f"), 0)
            .unwrap_err()
            .is_corruption());
        // Any byte flipped: parsing fails or lookups stay in bounds.
        for i in 0..len {
            let mut d = data.clone();
            d[i] ^= 0x41;
            let Ok(b) = Block::new(d, Arc::from("f"), 0) else {
                continue;
            };
            let b = Arc::new(b);
            let mut it = b.internal_iter();
            for k in ks.iter().step_by(7) {
                match b.hash_lookup(user_key(k)) {
                    HashLookup::Restart(r) => it.seek_in_restart(r, k),
                    HashLookup::Search => it.seek(k),
                    HashLookup::Absent => {}
                }
            }
        }
    }

    #[test]
    fn damaged_entries_give_status_error_without_panicking() {
        let ks = keys(40);
        let block = build(&ks, 4);
        let n = block.restart_offset;
        for i in 0..n {
            for flip in [0x01u8, 0x80, 0xff] {
                let mut data = block.data.to_vec();
                data[i] ^= flip;
                let Ok(b) = Block::new(data, Arc::from("f"), 0) else {
                    continue;
                };
                let b = Arc::new(b);
                let mut it = b.internal_iter();
                it.seek_to_first();
                let mut count = 0;
                while it.valid() && count < 1000 {
                    it.next();
                    count += 1;
                }
                it.seek_to_last();
                while it.valid() && count < 2000 {
                    it.prev();
                    count += 1;
                }
                it.seek(&ks[20]);
                it.seek_for_prev(&ks[20]);
            }
        }
    }
}
