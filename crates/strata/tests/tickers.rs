//! Tickers recorded by the DB: each test opens a DB with statistics, does
//! one kind of operation and checks the exact (or a bounded) count, so a
//! ticker that stops being recorded fails here instead of printing 0 in the
//! `STATISTICS:` dump where RocksDB prints a real count.

mod common;

use std::path::Path;
use std::sync::Arc;

use strata::stats::{Statistics, Ticker};
use strata::{Db, Options};

fn opts() -> Options {
    Options {
        statistics: true,
        compression: strata::CompressionType::None,
        ..Options::default()
    }
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
