//! A data block's hash index (RocksDB's `kDataBlockBinaryAndHash`): a
//! bucket per about `1 / data_block_hash_table_util_ratio` keys, each
//! naming the restart interval that holds a user key hashed to it, so a
//! point lookup goes straight to one restart interval instead of binary
//! searching the restart array, and a key the block does not hold is
//! usually known absent without comparing a key.
//!
//! Byte layout: see `docs/formats/sstable.md` ("Data-block hash index").

use crate::coding::put_fixed32;

/// Bit of a block's restart count that says a hash index follows the
/// restart array (RocksDB packs its index type into the same bit).
pub const HASH_INDEX_FLAG: u32 = 1 << 31;

/// A bucket no key hashed to.
pub const NO_ENTRY: u8 = 255;

/// A bucket keys of two restart intervals hashed to: the lookup falls
/// back to binary search.
pub const COLLISION: u8 = 254;

/// The most restart points a block with a hash index may have: the
/// highest restart index a bucket can name is 253.
pub const MAX_RESTARTS: usize = 254;

/// The most buckets a block's index holds (their count is a fixed16).
const MAX_BUCKETS: usize = u16::MAX as usize;

/// The hash of a user key, for the buckets (xxh3, 64 bits).
#[inline]
pub fn hash_user_key(user_key: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(user_key)
}

/// The bucket of a key's hash in an index of `num_buckets` buckets.
#[inline]
pub fn bucket_of(hash: u64, num_buckets: usize) -> usize {
    (hash % num_buckets as u64) as usize
}

/// Collects each user key's restart interval while a block is built.
#[derive(Debug, Clone)]
pub struct DataBlockHashBuilder {
    buckets_per_key: f64,
    estimated_buckets: f64,
    /// (hash of a user key, its restart interval), one per key added.
    entries: Vec<(u64, u8)>,
    /// False once a key lands in a restart interval past
    /// [`MAX_RESTARTS`]: the block is then written without an index.
    valid: bool,
}

impl DataBlockHashBuilder {
    /// A builder aiming at `util_ratio` keys per bucket (RocksDB's
    /// `data_block_hash_table_util_ratio`; positive, checked by the
    /// options).
    pub fn new(util_ratio: f64) -> Self {
        DataBlockHashBuilder {
            buckets_per_key: 1.0 / util_ratio,
            estimated_buckets: 0.0,
            entries: Vec::new(),
            valid: true,
        }
    }

    /// Records that `user_key` lies in restart interval `restart_index`.
    pub fn add(&mut self, user_key: &[u8], restart_index: usize) {
        if restart_index >= MAX_RESTARTS {
            self.valid = false;
            return;
        }
        self.estimated_buckets += self.buckets_per_key;
        self.entries
            .push((hash_user_key(user_key), restart_index as u8));
    }

    /// Whether the block gets an index (no key past restart 253).
    pub fn valid(&self) -> bool {
        self.valid && !self.entries.is_empty()
    }

    fn num_buckets(&self) -> usize {
        ((self.estimated_buckets as usize).clamp(1, MAX_BUCKETS)) | 1
    }

    /// Bytes the index would add if finished now.
    pub fn estimate_size(&self) -> usize {
        if self.valid() {
            self.num_buckets() + 2
        } else {
            0
        }
    }

    /// Appends the buckets and their count after a block's restart array;
    /// the caller then writes the restart count with [`HASH_INDEX_FLAG`].
    /// Call only when [`valid`](Self::valid).
    pub fn finish(&self, buf: &mut Vec<u8>) {
        let n = self.num_buckets();
        let start = buf.len();
        buf.resize(start + n, NO_ENTRY);
        let buckets = &mut buf[start..];
        for &(hash, restart) in &self.entries {
            let b = &mut buckets[bucket_of(hash, n)];
            if *b == NO_ENTRY {
                *b = restart;
            } else if *b != restart {
                *b = COLLISION;
            }
        }
        buf.extend_from_slice(&(n as u16).to_le_bytes());
    }

    /// Empties the builder for the next block.
    pub fn reset(&mut self) {
        self.estimated_buckets = 0.0;
        self.entries.clear();
        self.valid = true;
    }
}

/// Appends a restart count, flagged when a hash index precedes it.
pub fn put_restart_count(buf: &mut Vec<u8>, count: usize, hashed: bool) {
    let flag = if hashed { HASH_INDEX_FLAG } else { 0 };
    put_fixed32(buf, count as u32 | flag);
}

/// What a block's hash index says of a user key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashLookup {
    /// The block holds no entry of the key.
    Absent,
    /// Every entry of the key the block holds lies in this restart
    /// interval (or the key is absent and shares a bucket with a key
    /// that lies there).
    Restart(usize),
    /// The index cannot tell (a collision, or no index): binary search.
    Search,
}

/// Looks `user_key` up in `buckets` (a block's hash index).
#[inline]
pub fn lookup(buckets: &[u8], user_key: &[u8]) -> HashLookup {
    if buckets.is_empty() {
        return HashLookup::Search;
    }
    match buckets[bucket_of(hash_user_key(user_key), buckets.len())] {
        NO_ENTRY => HashLookup::Absent,
        COLLISION => HashLookup::Search,
        r => HashLookup::Restart(r as usize),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn built(keys: &[(&[u8], usize)], ratio: f64) -> Vec<u8> {
        let mut b = DataBlockHashBuilder::new(ratio);
        for (k, r) in keys {
            b.add(k, *r);
        }
        let mut buf = Vec::new();
        assert!(b.valid());
        b.finish(&mut buf);
        assert_eq!(buf.len(), b.estimate_size());
        let n = u16::from_le_bytes([buf[buf.len() - 2], buf[buf.len() - 1]]) as usize;
        assert_eq!(n % 2, 1, "an odd bucket count");
        buf.truncate(n);
        buf
    }

    #[test]
    fn every_key_finds_its_restart_interval_or_a_collision() {
        let keys: Vec<Vec<u8>> = (0..200)
            .map(|i| format!("key{i:06}").into_bytes())
            .collect();
        let entries: Vec<(&[u8], usize)> = keys
            .iter()
            .enumerate()
            .map(|(i, k)| (&k[..], i / 16))
            .collect();
        let buckets = built(&entries, 0.75);
        assert_eq!(buckets.len(), (200.0 / 0.75) as usize | 1);
        let mut direct = 0;
        for (k, r) in &entries {
            match lookup(&buckets, k) {
                HashLookup::Restart(x) => {
                    assert_eq!(x, *r);
                    direct += 1;
                }
                HashLookup::Search => {}
                HashLookup::Absent => panic!("a present key reported absent"),
            }
        }
        // With 1.33 buckets per key, a key shares its bucket with no key of
        // another interval about half the time (e^-0.69).
        assert!(direct > 70, "{direct} of 200 looked up directly");
        let absent = (0..1000)
            .filter(|i| lookup(&buckets, format!("other{i}").as_bytes()) == HashLookup::Absent)
            .count();
        // About e^-0.75 of the buckets are empty.
        assert!(absent > 300, "{absent} of 1000 missing keys known absent");
    }

    #[test]
    fn versions_of_one_key_in_one_interval_do_not_collide() {
        let buckets = built(&[(b"k", 3), (b"k", 3), (b"k", 3)], 0.75);
        assert_eq!(lookup(&buckets, b"k"), HashLookup::Restart(3));
        // The same key in two intervals collides with itself.
        let buckets = built(&[(b"k", 3), (b"k", 4)], 0.75);
        assert_eq!(lookup(&buckets, b"k"), HashLookup::Search);
    }

    #[test]
    fn a_key_past_restart_253_leaves_the_block_without_an_index() {
        let mut b = DataBlockHashBuilder::new(0.75);
        b.add(b"a", 0);
        b.add(b"b", MAX_RESTARTS - 1);
        assert!(b.valid());
        b.add(b"c", MAX_RESTARTS);
        assert!(!b.valid());
        assert_eq!(b.estimate_size(), 0);
        b.reset();
        assert!(!b.valid(), "empty after a reset");
        b.add(b"a", 0);
        assert!(b.valid());
    }

    #[test]
    fn bucket_count_is_odd_and_bounded() {
        let mut b = DataBlockHashBuilder::new(0.001);
        for i in 0..100 {
            b.add(format!("{i}").as_bytes(), 0);
        }
        assert_eq!(b.num_buckets(), MAX_BUCKETS);
        let mut b = DataBlockHashBuilder::new(100.0);
        b.add(b"x", 0);
        assert_eq!(b.num_buckets(), 1);
    }
}
