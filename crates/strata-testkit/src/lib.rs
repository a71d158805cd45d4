//! Test helpers for Strata's integration tests (`crates/strata/tests`,
//! `crates/strata-cli/tests`): the fault-injecting file system [`fault`]
//! (after RocksDB's `FaultInjectionTestFS`), the kill switch [`killfs`]
//! built on it, temporary directories and small options, numbered
//! [`keys`], merge operators ([`merge`]), the [`metamorphic`] test, the
//! [`model`] randomized tests
//! compare a DB with and what they draw ([`random`]). A dev-dependency
//! only, never published.
//!
//! [`fault`] is the engine's `strata::fs::fault`, re-exported: it lives in
//! the engine, beside the `FileSystem` trait it wraps, because the engine's
//! own unit tests need it too and cannot depend on this crate (which
//! depends on the engine). The engine compiles it into its unit tests and,
//! for everyone else, with its cargo feature `fault-injection`, which this
//! crate turns on; one copy of the code serves both.

pub use strata::fs::fault;
pub mod keys;
pub mod killfs;
pub mod merge;
pub mod metamorphic;
pub mod model;
pub mod random;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;

use fault::FaultInjectionFs;
use strata::fs::{FileSystem, PosixFileSystem};
use strata::{CompressionType, Db, Options};

pub use keys::{key, key_n};
pub use model::{
    apply, batch_of, check_read, dump, first_diff, lost_writes, matching_prefix, show, Model, Ops,
};
pub use tempfile::TempDir;

/// A temporary directory, on tmpfs (`/dev/shm`) when there is one: the
/// tests simulate durability themselves, so real fsyncs only cost time.
pub fn tempdir() -> TempDir {
    shm_tempdir().unwrap_or_else(disk_tempdir)
}

/// A temporary directory on tmpfs (`/dev/shm`); `None` where there is none.
pub fn shm_tempdir() -> Option<TempDir> {
    tempfile::tempdir_in("/dev/shm").ok()
}

/// A temporary directory in the system's temporary directory, for a test
/// that needs what tmpfs may lack (O_DIRECT, which Linux refused on tmpfs
/// before 6.6).
pub fn disk_tempdir() -> TempDir {
    tempfile::tempdir().unwrap()
}

/// The settings of [`small_opts`], in RocksDB's option-string syntax.
const SMALL: &str = "write_buffer_size=65536;max_bytes_for_level_base=262144;\
                     target_file_size_base=65536;level0_file_num_compaction_trigger=2;\
                     compression=kNoCompression";

/// Options that make flushes and compactions happen after a few KiB.
pub fn small_opts(fs: Arc<dyn FileSystem>) -> Options {
    small_and("").fs(fs)
}

/// [`small_opts`] on the default file system.
pub fn small_options() -> Options {
    small_opts(strata::fs::default_fs())
}

/// [`small_options`] with statistics on and `extra` (RocksDB's
/// option-string syntax, `name=value;...`) set over them, for a test that
/// names its options as the OPTIONS file and `db_bench` do.
pub fn small_options_with(extra: &str) -> Options {
    small_and(extra).statistics(true)
}

/// The settings of [`SMALL`], then those of `extra`, over the defaults.
fn small_and(extra: &str) -> Options {
    format!("{SMALL};{extra}")
        .parse()
        .unwrap_or_else(|e| panic!("options {extra:?}: {e}"))
}

/// A DB in `dir` on `fs` with [`small_opts`] as `more` changes them.
pub fn open_on(
    dir: &Path,
    fs: &FaultInjectionFs,
    more: impl FnOnce(Options) -> Options,
) -> Arc<Db> {
    let shared: Arc<dyn FileSystem> = Arc::new(fs.clone());
    Arc::new(Db::open(dir, more(small_opts(shared))).unwrap())
}

/// A fault-injecting file system over the real one.
pub fn fault_fs() -> FaultInjectionFs {
    FaultInjectionFs::new(Arc::new(PosixFileSystem))
}

/// The compression of configuration `i` (cycles through all four).
pub fn compression(i: u64) -> CompressionType {
    match i % 4 {
        0 => CompressionType::None,
        1 => CompressionType::Snappy,
        2 => CompressionType::Lz4,
        _ => CompressionType::Zstd,
    }
}

/// The numbers in environment variable `name` (comma-separated), or `default`.
pub fn env_list(name: &str, default: &[u64]) -> Vec<u64> {
    match std::env::var(name) {
        Ok(s) if !s.trim().is_empty() => s
            .split(',')
            .map(|x| {
                x.trim()
                    .parse()
                    .unwrap_or_else(|_| panic!("{name}: bad number {x:?}"))
            })
            .collect(),
        _ => default.to_vec(),
    }
}

/// The number in environment variable `name`, or `default`.
pub fn env_u64(name: &str, default: u64) -> u64 {
    env_list(name, &[default])
        .first()
        .copied()
        .unwrap_or(default)
}

/// Names of the files in `dir`.
pub fn file_names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// The newest OPTIONS file in the DB directory `dir`.
pub fn options_file(dir: &Path) -> PathBuf {
    let name = file_names(dir)
        .into_iter()
        .rfind(|n| n.starts_with("OPTIONS-"))
        .unwrap_or_else(|| panic!("no OPTIONS file in {}", dir.display()));
    dir.join(name)
}

/// A child process's exit status, stdout and stderr, for a failure message.
pub fn output_text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Whether `rocksdb.stats` counts no stall for L0 files or pending
/// compaction bytes (the memtable limit may have stalled writers); the
/// `Stalls(count)` line otherwise, for the failure message.
pub fn no_l0_or_pending_bytes_stall(db: &Db) -> std::result::Result<(), String> {
    let text = db.property("rocksdb.stats").unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with("Stalls(count)"))
        .unwrap_or("no Stalls(count) line");
    let quiet = "Stalls(count): 0 level0_slowdown, 0 level0_slowdown_with_compaction, 0 level0_numfiles, 0 level0_numfiles_with_compaction, 0 stop for pending_compaction_bytes, 0 slowdown for pending_compaction_bytes";
    if line.starts_with(quiet) {
        Ok(())
    } else {
        Err(line.to_string())
    }
}

/// Table files in `level` (`rocksdb.num-files-at-level<N>`).
pub fn files_at_level(db: &Db, level: usize) -> usize {
    db.property(&format!("rocksdb.num-files-at-level{level}"))
        .unwrap()
        .parse()
        .unwrap()
}

/// How long a step that should not wait may take before a test calls it
/// stuck (generous: CI machines are loaded). For the tests that hold a
/// call at one of the fault FS's gates and check what else goes on.
pub const PATIENCE: std::time::Duration = std::time::Duration::from_secs(30);

/// Polls `cond` until it holds or [`PATIENCE`] runs out.
pub fn eventually(mut cond: impl FnMut() -> bool) -> bool {
    let start = std::time::Instant::now();
    while start.elapsed() < PATIENCE {
        if cond() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    false
}

/// Puts `n` 100-byte values (`w`s) under `prefix` on another thread; the
/// receiver hears when they are all in.
pub fn put_in_background(
    db: &Arc<Db>,
    prefix: &'static str,
    n: usize,
) -> std::sync::mpsc::Receiver<()> {
    let (tx, rx) = std::sync::mpsc::channel();
    let db = db.clone();
    std::thread::spawn(move || {
        for i in 0..n {
            db.put(format!("{prefix}{i:06}").as_bytes(), [b'w'; 100])
                .unwrap();
        }
        let _ = tx.send(());
    });
    rx
}

/// Puts 100-byte values (`v`s) under `a000000`, `a000001`, ... on another
/// thread until the memtable has been switched (an immutable memtable
/// waits for its flush) or `held()` says a gate of the fault FS holds a
/// call, at most 20,000; the receiver hears when the writer stops. It stops
/// at the switch rather than at the gate: on a loaded machine the flush
/// can take long enough to reach the gate that a writer waiting for it
/// fills the new memtable too, and the next writes then stall on the
/// memtable limit, which is not what the gate tests look for
/// (`writers_do_not_wait_for_a_manifest_sync` failed so in CI).
pub fn put_until_held(
    db: &Arc<Db>,
    held: impl Fn() -> bool + Send + 'static,
) -> std::sync::mpsc::Receiver<()> {
    let (tx, rx) = std::sync::mpsc::channel();
    let db = db.clone();
    std::thread::spawn(move || {
        for n in 0..20_000 {
            db.put(format!("a{n:06}").as_bytes(), [b'v'; 100]).unwrap();
            let switched = db.property("rocksdb.num-immutable-mem-table").as_deref() != Some("0");
            if switched || held() {
                break;
            }
        }
        let _ = tx.send(());
    });
    rx
}
