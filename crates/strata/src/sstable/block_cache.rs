//! The block cache: a sharded LRU of uncompressed blocks keyed by
//! (file number, block offset), charged by block size.

use std::sync::Arc;

use super::block::Block;
use crate::cache::ShardedLru;

const NUM_SHARD_BITS: u32 = 4;
const NUM_SHARDS: usize = 1 << NUM_SHARD_BITS;

/// A sharded LRU cache of blocks (RocksDB's `LRUCache` with 16 shards),
/// keyed by (file number, offset of the block in that file).
///
/// Capacity is in bytes of uncompressed block contents; a capacity of 0
/// caches nothing. Hit/miss tickers are recorded by the table reader.
pub type BlockCache = ShardedLru<Arc<Block>>;

impl BlockCache {
    /// A cache holding up to `capacity_bytes` of blocks.
    pub fn new(capacity_bytes: usize) -> Self {
        let per_shard = capacity_bytes.div_ceil(NUM_SHARDS);
        ShardedLru::with_shards(capacity_bytes, NUM_SHARDS, per_shard, 64 - NUM_SHARD_BITS)
    }

    /// Caches a block, evicting cold blocks of its shard if needed. True if
    /// the block was already cached (another reader inserted it first: a
    /// redundant insert, in RocksDB's terms); false for a new entry and when
    /// the cache has no capacity.
    pub fn insert(&self, file_number: u64, offset: u64, block: Arc<Block>) -> bool {
        let charge = block.size();
        self.insert_charged(file_number, offset, block, charge)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(n: usize) -> Arc<Block> {
        let mut data = vec![0u8; n.max(8)];
        let len = data.len();
        data[len - 4..].copy_from_slice(&0u32.to_le_bytes());
        Arc::new(Block::new(data, Arc::from("t"), 0).unwrap())
    }

    #[test]
    fn caches_and_evicts_by_bytes() {
        let c = BlockCache::new(16 * 1000);
        for off in 0..100u64 {
            c.insert(1, off * 4096, block(500));
        }
        assert!(c.usage() <= c.capacity());
        assert!(c.usage() >= 8000, "usage {}", c.usage());
        assert!(!c.insert(2, 0, block(100)));
        assert!(c.lookup(2, 0).is_some());
        assert!(c.insert(2, 0, block(100)), "a second insert is redundant");
        assert!(c.lookup(3, 0).is_none());
        c.erase_file(2);
        assert!(c.lookup(2, 0).is_none());
        c.erase_file(1);
        assert_eq!(c.usage(), 0);
    }

    #[test]
    fn zero_capacity_caches_nothing() {
        let c = BlockCache::new(0);
        c.insert(1, 0, block(10));
        assert!(c.lookup(1, 0).is_none());
        assert_eq!(c.usage(), 0);
    }
}
