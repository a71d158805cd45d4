//! Builds a block: prefix-compressed entries plus a restart array.
//!
//! Byte layout: see `docs/formats/sstable.md` ("Block contents").

use crate::coding::{put_fixed32, put_varint32};

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
    }

    /// Size the block would have if finished now.
    pub fn size_estimate(&self) -> usize {
        self.buf.len() + 4 * self.restarts.len() + 4
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
        put_fixed32(&mut self.buf, self.restarts.len() as u32);
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
    }
}
