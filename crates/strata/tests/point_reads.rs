//! Point reads beyond `get`: `Db::get_pinned` (values read from table
//! files stay in their data block instead of being copied; values from
//! memtables and blob files are copies; a pinned value outlives the block
//! cache entry and the file it came from) and `Db::multi_get` (every key
//! read at one sequence number, each result on its own, and RocksDB's
//! MultiGet statistics).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use strata::stats::{Histogram, Ticker};
use strata::{Db, Options, ReadOptions, WriteBatch};
use strata_testkit::key;

fn opts() -> Options {
    strata_testkit::small_options().statistics(true)
}

fn value(i: u32, gen: u32) -> Vec<u8> {
    format!("value-{i}-{gen}-").repeat(40).into_bytes()
}

#[test]
fn memtable_values_are_copies_and_table_values_are_pinned() {
    let dir = strata_testkit::tempdir();
    let db = Db::open(dir.path(), opts()).unwrap();
    let ro = ReadOptions::default();
    db.put(b"k", b"in the memtable").unwrap();
    let v = db.get_pinned(&ro, b"k").unwrap().unwrap();
    assert!(!v.is_pinned());
    assert_eq!(&*v, b"in the memtable");

    db.flush().unwrap();
    let v = db.get_pinned(&ro, b"k").unwrap().unwrap();
    assert!(v.is_pinned());
    assert_eq!(&*v, b"in the memtable");
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&v[..]));
    assert!(db.get_pinned(&ro, b"absent").unwrap().is_none());
    db.delete(b"k").unwrap();
    db.flush().unwrap();
    assert!(db.get_pinned(&ro, b"k").unwrap().is_none());
}

#[test]
fn pinned_value_outlives_cache_eviction_and_its_file() {
    let dir = strata_testkit::tempdir();
    // A block cache of 4 KiB: every other read evicts what was cached.
    let db = Db::open(dir.path(), opts().block_cache_size(4 << 10)).unwrap();
    let ro = ReadOptions::default();
    for i in 0..2000 {
        db.put(key(i), value(i, 0)).unwrap();
    }
    db.flush().unwrap();
    let held: Vec<_> = (0..2000)
        .step_by(97)
        .map(|i| (i, db.get_pinned(&ro, &key(i)).unwrap().unwrap()))
        .collect();
    assert!(held.iter().all(|(_, v)| v.is_pinned()));
    // Overwrite everything and compact: the files the values were read
    // from are rewritten and deleted.
    for i in 0..2000 {
        db.put(key(i), value(i, 1)).unwrap();
    }
    db.compact_range(None, None).unwrap();
    for (i, v) in &held {
        assert_eq!(&v[..], &value(*i, 0)[..], "key {i}");
    }
    for i in (0..2000).step_by(97) {
        assert_eq!(db.get(key(i)).unwrap().unwrap(), value(i, 1));
    }
}

#[test]
fn blob_values_are_copies() {
    let dir = strata_testkit::tempdir();
    let db = Db::open(dir.path(), opts().enable_blob_files(true).min_blob_size(16)).unwrap();
    let big = value(7, 0);
    db.put(b"big", &big).unwrap();
    db.put(b"small", b"tiny").unwrap();
    db.flush().unwrap();
    let ro = ReadOptions::default();
    let v = db.get_pinned(&ro, b"big").unwrap().unwrap();
    assert!(!v.is_pinned(), "a blob value is read into its own buffer");
    assert_eq!(&v[..], &big[..]);
    let v = db.get_pinned(&ro, b"small").unwrap().unwrap();
    assert!(v.is_pinned(), "an inline value stays in its block");
    assert_eq!(&v[..], b"tiny");
}

#[test]
fn results_follow_the_keys_and_match_get() {
    let dir = strata_testkit::tempdir();
    let db = Db::open(dir.path(), opts()).unwrap();
    for i in 0..500 {
        db.put(key(i), format!("v{i}").as_bytes()).unwrap();
        if i % 100 == 99 {
            db.flush().unwrap();
        }
    }
    db.delete(key(7)).unwrap();
    let keys: Vec<Vec<u8>> = [3, 7, 499, 9999, 250, 3].iter().map(|&i| key(i)).collect();
    let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let got = db.multi_get(&ReadOptions::default(), &refs);
    assert_eq!(got.len(), refs.len());
    for (k, r) in refs.iter().zip(got) {
        let r = r.unwrap().map(|v| v.into_vec());
        assert_eq!(r, db.get(k).unwrap(), "{}", String::from_utf8_lossy(k));
    }

    let s = db.statistics().unwrap();
    assert_eq!(s.ticker(Ticker::NumberMultigetCalls), 1);
    assert_eq!(s.ticker(Ticker::NumberMultigetKeysRead), 6);
    assert_eq!(s.ticker(Ticker::NumberMultigetKeysFound), 4);
    assert_eq!(s.ticker(Ticker::NumberMultigetBytesRead), 2 + 4 + 4 + 2);
    assert_eq!(s.histogram_data(Histogram::DbMultiget).count, 1);
    assert_eq!(s.histogram_data(Histogram::BytesPerMultiget).sum, 12);
}

#[test]
fn reads_at_a_snapshot() {
    let dir = strata_testkit::tempdir();
    let db = Db::open(dir.path(), opts()).unwrap();
    db.put(b"a", b"1").unwrap();
    db.put(b"b", b"1").unwrap();
    let snap = db.snapshot();
    db.put(b"a", b"2").unwrap();
    db.delete(b"b").unwrap();
    db.flush().unwrap();
    let ro = ReadOptions::default().snapshot(Some(snap));
    let got: Vec<_> = db
        .multi_get(&ro, &[b"a", b"b"])
        .into_iter()
        .map(|r| r.unwrap().map(|v| v.into_vec()))
        .collect();
    assert_eq!(got, vec![Some(b"1".to_vec()), Some(b"1".to_vec())]);
}

/// A writer updates two keys together in one batch; every MultiGet of the
/// pair must see the same generation in both (it would not if each key
/// were read at its own sequence number).
#[test]
fn sees_batches_whole_under_concurrent_writes() {
    let dir = strata_testkit::tempdir();
    let db = Arc::new(Db::open(dir.path(), opts()).unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (db, stop) = (db.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut gen = 0u64;
            while !stop.load(Ordering::Relaxed) {
                let v = format!("{gen:020}").repeat(8);
                let mut b = WriteBatch::new();
                b.put(b"x", v.as_bytes());
                b.put(b"y", v.as_bytes());
                db.write(b).unwrap();
                gen += 1;
            }
        })
    };
    let mut checked = 0;
    while checked < 20_000 {
        let got = db.multi_get(&ReadOptions::default(), &[b"x", b"y"]);
        let x = got[0].as_ref().unwrap().as_ref().map(|v| v.to_vec());
        let y = got[1].as_ref().unwrap().as_ref().map(|v| v.to_vec());
        assert_eq!(x, y, "a MultiGet saw half of a batch");
        checked += 1;
    }
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
}

/// Tables written with a hash index in their data blocks
/// (`kDataBlockBinaryAndHash`) answer Gets, snapshot Gets and MultiGets as
/// tables without one do, and a DB reopened with the other index type
/// reads both kinds of table alike.
#[test]
fn data_block_hash_index_reads_what_binary_search_reads() {
    use strata::DataBlockIndexType::{BinaryAndHash, BinarySearch};
    let dir = strata_testkit::tempdir();
    let small = |i: u32, gen: u32| format!("v{i}.{gen}").into_bytes();
    let with = |t| opts().data_block_index_type(t).block_size(1024);
    let db = Db::open(dir.path(), with(BinaryAndHash)).unwrap();
    for i in 0..3000 {
        db.put(key(i), small(i, 0)).unwrap();
    }
    db.flush().unwrap();
    let snap = db.snapshot();
    for i in (0..3000).step_by(3) {
        db.put(key(i), small(i, 1)).unwrap();
    }
    for i in (0..3000).step_by(7) {
        db.delete(key(i)).unwrap();
    }
    db.flush().unwrap();
    let expect = |i: u32| -> Option<Vec<u8>> {
        if i.is_multiple_of(7) {
            None
        } else if i.is_multiple_of(3) {
            Some(small(i, 1))
        } else {
            Some(small(i, 0))
        }
    };
    let check = |db: &Db| {
        for i in 0..3000 {
            assert_eq!(db.get(key(i)).unwrap(), expect(i), "key {i}");
        }
        for i in 3000..3100 {
            assert_eq!(db.get(key(i)).unwrap(), None, "key {i}");
        }
        let ids: Vec<u32> = (0..3000).step_by(11).collect();
        let keys: Vec<Vec<u8>> = ids.iter().map(|&i| key(i)).collect();
        let refs: Vec<&[u8]> = keys.iter().map(|k| &k[..]).collect();
        let got = db.multi_get(&ReadOptions::default(), &refs);
        for (&i, r) in ids.iter().zip(got) {
            assert_eq!(r.unwrap().map(|v| v.to_vec()), expect(i), "key {i}");
        }
    };
    check(&db);
    let ro = ReadOptions::default().snapshot(Some(snap));
    for i in (0..3000).step_by(5) {
        assert_eq!(
            db.get_opt(&ro, key(i)).unwrap(),
            Some(small(i, 0)),
            "key {i}"
        );
    }
    drop(ro);
    drop(db);
    let db = Db::open(dir.path(), with(BinarySearch)).unwrap();
    check(&db);
    db.compact_range(None, None).unwrap();
    check(&db);
    drop(db);
    let db = Db::open(dir.path(), with(BinaryAndHash)).unwrap();
    db.compact_range(None, None).unwrap();
    check(&db);
}
