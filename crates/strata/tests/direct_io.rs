//! `use_direct_reads` and `use_direct_io_for_flush_and_compaction`: a DB
//! works with them on a file system with O_DIRECT, and open refuses them
//! with an error naming the option where O_DIRECT is refused (tmpfs).

use std::path::Path;
use std::sync::Arc;

use strata::fs::{FileLock, FileSystem, RandomAccessFile, WritableFile};
use strata::{Db, Options};

fn direct_opts() -> Options {
    Options {
        write_buffer_size: 64 << 10,
        level0_file_num_compaction_trigger: 2,
        max_bytes_for_level_base: 256 << 10,
        target_file_size_base: 64 << 10,
        use_direct_reads: true,
        use_direct_io_for_flush_and_compaction: true,
        ..Options::default()
    }
}

#[test]
fn direct_io_round_trip_on_a_disk_file_system() {
    let dir = tempfile::tempdir().unwrap();
    let db = match Db::open(dir.path(), direct_opts()) {
        Ok(db) => db,
        Err(strata::Error::NotSupported(m)) => {
            eprintln!("skipped: the test directory's file system refuses O_DIRECT: {m}");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    for i in 0..5000u32 {
        db.put(format!("k{i:06}").as_bytes(), &[b'v'; 100]).unwrap();
    }
    db.compact_range(None, None).unwrap();
    for i in (0..5000u32).step_by(7) {
        assert_eq!(
            db.get(format!("k{i:06}").as_bytes()).unwrap().unwrap(),
            vec![b'v'; 100]
        );
    }
    assert_eq!(db.iter().count(), 5000);
}

/// A file system without O_DIRECT: forwards everything but keeps the
/// trait's default `create_opt`/`open_random_opt`, which refuse `direct`.
#[derive(Debug)]
struct NoDirectFs(Arc<dyn FileSystem>);

impl FileSystem for NoDirectFs {
    fn create(&self, p: &Path) -> strata::Result<Box<dyn WritableFile>> {
        self.0.create(p)
    }
    fn reopen_for_append(&self, p: &Path) -> strata::Result<Box<dyn WritableFile>> {
        self.0.reopen_for_append(p)
    }
    fn open_random(&self, p: &Path) -> strata::Result<Arc<dyn RandomAccessFile>> {
        self.0.open_random(p)
    }
    fn read_all(&self, p: &Path) -> strata::Result<Vec<u8>> {
        self.0.read_all(p)
    }
    fn rename(&self, a: &Path, b: &Path) -> strata::Result<()> {
        self.0.rename(a, b)
    }
    fn remove(&self, p: &Path) -> strata::Result<()> {
        self.0.remove(p)
    }
    fn exists(&self, p: &Path) -> bool {
        self.0.exists(p)
    }
    fn list(&self, p: &Path) -> strata::Result<Vec<String>> {
        self.0.list(p)
    }
    fn create_dir_all(&self, p: &Path) -> strata::Result<()> {
        self.0.create_dir_all(p)
    }
    fn sync_dir(&self, p: &Path) -> strata::Result<()> {
        self.0.sync_dir(p)
    }
    fn file_size(&self, p: &Path) -> strata::Result<u64> {
        self.0.file_size(p)
    }
    fn lock(&self, p: &Path) -> strata::Result<Box<dyn FileLock>> {
        self.0.lock(p)
    }
}

#[test]
fn direct_io_without_o_direct_is_refused_at_open_naming_the_option() {
    let dir = tempfile::tempdir().unwrap();
    let opts = Options {
        fs: Arc::new(NoDirectFs(strata::fs::default_fs())),
        ..direct_opts()
    };
    let e = Db::open(dir.path(), opts).unwrap_err();
    assert!(matches!(e, strata::Error::NotSupported(_)), "{e}");
    assert!(e.to_string().contains("use_direct"), "{e}");
}

#[test]
fn direct_io_on_tmpfs_either_works_or_is_refused_naming_the_option() {
    // Linux refused O_DIRECT on tmpfs before 6.6 and accepts it since.
    let shm = Path::new("/dev/shm");
    if !shm.is_dir() {
        eprintln!("skipped: no /dev/shm");
        return;
    }
    let dir = tempfile::tempdir_in(shm).unwrap();
    match Db::open(dir.path(), direct_opts()) {
        Ok(db) => {
            db.put(b"k", b"v").unwrap();
            db.flush().unwrap();
            assert_eq!(db.get(b"k").unwrap().unwrap(), b"v");
        }
        Err(e) => {
            assert!(matches!(e, strata::Error::NotSupported(_)), "{e}");
            assert!(e.to_string().contains("use_direct"), "{e}");
        }
    }
}
