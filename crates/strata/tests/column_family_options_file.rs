//! Creating or dropping a column family writes a new OPTIONS file through a
//! temporary `NNNNNN.dbtmp` file, renamed when complete. A flush or
//! compaction that finishes meanwhile scans the directory for obsolete
//! files; the temporary file is not one of them. These tests hold the
//! rename at a gate, flush meanwhile, and expect the create or drop to
//! succeed.

use std::path::Path;
use std::sync::Arc;

use parking_lot::{Condvar, Mutex};
use strata::fs::{FileLock, FileSystem, PosixFileSystem, RandomAccessFile, WritableFile};
use strata::{Db, Result};
use strata_testkit::{eventually, small_opts, tempdir};

/// The POSIX file system, with a gate that holds the rename of a temporary
/// file to an OPTIONS file while closed.
#[derive(Debug, Default)]
struct OptionsRenameGate {
    /// (closed, renames waiting).
    state: Mutex<(bool, usize)>,
    cv: Condvar,
}

impl OptionsRenameGate {
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
}

impl FileSystem for OptionsRenameGate {
    fn create(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        PosixFileSystem.create(path)
    }
    fn reopen_for_append(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        PosixFileSystem.reopen_for_append(path)
    }
    fn open_random(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        PosixFileSystem.open_random(path)
    }
    fn read_all(&self, path: &Path) -> Result<Vec<u8>> {
        PosixFileSystem.read_all(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        let to_options = to
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with("OPTIONS-"));
        if to_options {
            let mut g = self.state.lock();
            if g.0 {
                g.1 += 1;
                while g.0 {
                    self.cv.wait(&mut g);
                }
                g.1 -= 1;
            }
        }
        PosixFileSystem.rename(from, to)
    }
    fn remove(&self, path: &Path) -> Result<()> {
        PosixFileSystem.remove(path)
    }
    fn exists(&self, path: &Path) -> bool {
        PosixFileSystem.exists(path)
    }
    fn list(&self, dir: &Path) -> Result<Vec<String>> {
        PosixFileSystem.list(dir)
    }
    fn create_dir_all(&self, dir: &Path) -> Result<()> {
        PosixFileSystem.create_dir_all(dir)
    }
    fn sync_dir(&self, dir: &Path) -> Result<()> {
        PosixFileSystem.sync_dir(dir)
    }
    fn file_size(&self, path: &Path) -> Result<u64> {
        PosixFileSystem.file_size(path)
    }
    fn lock(&self, path: &Path) -> Result<Box<dyn FileLock>> {
        PosixFileSystem.lock(path)
    }
}

/// Runs `change` (a create or drop) on another thread with the OPTIONS
/// rename held, flushes "default" meanwhile (its job removes the files it
/// finds obsolete), then lets the rename go; returns what `change`
/// returned.
fn change_during_a_flush(
    db: &Arc<Db>,
    gate: &Arc<OptionsRenameGate>,
    change: impl FnOnce(&Db) -> Result<()> + Send + 'static,
) -> Result<()> {
    db.put(b"k", b"v").unwrap();
    gate.close();
    let t = {
        let db = db.clone();
        std::thread::spawn(move || change(&db))
    };
    assert!(
        eventually(|| gate.waiting() == 1),
        "the OPTIONS rename never came"
    );
    db.flush().unwrap();
    gate.open();
    t.join().unwrap()
}

#[test]
fn a_flush_during_create_column_family_leaves_its_options_file_alone() {
    let dir = tempdir();
    let gate = Arc::new(OptionsRenameGate::default());
    let fs: Arc<dyn FileSystem> = gate.clone();
    let db = Arc::new(Db::open(dir.path(), small_opts(fs.clone())).unwrap());
    let opts = small_opts(fs.clone());
    let r = change_during_a_flush(&db, &gate, move |db| {
        db.create_column_family("fresh", opts).map(|_| ())
    });
    // The family exists either way: the MANIFEST edit was written before
    // the OPTIONS file.
    let exists = db.column_family("fresh").is_some();
    assert!(
        r.is_ok(),
        "create_column_family failed (the family exists: {exists}): {}",
        r.unwrap_err()
    );
}

#[test]
fn a_flush_during_drop_column_family_leaves_its_options_file_alone() {
    let dir = tempdir();
    let gate = Arc::new(OptionsRenameGate::default());
    let fs: Arc<dyn FileSystem> = gate.clone();
    let db = Arc::new(Db::open(dir.path(), small_opts(fs.clone())).unwrap());
    let victim = db
        .create_column_family("victim", small_opts(fs.clone()))
        .unwrap();
    let r = change_during_a_flush(&db, &gate, move |db| db.drop_column_family(&victim));
    let dropped = db.column_family("victim").is_none();
    assert!(
        r.is_ok(),
        "drop_column_family failed (the family is dropped: {dropped}): {}",
        r.unwrap_err()
    );
}
