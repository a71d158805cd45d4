//! Write stalls: with small `level0_slowdown_writes_trigger` /
//! `level0_stop_writes_trigger` and a tiny write buffer, writers are slowed
//! and stopped, yet every write completes (no deadlock: a watchdog fails the
//! test after 120 s) and `rocksdb.stall.micros` counts the waiting.

use strata_testkit as common;

use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use strata::stats::{Histogram, Ticker};
use strata::{Db, Options};

fn stall_opts() -> Options {
    common::small_options()
        .write_buffer_size(32 << 10)
        .max_write_buffer_number(2)
        .level0_slowdown_writes_trigger(2)
        .level0_stop_writes_trigger(3)
        .delayed_write_rate(4 << 20)
        .statistics(true)
}

/// Runs `f` on a thread and fails if it has not finished after `secs`.
fn within<T: Send + 'static>(secs: u64, what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        let _ = tx.send(r);
    });
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(Ok(v)) => v,
        Ok(Err(p)) => std::panic::resume_unwind(p),
        Err(_) => panic!("{what}: not finished after {secs} s (deadlock?)"),
    }
}

fn write_load(db: &Db, thread: u32, n: u32) {
    let value = vec![b'v'; 1000];
    for i in 0..n {
        db.put(format!("t{thread}-{i:06}").as_bytes(), &value)
            .unwrap();
    }
}

#[test]
fn stalled_writers_complete_and_stall_micros_grows() {
    let dir = common::tempdir();
    let db = Arc::new(Db::open(dir.path(), stall_opts()).unwrap());
    let n = 3000;
    let threads = 4;
    let d = db.clone();
    within(120, "stalled writers", move || {
        let hs: Vec<_> = (0..threads)
            .map(|t| {
                let d = d.clone();
                std::thread::spawn(move || write_load(&d, t, n))
            })
            .collect();
        for h in hs {
            h.join().unwrap();
        }
    });
    let stall = db.statistics().unwrap().ticker(Ticker::StallMicros);
    println!(
        "write_stall: {} writes, rocksdb.stall.micros = {stall}",
        n * threads
    );
    assert!(stall > 0, "no stall was counted");
    // One `rocksdb.db.write.stall` sample per delayed write group, holding
    // its whole delay: the samples add up to the ticker exactly.
    let h = db.statistics().unwrap().histogram(Histogram::WriteStall);
    assert!(h.count() > 0, "no write-stall sample");
    assert_eq!(h.sum(), stall);
    let stats = db.property("rocksdb.stats").unwrap();
    assert!(stats.contains("Stall"), "{stats}");
    // Everything was written.
    let d = db.clone();
    within(120, "wait_for_compaction", move || {
        d.wait_for_compaction().unwrap()
    });
    for t in 0..threads {
        for i in (0..n).step_by(97) {
            assert!(db.get(format!("t{t}-{i:06}").as_bytes()).unwrap().is_some());
        }
    }
    assert_eq!(db.iter().count() as u32, n * threads);
}

/// Reads and explicit flushes keep working while a writer is stalled.
#[test]
fn stalls_do_not_block_readers_or_flush() {
    let dir = common::tempdir();
    let db = Arc::new(Db::open(dir.path(), stall_opts()).unwrap());
    let d = db.clone();
    let writer = std::thread::spawn(move || write_load(&d, 0, 4000));
    let d = db.clone();
    within(120, "reads and flushes during stalls", move || {
        for i in 0..200u32 {
            let _ = d.get(format!("t0-{i:06}").as_bytes()).unwrap();
            if i % 50 == 0 {
                d.flush().unwrap();
            }
        }
    });
    let d = db.clone();
    within(120, "stalled writer", move || writer.join().unwrap());
    drop(d);
    assert!(db.statistics().unwrap().ticker(Ticker::StallMicros) > 0);
}
