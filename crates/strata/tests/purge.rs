//! Obsolete files are removed without the state lock, by the job that
//! made them obsolete, before that job gives up its slot (RocksDB's order:
//! `PurgeObsoleteFiles` runs with the DB mutex released, and
//! `bg_compaction_scheduled_` drops only after it). An unlink of a large
//! table took a median 13 ms here (ext4); the removal once ran under the
//! state lock, so every writer waited 95-390 ms after each compaction of
//! study 5's 1 KB overwrite (docs/benchmarks.md). The fault FS's remove
//! gate stands in for the slow unlink.

use strata_testkit as common;

use std::sync::mpsc;
use std::sync::Arc;

use strata::stats::{Histogram, Ticker};
use strata::{Db, Options};
use strata_testkit::fault::FaultInjectionFs;

use common::{eventually, put_in_background, put_until_held, PATIENCE};

fn open(more: impl FnOnce(Options) -> Options) -> (common::TempDir, FaultInjectionFs, Arc<Db>) {
    let dir = common::tempdir();
    let fs = common::fault_fs();
    let db = common::open_on(dir.path(), &fs, |o| more(o.statistics(true)));
    (dir, fs, db)
}

#[test]
fn writers_do_not_wait_for_an_obsolete_file_removal() {
    let (_dir, fs, db) = open(|o| o.disable_auto_compactions(true));
    fs.hold_removes();
    // 64 KB memtables: writes switch the memtable, the flush makes the
    // first WAL obsolete, and the flush thread's removal of it is held.
    // The writer stops at the switch, so what it wrote since, and the
    // writes below, fit in the new memtable.
    let first = {
        let fs = fs.clone();
        put_until_held(&db, move || fs.removes_held() > 0)
    };
    let held = eventually(|| fs.removes_held() > 0);
    let first_done = first.recv_timeout(PATIENCE);
    // Writes that fit in the memtables go in while the removal waits (with
    // the removal under the state lock, the first of them waited for it).
    let more = put_in_background(&db, "b", 100).recv_timeout(PATIENCE);
    let still_held = fs.removes_held() > 0;
    fs.release_removes();
    assert!(held, "the test needs a removal held at the gate");
    assert!(first_done.is_ok(), "writes waited for a file removal");
    assert!(more.is_ok(), "writes waited for a file removal");
    assert!(still_held, "the removal was to be held throughout");
    db.wait_for_compaction().unwrap();
    let stats = db.statistics().unwrap();
    assert!(stats.ticker(Ticker::FilesDeletedImmediately) >= 1);
    assert_eq!(
        db.get(b"a000001").unwrap().as_deref(),
        Some(&[b'v'; 100][..])
    );
    assert_eq!(
        db.get(b"b000099").unwrap().as_deref(),
        Some(&[b'w'; 100][..])
    );
}

#[test]
fn a_compaction_keeps_its_slot_until_its_inputs_are_removed() {
    let (dir, fs, db) = open(|o| o.disable_auto_compactions(true));
    let stats = db.statistics().unwrap();
    for round in 0..3 {
        for i in 0..200 {
            db.put(format!("k{i:06}").as_bytes(), [b'0' + round; 100])
                .unwrap();
        }
        db.flush().unwrap();
    }
    assert_eq!(common::files_at_level(&db, 0), 3);
    fs.hold_removes();
    let (tx, compacted) = mpsc::channel();
    let db2 = db.clone();
    std::thread::spawn(move || {
        let _ = tx.send(db2.compact_range(None, None));
    });
    let held = eventually(|| fs.removes_held() > 0);
    // The job has run and installed its output, and its thread is removing
    // the inputs: it still counts as running (no second compaction may take
    // its place while the limit is one), and the caller has no answer yet.
    // Writes go on meanwhile. (On another thread: with the removal under
    // the state lock, these would wait for it, and the test fails rather
    // than hangs.)
    let (tx2, probe) = mpsc::channel();
    {
        let db = db.clone();
        std::thread::spawn(move || {
            let running = db.property("rocksdb.num-running-compactions");
            for i in 0..100 {
                db.put(format!("w{i:06}").as_bytes(), [b'w'; 100]).unwrap();
            }
            let _ = tx2.send(running);
        });
    }
    let probed = probe.recv_timeout(PATIENCE);
    let ran = stats.histogram_data(Histogram::CompactionTime).count;
    let early = compacted.try_recv().is_ok();
    fs.release_removes();
    let result = compacted.recv_timeout(PATIENCE);
    assert!(held, "the test needs a removal held at the gate");
    let Ok(running) = probed else {
        panic!("a property read and writes waited for a file removal");
    };
    assert_eq!(ran, 1, "the compaction ran before its inputs went");
    assert_eq!(running.as_deref(), Some("1"));
    assert!(
        !early,
        "compact_range returned before the inputs were removed"
    );
    assert!(matches!(result, Ok(Ok(()))), "{result:?}");
    // Once released, every obsolete file goes: the directory holds only
    // the tables the current version names.
    let tables = common::file_names(dir.path())
        .iter()
        .filter(|n| n.ends_with(".sst"))
        .count();
    let live: usize = (0..7).map(|l| common::files_at_level(&db, l)).sum();
    assert_eq!(tables, live);
    assert_eq!(common::files_at_level(&db, 0), 0);
    assert_eq!(
        db.get(b"k000007").unwrap().as_deref(),
        Some(&[b'2'; 100][..])
    );
}
