//! Concurrency: writers, readers, iterators and snapshots on many threads,
//! with background flushes and compactions (tiny write buffer) and explicit
//! `flush`/`compact_range` calls running at the same time.
//!
//! Invariants the writers keep:
//! - every batch sets all `GROUP` shared keys `c..` to one value tagged
//!   with its writer and batch number (or deletes them all), so any
//!   consistent view has all of them equal (or all absent);
//! - writer `w` also writes its own keys `p<w>-..` with an increasing
//!   version, all in one batch, so a view has them all at one version and a
//!   later view never sees an older version.
//!
//! Readers check both through snapshot gets, snapshot iterators, and plain
//! iterators (which read at an implicit snapshot).
//!
//! Longer: `STRATA_CONCURRENCY_BATCHES=20000 cargo test -p strata --test concurrency -- --nocapture`

use strata_testkit as common;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use strata::{Db, ReadOptions, WriteBatch, WriteOptions};

const GROUP: usize = 16;
const WRITERS: usize = 4;
const OWN: usize = 8;

fn shared_key(i: usize) -> Vec<u8> {
    format!("c{i:02}").into_bytes()
}

fn own_key(w: usize, i: usize) -> Vec<u8> {
    format!("p{w}-{i}").into_bytes()
}

fn version_of(v: &[u8]) -> u64 {
    let s = std::str::from_utf8(v).unwrap();
    s.split('-').next().unwrap().parse().unwrap()
}

/// Checks that the shared keys seen in one view agree.
fn check_shared(view: &[Option<Vec<u8>>], what: &str) {
    let first = &view[0];
    for (i, v) in view.iter().enumerate() {
        assert!(
            v == first,
            "{what}: shared key {i} differs from key 0: {:?} vs {:?}",
            v.as_deref().map(common::show),
            first.as_deref().map(common::show)
        );
    }
}

/// Checks one writer's own keys in one view; returns their version.
fn check_own(view: &[Option<Vec<u8>>], last: u64, what: &str) -> u64 {
    let vs: Vec<u64> = view
        .iter()
        .map(|v| v.as_deref().map_or(0, version_of))
        .collect();
    assert!(
        vs.iter().all(|v| *v == vs[0]),
        "{what}: own keys at different versions {vs:?}"
    );
    assert!(
        vs[0] >= last,
        "{what}: version went back from {last} to {}",
        vs[0]
    );
    vs[0]
}

#[test]
fn concurrent_writers_readers_iterators_and_snapshots() {
    let dir = common::tempdir();
    let mut opts = common::small_opts(strata::fs::default_fs());
    opts.write_buffer_size = 32 << 10;
    opts.max_background_jobs = 3;
    let db = Arc::new(Db::open(dir.path(), opts).unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let checks = Arc::new(AtomicU64::new(0));
    let batches = common::env_u64("STRATA_CONCURRENCY_BATCHES", 1500);
    let mut writers = Vec::new();
    for w in 0..WRITERS {
        let db = db.clone();
        writers.push(std::thread::spawn(move || {
            let mut rng = StdRng::seed_from_u64(w as u64);
            for k in 1..=batches {
                let mut b = WriteBatch::new();
                let delete = rng.gen_ratio(1, 10);
                let pad = "x".repeat(rng.gen_range(0..300));
                for i in 0..GROUP {
                    if delete {
                        b.delete(shared_key(i));
                    } else {
                        b.put(shared_key(i), format!("w{w}-{k}-{pad}").as_bytes());
                    }
                }
                for i in 0..OWN {
                    b.put(own_key(w, i), format!("{k}-{pad}").as_bytes());
                }
                let wo = WriteOptions::default()
                    .sync(rng.gen_ratio(1, 50))
                    .disable_wal(false);
                db.write_opt(&wo, b).unwrap();
            }
        }));
    }
    let mut readers = Vec::new();
    for r in 0..3usize {
        let (db, stop, checks) = (db.clone(), stop.clone(), checks.clone());
        readers.push(std::thread::spawn(move || {
            let mut rng = StdRng::seed_from_u64(100 + r as u64);
            let mut last = [0u64; WRITERS];
            while !stop.load(Ordering::Acquire) {
                let snap = db.snapshot();
                let ro = ReadOptions::default().snapshot(Some(snap.clone()));
                match rng.gen_range(0..3) {
                    0 => {
                        // Snapshot gets.
                        let view: Vec<_> = (0..GROUP)
                            .map(|i| db.get_opt(&ro, shared_key(i)).unwrap())
                            .collect();
                        check_shared(&view, "snapshot get");
                        for (w, l) in last.iter_mut().enumerate() {
                            let view: Vec<_> = (0..OWN)
                                .map(|i| db.get_opt(&ro, own_key(w, i)).unwrap())
                                .collect();
                            *l = check_own(&view, *l, "snapshot get");
                        }
                    }
                    1 => {
                        // Snapshot iterator, forward or reverse.
                        let mut it = db.iter_opt(&ro);
                        if rng.gen_bool(0.5) {
                            it = it.reverse();
                        }
                        let all: Vec<(Vec<u8>, Vec<u8>)> =
                            it.collect::<strata::Result<_>>().unwrap();
                        check_iter_view(&all, &mut last, "snapshot iterator");
                    }
                    _ => {
                        // A plain iterator reads at one implicit point in time,
                        // even while writers continue.
                        let all: Vec<(Vec<u8>, Vec<u8>)> =
                            db.iter().collect::<strata::Result<_>>().unwrap();
                        check_iter_view(&all, &mut last, "iterator");
                    }
                }
                checks.fetch_add(1, Ordering::Relaxed);
            }
        }));
    }
    let maint = {
        let (db, stop) = (db.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut n = 0u64;
            while !stop.load(Ordering::Acquire) {
                std::thread::sleep(std::time::Duration::from_millis(20));
                if n % 3 == 2 {
                    db.compact_range(None, None).unwrap();
                } else {
                    db.flush().unwrap();
                }
                n += 1;
            }
            n
        })
    };
    for w in writers {
        w.join().unwrap();
    }
    stop.store(true, Ordering::Release);
    for r in readers {
        r.join().unwrap();
    }
    let maint_ops = maint.join().unwrap();
    db.wait_for_compaction().unwrap();
    // Final state: every writer's own keys are at its last version.
    for w in 0..WRITERS {
        for i in 0..OWN {
            let v = db.get(own_key(w, i)).unwrap().unwrap();
            assert_eq!(version_of(&v), batches);
        }
    }
    let view: Vec<_> = (0..GROUP).map(|i| db.get(shared_key(i)).unwrap()).collect();
    check_shared(&view, "final");
    let checks = checks.load(Ordering::Relaxed);
    println!(
        "concurrency: {WRITERS} writers x {batches} batches, {checks} reader checks, {maint_ops} flush/compact calls"
    );
    assert!(checks > 10, "readers ran only {checks} checks");
}

/// Checks a full iteration: shared keys all present with one value or all
/// absent; each writer's own keys at one version, never older than before.
fn check_iter_view(all: &[(Vec<u8>, Vec<u8>)], last: &mut [u64; WRITERS], what: &str) {
    let get = |k: &[u8]| {
        all.iter()
            .find(|(key, _)| key.as_slice() == k)
            .map(|(_, v)| v.clone())
    };
    let view: Vec<_> = (0..GROUP).map(|i| get(&shared_key(i))).collect();
    check_shared(&view, what);
    for (w, l) in last.iter_mut().enumerate() {
        let view: Vec<_> = (0..OWN).map(|i| get(&own_key(w, i))).collect();
        *l = check_own(&view, *l, what);
    }
    let mut keys: Vec<&Vec<u8>> = all.iter().map(|(k, _)| k).collect();
    let sorted = {
        let mut s = keys.clone();
        s.sort();
        s
    };
    if keys != sorted {
        keys.reverse();
    }
    assert!(keys == sorted, "{what}: keys out of order");
}

/// Many threads taking and dropping snapshots while compactions drop old
/// versions: each snapshot keeps reading the value it saw first.
#[test]
fn snapshots_stay_fixed_under_compaction() {
    let dir = common::tempdir();
    let db = Arc::new(Db::open(dir.path(), common::small_opts(strata::fs::default_fs())).unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (db, stop) = (db.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut k = 0u64;
            while !stop.load(Ordering::Acquire) {
                k += 1;
                for i in 0..20u32 {
                    db.put(
                        format!("k{i:02}").as_bytes(),
                        format!("{k}-{}", "v".repeat(500)).as_bytes(),
                    )
                    .unwrap();
                }
            }
        })
    };
    let mut readers = Vec::new();
    for _ in 0..3 {
        let db = db.clone();
        readers.push(std::thread::spawn(move || {
            for _ in 0..30 {
                let snap = db.snapshot();
                let ro = ReadOptions::default().snapshot(Some(snap));
                let first: Vec<_> = (0..20u32)
                    .map(|i| db.get_opt(&ro, format!("k{i:02}").as_bytes()).unwrap())
                    .collect();
                std::thread::sleep(std::time::Duration::from_millis(5));
                db.compact_range(None, None).unwrap();
                let again: Vec<_> = (0..20u32)
                    .map(|i| db.get_opt(&ro, format!("k{i:02}").as_bytes()).unwrap())
                    .collect();
                assert!(
                    first == again,
                    "a snapshot's view changed across a compaction"
                );
            }
        }));
    }
    for r in readers {
        r.join().unwrap();
    }
    stop.store(true, Ordering::Release);
    writer.join().unwrap();
}
