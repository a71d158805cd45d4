//! An arena-allocated skiplist of internal keys with one writer at a time
//! and any number of lock-free readers (LevelDB's `SkipList`, RocksDB's
//! `InlineSkipList` layout: each node's tower, key and value are one
//! contiguous arena allocation, so a search touches one cache line per
//! node instead of chasing a pointer to a separately allocated key).
//!
//! Concurrency contract: [`SkipList::insert`] must not run concurrently
//! with itself (the memtable serialises inserts with a mutex; the write
//! path's group-commit leader is the only inserter anyway). Readers may run
//! at any time: a node is fully written before it is published with a
//! release store, and readers load links with acquire.

use std::cmp::Ordering as CmpOrdering;
use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};

use crate::types::compare_internal_keys;

/// Tallest tower.
pub const MAX_HEIGHT: usize = 12;
/// Size of an arena chunk; larger entries get a chunk of their own.
const CHUNK: usize = 1 << 20;

#[repr(C)]
struct Header {
    key_len: u32,
    value_len: u32,
    height: u32,
    _pad: u32,
}

const HEADER: usize = std::mem::size_of::<Header>();
const LINK: usize = std::mem::size_of::<AtomicPtr<u8>>();

/// Writer-side state: the arena and the height generator.
struct WriterState {
    chunks: Vec<Box<[u64]>>,
    cursor: *mut u8,
    remaining: usize,
    rng: u32,
}

/// The skiplist. Nodes live until the list is dropped.
pub struct SkipList {
    head: *mut u8,
    max_height: AtomicUsize,
    allocated: AtomicUsize,
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
    fn alloc(&mut self, size: usize) -> *mut u8 {
        let size = (size + 7) & !7;
        if size > self.remaining {
            let words = if size > CHUNK / 4 {
                size / 8
            } else {
                CHUNK / 8
            };
            let mut chunk = vec![0u64; words].into_boxed_slice();
            let p = chunk.as_mut_ptr() as *mut u8;
            self.chunks.push(chunk);
            if size > CHUNK / 4 {
                // A big entry gets its own chunk; keep the current one.
                return p;
            }
            self.cursor = p;
            self.remaining = words * 8;
        }
        let p = self.cursor;
        // SAFETY: `size <= remaining`, so the result stays in the chunk.
        self.cursor = unsafe { self.cursor.add(size) };
        self.remaining -= size;
        p
    }

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

fn node_size(height: usize, key_len: usize, value_len: usize) -> usize {
    HEADER + height * LINK + key_len + value_len
}

/// # Safety
/// `node` must point at a published node (or the head) of a live list.
unsafe fn link<'a>(node: *const u8, level: usize) -> &'a AtomicPtr<u8> {
    &*(node.add(HEADER + level * LINK) as *const AtomicPtr<u8>)
}

/// # Safety
/// As [`link`].
unsafe fn header<'a>(node: *const u8) -> &'a Header {
    &*(node as *const Header)
}

impl NodeRef {
    /// The node's internal key.
    pub fn key<'a>(self) -> &'a [u8] {
        // SAFETY: a NodeRef points at a published node of a live list; its
        // key bytes were written before publication and never change.
        unsafe {
            let h = header(self.0);
            let p = self.0.add(HEADER + h.height as usize * LINK);
            std::slice::from_raw_parts(p, h.key_len as usize)
        }
    }

    /// The node's value.
    pub fn value<'a>(self) -> &'a [u8] {
        // SAFETY: as in `key`.
        unsafe {
            let h = header(self.0);
            let p = self
                .0
                .add(HEADER + h.height as usize * LINK + h.key_len as usize);
            std::slice::from_raw_parts(p, h.value_len as usize)
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

impl Default for SkipList {
    fn default() -> Self {
        Self::new()
    }
}

impl SkipList {
    /// An empty list.
    pub fn new() -> Self {
        let mut w = WriterState {
            chunks: Vec::new(),
            cursor: ptr::null_mut(),
            remaining: 0,
            rng: 0x2545_F491,
        };
        let size = node_size(MAX_HEIGHT, 0, 0);
        let head = w.alloc(size);
        // SAFETY: `head` is a fresh, zeroed allocation of `size` bytes;
        // zeroed links are null pointers.
        unsafe {
            ptr::write(
                head as *mut Header,
                Header {
                    key_len: 0,
                    value_len: 0,
                    height: MAX_HEIGHT as u32,
                    _pad: 0,
                },
            );
        }
        SkipList {
            head,
            max_height: AtomicUsize::new(1),
            allocated: AtomicUsize::new(size),
            writer: parking_lot::Mutex::new(w),
        }
    }

    fn head(&self) -> NodeRef {
        NodeRef(self.head)
    }

    /// Bytes allocated for nodes.
    pub fn memory_usage(&self) -> usize {
        self.allocated.load(Ordering::Relaxed)
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
        let size = node_size(height, key.len(), value.len());
        let node = w.alloc(size);
        self.allocated.fetch_add((size + 7) & !7, Ordering::Relaxed);
        // SAFETY: `node` is a fresh allocation of `size` bytes, 8-aligned;
        // we write the header, key and value, then the links, and only then
        // publish the node with release stores at each level.
        unsafe {
            ptr::write(
                node as *mut Header,
                Header {
                    key_len: key.len() as u32,
                    value_len: value.len() as u32,
                    height: height as u32,
                    _pad: 0,
                },
            );
            let kp = node.add(HEADER + height * LINK);
            ptr::copy_nonoverlapping(key.as_ptr(), kp, key.len());
            ptr::copy_nonoverlapping(value.as_ptr(), kp.add(key.len()), value.len());
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

    #[test]
    fn ordered_insert_and_navigation() {
        let l = SkipList::new();
        assert!(l.is_empty() && l.last().is_none());
        let mut keys: Vec<u64> = (0..5000).map(|i| (i * 7919) % 5000).collect();
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
        assert_eq!(l.last().unwrap().key(), k(4999).as_slice());
        assert_eq!(
            l.prev(l.seek(&k(10)).unwrap()).unwrap().key(),
            k(9).as_slice()
        );
        assert!(l.prev(l.first().unwrap()).is_none());
        assert_eq!(l.seek_for_prev(&k(10)).unwrap().key(), k(10).as_slice());
        let big = vec![7u8; 3 << 20];
        l.insert(&k(99999), &big);
        assert_eq!(l.last().unwrap().value().len(), 3 << 20);
    }

    #[test]
    fn readers_run_during_inserts() {
        let l = Arc::new(SkipList::new());
        let w = {
            let l = l.clone();
            std::thread::spawn(move || {
                for i in 0..20_000u64 {
                    l.insert(&k(i), &i.to_le_bytes());
                }
            })
        };
        let r = {
            let l = l.clone();
            std::thread::spawn(move || {
                for _ in 0..200 {
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
