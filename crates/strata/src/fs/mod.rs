//! The file-system layer. Every byte the engine reads or writes goes through
//! a [`FileSystem`], so tests can substitute one that injects faults or drops
//! unsynced data (`fault::FaultInjectionFs`).
//!
//! The fault-injecting file system lives here, beside the trait it wraps,
//! so that the engine's own unit tests and every other crate's tests use
//! one copy of it: it is compiled into the engine's unit tests and, for
//! other crates, with the cargo feature `fault-injection`, which the test
//! kit (`strata-testkit`, the crate tests depend on) turns on and
//! re-exports. A build without the feature, such as an embedding
//! program's, has none of it.

pub(crate) mod direct;
#[cfg(any(test, feature = "fault-injection"))]
pub mod fault;
#[cfg(test)]
mod fault_tests;
pub(crate) mod incremental_sync;
pub(crate) mod layered;
mod mapped;
mod posix;
#[cfg(test)]
pub(crate) mod testutil;
pub(crate) mod timed;

pub use posix::PosixFileSystem;

use std::fmt::Debug;
use std::path::Path;
use std::sync::Arc;

use crate::error::Result;

/// A file opened for appending. Data is durable only after [`WritableFile::sync`].
pub trait WritableFile: Send + Sync {
    /// Appends bytes (may be buffered in memory).
    fn append(&mut self, data: &[u8]) -> Result<()>;
    /// Pushes buffered bytes to the OS (not durable yet).
    fn flush(&mut self) -> Result<()>;
    /// Flushes and makes everything appended so far durable (fdatasync).
    fn sync(&mut self) -> Result<()>;
    /// Bytes appended so far.
    fn size(&self) -> u64;
    /// Asks the OS to start writing `len` bytes from `offset`, already
    /// passed to it, to the device without waiting for them
    /// (`sync_file_range(SYNC_FILE_RANGE_WRITE)`, RocksDB's `RangeSync`):
    /// a hint that spreads write-back, never a durability promise. The
    /// default does nothing (direct I/O, in-memory files).
    fn range_sync(&mut self, _offset: u64, _len: u64) -> Result<()> {
        Ok(())
    }
}

/// A file read by offset, shareable between threads.
pub trait RandomAccessFile: Send + Sync {
    /// Reads exactly `len` bytes at `offset`; a short read is an error.
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>>;
    /// Reads exactly `len` bytes at `offset` into `buf`, replacing what it
    /// held and reusing its capacity where the file can (a block read into
    /// a recycled buffer). The default reads with
    /// [`RandomAccessFile::read_at`] and replaces `buf`.
    fn read_into(&self, offset: u64, len: usize, buf: &mut Vec<u8>) -> Result<()> {
        *buf = self.read_at(offset, len)?;
        Ok(())
    }
    /// The file's size in bytes.
    fn size(&self) -> u64;
    /// Hints that reads will be at random offsets, so the OS should not
    /// read ahead (`POSIX_FADV_RANDOM`; `Options::advise_random_on_open`).
    /// A hint only: the default does nothing.
    fn advise_random(&self) {}
    /// Asks the OS to read `len` bytes at `offset` into its page cache in
    /// the background (`POSIX_FADV_WILLNEED`, RocksDB's
    /// `FSRandomAccessFile::Prefetch`), so that the reads that follow find
    /// them there. Returns whether the hint was taken: false (the default)
    /// where there is no page cache to fill (direct I/O, files in memory),
    /// and a reader that wants the bytes early reads them into a buffer of
    /// its own instead. A hint only: it never fails a read.
    fn prefetch(&self, _offset: u64, _len: usize) -> bool {
        false
    }
    /// The whole file mapped into memory, for reads served in place
    /// (`Options::allow_mmap_reads`); `None` (the default) for a file read
    /// only through [`RandomAccessFile::read_at`].
    ///
    /// An implementation that returns a slice guarantees it stays valid,
    /// at the same address and with the same bytes, for as long as `self`
    /// lives: readers keep pointers into it while they hold the file.
    fn mapped(&self) -> Option<&[u8]> {
        None
    }
}

/// A held lock on a DB directory; released on drop.
pub trait FileLock: Send + Sync + Debug {}

/// The operations the engine needs from a file system.
pub trait FileSystem: Send + Sync + Debug {
    /// Creates (or truncates) a file for writing.
    fn create(&self, path: &Path) -> Result<Box<dyn WritableFile>>;
    /// Creates (or truncates) a file for writing, with O_DIRECT when
    /// `direct` (bypassing the page cache).
    ///
    /// # Errors
    /// `NotSupported` when `direct` is asked of a file system without it.
    fn create_opt(&self, path: &Path, direct: bool) -> Result<Box<dyn WritableFile>> {
        if direct {
            return Err(crate::Error::NotSupported(format!(
                "{self:?} does not support O_DIRECT ({})",
                path.display()
            )));
        }
        self.create(path)
    }
    /// Opens a file for positional reads, with O_DIRECT when `direct`.
    ///
    /// # Errors
    /// `NotSupported` when `direct` is asked of a file system without it.
    fn open_random_opt(&self, path: &Path, direct: bool) -> Result<Arc<dyn RandomAccessFile>> {
        if direct {
            return Err(crate::Error::NotSupported(format!(
                "{self:?} does not support O_DIRECT ({})",
                path.display()
            )));
        }
        self.open_random(path)
    }
    /// Opens a file that is never written again for reads served from a
    /// memory map ([`RandomAccessFile::mapped`]; `Options::allow_mmap_reads`).
    /// A file system without maps opens it for positional reads (the
    /// default), and readers then copy blocks out as without the option.
    fn open_random_mapped(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        self.open_random(path)
    }
    /// Opens an existing file for appending at its end (used to reuse a WAL).
    fn reopen_for_append(&self, path: &Path) -> Result<Box<dyn WritableFile>>;
    /// Opens a file for positional reads.
    fn open_random(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>>;
    /// Reads a whole file.
    fn read_all(&self, path: &Path) -> Result<Vec<u8>>;
    /// Atomically renames `from` to `to`, replacing `to`.
    fn rename(&self, from: &Path, to: &Path) -> Result<()>;
    /// Removes a file.
    fn remove(&self, path: &Path) -> Result<()>;
    /// True if the path exists.
    fn exists(&self, path: &Path) -> bool;
    /// Names (not paths) of the entries in a directory.
    fn list(&self, dir: &Path) -> Result<Vec<String>>;
    /// Creates a directory and its parents.
    fn create_dir_all(&self, dir: &Path) -> Result<()>;
    /// Makes a directory's entries (creations, renames) durable.
    fn sync_dir(&self, dir: &Path) -> Result<()>;
    /// Size of a file in bytes.
    fn file_size(&self, path: &Path) -> Result<u64>;
    /// Takes an exclusive advisory lock on `path`, creating it if needed.
    fn lock(&self, path: &Path) -> Result<Box<dyn FileLock>>;
    /// Makes `to` (which must not exist) a hard link to the existing file
    /// `from`: one file under two names. Durable once the directory of
    /// `to` is synced. The default fails with `NotSupported`; a caller
    /// that can copy instead does so (`Db::create_checkpoint`).
    ///
    /// # Errors
    /// `NotSupported` without hard links; I/O errors (`to` exists, the two
    /// paths are on different file systems).
    fn link(&self, from: &Path, to: &Path) -> Result<()> {
        Err(crate::Error::NotSupported(format!(
            "{self:?} has no hard links ({} -> {})",
            from.display(),
            to.display()
        )))
    }
    /// Removes an empty directory. The default fails with `NotSupported`.
    ///
    /// # Errors
    /// `NotSupported` without it; I/O errors (the directory is not empty).
    fn remove_dir(&self, dir: &Path) -> Result<()> {
        Err(crate::Error::NotSupported(format!(
            "{self:?} cannot remove directories ({})",
            dir.display()
        )))
    }
}

/// The default file system.
pub fn default_fs() -> Arc<dyn FileSystem> {
    Arc::new(PosixFileSystem)
}
