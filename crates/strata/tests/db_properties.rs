//! The DB properties that report memory, caches and files (RocksDB's
//! names, which `strata bench` and the lab read) agree with what the DB
//! holds: memtable sizes, block and blob cache capacity and usage, blob
//! file sizes, the per-level file table.

use strata::{Db, Options};
use strata_testkit::key;

fn num(db: &Db, name: &str) -> u64 {
    db.property(name)
        .unwrap_or_else(|| panic!("no property {name}"))
        .parse()
        .unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn memory_cache_and_blob_file_properties_follow_the_data() {
    let dir = strata_testkit::tempdir();
    let opts = Options::default()
        .num_levels(4)
        .block_cache_size(1 << 20)
        .blob_cache_size(1 << 20)
        .enable_blob_files(true)
        .min_blob_size(100);
    let db = Db::open(dir.path(), opts).unwrap();
    assert_eq!(num(&db, "rocksdb.block-cache-capacity"), 1 << 20);
    assert_eq!(num(&db, "rocksdb.blob-cache-capacity"), 1 << 20);
    let empty_mem = num(&db, "rocksdb.cur-size-active-mem-table");
    for i in 0..200 {
        db.put(key(i), [b'v'; 300]).unwrap();
    }
    let active = num(&db, "rocksdb.cur-size-active-mem-table");
    assert!(active > empty_mem + 200 * 300, "{active}");
    assert!(num(&db, "rocksdb.cur-size-all-mem-tables") >= active);
    db.flush().unwrap();
    let levels = db.property("rocksdb.levelstats").unwrap();
    let lines: Vec<&str> = levels.lines().collect();
    assert_eq!(lines.len(), 2 + 4, "{levels}");
    assert!(lines[2].split_whitespace().nth(1) == Some("1"), "{levels}");
    let live = num(&db, "rocksdb.live-blob-file-size");
    assert!(live > 200 * 300, "{live}");
    assert!(num(&db, "rocksdb.total-blob-file-size") >= live);
    assert_eq!(num(&db, "rocksdb.block-cache-usage"), 0);
    assert_eq!(num(&db, "rocksdb.blob-cache-usage"), 0);
    for i in 0..200 {
        assert_eq!(db.get(key(i)).unwrap().unwrap(), [b'v'; 300]);
    }
    let block_usage = num(&db, "rocksdb.block-cache-usage");
    let blob_usage = num(&db, "rocksdb.blob-cache-usage");
    assert!((1..=1 << 20).contains(&block_usage), "{block_usage}");
    assert!((200 * 300..=1 << 20).contains(&blob_usage), "{blob_usage}");
    num(&db, "rocksdb.estimate-pending-compaction-bytes");
    assert_eq!(db.property("rocksdb.no-such-property"), None);
}
