//! `bytes_per_sync` and `wal_bytes_per_sync`: table, blob and WAL files ask
//! the OS to write back as they grow (counted by the fault-injecting file
//! system's `RangeSync` operations), only where asked; RocksDB's 1 MiB
//! default under a rate limiter; a failing range sync is an I/O error like
//! any other.

use strata_testkit as common;

use std::sync::Arc;

use strata::{Db, Error, Options};
use strata_testkit::fault::{FaultInjectionFs, FaultOp};

fn opts(fs: &FaultInjectionFs) -> Options {
    Options::default()
        // One memtable holds the whole test's writes.
        .write_buffer_size(64 << 20)
        .compression(strata::CompressionType::None)
        .fs(Arc::new(fs.clone()))
}

/// A DB on a fault-injecting file system with `opts` changed by `set`.
fn open_with(set: impl FnOnce(&mut Options)) -> (common::TempDir, FaultInjectionFs, Db) {
    let dir = common::tempdir();
    let fs = common::fault_fs();
    let mut o = opts(&fs);
    set(&mut o);
    let db = Db::open(dir.path(), o).unwrap();
    (dir, fs, db)
}

/// Writes 4,000 values of 1,000 bytes (3.8 MiB).
fn fill(db: &Db) {
    let value = vec![b'v'; 1000];
    for i in 0..4_000u32 {
        db.put(format!("key{i:06}").as_bytes(), &value).unwrap();
    }
}

#[test]
fn the_wal_is_range_synced_as_it_grows_and_tables_when_flushed() {
    let (_dir, fs, db) = open_with(|o| o.wal_bytes_per_sync = 256 << 10);
    fill(&db);
    // About 2.9 MiB of WAL beyond the unsynced newest 1 MiB: 11 ranges of
    // 256 KiB (give or take one, with record headers).
    let wal_ranges = fs.operations(FaultOp::RangeSync);
    assert!((10..=14).contains(&wal_ranges), "{wal_ranges}");
    // The table is not asked to (bytes_per_sync = 0).
    db.flush().unwrap();
    assert_eq!(fs.operations(FaultOp::RangeSync), wal_ranges);
    drop(db);

    let (_dir, fs, db) = open_with(|o| o.bytes_per_sync = 256 << 10);
    fill(&db);
    assert_eq!(
        fs.operations(FaultOp::RangeSync),
        0,
        "the WAL was not asked to"
    );
    db.flush().unwrap();
    let table_ranges = fs.operations(FaultOp::RangeSync);
    assert!((10..=14).contains(&table_ranges), "{table_ranges}");
}

#[test]
fn a_rate_limiter_makes_bytes_per_sync_a_mebibyte() {
    for (rate, expect_some) in [(0, false), (1 << 30, true)] {
        let (_dir, fs, db) = open_with(|o| {
            o.rate_limiter_bytes_per_sec = rate;
            let expect = if rate > 0 { 1 << 20 } else { 0 };
            assert_eq!(o.effective_bytes_per_sync(), expect);
        });
        fill(&db);
        db.flush().unwrap();
        // A 3.8 MiB table, less its newest 1 MiB: 2 ranges of 1 MiB with
        // the limiter, none without.
        let n = fs.operations(FaultOp::RangeSync);
        if expect_some {
            assert_eq!(n, 2, "rate {rate}");
        } else {
            assert_eq!(n, 0, "rate {rate}");
        }
    }
}

#[test]
fn a_failing_range_sync_fails_the_flush_and_stops_writes() {
    let (_dir, fs, db) = open_with(|o| o.bytes_per_sync = 256 << 10);
    fill(&db);
    fs.fail_from(FaultOp::RangeSync, 1, libc::EIO);
    assert!(db.flush().is_err(), "the flush's range sync failed");
    let e = db.put(b"after", b"x").unwrap_err();
    assert!(matches!(e, Error::Background(_)), "{e}");
    // Reads still see the acknowledged writes.
    assert!(db.get(b"key000000").unwrap().is_some());
}
