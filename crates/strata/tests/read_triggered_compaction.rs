//! Read-triggered compaction (`read_sampling_multiplier`,
//! `read_compaction_rate`): Gets that read a block of an L0 table and then
//! find their key below it, or an iterator whose sampled keys two tables
//! hold, nominate the L0 table once it is charged enough, and the
//! background merges it down though nothing is due by size; off (the
//! default) the tree stays as it is. Every key reads back the same after.

use std::path::Path;

use strata::{CompactionStyle, CompressionType, Db, Options};
use strata_testkit::{key, tempdir};

const KEYS: u32 = 2000;

fn value(i: u32, round: u32) -> Vec<u8> {
    (0..1000u32)
        .map(|j| (i * 31 + j * 7 + round * 13) as u8)
        .collect()
}

fn opts(multiplier: i32) -> Options {
    Options::default()
        .compression(CompressionType::None)
        .level0_file_num_compaction_trigger(10)
        .read_sampling_multiplier(multiplier)
}

/// Every key in one sorted run below an L0 table that holds the odd keys
/// again: a Get of an even key reads a block of the L0 table for nothing.
fn two_runs(dir: &Path, o: Options) -> Db {
    let db = Db::open(dir, o).unwrap();
    for i in 0..KEYS {
        db.put(key(i), value(i, 0)).unwrap();
    }
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    for i in (1..KEYS).step_by(2) {
        db.put(key(i), value(i, 1)).unwrap();
    }
    db.flush().unwrap();
    assert_eq!(l0_files(&db), 1);
    db
}

fn l0_files(db: &Db) -> u32 {
    db.property("rocksdb.num-files-at-level0")
        .unwrap()
        .parse()
        .unwrap()
}

fn check_all(db: &Db) {
    for i in 0..KEYS {
        let want = value(i, i % 2);
        assert_eq!(db.get(key(i)).unwrap().unwrap(), want, "key {i}");
    }
}

/// Gets of `n` even keys from 2 on (key 0 lies before the L0 table's
/// range), each reading a block of the L0 table first.
fn get_evens(db: &Db, n: u32) {
    for i in (2..KEYS).step_by(2).take(n as usize) {
        assert_eq!(db.get(key(i)).unwrap().unwrap(), value(i, 0));
    }
}

/// Steps an iterator over the first `n` keys from the start.
fn scan(db: &Db, n: u32) {
    let mut it = db.iter();
    it.seek_to_first();
    let mut seen = 0;
    while it.valid() && seen < n {
        seen += 1;
        it.advance();
    }
    it.status().unwrap();
}

#[test]
fn gets_that_pass_through_a_table_merge_it_down() {
    let tmp = tempdir();
    let db = two_runs(tmp.path(), opts(16));
    // The L0 table (about 1 MB) allows 100 charges.
    get_evens(&db, 99);
    db.wait_for_compaction().unwrap();
    assert_eq!(l0_files(&db), 1, "99 charges nominate nothing");
    get_evens(&db, 1);
    db.wait_for_compaction().unwrap();
    assert_eq!(l0_files(&db), 0, "the 100th charge nominates the L0 table");
    check_all(&db);
}

#[test]
fn gets_found_in_the_first_table_charge_nothing() {
    let tmp = tempdir();
    let db = two_runs(tmp.path(), opts(16));
    for _ in 0..3 {
        for i in (1..KEYS).step_by(2) {
            assert_eq!(db.get(key(i)).unwrap().unwrap(), value(i, 1));
        }
    }
    db.wait_for_compaction().unwrap();
    assert_eq!(l0_files(&db), 1);
}

#[test]
fn an_iterator_sampling_keys_two_tables_hold_merges_it_down() {
    let tmp = tempdir();
    // A multiplier of 0 samples every entry.
    let db = two_runs(tmp.path(), opts(0));
    scan(&db, 150);
    db.wait_for_compaction().unwrap();
    assert_eq!(l0_files(&db), 0);
    check_all(&db);
}

#[test]
fn off_by_default_reads_leave_the_tree_alone() {
    let tmp = tempdir();
    let db = two_runs(
        tmp.path(),
        Options::default()
            .compression(CompressionType::None)
            .level0_file_num_compaction_trigger(10),
    );
    get_evens(&db, 1000);
    scan(&db, KEYS);
    db.wait_for_compaction().unwrap();
    assert_eq!(l0_files(&db), 1);
}

#[test]
fn reopened_db_counts_afresh() {
    let tmp = tempdir();
    {
        let db = two_runs(tmp.path(), opts(16));
        get_evens(&db, 60);
    }
    let db = Db::open(tmp.path(), opts(16)).unwrap();
    get_evens(&db, 60);
    db.wait_for_compaction().unwrap();
    assert_eq!(l0_files(&db), 1, "charges are not kept across a reopen");
    get_evens(&db, 40);
    db.wait_for_compaction().unwrap();
    assert_eq!(l0_files(&db), 0);
    check_all(&db);
}

#[test]
fn other_compaction_styles_refuse_it() {
    for style in [CompactionStyle::Universal, CompactionStyle::Fifo] {
        let tmp = tempdir();
        let err = Db::open(tmp.path(), opts(16).compaction_style(style)).unwrap_err();
        assert!(
            matches!(err, strata::Error::NotSupported(ref m) if m.contains("read_sampling_multiplier")),
            "{style:?}: {err}"
        );
    }
    let tmp = tempdir();
    let err = Db::open(tmp.path(), opts(-2)).unwrap_err();
    assert!(
        err.to_string().contains("read_sampling_multiplier"),
        "{err}"
    );
}
