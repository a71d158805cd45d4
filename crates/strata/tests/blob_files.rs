//! Key-value separation end to end: values go to blob files, reads resolve
//! them (get, iterators, snapshots, after reopen), garbage collection keeps
//! space bounded, and the force threshold reclaims mostly-garbage files.

use strata::{Db, Options, ReadOptions};
use strata_testkit::key;

fn blob_opts() -> Options {
    Options::default()
        .write_buffer_size(256 << 10)
        .max_bytes_for_level_base(1 << 20)
        .target_file_size_base(256 << 10)
        .level0_file_num_compaction_trigger(2)
        .compression(strata::CompressionType::None)
        .enable_blob_files(true)
        .min_blob_size(64)
        .blob_file_size(512 << 10)
}

fn value(i: u32, round: u32, len: usize) -> Vec<u8> {
    let mut v = format!("v{i}-{round}-").into_bytes();
    v.resize(len, b'a' + (i % 26) as u8);
    v
}

fn num(db: &Db, p: &str) -> u64 {
    db.property(p).unwrap().parse().unwrap()
}

#[test]
fn separated_values_read_back_everywhere() {
    let dir = strata_testkit::tempdir();
    let n = 3000;
    let len = |i: u32| if i.is_multiple_of(2) { 500 } else { 20 }; // mixed: blob and inline
    {
        let db = Db::open(dir.path(), blob_opts()).unwrap();
        for i in 0..n {
            db.put(key(i), value(i, 0, len(i))).unwrap();
        }
        let snap = db.snapshot();
        for i in (0..n).step_by(3) {
            db.put(key(i), value(i, 1, len(i))).unwrap();
        }
        db.flush().unwrap();
        db.compact_range(None, None).unwrap();
        assert!(num(&db, "rocksdb.num-blob-files") > 0);
        let ro = ReadOptions::default().snapshot(Some(snap));
        for i in (0..n).step_by(7) {
            assert_eq!(
                db.get_opt(&ro, key(i)).unwrap().unwrap(),
                value(i, 0, len(i))
            );
        }
        let stats = db.property("rocksdb.blob-stats").unwrap();
        assert!(stats.contains("Number of blob files"), "{stats}");
    }
    let db = Db::open(dir.path(), blob_opts()).unwrap();
    for i in 0..n {
        let round = if i % 3 == 0 { 1 } else { 0 };
        assert_eq!(
            db.get(key(i)).unwrap().unwrap(),
            value(i, round, len(i)),
            "key {i}"
        );
    }
    let all: Vec<_> = db.iter().map(|r| r.unwrap()).collect();
    assert_eq!(all.len(), n as usize);
    for (k, v) in &all {
        let i: u32 = std::str::from_utf8(&k[3..]).unwrap().parse().unwrap();
        let round = if i.is_multiple_of(3) { 1 } else { 0 };
        assert_eq!(v, &value(i, round, len(i)));
    }
    let rev: Vec<_> = db.iter().reverse().map(|r| r.unwrap()).collect();
    assert_eq!(rev.len(), n as usize);
    assert_eq!(rev[0], all[all.len() - 1]);
    // The SSTs hold small indexes, not the 500-byte values.
    let sst: u64 = num(&db, "rocksdb.total-sst-files-size");
    let blob: u64 = num(&db, "rocksdb.live-blob-file-size");
    assert!(blob > sst, "blob {blob} sst {sst}");
}

fn overwrite_rounds(gc: bool, rounds: u32) -> (u64, u64) {
    let dir = strata_testkit::tempdir();
    let opts = blob_opts()
        .enable_blob_garbage_collection(gc)
        .blob_garbage_collection_age_cutoff(0.5);
    let db = Db::open(dir.path(), opts).unwrap();
    // Each round overwrites 800 hot keys and writes 20 new cold keys that
    // are never overwritten: every blob file keeps a few live blobs, so
    // without GC no file can ever be deleted.
    let hot = 800u32;
    let mut n = hot;
    for round in 0..rounds {
        for i in 0..hot {
            db.put(key(i), value(i, round, 400)).unwrap();
        }
        for c in 0..20 {
            let i = 100_000 + round * 20 + c;
            db.put(key(i), value(i, round, 400)).unwrap();
            n += 1;
        }
        db.flush().unwrap();
        db.compact_range(None, None).unwrap();
    }
    for i in (0..hot).step_by(11) {
        assert_eq!(db.get(key(i)).unwrap().unwrap(), value(i, rounds - 1, 400));
    }
    for round in 0..rounds {
        let i = 100_000 + round * 20;
        assert_eq!(db.get(key(i)).unwrap().unwrap(), value(i, round, 400));
    }
    let live_data = u64::from(n) * 400;
    (num(&db, "rocksdb.live-blob-file-size"), live_data)
}

#[test]
fn gc_keeps_blob_space_bounded_and_without_gc_it_grows() {
    let rounds = 12;
    let (with_gc, live) = overwrite_rounds(true, rounds);
    let (without_gc, _) = overwrite_rounds(false, rounds);
    eprintln!("blob bytes after {rounds} rounds: with GC {with_gc}, without GC {without_gc}, live data {live}");
    // Stated bound: with GC, blob bytes stay within 3x the live data.
    assert!(
        with_gc <= 3 * live,
        "with GC: {with_gc} bytes for {live} live"
    );
    assert!(
        without_gc > with_gc,
        "without GC {without_gc} should exceed with GC {with_gc}"
    );
}

/// Blob GC with an age cutoff of 1.0 relocates every blob a full
/// compaction meets, so the garbage of overwritten values goes with it.
/// (The force threshold, which reaches tables no compaction takes, has its
/// own test: `tests/forced_blob_gc.rs`.)
#[test]
fn blob_gc_in_a_full_compaction_leaves_less_than_half_garbage() {
    let dir = strata_testkit::tempdir();
    let opts = blob_opts()
        .enable_blob_garbage_collection(true)
        .blob_garbage_collection_age_cutoff(1.0)
        // Large levels so size-based compactions do not run on their own.
        .max_bytes_for_level_base(64 << 20)
        .level0_file_num_compaction_trigger(100)
        .level0_slowdown_writes_trigger(200)
        .level0_stop_writes_trigger(300);
    let db = Db::open(dir.path(), opts).unwrap();
    for i in 0..1000 {
        db.put(key(i), value(i, 0, 400)).unwrap();
    }
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    let files_before = num(&db, "rocksdb.num-blob-files");
    // Overwrite 90% of the keys: the first blob files become mostly garbage
    // once a compaction meters it.
    for i in 0..900 {
        db.put(key(i), value(i, 1, 400)).unwrap();
    }
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    db.wait_for_compaction().unwrap();
    let garbage = num(&db, "rocksdb.live-blob-file-garbage-size");
    let total = num(&db, "rocksdb.live-blob-file-size");
    assert!(
        (garbage as f64) < 0.5 * total as f64,
        "blob GC should leave less than half garbage: {garbage} of {total} (files before: {files_before})"
    );
    for i in 0..1000 {
        let round = if i < 900 { 1 } else { 0 };
        assert_eq!(db.get(key(i)).unwrap().unwrap(), value(i, round, 400));
    }
}

/// Flipping any byte of a blob file gives, on the reads that hit it, a
/// `Corruption` naming the blob file and an offset (never a wrong value or
/// a panic); reads of other blobs still succeed.
#[test]
fn corrupted_blob_file_gives_corruption_naming_file_and_offset() {
    let dir = strata_testkit::tempdir();
    let n = 200u32;
    {
        let db = Db::open(dir.path(), blob_opts()).unwrap();
        for i in 0..n {
            db.put(key(i), value(i, 0, 300)).unwrap();
        }
        db.flush().unwrap();
    }
    let blob = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "blob"))
        .expect("a blob file");
    let name = blob.file_name().unwrap().to_str().unwrap().to_string();
    let original = std::fs::read(&blob).unwrap();
    let mut cases = 0;
    let mut errors = 0;
    for off in (0..original.len()).step_by(original.len() / 40 + 1) {
        let mut bad = original.clone();
        bad[off] ^= 0x55;
        std::fs::write(&blob, &bad).unwrap();
        cases += 1;
        let db = Db::open(dir.path(), blob_opts()).unwrap();
        for i in 0..n {
            match db.get(key(i)) {
                Ok(Some(v)) => assert_eq!(v, value(i, 0, 300), "wrong value, flip at {off}"),
                Ok(None) => panic!("key {i} vanished, flip at {off}"),
                Err(e) => {
                    errors += 1;
                    assert!(e.is_corruption(), "flip at {off}: {e}");
                    let msg = e.to_string();
                    assert!(msg.contains(&name) && msg.contains("offset"), "{msg}");
                }
            }
        }
        drop(db);
    }
    std::fs::write(&blob, &original).unwrap();
    assert!(errors > 0, "{cases} flips and no read noticed");
}
