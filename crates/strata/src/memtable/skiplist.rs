//! An arena-allocated skiplist of internal keys with one writer at a time
//! and any number of lock-free readers (LevelDB's `SkipList`, RocksDB's
//! `InlineSkipList` layout: each node's tower, key and value are one
//! contiguous arena allocation, so a search touches one cache line per
//! node instead of chasing a pointer to a separately allocated key).
//!
//! A node of height `h` is one allocation of `8 * h` bytes of links, then
//! the key and the value, each behind its varint32 length, as RocksDB lays
//! out a memtable entry. A node pointer points at the lowest link; link `i`
//! lies `8 * i` bytes below it and the key region right after it, so a
//! reader finds the key without knowing the height. With the arena's rules
//! (`arena.rs`) an entry costs the same memory as in RocksDB.
//!
//! Concurrency contract: [`SkipList::insert`] must not run concurrently
//! with itself (the memtable serialises inserts with a mutex; the write
//! path's group-commit leader is the only inserter anyway). Readers may run
//! at any time: a node is fully written before it is published with a
//! release store, and readers load links with acquire.

use std::cmp::Ordering as CmpOrdering;
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

use super::arena::Arena;
use crate::coding::varint_length;
use crate::types::compare_internal_keys;

/// Tallest tower.
pub const MAX_HEIGHT: usize = 12;

const LINK: usize = std::mem::size_of::<AtomicPtr<u8>>();

/// Writer-side state: the arena and the height generator.
struct WriterState {
    arena: Arena,
    rng: u32,
}

/// The skiplist. Nodes live until the list is dropped.
pub struct SkipList {
    head: *mut u8,
    max_height: AtomicUsize,
    /// The arena's block bytes and what is left of its current block,
    /// mirrored for readers that must not take the writer lock.
    allocated: AtomicUsize,
    unused: AtomicUsize,
    block: usize,
    writer: parking_lot::Mutex<WriterState>,
}

// SAFETY: all nodes are owned by the arena inside `writer`, which lives as
// long as the list; links are atomics; nodes are immutable once published.
unsafe impl Send for SkipList {}
// SAFETY: see above; `insert` is serialised by the writer mutex.
unsafe impl Sync for SkipList {}

/// A pointer to a published node, valid while its list is alive.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct NodeRef(*const u8);

// SAFETY: a NodeRef is only dereferenced while the owning list is alive
// (the memtable iterator holds an Arc to the memtable).
unsafe impl Send for NodeRef {}
// SAFETY: as above.
unsafe impl Sync for NodeRef {}

impl WriterState {
    fn random_height(&mut self) -> usize {
        let mut h = 1;
        while h < MAX_HEIGHT {
            // xorshift32
            self.rng ^= self.rng << 13;
            self.rng ^= self.rng >> 17;
            self.rng ^= self.rng << 5;
            if !self.rng.is_multiple_of(4) {
                break;
            }
            h += 1;
        }
        h
    }
}

/// Bytes of one node: its tower, then the key and the value, each behind
/// its varint32 length (RocksDB's memtable entry encoding).
fn node_size(height: usize, key_len: usize, value_len: usize) -> usize {
    height * LINK
        + varint_length(key_len as u64)
        + key_len
        + varint_length(value_len as u64)
        + value_len
}

/// # Safety
/// `node` must point at a published node (or the head) of a live list, and
/// `level` must be below its height.
unsafe fn link<'a>(node: *const u8, level: usize) -> &'a AtomicPtr<u8> {
    &*(node.sub(level * LINK) as *const AtomicPtr<u8>)
}

/// Reads a varint32 at `p`, returning it and the pointer past it.
///
/// # Safety
/// `p` must point at a complete varint32 in live memory.
unsafe fn read_varint32(mut p: *const u8) -> (usize, *const u8) {
    let mut v = 0usize;
    let mut shift = 0;
    loop {
        let b = *p;
        p = p.add(1);
        v |= ((b & 0x7f) as usize) << shift;
        if b < 0x80 {
            return (v, p);
        }
        shift += 7;
    }
}

impl NodeRef {
    /// The node's key region: its key-length varint.
    fn entry(self) -> *const u8 {
        // SAFETY: the key region follows the node's level-0 link.
        unsafe { self.0.add(LINK) }
    }

    /// The node's internal key.
    pub fn key<'a>(self) -> &'a [u8] {
        // SAFETY: a NodeRef points at a published node of a live list; its
        // key bytes were written before publication and never change.
        unsafe {
            let (len, p) = read_varint32(self.entry());
            std::slice::from_raw_parts(p, len)
        }
    }

    /// The node's value.
    pub fn value<'a>(self) -> &'a [u8] {
        // SAFETY: as in `key`; the value follows the key and its length.
        unsafe {
            let (klen, p) = read_varint32(self.entry());
            let (vlen, p) = read_varint32(p.add(klen));
            std::slice::from_raw_parts(p, vlen)
        }
    }

    fn next(self, level: usize) -> Option<NodeRef> {
        // SAFETY: self is a live node; level < its height (callers only
        // follow levels below the height they reached the node at).
        let p = unsafe { link(self.0, level).load(Ordering::Acquire) };
        (!p.is_null()).then_some(NodeRef(p))
    }
}

impl std::fmt::Debug for SkipList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SkipList({} bytes)", self.memory_usage())
    }
}

impl SkipList {
    /// An empty list whose arena uses `block`-byte blocks
    /// ([`super::arena::block_size`]).
    pub fn new(block: usize) -> Self {
        let mut arena = Arena::new(block);
        // The head is a tower alone: its key is never read.
        let start = arena.allocate(MAX_HEIGHT * LINK);
        // SAFETY: the allocation holds MAX_HEIGHT links, 16-byte aligned;
        // the arena does not zero its memory, so each link is written null
        // here. The node pointer is the tower's lowest link.
        let head = unsafe {
            for level in 0..MAX_HEIGHT {
                (start.add(level * LINK) as *mut AtomicPtr<u8>)
                    .write(AtomicPtr::new(ptr::null_mut()));
            }
            start.add((MAX_HEIGHT - 1) * LINK)
        };
        SkipList {
            head,
            max_height: AtomicUsize::new(1),
            allocated: AtomicUsize::new(arena.allocated()),
            unused: AtomicUsize::new(arena.unused()),
            block: arena.block(),
            writer: parking_lot::Mutex::new(WriterState {
                arena,
                rng: 0x2545_F491,
            }),
        }
    }

    fn head(&self) -> NodeRef {
        NodeRef(self.head)
    }

    /// Bytes in use: the arena's blocks less what is left of the current one.
    pub fn memory_usage(&self) -> usize {
        // The two are stored one after the other; a reader between the stores
        // may pair a new block's free bytes with the old total.
        self.allocated
            .load(Ordering::Relaxed)
            .saturating_sub(self.unused.load(Ordering::Relaxed))
    }

    /// The arena's bytes in blocks and the bytes left in its current block.
    pub fn arena_usage(&self) -> (usize, usize) {
        (
            self.allocated.load(Ordering::Relaxed),
            self.unused.load(Ordering::Relaxed),
        )
    }

    /// The arena's block size.
    pub fn arena_block(&self) -> usize {
        self.block
    }

    /// Inserts (key, value); `key` must not already be present.
    pub fn insert(&self, key: &[u8], value: &[u8]) {
        let mut w = self.writer.lock();
        let mut prev = [self.head; MAX_HEIGHT];
        let top = self.max_height.load(Ordering::Relaxed);
        let mut x = self.head();
        for level in (0..top).rev() {
            loop {
                match x.next(level) {
                    Some(n) if compare_internal_keys(n.key(), key) == CmpOrdering::Less => x = n,
                    _ => break,
                }
            }
            prev[level] = x.0 as *mut u8;
        }
        let height = w.random_height();
        if height > top {
            // prev[top..height] are already the head.
            self.max_height.store(height, Ordering::Relaxed);
        }
        let start = w.arena.allocate(node_size(height, key.len(), value.len()));
        self.allocated.store(w.arena.allocated(), Ordering::Relaxed);
        self.unused.store(w.arena.unused(), Ordering::Relaxed);
        // SAFETY: `start` is a fresh, 16-aligned allocation of the node's
        // size: the tower's `height` links (the node pointer is the lowest),
        // then the key and value behind their lengths. We write the entry
        // and the links, and only then publish the node with release stores
        // at each level.
        unsafe {
            let node = start.add((height - 1) * LINK);
            let mut p = node.add(LINK);
            for (len, bytes) in [(key.len(), key), (value.len(), value)] {
                let mut v = len;
                while v >= 0x80 {
                    *p = (v as u8) | 0x80;
                    p = p.add(1);
                    v >>= 7;
                }
                *p = v as u8;
                p = p.add(1);
                ptr::copy_nonoverlapping(bytes.as_ptr(), p, len);
                p = p.add(len);
            }
            for (level, p) in prev.iter().enumerate().take(height) {
                let next = link(*p, level).load(Ordering::Relaxed);
                link(node, level).store(next, Ordering::Relaxed);
            }
            for (level, p) in prev.iter().enumerate().take(height) {
                link(*p, level).store(node, Ordering::Release);
            }
        }
    }

    /// First node with key `>= target`.
    pub fn seek(&self, target: &[u8]) -> Option<NodeRef> {
        let mut x = self.head();
        let mut level = self.max_height.load(Ordering::Relaxed) - 1;
        loop {
            match x.next(level) {
                Some(n) if compare_internal_keys(n.key(), target) == CmpOrdering::Less => x = n,
                next => {
                    if level == 0 {
                        return next;
                    }
                    level -= 1;
                }
            }
        }
    }

    /// Last node with key `< target` (`None` if there is none).
    pub fn seek_before(&self, target: &[u8]) -> Option<NodeRef> {
        let mut x = self.head();
        let mut level = self.max_height.load(Ordering::Relaxed) - 1;
        loop {
            match x.next(level) {
                Some(n) if compare_internal_keys(n.key(), target) == CmpOrdering::Less => x = n,
                _ => {
                    if level == 0 {
                        return (x != self.head()).then_some(x);
                    }
                    level -= 1;
                }
            }
        }
    }

    /// Last node with key `<= target`.
    pub fn seek_for_prev(&self, target: &[u8]) -> Option<NodeRef> {
        match self.seek(target) {
            Some(n) if compare_internal_keys(n.key(), target) == CmpOrdering::Equal => Some(n),
            _ => self.seek_before(target),
        }
    }

    /// The first node.
    pub fn first(&self) -> Option<NodeRef> {
        self.head().next(0)
    }

    /// The last node.
    pub fn last(&self) -> Option<NodeRef> {
        let mut x = self.head();
        let mut level = self.max_height.load(Ordering::Relaxed) - 1;
        loop {
            match x.next(level) {
                Some(n) => x = n,
                None => {
                    if level == 0 {
                        return (x != self.head()).then_some(x);
                    }
                    level -= 1;
                }
            }
        }
    }

    /// The node after `n`.
    pub fn next(&self, n: NodeRef) -> Option<NodeRef> {
        n.next(0)
    }

    /// The node before `n`.
    pub fn prev(&self, n: NodeRef) -> Option<NodeRef> {
        self.seek_before(n.key())
    }

    /// True if nothing was inserted.
    pub fn is_empty(&self) -> bool {
        self.first().is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{make_internal_key, ValueType};
    use std::sync::Arc;

    fn k(i: u64) -> Vec<u8> {
        make_internal_key(format!("{i:08}").as_bytes(), 1, ValueType::Value)
    }

    /// `n`, or a hundredth of it under Miri, which interprets every step
    /// (`scripts/miri.sh`).
    fn scaled(n: u64) -> u64 {
        if cfg!(miri) {
            (n / 100).max(2)
        } else {
            n
        }
    }

    #[test]
    fn ordered_insert_and_navigation() {
        let l = SkipList::new(4096);
        assert!(l.is_empty() && l.last().is_none());
        let count = scaled(5000);
        let mut keys: Vec<u64> = (0..count).map(|i| (i * 7919) % count).collect();
        for &i in &keys {
            l.insert(&k(i), format!("v{i}").as_bytes());
        }
        keys.sort_unstable();
        let mut n = l.first();
        for &i in &keys {
            let node = n.unwrap();
            assert_eq!(node.key(), k(i).as_slice());
            assert_eq!(node.value(), format!("v{i}").as_bytes());
            n = l.next(node);
        }
        assert!(n.is_none());
        assert_eq!(l.last().unwrap().key(), k(count - 1).as_slice());
        assert_eq!(
            l.prev(l.seek(&k(10)).unwrap()).unwrap().key(),
            k(9).as_slice()
        );
        assert!(l.prev(l.first().unwrap()).is_none());
        assert_eq!(l.seek_for_prev(&k(10)).unwrap().key(), k(10).as_slice());
        let big = vec![7u8; scaled(3 << 20) as usize];
        l.insert(&k(99999), &big);
        assert_eq!(l.last().unwrap().value().len(), big.len());
    }

    /// The arena stopped zeroing its blocks (a 1 MiB `memset` in the write
    /// that took a new block); the head tower, the only memory read before
    /// it is written, must now be nulled by the list. Debug builds poison
    /// new blocks, so a head left to the arena has garbage links here.
    #[test]
    fn head_links_are_null_over_unzeroed_arena_memory() {
        let l = SkipList::new(4096);
        for level in 0..MAX_HEIGHT {
            assert!(l.head().next(level).is_none(), "level {level}");
        }
        assert!(l.first().is_none() && l.seek(&k(0)).is_none());
        // Nodes written into poisoned blocks read back whole, at every
        // height the list grows to.
        for i in 0..scaled(2000) {
            l.insert(&k(i), &[i as u8; 300]);
        }
        let mut n = l.first();
        for i in 0..scaled(2000) {
            let node = n.unwrap();
            assert_eq!(
                (node.key(), node.value()),
                (k(i).as_slice(), &[i as u8; 300][..])
            );
            n = l.next(node);
        }
        assert!(n.is_none());
    }

    #[test]
    fn readers_run_during_inserts() {
        let l = Arc::new(SkipList::new(4096));
        let w = {
            let l = l.clone();
            std::thread::spawn(move || {
                for i in 0..scaled(20_000) {
                    l.insert(&k(i), &i.to_le_bytes());
                }
            })
        };
        let r = {
            let l = l.clone();
            std::thread::spawn(move || {
                for _ in 0..scaled(200) {
                    // Every key seen is complete and the chain is sorted.
                    let mut prev: Option<Vec<u8>> = None;
                    let mut n = l.first();
                    while let Some(node) = n {
                        let key = node.key().to_vec();
                        if let Some(p) = &prev {
                            assert!(compare_internal_keys(p, &key) == CmpOrdering::Less);
                        }
                        assert_eq!(node.value().len(), 8);
                        prev = Some(key);
                        n = l.next(node);
                    }
                }
            })
        };
        w.join().unwrap();
        r.join().unwrap();
    }
}
