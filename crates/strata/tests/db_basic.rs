//! Scenario tests of the public API: puts, gets, deletes, batches, flush,
//! reopen, iteration, snapshots, compaction, the DB folder's files.

use strata::{Db, Options, ReadOptions, WriteBatch, WriteOptions};
use strata_testkit::key;
use strata_testkit::small_options as small_opts;

#[test]
fn put_get_delete_and_reopen() {
    let dir = strata_testkit::tempdir();
    {
        let db = Db::open(dir.path(), Options::default()).unwrap();
        db.put(b"a", b"1").unwrap();
        db.put(b"b", b"2").unwrap();
        db.delete(b"a").unwrap();
        assert_eq!(db.get(b"a").unwrap(), None);
        assert_eq!(db.get(b"b").unwrap().as_deref(), Some(&b"2"[..]));
    }
    let db = Db::open(dir.path(), Options::default()).unwrap();
    assert_eq!(db.get(b"a").unwrap(), None);
    assert_eq!(db.get(b"b").unwrap().as_deref(), Some(&b"2"[..]));
    for f in ["CURRENT", "LOCK", "LOG"] {
        assert!(dir.path().join(f).exists(), "{f} missing");
    }
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        names.iter().any(|n| n.starts_with("MANIFEST-")),
        "{names:?}"
    );
    assert!(names.iter().any(|n| n.starts_with("OPTIONS-")), "{names:?}");
}

#[test]
fn second_open_is_refused_while_locked() {
    let dir = strata_testkit::tempdir();
    let _db = Db::open(dir.path(), Options::default()).unwrap();
    let e = Db::open(dir.path(), Options::default()).unwrap_err();
    assert!(matches!(e, strata::Error::Locked { .. }), "{e}");
}

#[test]
fn open_flags_are_honoured() {
    let dir = strata_testkit::tempdir();
    let missing = dir.path().join("nope");
    let e = Db::open(&missing, Options::default().create_if_missing(false)).unwrap_err();
    assert!(e.to_string().contains("create_if_missing"), "{e}");
    drop(Db::open(dir.path().join("db"), Options::default()).unwrap());
    let e = Db::open(
        dir.path().join("db"),
        Options::default().error_if_exists(true),
    )
    .unwrap_err();
    assert!(e.to_string().contains("error_if_exists"), "{e}");
    let e = Db::open(
        dir.path().join("db2"),
        Options::default().max_write_buffer_number(1),
    )
    .unwrap_err();
    assert!(e.to_string().contains("max_write_buffer_number"), "{e}");
}

#[test]
fn sync_with_disabled_wal_is_invalid() {
    let dir = strata_testkit::tempdir();
    let db = Db::open(dir.path(), Options::default()).unwrap();
    let wo = WriteOptions::default().sync(true).disable_wal(true);
    assert!(matches!(
        db.put_opt(&wo, b"k", b"v"),
        Err(strata::Error::InvalidArgument(_))
    ));
}

#[test]
fn batches_flush_compaction_and_iteration() {
    let dir = strata_testkit::tempdir();
    let n = 20_000u32;
    {
        let db = Db::open(dir.path(), small_opts()).unwrap();
        for chunk in (0..n).collect::<Vec<_>>().chunks(100) {
            let mut b = WriteBatch::new();
            for &i in chunk {
                b.put(key(i), format!("value-{i}-{}", "x".repeat(50)).as_bytes());
            }
            db.write(b).unwrap();
        }
        for i in (0..n).step_by(3) {
            db.delete(key(i)).unwrap();
        }
        db.flush().unwrap();
        db.wait_for_compaction().unwrap();
        let l0: usize = db
            .property("rocksdb.num-files-at-level0")
            .unwrap()
            .parse()
            .unwrap();
        assert!(l0 < 2, "L0 should have been compacted, has {l0}");
        let deeper: usize = (1..7)
            .map(|l| {
                db.property(&format!("rocksdb.num-files-at-level{l}"))
                    .unwrap()
                    .parse::<usize>()
                    .unwrap()
            })
            .sum();
        assert!(deeper > 0);
        assert!(db
            .property("rocksdb.stats")
            .unwrap()
            .contains("Compaction Stats"));
    }
    let db = Db::open(dir.path(), small_opts()).unwrap();
    for i in 0..n {
        let got = db.get(key(i)).unwrap();
        if i % 3 == 0 {
            assert_eq!(got, None, "key {i} should be deleted");
        } else {
            assert_eq!(
                got.unwrap(),
                format!("value-{i}-{}", "x".repeat(50)).into_bytes()
            );
        }
    }
    let keys: Vec<Vec<u8>> = db.iter().map(|r| r.unwrap().0).collect();
    let want: Vec<Vec<u8>> = (0..n).filter(|i| i % 3 != 0).map(key).collect();
    assert_eq!(keys, want);
    let rev: Vec<Vec<u8>> = db.iter().reverse().map(|r| r.unwrap().0).collect();
    assert_eq!(rev, want.iter().rev().cloned().collect::<Vec<_>>());
    db.compact_range(None, None).unwrap();
    assert_eq!(db.property("rocksdb.num-files-at-level0").unwrap(), "0");
    let keys2: Vec<Vec<u8>> = db.iter().map(|r| r.unwrap().0).collect();
    assert_eq!(keys2, want);
    let est: u64 = db
        .property("rocksdb.estimate-num-keys")
        .unwrap()
        .parse()
        .unwrap();
    assert!(est > 0);
}

#[test]
fn snapshots_see_a_fixed_point() {
    let dir = strata_testkit::tempdir();
    let db = Db::open(dir.path(), small_opts()).unwrap();
    for i in 0..1000 {
        db.put(key(i), b"old").unwrap();
    }
    let snap = db.snapshot();
    for i in 0..1000 {
        db.put(key(i), b"new").unwrap();
    }
    db.delete(key(5)).unwrap();
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    let ro = ReadOptions::default().snapshot(Some(snap.clone()));
    assert_eq!(db.get_opt(&ro, key(5)).unwrap().unwrap(), b"old");
    assert_eq!(db.get(key(5)).unwrap(), None);
    assert_eq!(db.get(key(6)).unwrap().unwrap(), b"new");
    let old: Vec<_> = db.iter_opt(&ro).map(|r| r.unwrap().1).collect();
    assert_eq!(old.len(), 1000);
    assert!(old.iter().all(|v| v == b"old"));
}

/// Regression: `rocksdb.oldest-snapshot-time`, `rocksdb.num-live-versions`
/// and `rocksdb.current-super-version-number` answered the constants 0, 1
/// and 0 whatever the DB held.
#[test]
fn snapshot_version_and_super_version_properties_follow_the_db() {
    let dir = strata_testkit::tempdir();
    let db = Db::open(dir.path(), small_opts()).unwrap();
    let prop = |name: &str| -> u64 { db.property(name).unwrap().parse().unwrap() };
    assert_eq!(prop("rocksdb.oldest-snapshot-time"), 0);
    assert_eq!(prop("rocksdb.oldest-snapshot-sequence"), 0);
    db.put(b"a", b"1").unwrap();
    let before = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let snap = db.snapshot();
    let t = prop("rocksdb.oldest-snapshot-time");
    assert!(t >= before && t <= before + 60, "{t} vs {before}");
    assert_eq!(prop("rocksdb.oldest-snapshot-sequence"), snap.sequence());
    drop(snap);
    assert_eq!(prop("rocksdb.oldest-snapshot-time"), 0);

    let sv = prop("rocksdb.current-super-version-number");
    assert_eq!(prop("rocksdb.num-live-versions"), 1);
    // An iterator pins the version it started on; a flush installs a new
    // version and a new super version.
    let it = db.iter();
    db.flush().unwrap();
    assert!(prop("rocksdb.current-super-version-number") > sv);
    assert_eq!(prop("rocksdb.num-live-versions"), 2);
    drop(it);
    assert_eq!(prop("rocksdb.num-live-versions"), 1);
}

/// Regression: `rocksdb.compression-ratio-at-level<N>` was parsed and then
/// answered as an unknown property.
#[test]
fn compression_ratio_at_level_reads_the_table_properties() {
    let dir = strata_testkit::tempdir();
    let o = small_opts().compression(strata::CompressionType::Lz4);
    let db = Db::open(dir.path(), o).unwrap();
    let ratio = |l: usize| -> f64 {
        db.property(&format!("rocksdb.compression-ratio-at-level{l}"))
            .unwrap()
            .parse()
            .unwrap()
    };
    assert_eq!(ratio(0), -1.0, "no files");
    for i in 0..2000 {
        db.put(key(i), [b'z'; 200]).unwrap();
    }
    db.flush().unwrap();
    db.wait_for_compaction().unwrap();
    // 200-byte runs of one byte compress well with LZ4; levels without
    // files answer -1.
    for l in 0..7 {
        let files: usize = db
            .property(&format!("rocksdb.num-files-at-level{l}"))
            .unwrap()
            .parse()
            .unwrap();
        if files == 0 {
            assert_eq!(ratio(l), -1.0);
        } else {
            assert!(ratio(l) > 3.0, "L{l}: {}", ratio(l));
        }
    }
    assert!(db
        .property("rocksdb.compression-ratio-at-level99")
        .is_none());
}

#[test]
fn seek_and_bounds() {
    let dir = strata_testkit::tempdir();
    let db = Db::open(dir.path(), small_opts()).unwrap();
    for i in 0..100 {
        db.put(key(i * 2), b"v").unwrap();
    }
    db.flush().unwrap();
    let mut it = db.iter();
    it.seek(&key(51));
    assert_eq!(it.key(), key(52).as_slice());
    it.seek_for_prev(&key(51));
    assert_eq!(it.key(), key(50).as_slice());
    let ro = ReadOptions::default()
        .iterate_lower_bound(Some(key(10)))
        .iterate_upper_bound(Some(key(20)));
    let got: Vec<_> = db.iter_opt(&ro).map(|r| r.unwrap().0).collect();
    assert_eq!(got, (5..10).map(|i| key(i * 2)).collect::<Vec<_>>());
}

fn live_sst_count(db: &Db) -> usize {
    (0..7)
        .map(|l| {
            db.property(&format!("rocksdb.num-files-at-level{l}"))
                .unwrap()
                .parse::<usize>()
                .unwrap()
        })
        .sum()
}

fn sst_files_on_disk(dir: &std::path::Path) -> usize {
    std::fs::read_dir(dir)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".sst")
        })
        .count()
}

/// Regression: the write controller's cache of pending compaction bytes
/// kept the version it was computed on alive (and the compaction job kept
/// the version it read from until after it deleted obsolete files), so the
/// inputs of the last compactions stayed on disk until another write or a
/// reopen (study 5's universal runs left a DB's worth of merged-away tables
/// behind).
#[test]
fn compaction_inputs_are_deleted_when_the_job_ends() {
    inputs_deleted_with(small_opts());
    inputs_deleted_with(small_opts().compaction_style(strata::CompactionStyle::Universal));
}

fn inputs_deleted_with(opts: Options) {
    let dir = strata_testkit::tempdir();
    let db = Db::open(dir.path(), opts).unwrap();
    for round in 0..3u32 {
        for i in 0..5_000u32 {
            db.put(key(i), format!("v{round}-{}", "y".repeat(40)).as_bytes())
                .unwrap();
        }
        db.flush().unwrap();
    }
    db.wait_for_compaction().unwrap();
    assert_eq!(sst_files_on_disk(dir.path()), live_sst_count(&db));
    db.compact_range(None, None).unwrap();
    assert_eq!(sst_files_on_disk(dir.path()), live_sst_count(&db));
}
