//! Tickers recorded by the DB: each test opens a DB with statistics, does
//! one kind of operation and checks the exact (or a bounded) count, so a
//! ticker that stops being recorded fails here instead of printing 0 in the
//! `STATISTICS:` dump where RocksDB prints a real count.

use strata_testkit as common;

use std::path::Path;
use std::sync::Arc;

use strata::fs::FileSystem;
use strata::stats::{Histogram, Statistics, Ticker};
use strata::{Db, Options};
use strata_testkit::fault::FaultOp;

fn opts() -> Options {
    Options::default()
        .statistics(true)
        .compression(strata::CompressionType::None)
}

fn stats(db: &Db) -> Arc<Statistics> {
    db.statistics().expect("opened with statistics")
}

#[test]
fn iterator_tickers() {
    let dir = common::tempdir();
    let db = Db::open(dir.path(), opts()).unwrap();
    db.put(b"a", b"1").unwrap();
    db.put(b"b", b"2").unwrap();
    db.put(b"c", b"3").unwrap();
    db.put(b"a", b"4").unwrap();
    db.delete(b"b").unwrap();
    let s = stats(&db);
    let it = db.iter();
    assert_eq!(s.ticker(Ticker::NoIteratorCreated), 1);
    assert_eq!(s.ticker(Ticker::NoIteratorDeleted), 0);
    let keys: Vec<Vec<u8>> = it.map(|r| r.unwrap().0).collect();
    assert_eq!(keys, [b"a".to_vec(), b"c".to_vec()]);
    // The iterator is dropped: its step counters are in.
    assert_eq!(s.ticker(Ticker::NoIteratorDeleted), 1);
    assert_eq!(s.ticker(Ticker::NumberDbSeek), 1);
    assert_eq!(s.ticker(Ticker::NumberDbSeekFound), 1);
    assert_eq!(s.ticker(Ticker::NumberDbNext), 2);
    assert_eq!(s.ticker(Ticker::NumberDbNextFound), 1);
    // a=4 and c=3, the first through the seek.
    assert_eq!(s.ticker(Ticker::IterBytesRead), 4);
    // Passed over: a=1 (older), b's deletion and b=2 under it.
    assert_eq!(s.ticker(Ticker::NumberIterSkip), 3);

    let mut it = db.iter();
    it.seek_to_last();
    it.retreat();
    it.retreat();
    assert!(!it.valid());
    drop(it);
    assert_eq!(s.ticker(Ticker::NoIteratorCreated), 2);
    assert_eq!(s.ticker(Ticker::NoIteratorDeleted), 2);
    assert_eq!(s.ticker(Ticker::NumberDbPrev), 2);
    assert_eq!(s.ticker(Ticker::NumberDbPrevFound), 1);
    assert_eq!(s.ticker(Ticker::NumberIterSkip), 6);
}

#[test]
fn super_version_tickers() {
    let dir = common::tempdir();
    let db = Db::open(dir.path(), opts()).unwrap();
    db.put(b"k", b"v").unwrap();
    let s = stats(&db);
    let t = |x| s.ticker(x);
    let (a0, r0) = (
        t(Ticker::NumberSuperversionAcquires),
        t(Ticker::NumberSuperversionReleases),
    );
    for _ in 0..5 {
        assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
    }
    assert_eq!(t(Ticker::NumberSuperversionAcquires), a0 + 5);
    assert_eq!(t(Ticker::NumberSuperversionReleases), r0 + 5);
    assert_eq!(t(Ticker::NumberSuperversionCleanups), 0);

    // An iterator keeps its super version; a flush replaces the current
    // one, so dropping the iterator frees the old one.
    let it = db.iter();
    assert_eq!(t(Ticker::NumberSuperversionAcquires), a0 + 6);
    db.flush().unwrap();
    assert_eq!(t(Ticker::NumberSuperversionReleases), r0 + 5);
    assert_eq!(t(Ticker::NumberSuperversionCleanups), 0);
    drop(it);
    assert_eq!(t(Ticker::NumberSuperversionReleases), r0 + 6);
    assert_eq!(t(Ticker::NumberSuperversionCleanups), 1);

    // The current super version is the DB's: a reader's release of it
    // frees nothing.
    db.get(b"k").unwrap();
    assert_eq!(t(Ticker::NumberSuperversionCleanups), 1);
}

/// The `.sst` files in `dir`, sorted.
fn table_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sst"))
        .collect();
    v.sort();
    v
}

#[test]
fn table_cache_opens_and_errors() {
    let dir = common::tempdir();
    let db = Db::open(dir.path(), opts()).unwrap();
    db.put(b"a", b"1").unwrap();
    db.flush().unwrap();
    db.put(b"b", b"2").unwrap();
    db.flush().unwrap();
    let s = stats(&db);
    assert_eq!(s.ticker(Ticker::NoFileOpens), 0, "flushes open no table");
    assert_eq!(db.get(b"a").unwrap().as_deref(), Some(&b"1"[..]));
    assert_eq!(s.ticker(Ticker::NoFileOpens), 1);
    assert_eq!(db.get(b"a").unwrap().as_deref(), Some(&b"1"[..]));
    assert_eq!(
        s.ticker(Ticker::NoFileOpens),
        1,
        "a cache hit opens nothing"
    );
    assert_eq!(s.ticker(Ticker::NoFileErrors), 0);

    // b's table, not opened yet: truncate it so the file opens but the
    // table does not (RocksDB counts both), then remove it.
    let files = table_files(dir.path());
    assert_eq!(files.len(), 2);
    let b_table = files.last().unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(b_table)
        .unwrap()
        .set_len(10)
        .unwrap();
    assert!(db.get(b"b").is_err());
    assert_eq!(s.ticker(Ticker::NoFileOpens), 2);
    assert_eq!(s.ticker(Ticker::NoFileErrors), 1);
    std::fs::remove_file(b_table).unwrap();
    assert!(db.get(b"b").is_err());
    assert_eq!(s.ticker(Ticker::NoFileOpens), 2);
    assert_eq!(s.ticker(Ticker::NoFileErrors), 2);
}

#[test]
fn obsolete_files_deleted() {
    let dir = common::tempdir();
    let db = Db::open(dir.path(), opts()).unwrap();
    let s = stats(&db);
    let before = s.ticker(Ticker::FilesDeletedImmediately);
    db.put(b"a", b"1").unwrap();
    db.flush().unwrap();
    // The flushed memtable's WAL.
    assert_eq!(s.ticker(Ticker::FilesDeletedImmediately), before + 1);
    db.put(b"b", b"2").unwrap();
    db.flush().unwrap();
    assert_eq!(s.ticker(Ticker::FilesDeletedImmediately), before + 2);
    assert_eq!(table_files(dir.path()).len(), 2);
    db.compact_range(None, None).unwrap();
    // Both L0 inputs (MANIFEST and OPTIONS files are not counted).
    assert_eq!(table_files(dir.path()).len(), 1);
    assert_eq!(s.ticker(Ticker::FilesDeletedImmediately), before + 4);
}

#[test]
fn background_io_error_is_counted() {
    let dir = common::tempdir();
    let fs = common::fault_fs();
    let o = opts().fs(Arc::new(fs.clone()) as Arc<dyn FileSystem>);
    let db = Db::open(dir.path(), o).unwrap();
    db.put(b"a", b"1").unwrap();
    let s = stats(&db);
    assert_eq!(s.ticker(Ticker::ErrorHandlerBgErrorCount), 0);
    fs.fail_after(FaultOp::Write, 1, libc::EIO);
    assert!(db.put(b"b", b"2").is_err(), "the WAL write failed");
    assert_eq!(s.ticker(Ticker::ErrorHandlerBgErrorCount), 1);
    assert_eq!(s.ticker(Ticker::ErrorHandlerBgIoErrorCount), 1);
    // Later writes fail with the stored error without a new report.
    assert!(db.put(b"c", b"3").is_err());
    assert_eq!(s.ticker(Ticker::ErrorHandlerBgErrorCount), 1);
}

#[test]
fn background_corruption_is_not_an_io_error() {
    let dir = common::tempdir();
    let db = Db::open(dir.path(), opts()).unwrap();
    for round in 0..2u32 {
        for i in 0..100u32 {
            db.put(format!("key{i:04}").as_bytes(), [round as u8; 100])
                .unwrap();
        }
        db.flush().unwrap();
    }
    // Damage the first data block of one table; the compaction reads it.
    let t = &table_files(dir.path())[0];
    let mut bytes = std::fs::read(t).unwrap();
    for b in &mut bytes[20..40] {
        *b ^= 0xff;
    }
    std::fs::write(t, &bytes).unwrap();
    let e = db.compact_range(None, None).unwrap_err();
    assert!(e.is_corruption(), "{e}");
    let s = stats(&db);
    assert_eq!(s.ticker(Ticker::ErrorHandlerBgErrorCount), 1);
    assert_eq!(s.ticker(Ticker::ErrorHandlerBgIoErrorCount), 0);
}

#[test]
fn memtable_payload_and_garbage_at_flush() {
    let dir = common::tempdir();
    let db = Db::open(dir.path(), opts()).unwrap();
    // Entries are internal keys (user key + 8) plus values.
    db.put(b"k", b"v1").unwrap(); // dropped: 9 + 2
    db.put(b"k", b"v2").unwrap(); // dropped: 9 + 2
    db.put(b"k", b"v3").unwrap(); // kept: 9 + 2
    db.put(b"x", b"12345").unwrap(); // dropped: 9 + 5
    db.delete(b"x").unwrap(); // kept: 9 + 0
    let s = stats(&db);
    assert_eq!(s.ticker(Ticker::MemtablePayloadBytesAtFlush), 0);
    db.flush().unwrap();
    assert_eq!(s.ticker(Ticker::MemtablePayloadBytesAtFlush), 33 + 14 + 9);
    assert_eq!(s.ticker(Ticker::MemtableGarbageBytesAtFlush), 22 + 14);

    // A snapshot keeps the version it sees: nothing is garbage.
    db.put(b"s", b"1").unwrap();
    let snap = db.snapshot();
    db.put(b"s", b"2").unwrap();
    db.flush().unwrap();
    drop(snap);
    assert_eq!(
        s.ticker(Ticker::MemtablePayloadBytesAtFlush),
        33 + 14 + 9 + 20
    );
    assert_eq!(s.ticker(Ticker::MemtableGarbageBytesAtFlush), 22 + 14);
}

#[test]
fn compaction_cpu_total_matches_the_histogram() {
    let dir = common::tempdir();
    let db = Db::open(dir.path(), opts()).unwrap();
    for round in 0..2u32 {
        for i in 0..2000u32 {
            db.put(
                format!("key{i:06}").as_bytes(),
                round.to_le_bytes().repeat(25),
            )
            .unwrap();
        }
        db.flush().unwrap();
    }
    db.compact_range(None, None).unwrap();
    let s = stats(&db);
    let h = s.histogram_data(Histogram::CompactionCpuTime);
    assert!(h.count >= 1);
    assert!(h.sum > 0, "a compaction of 4000 entries uses some CPU");
    assert_eq!(s.ticker(Ticker::CompactionCpuTotalTime), h.sum);
}

fn files_at(db: &Db, level: usize) -> u64 {
    db.property(&format!("rocksdb.num-files-at-level{level}"))
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn tombstones_dropped_above_the_bottom_are_optimized_drops() {
    let dir = common::tempdir();
    let o = opts().max_bytes_for_level_base(1024);
    let db = Db::open(dir.path(), o).unwrap();
    for i in 0..20u32 {
        db.put(format!("k{i:03}").as_bytes(), [b'v'; 200]).unwrap();
    }
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    // L1 is over its 1 KiB target: the data moves on to L2.
    db.wait_for_compaction().unwrap();
    assert!(
        files_at(&db, 2) > 0,
        "{:?}",
        db.property("rocksdb.levelstats")
    );
    assert_eq!(files_at(&db, 1), 0);
    let s = stats(&db);
    assert_eq!(s.ticker(Ticker::CompactionOptimizedDelDropObsolete), 0);

    // A tombstone for "a", which no deeper file can hold, in an L0 -> L1
    // compaction whose range [a, k005] reaches L2: dropped early.
    db.delete(b"a").unwrap();
    db.put(b"k005", b"new").unwrap();
    db.flush().unwrap();
    let obsolete = s.ticker(Ticker::CompactionKeyDropObsolete);
    db.compact_range(None, None).unwrap();
    assert_eq!(s.ticker(Ticker::CompactionOptimizedDelDropObsolete), 1);
    assert_eq!(s.ticker(Ticker::CompactionKeyDropObsolete), obsolete + 1);
    assert_eq!(db.get(b"k005").unwrap().as_deref(), Some(&b"new"[..]));
}

#[test]
fn tombstones_dropped_at_the_bottom_are_not_optimized_drops() {
    let dir = common::tempdir();
    let db = Db::open(dir.path(), opts()).unwrap();
    db.put(b"b", b"1").unwrap();
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    db.delete(b"b").unwrap();
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    let s = stats(&db);
    // At the bottom the tombstone is obsolete and the value under it is
    // shadowed by it: RocksDB counts one key.drop.obsolete and one
    // key.drop.new (Strata counted both as obsolete).
    assert_eq!(s.ticker(Ticker::CompactionKeyDropObsolete), 1);
    assert_eq!(s.ticker(Ticker::CompactionKeyDropNewerEntry), 1);
    assert_eq!(s.ticker(Ticker::CompactionOptimizedDelDropObsolete), 0);
    assert_eq!(db.get(b"b").unwrap(), None);
}

/// Regression: the flush that recovery makes of a replayed WAL recorded no
/// wall time, so `rocksdb.stats` left out its L0 row and, with it, its
/// bytes from the Sum row (a reopened blob DB showed a Sum W-Amp of 0.2
/// where RocksDB shows 1.0), and its table bytes were missing from
/// `rocksdb.compact.write.bytes`, where RocksDB counts them.
#[test]
fn recovery_flush_is_an_l0_job_in_stats_and_tickers() {
    let dir = common::tempdir();
    {
        let db = Db::open(dir.path(), opts()).unwrap();
        for i in 0..500u32 {
            db.put(format!("key{i:05}").as_bytes(), [7u8; 100]).unwrap();
        }
        // Closed with the writes only in the WAL.
        assert_eq!(files_at(&db, 0), 0);
    }
    let db = Db::open(dir.path(), opts()).unwrap();
    assert_eq!(files_at(&db, 0), 1, "recovery flushed the replayed WAL");
    let table: u64 = db
        .property("rocksdb.total-sst-files-size")
        .unwrap()
        .parse()
        .unwrap();
    assert!(table > 50_000);
    assert_eq!(stats(&db).ticker(Ticker::CompactWriteBytes), table);
    let text = db.property("rocksdb.stats").unwrap();
    let row = |name: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no {name} row in:\n{text}"))
            .split_whitespace()
            .collect::<Vec<_>>()
    };
    let l0 = row("L0 ");
    let sum = row("Sum ");
    // Level Files Size(2 words) Score Read Rn Rnp1 Write Wnew Moved W-Amp
    // ... Comp(cnt) is the 16th column.
    assert_eq!(l0[1], "1/0");
    assert_eq!(
        sum[11], "1.0",
        "Sum W-Amp: flushed bytes over flushed bytes"
    );
    assert_eq!(l0[16], "1", "one L0 job: {l0:?}");
    // As RocksDB's first stats dump at open, the interval starts after
    // recovery: its flush is in the cumulative rows only.
    assert_eq!(row("Int ")[16], "0", "{text}");
}
