//! A bloom filter over a memtable's user keys (RocksDB's memtable bloom
//! with `memtable_whole_key_filtering`): a point lookup whose key the filter
//! has never seen skips the skiplist search.
//!
//! It has the table filter's shape (`sstable::bloom`): each key's probes
//! fall in one 64-byte line, found from the same hash, so a lookup touches
//! one cache line. The bits are atomic words, set with `fetch_or` by
//! concurrent writers and read without locks. Six probes, as RocksDB's
//! memtable bloom uses.
//!
//! A writer sets a key's bits before the entry goes into the skiplist, so a
//! reader that can see the entry (through the sequence number the write
//! publishes afterwards) sees its bits.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::sstable::bloom::{line_of, PROBE_MIX};

/// Probes per key (RocksDB's memtable bloom uses six).
const NUM_PROBES: u32 = 6;
/// 64-bit words in one cache line.
const WORDS_PER_LINE: usize = 8;
/// Bytes in one cache line.
const LINE_BYTES: usize = 64;
/// The largest filter: 2^32 bits, RocksDB's limit (it counts the memtable
/// bloom's bits in 32 bits).
pub const MAX_BYTES: usize = 1 << 29;

/// `n` (> 0) atomic words, all 0, from the allocator's zeroed memory, which
/// it maps lazily: a large filter costs pages only as keys reach them.
fn zeroed_words(n: usize) -> Box<[AtomicU64]> {
    let layout = std::alloc::Layout::array::<AtomicU64>(n).expect("filter size fits a layout");
    // SAFETY: the layout's size is not zero (n > 0); all-zero bytes are a
    // valid `AtomicU64` (0), and the pointer, allocated by the global
    // allocator with the layout of `[AtomicU64; n]`, is freed by the box
    // with that same layout.
    unsafe {
        let p = std::alloc::alloc_zeroed(layout).cast::<AtomicU64>();
        if p.is_null() {
            std::alloc::handle_alloc_error(layout);
        }
        Box::from_raw(std::ptr::slice_from_raw_parts_mut(p, n))
    }
}

/// The filter. Not present (no `MemFilter` at all) when the options ask for
/// none.
#[derive(Debug)]
pub struct MemFilter {
    words: Box<[AtomicU64]>,
    num_lines: u32,
}

impl MemFilter {
    /// A filter of `bytes` bytes, rounded up to whole 64-byte lines (at
    /// least one line, at most [`MAX_BYTES`]); `None` for 0.
    pub fn new(bytes: usize) -> Option<MemFilter> {
        if bytes == 0 {
            return None;
        }
        let num_lines = bytes.div_ceil(LINE_BYTES).min(MAX_BYTES / LINE_BYTES) as u32;
        Some(MemFilter {
            words: zeroed_words(num_lines as usize * WORDS_PER_LINE),
            num_lines,
        })
    }

    /// The bits of `h` (a `bloom_hash`) as one mask per word of its line,
    /// and the line's first word.
    #[inline]
    fn masks(&self, h: u64) -> (usize, [u64; WORDS_PER_LINE]) {
        let base = line_of(h, self.num_lines) * WORDS_PER_LINE;
        let mut masks = [0u64; WORDS_PER_LINE];
        let mut h2 = (h >> 32) as u32;
        for _ in 0..NUM_PROBES {
            let bit = (h2 >> 23) as usize; // 0..512
            masks[bit / 64] |= 1 << (bit % 64);
            h2 = h2.wrapping_mul(PROBE_MIX);
        }
        (base, masks)
    }

    /// Adds a key's hash. Safe to call from several writers at once; a word
    /// whose bits are all set already is not written.
    pub fn add_hash(&self, h: u64) {
        let (base, masks) = self.masks(h);
        for (word, mask) in self.words[base..base + WORDS_PER_LINE].iter().zip(masks) {
            if mask != 0 && word.load(Ordering::Relaxed) & mask != mask {
                word.fetch_or(mask, Ordering::Relaxed);
            }
        }
    }

    /// False when no key with hash `h` was added.
    pub fn may_contain_hash(&self, h: u64) -> bool {
        let (base, masks) = self.masks(h);
        self.words[base..base + WORDS_PER_LINE]
            .iter()
            .zip(masks)
            .all(|(word, mask)| word.load(Ordering::Relaxed) & mask == mask)
    }

    /// Bytes of bits (charged to the memtable's memory, as RocksDB
    /// allocates its memtable bloom from the memtable's arena).
    pub fn size(&self) -> usize {
        self.words.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sstable::bloom::bloom_hash;
    use std::sync::Arc;

    fn key(i: u64) -> Vec<u8> {
        format!("key{i:012}").into_bytes()
    }

    #[test]
    fn zero_bytes_is_no_filter_and_sizes_round_up_to_lines() {
        assert!(MemFilter::new(0).is_none());
        assert_eq!(MemFilter::new(1).unwrap().size(), 64);
        assert_eq!(MemFilter::new(65).unwrap().size(), 128);
        assert_eq!(MemFilter::new(1 << 20).unwrap().size(), 1 << 20);
    }

    /// The largest filter is RocksDB's: 2^32 bits, whatever the buffer.
    #[test]
    #[cfg_attr(miri, ignore = "allocates 512 MiB")]
    fn a_filter_is_at_most_512_mib() {
        let f = MemFilter::new(usize::MAX).unwrap();
        assert_eq!(f.size(), MAX_BYTES);
        f.add_hash(bloom_hash(b"k"));
        assert!(f.may_contain_hash(bloom_hash(b"k")));
    }

    #[test]
    fn every_added_key_may_be_present() {
        // Fewer under Miri, which runs the hashing some 10,000 times slower.
        let n = if cfg!(miri) { 100 } else { 5000 };
        let f = MemFilter::new(4096).unwrap();
        for i in 0..n {
            f.add_hash(bloom_hash(&key(i)));
        }
        for i in 0..n {
            assert!(f.may_contain_hash(bloom_hash(&key(i))), "key {i}");
        }
    }

    /// At 10 bits a key, six probes in one line: about 1% of absent keys
    /// pass (the table filter's rate at the same density); an empty filter
    /// passes none.
    #[test]
    #[cfg_attr(miri, ignore = "120,000 hashes")]
    fn false_positive_rate_is_near_one_percent_at_ten_bits_a_key() {
        let n = 20_000u64;
        let f = MemFilter::new((n * 10 / 8) as usize).unwrap();
        assert!((0..n).all(|i| !f.may_contain_hash(bloom_hash(&key(i)))));
        for i in 0..n {
            f.add_hash(bloom_hash(&key(i)));
        }
        let fp = (n..n + 100_000)
            .filter(|&i| f.may_contain_hash(bloom_hash(&key(i))))
            .count();
        let rate = fp as f64 / 100_000.0;
        assert!((0.004..0.02).contains(&rate), "false-positive rate {rate}");
    }

    #[test]
    fn concurrent_writers_lose_no_bits() {
        let n = if cfg!(miri) { 25 } else { 3000 };
        let f = Arc::new(MemFilter::new(8192).unwrap());
        let threads: Vec<_> = (0..4u64)
            .map(|t| {
                let f = f.clone();
                std::thread::spawn(move || {
                    for i in 0..n {
                        f.add_hash(bloom_hash(&key(i * 4 + t)));
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        for i in 0..n * 4 {
            assert!(f.may_contain_hash(bloom_hash(&key(i))), "key {i}");
        }
    }
}
