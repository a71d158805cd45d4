//! Iterators read ahead of the table files they read in order with `pread`
//! (automatic read-ahead: `max_auto_readahead_size`,
//! `initial_auto_readahead_size`, `num_file_reads_for_auto_readahead`): a
//! long scan asks for read-ahead, a short one and Gets never do, and
//! `max_auto_readahead_size = 0` turns it off. Under direct I/O the
//! read-ahead lands in the iterator's own buffer, which then serves the
//! blocks; the entries come back the same, and a damaged block read
//! through the buffer is still Corruption naming its file and offset.

use std::path::Path;

use strata::stats::Ticker;
use strata::{CompressionType, Db, Options, ReadOptions};
use strata_testkit::{disk_tempdir, key, tempdir};

const KEYS: u32 = 4000;

/// A 1 KB value that differs per key and does not compress away.
fn value(i: u32) -> Vec<u8> {
    (0..1000u32).map(|j| (i * 31 + j * 7 % 251) as u8).collect()
}

fn opts() -> Options {
    Options::default()
        .statistics(true)
        .allow_mmap_reads(false)
        .compression(CompressionType::None)
}

/// 4,000 keys of 1 KB (4 MB, about 800 blocks) in one sorted run.
fn fill(dir: &Path, o: Options) -> Option<Db> {
    let db = match Db::open(dir, o) {
        Ok(db) => db,
        Err(strata::Error::NotSupported(m)) => {
            eprintln!("skipped: the test directory's file system refuses O_DIRECT: {m}");
            return None;
        }
        Err(e) => panic!("{e}"),
    };
    for i in 0..KEYS {
        db.put(key(i), value(i)).unwrap();
    }
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    Some(db)
}

fn ticker(db: &Db, t: Ticker) -> u64 {
    db.statistics().unwrap().ticker(t)
}

/// Data blocks read from table files, on any level.
fn file_reads(db: &Db) -> u64 {
    ticker(db, Ticker::LastLevelReadCount) + ticker(db, Ticker::NonLastLevelReadCount)
}

/// Scans everything with `ro`, checking each entry; the count, or the error.
fn scan(db: &Db, ro: &ReadOptions) -> strata::Result<u32> {
    let mut it = db.iter_opt(ro);
    it.seek_to_first();
    let mut n = 0;
    while it.valid() {
        assert_eq!(it.key(), key(n).as_slice());
        assert_eq!(it.value(), value(n).as_slice(), "value of key {n}");
        n += 1;
        it.advance();
    }
    it.status()?;
    Ok(n)
}

#[test]
fn a_long_scan_reads_ahead_and_gets_and_short_scans_do_not() {
    let tmp = tempdir();
    let db = fill(tmp.path(), opts()).unwrap();
    for i in (0..KEYS).step_by(37) {
        assert_eq!(db.get(key(i)).unwrap().unwrap(), value(i));
    }
    // A seek and a few steps: two blocks at most.
    let mut it = db.iter();
    it.seek(&key(1000));
    for _ in 0..6 {
        assert!(it.valid());
        it.advance();
    }
    drop(it);
    assert_eq!(ticker(&db, Ticker::PrefetchBytes), 0);
    // The whole table: read ahead of nearly all of it, through the OS's
    // page cache (a hint: the iterator's own buffer serves nothing).
    let ro = ReadOptions::default().fill_cache(false);
    assert_eq!(scan(&db, &ro).unwrap(), KEYS);
    let asked = ticker(&db, Ticker::PrefetchBytes);
    assert!(
        asked > 3_900_000,
        "read ahead {asked} bytes of a 4 MB table"
    );
    assert_eq!(ticker(&db, Ticker::PrefetchHits), 0);
}

#[test]
fn max_auto_readahead_size_zero_turns_read_ahead_off() {
    let tmp = tempdir();
    let db = fill(tmp.path(), opts().max_auto_readahead_size(0)).unwrap();
    assert_eq!(scan(&db, &ReadOptions::default()).unwrap(), KEYS);
    assert_eq!(ticker(&db, Ticker::PrefetchBytes), 0);
}

#[test]
fn under_direct_reads_the_read_ahead_buffer_serves_the_scan() {
    let tmp = disk_tempdir();
    let Some(db) = fill(tmp.path(), opts().use_direct_reads(true)) else {
        return;
    };
    let ro = ReadOptions::default().fill_cache(false);
    let reads = file_reads(&db);
    assert_eq!(scan(&db, &ro).unwrap(), KEYS);
    let reads = file_reads(&db) - reads;
    let hits = ticker(&db, Ticker::PrefetchHits);
    // Only the first two blocks of the table come from the file itself.
    assert!(reads >= 700, "{reads} blocks read");
    assert_eq!(
        hits,
        reads - 2,
        "{hits} of {reads} block reads from the buffer"
    );
    assert!(ticker(&db, Ticker::PrefetchBytesUseful) > 3_900_000);
    // An asked size is a fixed window instead: the same entries.
    assert_eq!(
        scan(&db, &ro.clone().readahead_size(100_000)).unwrap(),
        KEYS
    );
    assert_eq!(ticker(&db, Ticker::PrefetchHits), hits);
}

/// A byte flipped in a data block, read through the read-ahead buffer
/// (direct reads), ends the scan with Corruption naming the table and the
/// block's offset; the entries before it are right (`scan` checks them).
#[test]
fn a_damaged_block_read_through_the_read_ahead_buffer_is_corruption() {
    let reference = disk_tempdir();
    let Some(db) = fill(reference.path(), opts().use_direct_reads(true)) else {
        return;
    };
    drop(db);
    let table = std::fs::read_dir(reference.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "sst"))
        .unwrap();
    let name = table.file_name().unwrap().to_str().unwrap().to_string();
    let size = std::fs::metadata(&table).unwrap().len();
    // Offsets across the data (the index, filter and footer lie in the last
    // few KB): the first window, mid-table, the last windows.
    for at in [20_000, size / 3, size / 2, size * 9 / 10] {
        let copy = disk_tempdir();
        for e in std::fs::read_dir(reference.path()).unwrap() {
            let p = e.unwrap().path();
            std::fs::copy(&p, copy.path().join(p.file_name().unwrap())).unwrap();
        }
        let damaged = copy.path().join(&name);
        let mut bytes = std::fs::read(&damaged).unwrap();
        bytes[at as usize] ^= 0x5a;
        std::fs::write(&damaged, bytes).unwrap();
        let db = Db::open(copy.path(), opts().use_direct_reads(true)).unwrap();
        let e = scan(&db, &ReadOptions::default().fill_cache(false)).unwrap_err();
        let msg = e.to_string();
        assert!(e.is_corruption(), "byte {at}: {msg}");
        assert!(
            msg.contains(&name) && msg.contains("offset"),
            "byte {at}: {msg}"
        );
    }
}
