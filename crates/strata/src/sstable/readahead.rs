//! Compaction read-ahead: a table file read through a window of
//! `compaction_readahead_size` bytes, so that a compaction scanning a table
//! block by block issues one large read per window instead of one small
//! read per block. RocksDB does this with its `FilePrefetchBuffer` under
//! direct I/O; under buffered I/O it first asks the OS to read ahead
//! (`readahead(2)`) and reads blocks from the page cache. Strata uses its
//! own window in both cases (one more copy per block when buffered).
//!
//! Without it, a compaction over direct I/O (`use_direct_reads`) pays one
//! device round trip per 4 KB block, since no page cache reads ahead for it.
//! One window serves one iterator (one table of one compaction), which
//! reads forward; a read outside the window refills it from that offset.

use std::sync::Arc;

use parking_lot::Mutex;

use crate::error::Result;
use crate::fs::RandomAccessFile;

/// A [`RandomAccessFile`] that serves reads from a window it refills with
/// reads of at least `size` bytes.
pub struct ReadaheadFile {
    inner: Arc<dyn RandomAccessFile>,
    size: usize,
    /// (file offset of `bytes[0]`, the window's bytes).
    window: Mutex<(u64, Vec<u8>)>,
}

impl ReadaheadFile {
    /// Reads `inner` through windows of `size` bytes (> 0).
    pub fn new(inner: Arc<dyn RandomAccessFile>, size: usize) -> Self {
        ReadaheadFile {
            inner,
            size,
            window: Mutex::new((0, Vec::new())),
        }
    }
}

impl RandomAccessFile for ReadaheadFile {
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let mut w = self.window.lock();
        let (start, bytes) = &*w;
        let end = offset.saturating_add(len as u64);
        if offset >= *start && end <= start + bytes.len() as u64 {
            let from = (offset - start) as usize;
            return Ok(bytes[from..from + len].to_vec());
        }
        if len >= self.size {
            return self.inner.read_at(offset, len);
        }
        // Clamp the window to the file; a read past its end is the inner
        // file's error to report.
        let file_end = self.inner.size();
        let stop = offset
            .saturating_add(self.size as u64)
            .min(file_end)
            .max(end);
        let bytes = self.inner.read_at(offset, (stop - offset) as usize)?;
        let out = bytes[..len].to_vec();
        *w = (offset, bytes);
        Ok(out)
    }

    fn size(&self) -> u64 {
        self.inner.size()
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
}
