//! [`ShardedLru`]: an LRU cache split into shards, each an [`Lru`] behind
//! its own mutex (RocksDB's `ShardedCache`), keyed by (file number, offset).

use std::hash::BuildHasher;

use parking_lot::Mutex;

use super::lru::{IntBuildHasher, Lru};

/// Cache key: (file number, offset of the entry in that file).
pub(crate) type CacheKey = (u64, u64);

/// An LRU cache of `V` in shards; a key's shard is picked by bits of its
/// hash, so that concurrent readers rarely wait on one another.
pub(crate) struct ShardedLru<V> {
    shards: Vec<Mutex<Lru<CacheKey, V>>>,
    /// The hash is shifted right by this many bits before taking it modulo
    /// the shard count.
    hash_shift: u32,
}

impl<V: Clone> ShardedLru<V> {
    /// `shards` shards of `shard_capacity` bytes each; a key's shard is
    /// `(hash >> hash_shift) % shards`.
    pub(crate) fn new(shards: usize, shard_capacity: usize, hash_shift: u32) -> Self {
        ShardedLru {
            shards: (0..shards)
                .map(|_| Mutex::new(Lru::new(shard_capacity)))
                .collect(),
            hash_shift,
        }
    }

    fn shard(&self, key: &CacheKey) -> &Mutex<Lru<CacheKey, V>> {
        let h = IntBuildHasher::default().hash_one(key);
        &self.shards[(h >> self.hash_shift) as usize % self.shards.len()]
    }

    /// The cached value, if present (and marks it recently used).
    pub(crate) fn lookup(&self, key: &CacheKey) -> Option<V> {
        self.shard(key).lock().get(key)
    }

    /// Caches a value charged `charge` bytes, evicting cold entries of its
    /// shard as needed. True if the key was already cached.
    pub(crate) fn insert(&self, key: CacheKey, value: V, charge: usize) -> bool {
        self.shard(&key).lock().insert(key, value, charge)
    }

    /// Bytes charged for the entries held.
    pub(crate) fn usage(&self) -> usize {
        self.shards.iter().map(|s| s.lock().usage()).sum()
    }

    /// Number of entries held.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.shards.iter().map(|s| s.lock().len()).sum()
    }

    /// Number of shards.
    pub(crate) fn shard_count(&self) -> usize {
        self.shards.len()
    }

    /// Drops every entry of one file. Scans the whole cache.
    pub(crate) fn erase_file(&self, file_number: u64) {
        for s in &self.shards {
            s.lock().retain(|k| k.0 != file_number);
        }
    }
}
