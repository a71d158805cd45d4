//! `Db::close`, `Db::sync_wal` and `Db::flush_wal` through the
//! fault-injecting file system: what each makes durable against a
//! simulated power loss (`FaultInjectionFs::crash`, which drops every
//! unsynced byte), with a control showing the loss without the call; and
//! that their failures reach the caller instead of being dropped.

use std::sync::Arc;

use strata::stats::Ticker;
use strata::{Db, Error, Options, WriteOptions};
use strata_testkit::fault::{FaultInjectionFs, FaultOp};
use strata_testkit::{fault_fs, small_opts, tempdir};

fn opts(fs: &FaultInjectionFs) -> Options {
    small_opts(Arc::new(fs.clone())).statistics(true)
}

/// Keys `k000`.. with short values: a few hundred bytes, no memtable switch.
fn write_some(db: &Db, n: u32) {
    for i in 0..n {
        db.put(format!("k{i:03}"), format!("v{i}")).unwrap();
    }
}

/// How many of `k000`..`k{n}` survived.
fn survivors(db: &Db, n: u32) -> u32 {
    (0..n)
        .filter(|i| db.get(format!("k{i:03}")).unwrap().is_some())
        .count() as u32
}

/// Simulates a power loss after `db` is gone: the disk refuses writes while
/// it closes, then unsynced data is dropped.
fn power_loss(fs: &FaultInjectionFs, db: Db) {
    fs.set_active(false);
    drop(db);
    fs.crash().unwrap();
    fs.set_active(true);
}

#[test]
fn close_syncs_the_wal_and_drop_does_not() {
    let dir = tempdir();
    let fs = fault_fs();
    // Control: dropped, the writes are only in the OS, and a power loss
    // takes them.
    let db = Db::open(dir.path(), opts(&fs)).unwrap();
    write_some(&db, 50);
    drop(db);
    fs.crash().unwrap();
    let db = Db::open(dir.path(), opts(&fs)).unwrap();
    assert_eq!(survivors(&db, 50), 0, "an unsynced WAL was kept");
    // Closed, they are durable.
    write_some(&db, 50);
    db.close().unwrap();
    fs.crash().unwrap();
    let db = Db::open(dir.path(), opts(&fs)).unwrap();
    assert_eq!(survivors(&db, 50), 50);
    // And a plain close, then reopen, holds everything too.
    db.put(b"last", b"1").unwrap();
    db.close().unwrap();
    let db = Db::open(dir.path(), opts(&fs)).unwrap();
    assert_eq!(db.get(b"last").unwrap().as_deref(), Some(&b"1"[..]));
    assert_eq!(survivors(&db, 50), 50);
}

#[test]
fn close_reports_a_failed_wal_sync() {
    let dir = tempdir();
    let fs = fault_fs();
    let db = Db::open(dir.path(), opts(&fs)).unwrap();
    write_some(&db, 20);
    // Nothing runs in the background: the next sync is close's.
    fs.fail_after(FaultOp::Sync, 1, libc::EIO);
    let e = db.close().unwrap_err();
    assert_eq!(fs.injected(FaultOp::Sync), 1);
    assert!(e.is_io(), "{e}");
    assert!(e.to_string().contains(".log"), "names the WAL: {e}");
    fs.clear_faults();
    // Nothing was lost short of a power loss.
    let db = Db::open(dir.path(), opts(&fs)).unwrap();
    assert_eq!(survivors(&db, 20), 20);
}

#[test]
fn close_reports_the_background_error() {
    let dir = tempdir();
    let fs = fault_fs();
    let db = Db::open(dir.path(), opts(&fs)).unwrap();
    write_some(&db, 20);
    // The flush's table sync fails: the background error.
    fs.fail_after(FaultOp::Sync, 1, libc::EIO);
    assert!(db.flush().is_err());
    fs.clear_faults();
    assert!(matches!(db.put(b"x", b"y"), Err(Error::Background(_))));
    let e = db.close().unwrap_err();
    assert!(
        matches!(&e, Error::Background(inner) if inner.is_io()),
        "{e}"
    );
    let db = Db::open(dir.path(), opts(&fs)).unwrap();
    assert_eq!(survivors(&db, 20), 20);
    db.close().unwrap();
}

#[test]
fn close_flushes_writes_made_without_the_wal_and_reports_that_flush() {
    let dir = tempdir();
    let fs = fault_fs();
    let nowal = WriteOptions::default().disable_wal(true);
    let db = Db::open(dir.path(), opts(&fs)).unwrap();
    db.put_opt(&nowal, b"unlogged", b"1").unwrap();
    db.close().unwrap();
    fs.crash().unwrap();
    let db = Db::open(dir.path(), opts(&fs)).unwrap();
    assert_eq!(db.get(b"unlogged").unwrap().as_deref(), Some(&b"1"[..]));
    // The flush at close fails: close says so.
    db.put_opt(&nowal, b"unlogged2", b"2").unwrap();
    fs.fail_after(FaultOp::Create, 1, libc::ENOSPC);
    let e = db.close().unwrap_err();
    assert!(e.is_no_space(), "{e}");
}

#[test]
fn sync_wal_makes_every_earlier_write_durable() {
    let dir = tempdir();
    let fs = fault_fs();
    let db = Db::open(dir.path(), opts(&fs)).unwrap();
    write_some(&db, 50);
    let synced = db.statistics().unwrap().ticker(Ticker::WalFileSynced);
    db.sync_wal().unwrap();
    assert_eq!(
        db.statistics().unwrap().ticker(Ticker::WalFileSynced),
        synced + 1
    );
    // Written after the sync: not covered.
    db.put(b"after", b"x").unwrap();
    power_loss(&fs, db);
    let db = Db::open(dir.path(), opts(&fs)).unwrap();
    assert_eq!(survivors(&db, 50), 50);
    assert_eq!(
        db.get(b"after").unwrap(),
        None,
        "an unsynced write was kept"
    );
    // flush_wal(true) is the same.
    write_some(&db, 50);
    db.delete(b"k000").unwrap();
    db.flush_wal(true).unwrap();
    power_loss(&fs, db);
    let db = Db::open(dir.path(), opts(&fs)).unwrap();
    assert_eq!(survivors(&db, 50), 49);
}

#[test]
fn sync_wal_covers_the_wals_closed_since_the_last_sync() {
    let dir = tempdir();
    let fs = fault_fs();
    // Memtables switch (new WALs) but never flush, so only the WALs hold
    // the writes.
    let o = opts(&fs)
        .min_write_buffer_number_to_merge(10)
        .max_write_buffer_number(12);
    let db = Db::open(dir.path(), o.clone()).unwrap();
    let value = vec![b'v'; 1000];
    for i in 0..200u32 {
        db.put(format!("k{i:03}"), &value).unwrap();
    }
    let wals = strata_testkit::file_names(dir.path())
        .iter()
        .filter(|n| n.ends_with(".log"))
        .count();
    assert!(wals >= 3, "{wals} WALs");
    assert_eq!(
        db.property("rocksdb.num-files-at-level0").as_deref(),
        Some("0")
    );
    db.sync_wal().unwrap();
    power_loss(&fs, db);
    let db = Db::open(dir.path(), o).unwrap();
    assert_eq!(survivors(&db, 200), 200);
}

#[test]
fn flush_wal_without_sync_leaves_the_writes_to_the_os() {
    let dir = tempdir();
    let fs = fault_fs();
    let db = Db::open(dir.path(), opts(&fs)).unwrap();
    db.put(b"key", b"in-the-os").unwrap();
    db.flush_wal(false).unwrap();
    // The record is in the file for any reader (a crash of the process
    // keeps it) ...
    let wal = strata_testkit::file_names(dir.path())
        .into_iter()
        .find(|n| n.ends_with(".log"))
        .unwrap();
    let bytes = std::fs::read(dir.path().join(wal)).unwrap();
    assert!(bytes.windows(9).any(|w| w == b"in-the-os"));
    // ... but not synced: a power loss drops it.
    power_loss(&fs, db);
    let db = Db::open(dir.path(), opts(&fs)).unwrap();
    assert_eq!(db.get(b"key").unwrap(), None);
}

#[test]
fn a_failed_wal_sync_is_the_background_error() {
    let dir = tempdir();
    let fs = fault_fs();
    let db = Db::open(dir.path(), opts(&fs)).unwrap();
    write_some(&db, 10);
    fs.fail_after(FaultOp::Sync, 1, libc::EIO);
    let e = db.sync_wal().unwrap_err();
    assert!(e.is_io(), "{e}");
    fs.clear_faults();
    // The WAL's state on disk is unknown: writes stop until reopen.
    assert!(matches!(db.put(b"x", b"y"), Err(Error::Background(_))));
    assert!(matches!(db.flush_wal(false), Err(Error::Background(_))));
    assert!(matches!(db.sync_wal(), Err(Error::Background(_))));
    assert!(matches!(db.close(), Err(Error::Background(_))));
    let db = Db::open(dir.path(), opts(&fs)).unwrap();
    assert_eq!(survivors(&db, 10), 10);
    db.put(b"x", b"y").unwrap();
}
