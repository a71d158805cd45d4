//! `advise_random_on_open`: every table opened for reads is advised random
//! access (RocksDB's default), unless the option is off. Without it,
//! compactions that read block by block (`compaction_readahead_size` 0)
//! got the OS's read-ahead that RocksDB's do not, ran faster, and merged
//! smaller L0 batches than RocksDB under the same flags (study 5,
//! docs/benchmarks.md).

use strata_testkit as common;

use std::sync::Arc;

use strata::fs::{FileSystem, PosixFileSystem};
use strata::{Db, Options};
use strata_testkit::fault::FaultInjectionFs;

/// A DB on a fault-injecting FS with `advise_random_on_open` set to
/// `advise` and `more` applied to the small test options; the directory
/// and the FS come back with it.
fn open_on_fault_fs(
    advise: bool,
    more: impl FnOnce(Options) -> Options,
) -> (common::TempDir, FaultInjectionFs, Db) {
    let dir = common::tempdir();
    let fs = FaultInjectionFs::new(Arc::new(PosixFileSystem));
    let shared: Arc<dyn FileSystem> = Arc::new(fs.clone());
    let opts = more(common::small_opts(shared).advise_random_on_open(advise));
    let db = Db::open(dir.path(), opts).unwrap();
    (dir, fs, db)
}

/// Opens a DB on a fault-injecting FS, writes and flushes two tables, reads
/// a key from each; returns how many opened tables were advised random.
fn advices(advise: bool) -> u64 {
    let (_dir, fs, db) = open_on_fault_fs(advise, |o| o);
    for round in 0..2 {
        for i in 0..100 {
            db.put(format!("k{round}-{i:04}").as_bytes(), b"v").unwrap();
        }
        db.flush().unwrap();
    }
    assert_eq!(db.get(b"k0-0001").unwrap().as_deref(), Some(&b"v"[..]));
    assert_eq!(db.get(b"k1-0001").unwrap().as_deref(), Some(&b"v"[..]));
    fs.random_advices()
}

#[test]
fn tables_are_advised_random_by_default_and_not_when_turned_off() {
    assert!(advices(true) >= 2, "each opened table is advised");
    assert_eq!(advices(false), 0);
}

#[test]
fn the_option_round_trips_by_name() {
    let mut o = Options::default();
    assert!(o.advise_random_on_open);
    o.set("advise_random_on_open", "false").unwrap();
    assert!(!o.advise_random_on_open);
    assert!(o
        .to_pairs()
        .iter()
        .any(|(k, v)| *k == "advise_random_on_open" && v == "false"));
}

/// Opens a DB with blob files on a fault-injecting FS, writes a value big
/// enough to be separated, flushes and reads it back; returns whether the
/// blob file was advised random when opened for the read.
fn blob_file_advised(advise: bool) -> bool {
    let (_dir, fs, db) = open_on_fault_fs(advise, |o| o.enable_blob_files(true).min_blob_size(64));
    let value = vec![b'x'; 1000];
    db.put(b"big", &value).unwrap();
    db.flush().unwrap();
    assert_eq!(db.get(b"big").unwrap().as_deref(), Some(&value[..]));
    fs.randomly_advised_files()
        .iter()
        .any(|p| p.extension().is_some_and(|e| e == "blob"))
}

/// Regression: blob files were opened without the hint RocksDB's blob
/// file reader gives them, so each blob read got the kernel's read-ahead.
#[test]
fn blob_files_are_advised_random_too() {
    assert!(blob_file_advised(true));
    assert!(!blob_file_advised(false));
}
