//! Recovery across a memtable switch whose old WAL was not synced: the new
//! WAL's predecessor record (docs/formats/wal.md) lets recovery notice that
//! the OS kept the new WAL but lost the old one's tail, and stop there so
//! that what survives is a prefix of the writes.

use std::path::Path;

use strata::fs::{FileSystem, PosixFileSystem};
use strata::tools::batch::WriteBatchInternals;
use strata::tools::filename::wal_file_name;
use strata::tools::wal::{Predecessor, Writer};
use strata::{Db, Options, ReadOptions, WalRecoveryMode, WriteBatch};

/// Creates an empty DB and returns the number of its (empty) WAL.
fn empty_db(dir: &Path) -> u64 {
    let db = Db::open(dir, Options::default()).unwrap();
    drop(db);
    let mut wals: Vec<u64> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".log")?.parse().ok()
        })
        .collect();
    wals.sort();
    assert_eq!(wals.len(), 1, "{wals:?}");
    wals[0]
}

fn batch(seq: u64, key: &str) -> Vec<u8> {
    let mut b = WriteBatch::default();
    b.put(key.as_bytes(), b"v");
    b.set_sequence(seq);
    b.data().to_vec()
}

/// Writes WAL `n` holding `records`.
fn write_wal(dir: &Path, n: u64, records: &[Vec<u8>]) {
    let mut w = Writer::new(PosixFileSystem.create(&wal_file_name(dir, n)).unwrap());
    for r in records {
        w.add_record(r).unwrap();
    }
    w.sync().unwrap();
}

/// The old WAL logged sequences 1 and 2 (`old_has_2` says whether 2 survived
/// the crash); the new WAL names it and holds sequence 3.
fn crashed_db(dir: &Path, old_has_2: bool) -> u64 {
    let n = empty_db(dir);
    let mut old = vec![batch(1, "a")];
    if old_has_2 {
        old.push(batch(2, "b"));
    }
    write_wal(dir, n, &old);
    let p = Predecessor {
        log_number: n,
        last_sequence: 2,
    };
    write_wal(dir, n + 1, &[p.encode(), batch(3, "c")]);
    n
}

fn get(db: &Db, k: &str) -> bool {
    db.get_opt(&ReadOptions::default(), k.as_bytes())
        .unwrap()
        .is_some()
}

fn opts(mode: WalRecoveryMode) -> Options {
    Options::default().wal_recovery_mode(mode)
}

#[test]
fn lost_tail_of_unsynced_predecessor_stops_replay_at_the_gap() {
    let dir = strata_testkit::tempdir();
    crashed_db(dir.path(), false);
    let db = Db::open(dir.path(), opts(WalRecoveryMode::PointInTimeRecovery)).unwrap();
    assert!(get(&db, "a"));
    assert!(!get(&db, "b"));
    // Replaying the new WAL would keep "c" without "b": not a prefix.
    assert!(!get(&db, "c"), "the write after the lost one was replayed");
    drop(db);
    // The state is stable across another reopen.
    let db = Db::open(dir.path(), Options::default()).unwrap();
    assert!(get(&db, "a") && !get(&db, "c"));
}

#[test]
fn complete_predecessor_replays_everything() {
    let dir = strata_testkit::tempdir();
    crashed_db(dir.path(), true);
    let db = Db::open(dir.path(), opts(WalRecoveryMode::PointInTimeRecovery)).unwrap();
    assert!(get(&db, "a") && get(&db, "b") && get(&db, "c"));
}

#[test]
fn absolute_consistency_reports_the_gap_as_corruption_naming_the_wal() {
    let dir = strata_testkit::tempdir();
    let n = crashed_db(dir.path(), false);
    let Err(e) = Db::open(dir.path(), opts(WalRecoveryMode::AbsoluteConsistency)) else {
        panic!("open must fail");
    };
    let s = e.to_string();
    let name = format!("{:06}.log", n + 1);
    assert!(s.contains(&name), "{s}");
}

#[test]
fn skip_any_corrupted_records_replays_past_the_gap() {
    let dir = strata_testkit::tempdir();
    crashed_db(dir.path(), false);
    let db = Db::open(dir.path(), opts(WalRecoveryMode::SkipAnyCorruptedRecords)).unwrap();
    assert!(get(&db, "a") && !get(&db, "b") && get(&db, "c"));
}

#[test]
fn wal_numbers_are_not_reused_after_a_crash() {
    let dir = strata_testkit::tempdir();
    let n = crashed_db(dir.path(), true);
    // A WAL numbered beyond the MANIFEST's next file number.
    write_wal(dir.path(), n + 50, &[batch(4, "d")]);
    let db = Db::open(dir.path(), Options::default()).unwrap();
    assert!(get(&db, "d"));
    // Recovery flushed every replayed WAL and started a new one numbered
    // after all of them, so the replayed ones are obsolete (were the new
    // WAL numbered below n + 50, that WAL would be replayed again forever).
    assert!(
        !wal_file_name(dir.path(), n + 50).exists(),
        "a replayed WAL outlived recovery: the new WAL reused an older number"
    );
    db.put(b"e", b"v").unwrap();
    drop(db);
    let db = Db::open(dir.path(), Options::default()).unwrap();
    assert!(get(&db, "a") && get(&db, "d") && get(&db, "e"));
}
