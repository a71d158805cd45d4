//! Corruption of each file kind of a closed DB: WAL (`*.log`), SST
//! (`*.sst`), `MANIFEST-*`, `CURRENT`, `OPTIONS-*`.
//!
//! For each kind, bytes are flipped at many offsets and the file is
//! truncated at many lengths (and, for tables, MANIFEST and CURRENT,
//! deleted) in a fresh copy of a reference DB; then the DB is opened, every
//! key is read with `get`, the whole DB is iterated, and `compact_range`
//! runs. Every step must either succeed with exactly the right values, or
//! fail with an error that `is_corruption()` (an I/O error for a missing
//! file) and names the damaged file. Never a panic, a hang (each case runs
//! under a watchdog) or a wrong value.
//!
//! For the WAL, success may also mean the documented point-in-time recovery
//! (docs/formats/wal.md): the DB holds the tables' data plus a prefix of the
//! WAL's writes.
//!
//! The reference DB holds tables (flushed and compacted, with overwrites
//! and deletions) and a WAL of 150 single puts (one of them 50 KiB, so
//! records span WAL blocks) that were never flushed.

use strata_testkit as common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use common::{dump, Model};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use strata::{CompressionType, Db, Options};

const WAL_PUTS: u32 = 150;

/// How the reference DB is written and read back.
#[derive(Debug, Clone, Copy)]
struct Setup {
    compression: CompressionType,
    /// Tables read through a memory map (`allow_mmap_reads`).
    mmap: bool,
}

impl From<CompressionType> for Setup {
    fn from(compression: CompressionType) -> Self {
        Setup {
            compression,
            mmap: false,
        }
    }
}

fn mapped(compression: CompressionType) -> Setup {
    Setup {
        compression,
        mmap: true,
    }
}

fn opts(setup: impl Into<Setup>) -> Options {
    let setup = setup.into();
    Options::default()
        .allow_mmap_reads(setup.mmap)
        .write_buffer_size(1 << 20)
        .level0_file_num_compaction_trigger(2)
        .target_file_size_base(32 << 10)
        .max_bytes_for_level_base(256 << 10)
        .compression(setup.compression)
        .bloom_bits_per_key(10.0)
        // Keep the block cache out of the picture: every read hits the file.
        .block_cache_size(0)
}

fn wal_key(i: u32) -> Vec<u8> {
    format!("t{i:04}").into_bytes()
}

fn wal_value(i: u32) -> Vec<u8> {
    let len = if i == 70 { 50 << 10 } else { 200 };
    let mut v = format!("wal-{i}-").into_bytes();
    v.resize(len, b'w');
    v
}

/// Builds the reference DB in `dir`; returns the tables' part of the model
/// (without the WAL's puts).
fn build(dir: &Path, setup: impl Into<Setup>) -> Model {
    let setup = setup.into();
    let mut m = Model::new();
    let db = Db::open(dir, opts(setup)).unwrap();
    for i in 0..600u32 {
        let k = format!("s{i:04}").into_bytes();
        let v = format!("first-{i}-{}", "x".repeat(80)).into_bytes();
        db.put(&k, &v).unwrap();
        m.insert(k, v);
    }
    db.flush().unwrap();
    for i in (0..600u32).step_by(3) {
        let k = format!("s{i:04}").into_bytes();
        if i % 2 == 0 {
            db.delete(&k).unwrap();
            m.remove(&k);
        } else {
            let v = format!("second-{i}").into_bytes();
            db.put(&k, &v).unwrap();
            m.insert(k, v);
        }
    }
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    for i in 600..700u32 {
        let k = format!("s{i:04}").into_bytes();
        let v = format!("l0-{i}").into_bytes();
        db.put(&k, &v).unwrap();
        m.insert(k, v);
    }
    db.flush().unwrap();
    db.wait_for_compaction().unwrap();
    // Reopen: the MANIFEST restarts as one snapshot edit plus the
    // recovery edit, so that no MANIFEST truncation can drop the record of
    // a flush whose WAL is gone.
    drop(db);
    let db = Db::open(dir, opts(setup)).unwrap();
    for i in 0..WAL_PUTS {
        db.put(wal_key(i), wal_value(i)).unwrap();
    }
    drop(db);
    m
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_name() == "LOCK" {
            continue;
        }
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

#[derive(Debug, Clone)]
enum Damage {
    Flip(u64, u8),
    Truncate(u64),
    Delete,
}

/// What a case saw.
#[derive(Debug, Default, Clone, Copy)]
struct Seen {
    open_failed: bool,
    read_errors: bool,
    clean: bool,
    wal_prefix: Option<u32>,
}

/// Checks that an error is a corruption (or I/O, for a missing file) naming
/// the damaged file.
fn check_error(e: &strata::Error, file: &str, missing: bool, what: &str) {
    let msg = e.to_string();
    let root = match e {
        strata::Error::Background(inner) => &**inner,
        e => e,
    };
    let kind_ok = e.is_corruption() || (missing && matches!(root, strata::Error::Io { .. }));
    assert!(kind_ok, "{what}: unexpected error kind: {msg}");
    // CURRENT damage may be reported on the MANIFEST it (no longer) names.
    let names_file = msg.contains(file) || (file == "CURRENT" && msg.contains("MANIFEST"));
    assert!(names_file, "{what}: error does not name {file}: {msg}");
}

/// Runs one damaged copy: open, get every key, iterate, compact.
fn run_case(
    template: &Path,
    file: &str,
    damage: &Damage,
    base: &Model,
    setup: Setup,
    strict_iter: bool,
) -> Seen {
    let what = format!("{file} {damage:?}");
    let tmp = common::tempdir();
    let dir = tmp.path().join("db");
    copy_dir(template, &dir);
    let path = dir.join(file);
    let mut data = std::fs::read(&path).unwrap();
    // A damaged CURRENT may name a MANIFEST that does not exist.
    let missing = matches!(damage, Damage::Delete) || file == "CURRENT";
    match damage {
        Damage::Flip(off, mask) => data[*off as usize] ^= mask,
        Damage::Truncate(len) => data.truncate(*len as usize),
        Damage::Delete => {}
    }
    if matches!(damage, Damage::Delete) {
        std::fs::remove_file(&path).unwrap();
    } else {
        std::fs::write(&path, &data).unwrap();
    }
    let mut seen = Seen::default();
    let db = match Db::open(&dir, opts(setup)) {
        Ok(db) => db,
        Err(e) => {
            check_error(&e, file, missing, &format!("{what}: open"));
            seen.open_failed = true;
            return seen;
        }
    };
    // The full expected state: the tables' part plus the WAL's puts, or
    // (WAL damage) a prefix of them.
    let mut want = base.clone();
    let is_wal = file.ends_with(".log");
    let present = if is_wal {
        // Find the recovered prefix length from the first missing put.
        let mut k = 0;
        while k < WAL_PUTS {
            match db.get(wal_key(k)) {
                Ok(Some(_)) => k += 1,
                _ => break,
            }
        }
        seen.wal_prefix = Some(k);
        k
    } else {
        WAL_PUTS
    };
    for i in 0..present {
        want.insert(wal_key(i), wal_value(i));
    }
    let mut errors = false;
    for i in 0..WAL_PUTS + 10 {
        for k in [format!("s{i:04}").into_bytes(), wal_key(i)] {
            match db.get(&k) {
                Ok(v) => assert_eq!(
                    v.as_ref(),
                    want.get(&k),
                    "{what}: wrong value for {}",
                    common::show(&k)
                ),
                Err(e) => {
                    check_error(&e, file, missing, &format!("{what}: get"));
                    errors = true;
                }
            }
        }
    }
    for k in base.keys().step_by(5) {
        match db.get(k) {
            Ok(v) => assert_eq!(v.as_ref(), want.get(k), "{what}: wrong value"),
            Err(e) => {
                check_error(&e, file, missing, &format!("{what}: get"));
                errors = true;
            }
        }
    }
    let mut it_items = Vec::new();
    let mut it_err = None;
    for r in db.iter() {
        match r {
            Ok(kv) => it_items.push(kv),
            Err(e) => {
                it_err = Some(e);
                break;
            }
        }
    }
    let want_items: Vec<(Vec<u8>, Vec<u8>)> = want.clone().into_iter().collect();
    match it_err {
        None => assert!(
            it_items == want_items,
            "{what}: iteration: {}",
            common::first_diff(&it_items.iter().cloned().collect(), &want)
        ),
        Some(e) => {
            check_error(&e, file, missing, &format!("{what}: iterate"));
            assert!(
                !strict_iter || want_items.starts_with(&it_items),
                "{what}: iteration before the error ({e}) returned wrong entries: {} entries; first difference: {:?}",
                it_items.len(),
                it_items
                    .iter()
                    .zip(&want_items)
                    .position(|(a, b)| a != b)
                    .map(|i| (common::show(&it_items[i].0), common::show(&want_items[i].0)))
            );
            errors = true;
        }
    }
    match db.compact_range(None, None) {
        Ok(()) => {
            if !errors {
                let got =
                    dump(&db).unwrap_or_else(|e| panic!("{what}: iterate after compaction: {e}"));
                assert!(
                    got == want,
                    "{what}: after compaction: {}",
                    common::first_diff(&got, &want)
                );
            }
        }
        Err(e) => {
            check_error(&e, file, missing, &format!("{what}: compact_range"));
            errors = true;
        }
    }
    seen.read_errors = errors;
    seen.clean = !errors;
    seen
}

/// Runs `f` on a thread; fails on panic or if it takes longer than 60 s.
fn watchdog<T: Send + 'static>(what: String, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        let _ = tx.send(r);
    });
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(Ok(v)) => v,
        Ok(Err(p)) => std::panic::resume_unwind(p),
        Err(_) => panic!("{what}: hang (no result after 60 s)"),
    }
}

/// The damages tried on a file of `len` bytes.
fn damages(len: u64, n: usize, rng: &mut StdRng, can_delete: bool) -> Vec<Damage> {
    let mut v = Vec::new();
    if len == 0 {
        return v;
    }
    let mut offsets: Vec<u64> = (0..n as u64).map(|i| i * len / n as u64).collect();
    offsets.extend([0, len - 1, len.saturating_sub(8), len.saturating_sub(48)]);
    for _ in 0..n / 2 {
        offsets.push(rng.gen_range(0..len));
    }
    offsets.sort_unstable();
    offsets.dedup();
    for off in offsets {
        let mask = [0x01, 0x80, 0xff, 0x55][rng.gen_range(0..4)];
        v.push(Damage::Flip(off, mask));
    }
    let mut lens: Vec<u64> = (0..n as u64 / 2)
        .map(|i| i * len / (n as u64 / 2))
        .collect();
    lens.extend([0, 1, len - 1, len / 2, len.saturating_sub(48)]);
    for _ in 0..n / 4 {
        lens.push(rng.gen_range(0..len));
    }
    lens.sort_unstable();
    lens.dedup();
    v.extend(lens.into_iter().map(Damage::Truncate));
    if can_delete {
        v.push(Damage::Delete);
    }
    v
}

fn files_of(dir: &Path, pred: impl Fn(&str) -> bool) -> Vec<String> {
    common::file_names(dir)
        .into_iter()
        .filter(|n| pred(n))
        .collect()
}

/// Runs every damage on every file of one kind; returns a tally.
fn corrupt_kind(
    kind: &str,
    pred: fn(&str) -> bool,
    per_file: usize,
    setup: impl Into<Setup>,
    can_delete: bool,
    strict_iter: bool,
) {
    let t = std::time::Instant::now();
    let tmp = common::tempdir();
    let template: PathBuf = tmp.path().join("ref");
    let setup = setup.into();
    let base = build(&template, setup);
    let files = files_of(&template, pred);
    assert!(
        !files.is_empty(),
        "no {kind} file in {:?}",
        common::file_names(&template)
    );
    let mut rng = StdRng::seed_from_u64(kind.len() as u64 * 7919 + per_file as u64);
    let mut tally: BTreeMap<&str, u64> = BTreeMap::new();
    let mut prefixes = Vec::new();
    for f in &files {
        let len = std::fs::metadata(template.join(f)).unwrap().len();
        for d in damages(len, per_file, &mut rng, can_delete) {
            let (template, f2, base, d2) = (template.clone(), f.clone(), base.clone(), d.clone());
            let seen = watchdog(format!("{f} {d:?}"), move || {
                run_case(&template, &f2, &d2, &base, setup, strict_iter)
            });
            *tally.entry("cases").or_default() += 1;
            if seen.open_failed {
                *tally.entry("open refused").or_default() += 1;
            } else if seen.read_errors {
                *tally.entry("read errors").or_default() += 1;
            } else {
                *tally.entry("clean").or_default() += 1;
            }
            if let Some(p) = seen.wal_prefix {
                prefixes.push(p);
            }
        }
    }
    println!(
        "corruption {kind} ({setup:?}): {} files, {tally:?} in {:.1}s{}",
        files.len(),
        t.elapsed().as_secs_f64(),
        if prefixes.is_empty() {
            String::new()
        } else {
            format!(
                "; WAL puts recovered: min {} max {} of {WAL_PUTS}",
                prefixes.iter().min().unwrap(),
                prefixes.iter().max().unwrap()
            )
        }
    );
    assert!(tally.get("cases").copied().unwrap_or(0) > 0);
}

fn per_file() -> usize {
    common::env_u64("STRATA_CORRUPTION_POINTS", 24) as usize
}

fn is_wal(n: &str) -> bool {
    n.ends_with(".log")
}

fn is_sst(n: &str) -> bool {
    n.ends_with(".sst")
}

fn is_manifest(n: &str) -> bool {
    n.starts_with("MANIFEST-")
}

fn is_current(n: &str) -> bool {
    n == "CURRENT"
}

fn is_options(n: &str) -> bool {
    n.starts_with("OPTIONS-")
}

#[test]
fn corrupt_wal() {
    corrupt_kind(
        "WAL",
        is_wal,
        per_file() * 2,
        CompressionType::None,
        false,
        true,
    );
}

/// Table damage; entries an iterator returns before its error are not
/// checked here (see the strict variant).
#[test]
fn corrupt_sst() {
    corrupt_kind(
        "SST",
        is_sst,
        per_file(),
        CompressionType::None,
        true,
        false,
    );
    corrupt_kind(
        "SST",
        is_sst,
        per_file() / 2,
        CompressionType::Snappy,
        true,
        false,
    );
}

/// Table damage read through memory-mapped tables: every damaged block
/// is still a Corruption naming the file and offset (a table shortened
/// before it is opened included), never a crash, and an iterator never
/// returns a wrong entry before the error.
#[test]
fn corrupt_sst_mapped() {
    corrupt_kind(
        "SST",
        is_sst,
        per_file(),
        mapped(CompressionType::None),
        true,
        true,
    );
    corrupt_kind(
        "SST",
        is_sst,
        per_file() / 2,
        mapped(CompressionType::Snappy),
        true,
        false,
    );
}

/// As `corrupt_sst`, and an iterator never returns a wrong entry before
/// reporting the error.
#[test]
fn corrupt_sst_strict_iteration() {
    corrupt_kind("SST", is_sst, per_file(), CompressionType::None, true, true);
}

#[test]
fn corrupt_manifest() {
    corrupt_kind(
        "MANIFEST",
        is_manifest,
        per_file() * 2,
        CompressionType::None,
        true,
        true,
    );
}

#[test]
fn corrupt_current() {
    corrupt_kind(
        "CURRENT",
        is_current,
        per_file(),
        CompressionType::None,
        false,
        true,
    );
}

#[test]
fn corrupt_options() {
    corrupt_kind(
        "OPTIONS",
        is_options,
        per_file(),
        CompressionType::None,
        true,
        true,
    );
}

/// Lz4 and Zstd tables, more offsets: `STRATA_CORRUPTION_POINTS=200 cargo
/// test -p strata --test corruption -- --ignored --nocapture`.
#[test]
#[ignore = "long run; see the doc comment for the command"]
fn corrupt_sst_lz4_zstd_long() {
    corrupt_kind("SST", is_sst, per_file(), CompressionType::Lz4, true, false);
    corrupt_kind(
        "SST",
        is_sst,
        per_file(),
        CompressionType::Zstd,
        true,
        false,
    );
}

/// Regression: a DB whose CURRENT file is missing must not open as a new,
/// empty DB (which then deletes the old tables as obsolete).
#[test]
fn missing_current_is_an_error() {
    let tmp = common::tempdir();
    let dir = tmp.path().join("db");
    build(&dir, CompressionType::None);
    std::fs::remove_file(dir.join("CURRENT")).unwrap();
    let e = Db::open(&dir, opts(CompressionType::None)).unwrap_err();
    assert!(e.to_string().contains("CURRENT"), "{e}");
}

/// Regression: iterating a DB one of whose tables is damaged returns the
/// error before (or instead of) any entry that the damage hides.
#[test]
fn iterator_stops_at_a_damaged_table() {
    let tmp = common::tempdir();
    let dir = tmp.path().join("db");
    // Two L0 tables, no compaction.
    let o = opts(CompressionType::None).level0_file_num_compaction_trigger(8);
    {
        let db = Db::open(&dir, o.clone()).unwrap();
        db.put(b"a", b"in the damaged table").unwrap();
        db.flush().unwrap();
        db.put(b"b", b"in the intact table").unwrap();
        db.flush().unwrap();
    }
    let tables = files_of(&dir, is_sst);
    assert_eq!(tables.len(), 2, "{tables:?}");
    // Damage the first table's footer (its last byte).
    let p = dir.join(&tables[0]);
    let mut data = std::fs::read(&p).unwrap();
    let n = data.len();
    data[n - 1] ^= 0xff;
    std::fs::write(&p, data).unwrap();
    let db = Db::open(&dir, o).unwrap();
    let first = db.iter().next().unwrap();
    assert!(
        first.is_err(),
        "the first item should be the error, got {first:?}"
    );
}
