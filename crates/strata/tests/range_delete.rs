//! DeleteRange end to end: reads (get, iterators both ways, snapshots) over
//! range tombstones in the memtable, in flushed tables and after
//! compactions; tombstones spanning several files and levels; overlapping
//! tombstones; WAL replay and crashes; tombstones dropped at the bottom
//! level; subcompactions that each carry the tombstones of their range;
//! Gets that stop at a covering tombstone instead of reading the tables
//! below it; and compactions counting the entries tombstones drop.

use std::collections::BTreeMap;

use strata::stats::Ticker;
use strata::{Db, Options, ReadOptions, WriteBatch};
use strata_testkit::{key, small_options_with, tempdir};

/// The kit's small options with smaller tables and a later L0 trigger.
fn small(extra: &str) -> Options {
    small_options_with(&format!(
        "target_file_size_base=32768;level0_file_num_compaction_trigger=4;{extra}"
    ))
}

fn value(i: u32, round: u32) -> Vec<u8> {
    format!("value-{i}-{round}-").repeat(8).into_bytes()
}

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

fn forward(db: &Db, ro: &ReadOptions) -> Vec<(Vec<u8>, Vec<u8>)> {
    db.iter_opt(ro).map(|r| r.unwrap()).collect()
}

fn backward(db: &Db, ro: &ReadOptions) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut it = db.iter_opt(ro);
    let mut out = Vec::new();
    it.seek_to_last();
    while it.valid() {
        out.push((it.key().to_vec(), it.value().to_vec()));
        it.retreat();
    }
    it.status().unwrap();
    out.reverse();
    out
}

/// Every read of `db` agrees with `model`: a get of each key in `0..n`,
/// both scans, and a seek into the middle.
fn check(db: &Db, ro: &ReadOptions, model: &Model, n: u32, what: &str) {
    for i in 0..n {
        let k = key(i);
        assert_eq!(
            db.get_opt(ro, &k).unwrap(),
            model.get(&k).cloned(),
            "{what}: get {}",
            String::from_utf8_lossy(&k)
        );
    }
    let want: Vec<_> = model.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    assert_eq!(forward(db, ro), want, "{what}: forward scan");
    assert_eq!(backward(db, ro), want, "{what}: backward scan");
    let mid = key(n / 2);
    let mut it = db.iter_opt(ro);
    it.seek(&mid);
    let expect = model.range(mid..).next();
    match expect {
        Some((k, v)) => {
            assert!(it.valid(), "{what}: seek");
            assert_eq!(
                (it.key(), it.value()),
                (k.as_slice(), v.as_slice()),
                "{what}: seek"
            );
        }
        None => assert!(!it.valid(), "{what}: seek past the end"),
    }
}

fn delete_model(model: &mut Model, begin: u32, end: u32) {
    model.retain(|k, _| {
        !(k.as_slice() >= key(begin).as_slice() && k.as_slice() < key(end).as_slice())
    });
}

fn files_at(db: &Db, level: usize) -> u64 {
    db.property(&format!("rocksdb.num-files-at-level{level}"))
        .unwrap()
        .parse()
        .unwrap()
}

fn fill(db: &Db, model: &mut Model, n: u32, round: u32) {
    for i in 0..n {
        db.put(key(i), value(i, round)).unwrap();
        model.insert(key(i), value(i, round));
    }
}

#[test]
fn memtable_flush_and_compaction_with_snapshots() {
    let dir = tempdir();
    let db = Db::open(dir.path(), small("disable_auto_compactions=true")).unwrap();
    let n = 300;
    let mut model = Model::new();
    fill(&db, &mut model, n, 0);
    let before = model.clone();
    let snap = db.snapshot();
    let at_snap = ReadOptions::default().snapshot(Some(snap.clone()));
    db.delete_range(key(50), key(120)).unwrap();
    delete_model(&mut model, 50, 120);
    // A key written after the tombstone stays.
    db.put(key(60), b"after").unwrap();
    model.insert(key(60), b"after".to_vec());
    // An empty range deletes nothing.
    db.delete_range(key(200), key(100)).unwrap();
    let ro = ReadOptions::default();
    check(&db, &ro, &model, n, "memtable");
    check(&db, &at_snap, &before, n, "memtable, snapshot");
    db.flush().unwrap();
    check(&db, &ro, &model, n, "flushed");
    check(&db, &at_snap, &before, n, "flushed, snapshot");
    db.compact_range(None, None).unwrap();
    check(&db, &ro, &model, n, "compacted");
    check(&db, &at_snap, &before, n, "compacted, snapshot");
    drop(at_snap);
    drop(snap);
    db.compact_range(None, None).unwrap();
    check(&db, &ro, &model, n, "compacted without the snapshot");
}

#[test]
fn tombstones_over_several_files_and_levels() {
    let dir = tempdir();
    let db = Db::open(dir.path(), small("")).unwrap();
    let n = 3000;
    let mut model = Model::new();
    fill(&db, &mut model, n, 0);
    db.compact_range(None, None).unwrap();
    assert!(
        files_at(&db, 1) + files_at(&db, 2) > 2,
        "several files below L0"
    );
    // One tombstone across many files, and overlapping ones with different
    // sequence numbers, with newer puts in between.
    db.delete_range(key(100), key(2500)).unwrap();
    delete_model(&mut model, 100, 2500);
    for i in (200..400).step_by(7) {
        db.put(key(i), value(i, 1)).unwrap();
        model.insert(key(i), value(i, 1));
    }
    db.delete_range(key(300), key(350)).unwrap();
    delete_model(&mut model, 300, 350);
    db.delete_range(key(2400), key(2700)).unwrap();
    delete_model(&mut model, 2400, 2700);
    let ro = ReadOptions::default();
    check(&db, &ro, &model, n, "memtable over levels");
    db.flush().unwrap();
    check(&db, &ro, &model, n, "L0 over levels");
    fill_some(&db, &mut model, 2600..2650, 2);
    db.flush().unwrap();
    check(&db, &ro, &model, n, "two L0 files");
    db.compact_range(None, None).unwrap();
    check(&db, &ro, &model, n, "compacted");
    drop(db);
    let db = Db::open(dir.path(), small("")).unwrap();
    check(&db, &ro, &model, n, "reopened");
}

fn fill_some(db: &Db, model: &mut Model, r: std::ops::Range<u32>, round: u32) {
    for i in r {
        db.put(key(i), value(i, round)).unwrap();
        model.insert(key(i), value(i, round));
    }
}

#[test]
fn wal_replay_and_batches() {
    let dir = tempdir();
    let n = 200;
    let mut model = Model::new();
    {
        let db = Db::open(dir.path(), small("")).unwrap();
        fill(&db, &mut model, n, 0);
        db.flush().unwrap();
        let mut b = WriteBatch::new();
        b.put(key(10), b"in batch");
        b.delete_range(key(5), key(20));
        b.put(key(15), b"after in batch");
        db.write(b).unwrap();
        delete_model(&mut model, 5, 20);
        model.insert(key(15), b"after in batch".to_vec());
        db.delete_range(key(100), key(150)).unwrap();
        delete_model(&mut model, 100, 150);
        check(&db, &ReadOptions::default(), &model, n, "before reopen");
    }
    // The tombstones come back from the WAL.
    let db = Db::open(dir.path(), small("")).unwrap();
    check(&db, &ReadOptions::default(), &model, n, "replayed");
    db.flush().unwrap();
    drop(db);
    let db = Db::open(dir.path(), small("")).unwrap();
    check(
        &db,
        &ReadOptions::default(),
        &model,
        n,
        "flushed after replay",
    );
}

#[test]
fn a_tombstone_alone_is_flushed_and_dropped_at_the_bottom() {
    let dir = tempdir();
    let db = Db::open(dir.path(), small("disable_auto_compactions=true")).unwrap();
    let n = 500;
    let mut model = Model::new();
    fill(&db, &mut model, n, 0);
    db.flush().unwrap();
    let l0 = files_at(&db, 0);
    db.delete_range(key(0), key(n)).unwrap();
    model.clear();
    db.flush().unwrap();
    assert_eq!(
        files_at(&db, 0),
        l0 + 1,
        "the tombstone has a file of its own"
    );
    check(&db, &ReadOptions::default(), &model, n, "flushed tombstone");
    db.compact_range(None, None).unwrap();
    check(&db, &ReadOptions::default(), &model, n, "compacted");
    let total: u64 = (0..7).map(|l| files_at(&db, l)).sum();
    assert_eq!(total, 0, "keys and tombstone are gone at the bottom");
}

#[test]
fn subcompactions_keep_the_tombstones_of_their_ranges() {
    let dir = tempdir();
    let db = Db::open(
        dir.path(),
        small("max_subcompactions=4;disable_auto_compactions=true"),
    )
    .unwrap();
    let n = 4000;
    let mut model = Model::new();
    fill(&db, &mut model, n, 0);
    db.compact_range(None, None).unwrap();
    fill(&db, &mut model, n, 1);
    let snap = db.snapshot();
    let before = model.clone();
    for (b, e) in [(100, 900), (1500, 1510), (2000, 3900)] {
        db.delete_range(key(b), key(e)).unwrap();
        delete_model(&mut model, b, e);
    }
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    let ro = ReadOptions::default();
    check(&db, &ro, &model, n, "after subcompactions");
    let at_snap = ReadOptions::default().snapshot(Some(snap));
    check(&db, &at_snap, &before, n, "after subcompactions, snapshot");
    drop(at_snap);
    drop(db);
    let db = Db::open(dir.path(), small("max_subcompactions=4")).unwrap();
    check(&db, &ro, &model, n, "reopened");
}

#[test]
fn column_families_and_merges() {
    let dir = tempdir();
    let mut o = small("merge_operator=uint64add");
    o.create_if_missing = true;
    let db = Db::open(dir.path(), o).unwrap();
    let one = 1u64.to_le_bytes();
    for _ in 0..3 {
        db.merge(b"counter", one).unwrap();
    }
    db.delete_range(b"counter", b"counter\0").unwrap();
    db.merge(b"counter", one).unwrap();
    assert_eq!(
        db.get(b"counter").unwrap(),
        Some(1u64.to_le_bytes().to_vec())
    );
    db.flush().unwrap();
    assert_eq!(
        db.get(b"counter").unwrap(),
        Some(1u64.to_le_bytes().to_vec())
    );
    db.compact_range(None, None).unwrap();
    assert_eq!(
        db.get(b"counter").unwrap(),
        Some(1u64.to_le_bytes().to_vec())
    );
    let v: Vec<_> = db.iter().map(|r| r.unwrap()).collect();
    assert_eq!(v, vec![(b"counter".to_vec(), 1u64.to_le_bytes().to_vec())]);
}

/// A crash keeps a synced range deletion, and an unsynced one is applied
/// wholly or not at all; after the crash the DB flushes and compacts on
/// from there.
#[test]
fn crash_keeps_synced_tombstones_and_loses_unsynced_ones_whole() {
    use strata::WriteOptions;
    use strata_testkit as common;
    let dir = tempdir();
    let fs = common::fault_fs();
    let opts = common::small_opts(std::sync::Arc::new(fs.clone()));
    let synced = WriteOptions::default().sync(true).disable_wal(false);
    let n = 400;
    let mut model = Model::new();
    let db = Db::open(dir.path(), opts.clone()).unwrap();
    for i in 0..n {
        db.put_opt(&synced, key(i), value(i, 0)).unwrap();
        model.insert(key(i), value(i, 0));
    }
    db.flush().unwrap();
    let mut b = WriteBatch::new();
    b.delete_range(key(10), key(100));
    db.write_opt(&synced, b).unwrap();
    delete_model(&mut model, 10, 100);
    // Not synced: may be lost, but only as a whole.
    db.delete_range(key(200), key(300)).unwrap();
    fs.set_active(false);
    drop(db);
    fs.crash().unwrap();
    fs.set_active(true);
    let db = Db::open(dir.path(), opts.clone()).unwrap();
    let survivors = (200..300)
        .filter(|&i| db.get(key(i)).unwrap().is_some())
        .count();
    assert!(
        survivors == 0 || survivors == 100,
        "{survivors} keys of the unsynced range survive"
    );
    if survivors == 0 {
        delete_model(&mut model, 200, 300);
    }
    let ro = ReadOptions::default();
    check(&db, &ro, &model, n, "after the crash");
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    check(&db, &ro, &model, n, "compacted after the crash");
}

/// A Get of a key a newer range tombstone covers stops there: the tables
/// below are not read (no level-1-or-deeper hit is counted), while keys the
/// tombstone does not cover, and keys written after it, are still found,
/// at a snapshot from before the tombstone too.
#[test]
fn gets_stop_at_a_covering_tombstone() {
    let dir = tempdir();
    let db = Db::open(dir.path(), small("disable_auto_compactions=true")).unwrap();
    let n = 400;
    let mut model = Model::new();
    fill(&db, &mut model, n, 0);
    db.compact_range(None, None).unwrap();
    assert_eq!(files_at(&db, 0), 0);
    let before = model.clone();
    let snap = db.snapshot();
    db.delete_range(key(100), key(300)).unwrap();
    delete_model(&mut model, 100, 300);
    db.put(key(150), b"after").unwrap();
    model.insert(key(150), b"after".to_vec());
    db.flush().unwrap();
    assert_eq!(files_at(&db, 0), 1, "the tombstone and the new key in L0");
    let stats = db.statistics().unwrap();
    let deep = || stats.ticker(Ticker::GetHitL1) + stats.ticker(Ticker::GetHitL2AndUp);
    let was = deep();
    for i in (100..300).filter(|&i| i != 150) {
        assert_eq!(db.get(key(i)).unwrap(), None, "{i}");
    }
    assert_eq!(
        deep(),
        was,
        "covered Gets read the tables below the tombstone"
    );
    assert_eq!(db.get(key(150)).unwrap().as_deref(), Some(&b"after"[..]));
    assert_eq!(db.get(key(99)).unwrap(), Some(value(99, 0)));
    assert!(deep() > was, "an uncovered key is found below");
    let at_snap = ReadOptions::default().snapshot(Some(snap));
    check(
        &db,
        &at_snap,
        &before,
        n,
        "snapshot from before the tombstone",
    );
    check(
        &db,
        &ReadOptions::default(),
        &model,
        n,
        "after the tombstone",
    );
}

/// A compaction that drops entries a range tombstone covers counts them in
/// `rocksdb.compaction.key.drop.range_del`.
#[test]
fn compactions_count_the_entries_tombstones_drop() {
    let dir = tempdir();
    let db = Db::open(dir.path(), small("disable_auto_compactions=true")).unwrap();
    let mut model = Model::new();
    fill(&db, &mut model, 300, 0);
    db.flush().unwrap();
    db.delete_range(key(0), key(100)).unwrap();
    delete_model(&mut model, 0, 100);
    db.flush().unwrap();
    let stats = db.statistics().unwrap();
    assert_eq!(stats.ticker(Ticker::CompactionKeyDropRangeDel), 0);
    db.compact_range(None, None).unwrap();
    assert_eq!(stats.ticker(Ticker::CompactionKeyDropRangeDel), 100);
    check(&db, &ReadOptions::default(), &model, 300, "compacted");
}
