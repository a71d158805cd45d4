//! [`ShardedLru`]: an LRU cache split into shards, each an [`Lru`] behind
//! its own mutex (RocksDB's `ShardedCache`), keyed by (file number, offset).

use std::hash::BuildHasher;

use parking_lot::Mutex;

use super::lru::{IntBuildHasher, Lru};

/// Cache key: (file number, offset of the entry in that file).
pub(crate) type CacheKey = (u64, u64);

/// An LRU cache of `V` in shards of equal byte capacity; a key's shard is
/// picked by bits of its hash, so that concurrent readers rarely wait on
/// one another. A capacity of 0 caches nothing. The block cache and the
/// blob cache are each one of these ([`BlockCache`](crate::sstable::BlockCache),
/// [`BlobCache`](crate::blob::BlobCache)); what they charge an entry and
/// how many shards they take is theirs to decide.
pub struct ShardedLru<V> {
    shards: Vec<Mutex<Lru<CacheKey, V>>>,
    /// The hash is shifted right by this many bits before taking it modulo
    /// the shard count.
    hash_shift: u32,
    capacity: usize,
    shard_capacity: usize,
}

impl<V: Clone> std::fmt::Debug for ShardedLru<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShardedLru")
            .field("capacity", &self.capacity)
            .field("shards", &self.shard_count())
            .field("usage", &self.usage())
            .finish()
    }
}

impl<V: Clone> ShardedLru<V> {
    /// A cache of `capacity` bytes in `shards` shards of `shard_capacity`
    /// bytes each; a key's shard is `(hash >> hash_shift) % shards`.
    pub(crate) fn with_shards(
        capacity: usize,
        shards: usize,
        shard_capacity: usize,
        hash_shift: u32,
    ) -> Self {
        ShardedLru {
            shards: (0..shards)
                .map(|_| Mutex::new(Lru::new(shard_capacity)))
                .collect(),
            hash_shift,
            capacity,
            shard_capacity,
        }
    }

    fn shard(&self, key: &CacheKey) -> &Mutex<Lru<CacheKey, V>> {
        let h = IntBuildHasher::default().hash_one(key);
        &self.shards[(h >> self.hash_shift) as usize % self.shards.len()]
    }

    /// The value cached for (`file_number`, `offset`), if present (and
    /// marks it recently used).
    pub fn lookup(&self, file_number: u64, offset: u64) -> Option<V> {
        if self.capacity == 0 {
            return None;
        }
        let key = (file_number, offset);
        self.shard(&key).lock().get(&key)
    }

    /// Caches a value charged `charge` bytes, evicting cold entries of its
    /// shard as needed. True if the key was already cached; false for a
    /// new entry and when the cache has no capacity.
    pub(crate) fn insert_charged(
        &self,
        file_number: u64,
        offset: u64,
        value: V,
        charge: usize,
    ) -> bool {
        if self.capacity == 0 {
            return false;
        }
        let key = (file_number, offset);
        self.shard(&key).lock().insert(key, value, charge)
    }

    /// Bytes charged for the entries held.
    pub fn usage(&self) -> usize {
        self.shards.iter().map(|s| s.lock().usage()).sum()
    }

    /// The configured capacity in bytes.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The capacity of each shard in bytes.
    pub(crate) fn shard_capacity(&self) -> usize {
        self.shard_capacity
    }

    /// Number of entries held.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.shards.iter().map(|s| s.lock().len()).sum()
    }

    /// True if nothing is cached.
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of shards.
    pub(crate) fn shard_count(&self) -> usize {
        self.shards.len()
    }

    /// Drops every entry of one file (e.g. once it is deleted). Scans the
    /// whole cache.
    pub fn erase_file(&self, file_number: u64) {
        self.erase_files(&[file_number]);
    }

    /// Drops every entry of the files `files` in one scan of the cache.
    /// Each shard's entries are dropped after its lock is released: the
    /// last block of a mapped table holds the map, and unmapping a large
    /// table takes milliseconds that no lookup of the shard should wait.
    pub fn erase_files(&self, files: &[u64]) {
        if files.is_empty() {
            return;
        }
        for s in &self.shards {
            let removed = s.lock().retain(|k| !files.contains(&k.0));
            drop(removed);
        }
    }
}
