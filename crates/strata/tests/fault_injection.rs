//! Fault injection: fail the N-th write, sync, rename, create or directory
//! sync with EIO (one-shot) or ENOSPC (sticky, a disk that stays full) while
//! a fixed workload runs (writes, batches, synced writes, flushes,
//! compactions, a reopen).
//!
//! For every case: the error reaches the caller (the failing write, or a
//! later write as `Error::Background`), nothing panics, a write after the
//! error is refused, reads still return the acknowledged data; after
//! `clear_faults()` the DB reopens (cleanly, or after a simulated crash)
//! with every acknowledged write (every acknowledged synced write, after a
//! crash) and is consistent: iteration equals the model, also after a full
//! compaction.
//!
//! The N values are spread over the number of operations of each kind that
//! a fault-free run of the workload performs. The test prints a summary
//! line (run with `--nocapture`) that `docs/reliability.md` can quote.

use strata_testkit as common;

use std::collections::BTreeMap;
use std::sync::Arc;

use common::{apply, batch_of, dump, first_diff, lost_writes, Model, Ops};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use strata::{Db, Error, Options, WriteOptions};
use strata_testkit::fault::{FaultInjectionFs, FaultOp};

enum Step {
    Write(Ops, bool),
    Flush,
    Compact,
    Reopen,
}

/// The fixed workload: about 700 writes with flushes, compactions and one
/// reopen in the middle.
fn workload() -> Vec<Step> {
    let mut rng = StdRng::seed_from_u64(7);
    let mut steps = Vec::new();
    for i in 0..700u32 {
        if i == 350 {
            steps.push(Step::Reopen);
        }
        if i % 150 == 149 {
            steps.push(Step::Flush);
        }
        if i % 300 == 299 {
            steps.push(Step::Compact);
        }
        let n = if rng.gen_ratio(1, 5) {
            rng.gen_range(2..6)
        } else {
            1
        };
        let ops: Ops = (0..n)
            .map(|_| {
                let k = format!("key{:04}", rng.gen_range(0..400)).into_bytes();
                let v = rng.gen_bool(0.85).then(|| {
                    let mut v = format!("v{i}-").into_bytes();
                    v.resize(rng.gen_range(10..900), b'v');
                    v
                });
                (k, v)
            })
            .collect();
        steps.push(Step::Write(ops, rng.gen_ratio(1, 6)));
    }
    steps
}

fn opts(fs: &FaultInjectionFs) -> Options {
    let mut o = common::small_opts(Arc::new(fs.clone()));
    o.write_buffer_size = 32 << 10;
    o
}

/// What one case observed.
#[derive(Debug, Default)]
struct Outcome {
    error_seen: bool,
    background: bool,
    in_open: bool,
    accepted_after_error: bool,
}

struct Case {
    op: FaultOp,
    n: u64,
    errno: i32,
    sticky: bool,
    crash: bool,
}

impl Case {
    fn name(&self) -> String {
        format!(
            "{:?} #{} {} {}{}",
            self.op,
            self.n,
            if self.errno == libc::ENOSPC {
                "ENOSPC"
            } else {
                "EIO"
            },
            if self.sticky { "sticky" } else { "once" },
            if self.crash { " + crash" } else { "" }
        )
    }
}

/// The model of what the DB holds, what is durable, the unsynced writes
/// since, and the batch of a write that failed.
#[derive(Default)]
struct Tracked {
    model: Model,
    durable: Model,
    pending: Vec<Ops>,
    failed: Option<Ops>,
}

impl Tracked {
    /// Runs one workload step on `d` and records its effect.
    fn run(&mut self, d: &Db, step: &Step) -> strata::Result<()> {
        let r = match step {
            Step::Write(ops, sync) => {
                let wo = WriteOptions::default().sync(*sync).disable_wal(false);
                let r = d.write_opt(&wo, batch_of(ops));
                match &r {
                    Ok(()) => {
                        apply(&mut self.model, ops);
                        if *sync {
                            self.durable = self.model.clone();
                            self.pending.clear();
                        } else {
                            self.pending.push(ops.clone());
                        }
                    }
                    Err(_) => self.failed = Some(ops.clone()),
                }
                r
            }
            Step::Flush => d.flush(),
            Step::Compact => d.compact_range(None, None),
            Step::Reopen => Ok(()),
        };
        if r.is_ok() && matches!(step, Step::Flush | Step::Compact) {
            self.durable = self.model.clone();
            self.pending.clear();
        }
        r
    }
}

/// Runs the workload with the case's fault; returns what happened.
fn run_case(case: &Case, steps: &[Step], strict: bool) -> (Outcome, FaultInjectionFs) {
    let name = case.name();
    let dir = common::tempdir();
    let fs = common::fault_fs();
    if case.sticky {
        fs.fail_from(case.op, case.n, case.errno);
    } else {
        fs.fail_after(case.op, case.n, case.errno);
    }
    let mut out = Outcome::default();
    let mut state = Tracked::default();
    let mut db = match Db::open(dir.path(), opts(&fs)) {
        Ok(db) => Some(db),
        Err(_) => {
            out.error_seen = true;
            out.in_open = true;
            None
        }
    };
    if let Some(d) = db.as_ref() {
        for step in steps {
            if let Err(e) = state.run(d, step) {
                out.error_seen = true;
                out.background = matches!(e, Error::Background(_));
                break;
            }
            if matches!(step, Step::Reopen) {
                // Reopen inline: the handle in `db` is replaced.
                break;
            }
        }
    }
    // The reopen step, or nothing if an error stopped the workload.
    let reopen_at = steps.iter().position(|s| matches!(s, Step::Reopen));
    let stopped_early = out.error_seen;
    if !stopped_early {
        db = None;
        match Db::open(dir.path(), opts(&fs)) {
            Ok(d) => {
                // Everything was written through the OS: all present.
                state.durable = state.model.clone();
                state.pending.clear();
                for step in &steps[reopen_at.unwrap_or(0) + 1..] {
                    if let Err(e) = state.run(&d, step) {
                        out.error_seen = true;
                        out.background = matches!(e, Error::Background(_));
                        break;
                    }
                }
                db = Some(d);
            }
            Err(_) => {
                out.error_seen = true;
                out.in_open = true;
            }
        }
    }
    let Tracked {
        mut model,
        mut durable,
        mut pending,
        failed,
    } = state;
    if let (true, Some(d)) = (out.error_seen, db.as_ref()) {
        // The DB refuses writes after an I/O error...
        let after_ops: Ops = vec![(b"written-after-the-error".to_vec(), Some(b"x".to_vec()))];
        if d.write(batch_of(&after_ops)).is_ok() {
            assert!(!strict, "{name}: a write after the error was accepted");
            out.accepted_after_error = true;
            apply(&mut model, &after_ops);
            pending.push(after_ops);
        }
        // ...and reads still return the acknowledged data.
        let skip: Vec<Vec<u8>> = failed.iter().flatten().map(|(k, _)| k.clone()).collect();
        for (k, v) in model.iter().step_by(7) {
            if skip.contains(k) {
                continue;
            }
            let got = d
                .get(k)
                .unwrap_or_else(|e| panic!("{name}: get after the error: {e}"));
            assert_eq!(got.as_ref(), Some(v), "{name}: get after the error");
        }
        let mut got = dump(d).unwrap_or_else(|e| panic!("{name}: iterate after the error: {e}"));
        for k in &skip {
            got.remove(k);
        }
        let mut want = model.clone();
        for k in &skip {
            want.remove(k);
        }
        assert!(
            got == want,
            "{name}: iteration after the error: {}",
            first_diff(&got, &want)
        );
    }
    // Recover: clear the fault, close, maybe crash, reopen.
    fs.clear_faults();
    if case.crash {
        fs.set_active(false);
    }
    drop(db);
    if case.crash {
        fs.crash().unwrap();
        fs.set_active(true);
    } else {
        durable = model.clone();
        pending.clear();
    }
    pending.extend(failed);
    let db = Db::open(dir.path(), opts(&fs))
        .unwrap_or_else(|e| panic!("{name}: reopen after clearing the fault failed: {e}"));
    let got = dump(&db).unwrap_or_else(|e| panic!("{name}: iterate after reopen: {e}"));
    lost_writes(
        &got,
        &durable,
        &pending,
        &model,
        &format!("{name}: after reopen"),
    );
    db.put(b"written-after-recovery", b"y")
        .unwrap_or_else(|e| panic!("{name}: write after recovery: {e}"));
    db.compact_range(None, None)
        .unwrap_or_else(|e| panic!("{name}: compact_range after recovery: {e}"));
    let mut after = dump(&db).unwrap();
    assert_eq!(
        after.remove(&b"written-after-recovery"[..]).as_deref(),
        Some(&b"y"[..])
    );
    assert!(after == got, "{name}: compaction changed the contents");
    (out, fs)
}

/// Operation counts per kind of a fault-free run of the workload.
fn dry_run(steps: &[Step]) -> BTreeMap<&'static str, (FaultOp, u64)> {
    let (out, fs) = run_case(
        &Case {
            op: FaultOp::Read,
            n: u64::MAX,
            errno: libc::EIO,
            sticky: false,
            crash: false,
        },
        steps,
        true,
    );
    assert!(!out.error_seen);
    KINDS
        .iter()
        .map(|(op, name)| (*name, (*op, fs.operations(*op))))
        .collect()
}

const KINDS: [(FaultOp, &str); 5] = [
    (FaultOp::Write, "write"),
    (FaultOp::Sync, "sync"),
    (FaultOp::Rename, "rename"),
    (FaultOp::Create, "create"),
    (FaultOp::SyncDir, "sync_dir"),
];

/// Injects each fault of `kinds` at `STRATA_FAULT_POINTS` (default 10)
/// points of the workload, once as EIO and once as sticky ENOSPC, half of
/// the cases followed by a simulated crash; with `strict`, every error must
/// stop later writes.
fn run_all(kinds: &[FaultOp], strict: bool) {
    let points_per_kind = common::env_u64("STRATA_FAULT_POINTS", 10);
    let t = std::time::Instant::now();
    let steps = workload();
    let counts = dry_run(&steps);
    let mut injected: BTreeMap<&str, u64> = BTreeMap::new();
    let (mut cases, mut errors, mut background, mut in_open, mut accepted) = (0, 0, 0, 0, 0);
    let mut rng = StdRng::seed_from_u64(99);
    for (name, (op, total)) in counts.iter().filter(|(_, (op, _))| kinds.contains(op)) {
        assert!(*total > 0, "the workload performs no {name}");
        for i in 0..points_per_kind {
            // Evenly spread, plus the very first operation.
            let n = if i == 0 {
                1
            } else {
                (total * i / points_per_kind).max(1) + rng.gen_range(0..3)
            };
            for (errno, sticky) in [(libc::EIO, false), (libc::ENOSPC, true)] {
                let case = Case {
                    op: *op,
                    n,
                    errno,
                    sticky,
                    crash: rng.gen_bool(0.5),
                };
                let (out, fs) = run_case(&case, &steps, strict);
                cases += 1;
                *injected.entry(name).or_default() += fs.injected(*op);
                errors += u64::from(out.error_seen);
                background += u64::from(out.background);
                in_open += u64::from(out.in_open);
                accepted += u64::from(out.accepted_after_error);
            }
        }
    }
    let total: u64 = injected.values().sum();
    println!(
        "fault_injection: {cases} cases in {:.1}s, {total} faults injected ({}); {errors} surfaced as errors ({background} as background errors, {in_open} at open; {accepted} times a write after the error was accepted); every case recovered with all acknowledged synced writes",
        t.elapsed().as_secs_f64(),
        injected
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    // Faults were really injected, and they were noticed.
    assert!(
        injected.len() == kinds.len() && injected.values().all(|v| *v > 0),
        "{injected:?}"
    );
    assert!(errors > cases / 2);
}

/// Every case recovers consistently (a write accepted after an error is
/// tolerated here and counted; see the strict variant): write, rename and
/// directory-sync faults, half of the cases followed by a simulated crash.
#[test]
fn write_rename_and_dir_sync_faults_are_reported_and_recovered() {
    let kinds = [FaultOp::Write, FaultOp::Rename, FaultOp::SyncDir];
    run_all(&kinds, false);
}

/// Every kind of fault, half of the cases followed by a simulated crash.
#[test]
fn all_faults_with_crashes_are_reported_and_recovered() {
    let kinds = KINDS.map(|(op, _)| op);
    run_all(&kinds, false);
}

/// As above, and every error stops later writes (background-error state).
#[test]
fn every_fault_stops_later_writes() {
    let kinds = KINDS.map(|(op, _)| op);
    run_all(&kinds, true);
}

/// Regression: when creating the new WAL at a memtable switch fails, the
/// DB must enter the background-error state and refuse later writes.
#[test]
fn failed_memtable_switch_stops_writes() {
    let dir = common::tempdir();
    let fs = common::fault_fs();
    let db = Db::open(dir.path(), opts(&fs)).unwrap();
    db.put(b"big", vec![b'x'; 40 << 10]).unwrap();
    fs.fail_after(FaultOp::Create, 1, libc::EIO);
    assert!(db.put(b"a", b"1").is_err(), "creating the new WAL failed");
    let e = db.put(b"b", b"2").unwrap_err();
    assert!(matches!(e, Error::Background(_)), "{e}");
}

/// A full disk (sticky ENOSPC on every write) reports `is_no_space`, keeps
/// reads working, and the DB reopens with the synced data once space is back.
#[test]
fn full_disk_reports_no_space_and_recovers() {
    let dir = common::tempdir();
    let fs = common::fault_fs();
    let db = Db::open(dir.path(), opts(&fs)).unwrap();
    let sync = WriteOptions::default().sync(true).disable_wal(false);
    for i in 0..100u32 {
        db.put_opt(&sync, format!("k{i:03}").as_bytes(), b"before")
            .unwrap();
    }
    fs.fail_from(FaultOp::Write, 1, libc::ENOSPC);
    let e = db.put_opt(&sync, b"k999", b"during").unwrap_err();
    assert!(e.is_no_space(), "{e}");
    let e2 = db.put(b"k998", b"later").unwrap_err();
    assert!(
        e2.is_no_space(),
        "the later error should keep the cause: {e2}"
    );
    assert_eq!(db.get(b"k050").unwrap().as_deref(), Some(&b"before"[..]));
    fs.clear_faults();
    drop(db);
    let db = Db::open(dir.path(), opts(&fs)).unwrap();
    for i in 0..100u32 {
        assert_eq!(
            db.get(format!("k{i:03}").as_bytes()).unwrap().as_deref(),
            Some(&b"before"[..])
        );
    }
    assert_eq!(db.get(b"k998").unwrap(), None);
    db.put(b"k998", b"after").unwrap();
}

/// Regression: a flush whose MANIFEST sync fails must not leave the DB
/// referencing a table it deleted. Syncs during `flush()`: the new table,
/// then the MANIFEST (the memtable switch no longer syncs the old WAL, see
/// db/wal_set.rs; directory syncs are a separate fault kind).
#[test]
fn failed_manifest_sync_keeps_the_db_openable() {
    for n in 1..=2u64 {
        let dir = common::tempdir();
        let fs = common::fault_fs();
        let db = Db::open(dir.path(), opts(&fs)).unwrap();
        for i in 0..100u32 {
            db.put(format!("k{i:03}").as_bytes(), b"value").unwrap();
        }
        fs.fail_after(FaultOp::Sync, n, libc::EIO);
        let r = db.flush();
        assert!(r.is_err(), "sync #{n}: the flush should fail");
        fs.clear_faults();
        drop(db);
        let db =
            Db::open(dir.path(), opts(&fs)).unwrap_or_else(|e| panic!("sync #{n}: reopen: {e}"));
        let got = dump(&db).unwrap_or_else(|e| panic!("sync #{n}: iterate after reopen: {e}"));
        assert_eq!(got.len(), 100, "sync #{n}");
    }
}
