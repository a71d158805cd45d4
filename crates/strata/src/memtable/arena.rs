//! The memtable's arena, and when a memtable is full.
//!
//! Both follow RocksDB's `Arena` and `MemTable::ShouldFlushNow`, so that a
//! `write_buffer_size` holds the same entries in Strata as in RocksDB (the
//! number of flushes, the L0 file sizes and the unflushed tail a benchmark
//! ends with all follow from it):
//!
//! - Memory comes in blocks of `arena_block_size` bytes (by default an
//!   eighth of the write buffer, at most 1 MiB, rounded up to 4 KiB), after a
//!   first block of 2 KiB (RocksDB's inline block).
//! - Every allocation starts on a 16-byte boundary. One that does not fit
//!   in what is left of the current block gets a new block, and the rest of
//!   the old one is wasted; one larger than a quarter of a block gets a block
//!   of its own and the current block stays in use.
//! - A memtable is full ([`memtable_full`]) when one more block would take it
//!   past the write buffer by more than 0.6 of a block, or, with its last
//!   block allocated, when that block is three quarters used.

use std::mem::MaybeUninit;
use std::ptr;

/// Alignment of every allocation (RocksDB's `alignof(max_align_t)`).
pub const ALIGN: usize = 16;
/// Size of the first block.
pub const INLINE_BLOCK: usize = 2048;
/// Smallest arena block (RocksDB's `Arena::kMinBlockSize`).
pub const MIN_BLOCK: usize = 4096;
/// Largest arena block (RocksDB's `Arena::kMaxBlockSize`).
pub const MAX_BLOCK: usize = 2 << 30;
/// The byte debug builds fill new blocks with, so that a read of memory
/// nobody wrote finds garbage rather than the zeroes it might expect.
pub const POISON: u8 = 0xA5;

/// The block size an arena uses for `arena_block_size` (0: derived from
/// `write_buffer_size`) as RocksDB sanitizes it: 0 becomes
/// `min(1 MiB, write_buffer_size / 8)` rounded up to 4 KiB; the result is
/// clamped to [4 KiB, 2 GiB] and rounded up to a multiple of 16.
pub fn block_size(arena_block_size: usize, write_buffer_size: usize) -> usize {
    let mut b = arena_block_size;
    if b == 0 {
        b = (write_buffer_size / 8).min(1 << 20);
        b = b.div_ceil(4096) * 4096;
    }
    b.clamp(MIN_BLOCK, MAX_BLOCK).div_ceil(ALIGN) * ALIGN
}

/// True when a memtable whose arena has `allocated` bytes in blocks, of
/// which `unused` are left in the current block, should be flushed
/// (RocksDB's `MemTable::ShouldFlushNow`; `block` is the arena block size).
pub fn memtable_full(
    allocated: usize,
    unused: usize,
    block: usize,
    write_buffer_size: usize,
) -> bool {
    // One more block may go past the write buffer by at most this much.
    let limit = write_buffer_size as f64 + block as f64 * 0.6;
    if ((allocated + block) as f64) < limit {
        return false;
    }
    if allocated as f64 > limit {
        return true;
    }
    // The last block is allocated: stop when it is three quarters used,
    // since the next entry may not fit and would take a whole new block.
    unused < block / 4
}

/// A bump allocator of 16-byte aligned memory that frees nothing until it
/// is dropped. Not thread-safe: the skiplist's writer lock guards it.
///
/// Its memory is not zeroed, as RocksDB's arena's is not: a caller writes
/// every byte it will read. Zeroing would cost a `memset` of a whole block
/// (1 MiB for a 64 MiB write buffer) in the write that takes a new block,
/// which shows in the write latency's P99.9. In debug builds every block is
/// filled with [`POISON`] instead, so that tests catch a reader of memory
/// nobody wrote.
pub struct Arena {
    /// The blocks, as raw pointers from `Box::into_raw` that [`Drop`] turns
    /// back into boxes: a `Box` asserts it is the only way to its memory,
    /// so moving one (into this vector, say) would invalidate the pointers
    /// already handed out into it.
    blocks: Vec<*mut [MaybeUninit<u128>]>,
    cursor: *mut u8,
    remaining: usize,
    block: usize,
    allocated: usize,
}

// SAFETY: the raw cursor points into `blocks`, which the arena owns.
unsafe impl Send for Arena {}

impl Arena {
    /// An arena of `block`-byte blocks (see [`block_size`]), holding its
    /// 2 KiB first block.
    pub fn new(block: usize) -> Self {
        let mut a = Arena {
            blocks: Vec::new(),
            cursor: ptr::null_mut(),
            remaining: 0,
            block,
            allocated: 0,
        };
        a.cursor = a.new_block(INLINE_BLOCK);
        a.remaining = INLINE_BLOCK;
        a
    }

    fn new_block(&mut self, bytes: usize) -> *mut u8 {
        let words = bytes.div_ceil(ALIGN);
        let b: *mut [MaybeUninit<u128>] = Box::into_raw(Box::<[u128]>::new_uninit_slice(words));
        let p = b as *mut u8;
        if cfg!(debug_assertions) {
            // SAFETY: `p` is the start of the block's `words * ALIGN` bytes.
            unsafe { ptr::write_bytes(p, POISON, words * ALIGN) };
        }
        self.allocated += words * ALIGN;
        self.blocks.push(b);
        p
    }

    /// `bytes` of uninitialized memory starting on a 16-byte boundary,
    /// valid until the arena is dropped. The caller writes before it reads.
    pub fn allocate(&mut self, bytes: usize) -> *mut u8 {
        let slop = (ALIGN - (self.cursor as usize) % ALIGN) % ALIGN;
        if bytes + slop <= self.remaining {
            // SAFETY: `slop + bytes <= remaining`, so both stay in the block.
            let p = unsafe { self.cursor.add(slop) };
            // SAFETY: as above.
            self.cursor = unsafe { p.add(bytes) };
            self.remaining -= bytes + slop;
            return p;
        }
        if bytes > self.block / 4 {
            // Its own block; the current one stays in use.
            return self.new_block(bytes);
        }
        let block = self.block;
        let p = self.new_block(block);
        // SAFETY: `bytes <= block / 4`, inside the new block.
        self.cursor = unsafe { p.add(bytes) };
        self.remaining = block - bytes;
        p
    }

    /// Bytes held in blocks (RocksDB's `MemoryAllocatedBytes`).
    pub fn allocated(&self) -> usize {
        self.allocated
    }

    /// Bytes left in the current block (RocksDB's `AllocatedAndUnused`).
    pub fn unused(&self) -> usize {
        self.remaining
    }

    /// The block size.
    pub fn block(&self) -> usize {
        self.block
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        for b in self.blocks.drain(..) {
            // SAFETY: `b` came from `Box::into_raw` in `new_block` and is
            // dropped once, here; the arena's memory is used no more.
            drop(unsafe { Box::from_raw(b) });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn block_size_follows_rocksdb_sanitizing() {
        assert_eq!(block_size(0, 64 << 20), 1 << 20);
        assert_eq!(block_size(0, 1 << 20), 128 << 10);
        // 100,000 / 8 = 12,500, rounded up to 4 KiB.
        assert_eq!(block_size(0, 100_000), 16384);
        assert_eq!(block_size(0, 4096), MIN_BLOCK);
        assert_eq!(block_size(5000, 64 << 20), 5008);
        assert_eq!(block_size(1, 64 << 20), MIN_BLOCK);
    }

    #[test]
    fn allocations_are_aligned_and_big_ones_get_their_own_block() {
        let mut a = Arena::new(4096);
        assert_eq!((a.allocated(), a.unused()), (2048, 2048));
        let p = a.allocate(10);
        assert_eq!(p as usize % ALIGN, 0);
        assert_eq!(a.unused(), 2038);
        // 6 bytes of slop before the next one.
        let q = a.allocate(1);
        assert_eq!(q as usize - p as usize, 16);
        assert_eq!(a.unused(), 2031);
        // 15 and then 8 bytes of slop: 8 bytes are left.
        a.allocate(1000);
        a.allocate(1000);
        assert_eq!(a.unused(), 8);
        // Bigger than a quarter block and than what is left: a block of its
        // own, 16-rounded; the current block stays in use.
        let big = a.allocate(1500);
        assert_eq!(big as usize % ALIGN, 0);
        assert_eq!((a.allocated(), a.unused()), (2048 + 1504, 8));
        // Does not fit in the rest: a new block, the rest wasted.
        a.allocate(100);
        assert_eq!((a.allocated(), a.unused()), (2048 + 1504 + 4096, 3996));
    }

    /// What makes the skiplist's tests find a reader of unwritten memory:
    /// debug builds hand out poisoned bytes, not zeroes.
    #[test]
    fn debug_builds_poison_new_blocks() {
        let mut a = Arena::new(4096);
        for bytes in [16, 3000, 100] {
            let p = a.allocate(bytes);
            // SAFETY: `bytes` bytes at `p`, written by the poisoning.
            let got = unsafe { std::slice::from_raw_parts(p, bytes) };
            assert!(got.iter().all(|&b| b == POISON), "{bytes}-byte allocation");
        }
    }

    /// Miri found the blocks kept as `Box`es: pushing a box into the
    /// block list asserted it unique and invalidated every pointer already
    /// handed out into it. Writes through old pointers after many new
    /// blocks must stay valid (run under `scripts/miri.sh`).
    #[test]
    fn earlier_allocations_stay_valid_after_new_blocks() {
        let mut a = Arena::new(4096);
        let mut handed: Vec<(*mut u8, u8)> = Vec::new();
        for i in 0..40u8 {
            // Small ones share blocks; every fourth takes a block of its own.
            let bytes = if i % 4 == 3 { 2000 } else { 700 };
            let p = a.allocate(bytes);
            // SAFETY: `bytes` bytes at `p` belong to this allocation.
            unsafe { std::ptr::write_bytes(p, i, bytes) };
            handed.push((p, i));
        }
        assert!(a.allocated() > 10 * 4096);
        for &(p, i) in &handed {
            // SAFETY: each allocation holds at least 700 bytes, written above.
            unsafe {
                assert_eq!(*p, i);
                *p.add(699) = i.wrapping_add(1);
                assert_eq!(*p.add(699), i.wrapping_add(1));
            }
        }
    }

    #[test]
    fn full_follows_rocksdb_should_flush_now() {
        let mb = 1 << 20;
        let wbs = 64 * mb;
        // Room for another block within 0.6 of a block over: not full.
        assert!(!memtable_full(63 * mb, 0, mb, wbs));
        // Past the buffer by more than 0.6 of a block: full.
        assert!(memtable_full(64 * mb + mb, mb, mb, wbs));
        // The last block: full once three quarters of it are used.
        assert!(!memtable_full(64 * mb, mb / 4, mb, wbs));
        assert!(memtable_full(64 * mb, mb / 4 - 1, mb, wbs));
    }
}
