//! Heap buffers for blocks read with `pread`, reused instead of allocated
//! per block.
//!
//! A block read from a file without a map (`allow_mmap_reads=false`) needs
//! a buffer of its own: the bytes become the block (and, with
//! `fill_cache`, the block cache's entry), and a compressed block's stored
//! bytes live only until they are decompressed. Each thread keeps a few
//! freed block buffers; a read takes one whose capacity fits, and a block
//! dropped on that thread (an iterator moving on, a compressed block's
//! stored bytes, an entry the cache evicts) gives its buffer back. A
//! buffer is reused only for a block close to its size (at most an eighth
//! larger), so a block pins little more memory than the cache charges for
//! it (its length).

use std::cell::RefCell;

/// Buffers kept per thread.
const KEPT: usize = 8;
/// Buffers smaller than this are not worth keeping.
const MIN_KEPT: usize = 512;
/// Nor larger than this (a huge block is rare; its memory goes back).
const MAX_KEPT: usize = 1 << 20;

thread_local! {
    static FREE: RefCell<Vec<Vec<u8>>> = const { RefCell::new(Vec::new()) };
}

/// Whether a buffer of capacity `cap` is reused for a block of `len` bytes.
fn fits(cap: usize, len: usize) -> bool {
    cap >= len && cap - len <= len / 8
}

/// An empty buffer with room for `len` bytes: a freed one of this thread
/// if one fits, else a new one.
pub fn take(len: usize) -> Vec<u8> {
    let reused = FREE
        .try_with(|f| {
            let mut f = f.borrow_mut();
            let i = f.iter().position(|b| fits(b.capacity(), len))?;
            Some(f.swap_remove(i))
        })
        .ok()
        .flatten();
    reused.unwrap_or_else(|| Vec::with_capacity(len))
}

/// Keeps `buf` for a later [`take`] on this thread, or frees it (too small,
/// too large, or enough kept already; the oldest kept buffer makes way).
pub fn give(mut buf: Vec<u8>) {
    if !(MIN_KEPT..=MAX_KEPT).contains(&buf.capacity()) {
        return;
    }
    buf.clear();
    // A thread being torn down frees it instead.
    let _ = FREE.try_with(|f| {
        let mut f = f.borrow_mut();
        if f.len() == KEPT {
            f.remove(0);
        }
        f.push(buf);
    });
}

/// How many buffers this thread keeps (for tests).
#[cfg(test)]
pub fn kept() -> usize {
    FREE.with(|f| f.borrow().len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_freed_buffer_is_reused_for_a_block_of_about_its_size() {
        let b = take(4096);
        let ptr = b.as_ptr();
        give(b);
        let again = take(4000);
        assert_eq!(again.as_ptr(), ptr);
        assert!(again.is_empty() && again.capacity() >= 4000);
    }

    #[test]
    fn a_buffer_much_larger_than_the_block_is_not_reused() {
        give(Vec::with_capacity(64 * 1024));
        let b = take(4096);
        assert!(b.capacity() < 64 * 1024);
        // Nor one too small for it.
        give(Vec::with_capacity(2048));
        assert!(take(4096).capacity() >= 4096);
    }

    #[test]
    fn the_pool_is_bounded_and_skips_tiny_and_huge_buffers() {
        for _ in 0..3 * KEPT {
            give(Vec::with_capacity(4096));
        }
        assert_eq!(kept(), KEPT);
        while kept() > 0 {
            take(4096);
        }
        give(Vec::with_capacity(16));
        give(Vec::with_capacity(4 << 20));
        assert_eq!(kept(), 0);
    }
}
