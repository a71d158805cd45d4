//! [`FaultInjectionFs`]: a [`FileSystem`] wrapper for tests that simulates
//! power loss and injects I/O errors (after LevelDB's `FaultInjectionTestEnv`
//! and RocksDB's `FaultInjectionTestFS`).
//!
//! Durability model:
//! - File data is durable up to the length at the file's last `sync`.
//! - A file creation or rename is durable once `sync_dir` is called on the
//!   parent directory of the (new) path, compared as given, so the engine
//!   must name directories consistently.
//! - Removals and directory creations are treated as immediately durable.
//! - Files that existed before they were first opened through this wrapper
//!   are treated as fully durable.
//!
//! [`FaultInjectionFs::crash`] applies the model: it reverts non-durable
//! creations and renames, then truncates every tracked file to its durable
//! length (optionally keeping a random prefix of the unsynced tail, a "torn
//! write"). Call it after the DB is closed; handles opened before a crash
//! fail every later operation.
//!
//! Compiled only into the engine's unit tests and with the cargo feature
//! `fault-injection` (which `strata-testkit` turns on and re-exports as
//! `strata_testkit::fault`): a test tool, not part of the stable API.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use parking_lot::{Condvar, Mutex};

use super::{FileLock, FileSystem, RandomAccessFile, WritableFile};
use crate::error::{Error, Result};

/// The kinds of operation faults can be injected into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FaultOp {
    /// `WritableFile::append` (and `flush`).
    Write,
    /// `WritableFile::sync`.
    Sync,
    /// `FileSystem::rename`.
    Rename,
    /// `FileSystem::create` and `FileSystem::reopen_for_append`.
    Create,
    /// `FileSystem::read_all` and `RandomAccessFile::read_at`.
    Read,
    /// `FileSystem::sync_dir`.
    SyncDir,
    /// `WritableFile::range_sync` (`bytes_per_sync`); it makes nothing
    /// durable, so a crash still drops what it covered.
    RangeSync,
}

impl FaultOp {
    const ALL: [FaultOp; 7] = [
        FaultOp::Write,
        FaultOp::Sync,
        FaultOp::Rename,
        FaultOp::Create,
        FaultOp::Read,
        FaultOp::SyncDir,
        FaultOp::RangeSync,
    ];

    fn index(self) -> usize {
        self as usize
    }
}

/// A pending failure for one kind of operation.
#[derive(Debug, Clone, Copy)]
struct Rule {
    /// Operations still to let through before failing.
    countdown: u64,
    errno: i32,
    /// Keep failing after the first failure, until `clear_faults`.
    sticky: bool,
}

/// Durability bookkeeping for one file.
#[derive(Debug, Clone, Copy)]
struct FileState {
    synced: u64,
    written: u64,
}

/// A directory change not yet made durable by `sync_dir`.
#[derive(Debug)]
enum DirOp {
    Created(PathBuf),
    Renamed {
        from: PathBuf,
        to: PathBuf,
        /// Durable contents of a file that `to` replaced.
        replaced: Option<Vec<u8>>,
    },
}

#[derive(Debug)]
struct State {
    next_id: u64,
    files: HashMap<u64, FileState>,
    paths: HashMap<PathBuf, u64>,
    pending: Vec<(PathBuf, DirOp)>,
    rules: [Option<Rule>; 7],
    seen: [u64; 7],
    injected: [u64; 7],
    active: bool,
    epoch: u64,
    /// xorshift64 state for torn writes; `None` = drop all unsynced data.
    torn_rng: Option<u64>,
    /// Files `RandomAccessFile::advise_random` was called on, in call order
    /// (a hint: never failed).
    random_advices: Vec<PathBuf>,
}

impl State {
    /// Counts an operation and fails it if a rule says so.
    fn check(&mut self, op: FaultOp, path: &Path) -> Result<()> {
        let i = op.index();
        self.seen[i] += 1;
        let Some(rule) = self.rules[i].as_mut() else {
            return Ok(());
        };
        if rule.countdown > 1 {
            rule.countdown -= 1;
            return Ok(());
        }
        let errno = rule.errno;
        if !rule.sticky {
            self.rules[i] = None;
        }
        self.injected[i] += 1;
        Err(Error::io(
            format!("injected {op:?} fault on {}", path.display()),
            std::io::Error::from_raw_os_error(errno),
        ))
    }

    /// Fails mutations while the file system is inactive.
    fn check_active(&self, what: &str, path: &Path) -> Result<()> {
        if self.active {
            return Ok(());
        }
        Err(Error::io(
            format!(
                "{what} {}: file system inactive (simulated)",
                path.display()
            ),
            std::io::Error::from_raw_os_error(libc::EIO),
        ))
    }

    fn track(&mut self, path: &Path, st: FileState) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.files.insert(id, st);
        self.paths.insert(path.to_path_buf(), id);
        id
    }

    fn next_random(&mut self) -> u64 {
        let mut x = self.torn_rng.unwrap_or(1).max(1);
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.torn_rng = Some(x);
        x
    }
}

/// A file system that can lose unsynced data and fail chosen operations.
#[derive(Clone)]
pub struct FaultInjectionFs {
    inner: Arc<dyn FileSystem>,
    state: Arc<Mutex<State>>,
    removes: Arc<Gate>,
    manifest_syncs: Arc<Gate>,
    options_renames: Arc<Gate>,
}

/// Holds the calls that pass it while closed (see
/// [`FaultInjectionFs::hold_removes`],
/// [`FaultInjectionFs::hold_manifest_syncs`] and
/// [`FaultInjectionFs::hold_options_renames`]). Apart from `State` so that
/// a held call blocks no other operation.
#[derive(Default)]
struct Gate {
    /// (closed, calls waiting).
    state: Mutex<(bool, usize)>,
    cv: Condvar,
}

impl Gate {
    fn close(&self) {
        self.state.lock().0 = true;
    }

    fn open(&self) {
        self.state.lock().0 = false;
        self.cv.notify_all();
    }

    fn waiting(&self) -> usize {
        self.state.lock().1
    }

    /// Returns at once while open; while closed, waits until opened.
    fn pass(&self) {
        let mut g = self.state.lock();
        if g.0 {
            g.1 += 1;
            while g.0 {
                self.cv.wait(&mut g);
            }
            g.1 -= 1;
        }
    }
}

impl fmt::Debug for FaultInjectionFs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.state.lock();
        f.debug_struct("FaultInjectionFs")
            .field("inner", &self.inner)
            .field("tracked_files", &s.paths.len())
            .field("pending_dir_ops", &s.pending.len())
            .field("active", &s.active)
            .finish()
    }
}

impl FaultInjectionFs {
    /// Wraps `inner` (in tests, usually the POSIX file system on a tempdir).
    pub fn new(inner: Arc<dyn FileSystem>) -> Self {
        FaultInjectionFs {
            inner,
            state: Arc::new(Mutex::new(State {
                next_id: 1,
                files: HashMap::new(),
                paths: HashMap::new(),
                pending: Vec::new(),
                rules: [None; 7],
                seen: [0; 7],
                injected: [0; 7],
                active: true,
                epoch: 0,
                torn_rng: None,
                random_advices: Vec::new(),
            })),
            removes: Arc::default(),
            manifest_syncs: Arc::default(),
            options_renames: Arc::default(),
        }
    }

    /// Makes every later `remove` wait until [`Self::release_removes`], as
    /// an unlink of a large file makes its caller wait: a test can then
    /// check what else waits on a file deletion.
    pub fn hold_removes(&self) {
        self.removes.close();
    }

    /// Lets held and later removes through.
    pub fn release_removes(&self) {
        self.removes.open();
    }

    /// How many `remove` calls are waiting at the gate now.
    pub fn removes_held(&self) -> usize {
        self.removes.waiting()
    }

    /// Makes every later `sync` of a MANIFEST file wait until
    /// [`Self::release_manifest_syncs`], as a slow fsync makes its caller
    /// wait: a test can then check what else waits on a MANIFEST write.
    pub fn hold_manifest_syncs(&self) {
        self.manifest_syncs.close();
    }

    /// Lets held and later MANIFEST syncs through.
    pub fn release_manifest_syncs(&self) {
        self.manifest_syncs.open();
    }

    /// How many MANIFEST `sync` calls are waiting at the gate now.
    pub fn manifest_syncs_held(&self) -> usize {
        self.manifest_syncs.waiting()
    }

    /// Makes every later rename to an OPTIONS file (the last step of
    /// writing one, from its temporary file) wait until
    /// [`Self::release_options_renames`]: a test can then check what else
    /// goes on while an OPTIONS file is being written.
    pub fn hold_options_renames(&self) {
        self.options_renames.close();
    }

    /// Lets held and later renames to OPTIONS files through.
    pub fn release_options_renames(&self) {
        self.options_renames.open();
    }

    /// How many renames to OPTIONS files are waiting at the gate now.
    pub fn options_renames_held(&self) -> usize {
        self.options_renames.waiting()
    }

    /// Makes the `n`-th next operation of kind `op` (1 = the very next)
    /// fail with OS error `errno` (e.g. `libc::EIO`, `libc::ENOSPC`).
    pub fn fail_after(&self, op: FaultOp, n: u64, errno: i32) {
        self.set_rule(op, n, errno, false);
    }

    /// Like [`FaultInjectionFs::fail_after`], but that operation and every
    /// later one of kind `op` fail until [`FaultInjectionFs::clear_faults`].
    pub fn fail_from(&self, op: FaultOp, n: u64, errno: i32) {
        self.set_rule(op, n, errno, true);
    }

    fn set_rule(&self, op: FaultOp, n: u64, errno: i32, sticky: bool) {
        self.state.lock().rules[op.index()] = Some(Rule {
            countdown: n.max(1),
            errno,
            sticky,
        });
    }

    /// Removes every pending fault rule.
    pub fn clear_faults(&self) {
        self.state.lock().rules = [None; 7];
    }

    /// Faults injected so far into operations of kind `op`.
    pub fn injected(&self, op: FaultOp) -> u64 {
        self.state.lock().injected[op.index()]
    }

    /// Operations of kind `op` attempted so far (failed ones included).
    pub fn operations(&self, op: FaultOp) -> u64 {
        self.state.lock().seen[op.index()]
    }

    /// Files opened for reads that were advised random access so far
    /// (`advise_random_on_open`).
    pub fn random_advices(&self) -> u64 {
        self.state.lock().random_advices.len() as u64
    }

    /// The files counted by [`Self::random_advices`], in call order.
    pub fn randomly_advised_files(&self) -> Vec<PathBuf> {
        self.state.lock().random_advices.clone()
    }

    /// Total faults injected, all kinds.
    pub fn total_injected(&self) -> u64 {
        let s = self.state.lock();
        FaultOp::ALL.iter().map(|op| s.injected[op.index()]).sum()
    }

    /// With `false`, every mutation (write, sync, create, rename, remove,
    /// directory sync) fails with EIO, as if the disk vanished; reads work.
    pub fn set_active(&self, active: bool) {
        self.state.lock().active = active;
    }

    /// With `Some(seed)`, a crash keeps a random prefix of each file's
    /// unsynced tail (a torn write) instead of dropping all of it.
    pub fn set_torn_writes(&self, seed: Option<u64>) {
        self.state.lock().torn_rng = seed.map(|s| s | 1);
    }

    /// Simulates power loss: reverts creations and renames whose directory
    /// was not synced, then truncates every tracked file to its durable length
    /// (see [`FaultInjectionFs::set_torn_writes`]). Handles opened earlier
    /// fail afterwards.
    pub fn crash(&self) -> Result<()> {
        let mut s = self.state.lock();
        s.epoch += 1;
        let pending = std::mem::take(&mut s.pending);
        for (_, op) in pending.into_iter().rev() {
            match op {
                DirOp::Created(path) => {
                    if self.inner.exists(&path) {
                        self.inner.remove(&path)?;
                    }
                    if let Some(id) = s.paths.remove(&path) {
                        s.files.remove(&id);
                    }
                }
                DirOp::Renamed { from, to, replaced } => {
                    if self.inner.exists(&to) {
                        self.inner.rename(&to, &from)?;
                        if let Some(id) = s.paths.remove(&to) {
                            s.paths.insert(from.clone(), id);
                        }
                    }
                    if let Some(content) = replaced {
                        self.write_durable(&to, &content)?;
                        let n = content.len() as u64;
                        s.track(
                            &to,
                            FileState {
                                synced: n,
                                written: n,
                            },
                        );
                    }
                }
            }
        }
        self.truncate_unsynced(&mut s)
    }

    /// Truncates every tracked file to its durable length (or a torn prefix
    /// of its unsynced tail) without touching directory entries.
    pub fn drop_unsynced_data(&self) -> Result<()> {
        let mut s = self.state.lock();
        s.epoch += 1;
        self.truncate_unsynced(&mut s)
    }

    fn truncate_unsynced(&self, s: &mut State) -> Result<()> {
        let mut paths: Vec<(PathBuf, u64)> = s.paths.iter().map(|(p, i)| (p.clone(), *i)).collect();
        paths.sort();
        for (path, id) in paths {
            let Some(st) = s.files.get(&id).copied() else {
                continue;
            };
            if !self.inner.exists(&path) {
                continue;
            }
            let data = self.inner.read_all(&path)?;
            let unsynced = (data.len() as u64).saturating_sub(st.synced);
            let keep_extra = match s.torn_rng {
                Some(_) if unsynced > 0 => s.next_random() % (unsynced + 1),
                _ => 0,
            };
            let keep = (st.synced + keep_extra).min(data.len() as u64) as usize;
            if keep < data.len() {
                self.write_durable(&path, data.get(..keep).unwrap_or(&[]))?;
            }
            let k = keep as u64;
            s.files.insert(
                id,
                FileState {
                    synced: k,
                    written: k,
                },
            );
        }
        Ok(())
    }

    /// Replaces `path`'s contents through the inner file system.
    fn write_durable(&self, path: &Path, content: &[u8]) -> Result<()> {
        let mut f = self.inner.create(path)?;
        f.append(content)?;
        f.sync()
    }

    /// The durable contents of `path` as far as this wrapper knows.
    fn durable_contents(&self, s: &State, path: &Path) -> Result<Vec<u8>> {
        let mut data = self.inner.read_all(path)?;
        if let Some(st) = s.paths.get(path).and_then(|id| s.files.get(id)) {
            data.truncate(st.synced as usize);
        }
        Ok(data)
    }

    fn writable(&self, id: u64, path: &Path, inner: Box<dyn WritableFile>) -> FaultWritable {
        FaultWritable {
            inner,
            id,
            path: path.to_path_buf(),
            epoch: self.state.lock().epoch,
            state: self.state.clone(),
            sync_gate: named(path, "MANIFEST-").then(|| self.manifest_syncs.clone()),
        }
    }
}

/// Whether the file name of `path` begins with `prefix`.
fn named(path: &Path, prefix: &str) -> bool {
    path.file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
}

fn parent(path: &Path) -> PathBuf {
    path.parent().map(Path::to_path_buf).unwrap_or_default()
}

impl FileSystem for FaultInjectionFs {
    fn create(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        self.create_opt(path, false)
    }

    fn create_opt(&self, path: &Path, direct: bool) -> Result<Box<dyn WritableFile>> {
        let id = {
            let mut s = self.state.lock();
            s.check_active("create", path)?;
            s.check(FaultOp::Create, path)?;
            let existed = self.inner.exists(path);
            let f = self.inner.create_opt(path, direct)?;
            if !existed {
                s.pending
                    .push((parent(path), DirOp::Created(path.to_path_buf())));
            }
            if let Some(old) = s.paths.get(path).copied() {
                s.files.remove(&old);
            }
            let id = s.track(
                path,
                FileState {
                    synced: 0,
                    written: 0,
                },
            );
            (id, f)
        };
        Ok(Box::new(self.writable(id.0, path, id.1)))
    }

    fn reopen_for_append(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        let (id, f) = {
            let mut s = self.state.lock();
            s.check_active("reopen", path)?;
            s.check(FaultOp::Create, path)?;
            let f = self.inner.reopen_for_append(path)?;
            let id = match s.paths.get(path) {
                Some(id) => *id,
                None => {
                    let n = f.size();
                    s.track(
                        path,
                        FileState {
                            synced: n,
                            written: n,
                        },
                    )
                }
            };
            (id, f)
        };
        Ok(Box::new(self.writable(id, path, f)))
    }

    fn open_random(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        self.open_random_opt(path, false)
    }

    fn open_random_opt(&self, path: &Path, direct: bool) -> Result<Arc<dyn RandomAccessFile>> {
        let inner = self.inner.open_random_opt(path, direct)?;
        Ok(Arc::new(FaultRandom {
            inner,
            path: path.to_path_buf(),
            state: self.state.clone(),
        }))
    }

    /// The inner file system's map, wrapped: reads through `read_at` can
    /// fail on injection, reads served from the map cannot (a real mapped
    /// read has no error to return).
    fn open_random_mapped(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        self.state.lock().check(FaultOp::Read, path)?;
        let inner = self.inner.open_random_mapped(path)?;
        Ok(Arc::new(FaultRandom {
            inner,
            path: path.to_path_buf(),
            state: self.state.clone(),
        }))
    }

    fn read_all(&self, path: &Path) -> Result<Vec<u8>> {
        self.state.lock().check(FaultOp::Read, path)?;
        self.inner.read_all(path)
    }

    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        if named(to, "OPTIONS-") {
            self.options_renames.pass();
        }
        let mut s = self.state.lock();
        s.check_active("rename", from)?;
        s.check(FaultOp::Rename, from)?;
        let replaced = if self.inner.exists(to) {
            Some(self.durable_contents(&s, to)?)
        } else {
            None
        };
        if !s.paths.contains_key(from) && self.inner.exists(from) {
            let n = self.inner.file_size(from)?;
            s.track(
                from,
                FileState {
                    synced: n,
                    written: n,
                },
            );
        }
        self.inner.rename(from, to)?;
        if let Some(old) = s.paths.remove(to) {
            s.files.remove(&old);
        }
        if let Some(id) = s.paths.remove(from) {
            s.paths.insert(to.to_path_buf(), id);
        }
        s.pending.push((
            parent(to),
            DirOp::Renamed {
                from: from.to_path_buf(),
                to: to.to_path_buf(),
                replaced,
            },
        ));
        Ok(())
    }

    fn remove(&self, path: &Path) -> Result<()> {
        self.removes.pass();
        let mut s = self.state.lock();
        s.check_active("remove", path)?;
        self.inner.remove(path)?;
        if let Some(id) = s.paths.remove(path) {
            s.files.remove(&id);
        }
        Ok(())
    }

    fn exists(&self, path: &Path) -> bool {
        self.inner.exists(path)
    }

    fn list(&self, dir: &Path) -> Result<Vec<String>> {
        self.inner.list(dir)
    }

    fn create_dir_all(&self, dir: &Path) -> Result<()> {
        self.state.lock().check_active("create directory", dir)?;
        self.inner.create_dir_all(dir)
    }

    fn sync_dir(&self, dir: &Path) -> Result<()> {
        let mut s = self.state.lock();
        s.check_active("sync directory", dir)?;
        s.check(FaultOp::SyncDir, dir)?;
        self.inner.sync_dir(dir)?;
        s.pending.retain(|(d, _)| d != dir);
        Ok(())
    }

    fn file_size(&self, path: &Path) -> Result<u64> {
        self.inner.file_size(path)
    }

    fn lock(&self, path: &Path) -> Result<Box<dyn FileLock>> {
        self.inner.lock(path)
    }
}

/// A writable file that writes through to the OS on every append, so that
/// the only unsynced data is what [`FaultInjectionFs::crash`] truncates.
struct FaultWritable {
    inner: Box<dyn WritableFile>,
    id: u64,
    path: PathBuf,
    epoch: u64,
    state: Arc<Mutex<State>>,
    /// The gate this file's syncs pass (MANIFEST files only).
    sync_gate: Option<Arc<Gate>>,
}

impl FaultWritable {
    fn live(&self, s: &State) -> Result<()> {
        if s.epoch == self.epoch {
            return Ok(());
        }
        Err(Error::io(
            format!(
                "{}: handle opened before a simulated crash",
                self.path.display()
            ),
            std::io::Error::from_raw_os_error(libc::EIO),
        ))
    }
}

impl WritableFile for FaultWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        let mut s = self.state.lock();
        self.live(&s)?;
        s.check_active("write", &self.path)?;
        s.check(FaultOp::Write, &self.path)?;
        self.inner.append(data)?;
        self.inner.flush()?;
        if let Some(f) = s.files.get_mut(&self.id) {
            f.written += data.len() as u64;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        let s = self.state.lock();
        self.live(&s)?;
        s.check_active("flush", &self.path)?;
        self.inner.flush()
    }

    fn sync(&mut self) -> Result<()> {
        if let Some(g) = &self.sync_gate {
            g.pass();
        }
        let mut s = self.state.lock();
        self.live(&s)?;
        s.check_active("sync", &self.path)?;
        s.check(FaultOp::Sync, &self.path)?;
        self.inner.sync()?;
        if let Some(f) = s.files.get_mut(&self.id) {
            f.synced = f.written;
        }
        Ok(())
    }

    fn size(&self) -> u64 {
        self.inner.size()
    }

    fn range_sync(&mut self, offset: u64, len: u64) -> Result<()> {
        let mut s = self.state.lock();
        self.live(&s)?;
        s.check_active("sync_file_range", &self.path)?;
        s.check(FaultOp::RangeSync, &self.path)?;
        self.inner.range_sync(offset, len)
    }
}

struct FaultRandom {
    inner: Arc<dyn RandomAccessFile>,
    path: PathBuf,
    state: Arc<Mutex<State>>,
}

impl RandomAccessFile for FaultRandom {
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        self.state.lock().check(FaultOp::Read, &self.path)?;
        self.inner.read_at(offset, len)
    }

    fn size(&self) -> u64 {
        self.inner.size()
    }

    fn advise_random(&self) {
        self.state.lock().random_advices.push(self.path.clone());
        self.inner.advise_random();
    }

    fn prefetch(&self, offset: u64, len: usize) -> bool {
        self.inner.prefetch(offset, len)
    }

    fn mapped(&self) -> Option<&[u8]> {
        self.inner.mapped()
    }
}
