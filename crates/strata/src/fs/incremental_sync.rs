//! `bytes_per_sync` and `wal_bytes_per_sync`: while a file is written, ask
//! the OS every so many bytes to start writing it back
//! ([`WritableFile::range_sync`]), so that the final `fdatasync` of a large
//! table does not find hundreds of megabytes of dirty pages at once. The
//! rule is RocksDB's `WritableFileWriter::Flush`: the newest 1 MiB is left
//! alone (it may still be rewritten by the OS's merging of small writes),
//! ranges end on a 4 KiB boundary, and one is asked for once at least
//! `bytes_per_sync` bytes have gathered since the last.

use super::layered::{Layer, Layered};
use super::WritableFile;
use crate::error::Result;

/// The newest bytes never range-synced (RocksDB's `kBytesNotSyncRange`).
pub const NOT_SYNCED_TAIL: u64 = 1 << 20;
/// Range ends are aligned down to this (RocksDB's `kBytesAlignWhenSync`).
pub const SYNC_ALIGN: u64 = 4 << 10;

/// The range `(offset, len)` to sync when a file of `size` bytes was last
/// range-synced up to `synced`, or `None` while less than `bytes_per_sync`
/// bytes have gathered beyond it (short of the newest [`NOT_SYNCED_TAIL`]).
pub fn range_to_sync(size: u64, synced: u64, bytes_per_sync: u64) -> Option<(u64, u64)> {
    if bytes_per_sync == 0 || size <= NOT_SYNCED_TAIL {
        return None;
    }
    let end = size - NOT_SYNCED_TAIL;
    let end = end - end % SYNC_ALIGN;
    (end > synced && end - synced >= bytes_per_sync).then(|| (synced, end - synced))
}

/// The [`Layer`] that range-syncs its file every `bytes_per_sync` bytes,
/// by [`range_to_sync`].
pub struct IncrementalSync {
    bytes_per_sync: u64,
    synced: u64,
}

impl Layer for IncrementalSync {
    fn append(&mut self, inner: &mut dyn WritableFile, data: &[u8]) -> Result<()> {
        inner.append(data)?;
        if let Some((offset, len)) = range_to_sync(inner.size(), self.synced, self.bytes_per_sync) {
            inner.range_sync(offset, len)?;
            self.synced = offset + len;
        }
        Ok(())
    }
}

/// `file`, range-synced every `bytes_per_sync` bytes; `file` itself when
/// that is 0 or the file is written with direct I/O (nothing of it sits in
/// the page cache; RocksDB skips it there too).
pub fn sync_incrementally(
    file: Box<dyn WritableFile>,
    bytes_per_sync: u64,
    direct: bool,
) -> Box<dyn WritableFile> {
    if bytes_per_sync == 0 || direct {
        return file;
    }
    Box::new(Layered::new(
        file,
        IncrementalSync {
            bytes_per_sync,
            synced: 0,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[test]
    fn ranges_leave_the_newest_mebibyte_and_wait_for_bytes_per_sync() {
        const M: u64 = 1 << 20;
        assert_eq!(range_to_sync(5 * M, 0, 0), None);
        assert_eq!(range_to_sync(M, 0, 1), None);
        // 1 MiB + 10 KiB: 8 KiB (aligned down) would be due at 4 KiB.
        assert_eq!(range_to_sync(M + 10 * 1024, 0, 4096), Some((0, 8192)));
        // Not yet a whole bytes_per_sync beyond the last range.
        assert_eq!(range_to_sync(M + M / 2, 0, M), None);
        assert_eq!(range_to_sync(2 * M, 0, M), Some((0, M)));
        assert_eq!(range_to_sync(3 * M - 1, M, M), None);
        assert_eq!(range_to_sync(3 * M + 5000, M, M), Some((M, M + 4096)));
    }

    /// Records the range syncs asked of it.
    struct Recorder {
        size: u64,
        ranges: Arc<Mutex<Vec<(u64, u64)>>>,
    }

    impl WritableFile for Recorder {
        fn append(&mut self, data: &[u8]) -> Result<()> {
            self.size += data.len() as u64;
            Ok(())
        }
        fn flush(&mut self) -> Result<()> {
            Ok(())
        }
        fn sync(&mut self) -> Result<()> {
            Ok(())
        }
        fn size(&self) -> u64 {
            self.size
        }
        fn range_sync(&mut self, offset: u64, len: u64) -> Result<()> {
            self.ranges.lock().unwrap().push((offset, len));
            Ok(())
        }
    }

    #[test]
    fn a_growing_file_is_synced_in_consecutive_ranges() {
        let ranges = Arc::new(Mutex::new(Vec::new()));
        let rec = Box::new(Recorder {
            size: 0,
            ranges: ranges.clone(),
        });
        let mut f = sync_incrementally(rec, 256 << 10, false);
        let block = vec![0u8; 4096];
        for _ in 0..1024 {
            f.append(&block).unwrap(); // 4 MiB in all
        }
        let got = ranges.lock().unwrap().clone();
        // 3 MiB are beyond the unsynced tail: 12 ranges of 256 KiB, each
        // starting where the last ended.
        assert_eq!(got.len(), 12, "{got:?}");
        let mut next = 0;
        for (offset, len) in got {
            assert_eq!(offset, next);
            assert_eq!(len, 256 << 10);
            next = offset + len;
        }
    }

    #[test]
    fn direct_or_zero_leaves_the_file_as_it_is() {
        for (bps, direct) in [(0, false), (1 << 20, true)] {
            let ranges = Arc::new(Mutex::new(Vec::new()));
            let rec = Box::new(Recorder {
                size: 0,
                ranges: ranges.clone(),
            });
            let mut f = sync_incrementally(rec, bps, direct);
            for _ in 0..1024 {
                f.append(&[0u8; 4096]).unwrap();
            }
            assert!(ranges.lock().unwrap().is_empty());
        }
    }

    #[test]
    fn posix_files_accept_range_syncs() {
        use crate::fs::{FileSystem, PosixFileSystem};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let f = PosixFileSystem.create(&path).unwrap();
        let mut f = sync_incrementally(f, 64 << 10, false);
        let block = vec![7u8; 4096];
        for _ in 0..512 {
            f.append(&block).unwrap();
        }
        f.sync().unwrap();
        assert_eq!(std::fs::metadata(&path).unwrap().len(), 2 << 20);
    }
}
