//! Read-ahead into buffers of the reader's own: a table file read through
//! a window of bytes read in one large read, serving the small block reads
//! that follow from memory.
//!
//! - [`ReadaheadFile`]: a window of a fixed size that refills itself on a
//!   read outside it. Compactions read their inputs through one
//!   (`compaction_readahead_size`), as iterators do when the read asks for
//!   a size (`ReadOptions::readahead_size`). RocksDB does this with its
//!   `FilePrefetchBuffer` under direct I/O; under buffered I/O it first asks
//!   the OS to read ahead (`readahead(2)`) and reads blocks from the page
//!   cache. Strata uses its own window in both cases (one more copy per
//!   block when buffered). Without it, a compaction over direct I/O
//!   (`use_direct_reads`) pays one device round trip per 4 KB block, since
//!   no page cache reads ahead for it.
//! - [`PrefetchBuffer`]: a window filled only when asked
//!   ([`RandomAccessFile::prefetch`]), for automatic read-ahead
//!   (`sstable/auto_readahead.rs`) on a file without a page cache; a read
//!   outside it goes to the file.
//!
//! One window serves one iterator (one table), which reads forward.

use std::sync::Arc;

use parking_lot::Mutex;

use crate::error::Result;
use crate::fs::RandomAccessFile;
use crate::stats::{Statistics, Ticker};

/// Bytes of a file held in memory, from file offset `start`.
#[derive(Default)]
struct Window {
    start: u64,
    bytes: Vec<u8>,
}

impl Window {
    /// `len` bytes at `offset`, if the window holds all of them.
    fn get(&self, offset: u64, len: usize) -> Option<&[u8]> {
        let from = offset.checked_sub(self.start)? as usize;
        self.bytes.get(from..from.checked_add(len)?)
    }

    /// Reads `[offset, offset + size)` of `file`, clamped to its end but
    /// covering at least `[offset, end)`; a read past the end is the file's
    /// error to report. The bytes go into `bytes` (the old window's
    /// buffer, reused).
    fn fill(
        file: &dyn RandomAccessFile,
        offset: u64,
        size: usize,
        end: u64,
        mut bytes: Vec<u8>,
    ) -> Result<Window> {
        let stop = offset.saturating_add(size as u64).min(file.size()).max(end);
        file.read_into(offset, (stop - offset) as usize, &mut bytes)?;
        Ok(Window {
            start: offset,
            bytes,
        })
    }
}

/// A [`RandomAccessFile`] that serves reads from a window it refills with
/// reads of at least `size` bytes.
pub struct ReadaheadFile {
    inner: Arc<dyn RandomAccessFile>,
    size: usize,
    window: Mutex<Window>,
}

impl ReadaheadFile {
    /// Reads `inner` through windows of `size` bytes (> 0).
    pub fn new(inner: Arc<dyn RandomAccessFile>, size: usize) -> Self {
        ReadaheadFile {
            inner,
            size,
            window: Mutex::new(Window::default()),
        }
    }
}

impl RandomAccessFile for ReadaheadFile {
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let mut buf = Vec::new();
        self.read_into(offset, len, &mut buf)?;
        Ok(buf)
    }

    fn read_into(&self, offset: u64, len: usize, buf: &mut Vec<u8>) -> Result<()> {
        let mut w = self.window.lock();
        if let Some(b) = w.get(offset, len) {
            buf.clear();
            buf.extend_from_slice(b);
            return Ok(());
        }
        if len >= self.size {
            return self.inner.read_into(offset, len, buf);
        }
        let end = offset.saturating_add(len as u64);
        let old = std::mem::take(&mut w.bytes);
        *w = Window::fill(&*self.inner, offset, self.size, end, old)?;
        buf.clear();
        buf.extend_from_slice(&w.bytes[..len]);
        Ok(())
    }

    fn size(&self) -> u64 {
        self.inner.size()
    }
}

/// A [`RandomAccessFile`] whose [`prefetch`](RandomAccessFile::prefetch)
/// reads the range into a buffer, which later reads inside it are served
/// from (counted in `rocksdb.prefetch.hits` and
/// `rocksdb.prefetch.bytes.useful`); a read outside it goes to the file.
pub struct PrefetchBuffer {
    inner: Arc<dyn RandomAccessFile>,
    window: Mutex<Window>,
    stats: Option<Arc<Statistics>>,
}

impl PrefetchBuffer {
    /// An empty buffer over `inner`.
    pub fn new(inner: Arc<dyn RandomAccessFile>, stats: Option<Arc<Statistics>>) -> Self {
        PrefetchBuffer {
            inner,
            window: Mutex::new(Window::default()),
            stats,
        }
    }
}

impl RandomAccessFile for PrefetchBuffer {
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let mut buf = Vec::new();
        self.read_into(offset, len, &mut buf)?;
        Ok(buf)
    }

    fn read_into(&self, offset: u64, len: usize, buf: &mut Vec<u8>) -> Result<()> {
        if let Some(b) = self.window.lock().get(offset, len) {
            if let Some(s) = &self.stats {
                s.record_tick(Ticker::PrefetchHits, 1);
                s.record_tick(Ticker::PrefetchBytesUseful, len as u64);
            }
            buf.clear();
            buf.extend_from_slice(b);
            return Ok(());
        }
        self.inner.read_into(offset, len, buf)
    }

    fn size(&self) -> u64 {
        self.inner.size()
    }

    /// Reads the range (clamped to the file) into the buffer. A failed read
    /// leaves the buffer empty: the block reads that follow go to the file
    /// and report the error themselves.
    fn prefetch(&self, offset: u64, len: usize) -> bool {
        let mut w = self.window.lock();
        let end = offset.saturating_add(len as u64).min(self.inner.size());
        *w = if offset < end {
            Window::fill(&*self.inner, offset, len, end, std::mem::take(&mut w.bytes))
                .unwrap_or_default()
        } else {
            Window::default()
        };
        true
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// A file of `n` bytes (byte i = i mod 251) that counts its reads.
    struct Counting {
        data: Vec<u8>,
        reads: AtomicUsize,
    }

    impl RandomAccessFile for Counting {
        fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
            self.reads.fetch_add(1, Ordering::Relaxed);
            let o = offset as usize;
            if o + len > self.data.len() {
                return Err(crate::error::Error::corruption("f", offset, "past end"));
            }
            Ok(self.data[o..o + len].to_vec())
        }
        fn size(&self) -> u64 {
            self.data.len() as u64
        }
    }

    fn file(n: usize) -> Arc<Counting> {
        Arc::new(Counting {
            data: (0..n).map(|i| (i % 251) as u8).collect(),
            reads: AtomicUsize::new(0),
        })
    }

    #[test]
    fn sequential_block_reads_cost_one_read_per_window() {
        let f = file(1 << 20);
        let r = ReadaheadFile::new(f.clone(), 256 << 10);
        let mut off = 0u64;
        // Blocks of 4,101 bytes: windows do not end on block boundaries.
        while off + 4101 <= 1 << 20 {
            let got = r.read_at(off, 4101).unwrap();
            assert_eq!(got, f.data[off as usize..off as usize + 4101]);
            off += 4101;
        }
        // 255 blocks; each window serves 63 or 64 of them.
        let reads = f.reads.load(Ordering::Relaxed);
        assert!((4..=5).contains(&reads), "{reads} reads");
    }

    #[test]
    fn large_or_backward_reads_still_return_the_right_bytes() {
        let f = file(100_000);
        let r = ReadaheadFile::new(f.clone(), 10_000);
        assert_eq!(r.read_at(50_000, 100).unwrap(), f.data[50_000..50_100]);
        // Backward, outside the window: refills.
        assert_eq!(r.read_at(10, 20).unwrap(), f.data[10..30]);
        // Larger than the window: passes through.
        assert_eq!(r.read_at(0, 20_000).unwrap(), f.data[..20_000]);
        // The window is clamped at the end of the file.
        assert_eq!(r.read_at(99_990, 10).unwrap(), f.data[99_990..]);
        assert!(r.read_at(99_995, 10).is_err());
        assert_eq!(r.size(), 100_000);
    }

    #[test]
    fn a_prefetched_range_serves_the_reads_inside_it() {
        let f = file(100_000);
        let stats = Statistics::new();
        let b = PrefetchBuffer::new(f.clone(), Some(stats.clone()));
        // Nothing asked for yet: reads go to the file.
        assert_eq!(b.read_at(0, 100).unwrap(), f.data[..100]);
        assert_eq!(f.reads.load(Ordering::Relaxed), 1);
        assert!(b.prefetch(4_000, 40_000));
        assert_eq!(f.reads.load(Ordering::Relaxed), 2);
        for off in (4_000..40_000).step_by(4_000) {
            assert_eq!(
                b.read_at(off, 4_000).unwrap(),
                f.data[off as usize..off as usize + 4_000]
            );
        }
        assert_eq!(f.reads.load(Ordering::Relaxed), 2);
        assert_eq!(stats.ticker(Ticker::PrefetchHits), 9);
        assert_eq!(stats.ticker(Ticker::PrefetchBytesUseful), 36_000);
        // Straddling the end of the range, or before it: the file.
        assert_eq!(b.read_at(43_000, 2_000).unwrap(), f.data[43_000..45_000]);
        assert_eq!(b.read_at(100, 10).unwrap(), f.data[100..110]);
        assert_eq!(f.reads.load(Ordering::Relaxed), 4);
        assert_eq!(stats.ticker(Ticker::PrefetchHits), 9);
    }

    #[test]
    fn a_prefetch_is_clamped_to_the_file_and_never_fails_a_read() {
        let f = file(10_000);
        let b = PrefetchBuffer::new(f.clone(), None);
        assert!(b.prefetch(9_000, 5_000));
        assert_eq!(b.read_at(9_500, 500).unwrap(), f.data[9_500..]);
        assert_eq!(f.reads.load(Ordering::Relaxed), 1);
        // Past the end: nothing is buffered, and a read there is still the
        // file's error.
        assert!(b.prefetch(20_000, 5_000));
        assert!(b.read_at(9_500, 500).is_ok());
        assert!(b.read_at(9_999, 2).is_err());
    }
}
