//! Checkpoints (`Db::create_checkpoint`): a checkpoint taken while another
//! thread writes, and flushes and compactions run, opens and holds exactly
//! the writes up to its sequence number; with several column families and
//! blob files; after a reopen; with writes made without the WAL. An
//! existing directory is refused, the source DB keeps working and its later
//! purges leave the checkpoint whole (its tables are hard links), and a
//! fault at any step of the checkpoint fails it without leaving a
//! directory behind or harming the source.
//!
//! The writer threads write one batch at a time and log each with the
//! sequence number it ends at (a DB opened empty numbers writes from 1, one
//! per operation, and nothing else writes), so the writes up to a
//! checkpoint's sequence are a known prefix of the log.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::Duration;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use strata::{ColumnFamily, Db, Error, Options, WriteBatch, WriteOptions};
use strata_testkit::fault::FaultOp;
use strata_testkit::{apply, dump, fault_fs, file_names, first_diff, small_options, tempdir};
use strata_testkit::{Model, Ops};

/// One logged write: the sequence number its last operation got, and its
/// operations per column family (index into the families written).
struct Logged {
    end_seq: u64,
    ops: Vec<(usize, Ops)>,
}

/// The models of the writes whose sequence numbers are at most `seq`, one
/// per family; panics unless `seq` ends a logged batch (a cut never splits
/// a batch).
fn models_at(log: &[Logged], seq: u64, families: usize) -> Vec<Model> {
    let mut models = vec![Model::new(); families];
    if seq == 0 {
        return models;
    }
    let mut ended = false;
    for l in log.iter().take_while(|l| l.end_seq <= seq) {
        for (cf, ops) in &l.ops {
            apply(&mut models[*cf], ops);
        }
        ended = l.end_seq == seq;
    }
    assert!(ended, "sequence {seq} does not end a logged batch");
    models
}

/// Random operations on about 600 keys, a tenth of them deletes; values of
/// 50-300 bytes (`blob` in the name of the longer ones for blob families).
fn random_ops(rng: &mut StdRng, i: u64) -> Ops {
    let n = if rng.gen_ratio(1, 4) {
        rng.gen_range(2..5)
    } else {
        1
    };
    (0..n)
        .map(|_| {
            let k = format!("key{:04}", rng.gen_range(0..600)).into_bytes();
            let v = (!rng.gen_ratio(1, 10)).then(|| {
                let len = rng.gen_range(50..300);
                let mut v = format!("v{i}-").into_bytes();
                v.resize(len, b'a' + (i % 26) as u8);
                v
            });
            (k, v)
        })
        .collect()
}

/// Writes random batches over `families` (`None`: the default family)
/// until `stop`, logging each.
fn write_until(
    db: &Db,
    families: &[Option<ColumnFamily>],
    stop: &AtomicBool,
    log: &Mutex<Vec<Logged>>,
    seed: u64,
) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut seq = 0u64;
    let mut i = 0u64;
    while !stop.load(Ordering::Relaxed) {
        i += 1;
        let mut batch = WriteBatch::new();
        let mut ops = Vec::new();
        // Each batch touches one family, or (one time in three) several.
        let touched: Vec<usize> = if families.len() > 1 && rng.gen_ratio(1, 3) {
            (0..families.len()).collect()
        } else {
            vec![rng.gen_range(0..families.len())]
        };
        for cf in touched {
            let o = random_ops(&mut rng, i);
            for (k, v) in &o {
                match (&families[cf], v) {
                    (None, Some(v)) => batch.put(k, v),
                    (None, None) => batch.delete(k),
                    (Some(h), Some(v)) => batch.put_cf(h, k, v),
                    (Some(h), None) => batch.delete_cf(h, k),
                }
            }
            seq += o.len() as u64;
            ops.push((cf, o));
        }
        db.write(batch).unwrap();
        log.lock().unwrap().push(Logged { end_seq: seq, ops });
    }
}

/// The contents of family `cf` (`None`: default).
fn dump_cf(db: &Db, cf: Option<&ColumnFamily>) -> Model {
    let it = match cf {
        Some(h) => db.iter_cf(h, &Default::default()).unwrap(),
        None => db.iter(),
    };
    it.map(|r| r.unwrap()).collect()
}

/// Asserts that the default family of `db` holds `want` exactly.
fn assert_model(db: &Db, want: &Model, what: &str) {
    let got = dump(db).unwrap();
    assert!(got == *want, "{what}: {}", first_diff(&got, want));
}

fn count_ext(dir: &Path, ext: &str) -> usize {
    file_names(dir).iter().filter(|n| n.ends_with(ext)).count()
}

#[test]
fn a_checkpoint_under_writes_flushes_and_compactions_holds_exactly_its_prefix() {
    let dir = tempdir();
    let db = Arc::new(Db::open(dir.path().join("db"), small_options()).unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let log = Arc::new(Mutex::new(Vec::new()));
    let writer = {
        let (db, stop, log) = (db.clone(), stop.clone(), log.clone());
        thread::spawn(move || write_until(&db, &[None], &stop, &log, 1))
    };
    // Flushes and full compactions besides the automatic ones, so that
    // files become obsolete (and are purged) while checkpoints link them.
    let churn = {
        let (db, stop) = (db.clone(), stop.clone());
        thread::spawn(move || {
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                thread::sleep(Duration::from_millis(15));
                if n % 3 == 2 {
                    db.compact_range(None, None).unwrap();
                } else {
                    db.flush().unwrap();
                }
                n += 1;
            }
        })
    };
    let mut taken = Vec::new();
    for i in 0..6 {
        thread::sleep(Duration::from_millis(60));
        let path = dir.path().join(format!("ckpt{i}"));
        let info = db.create_checkpoint(&path).unwrap();
        assert_eq!(info.path, path);
        taken.push(info);
    }
    // Let the writer get past the last cut, so the copies are checked
    // against a source that went on.
    let cut = taken.last().unwrap().sequence;
    assert!(strata_testkit::eventually(|| log
        .lock()
        .unwrap()
        .last()
        .is_some_and(|l| l.end_seq > cut)));
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    churn.join().unwrap();
    let log = log.lock().unwrap();
    let last = log.last().map_or(0, |l| l.end_seq);
    assert!(taken.windows(2).all(|w| w[0].sequence <= w[1].sequence));
    assert!(
        taken.last().unwrap().sequence < last,
        "the writer went on after the checkpoints"
    );
    assert!(
        taken.iter().any(|c| c.linked_files > 0),
        "tables are linked"
    );
    // The source is still right, and after a full compaction none of the
    // files the checkpoints linked is left in it: they hold their own.
    assert_model(&db, &models_at(&log, last, 1)[0], "the source");
    db.compact_range(None, None).unwrap();
    let source_files = file_names(&dir.path().join("db"));
    let purged = taken
        .iter()
        .flat_map(|c| file_names(&c.path))
        .filter(|n| n.ends_with(".sst") && !source_files.contains(n))
        .count();
    assert!(purged > 0, "the source purged tables the checkpoints hold");
    for info in &taken {
        let copy = Db::open(&info.path, small_options()).unwrap();
        let want = &models_at(&log, info.sequence, 1)[0];
        let got = dump(&copy).unwrap();
        assert!(
            got == *want,
            "checkpoint at sequence {}: {}",
            info.sequence,
            first_diff(&got, want)
        );
        // Writes after the cut start at the next sequence number.
        copy.put(b"after", b"x").unwrap();
        assert_eq!(
            copy.snapshot().sequence(),
            info.sequence + 1,
            "the checkpoint's sequence"
        );
    }
    eprintln!(
        "checkpoints at {:?} of {last} writes; linked {:?}",
        taken.iter().map(|c| c.sequence).collect::<Vec<_>>(),
        taken.iter().map(|c| c.linked_files).collect::<Vec<_>>()
    );
}

fn blob_options() -> Options {
    small_options()
        .enable_blob_files(true)
        .min_blob_size(100)
        .blob_file_size(64 << 10)
}

#[test]
fn a_checkpoint_holds_every_column_family_and_their_blob_files() {
    let dir = tempdir();
    let path = dir.path().join("db");
    let db = Arc::new(Db::open(&path, small_options()).unwrap());
    let hot = db.create_column_family("hot", small_options()).unwrap();
    let blobs = db.create_column_family("blobs", blob_options()).unwrap();
    let families = vec![None, Some(hot), Some(blobs)];
    let stop = Arc::new(AtomicBool::new(false));
    let log = Arc::new(Mutex::new(Vec::new()));
    let writer = {
        let (db, stop, log, fams) = (db.clone(), stop.clone(), log.clone(), families.clone());
        thread::spawn(move || write_until(&db, &fams, &stop, &log, 2))
    };
    let mut taken = Vec::new();
    for i in 0..4 {
        thread::sleep(Duration::from_millis(80));
        if i == 3 {
            // Blob files exist by now, whatever the timing.
            db.flush_cf(families[2].as_ref().unwrap()).unwrap();
        }
        taken.push(
            db.create_checkpoint(dir.path().join(format!("ckpt{i}")))
                .unwrap(),
        );
    }
    stop.store(true, Ordering::Relaxed);
    writer.join().unwrap();
    let log = log.lock().unwrap();
    let names = ["default", "hot", "blobs"];
    for info in &taken {
        assert_eq!(
            Db::list_column_families(&info.path, &small_options()).unwrap(),
            names
        );
        let copy = Db::open_cf(
            &info.path,
            small_options(),
            [("hot", small_options()), ("blobs", blob_options())],
        )
        .unwrap();
        let want = models_at(&log, info.sequence, 3);
        for (i, name) in names.iter().enumerate() {
            let h = copy.column_family(name).unwrap();
            let got = dump_cf(&copy, (i > 0).then_some(&h));
            assert!(
                got == want[i],
                "family {name} at sequence {}: {}",
                info.sequence,
                first_diff(&got, &want[i])
            );
        }
    }
    let last = taken.last().unwrap();
    assert!(
        count_ext(&last.path, ".blob") > 0,
        "the blob family's files are in the checkpoint"
    );
}

#[test]
fn an_existing_directory_is_refused_and_a_stale_staging_directory_cleared() {
    let dir = tempdir();
    let db = Db::open(dir.path().join("db"), small_options()).unwrap();
    db.put(b"k", b"v").unwrap();
    let taken = dir.path().join("taken");
    std::fs::create_dir(&taken).unwrap();
    let e = db.create_checkpoint(&taken).unwrap_err();
    assert!(
        matches!(e, Error::InvalidArgument(_)) && e.to_string().contains("already exists"),
        "{e}"
    );
    let file = dir.path().join("file");
    std::fs::write(&file, b"x").unwrap();
    assert!(db.create_checkpoint(&file).is_err());
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
    // A checkpoint's own directory is refused the second time.
    let ok = dir.path().join("ok");
    db.create_checkpoint(&ok).unwrap();
    assert!(db.create_checkpoint(&ok).is_err());
    // A staging directory holding someone else's file is left alone.
    let other = dir.path().join("other");
    std::fs::create_dir(dir.path().join("other.tmp")).unwrap();
    std::fs::write(dir.path().join("other.tmp/notes.txt"), b"mine").unwrap();
    let e = db.create_checkpoint(&other).unwrap_err();
    assert!(e.to_string().contains("notes.txt"), "{e}");
    assert!(dir.path().join("other.tmp/notes.txt").exists());
    // One a crashed checkpoint left (a checkpoint's files only) is cleared.
    let stale = dir.path().join("stale");
    std::fs::create_dir(dir.path().join("stale.tmp")).unwrap();
    std::fs::write(dir.path().join("stale.tmp/999999.log"), b"partial").unwrap();
    std::fs::write(dir.path().join("stale.tmp/CURRENT"), b"MANIFEST-000001\n").unwrap();
    db.create_checkpoint(&stale).unwrap();
    assert!(!dir.path().join("stale.tmp").exists());
    assert!(!file_names(&stale).contains(&"999999.log".to_string()));
    // The DB went on working through all of it.
    db.put(b"k2", b"v2").unwrap();
    drop(db);
    for ckpt in [&ok, &stale] {
        let copy = Db::open(ckpt, small_options()).unwrap();
        assert_eq!(copy.get(b"k").unwrap().as_deref(), Some(&b"v"[..]));
        assert_eq!(copy.get(b"k2").unwrap(), None);
    }
}

#[test]
fn the_source_goes_on_and_its_purges_leave_the_checkpoint_whole() {
    let dir = tempdir();
    let src = dir.path().join("db");
    let db = Db::open(&src, small_options()).unwrap();
    let mut model = Model::new();
    for i in 0..3000u32 {
        let (k, v) = (format!("k{:05}", i % 1000), format!("first-{i}"));
        db.put(&k, &v).unwrap();
        model.insert(k.into_bytes(), v.into_bytes());
    }
    db.flush().unwrap();
    db.wait_for_compaction().unwrap();
    let ckpt = dir.path().join("ckpt");
    let info = db.create_checkpoint(&ckpt).unwrap();
    assert!(info.linked_files > 0);
    // A linked table is the source's file under a second name.
    let linked: Vec<String> = file_names(&ckpt)
        .into_iter()
        .filter(|n| n.ends_with(".sst"))
        .collect();
    assert_eq!(linked.len(), info.linked_files);
    for t in &linked {
        let (a, b) = (
            std::fs::metadata(src.join(t)).unwrap(),
            std::fs::metadata(ckpt.join(t)).unwrap(),
        );
        assert_eq!((a.dev(), a.ino()), (b.dev(), b.ino()), "{t}");
    }
    // The source rewrites everything; every table the checkpoint links
    // goes from the source.
    for i in 0..3000u32 {
        db.put(format!("k{:05}", i % 1000), format!("second-{i}"))
            .unwrap();
    }
    db.compact_range(None, None).unwrap();
    let now = file_names(&src);
    assert!(linked.iter().all(|t| !now.contains(t)), "{now:?}");
    assert!(db.get(b"k00001").unwrap().unwrap().starts_with(b"second-"));
    // The checkpoint, opened and written to, is a DB of its own.
    let copy = Db::open(&ckpt, small_options()).unwrap();
    assert_model(&copy, &model, "the checkpoint");
    for i in 0..2000u32 {
        copy.put(format!("k{:05}", i % 1000), "third").unwrap();
    }
    copy.compact_range(None, None).unwrap();
    assert!(db.get(b"k00001").unwrap().unwrap().starts_with(b"second-"));
    drop(db);
    let db = Db::open(&src, small_options()).unwrap();
    assert_eq!(db.iter().count(), 1000);
    assert!(db.iter().all(|r| r.unwrap().1.starts_with(b"second-")));
}

#[test]
fn a_checkpoint_after_a_reopen_and_of_an_empty_db() {
    let dir = tempdir();
    let src = dir.path().join("db");
    let db = Db::open(&src, small_options()).unwrap();
    let empty = db.create_checkpoint(dir.path().join("empty")).unwrap();
    assert_eq!(empty.sequence, 0);
    let mut model = Model::new();
    for i in 0..500u32 {
        let (k, v) = (format!("k{i:04}"), format!("v{i}"));
        db.put(&k, &v).unwrap();
        model.insert(k.into_bytes(), v.into_bytes());
    }
    drop(db);
    let db = Db::open(&src, small_options()).unwrap();
    db.delete(b"k0000").unwrap();
    model.remove(&b"k0000"[..]);
    let info = db.create_checkpoint(dir.path().join("after")).unwrap();
    assert_eq!(info.sequence, 501);
    db.put(b"k0001", b"later").unwrap();
    let copy = Db::open(&info.path, small_options()).unwrap();
    assert_model(&copy, &model, "the checkpoint");
    let copy = Db::open(&empty.path, small_options()).unwrap();
    assert_eq!(copy.iter().count(), 0);
}

#[test]
fn writes_made_without_the_wal_are_flushed_into_the_checkpoint() {
    let dir = tempdir();
    let db = Db::open(dir.path().join("db"), small_options()).unwrap();
    let nowal = WriteOptions::default().disable_wal(true);
    db.put(b"logged", b"1").unwrap();
    db.put_opt(&nowal, b"unlogged", b"2").unwrap();
    let info = db.create_checkpoint(dir.path().join("ckpt")).unwrap();
    assert_eq!(info.sequence, 2);
    db.put_opt(&nowal, b"later", b"3").unwrap();
    let copy = Db::open(&info.path, small_options()).unwrap();
    let got: BTreeMap<Vec<u8>, Vec<u8>> = dump(&copy).unwrap();
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        [&b"logged".to_vec(), &b"unlogged".to_vec()]
    );
}

/// Every step of a checkpoint fails in turn (each kind of operation, the
/// first to the last): the call returns the error, no checkpoint directory
/// exists, the staging directory holds no file, and the source DB goes on.
/// Then the same checkpoint succeeds. (A failed write of a LOG line fails
/// nothing: the LOG is diagnostic.)
#[test]
fn a_fault_at_any_step_fails_the_checkpoint_and_leaves_nothing_claimed() {
    let dir = tempdir();
    let fs = fault_fs();
    let opts = strata_testkit::small_opts(Arc::new(fs.clone()));
    let db = Db::open(dir.path().join("db"), opts.clone()).unwrap();
    let mut model = Model::new();
    for i in 0..2000u32 {
        let (k, v) = (
            format!("k{:04}", i % 700),
            format!("v{i}-{}", "x".repeat(40)),
        );
        db.put(&k, &v).unwrap();
        model.insert(k.into_bytes(), v.into_bytes());
    }
    db.put(b"in-the-wal", b"yes").unwrap();
    model.insert(b"in-the-wal".to_vec(), b"yes".to_vec());
    db.wait_for_compaction().unwrap();
    let mut failures = 0;
    for op in [
        FaultOp::Create,
        FaultOp::Write,
        FaultOp::Read,
        FaultOp::Sync,
        FaultOp::Rename,
        FaultOp::SyncDir,
    ] {
        for n in 1.. {
            let target = dir.path().join(format!("ckpt-{op:?}-{n}"));
            let before = fs.injected(op);
            fs.fail_after(op, n, libc::EIO);
            let r = db.create_checkpoint(&target);
            fs.clear_faults();
            if fs.injected(op) == before {
                // The checkpoint did fewer than `n` such operations.
                let info = r.unwrap();
                assert!(n > 1, "{op:?}: the checkpoint does at least one");
                assert_eq!(info.linked_files, 0, "this file system has no links");
                assert!(info.copied_files > 1);
                break;
            }
            if let Ok(info) = r {
                // The fault hit a line of the LOG, whose writes fail
                // nothing by design; the checkpoint is whole.
                assert_eq!(op, FaultOp::Write, "#{n} was injected but ignored");
                let copy = Db::open(&info.path, opts.clone()).unwrap();
                assert_model(&copy, &model, &format!("{op:?} #{n}"));
                continue;
            }
            failures += 1;
            let e = r.expect_err("an injected fault fails the checkpoint");
            assert!(e.is_io(), "{op:?} #{n}: {e}");
            assert!(!target.exists(), "{op:?} #{n}: {} exists", target.display());
            let staging = dir.path().join(format!("ckpt-{op:?}-{n}.tmp"));
            assert!(
                file_names(&staging).is_empty(),
                "{op:?} #{n}: {:?} left",
                file_names(&staging)
            );
            // The source is unharmed: it reads and takes writes.
            assert_eq!(db.get(b"in-the-wal").unwrap().as_deref(), Some(&b"yes"[..]));
            db.put(b"probe", format!("{op:?}{n}")).unwrap();
            model.insert(b"probe".to_vec(), format!("{op:?}{n}").into_bytes());
            // The same checkpoint succeeds now.
            let info = db.create_checkpoint(&target).unwrap();
            let copy = Db::open(&info.path, opts.clone()).unwrap();
            assert_model(&copy, &model, &format!("{op:?} #{n}"));
        }
    }
    eprintln!("{failures} checkpoint steps failed in turn");
    assert!(failures > 10);
}

/// A file system whose hard links wait while `held` is set, so that a
/// checkpoint can be stopped between its cut and its first link.
#[derive(Debug, Default)]
struct HeldLinks {
    held: Mutex<bool>,
    waiting: Mutex<usize>,
    cv: std::sync::Condvar,
}

#[derive(Debug)]
struct HeldLinksFs {
    inner: strata::fs::PosixFileSystem,
    gate: Arc<HeldLinks>,
}

impl strata::fs::FileSystem for HeldLinksFs {
    fn create(&self, path: &Path) -> strata::Result<Box<dyn strata::fs::WritableFile>> {
        self.inner.create(path)
    }
    fn reopen_for_append(&self, path: &Path) -> strata::Result<Box<dyn strata::fs::WritableFile>> {
        self.inner.reopen_for_append(path)
    }
    fn open_random(&self, path: &Path) -> strata::Result<Arc<dyn strata::fs::RandomAccessFile>> {
        self.inner.open_random(path)
    }
    fn read_all(&self, path: &Path) -> strata::Result<Vec<u8>> {
        self.inner.read_all(path)
    }
    fn rename(&self, from: &Path, to: &Path) -> strata::Result<()> {
        self.inner.rename(from, to)
    }
    fn remove(&self, path: &Path) -> strata::Result<()> {
        self.inner.remove(path)
    }
    fn exists(&self, path: &Path) -> bool {
        self.inner.exists(path)
    }
    fn list(&self, dir: &Path) -> strata::Result<Vec<String>> {
        self.inner.list(dir)
    }
    fn create_dir_all(&self, dir: &Path) -> strata::Result<()> {
        self.inner.create_dir_all(dir)
    }
    fn sync_dir(&self, dir: &Path) -> strata::Result<()> {
        self.inner.sync_dir(dir)
    }
    fn file_size(&self, path: &Path) -> strata::Result<u64> {
        self.inner.file_size(path)
    }
    fn lock(&self, path: &Path) -> strata::Result<Box<dyn strata::fs::FileLock>> {
        self.inner.lock(path)
    }
    fn remove_dir(&self, dir: &Path) -> strata::Result<()> {
        self.inner.remove_dir(dir)
    }
    fn link(&self, from: &Path, to: &Path) -> strata::Result<()> {
        let g = &self.gate;
        let mut held = g.held.lock().unwrap();
        if *held {
            *g.waiting.lock().unwrap() += 1;
            while *held {
                held = g.cv.wait(held).unwrap();
            }
            *g.waiting.lock().unwrap() -= 1;
        }
        drop(held);
        self.inner.link(from, to)
    }
}

/// The tables a checkpoint's cut names stay in the DB directory until they
/// are linked, though a compaction makes them obsolete meanwhile; they go
/// once the checkpoint is done.
#[test]
fn a_table_a_checkpoint_is_about_to_link_is_not_purged() {
    let dir = tempdir();
    let src = dir.path().join("db");
    let gate = Arc::new(HeldLinks::default());
    let fs = Arc::new(HeldLinksFs {
        inner: strata::fs::PosixFileSystem,
        gate: gate.clone(),
    });
    let db = Arc::new(Db::open(&src, strata_testkit::small_opts(fs.clone())).unwrap());
    let mut model = Model::new();
    for i in 0..3000u32 {
        let (k, v) = (format!("k{:05}", i % 1000), format!("old-{i}"));
        db.put(&k, &v).unwrap();
        model.insert(k.into_bytes(), v.into_bytes());
    }
    db.flush().unwrap();
    db.wait_for_compaction().unwrap();
    let tables = |d: &Path| -> Vec<String> {
        file_names(d)
            .into_iter()
            .filter(|n| n.ends_with(".sst"))
            .collect()
    };
    let old = tables(&src);
    assert!(!old.is_empty());
    *gate.held.lock().unwrap() = true;
    let ckpt = dir.path().join("ckpt");
    let taking = {
        let (db, ckpt) = (db.clone(), ckpt.clone());
        thread::spawn(move || db.create_checkpoint(&ckpt))
    };
    assert!(strata_testkit::eventually(
        || *gate.waiting.lock().unwrap() == 1
    ));
    // The cut is taken. Rewrite every key and compact: the old tables are
    // obsolete, and only the checkpoint's pins keep them.
    for i in 0..3000u32 {
        db.put(format!("k{:05}", i % 1000), format!("new-{i}"))
            .unwrap();
    }
    db.compact_range(None, None).unwrap();
    let during = tables(&src);
    assert!(
        old.iter().all(|t| during.contains(t)),
        "a pinned table was purged: {old:?} -> {during:?}"
    );
    *gate.held.lock().unwrap() = false;
    gate.cv.notify_all();
    let info = taking.join().unwrap().unwrap();
    assert_eq!(info.linked_files, old.len());
    // Unpinned, the obsolete ones go at once.
    let after = tables(&src);
    assert!(
        old.iter().any(|t| !after.contains(t)),
        "{old:?} -> {after:?}"
    );
    let copy = Db::open(&ckpt, small_options()).unwrap();
    assert_model(&copy, &model, "the checkpoint");
}
