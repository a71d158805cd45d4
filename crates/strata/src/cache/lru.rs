//! A least-recently-used map with byte charges, O(1) per operation: a hash
//! map from key to a slot in a slab of doubly linked nodes.
//!
//! Not thread-safe by itself: [`super::ShardedLru`] shards it behind mutexes
//! for the block and blob caches, and [`super::OpenFiles`] wraps one in a
//! mutex for the open table and blob files.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

const NIL: usize = usize::MAX;

/// A fast hasher for small integer keys (multiply-xorshift mixing).
#[derive(Default, Clone, Copy)]
pub struct IntHasher(u64);

impl Hasher for IntHasher {
    fn finish(&self) -> u64 {
        let mut x = self.0;
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(29) ^ n).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

/// Builds [`IntHasher`]s.
pub type IntBuildHasher = BuildHasherDefault<IntHasher>;

struct Node<K, V> {
    key: K,
    value: Option<V>,
    charge: usize,
    prev: usize,
    next: usize,
}

/// An LRU map whose entries carry a charge; inserting evicts the least
/// recently used entries while the total charge exceeds the capacity.
pub struct Lru<K, V> {
    map: HashMap<K, usize, IntBuildHasher>,
    nodes: Vec<Node<K, V>>,
    free: Vec<usize>,
    /// Most recently used.
    head: usize,
    /// Least recently used.
    tail: usize,
    usage: usize,
    capacity: usize,
}

impl<K: Hash + Eq + Clone, V: Clone> Lru<K, V> {
    /// An empty map holding at most `capacity` total charge.
    pub fn new(capacity: usize) -> Self {
        Lru {
            map: HashMap::default(),
            nodes: Vec::new(),
            free: Vec::new(),
            head: NIL,
            tail: NIL,
            usage: 0,
            capacity,
        }
    }

    /// Total charge of the entries held.
    pub fn usage(&self) -> usize {
        self.usage
    }

    /// Number of entries held.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// True if nothing is held.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    fn unlink(&mut self, i: usize) {
        let (p, n) = (self.nodes[i].prev, self.nodes[i].next);
        if p == NIL {
            self.head = n;
        } else {
            self.nodes[p].next = n;
        }
        if n == NIL {
            self.tail = p;
        } else {
            self.nodes[n].prev = p;
        }
    }

    fn push_front(&mut self, i: usize) {
        self.nodes[i].prev = NIL;
        self.nodes[i].next = self.head;
        if self.head != NIL {
            self.nodes[self.head].prev = i;
        }
        self.head = i;
        if self.tail == NIL {
            self.tail = i;
        }
    }

    /// The value for `key`, marking it most recently used.
    pub fn get(&mut self, key: &K) -> Option<V> {
        let i = *self.map.get(key)?;
        if self.head != i {
            self.unlink(i);
            self.push_front(i);
        }
        self.nodes[i].value.clone()
    }

    /// Inserts or replaces `key`, then evicts from the cold end until the
    /// usage fits (never the entry just inserted). True if `key` was
    /// already present (its old value is replaced).
    pub fn insert(&mut self, key: K, value: V, charge: usize) -> bool {
        let replaced = self.remove(&key).is_some();
        let node = Node {
            key: key.clone(),
            value: Some(value),
            charge,
            prev: NIL,
            next: NIL,
        };
        let i = match self.free.pop() {
            Some(i) => {
                self.nodes[i] = node;
                i
            }
            None => {
                self.nodes.push(node);
                self.nodes.len() - 1
            }
        };
        self.map.insert(key, i);
        self.push_front(i);
        self.usage += charge;
        while self.usage > self.capacity && self.tail != NIL && self.tail != i {
            let t = self.tail;
            let k = self.nodes[t].key.clone();
            self.remove(&k);
        }
        replaced
    }

    /// Removes `key`; returns its value if it was present.
    pub fn remove(&mut self, key: &K) -> Option<V> {
        let i = self.map.remove(key)?;
        self.unlink(i);
        self.usage -= self.nodes[i].charge;
        self.free.push(i);
        self.nodes[i].value.take()
    }

    /// Removes every entry whose key fails `keep` and returns their
    /// values, for the caller to drop once it has let go of its locks.
    pub fn retain(&mut self, mut keep: impl FnMut(&K) -> bool) -> Vec<V> {
        let doomed: Vec<K> = self.map.keys().filter(|k| !keep(k)).cloned().collect();
        doomed.iter().filter_map(|k| self.remove(k)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evicts_least_recently_used_by_charge() {
        let mut c: Lru<u64, u64> = Lru::new(10);
        c.insert(1, 10, 4);
        c.insert(2, 20, 4);
        assert_eq!(c.get(&1), Some(10)); // 2 is now the coldest
        c.insert(3, 30, 4); // 12 > 10: evicts 2
        assert_eq!(c.get(&2), None);
        assert_eq!(c.get(&1), Some(10));
        assert_eq!(c.get(&3), Some(30));
        assert_eq!(c.usage(), 8);
        c.insert(4, 40, 100); // too big: everything else goes, it stays
        assert_eq!(c.len(), 1);
        assert_eq!(c.get(&4), Some(40));
        c.insert(4, 41, 1);
        assert_eq!((c.usage(), c.get(&4)), (1, Some(41)));
        c.retain(|k| *k != 4);
        assert!(c.is_empty());
        assert_eq!(c.usage(), 0);
    }

    #[test]
    fn matches_a_simple_model() {
        let mut c: Lru<u64, u64> = Lru::new(5);
        let mut model: Vec<u64> = Vec::new(); // most recent last
        let mut x = 12345u64;
        for _ in 0..5000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let k = (x >> 33) % 9;
            if x & 1 == 0 {
                let hit = c.get(&k);
                let pos = model.iter().position(|m| *m == k);
                assert_eq!(hit.is_some(), pos.is_some());
                if let Some(p) = pos {
                    model.remove(p);
                    model.push(k);
                }
            } else {
                c.insert(k, k, 1);
                model.retain(|m| *m != k);
                model.push(k);
                if model.len() > 5 {
                    model.remove(0);
                }
            }
            assert_eq!(c.len(), model.len());
        }
    }
}
