//! `Db::multi_get`: every key read at one sequence number, each result on
//! its own, and RocksDB's MultiGet statistics.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use strata::stats::{Histogram, Ticker};
use strata::{Db, Options, ReadOptions, WriteBatch};

fn opts() -> Options {
    Options {
        write_buffer_size: 64 << 10,
        max_bytes_for_level_base: 256 << 10,
        target_file_size_base: 64 << 10,
        level0_file_num_compaction_trigger: 2,
        compression: strata::CompressionType::None,
        statistics: true,
        ..Options::default()
    }
}

fn key(i: u32) -> Vec<u8> {
    format!("key{i:04}").into_bytes()
}

#[test]
fn results_follow_the_keys_and_match_get() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), opts()).unwrap();
    for i in 0..500 {
        db.put(&key(i), format!("v{i}").as_bytes()).unwrap();
        if i % 100 == 99 {
            db.flush().unwrap();
        }
    }
    db.delete(&key(7)).unwrap();
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
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), opts()).unwrap();
    db.put(b"a", b"1").unwrap();
    db.put(b"b", b"1").unwrap();
    let snap = db.snapshot();
    db.put(b"a", b"2").unwrap();
    db.delete(b"b").unwrap();
    db.flush().unwrap();
    let ro = ReadOptions {
        snapshot: Some(snap),
        ..ReadOptions::default()
    };
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
    let dir = tempfile::tempdir().unwrap();
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
