//! Builds a block: prefix-compressed entries plus a restart array.
//!
//! Byte layout: see `docs/formats/sstable.md` ("Block contents").

use crate::coding::{put_fixed32, put_varint32};
use crate::types::user_key;

use super::data_block_hash::{put_restart_count, DataBlockHashBuilder};

/// Accumulates sorted entries into one block's uncompressed contents.
#[derive(Debug)]
pub struct BlockBuilder {
    buf: Vec<u8>,
    restarts: Vec<u32>,
    restart_interval: usize,
    counter: usize,
    num_entries: usize,
    last_key: Vec<u8>,
    /// False for index blocks of format version 3, whose values (block
    /// handles) are self-delimiting and stored without a length.
    value_lengths: bool,
    /// The hash index of a data block built with
    /// `data_block_index_type = kDataBlockBinaryAndHash`.
    hash: Option<DataBlockHashBuilder>,
}

impl BlockBuilder {
    /// A builder that stores a full key every `restart_interval` entries
    /// (values below 1 are treated as 1).
    pub fn new(restart_interval: usize) -> Self {
        BlockBuilder {
            buf: Vec::new(),
            restarts: vec![0],
            restart_interval: restart_interval.max(1),
            counter: 0,
            num_entries: 0,
            last_key: Vec::new(),
            value_lengths: true,
            hash: None,
        }
    }

    /// A builder for data blocks (internal keys) that also writes a hash
    /// index over their user keys, about `util_ratio` keys per bucket
    /// (RocksDB's `kDataBlockBinaryAndHash`). A block whose keys reach
    /// past restart point 253 is written without one.
    pub fn with_hash_index(restart_interval: usize, util_ratio: f64) -> Self {
        BlockBuilder {
            hash: Some(DataBlockHashBuilder::new(util_ratio)),
            ..Self::new(restart_interval)
        }
    }

    /// A builder for an index block of format version 3: every value must
    /// be an encoded block handle, stored without its length.
    pub fn new_index(restart_interval: usize) -> Self {
        BlockBuilder {
            value_lengths: false,
            ..Self::new(restart_interval)
        }
    }

    /// Appends an entry; keys must arrive in the block's sort order.
    pub fn add(&mut self, key: &[u8], value: &[u8]) {
        let mut shared = 0;
        if self.counter < self.restart_interval {
            let max = self.last_key.len().min(key.len());
            while shared < max && self.last_key[shared] == key[shared] {
                shared += 1;
            }
        } else {
            self.restarts.push(self.buf.len() as u32);
            self.counter = 0;
        }
        let non_shared = key.len() - shared;
        put_varint32(&mut self.buf, shared as u32);
        put_varint32(&mut self.buf, non_shared as u32);
        if self.value_lengths {
            put_varint32(&mut self.buf, value.len() as u32);
        }
        self.buf.extend_from_slice(&key[shared..]);
        self.buf.extend_from_slice(value);
        self.last_key.truncate(shared);
        self.last_key.extend_from_slice(&key[shared..]);
        self.counter += 1;
        self.num_entries += 1;
        if let Some(h) = &mut self.hash {
            h.add(user_key(key), self.restarts.len() - 1);
        }
    }

    /// Size the block would have if finished now.
    pub fn size_estimate(&self) -> usize {
        let hash = self.hash.as_ref().map_or(0, |h| h.estimate_size());
        self.buf.len() + 4 * self.restarts.len() + hash + 4
    }

    /// True if nothing was added since the last reset.
    pub fn is_empty(&self) -> bool {
        self.num_entries == 0
    }

    /// Appends the restart array and returns the finished contents. The
    /// builder must be [`reset`](Self::reset) before reuse.
    pub fn finish(&mut self) -> &[u8] {
        for &r in &self.restarts {
            put_fixed32(&mut self.buf, r);
        }
        let hashed = match &self.hash {
            Some(h) if h.valid() => {
                h.finish(&mut self.buf);
                true
            }
            _ => false,
        };
        put_restart_count(&mut self.buf, self.restarts.len(), hashed);
        &self.buf
    }

    /// Empties the builder, keeping its allocations.
    pub fn reset(&mut self) {
        self.buf.clear();
        self.restarts.clear();
        self.restarts.push(0);
        self.counter = 0;
        self.num_entries = 0;
        self.last_key.clear();
        if let Some(h) = &mut self.hash {
            h.reset();
        }
    }
}
