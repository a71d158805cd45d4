//! Crash recovery through [`FaultInjectionFs`] and a kill switch
//! ([`common::killfs::KillFs`]) that freezes the disk after a random number
//! of file mutations, so crashes land anywhere: in a WAL append or sync, in
//! a background flush or compaction, in a MANIFEST or CURRENT update, and
//! (sometimes) inside the recovery of the previous crash.
//!
//! The key space has two partitions:
//! - `w…` keys are written through the WAL, with `sync=true` one time in
//!   five, as single puts/deletes or atomic batches;
//! - `n…` keys are written with `disable_wal=true`.
//!
//! After each crash (unsynced data dropped, optionally torn writes) the DB
//! must open, and each partition must equal its durable state plus a prefix
//! of its later writes: for `w…`, durable means covered by an acknowledged
//! synced write or a returned `flush`; for `n…`, only a returned `flush`.
//! So every synced write is present, unsynced writes are lost only as a
//! suffix, batches are all or nothing, and with the WAL disabled only
//! unflushed data is lost.
//!
//! CI: 4 configurations x 40 crash cycles. Longer:
//! `STRATA_CRASH_CYCLES=1000 cargo test -p strata --test crash_recovery -- --ignored --nocapture`

use strata_testkit as common;

use std::sync::Arc;

use common::killfs::KillFs;
use common::{apply, batch_of, dump, lost_writes, Model, Ops};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use strata::{Db, Options, WriteOptions};
use strata_testkit::fault::FaultInjectionFs;

/// The durable state and the later writes of one key partition.
#[derive(Default)]
struct Part {
    model: Model,
    durable: Model,
    pending: Vec<Ops>,
}

impl Part {
    fn acked(&mut self, ops: Ops, durable: bool) {
        apply(&mut self.model, &ops);
        if durable {
            self.make_durable();
        } else {
            self.pending.push(ops);
        }
    }

    fn make_durable(&mut self) {
        self.durable = self.model.clone();
        self.pending.clear();
    }

    /// Checks the recovered partition; adopts it as the new state.
    fn verify(&mut self, got: Model, what: &str) -> usize {
        let lost = lost_writes(&got, &self.durable, &self.pending, &self.model, what);
        self.model = got;
        self.make_durable();
        lost
    }
}

#[derive(Debug, Default)]
struct Tally {
    cycles: u64,
    writes: u64,
    synced: u64,
    failed_writes: u64,
    kills_before_end: u64,
    kills_in_recovery: u64,
    lost_unsynced: u64,
    lost_unflushed: u64,
}

struct Run {
    rng: StdRng,
    dir: common::TempDir,
    fs: FaultInjectionFs,
    kill: KillFs,
    opts: Options,
    w: Part,
    n: Part,
    tally: Tally,
    torn: bool,
    name: String,
}

fn split(m: Model) -> (Model, Model) {
    let (w, n): (Vec<_>, Vec<_>) = m.into_iter().partition(|(k, _)| k.starts_with(b"w"));
    (w.into_iter().collect(), n.into_iter().collect())
}

impl Run {
    fn new(name: &str, seed: u64, torn: bool, write_buffer_size: usize) -> Self {
        let fs = common::fault_fs();
        let kill = KillFs::new(fs.clone());
        let mut opts = common::small_opts(Arc::new(kill.clone()));
        opts.compression = common::compression(seed);
        opts.write_buffer_size = write_buffer_size;
        Run {
            rng: StdRng::seed_from_u64(seed),
            dir: common::tempdir(),
            fs,
            kill,
            opts,
            w: Part::default(),
            n: Part::default(),
            tally: Tally::default(),
            torn,
            name: name.to_string(),
        }
    }

    fn value(&mut self, cycle: u64) -> Vec<u8> {
        let len = self.rng.gen_range(20..1500);
        let mut v = format!("c{cycle}-").into_bytes();
        v.resize(len, b'a' + (cycle % 26) as u8);
        v
    }

    /// Writes until the kill switch fires (or `ops` operations).
    fn workload(&mut self, db: &Db, cycle: u64, ops: u64) {
        for _ in 0..ops {
            let r = self.rng.gen_range(0..100);
            if r < 3 {
                match db.flush() {
                    Ok(()) => {
                        self.w.make_durable();
                        self.n.make_durable();
                    }
                    Err(_) => return,
                }
                continue;
            }
            if r < 4 {
                if db.compact_range(None, None).is_err() {
                    return;
                }
                self.w.make_durable();
                self.n.make_durable();
                continue;
            }
            let nowal = r < 30;
            let prefix = if nowal { "n" } else { "w" };
            let nops = if self.rng.gen_bool(0.2) {
                self.rng.gen_range(2..8)
            } else {
                1
            };
            let mut ops = Ops::new();
            for _ in 0..nops {
                let k = format!("{prefix}{:04}", self.rng.gen_range(0..600)).into_bytes();
                let v = self.rng.gen_bool(0.85).then(|| self.value(cycle));
                ops.push((k, v));
            }
            let sync = !nowal && self.rng.gen_ratio(1, 5);
            let wo = WriteOptions::default().sync(sync).disable_wal(nowal);
            let res = db.write_opt(&wo, batch_of(&ops));
            let part = if nowal { &mut self.n } else { &mut self.w };
            match res {
                Ok(()) => {
                    part.acked(ops, sync);
                    self.tally.writes += 1;
                    self.tally.synced += u64::from(sync);
                }
                Err(_) => {
                    // Not acknowledged: it may or may not have reached the disk.
                    part.acked(ops, false);
                    self.tally.failed_writes += 1;
                    return;
                }
            }
        }
    }

    fn open_after_crash(&mut self, cycle: u64) -> Db {
        if self.rng.gen_ratio(1, 5) {
            // Crash again, inside recovery.
            let budget = self.rng.gen_range(1..40);
            self.kill.kill_after(budget);
            let r = Db::open(self.dir.path(), self.opts.clone());
            if self.kill.killed() {
                self.tally.kills_in_recovery += 1;
                drop(r);
                self.crash();
            } else {
                self.kill.disarm();
                return r.unwrap_or_else(|e| panic!("{}: cycle {cycle}: open: {e}", self.name));
            }
        }
        Db::open(self.dir.path(), self.opts.clone()).unwrap_or_else(|e| {
            panic!(
                "{}: cycle {cycle}: the DB does not open after a crash: {e}",
                self.name
            )
        })
    }

    fn crash(&mut self) {
        self.fs.set_active(false);
        self.fs
            .set_torn_writes(self.torn.then(|| self.rng.gen::<u64>()));
        self.fs.crash().unwrap();
        self.kill.disarm();
        self.fs.set_active(true);
    }

    fn cycle(&mut self, cycle: u64) {
        let db = if cycle == 0 {
            Db::open(self.dir.path(), self.opts.clone()).unwrap()
        } else {
            self.open_after_crash(cycle)
        };
        let (w, n) =
            split(dump(&db).unwrap_or_else(|e| panic!("{}: cycle {cycle}: dump: {e}", self.name)));
        let what = format!("{}: cycle {cycle}", self.name);
        self.tally.lost_unsynced += self.w.verify(w, &format!("{what}: WAL keys")) as u64;
        self.tally.lost_unflushed += self.n.verify(n, &format!("{what}: no-WAL keys")) as u64;
        let budget = self.rng.gen_range(1..600);
        self.kill.kill_after(budget);
        let ops = self.rng.gen_range(50..400);
        self.workload(&db, cycle, ops);
        if self.kill.killed() {
            self.tally.kills_before_end += 1;
        }
        // Freeze the disk now if the kill switch has not fired yet.
        self.fs.set_active(false);
        drop(db);
        self.crash();
        self.tally.cycles += 1;
    }
}

fn run(name: &str, seed: u64, torn: bool, cycles: u64) {
    run_with_buffer(name, seed, torn, cycles, 32 << 10);
}

fn run_with_buffer(name: &str, seed: u64, torn: bool, cycles: u64, write_buffer_size: usize) {
    let t = std::time::Instant::now();
    let mut r = Run::new(name, seed, torn, write_buffer_size);
    for c in 0..cycles {
        r.cycle(c);
    }
    // A last recovery and check.
    let db = r.open_after_crash(cycles);
    let (w, n) = split(dump(&db).unwrap());
    r.w.verify(w, "final WAL keys");
    r.n.verify(n, "final no-WAL keys");
    println!(
        "crash_recovery {name}: {:.1}s {:?}",
        t.elapsed().as_secs_f64(),
        r.tally
    );
    assert!(r.tally.kills_before_end > 0 && r.tally.synced > 0);
}

fn cycles() -> u64 {
    common::env_u64("STRATA_CRASH_CYCLES", 40)
}

#[test]
fn crash_cycles_drop_unsynced() {
    run("drop-unsynced", 101, false, cycles());
}

#[test]
fn crash_cycles_torn_writes() {
    run("torn-writes", 102, true, cycles());
}

#[test]
fn crash_cycles_torn_writes_zstd() {
    run("torn-writes-zstd", 103, true, cycles());
}

/// Crash cycles where memtables are only switched by explicit `flush` and
/// `compact_range` calls (a 4 MiB write buffer), with torn writes: still
/// kills inside flushes, compactions, WAL writes and recovery.
#[test]
fn crash_cycles_explicit_flushes_only() {
    run_with_buffer("explicit-flushes", 104, true, cycles(), 4 << 20);
}

/// Long run: `STRATA_CRASH_CYCLES` cycles on more seeds.
#[test]
#[ignore = "long run; see the file's doc comment for the command"]
fn crash_cycles_long() {
    let n = common::env_u64("STRATA_CRASH_CYCLES", 1000);
    for seed in common::env_list("STRATA_CRASH_SEEDS", &[201, 202, 203, 204]) {
        run(&format!("long-{seed}"), seed, seed % 2 == 0, n);
    }
}

/// Regression: a synced write into the WAL that a memtable switch created
/// must survive a crash that happens before anything else syncs the DB
/// directory.
#[test]
fn synced_write_after_memtable_switch_survives_crash() {
    let dir = common::tempdir();
    let fs = common::fault_fs();
    let opts = common::small_opts(Arc::new(fs.clone()));
    let db = Db::open(dir.path(), opts.clone()).unwrap();
    // A full memtable: the next write switches to a new WAL.
    db.put(b"big", vec![b'x'; 70 << 10]).unwrap();
    // The next write creates the new WAL (create #1); make the flush of the
    // old memtable fail creating its table (create #2), so that nothing
    // else syncs the directory.
    fs.fail_after(strata_testkit::fault::FaultOp::Create, 2, libc::EIO);
    let sync = WriteOptions::default().sync(true).disable_wal(false);
    db.put_opt(&sync, b"synced", b"value").unwrap();
    fs.set_active(false);
    drop(db);
    fs.crash().unwrap();
    fs.set_active(true);
    fs.clear_faults();
    let db = Db::open(dir.path(), opts).unwrap();
    assert_eq!(db.get(b"synced").unwrap().as_deref(), Some(&b"value"[..]));
}

/// Data written with the WAL disabled survives a crash once flushed, and
/// only then.
#[test]
fn disable_wal_data_survives_only_once_flushed() {
    let dir = common::tempdir();
    let fs = common::fault_fs();
    let opts = common::small_opts(Arc::new(fs.clone()));
    let nowal = WriteOptions::default().sync(false).disable_wal(true);
    let db = Db::open(dir.path(), opts.clone()).unwrap();
    db.put_opt(&nowal, b"flushed", b"1").unwrap();
    db.flush().unwrap();
    db.put_opt(&nowal, b"unflushed", b"2").unwrap();
    fs.set_active(false);
    drop(db);
    fs.crash().unwrap();
    fs.set_active(true);
    let db = Db::open(dir.path(), opts.clone()).unwrap();
    assert_eq!(db.get(b"flushed").unwrap().as_deref(), Some(&b"1"[..]));
    assert_eq!(db.get(b"unflushed").unwrap(), None);
    // A clean close flushes data written without the WAL.
    db.put_opt(&nowal, b"closed", b"3").unwrap();
    drop(db);
    fs.crash().unwrap();
    let db = Db::open(dir.path(), opts).unwrap();
    assert_eq!(db.get(b"closed").unwrap().as_deref(), Some(&b"3"[..]));
}

/// Group commit under crashes: several threads write unique keys in order,
/// a quarter of them synced, until a kill at a random file mutation. After
/// the crash each thread's keys must form a prefix of its writes (batches
/// of different threads share WAL records, so a hole would show a broken
/// group) that includes every write acknowledged as synced.
#[test]
fn group_commit_crash_keeps_every_synced_write() {
    const THREADS: u64 = 4;
    const WRITES: u64 = 400;
    let key = |t: u64, i: u64| format!("t{t}-{i:05}").into_bytes();
    let cycles = common::env_u64("STRATA_GROUP_CRASH_CYCLES", 12);
    let (mut kills, mut synced_total) = (0, 0);
    for cycle in 0..cycles {
        let dir = common::tempdir();
        let fs = common::fault_fs();
        let kill = KillFs::new(fs.clone());
        let mut opts = common::small_opts(Arc::new(kill.clone()));
        opts.write_buffer_size = 32 << 10;
        let db = Arc::new(Db::open(dir.path(), opts.clone()).unwrap());
        let mut rng = StdRng::seed_from_u64(500 + cycle);
        kill.kill_after(rng.gen_range(50..1500));
        let handles: Vec<_> = (0..THREADS)
            .map(|t| {
                let db = db.clone();
                let seed = rng.gen::<u64>();
                std::thread::spawn(move || {
                    let mut rng = StdRng::seed_from_u64(seed);
                    // (writes attempted, writes acknowledged as synced)
                    let (mut attempted, mut synced) = (0u64, 0u64);
                    for i in 0..WRITES {
                        let sync = rng.gen_ratio(1, 4);
                        let wo = WriteOptions::default().sync(sync).disable_wal(false);
                        attempted = i + 1;
                        let v = vec![b'v'; rng.gen_range(10..400)];
                        if db.put_opt(&wo, key(t, i), &v).is_err() {
                            break;
                        }
                        if sync {
                            synced = i + 1;
                        }
                    }
                    (attempted, synced)
                })
            })
            .collect();
        let results: Vec<(u64, u64)> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        kills += u64::from(kill.killed());
        synced_total += results.iter().map(|r| r.1).sum::<u64>();
        fs.set_active(false);
        drop(db);
        fs.crash().unwrap();
        kill.disarm();
        fs.set_active(true);
        let db = Db::open(dir.path(), opts)
            .unwrap_or_else(|e| panic!("cycle {cycle}: open after crash: {e}"));
        for (t, (attempted, synced)) in results.iter().enumerate() {
            let t = t as u64;
            let present: Vec<bool> = (0..WRITES)
                .map(|i| db.get(key(t, i)).unwrap().is_some())
                .collect();
            let n = present.iter().take_while(|p| **p).count() as u64;
            assert!(
                present[n as usize..].iter().all(|p| !p),
                "cycle {cycle}: thread {t}: a hole after {n} writes"
            );
            assert!(
                n >= *synced && n <= *attempted,
                "cycle {cycle}: thread {t}: {n} writes recovered, {synced} were acknowledged synced, {attempted} attempted"
            );
        }
    }
    assert!(kills > cycles / 2 && synced_total > 0, "{kills} kills");
}

/// A file system whose table-file creations wait at a gate, to hold a flush
/// in flight while the test writes.
#[derive(Debug)]
struct GatedTables {
    inner: Arc<dyn strata::fs::FileSystem>,
    open: Arc<(std::sync::Mutex<bool>, std::sync::Condvar)>,
}

impl GatedTables {
    fn wait(&self, path: &std::path::Path) {
        if path.extension().and_then(|e| e.to_str()) == Some("sst") {
            let (m, cv) = &*self.open;
            let mut open = m.lock().unwrap();
            while !*open {
                open = cv.wait(open).unwrap();
            }
        }
    }
}

impl strata::fs::FileSystem for GatedTables {
    fn create(&self, path: &std::path::Path) -> strata::Result<Box<dyn strata::fs::WritableFile>> {
        self.wait(path);
        self.inner.create(path)
    }
    fn create_opt(
        &self,
        path: &std::path::Path,
        direct: bool,
    ) -> strata::Result<Box<dyn strata::fs::WritableFile>> {
        self.wait(path);
        self.inner.create_opt(path, direct)
    }
    fn reopen_for_append(
        &self,
        path: &std::path::Path,
    ) -> strata::Result<Box<dyn strata::fs::WritableFile>> {
        self.inner.reopen_for_append(path)
    }
    fn open_random(
        &self,
        path: &std::path::Path,
    ) -> strata::Result<Arc<dyn strata::fs::RandomAccessFile>> {
        self.inner.open_random(path)
    }
    fn read_all(&self, path: &std::path::Path) -> strata::Result<Vec<u8>> {
        self.inner.read_all(path)
    }
    fn rename(&self, from: &std::path::Path, to: &std::path::Path) -> strata::Result<()> {
        self.inner.rename(from, to)
    }
    fn remove(&self, path: &std::path::Path) -> strata::Result<()> {
        self.inner.remove(path)
    }
    fn exists(&self, path: &std::path::Path) -> bool {
        self.inner.exists(path)
    }
    fn list(&self, dir: &std::path::Path) -> strata::Result<Vec<String>> {
        self.inner.list(dir)
    }
    fn create_dir_all(&self, dir: &std::path::Path) -> strata::Result<()> {
        self.inner.create_dir_all(dir)
    }
    fn sync_dir(&self, dir: &std::path::Path) -> strata::Result<()> {
        self.inner.sync_dir(dir)
    }
    fn file_size(&self, path: &std::path::Path) -> strata::Result<u64> {
        self.inner.file_size(path)
    }
    fn lock(&self, path: &std::path::Path) -> strata::Result<Box<dyn strata::fs::FileLock>> {
        self.inner.lock(path)
    }
}

/// Regression (found by study 5's universal WAL-off cell: each fill lost
/// its last 832 entries at close): a flush that finished with no immutable
/// memtable left cleared the "unpersisted writes" flag although WAL-less
/// writes made while it ran sat in the active memtable, so the clean close
/// skipped its flush and those writes were lost.
#[test]
fn wal_less_writes_made_during_a_flush_survive_a_clean_close() {
    let dir = common::tempdir();
    let gate = Arc::new((std::sync::Mutex::new(false), std::sync::Condvar::new()));
    let fs = Arc::new(GatedTables {
        inner: Arc::new(strata::fs::PosixFileSystem),
        open: gate.clone(),
    });
    let nowal = WriteOptions::default().sync(false).disable_wal(true);
    let opts = common::small_opts(fs);
    let db = Db::open(dir.path(), opts.clone()).unwrap();
    // 80 x 1 KB fills the 64 KB memtable once: the switch starts a flush,
    // which waits at the gate, and the last entries land in the new one.
    for i in 0..80u32 {
        db.put_opt(&nowal, format!("k{i:03}").as_bytes(), [b'v'; 1024])
            .unwrap();
    }
    db.put_opt(&nowal, b"tail", b"last").unwrap();
    {
        let (m, cv) = &*gate;
        *m.lock().unwrap() = true;
        cv.notify_all();
    }
    db.wait_for_compaction().unwrap();
    drop(db);
    let db = Db::open(
        dir.path(),
        common::small_opts(Arc::new(strata::fs::PosixFileSystem)),
    )
    .unwrap();
    assert_eq!(db.get(b"tail").unwrap().as_deref(), Some(&b"last"[..]));
    for i in 0..80u32 {
        assert!(
            db.get(format!("k{i:03}").as_bytes()).unwrap().is_some(),
            "k{i:03}"
        );
    }
}
