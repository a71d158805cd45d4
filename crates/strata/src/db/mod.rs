//! The DB handle. Public methods live in [`Db`]; the shared state in
//! `DbInner`, with one file per path: `open.rs` (recovery), `write.rs`
//! (group commit, stalls), `read.rs` (gets, iterators), `flush.rs`,
//! `background.rs` (compaction threads), `purge.rs` (obsolete files),
//! `checkpoint.rs` (copies of the open DB), `properties.rs`.

mod background;
mod checkpoint;
mod column_families;
mod family;
mod flush;
pub(crate) mod internal_stats;
mod manifest;
mod open;
mod properties;
mod purge;
mod read;
pub(crate) mod read_charges;
mod wal_set;
mod write;

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::ops::RangeBounds;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::Instant;

use parking_lot::{Condvar, Mutex};

use crate::batch::WriteBatch;
use crate::error::{Error, Result};
use crate::filename::FileNumber;
use crate::fs::{FileLock, FileSystem};
use crate::info_log::InfoLog;
use crate::iter::DbIterator;
use crate::memtable::MemTable;
use crate::options::{Options, ReadOptions, WriteOptions};
use crate::pinnable::PinnableSlice;
use crate::snapshot::{Snapshot, SnapshotList};
use crate::sstable::{BlockCache, TableCache};
use crate::stats::{Statistics, Ticker};
use crate::version::{Version, VersionSet};
use internal_stats::InternalStats;
use write::WriterSlot;

pub use checkpoint::CheckpointInfo;
pub use family::{ColumnFamily, DB_WIDE_OPTIONS};
pub(crate) use family::{Family, FamilyState};

/// What readers pin: the memtables and the version at one moment.
pub(crate) struct SuperVersion {
    pub mem: Arc<MemTable>,
    /// Immutable memtables, newest first.
    pub imm: Vec<Arc<MemTable>>,
    pub version: Arc<Version>,
    /// The DB's statistics, for [`SuperVersionRef`]'s release counts.
    pub stats: Option<Arc<Statistics>>,
    /// The range tombstones of the version's tables, fragmented, loaded by
    /// the first iterator that needs them.
    pub file_range_tombstones: std::sync::OnceLock<Arc<crate::range_del::FragmentedTombstones>>,
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
    /// The live column families by id ("default" is 0).
    pub families: BTreeMap<u32, FamilyState>,
    pub versions: VersionSet,
    pub writers: VecDeque<Arc<WriterSlot>>,
    /// The WAL new memtables start in.
    pub current_wal: u64,
    /// Bytes logged in each live WAL (for `max_total_wal_size`).
    pub wal_bytes: BTreeMap<u64, u64>,
    pub flush_running: bool,
    pub compactions_running: usize,
    pub manual_compactions: usize,
    pub pending_outputs: BTreeSet<FileNumber>,
    pub bg_error: Option<Arc<Error>>,
    /// DB-wide counters (writes, WAL, stalls); each family's compaction
    /// rows are in its `FamilyState::istats`.
    pub istats: InternalStats,
    pub unpersisted_writes: bool,
    /// The credit of delayed writes (the write controller's delay).
    pub delay_credit: crate::write_controller::DelayCredit,
    /// When the DB was opened: the clock of `delay_credit`.
    pub opened_at: Instant,
    pub last_stats_dump: Instant,
    pub write_stopped: bool,
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
    /// Tables, blob files and WALs a checkpoint is linking or copying, with
    /// how many checkpoints hold each: no purge removes them meanwhile
    /// (`checkpoint.rs`).
    pub pinned_files: BTreeMap<FileNumber, usize>,
    /// A job is writing a MANIFEST edit with the lock released
    /// (`manifest.rs`); the next edit waits on `DbInner::manifest_cv`.
    pub manifest_writing: bool,
}

impl State {
    /// The state of live family `cf`.
    ///
    /// # Panics
    /// If `cf` is not a live family: callers hold the id of one they
    /// found in `families` under the same lock.
    pub fn fam(&self, cf: u32) -> &FamilyState {
        match self.families.get(&cf) {
            Some(f) => f,
            None => panic!("column family {cf} is not live"),
        }
    }

    /// The mutable state of live family `cf` (see [`State::fam`]).
    pub fn fam_mut(&mut self, cf: u32) -> &mut FamilyState {
        match self.families.get_mut(&cf) {
            Some(f) => f,
            None => panic!("column family {cf} is not live"),
        }
    }
}

pub(crate) struct DbInner {
    pub dir: PathBuf,
    /// The DB's options (the DB-wide ones, and the default family's).
    pub opts: Options,
    /// The "default" column family, which is never dropped.
    pub default_family: Arc<Family>,
    /// This open DB's identity among those of the process: each handle's
    /// family carries it, so a handle of another DB is refused.
    pub db_id: u64,
    pub fs: Arc<dyn FileSystem>,
    pub stats: Option<Arc<Statistics>>,
    pub table_cache: Arc<TableCache>,
    pub block_cache: Option<Arc<BlockCache>>,
    pub blob_source: Arc<crate::blob::BlobSource>,
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

    /// Publishes a new super version of family `cf` from the state, and
    /// tells the I/O rate limiter whether writers are stalled in the new
    /// shape (RocksDB recomputes its write controller with each super
    /// version).
    pub fn install_super_version(&self, st: &mut State, cf: u32) {
        if self.io_limiter.is_some() {
            let state = self.stall_state(st, None);
            self.note_stall_state(state.0);
        }
        let f = st.fam(cf);
        let sv = SuperVersion {
            file_range_tombstones: Default::default(),
            mem: f.mem.clone(),
            imm: f.imm.iter().rev().cloned().collect(),
            version: st.versions.current(cf),
            stats: self.stats.clone(),
        };
        *f.family.super_version.write() = Arc::new(sv);
        self.super_version_number.fetch_add(1, Ordering::AcqRel);
    }

    /// The family behind a handle, checked to belong to this DB (without
    /// the DB's lock: reads through a handle take none).
    ///
    /// # Errors
    /// `InvalidArgument` for a handle of another DB.
    pub fn family_of<'a>(&self, cf: &'a ColumnFamily) -> Result<&'a Family> {
        if cf.family.db_id == self.db_id {
            Ok(&cf.family)
        } else {
            Err(Error::InvalidArgument(format!(
                "column family '{}' is not a family of this DB",
                cf.family.name
            )))
        }
    }

    /// Tells the I/O rate limiter whether writers are stopped or delayed:
    /// files opened meanwhile ask at user priority.
    pub fn note_stall_state(&self, state: crate::write_controller::StallState) {
        if let Some(l) = &self.io_limiter {
            l.set_writes_stalled(state != crate::write_controller::StallState::Normal);
        }
    }

    /// A reference to family `fam`'s current super version for one read (a
    /// Get, an iterator, a property). Strata has no thread-local cache of
    /// it, so every read takes the lock and counts an acquire.
    pub fn get_super_version(&self, fam: &Family) -> SuperVersionRef {
        let sv = fam.super_version.read().clone();
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
/// an `Arc`). [`Db::close`] stops background work, syncs the WAL and
/// reports what failed; dropping it does the same but for the WAL sync, and
/// can only write errors to the LOG.
pub struct Db {
    inner: Arc<DbInner>,
    threads: Mutex<Vec<JoinHandle<()>>>,
    /// Set by the first shutdown ([`Db::close`] or drop).
    closed: AtomicBool,
}

impl std::fmt::Debug for Db {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Db({})", self.inner.dir.display())
    }
}

/// `NotSupported` unless family `fam` has a merge operator (RocksDB's
/// check in `DB::Merge`).
fn check_merge_operator(fam: &Family) -> Result<()> {
    if fam.opts.merge_operator.is_some() {
        return Ok(());
    }
    Err(Error::NotSupported(format!(
        "merge into column family '{}': it has no merge operator (set \
         Options::merge_operator, or merge_operator=NAME for a built-in: {})",
        fam.name,
        crate::merge::BUILTIN_NAMES.join(", ")
    )))
}

impl Db {
    /// Opens (and by default creates) the DB in directory `path`. A DB
    /// with column families other than "default" must be opened with
    /// [`Db::open_cf`].
    ///
    /// # Errors
    /// `InvalidArgument` for bad options (naming the option), a missing DB
    /// with `create_if_missing=false`, or a DB that has other column
    /// families; `Locked` if another process or handle has it open;
    /// `Corruption` naming the file and offset for damaged files; I/O
    /// errors.
    ///
    /// # Examples
    /// ```rust
    /// use strata::{Db, Options};
    ///
    /// # fn main() -> strata::Result<()> {
    /// let dir = tempfile::tempdir().unwrap();
    /// // RocksDB's option names, also as an option string.
    /// let opts: Options = "write_buffer_size=4194304;bloom_bits_per_key=10".parse()?;
    /// let db = Db::open(dir.path(), opts)?;
    /// assert_eq!(db.path(), dir.path());
    /// # Ok(())
    /// # }
    /// ```
    pub fn open(path: impl AsRef<Path>, options: Options) -> Result<Db> {
        open::open(path.as_ref(), options, Vec::new())
    }

    /// Opens the DB in `path` with column families: each `(name, options)`
    /// pair names a family and its options (RocksDB's
    /// `DB::Open(..., column_families, ...)`). "default" is always opened,
    /// with `options` unless listed. Every family the DB has must be
    /// listed; a listed family the DB lacks is created when
    /// `create_missing_column_families` is set, and is an error otherwise.
    ///
    /// # Errors
    /// As [`Db::open`]; `InvalidArgument` naming a family the DB has but the
    /// list lacks, or a listed one it lacks, or a family option that is
    /// DB-wide.
    pub fn open_cf<N: Into<String>>(
        path: impl AsRef<Path>,
        options: Options,
        families: impl IntoIterator<Item = (N, Options)>,
    ) -> Result<Db> {
        let families = families.into_iter().map(|(n, o)| (n.into(), o)).collect();
        open::open(path.as_ref(), options, families)
    }

    /// The names of the column families of the DB in `path`, "default"
    /// first (RocksDB's `ListColumnFamilies`). Reads the MANIFEST; the DB
    /// need not be closed.
    ///
    /// # Errors
    /// `Corruption` naming the file and offset for a damaged CURRENT or
    /// MANIFEST; I/O errors (a missing DB).
    pub fn list_column_families(path: impl AsRef<Path>, options: &Options) -> Result<Vec<String>> {
        VersionSet::list_families(path.as_ref(), options.fs.clone())
    }

    /// Creates column family `name` with `options` (its column-family
    /// options; DB-wide options must be left as the DB has them) and
    /// returns its handle. The family is in the MANIFEST when this returns.
    ///
    /// # Errors
    /// `InvalidArgument` for an empty or existing name or a DB-wide option;
    /// the MANIFEST write's I/O error.
    pub fn create_column_family(&self, name: &str, options: Options) -> Result<ColumnFamily> {
        self.inner.create_family(name, options)
    }

    /// Drops a column family: its data becomes unreachable and its files
    /// are deleted once no reader holds them. Handles of it still read
    /// what it held; writes to it fail. "default" cannot be dropped.
    ///
    /// # Errors
    /// `InvalidArgument` for "default", a family already dropped or of
    /// another DB; the MANIFEST write's I/O error.
    pub fn drop_column_family(&self, cf: &ColumnFamily) -> Result<()> {
        self.inner.drop_family(cf)
    }

    /// The handle of the live column family `name`, if it exists.
    pub fn column_family(&self, name: &str) -> Option<ColumnFamily> {
        let st = self.inner.state.lock();
        st.families
            .values()
            .find(|f| f.family.name == name)
            .map(|f| ColumnFamily {
                family: f.family.clone(),
            })
    }

    /// Handles of every live column family, by id ("default" first).
    pub fn column_families(&self) -> Vec<ColumnFamily> {
        let st = self.inner.state.lock();
        st.families
            .values()
            .map(|f| ColumnFamily {
                family: f.family.clone(),
            })
            .collect()
    }

    /// The handle of the "default" column family.
    pub fn default_column_family(&self) -> ColumnFamily {
        ColumnFamily {
            family: self.inner.default_family.clone(),
        }
    }

    /// Sets `key` to `value`. The write is in the WAL when this returns
    /// (pushed to the OS, not synced: see [`WriteOptions::sync`] and
    /// [`Db::sync_wal`]).
    ///
    /// # Errors
    /// I/O errors, or the background error that stopped writes.
    ///
    /// # Examples
    /// ```rust
    /// use strata::{Db, Options};
    ///
    /// # fn main() -> strata::Result<()> {
    /// let dir = tempfile::tempdir().unwrap();
    /// let db = Db::open(dir.path(), Options::default())?;
    /// db.put(b"apple", b"red")?;
    /// assert_eq!(db.get(b"apple")?, Some(b"red".to_vec()));
    /// db.delete(b"apple")?;
    /// assert_eq!(db.get(b"apple")?, None);
    /// # Ok(())
    /// # }
    /// ```
    pub fn put(&self, key: impl AsRef<[u8]>, value: impl AsRef<[u8]>) -> Result<()> {
        self.put_opt(&WriteOptions::default(), key, value)
    }

    /// Sets `key` to `value` with write options.
    ///
    /// # Errors
    /// As [`Db::put`]; `InvalidArgument` for `sync` with `disable_wal`.
    pub fn put_opt(
        &self,
        opts: &WriteOptions,
        key: impl AsRef<[u8]>,
        value: impl AsRef<[u8]>,
    ) -> Result<()> {
        let mut b = WriteBatch::new();
        b.put(key, value);
        self.write_opt(opts, b)
    }

    /// Sets `key` to `value` in column family `cf`.
    ///
    /// # Errors
    /// As [`Db::put`]; `InvalidArgument` for a dropped family.
    pub fn put_cf(
        &self,
        cf: &ColumnFamily,
        key: impl AsRef<[u8]>,
        value: impl AsRef<[u8]>,
    ) -> Result<()> {
        let mut b = WriteBatch::new();
        b.put_cf(cf, key, value);
        self.write(b)
    }

    /// Deletes `key` (a no-op if absent).
    ///
    /// # Errors
    /// As [`Db::put`].
    pub fn delete(&self, key: impl AsRef<[u8]>) -> Result<()> {
        self.delete_opt(&WriteOptions::default(), key)
    }

    /// Deletes `key` with write options.
    ///
    /// # Errors
    /// As [`Db::put_opt`].
    pub fn delete_opt(&self, opts: &WriteOptions, key: impl AsRef<[u8]>) -> Result<()> {
        let mut b = WriteBatch::new();
        b.delete(key);
        self.write_opt(opts, b)
    }

    /// Deletes `key` in column family `cf`.
    ///
    /// # Errors
    /// As [`Db::put_cf`].
    pub fn delete_cf(&self, cf: &ColumnFamily, key: impl AsRef<[u8]>) -> Result<()> {
        let mut b = WriteBatch::new();
        b.delete_cf(cf, key);
        self.write(b)
    }

    /// Deletes every key in `[begin, end)` (RocksDB's `DeleteRange`):
    /// reads at this write's sequence number or later see none of the
    /// range's older versions; snapshots taken before still do. An empty
    /// range (`begin >= end`) deletes nothing.
    ///
    /// # Errors
    /// As [`Db::put`].
    pub fn delete_range(&self, begin: impl AsRef<[u8]>, end: impl AsRef<[u8]>) -> Result<()> {
        let mut b = WriteBatch::new();
        b.delete_range(begin, end);
        self.write(b)
    }

    /// Deletes every key in `[begin, end)` of column family `cf`.
    ///
    /// # Errors
    /// As [`Db::put`].
    pub fn delete_range_cf(
        &self,
        cf: &ColumnFamily,
        begin: impl AsRef<[u8]>,
        end: impl AsRef<[u8]>,
    ) -> Result<()> {
        let mut b = WriteBatch::new();
        b.delete_range_cf(cf, begin, end);
        self.write(b)
    }

    /// Merges `operand` into `key`: the family's merge operator
    /// ([`Options::merge_operator`]) combines it with the key's older
    /// value when the key is read, flushed or compacted (RocksDB's
    /// `Merge`).
    ///
    /// # Errors
    /// As [`Db::put`]; `NotSupported` when the family has no merge
    /// operator, as RocksDB's `Merge` ("Provide a merge_operator when
    /// opening DB"). A [`WriteBatch::merge`] is not checked (as in
    /// RocksDB): its operands wait for an operator, and a read of the key
    /// without one is `InvalidArgument`.
    ///
    /// # Examples
    /// ```rust
    /// use strata::{Db, Options};
    ///
    /// # fn main() -> strata::Result<()> {
    /// let dir = tempfile::tempdir().unwrap();
    /// let opts: Options = "merge_operator=uint64add".parse()?;
    /// let db = Db::open(dir.path(), opts)?;
    /// db.merge(b"visits", 1u64.to_le_bytes())?;
    /// db.merge(b"visits", 2u64.to_le_bytes())?;
    /// assert_eq!(db.get(b"visits")?, Some(3u64.to_le_bytes().to_vec()));
    /// # Ok(())
    /// # }
    /// ```
    pub fn merge(&self, key: impl AsRef<[u8]>, operand: impl AsRef<[u8]>) -> Result<()> {
        self.merge_opt(&WriteOptions::default(), key, operand)
    }

    /// Merges `operand` into `key` with write options.
    ///
    /// # Errors
    /// As [`Db::put_opt`].
    pub fn merge_opt(
        &self,
        opts: &WriteOptions,
        key: impl AsRef<[u8]>,
        operand: impl AsRef<[u8]>,
    ) -> Result<()> {
        check_merge_operator(&self.inner.default_family)?;
        let mut b = WriteBatch::new();
        b.merge(key, operand);
        self.write_opt(opts, b)
    }

    /// Merges `operand` into `key` in column family `cf`, through that
    /// family's merge operator.
    ///
    /// # Errors
    /// As [`Db::put_cf`]; `NotSupported` as [`Db::merge`].
    pub fn merge_cf(
        &self,
        cf: &ColumnFamily,
        key: impl AsRef<[u8]>,
        operand: impl AsRef<[u8]>,
    ) -> Result<()> {
        self.merge_cf_opt(&WriteOptions::default(), cf, key, operand)
    }

    /// Merges `operand` into `key` in column family `cf` with write
    /// options.
    ///
    /// # Errors
    /// As [`Db::merge_cf`]; `InvalidArgument` for `sync` with
    /// `disable_wal`.
    pub fn merge_cf_opt(
        &self,
        opts: &WriteOptions,
        cf: &ColumnFamily,
        key: impl AsRef<[u8]>,
        operand: impl AsRef<[u8]>,
    ) -> Result<()> {
        check_merge_operator(self.inner.family_of(cf)?)?;
        let mut b = WriteBatch::new();
        b.merge_cf(cf, key, operand);
        self.write_opt(opts, b)
    }

    /// Applies a batch atomically: after a crash either all of it or none
    /// of it is there, across every column family it touches.
    ///
    /// # Errors
    /// As [`Db::put`].
    pub fn write(&self, batch: WriteBatch) -> Result<()> {
        self.write_opt(&WriteOptions::default(), batch)
    }

    /// Applies a batch atomically with write options.
    ///
    /// # Errors
    /// As [`Db::put_opt`]; `InvalidArgument` if the batch writes to a
    /// dropped or unknown column family.
    pub fn write_opt(&self, opts: &WriteOptions, batch: WriteBatch) -> Result<()> {
        self.inner.write(opts, batch)
    }

    /// The value of `key`, or `None`.
    ///
    /// # Errors
    /// Corruption or I/O errors from the files read.
    ///
    /// # Examples
    /// ```rust
    /// use strata::{Db, Options};
    ///
    /// # fn main() -> strata::Result<()> {
    /// let dir = tempfile::tempdir().unwrap();
    /// let db = Db::open(dir.path(), Options::default())?;
    /// assert_eq!(db.get(b"missing")?, None); // not found is not an error
    /// db.put("k", "v")?;
    /// assert_eq!(db.get("k")?.as_deref(), Some(&b"v"[..]));
    /// # Ok(())
    /// # }
    /// ```
    pub fn get(&self, key: impl AsRef<[u8]>) -> Result<Option<Vec<u8>>> {
        self.get_opt(&ReadOptions::default(), key)
    }

    /// The value of `key` with read options (e.g. at a snapshot).
    ///
    /// # Errors
    /// As [`Db::get`].
    pub fn get_opt(&self, opts: &ReadOptions, key: impl AsRef<[u8]>) -> Result<Option<Vec<u8>>> {
        Ok(self
            .inner
            .get(&self.inner.default_family, opts, key.as_ref())?
            .map(PinnableSlice::into_vec))
    }

    /// The value of `key` in column family `cf`.
    ///
    /// # Errors
    /// As [`Db::get`]; `InvalidArgument` for a handle of another DB.
    pub fn get_cf(&self, cf: &ColumnFamily, key: impl AsRef<[u8]>) -> Result<Option<Vec<u8>>> {
        self.get_cf_opt(cf, &ReadOptions::default(), key)
    }

    /// The value of `key` in column family `cf` with read options.
    ///
    /// # Errors
    /// As [`Db::get_cf`].
    pub fn get_cf_opt(
        &self,
        cf: &ColumnFamily,
        opts: &ReadOptions,
        key: impl AsRef<[u8]>,
    ) -> Result<Option<Vec<u8>>> {
        let fam = self.inner.family_of(cf)?;
        Ok(self
            .inner
            .get(fam, opts, key.as_ref())?
            .map(PinnableSlice::into_vec))
    }

    /// The value of `key` in column family `cf`, left in its block as by
    /// [`Db::get_pinned`].
    ///
    /// # Errors
    /// As [`Db::get_cf`].
    pub fn get_pinned_cf(
        &self,
        cf: &ColumnFamily,
        opts: &ReadOptions,
        key: impl AsRef<[u8]>,
    ) -> Result<Option<PinnableSlice>> {
        let fam = self.inner.family_of(cf)?;
        self.inner.get(fam, opts, key.as_ref())
    }

    /// The value of `key`, left in the data block it was read from rather
    /// than copied out (RocksDB's `GetPinnable`): cheaper for large values
    /// that are read and dropped. See [`PinnableSlice`] for what it keeps
    /// in memory while it lives.
    ///
    /// # Errors
    /// As [`Db::get`].
    pub fn get_pinned(&self, opts: &ReadOptions, key: &[u8]) -> Result<Option<PinnableSlice>> {
        self.inner.get(&self.inner.default_family, opts, key)
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
        self.inner.multi_get(&self.inner.default_family, opts, keys)
    }

    /// A snapshot of the current state (of every column family); released
    /// when dropped.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot::latest(&self.inner.snapshots, &self.inner.last_sequence)
    }

    /// An iterator over all keys at the current state, ascending.
    pub fn iter(&self) -> DbIterator {
        self.iter_opt(&ReadOptions::default())
    }

    /// An iterator with read options (snapshot, bounds).
    pub fn iter_opt(&self, opts: &ReadOptions) -> DbIterator {
        self.inner.iter(&self.inner.default_family, opts)
    }

    /// An iterator over column family `cf` with read options.
    ///
    /// # Errors
    /// `InvalidArgument` for a handle of another DB.
    pub fn iter_cf(&self, cf: &ColumnFamily, opts: &ReadOptions) -> Result<DbIterator> {
        let fam = self.inner.family_of(cf)?;
        Ok(self.inner.iter(fam, opts))
    }

    /// An iterator over the keys in `range`, at the current state,
    /// ascending (descending after [`DbIterator::reverse`]). Included and
    /// excluded bounds are exact: `a..b`, `a..=b`, `..b`, `a..`, `..` and
    /// `(Bound, Bound)` pairs, with keys of any type that is `AsRef<[u8]>`
    /// (`&[u8]`, `Vec<u8>`, `&str`, byte-string literals; a pair of
    /// `Bound`s of references is a range of both `&[u8]` and `[u8]`, so it
    /// names the key type: `db.range::<[u8], _>((lo, hi))`). A range whose
    /// start is past its end holds no key (it does not panic). The range
    /// becomes the iterator's bounds (`ReadOptions::iterate_lower_bound`
    /// and `iterate_upper_bound`), so a `seek` outside it finds nothing
    /// outside it either.
    ///
    /// # Examples
    /// ```rust
    /// use strata::{Db, Options};
    ///
    /// # fn main() -> strata::Result<()> {
    /// let dir = tempfile::tempdir().unwrap();
    /// let db = Db::open(dir.path(), Options::default())?;
    /// for k in ["apple", "banana", "cherry", "date"] {
    ///     db.put(k, k.to_uppercase())?;
    /// }
    /// let keys = |it: strata::DbIterator| -> strata::Result<Vec<String>> {
    ///     it.map(|r| r.map(|(k, _)| String::from_utf8(k).unwrap())).collect()
    /// };
    /// assert_eq!(keys(db.range("banana".."date"))?, ["banana", "cherry"]);
    /// assert_eq!(keys(db.range("banana"..="date"))?, ["banana", "cherry", "date"]);
    /// assert_eq!(keys(db.range(.."banana").reverse())?, ["apple"]);
    /// assert_eq!(keys(db.prefix("ch"))?, ["cherry"]);
    /// # Ok(())
    /// # }
    /// ```
    pub fn range<K, R>(&self, range: R) -> DbIterator
    where
        K: AsRef<[u8]> + ?Sized,
        R: RangeBounds<K>,
    {
        self.range_opt(&ReadOptions::default(), range)
    }

    /// [`Db::range`] with read options (a snapshot, cache use): the range
    /// narrows the options' iterate bounds if they are set.
    pub fn range_opt<K, R>(&self, opts: &ReadOptions, range: R) -> DbIterator
    where
        K: AsRef<[u8]> + ?Sized,
        R: RangeBounds<K>,
    {
        let opts = read::with_range(opts, &range);
        self.inner.iter(&self.inner.default_family, &opts)
    }

    /// [`Db::range_opt`] over column family `cf`.
    ///
    /// # Errors
    /// `InvalidArgument` for a handle of another DB.
    pub fn range_cf<K, R>(
        &self,
        cf: &ColumnFamily,
        opts: &ReadOptions,
        range: R,
    ) -> Result<DbIterator>
    where
        K: AsRef<[u8]> + ?Sized,
        R: RangeBounds<K>,
    {
        let fam = self.inner.family_of(cf)?;
        Ok(self.inner.iter(fam, &read::with_range(opts, &range)))
    }

    /// An iterator over the keys that start with `prefix`, ascending (as
    /// [`Db::range`] from `prefix` up to the first key past all of them;
    /// a prefix that ends in 0xff bytes is handled exactly, and an empty
    /// prefix iterates every key).
    pub fn prefix(&self, prefix: impl AsRef<[u8]>) -> DbIterator {
        self.prefix_opt(&ReadOptions::default(), prefix)
    }

    /// [`Db::prefix`] with read options (their bounds are narrowed).
    pub fn prefix_opt(&self, opts: &ReadOptions, prefix: impl AsRef<[u8]>) -> DbIterator {
        let opts = read::with_prefix(opts, prefix.as_ref());
        self.inner.iter(&self.inner.default_family, &opts)
    }

    /// [`Db::prefix_opt`] over column family `cf`.
    ///
    /// # Errors
    /// `InvalidArgument` for a handle of another DB.
    pub fn prefix_cf(
        &self,
        cf: &ColumnFamily,
        opts: &ReadOptions,
        prefix: impl AsRef<[u8]>,
    ) -> Result<DbIterator> {
        let fam = self.inner.family_of(cf)?;
        Ok(self
            .inner
            .iter(fam, &read::with_prefix(opts, prefix.as_ref())))
    }

    /// Creates a checkpoint: an openable copy of the DB, every column
    /// family, in the new directory `dir` (RocksDB's
    /// `Checkpoint::CreateCheckpoint`), while writes, flushes and
    /// compactions go on. The copy is cut at one sequence number, returned
    /// in [`CheckpointInfo::sequence`](crate::CheckpointInfo::sequence): opening it (with [`Db::open_cf`]
    /// and every family, as for the DB) recovers exactly the writes with
    /// sequence numbers up to it.
    ///
    /// Writes wait only while the cut is recorded; tables and blob files
    /// are hard-linked (copied when the link fails, e.g. to another file
    /// system), WALs copied up to the cut, and a MANIFEST, OPTIONS and
    /// CURRENT written, all synced. The directory is filled under
    /// `<dir>.tmp` and renamed to `dir` when complete, so `dir` exists only
    /// as a whole checkpoint. When memtables hold writes made with
    /// `disable_wal`, they are flushed first, writes waiting meanwhile.
    /// Later flushes, compactions and deletions in the DB do not touch the
    /// checkpoint. Design: `docs/design/engine.md`, "Checkpoints".
    ///
    /// # Errors
    /// `InvalidArgument` if `dir` exists (or `<dir>.tmp` holds files no
    /// checkpoint writes); the background error if writes are stopped;
    /// I/O errors linking, copying or syncing (`<dir>.tmp` is removed and
    /// the DB is unaffected).
    ///
    /// # Examples
    /// ```rust
    /// use strata::{Db, Options};
    ///
    /// # fn main() -> strata::Result<()> {
    /// let dir = tempfile::tempdir().unwrap();
    /// let db = Db::open(dir.path().join("db"), Options::default())?;
    /// db.put(b"k", b"before")?;
    /// let info = db.create_checkpoint(dir.path().join("backup"))?;
    /// db.put(b"k", b"after")?;
    ///
    /// let copy = Db::open(&info.path, Options::default())?;
    /// assert_eq!(copy.get(b"k")?.as_deref(), Some(&b"before"[..]));
    /// assert_eq!(info.sequence, 1);
    /// # Ok(())
    /// # }
    /// ```
    pub fn create_checkpoint(&self, dir: impl AsRef<Path>) -> Result<CheckpointInfo> {
        self.inner.create_checkpoint(dir.as_ref())
    }

    /// Flushes the memtable to an L0 table and waits for it.
    ///
    /// # Errors
    /// The flush's error, or the background error.
    pub fn flush(&self) -> Result<()> {
        self.inner.flush_and_wait(0, "Manual Flush")
    }

    /// Flushes column family `cf`'s memtable and waits for it.
    ///
    /// # Errors
    /// As [`Db::flush`]; `InvalidArgument` for a dropped family.
    pub fn flush_cf(&self, cf: &ColumnFamily) -> Result<()> {
        let fam = self.inner.family_of(cf)?;
        self.inner.flush_and_wait(fam.id, "Manual Flush")
    }

    /// Compacts the key range `[begin, end]` (`None` = unbounded) down the
    /// levels, flushing the memtable first; waits for completion.
    ///
    /// # Errors
    /// The compaction's error, or the background error.
    pub fn compact_range(&self, begin: Option<&[u8]>, end: Option<&[u8]>) -> Result<()> {
        self.inner.compact_range(0, begin, end)
    }

    /// Compacts `[begin, end]` of column family `cf` (as
    /// [`Db::compact_range`]).
    ///
    /// # Errors
    /// As [`Db::compact_range`]; `InvalidArgument` for a dropped family.
    pub fn compact_range_cf(
        &self,
        cf: &ColumnFamily,
        begin: Option<&[u8]>,
        end: Option<&[u8]>,
    ) -> Result<()> {
        let fam = self.inner.family_of(cf)?;
        self.inner.compact_range(fam.id, begin, end)
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
    /// `rocksdb.total-sst-files-size`, ...), or `None` if unknown. Family
    /// properties are the default family's.
    pub fn property(&self, name: &str) -> Option<String> {
        self.inner.property(0, name)
    }

    /// A property of column family `cf` (as [`Db::property`]); `None` for
    /// an unknown name or a dropped family.
    pub fn property_cf(&self, cf: &ColumnFamily, name: &str) -> Option<String> {
        let fam = self.inner.family_of(cf).ok()?;
        if fam.is_dropped() {
            return None;
        }
        self.inner.property(fam.id, name)
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

impl Db {
    /// Stops background work and waits for it, flushes the writes made with
    /// `disable_wal` that are still in memtables, and syncs every WAL, so
    /// that every write acknowledged before the call survives a crash; then
    /// closes the files. Returns the first error: the background error that
    /// stopped writes (a failed flush, compaction or WAL write), else a
    /// failed flush at close, else a failed WAL sync.
    ///
    /// Dropping a `Db` without calling `close` does the same except that it
    /// only pushes the WAL to the OS (not synced) and can report errors only
    /// to the LOG.
    ///
    /// # Errors
    /// As above; the DB is closed whatever the result.
    ///
    /// # Examples
    /// ```rust
    /// use strata::{Db, Options};
    ///
    /// # fn main() -> strata::Result<()> {
    /// let dir = tempfile::tempdir().unwrap();
    /// let db = Db::open(dir.path(), Options::default())?;
    /// db.put(b"k", b"v")?;
    /// db.close()?; // the write is durable now
    ///
    /// let db = Db::open(dir.path(), Options::default())?;
    /// assert_eq!(db.get(b"k")?.as_deref(), Some(&b"v"[..]));
    /// # Ok(())
    /// # }
    /// ```
    pub fn close(self) -> Result<()> {
        self.shut_down(true)
    }

    /// The shutdown of [`Db::close`] (`sync_wal`) and of drop (the WAL only
    /// pushed to the OS). Runs once; later calls return `Ok`.
    fn shut_down(&self, sync_wal: bool) -> Result<()> {
        if self.closed.swap(true, Ordering::AcqRel) {
            return Ok(());
        }
        let flushed = self.inner.close();
        let threads: Vec<_> = self.threads.lock().drain(..).collect();
        self.inner.stop_threads(threads);
        let wal = {
            let mut w = self.inner.wal.lock();
            if sync_wal {
                w.sync_all()
            } else {
                w.flush_current()
            }
        };
        if let Err(e) = &wal {
            self.inner
                .log
                .log(&format!("[WARN] WAL flush or sync at close failed: {e}"));
        }
        let bg = self.inner.state.lock().bg_error.clone();
        self.inner.log.log("DB closed");
        if let Some(e) = bg {
            return Err(Error::Background(e));
        }
        flushed.and(wal)
    }

    /// Writes the WAL's buffered bytes to its file (RocksDB's `FlushWAL`),
    /// and with `sync` also makes every WAL durable, as [`Db::sync_wal`].
    ///
    /// Every write pushes its WAL record to the OS before it returns (no
    /// record waits in Strata's buffer for a later write, as with RocksDB's
    /// default `manual_wal_flush=false`), so `flush_wal(false)` finds
    /// nothing to write: it only reports a WAL that failed earlier. What a
    /// write leaves in the OS survives a crash of the process but not of
    /// the machine; `flush_wal(true)` covers both.
    ///
    /// # Errors
    /// The background error, if writes are stopped; the I/O error of the
    /// write or sync, which then becomes the background error (the WAL can
    /// no longer be trusted to hold what it was given).
    pub fn flush_wal(&self, sync: bool) -> Result<()> {
        self.inner.flush_wal(sync)
    }

    /// Makes every write logged so far durable (RocksDB's `SyncWAL`): when
    /// this returns, every write that returned before the call survives a
    /// crash of the machine, as if it had been made with
    /// `WriteOptions::sync`. Syncs the WALs not yet synced, oldest first.
    /// Writes made with `disable_wal` are not in the WAL and are not
    /// covered (a flush persists them). Writes wait while the WAL is synced.
    ///
    /// # Errors
    /// As [`Db::flush_wal`].
    pub fn sync_wal(&self) -> Result<()> {
        self.inner.flush_wal(true)
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        let _ = self.shut_down(false);
    }
}
