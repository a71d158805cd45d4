//! [`BlobCache`]: a sharded LRU of uncompressed blob values keyed by
//! (blob file number, value offset), charged by value size.

use std::sync::Arc;

use crate::cache::ShardedLru;

/// Bytes charged per entry on top of the value (key, node, `Arc` header), so
/// that empty values still cost something.
pub const ENTRY_OVERHEAD: usize = 64;

/// Most shards a cache is split into (RocksDB's default of 16 for large
/// caches).
const MAX_SHARD_BITS: u32 = 4;

/// Smallest shard RocksDB gives a cache (512 KiB); small caches get fewer
/// shards so a single value still fits a shard.
const MIN_SHARD_BYTES: usize = 512 * 1024;

/// A sharded LRU cache of uncompressed blobs (RocksDB's `blob_cache`),
/// keyed by (blob file number, offset of the value in that file).
///
/// A capacity of 0 caches nothing. Hit/miss tickers are recorded by
/// [`super::BlobSource`], which knows the DB's statistics.
pub type BlobCache = ShardedLru<Arc<Vec<u8>>>;

impl BlobCache {
    /// A cache holding up to `capacity_bytes` of blobs (values plus
    /// [`ENTRY_OVERHEAD`] each).
    pub fn new(capacity_bytes: usize) -> Self {
        let mut bits = 0;
        while bits < MAX_SHARD_BITS && capacity_bytes >> (bits + 1) >= MIN_SHARD_BYTES {
            bits += 1;
        }
        let n = 1usize << bits;
        ShardedLru::with_shards(capacity_bytes, n, capacity_bytes / n, 32)
    }

    /// Caches a value, evicting cold values of its shard as needed. Returns
    /// false (and caches nothing) when the cache is off or the value is
    /// larger than a shard.
    pub fn insert(&self, file_number: u64, offset: u64, value: Arc<Vec<u8>>) -> bool {
        let charge = value.len().saturating_add(ENTRY_OVERHEAD);
        if self.capacity() == 0 || charge > self.shard_capacity() {
            return false;
        }
        self.insert_charged(file_number, offset, value, charge);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn val(n: usize, b: u8) -> Arc<Vec<u8>> {
        Arc::new(vec![b; n])
    }

    #[test]
    fn small_cache_is_one_exact_lru() {
        // 3 entries of 100 + overhead fit, the 4th evicts the coldest.
        let c = BlobCache::new(3 * (100 + ENTRY_OVERHEAD));
        assert!(c.insert(1, 10, val(100, 1)));
        assert!(c.insert(1, 20, val(100, 2)));
        assert!(c.insert(2, 10, val(100, 3)));
        assert_eq!(c.lookup(1, 10).as_deref(), Some(&vec![1u8; 100]));
        assert!(c.insert(2, 20, val(100, 4))); // evicts (1, 20)
        assert!(c.lookup(1, 20).is_none());
        assert!(c.lookup(1, 10).is_some());
        assert_eq!(c.len(), 3);
        assert_eq!(c.usage(), 3 * (100 + ENTRY_OVERHEAD));
        c.erase_file(1);
        assert!(c.lookup(1, 10).is_none());
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn too_big_values_and_zero_capacity_are_refused() {
        let c = BlobCache::new(1000);
        assert!(!c.insert(1, 0, val(1000, 0)));
        assert!(c.is_empty());
        let off = BlobCache::new(0);
        assert!(!off.insert(1, 0, val(1, 0)));
        assert!(off.lookup(1, 0).is_none());
    }

    #[test]
    fn large_cache_is_sharded_and_bounded() {
        let c = BlobCache::new(16 << 20);
        assert_eq!(c.shard_count(), 16);
        for i in 0..5000u64 {
            c.insert(i % 7 + 1, i * 4096, val(4096, i as u8));
        }
        assert!(c.usage() <= c.capacity());
        assert!(c.usage() > c.capacity() / 2, "usage {}", c.usage());
        assert_eq!(BlobCache::new(1 << 20).shard_count(), 2);
    }
}
