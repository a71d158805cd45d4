//! Creating or dropping a column family writes a new OPTIONS file through a
//! temporary `NNNNNN.dbtmp` file, renamed when complete. A flush or
//! compaction that finishes meanwhile scans the directory for obsolete
//! files; the temporary file is not one of them. These tests hold the
//! rename at a gate, flush meanwhile, and expect the create or drop to
//! succeed.

use std::sync::Arc;

use strata::fs::FileSystem;
use strata::{Db, Result};
use strata_testkit::fault::FaultInjectionFs;
use strata_testkit::{eventually, fault_fs, small_opts, tempdir};

/// Runs `change` (a create or drop) on another thread with the OPTIONS
/// rename held, flushes "default" meanwhile (its job removes the files it
/// finds obsolete), then lets the rename go; returns what `change`
/// returned.
fn change_during_a_flush(
    db: &Arc<Db>,
    fs: &FaultInjectionFs,
    change: impl FnOnce(&Db) -> Result<()> + Send + 'static,
) -> Result<()> {
    db.put(b"k", b"v").unwrap();
    fs.hold_options_renames();
    let t = {
        let db = db.clone();
        std::thread::spawn(move || change(&db))
    };
    assert!(
        eventually(|| fs.options_renames_held() == 1),
        "the OPTIONS rename never came"
    );
    db.flush().unwrap();
    fs.release_options_renames();
    t.join().unwrap()
}

#[test]
fn a_flush_during_create_column_family_leaves_its_options_file_alone() {
    let dir = tempdir();
    let gate = fault_fs();
    let fs: Arc<dyn FileSystem> = Arc::new(gate.clone());
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
    let gate = fault_fs();
    let fs: Arc<dyn FileSystem> = Arc::new(gate.clone());
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
