//! `use_direct_reads` and `use_direct_io_for_flush_and_compaction`: a DB
//! works with them on a file system with O_DIRECT, and open refuses them
//! with an error naming the option where O_DIRECT is refused (tmpfs).

use std::path::Path;
use std::sync::Arc;

use strata::fs::{FileLock, FileSystem, RandomAccessFile, WritableFile};
use strata::{Db, Options};
use strata_testkit::{disk_tempdir, shm_tempdir, tempdir};

fn direct_opts() -> Options {
    Options::default()
        .write_buffer_size(64 << 10)
        .level0_file_num_compaction_trigger(2)
        .max_bytes_for_level_base(256 << 10)
        .target_file_size_base(64 << 10)
        .use_direct_reads(true)
        .use_direct_io_for_flush_and_compaction(true)
}

#[test]
fn direct_io_round_trip_on_a_disk_file_system() {
    let dir = disk_tempdir();
    let db = match Db::open(dir.path(), direct_opts()) {
        Ok(db) => db,
        Err(strata::Error::NotSupported(m)) => {
            eprintln!("skipped: the test directory's file system refuses O_DIRECT: {m}");
            return;
        }
        Err(e) => panic!("{e}"),
    };
    for i in 0..5000u32 {
        db.put(format!("k{i:06}").as_bytes(), [b'v'; 100]).unwrap();
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

/// Compaction reads its inputs through read-ahead windows
/// (`compaction_readahead_size`); windows that end mid-block, and the 2 MiB
/// that 0 means under direct reads, must give back every key with its own
/// value, buffered or direct.
#[test]
fn compaction_readahead_windows_of_any_size_keep_the_data() {
    for (direct, readahead) in [(false, 12_345), (false, 2 << 20), (true, 0), (true, 12_345)] {
        let dir = disk_tempdir();
        let o = direct_opts()
            .use_direct_reads(direct)
            .use_direct_io_for_flush_and_compaction(direct)
            .compaction_readahead_size(readahead);
        let db = match Db::open(dir.path(), o) {
            Ok(db) => db,
            Err(strata::Error::NotSupported(_)) if direct => continue,
            Err(e) => panic!("{e}"),
        };
        let value = |i: u32| format!("value-{i}-{}", "x".repeat((i % 200) as usize));
        for i in 0..6000u32 {
            let k = (i * 7919) % 6000;
            db.put(format!("k{k:06}").as_bytes(), value(k).as_bytes())
                .unwrap();
        }
        db.compact_range(None, None).unwrap();
        let all: Vec<_> = db.iter().map(|r| r.unwrap()).collect();
        assert_eq!(all.len(), 6000, "direct {direct}, readahead {readahead}");
        for (i, (k, v)) in all.iter().enumerate() {
            assert_eq!(k, format!("k{i:06}").as_bytes());
            assert_eq!(v, value(i as u32).as_bytes());
        }
    }
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
    let dir = tempdir();
    let opts = direct_opts().fs(Arc::new(NoDirectFs(strata::fs::default_fs())));
    let e = Db::open(dir.path(), opts).unwrap_err();
    assert!(matches!(e, strata::Error::NotSupported(_)), "{e}");
    assert!(e.to_string().contains("use_direct"), "{e}");
}

#[test]
fn direct_io_on_tmpfs_either_works_or_is_refused_naming_the_option() {
    // Linux refused O_DIRECT on tmpfs before 6.6 and accepts it since.
    let Some(dir) = shm_tempdir() else {
        eprintln!("skipped: no /dev/shm");
        return;
    };
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
