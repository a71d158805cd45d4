//! Bottommost sequence-number zeroing (RocksDB's `CompactionIterator`
//! behaviour): a compaction no older file overlaps writes the versions every
//! snapshot sees with sequence number 0; versions a snapshot does not see
//! keep theirs; reads at every snapshot, reopen and later overwrites behave
//! as before.

use std::path::Path;
use std::sync::Arc;

use strata::fs::{FileSystem, PosixFileSystem};
use strata::tools::sstable::{ReadOpts, Table};
use strata::tools::types::{parse_internal_key, ValueType};
use strata::tools::InternalIterator;
use strata::{CompactionStyle, Db, Options, ReadOptions};
use strata_testkit::key;

/// Universal style: a manual compaction is one full compaction, so every
/// `compact_range` below rewrites everything at the bottom.
fn opts() -> Options {
    Options::default().compaction_style(CompactionStyle::Universal)
}

/// (user key, sequence number, type) of every entry of every table file.
fn table_entries(dir: &Path) -> Vec<(Vec<u8>, u64, ValueType)> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().and_then(|x| x.to_str()) != Some("sst") {
            continue;
        }
        let f = PosixFileSystem.open_random(&p).unwrap();
        let t = Arc::new(Table::open(f, 0, p.display().to_string(), None, None).unwrap());
        let mut it = t.iter(ReadOpts::default());
        it.seek_to_first();
        while it.valid() {
            let k = parse_internal_key(it.key()).unwrap();
            out.push((k.user_key.to_vec(), k.seq, k.value_type));
            it.next();
        }
        it.status().unwrap();
    }
    out.sort();
    out
}

#[test]
fn bottommost_compaction_zeroes_what_every_snapshot_sees() {
    let dir = strata_testkit::tempdir();
    let db = Db::open(dir.path(), opts()).unwrap();
    for i in 0..2000 {
        db.put(key(i), b"old").unwrap();
    }
    let snap = db.snapshot();
    for i in 0..1000 {
        db.put(key(i), b"new").unwrap();
    }
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();

    let entries = table_entries(dir.path());
    // Keys 0..1000: "new" (unseen by the snapshot) keeps its number, "old"
    // (seen by every snapshot) is zeroed. Keys 1000..2000: one version, 0.
    let zeroed = entries.iter().filter(|e| e.1 == 0).count();
    let numbered = entries.iter().filter(|e| e.1 > 2000).count();
    assert_eq!(entries.len(), 3000, "{:?}", &entries[..4]);
    assert_eq!(zeroed, 2000);
    assert_eq!(numbered, 1000);
    assert!(entries.iter().all(|e| e.2 == ValueType::Value));

    let at_snap = ReadOptions::default().snapshot(Some(snap.clone()));
    for i in [0, 999, 1000, 1999] {
        assert_eq!(db.get_opt(&at_snap, key(i)).unwrap().unwrap(), b"old");
        let want: &[u8] = if i < 1000 { b"new" } else { b"old" };
        assert_eq!(db.get(key(i)).unwrap().unwrap(), want);
    }
    assert!(db.iter_opt(&at_snap).all(|r| r.unwrap().1 == b"old"));

    // Without the snapshot the next full compaction keeps one version of
    // each key, all zeroed.
    drop(at_snap);
    drop(snap);
    db.compact_range(None, None).unwrap();
    let entries = table_entries(dir.path());
    assert_eq!(entries.len(), 2000);
    assert!(entries.iter().all(|e| e.1 == 0), "{:?}", &entries[..4]);

    // Newer writes over zeroed entries win, in reads and in the next
    // compaction, and across a reopen.
    db.put(key(7), b"newer").unwrap();
    db.delete(key(8)).unwrap();
    db.flush().unwrap();
    assert_eq!(db.get(key(7)).unwrap().unwrap(), b"newer");
    assert_eq!(db.get(key(8)).unwrap(), None);
    db.compact_range(None, None).unwrap();
    drop(db);
    let db = Db::open(dir.path(), opts()).unwrap();
    assert_eq!(db.get(key(7)).unwrap().unwrap(), b"newer");
    assert_eq!(db.get(key(8)).unwrap(), None);
    assert_eq!(db.get(key(9)).unwrap().unwrap(), b"new");
    assert_eq!(db.iter().count(), 1999);
    let entries = table_entries(dir.path());
    assert_eq!(
        entries.len(),
        1999,
        "the tombstone and what it hid are gone"
    );
    assert!(entries.iter().all(|e| e.1 == 0));
}

#[test]
fn a_snapshot_older_than_the_data_keeps_every_number() {
    let dir = strata_testkit::tempdir();
    let db = Db::open(dir.path(), opts()).unwrap();
    db.put(b"first", b"x").unwrap();
    let snap = db.snapshot();
    for i in 0..1500 {
        db.put(key(i), b"v").unwrap();
    }
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    let entries = table_entries(dir.path());
    assert_eq!(entries.len(), 1501);
    // Only "first" (written before the snapshot) is seen by it.
    let zeroed: Vec<_> = entries.iter().filter(|e| e.1 == 0).collect();
    assert_eq!(zeroed.len(), 1);
    assert_eq!(zeroed[0].0, b"first");
    let ro = ReadOptions::default().snapshot(Some(snap));
    assert_eq!(db.get_opt(&ro, key(3)).unwrap(), None);
    assert_eq!(db.get_opt(&ro, b"first").unwrap().unwrap(), b"x");
}

/// Leveled compactions over several levels, most of them with older data
/// below (not bottommost), some at the bottom: no user key ever ends up with
/// two zeroed versions (which would no longer be ordered), and reads match a
/// model through it all and after a reopen.
#[test]
fn zeroing_only_where_nothing_older_lies_below() {
    let dir = strata_testkit::tempdir();
    let opts = Options::default()
        .write_buffer_size(32 << 10)
        .target_file_size_base(16 << 10)
        .max_bytes_for_level_base(64 << 10)
        .max_bytes_for_level_multiplier(4.0)
        .level0_file_num_compaction_trigger(2)
        .compression(strata::CompressionType::None);
    let mut model = std::collections::BTreeMap::new();
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    {
        let db = Db::open(dir.path(), opts.clone()).unwrap();
        for n in 0..30_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let k = key((x % 3000) as u32);
            if x.is_multiple_of(11) {
                db.delete(&k).unwrap();
                model.remove(&k);
            } else {
                let v = format!("v{n:0>100}").into_bytes();
                db.put(&k, &v).unwrap();
                model.insert(k, v);
            }
        }
        db.wait_for_compaction().unwrap();
        let levels: Vec<String> = (0..4)
            .map(|l| {
                db.property(&format!("rocksdb.num-files-at-level{l}"))
                    .unwrap()
            })
            .collect();
        assert!(
            levels[2] != "0",
            "the test wants data two levels down: {levels:?}"
        );
    }
    let entries = table_entries(dir.path());
    let zeroed = entries.iter().filter(|e| e.1 == 0).count();
    assert!(zeroed > 0, "some compaction reached the bottom");
    for w in entries.windows(2) {
        assert!(
            !(w[0].0 == w[1].0 && w[0].1 == 0 && w[1].1 == 0),
            "two zeroed versions of {:?}",
            String::from_utf8_lossy(&w[0].0)
        );
    }
    let db = Db::open(dir.path(), opts).unwrap();
    let got: Vec<(Vec<u8>, Vec<u8>)> = db.iter().map(|r| r.unwrap()).collect();
    let want: Vec<(Vec<u8>, Vec<u8>)> = model.into_iter().collect();
    assert_eq!(got, want);
}
