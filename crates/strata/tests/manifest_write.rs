//! MANIFEST edits are written and synced with the state lock released,
//! one at a time (`db/manifest.rs`), as RocksDB's `LogAndApply` releases
//! its mutex for the write. Writers take the lock for every write group;
//! under it, every flush's and compaction's MANIFEST fsync held them all.
//! The fault FS's MANIFEST sync gate stands in for a slow fsync.

use strata_testkit as common;

use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use strata::Db;
use strata_testkit::fault::FaultInjectionFs;

use common::{eventually, put_in_background, put_until_held, PATIENCE};

fn open(dir: &common::TempDir, fs: &FaultInjectionFs) -> Arc<Db> {
    common::open_on(dir.path(), fs, |o| o.disable_auto_compactions(true))
}

fn value(db: &Db, key: &str) -> Option<Vec<u8>> {
    db.get(key.as_bytes()).unwrap()
}

#[test]
fn writers_do_not_wait_for_a_manifest_sync() {
    let dir = common::tempdir();
    let fs = common::fault_fs();
    let db = open(&dir, &fs);
    fs.hold_manifest_syncs();
    // 64 KB memtables: the writes switch the memtable and the flush's
    // MANIFEST sync is held. The writer stops at the switch, so what it
    // wrote since, and the writes below, fit in the new memtable.
    let first = {
        let fs = fs.clone();
        put_until_held(&db, move || fs.manifest_syncs_held() > 0)
    };
    let held = eventually(|| fs.manifest_syncs_held() > 0);
    let first_done = first.recv_timeout(PATIENCE);
    // Writes that fit in the memtables go in, and reads see the memtable
    // being flushed, while its MANIFEST edit waits (with the write under
    // the state lock, the first of these waited for it).
    let more = put_in_background(&db, "b", 100).recv_timeout(PATIENCE);
    let (tx, read) = mpsc::channel();
    {
        let db = db.clone();
        std::thread::spawn(move || {
            let _ = tx.send(value(&db, "a000001"));
        });
    }
    let read = read.recv_timeout(PATIENCE);
    let still_held = fs.manifest_syncs_held() > 0;
    fs.release_manifest_syncs();
    assert!(held, "the test needs a MANIFEST sync held at the gate");
    assert!(first_done.is_ok(), "writes waited for a MANIFEST sync");
    assert!(more.is_ok(), "writes waited for a MANIFEST sync");
    assert_eq!(
        read.expect("a read waited for a MANIFEST sync"),
        Some(vec![b'v'; 100])
    );
    assert!(still_held, "the sync was to be held throughout");
    db.flush().unwrap();
    assert!(common::files_at_level(&db, 0) >= 2);
    assert_eq!(value(&db, "a000001"), Some(vec![b'v'; 100]));
    assert_eq!(value(&db, "b000099"), Some(vec![b'w'; 100]));
}

#[test]
fn one_manifest_edit_is_written_at_a_time() {
    let dir = common::tempdir();
    let fs = common::fault_fs();
    let db = open(&dir, &fs);
    for round in 0..3u8 {
        for i in 0..200 {
            db.put(format!("k{i:06}").as_bytes(), [b'0' + round; 100])
                .unwrap();
        }
        db.flush().unwrap();
    }
    assert_eq!(common::files_at_level(&db, 0), 3);
    fs.hold_manifest_syncs();
    // A manual compaction reaches its MANIFEST edit and is held there.
    let (tx, compacted) = mpsc::channel();
    {
        let db = db.clone();
        std::thread::spawn(move || {
            let _ = tx.send(db.compact_range(None, None));
        });
    }
    let held = eventually(|| fs.manifest_syncs_held() == 1);
    let tables_before = count_tables(&dir);
    // Meanwhile writes switch the memtable and its flush writes a table;
    // its edit must wait for the compaction's, not be written beside it.
    let wrote = put_in_background(&db, "n", 800).recv_timeout(PATIENCE);
    let flushed = eventually(|| count_tables(&dir) > tables_before)
        && eventually(|| db.property("rocksdb.num-running-flushes").as_deref() == Some("1"));
    std::thread::sleep(Duration::from_millis(200));
    let at_gate = fs.manifest_syncs_held();
    fs.release_manifest_syncs();
    let result = compacted.recv_timeout(PATIENCE);
    assert!(
        held,
        "the test needs the compaction's sync held at the gate"
    );
    assert!(wrote.is_ok(), "writes waited for a MANIFEST sync");
    assert!(flushed, "the test needs a flush waiting to log its edit");
    assert_eq!(at_gate, 1, "two MANIFEST edits were written at once");
    assert!(matches!(result, Ok(Ok(()))), "{result:?}");
    db.wait_for_compaction().unwrap();
    db.flush().unwrap();
    assert_eq!(value(&db, "k000007"), Some(vec![b'2'; 100]));
    assert_eq!(value(&db, "n000799"), Some(vec![b'w'; 100]));
    // Both edits are in the MANIFEST: a reopen sees the same files.
    let live: usize = (0..7).map(|l| common::files_at_level(&db, l)).sum();
    assert!(eventually(|| Arc::strong_count(&db) == 1));
    drop(db);
    let db = open(&dir, &fs);
    let reopened: usize = (0..7).map(|l| common::files_at_level(&db, l)).sum();
    assert_eq!(reopened, live);
    assert_eq!(value(&db, "k000199"), Some(vec![b'2'; 100]));
    assert_eq!(value(&db, "n000000"), Some(vec![b'w'; 100]));
}

fn count_tables(dir: &common::TempDir) -> usize {
    common::file_names(dir.path())
        .iter()
        .filter(|n| n.ends_with(".sst"))
        .count()
}
