//! The DB handle. Public methods live in [`Db`]; the shared state in
//! `DbInner`, with one file per path: `open.rs` (recovery), `write.rs`
//! (group commit, stalls), `read.rs` (gets, iterators), `flush.rs`,
//! `background.rs` (compaction threads), `purge.rs` (obsolete files),
//! `properties.rs`.

mod background;
mod flush;
pub(crate) mod internal_stats;
mod manifest;
mod open;
mod properties;
mod purge;
mod read;
mod wal_set;
mod write;

use std::collections::{BTreeSet, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use parking_lot::{Condvar, Mutex, RwLock};

use crate::batch::WriteBatch;
use crate::compaction::Busy;
use crate::error::{Error, Result};
use crate::filename::FileNumber;
use crate::fs::{FileLock, FileSystem};
use crate::info_log::InfoLog;
use crate::iter::DbIterator;
use crate::memtable::MemTable;
use crate::options::{Options, ReadOptions, WriteOptions};
use crate::pinnable::PinnableSlice;
use crate::snapshot::{Snapshot, SnapshotList};
use crate::sstable::{BlockCache, TableCache, TableOptions};
use crate::stats::{Statistics, Ticker};
use crate::version::{Version, VersionSet};
use internal_stats::InternalStats;
use write::WriterSlot;

/// What readers pin: the memtables and the version at one moment.
pub(crate) struct SuperVersion {
    pub mem: Arc<MemTable>,
    /// Immutable memtables, newest first.
    pub imm: Vec<Arc<MemTable>>,
    pub version: Arc<Version>,
    /// The DB's statistics, for [`SuperVersionRef`]'s release counts.
    pub stats: Option<Arc<Statistics>>,
}

/// A reader's reference to a super version (RocksDB's
/// `GetAndRefSuperVersion` .. `CleanupSuperVersion`), taken by
/// [`DbInner::get_super_version`], which counts
/// `rocksdb.number.superversion_acquires`. Dropping it counts
/// `rocksdb.number.superversion_releases`, and
/// `rocksdb.number.superversion_cleanups` when it was the last reference,
/// so that dropping it frees the super version (one a newer one replaced
/// while the reader held it).
pub(crate) struct SuperVersionRef(Option<Arc<SuperVersion>>);

impl std::ops::Deref for SuperVersionRef {
    type Target = SuperVersion;

    fn deref(&self) -> &SuperVersion {
        match &self.0 {
            Some(sv) => sv,
            None => unreachable!("a SuperVersionRef holds its super version until dropped"),
        }
    }
}

impl Drop for SuperVersionRef {
    fn drop(&mut self) {
        let Some(sv) = self.0.take() else { return };
        match &sv.stats {
            Some(s) => s.record_tick(Ticker::NumberSuperversionReleases, 1),
            None => return,
        }
        if let Some(freed) = Arc::into_inner(sv) {
            if let Some(s) = &freed.stats {
                s.record_tick(Ticker::NumberSuperversionCleanups, 1);
            }
        }
    }
}

/// Mutable DB state, guarded by `DbInner::state`.
pub(crate) struct State {
    pub mem: Arc<MemTable>,
    /// Immutable memtables, oldest first.
    pub imm: VecDeque<Arc<MemTable>>,
    pub versions: VersionSet,
    pub writers: VecDeque<Arc<WriterSlot>>,
    pub flush_running: bool,
    pub flush_requested: bool,
    pub compactions_running: usize,
    pub manual_compactions: usize,
    pub busy: Busy,
    pub pending_outputs: BTreeSet<FileNumber>,
    pub bg_error: Option<Arc<Error>>,
    pub istats: InternalStats,
    pub unpersisted_writes: bool,
    /// The credit of delayed writes (the write controller's delay).
    pub delay_credit: crate::write_controller::DelayCredit,
    /// When the DB was opened: the clock of `delay_credit`.
    pub opened_at: Instant,
    pub last_stats_dump: Instant,
    pub write_stopped: bool,
    /// Counters at the previous `rocksdb.stats` dump (for Int rows).
    pub stats_baseline: Option<(InternalStats, Instant)>,
    /// Pending compaction bytes and bottommost bytes of a version (the
    /// write controller's inputs), cached per version. Weak: a strong
    /// reference would keep the version, and so every table it names, alive
    /// after it stopped being current.
    pub pending_bytes_cache: Option<(std::sync::Weak<Version>, u64, u64)>,
    /// The stall cause last written to the LOG (to log transitions only).
    pub last_logged_stall: Option<crate::write_controller::StallCause>,
    /// Whether compactions were last allowed to run in parallel (to log
    /// transitions only).
    pub last_speedup: bool,
    /// Why the next forced memtable switch happens (a flush reason name
    /// for the LOG's `flush_started`), set by [`DbInner::flush_and_wait`].
    pub forced_flush_reason: Option<&'static str>,
    /// Names of the obsolete files a job is removing (`purge.rs`).
    pub purging: BTreeSet<String>,
    /// A job is writing a MANIFEST edit with the lock released
    /// (`manifest.rs`); the next edit waits on `DbInner::manifest_cv`.
    pub manifest_writing: bool,
}

pub(crate) struct DbInner {
    pub dir: PathBuf,
    pub opts: Options,
    pub fs: Arc<dyn FileSystem>,
    pub stats: Option<Arc<Statistics>>,
    pub table_cache: Arc<TableCache>,
    pub block_cache: Option<Arc<BlockCache>>,
    pub blob_source: Arc<crate::blob::BlobSource>,
    pub table_opts: TableOptions,
    /// `rate_limiter_bytes_per_sec`'s limiter, shared by flushes and compactions.
    pub io_limiter: Option<Arc<crate::rate_limiter::RateLimiter>>,
    pub state: Mutex<State>,
    /// Signalled when background work finishes (stalled writers, flush and
    /// compaction waiters).
    pub bg_cv: Condvar,
    /// Background threads wait here for work.
    pub work_cv: Condvar,
    /// Signalled when a MANIFEST edit has been written (`manifest.rs`).
    pub manifest_cv: Condvar,
    pub super_version: RwLock<Arc<SuperVersion>>,
    /// Super versions installed since open (`rocksdb.current-super-version-number`).
    pub super_version_number: AtomicU64,
    /// Highest sequence number visible to readers.
    pub last_sequence: AtomicU64,
    pub snapshots: Arc<SnapshotList>,
    pub shutting_down: AtomicBool,
    pub wal: Mutex<wal_set::WalSet>,
    pub log: InfoLog,
    /// The next background job's id (the `job` of the LOG's events).
    pub next_job_id: AtomicU64,
    pub _lock: Box<dyn FileLock>,
}

impl DbInner {
    /// A new job id for a flush, compaction or file purge.
    pub fn new_job_id(&self) -> u64 {
        self.next_job_id.fetch_add(1, Ordering::Relaxed)
    }

    /// Publishes a new super version from the state, and tells the I/O
    /// rate limiter whether writers are stalled in the new shape (RocksDB
    /// recomputes its write controller with each super version).
    pub fn install_super_version(&self, st: &mut State) {
        if self.io_limiter.is_some() {
            let shape = self.lsm_shape(st, false);
            self.note_stall_state(crate::write_controller::stall_state(&shape, &self.opts));
        }
        let sv = SuperVersion {
            mem: st.mem.clone(),
            imm: st.imm.iter().rev().cloned().collect(),
            version: st.versions.current(),
            stats: self.stats.clone(),
        };
        *self.super_version.write() = Arc::new(sv);
        self.super_version_number.fetch_add(1, Ordering::AcqRel);
    }

    /// Tells the I/O rate limiter whether writers are stopped or delayed:
    /// files opened meanwhile ask at user priority.
    pub fn note_stall_state(&self, state: crate::write_controller::StallState) {
        if let Some(l) = &self.io_limiter {
            l.set_writes_stalled(state != crate::write_controller::StallState::Normal);
        }
    }

    /// A reference to the current super version for one read (a Get, an
    /// iterator, a property). Strata has no thread-local cache of it, so
    /// every read takes the lock and counts an acquire.
    pub fn get_super_version(&self) -> SuperVersionRef {
        let sv = self.super_version.read().clone();
        if let Some(s) = &self.stats {
            s.record_tick(Ticker::NumberSuperversionAcquires, 1);
        }
        SuperVersionRef(Some(sv))
    }

    /// Records a background error: from now on writes fail with it.
    ///
    /// Every call counts as RocksDB's `ErrorHandler::SetBGError` does, also
    /// when an earlier error already stopped writes:
    /// `rocksdb.error.handler.bg.errro.count`, and for I/O errors
    /// `rocksdb.error.handler.bg.io.errro.count`.
    pub fn set_bg_error(&self, st: &mut State, e: Error) {
        if let Some(s) = &self.stats {
            s.record_tick(Ticker::ErrorHandlerBgErrorCount, 1);
            if e.is_io() {
                s.record_tick(Ticker::ErrorHandlerBgIoErrorCount, 1);
            }
        }
        if st.bg_error.is_none() {
            self.log
                .log(&format!("[ERROR] background error, writes stopped: {e}"));
            st.bg_error = Some(Arc::new(e));
        }
        self.bg_cv.notify_all();
    }
}

/// An open database. `Send + Sync`: share it across threads (for example in
/// an `Arc`). Dropping it stops background work and closes the files.
pub struct Db {
    inner: Arc<DbInner>,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Db({})", self.inner.dir.display())
    }
}

impl Db {
    /// Opens (and by default creates) the DB in directory `path`.
    ///
    /// # Errors
    /// `InvalidArgument` for bad options (naming the option) or a missing DB
    /// with `create_if_missing=false`; `Locked` if another process or handle
    /// has it open; `Corruption` naming the file and offset for damaged
    /// files; I/O errors.
    pub fn open(path: impl AsRef<Path>, options: Options) -> Result<Db> {
        open::open(path.as_ref(), options)
    }

    /// Sets `key` to `value`.
    ///
    /// # Errors
    /// I/O errors, or the background error that stopped writes.
    pub fn put(&self, key: &[u8], value: &[u8]) -> Result<()> {
        self.put_opt(&WriteOptions::default(), key, value)
    }

    /// Sets `key` to `value` with write options.
    ///
    /// # Errors
    /// As [`Db::put`]; `InvalidArgument` for `sync` with `disable_wal`.
    pub fn put_opt(&self, opts: &WriteOptions, key: &[u8], value: &[u8]) -> Result<()> {
        let mut b = WriteBatch::new();
        b.put(key, value);
        self.write_opt(opts, b)
    }

    /// Deletes `key` (a no-op if absent).
    ///
    /// # Errors
    /// As [`Db::put`].
    pub fn delete(&self, key: &[u8]) -> Result<()> {
        self.delete_opt(&WriteOptions::default(), key)
    }

    /// Deletes `key` with write options.
    ///
    /// # Errors
    /// As [`Db::put_opt`].
    pub fn delete_opt(&self, opts: &WriteOptions, key: &[u8]) -> Result<()> {
        let mut b = WriteBatch::new();
        b.delete(key);
        self.write_opt(opts, b)
    }

    /// Applies a batch atomically: after a crash either all of it or none
    /// of it is there.
    ///
    /// # Errors
    /// As [`Db::put`].
    pub fn write(&self, batch: WriteBatch) -> Result<()> {
        self.write_opt(&WriteOptions::default(), batch)
    }

    /// Applies a batch atomically with write options.
    ///
    /// # Errors
    /// As [`Db::put_opt`].
    pub fn write_opt(&self, opts: &WriteOptions, batch: WriteBatch) -> Result<()> {
        self.inner.write(opts, batch)
    }

    /// The value of `key`, or `None`.
    ///
    /// # Errors
    /// Corruption or I/O errors from the files read.
    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.get_opt(&ReadOptions::default(), key)
    }

    /// The value of `key` with read options (e.g. at a snapshot).
    ///
    /// # Errors
    /// As [`Db::get`].
    pub fn get_opt(&self, opts: &ReadOptions, key: &[u8]) -> Result<Option<Vec<u8>>> {
        Ok(self.inner.get(opts, key)?.map(PinnableSlice::into_vec))
    }

    /// The value of `key`, left in the data block it was read from rather
    /// than copied out (RocksDB's `GetPinnable`): cheaper for large values
    /// that are read and dropped. See [`PinnableSlice`] for what it keeps
    /// in memory while it lives.
    ///
    /// # Errors
    /// As [`Db::get`].
    pub fn get_pinned(&self, opts: &ReadOptions, key: &[u8]) -> Result<Option<PinnableSlice>> {
        self.inner.get(opts, key)
    }

    /// The values of several keys, all read at one sequence number (a
    /// consistent view, as through one snapshot; RocksDB's `MultiGet`),
    /// in the order of `keys`, each pinned as by [`Db::get_pinned`]. A key
    /// whose read fails has its own error; the others are still read.
    pub fn multi_get(
        &self,
        opts: &ReadOptions,
        keys: &[&[u8]],
    ) -> Vec<Result<Option<PinnableSlice>>> {
        self.inner.multi_get(opts, keys)
    }

    /// A snapshot of the current state; released when dropped.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot::latest(&self.inner.snapshots, &self.inner.last_sequence)
    }

    /// An iterator over all keys at the current state, ascending.
    pub fn iter(&self) -> DbIterator {
        self.inner.iter(&ReadOptions::default())
    }

    /// An iterator with read options (snapshot, bounds).
    pub fn iter_opt(&self, opts: &ReadOptions) -> DbIterator {
        self.inner.iter(opts)
    }

    /// Flushes the memtable to an L0 table and waits for it.
    ///
    /// # Errors
    /// The flush's error, or the background error.
    pub fn flush(&self) -> Result<()> {
        self.inner.flush_and_wait("Manual Flush")
    }

    /// Compacts the key range `[begin, end]` (`None` = unbounded) down the
    /// levels, flushing the memtable first; waits for completion.
    ///
    /// # Errors
    /// The compaction's error, or the background error.
    pub fn compact_range(&self, begin: Option<&[u8]>, end: Option<&[u8]>) -> Result<()> {
        self.inner.compact_range(begin, end)
    }

    /// Waits until no flush or compaction is pending or running.
    ///
    /// # Errors
    /// The background error, if one occurred.
    pub fn wait_for_compaction(&self) -> Result<()> {
        self.inner.wait_for_compaction()
    }

    /// A DB property by RocksDB name (`rocksdb.stats`,
    /// `rocksdb.num-files-at-level<N>`, `rocksdb.estimate-num-keys`,
    /// `rocksdb.total-sst-files-size`, ...), or `None` if unknown.
    pub fn property(&self, name: &str) -> Option<String> {
        self.inner.property(name)
    }

    /// The statistics object, when `Options::statistics` is on.
    pub fn statistics(&self) -> Option<Arc<Statistics>> {
        self.inner.stats.clone()
    }

    /// The options the DB was opened with.
    pub fn options(&self) -> &Options {
        &self.inner.opts
    }

    /// The DB directory.
    pub fn path(&self) -> &Path {
        &self.inner.dir
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        self.inner.close();
        self.inner.shutting_down.store(true, Ordering::Release);
        {
            let _st = self.inner.state.lock();
            self.inner.work_cv.notify_all();
            self.inner.bg_cv.notify_all();
        }
        for t in self.threads.lock().drain(..) {
            let _ = t.join();
        }
        let _ = self.inner.wal.lock().flush_current();
        self.inner.log.log("DB closed");
    }
}
