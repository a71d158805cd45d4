//! [`KillFs`]: simulates killing the process at the N-th file mutation.
//!
//! It wraps a [`FaultInjectionFs`] and counts mutating operations (create,
//! append, flush, sync, rename, remove, directory sync). Once the budget is
//! spent it deactivates the fault file system, so that every later mutation
//! fails and nothing more reaches the disk: the state is frozen as if the
//! process had died at that moment. A later `crash()` on the fault file
//! system then drops what was not durable.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use strata::fs::fault::FaultInjectionFs;
use strata::fs::{FileLock, FileSystem, RandomAccessFile, WritableFile};
use strata::Result;

#[derive(Debug)]
struct Counter {
    fs: FaultInjectionFs,
    done: AtomicU64,
    budget: AtomicU64,
}

impl Counter {
    /// Counts one mutation; deactivates the file system when over budget.
    fn tick(&self) {
        let n = self.done.fetch_add(1, Ordering::SeqCst) + 1;
        if n > self.budget.load(Ordering::SeqCst) {
            self.fs.set_active(false);
        }
    }
}

/// A file system that "kills" itself after a budget of mutations.
#[derive(Debug, Clone)]
pub struct KillFs {
    c: Arc<Counter>,
}

impl KillFs {
    /// Wraps `fs` with an unlimited budget.
    pub fn new(fs: FaultInjectionFs) -> Self {
        KillFs {
            c: Arc::new(Counter {
                fs,
                done: AtomicU64::new(0),
                budget: AtomicU64::new(u64::MAX),
            }),
        }
    }

    /// Lets `n` more mutations through, then freezes the disk.
    pub fn kill_after(&self, n: u64) {
        let done = self.c.done.load(Ordering::SeqCst);
        self.c.budget.store(done + n, Ordering::SeqCst);
    }

    /// Removes the budget (the caller reactivates the fault file system).
    pub fn disarm(&self) {
        self.c.budget.store(u64::MAX, Ordering::SeqCst);
    }

    /// Mutations counted so far.
    pub fn mutations(&self) -> u64 {
        self.c.done.load(Ordering::SeqCst)
    }

    /// True once the budget has been exceeded.
    pub fn killed(&self) -> bool {
        self.c.done.load(Ordering::SeqCst) > self.c.budget.load(Ordering::SeqCst)
    }
}

struct KillWritable {
    inner: Box<dyn WritableFile>,
    c: Arc<Counter>,
}

impl WritableFile for KillWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        self.c.tick();
        self.inner.append(data)
    }
    fn flush(&mut self) -> Result<()> {
        self.c.tick();
        self.inner.flush()
    }
    fn sync(&mut self) -> Result<()> {
        self.c.tick();
        self.inner.sync()
    }
    fn size(&self) -> u64 {
        self.inner.size()
    }
}

impl FileSystem for KillFs {
    fn create(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        self.c.tick();
        let inner = self.c.fs.create(path)?;
        Ok(Box::new(KillWritable {
            inner,
            c: self.c.clone(),
        }))
    }
    fn reopen_for_append(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        self.c.tick();
        let inner = self.c.fs.reopen_for_append(path)?;
        Ok(Box::new(KillWritable {
            inner,
            c: self.c.clone(),
        }))
    }
    fn open_random(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        self.c.fs.open_random(path)
    }
    fn open_random_mapped(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        self.c.fs.open_random_mapped(path)
    }
    fn read_all(&self, path: &Path) -> Result<Vec<u8>> {
        self.c.fs.read_all(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        self.c.tick();
        self.c.fs.rename(from, to)
    }
    fn remove(&self, path: &Path) -> Result<()> {
        self.c.tick();
        self.c.fs.remove(path)
    }
    fn exists(&self, path: &Path) -> bool {
        self.c.fs.exists(path)
    }
    fn list(&self, dir: &Path) -> Result<Vec<String>> {
        self.c.fs.list(dir)
    }
    fn create_dir_all(&self, dir: &Path) -> Result<()> {
        self.c.fs.create_dir_all(dir)
    }
    fn sync_dir(&self, dir: &Path) -> Result<()> {
        self.c.tick();
        self.c.fs.sync_dir(dir)
    }
    fn file_size(&self, path: &Path) -> Result<u64> {
        self.c.fs.file_size(path)
    }
    fn lock(&self, path: &Path) -> Result<Box<dyn FileLock>> {
        self.c.fs.lock(path)
    }
}
