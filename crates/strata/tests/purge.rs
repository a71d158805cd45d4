//! Obsolete files are removed without the state lock and off the flush
//! and compaction threads. An unlink of a large table took a median 13 ms
//! here (ext4); the removal once ran under the state lock on the thread
//! whose job made the files obsolete, so every writer and the next
//! compaction waited 95-390 ms after each compaction of study 5's 1 KB
//! overwrite (docs/benchmarks.md). The fault FS's remove gate stands in for the slow
//! unlink: while it holds a removal, nothing but the removal may wait.

mod common;

use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

use strata::fs::fault::FaultInjectionFs;
use strata::fs::FileSystem;
use strata::stats::{Histogram, Ticker};
use strata::{Db, Options};

/// How long a step that should not wait may take before the test calls it
/// stuck (generous: CI machines are loaded).
const PATIENCE: Duration = Duration::from_secs(30);

fn open(more: impl FnOnce(Options) -> Options) -> (tempfile::TempDir, FaultInjectionFs, Arc<Db>) {
    let dir = common::tempdir();
    let fs = common::fault_fs();
    let shared: Arc<dyn FileSystem> = Arc::new(fs.clone());
    let opts = more(Options {
        statistics: true,
        ..common::small_opts(shared)
    });
    let db = Arc::new(Db::open(dir.path(), opts).unwrap());
    (dir, fs, db)
}

/// Writes `n` 100-byte values under `prefix` on another thread, in an
/// order that makes each memtable span the whole key range (so L0 files
/// overlap and compactions merge rather than move); the receiver hears
/// when it is done.
fn write_in_background(db: &Arc<Db>, prefix: &'static str, n: usize) -> mpsc::Receiver<()> {
    let (tx, rx) = mpsc::channel();
    let db = db.clone();
    std::thread::spawn(move || {
        for i in 0..n {
            // 7919 is prime and no `n` here is its multiple: a permutation.
            let k = i * 7919 % n;
            db.put(format!("{prefix}{k:06}").as_bytes(), &[b'v'; 100])
                .unwrap();
        }
        let _ = tx.send(());
    });
    rx
}

/// Polls `cond` until it holds or [`PATIENCE`] runs out.
fn eventually(mut cond: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < PATIENCE {
        if cond() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}

#[test]
fn writers_do_not_wait_for_an_obsolete_file_removal() {
    let (_dir, fs, db) = open(|o| Options {
        disable_auto_compactions: true,
        ..o
    });
    fs.hold_removes();
    // 64 KB memtables: the first flush makes the first WAL obsolete, and
    // its removal is held.
    let first = write_in_background(&db, "a", 1_500);
    let held = eventually(|| fs.removes_held() > 0);
    let first_done = first.recv_timeout(PATIENCE);
    // More writes, and with them more flushes, while the removal waits.
    let second = write_in_background(&db, "b", 3_000).recv_timeout(PATIENCE);
    let still_held = fs.removes_held() > 0;
    fs.release_removes();
    assert!(held, "the test needs a removal held at the gate");
    assert!(first_done.is_ok(), "writes waited for a file removal");
    assert!(second.is_ok(), "writes waited for a file removal");
    assert!(still_held, "the removal was to be held throughout");
    db.wait_for_compaction().unwrap();
    let stats = db.statistics().unwrap();
    assert!(stats.ticker(Ticker::FilesDeletedImmediately) >= 2);
    assert_eq!(
        db.get(b"a000001").unwrap().as_deref(),
        Some(&[b'v'; 100][..])
    );
}

#[test]
fn compactions_run_while_an_earlier_jobs_files_are_being_removed() {
    let (dir, fs, db) = open(|o| o);
    let stats = db.statistics().unwrap();
    fs.hold_removes();
    let writes = write_in_background(&db, "k", 6_000);
    // Two L0 files trigger a compaction (small_opts); the first one's
    // inputs wait at the gate, and later ones must still run.
    let compactions = || stats.histogram_data(Histogram::CompactionTime).count;
    let ran = eventually(|| compactions() >= 3);
    let written = writes.recv_timeout(PATIENCE);
    let held = fs.removes_held() > 0;
    fs.release_removes();
    assert!(held, "the test needs a removal held at the gate");
    assert!(
        ran,
        "only {} compactions ran while a removal was held",
        compactions()
    );
    assert!(written.is_ok(), "writes waited for a file removal");
    // Once released, every obsolete file goes: the directory holds only
    // the tables the current version names.
    db.wait_for_compaction().unwrap();
    let tables = common::file_names(dir.path())
        .iter()
        .filter(|n| n.ends_with(".sst"))
        .count();
    let live: usize = (0..7).map(|l| common::files_at_level(&db, l)).sum();
    assert_eq!(tables, live);
}
