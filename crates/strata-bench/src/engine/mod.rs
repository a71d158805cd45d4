//! The engine seam: what a benchmark needs from a key-value store.
//!
//! Adapters: Strata (`strata_adapter`), LevelDB (`leveldb_adapter`, through
//! LevelDB's C API: built from source by `strata-leveldb-sys`, or a system
//! library from `LEVELDB_LIB_DIR`), fjall
//! (`fjall_adapter`), RocksDB (`rocksdb_adapter`, cargo feature `rocksdb`).
//! Tests use an in-memory double that users cannot select.

use std::path::Path;
use std::sync::Arc;

use crate::options_map::{OptionSetting, WriteOpts};

pub mod families;
pub mod fjall_adapter;
#[cfg(strata_leveldb)]
pub mod leveldb_adapter;
pub mod leveldb_map;
pub mod mapping;
#[cfg(test)]
pub mod memory;
#[cfg(feature = "rocksdb")]
pub mod rocksdb_adapter;
pub mod strata_adapter;

/// One operation of a write batch.
#[derive(Debug, Clone, Copy)]
pub enum BatchOp<'a> {
    /// Insert or overwrite `key` with `value`.
    Put(&'a [u8], &'a [u8]),
    /// Delete `key`.
    Delete(&'a [u8]),
    /// Delete every key in `[begin, end)` (RocksDB's `DeleteRange`; only
    /// engines that accept the `delete_range` setting get one).
    DeleteRange(&'a [u8], &'a [u8]),
}

impl<'a> BatchOp<'a> {
    /// The key the operation is filed under: a range's first key.
    pub fn key(&self) -> &'a [u8] {
        match self {
            BatchOp::Put(k, _) | BatchOp::Delete(k) | BatchOp::DeleteRange(k, _) => k,
        }
    }
}

/// A move of a [`BenchIter`].
#[derive(Debug, Clone, Copy)]
pub enum Move<'k> {
    /// To the first key.
    First,
    /// To the last key.
    Last,
    /// To the first key >= this one.
    Seek(&'k [u8]),
    /// To the next key.
    Next,
    /// To the previous key.
    Prev,
}

/// A positioned cursor over the DB, like RocksDB's `Iterator`. An adapter
/// makes the moves in one place ([`BenchIter::go`]); the benchmarks call
/// them by RocksDB's names.
pub trait BenchIter {
    /// Makes the move `to`; an error is the engine's report of that move.
    fn go(&mut self, to: Move<'_>) -> anyhow::Result<()>;
    /// Whether the cursor is on an entry.
    fn valid(&self) -> bool;
    /// Current key (empty when not valid).
    fn key(&self) -> &[u8];
    /// Length of the current value (0 when not valid).
    fn value_len(&self) -> usize;
    /// Positions at the first key.
    fn seek_to_first(&mut self) -> anyhow::Result<()> {
        self.go(Move::First)
    }
    /// Positions at the last key.
    fn seek_to_last(&mut self) -> anyhow::Result<()> {
        self.go(Move::Last)
    }
    /// Positions at the first key >= `key`.
    fn seek(&mut self, key: &[u8]) -> anyhow::Result<()> {
        self.go(Move::Seek(key))
    }
    /// Moves to the next key.
    fn next(&mut self) -> anyhow::Result<()> {
        self.go(Move::Next)
    }
    /// Moves to the previous key.
    fn prev(&mut self) -> anyhow::Result<()> {
        self.go(Move::Prev)
    }
}

/// Engine figures sampled at the end of each interval of a benchmark
/// (`--report_interval_seconds`); `None` where the engine reports none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EngineSample {
    /// Files in level 0 (`rocksdb.num-files-at-level0`,
    /// `leveldb.num-files-at-level0`, fjall's level 0 tables).
    pub l0_files: Option<u64>,
    /// Bytes compaction must rewrite to bring every level within its
    /// target (`rocksdb.estimate-pending-compaction-bytes`).
    pub pending_compaction_bytes: Option<u64>,
    /// Microseconds writers were stalled since the DB opened (the ticker
    /// `rocksdb.stall.micros`, so only with `--statistics`).
    pub stall_micros: Option<u64>,
}

/// A property as an unsigned number.
pub fn int_property(db: &dyn BenchEngine, name: &str) -> Option<u64> {
    db.property(name)?.trim().parse().ok()
}

/// An [`EngineSample`] from RocksDB's property names and the
/// `rocksdb.stall.micros` ticker of the statistics dump (for an engine
/// that has those names but no cheaper way to them).
pub fn sample_by_rocksdb_names(db: &dyn BenchEngine) -> EngineSample {
    EngineSample {
        l0_files: int_property(db, "rocksdb.num-files-at-level0"),
        pending_compaction_bytes: int_property(db, "rocksdb.estimate-pending-compaction-bytes"),
        stall_micros: db.statistics_dump().and_then(|d| {
            crate::dbbench_text::parse_statistics(&d)
                .tickers
                .get("rocksdb.stall.micros")
                .copied()
        }),
    }
}

/// An open database, shared by all benchmark threads.
pub trait BenchEngine: Send + Sync {
    /// Inserts or overwrites one key.
    fn put(&self, key: &[u8], value: &[u8], wo: WriteOpts) -> anyhow::Result<()>;
    /// Deletes one key.
    fn delete(&self, key: &[u8], wo: WriteOpts) -> anyhow::Result<()>;
    /// Applies a batch atomically.
    fn write_batch(&self, ops: &[BatchOp<'_>], wo: WriteOpts) -> anyhow::Result<()>;
    /// Whether the engine has a merge operator API (LevelDB and fjall do
    /// not).
    fn has_merge(&self) -> bool {
        false
    }
    /// Merges `operand` into `key` through the merge operator the DB was
    /// opened with (`--merge_operator`). An engine without one keeps this
    /// default, which refuses.
    fn merge(&self, _key: &[u8], _operand: &[u8], _wo: WriteOpts) -> anyhow::Result<()> {
        anyhow::bail!("the engine has no merge operator")
    }
    /// Reads one key; returns the value's length if found.
    fn get(&self, key: &[u8], verify_checksums: bool) -> anyhow::Result<Option<usize>>;
    /// Whether the engine has a MultiGet (LevelDB and fjall do not).
    fn has_multi_get(&self) -> bool {
        true
    }
    /// Reads several keys in one MultiGet (`batched`: RocksDB's batched
    /// API); the value lengths of those found, in the order of `keys`. An
    /// engine without one keeps this default, which refuses.
    fn multi_get(
        &self,
        _keys: &[&[u8]],
        _verify_checksums: bool,
        _batched: bool,
    ) -> anyhow::Result<Vec<Option<usize>>> {
        anyhow::bail!("the engine has no MultiGet")
    }
    /// A new iterator over the current state, checking block checksums
    /// as it reads blocks when `verify_checksums` (db_bench's
    /// `--verify_checksum`, which its scans use as its Gets do).
    fn iter(&self, verify_checksums: bool) -> anyhow::Result<Box<dyn BenchIter + '_>>;
    /// Flushes the memtable(s) to SST files.
    fn flush(&self) -> anyhow::Result<()>;
    /// Compacts the whole key range.
    fn compact_all(&self) -> anyhow::Result<()>;
    /// Waits until no compaction is pending or running.
    fn wait_for_compaction(&self) -> anyhow::Result<()>;
    /// A DB property (`rocksdb.stats`, `rocksdb.levelstats`, ...).
    fn property(&self, name: &str) -> Option<String>;
    /// The body of the `STATISTICS:` dump, if statistics are enabled.
    fn statistics_dump(&self) -> Option<String>;
    /// The figures the interval sampler reads (cheap: called once an
    /// interval while the benchmark runs). An engine without any keeps
    /// this default.
    fn sample(&self) -> EngineSample {
        EngineSample::default()
    }
}

/// Opens and destroys databases of one engine.
pub trait EngineFactory: Send + Sync {
    /// The engine's name as the environment header prints it (`Strata`, `RocksDB`).
    fn name(&self) -> &'static str;
    /// The engine's version string.
    fn version(&self) -> String;
    /// Whether the engine keeps its own defaults for flags not given
    /// (LevelDB, fjall) instead of db_bench's.
    fn keeps_own_defaults(&self) -> bool {
        false
    }
    /// Whether reads check block checksums when `--verify_checksum` is not
    /// given and the engine keeps its own defaults: db_bench's default
    /// (`true`) unless the engine's own read options say otherwise.
    fn verify_checksums_default(&self) -> bool {
        true
    }
    /// Opens (creating if missing) the DB at `path` with `settings`.
    fn open(&self, path: &Path, settings: &[OptionSetting])
        -> anyhow::Result<Arc<dyn BenchEngine>>;
}

/// LevelDB's own `db_bench`, built from the sources `--engine=leveldb` runs
/// (without Snappy: LevelDB 1.22's db_bench has no `--compression` flag),
/// when this binary was built with the cargo feature `leveldb-db-bench`.
pub const LEVELDB_DB_BENCH: Option<&str> = strata_leveldb_sys::DB_BENCH;

/// The factory for `--engine=<name>`, or an error naming what is missing.
pub fn factory_for(name: &str) -> anyhow::Result<Box<dyn EngineFactory>> {
    match name {
        "strata" => Ok(Box::new(strata_adapter::StrataFactory)),
        "fjall" => Ok(Box::new(fjall_adapter::FjallFactory)),
        #[cfg(strata_leveldb)]
        "leveldb" => Ok(Box::new(leveldb_adapter::LevelDbFactory)),
        #[cfg(not(strata_leveldb))]
        "leveldb" => anyhow::bail!(
            "--engine=leveldb: this binary was built without LevelDB: LevelDB is built from \
             source only on Linux (x86_64, aarch64) with glibc, and no system library was \
             found at build time (set LEVELDB_LIB_DIR to a directory with libleveldb.so, \
             then rebuild)"
        ),
        #[cfg(feature = "rocksdb")]
        "rocksdb" => Ok(Box::new(rocksdb_adapter::RocksDbFactory)),
        #[cfg(not(feature = "rocksdb"))]
        "rocksdb" => anyhow::bail!(
            "--engine=rocksdb: this binary was built without the `rocksdb` cargo feature \
             (build with `cargo build --release --features rocksdb`)"
        ),
        other => anyhow::bail!(
            "--engine={other}: unknown engine (expected strata, leveldb, fjall or rocksdb)"
        ),
    }
}

/// Maps an engine's open error to the flag that caused it, when the error
/// names one of the options the flags produced.
pub fn explain_open_error(err: &anyhow::Error, settings: &[OptionSetting]) -> String {
    let text = format!("{err:#}");
    // The LevelDB and fjall adapters name the flag and the engine themselves.
    if text.contains("flag '--") {
        return format!("ERROR: {text}");
    }
    let culprit = settings.iter().find(|s| {
        let group = s.option.split('.').next().unwrap_or(s.option);
        text.contains(s.option) || text.contains(group)
    });
    match culprit {
        Some(s) => {
            let verdict = if text.contains("Not supported") {
                "is not supported by this engine"
            } else {
                "was rejected by the engine"
            };
            let text = text.replace(&format!(" (option {}={})", s.option, s.value), "");
            format!(
                "ERROR: flag '--{}' (option {}={}) {verdict}: {text}",
                s.flag, s.option, s.value
            )
        }
        None => format!("ERROR: cannot open the database: {text}"),
    }
}
