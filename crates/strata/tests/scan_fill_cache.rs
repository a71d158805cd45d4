//! A scan with `fill_cache = false` leaves the block cache as it found
//! it: the blocks a Get workload keeps hot are still there afterwards, with
//! tables mapped (the default) or read with `pread`; the same scan with
//! `fill_cache = true` evicts them.

use strata::stats::Ticker;
use strata::{Db, Options, ReadOptions};
use strata_testkit::key;

/// 16,000 keys of 1 KB (16 MB) in tables, a 2 MiB block cache (in 16
/// shards of 128 KiB, so ten hot blocks fit whatever shards they hash to).
fn db(dir: &std::path::Path, mmap: bool) -> Db {
    let opts = Options::default()
        .statistics(true)
        .allow_mmap_reads(mmap)
        .block_cache_size(2 << 20);
    let db = Db::open(dir, opts).unwrap();
    for i in 0..16_000 {
        db.put(key(i), vec![b'v'; 1000]).unwrap();
    }
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    db
}

fn misses(db: &Db) -> u64 {
    db.statistics().unwrap().ticker(Ticker::BlockCacheDataMiss)
}

/// Gets of the ten hot keys; returns the data-block misses they took.
fn hot_gets(db: &Db) -> u64 {
    let before = misses(db);
    for i in 0..10 {
        assert!(db.get(key(i * 3)).unwrap().is_some());
    }
    misses(db) - before
}

fn scan(db: &Db, fill_cache: bool) -> usize {
    let ro = ReadOptions::default().fill_cache(fill_cache);
    let mut it = db.iter_opt(&ro);
    it.seek_to_first();
    let mut n = 0;
    while it.valid() {
        n += 1;
        it.advance();
    }
    it.status().unwrap();
    n
}

#[test]
fn a_scan_that_does_not_fill_the_cache_keeps_the_hot_blocks() {
    for mmap in [true, false] {
        let tmp = strata_testkit::tempdir();
        let db = db(tmp.path(), mmap);
        assert!(hot_gets(&db) > 0, "the first Gets read their blocks");
        assert_eq!(hot_gets(&db), 0, "mmap {mmap}: hot blocks are cached");
        assert_eq!(scan(&db, false), 16_000);
        assert_eq!(hot_gets(&db), 0, "mmap {mmap}: the scan evicted hot blocks");
        assert_eq!(scan(&db, true), 16_000);
        assert!(hot_gets(&db) > 0, "mmap {mmap}: a filling scan evicts them");
    }
}
