//! Column families: [`ColumnFamily`], the handle users hold; `Family`, its
//! fixed parts (id, name, options, the super version readers take); and
//! `FamilyState`, its mutable parts under the DB's lock (memtables, busy
//! files, compaction counters).
//!
//! Every family has its own memtables, versions, flushes and compactions;
//! all families share the DB's WAL, sequence numbers, snapshots, MANIFEST,
//! caches and background threads.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Instant;

use parking_lot::RwLock;

use super::internal_stats::InternalStats;
use super::read_charges::ReadCharges;
use super::SuperVersion;
use crate::compaction::Busy;
use crate::error::{Error, Result};
use crate::memtable::MemTable;
use crate::options::Options;
use crate::sstable::TableOptions;
use crate::version::Version;

/// A column family's fixed parts, shared by its handles and the DB.
pub(crate) struct Family {
    pub id: u32,
    pub name: String,
    /// The family's options: its own column-family options, and the DB's
    /// for every DB-wide option (see [`family_options`]).
    pub opts: Options,
    pub table_opts: TableOptions,
    /// What readers pin: the family's memtables and version.
    pub super_version: RwLock<Arc<SuperVersion>>,
    /// Set when the family is dropped: writes to it fail from then on.
    pub dropped: AtomicBool,
    /// The `DbInner::db_id` of the DB the family belongs to.
    pub db_id: u64,
    /// Reads' charges for read-triggered compaction, shared with the
    /// family's iterators.
    pub reads: Arc<ReadCharges>,
}

/// The next `DbInner::db_id`.
static NEXT_DB_ID: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// A new identity for an open DB.
pub(crate) fn new_db_id() -> u64 {
    NEXT_DB_ID.fetch_add(1, Ordering::Relaxed)
}

impl Family {
    pub fn new(id: u32, name: String, opts: Options, sv: SuperVersion, db_id: u64) -> Self {
        let table_opts = table_options(&opts);
        let reads = Arc::new(ReadCharges::new(&opts));
        Family {
            id,
            name,
            opts,
            table_opts,
            super_version: RwLock::new(Arc::new(sv)),
            dropped: AtomicBool::new(false),
            db_id,
            reads,
        }
    }

    /// Whether the family was dropped.
    pub fn is_dropped(&self) -> bool {
        self.dropped.load(Ordering::Acquire)
    }
}

/// The table options a family's options give.
pub(crate) fn table_options(o: &Options) -> TableOptions {
    TableOptions {
        block_size: o.block_size,
        block_restart_interval: o.block_restart_interval,
        compression: o.compression,
        enable_index_compression: o.enable_index_compression,
        bloom_bits_per_key: o.bloom_bits_per_key,
        data_block_hash_util_ratio: (o.data_block_index_type
            == crate::options::DataBlockIndexType::BinaryAndHash)
            .then_some(o.data_block_hash_table_util_ratio),
    }
}

/// A column family's mutable state, under the DB's lock.
pub(crate) struct FamilyState {
    pub family: Arc<Family>,
    pub mem: Arc<MemTable>,
    /// Immutable memtables, oldest first.
    pub imm: VecDeque<Arc<MemTable>>,
    /// A flush of this family was asked for (manual flush, close).
    pub flush_requested: bool,
    /// The family's files and ranges that running jobs hold.
    pub busy: Busy,
    /// Flushes and compactions of this family running now.
    pub jobs_running: usize,
    /// A flush of this family is running.
    pub flushing: bool,
    /// Set while the family is being dropped: no new job starts on it.
    pub dropping: bool,
    /// The family's compaction counters (its `Compaction Stats` rows and
    /// flushed bytes; the DB-wide counters are in `State::istats`).
    pub istats: InternalStats,
    /// Counters at the previous `rocksdb.stats` of this family.
    pub stats_baseline: Option<(InternalStats, Instant)>,
    /// Pending compaction bytes and bottommost bytes of a version (the
    /// write controller's inputs), cached per version (see `State`).
    pub pending_bytes_cache: Option<(Weak<Version>, u64, u64)>,
}

impl FamilyState {
    pub fn new(family: Arc<Family>, mem: Arc<MemTable>) -> Self {
        let num_levels = family.opts.num_levels;
        FamilyState {
            family,
            mem,
            imm: VecDeque::new(),
            flush_requested: false,
            busy: Busy::default(),
            jobs_running: 0,
            flushing: false,
            dropping: false,
            istats: InternalStats::new(num_levels),
            stats_baseline: None,
            pending_bytes_cache: None,
        }
    }

    /// The family's options.
    pub fn opts(&self) -> &Options {
        &self.family.opts
    }

    /// Whether nothing of the family is waiting in a memtable.
    pub fn is_empty(&self) -> bool {
        self.imm.is_empty() && self.mem.is_empty()
    }

    /// Whether a flush of this family should run now.
    pub fn flush_needed(&self, write_stopped: bool) -> bool {
        !self.imm.is_empty()
            && !self.dropping
            && (self.flush_requested
                || write_stopped
                || self.imm.len() >= self.family.opts.min_write_buffer_number_to_merge)
    }
}

/// A handle to a column family of an open [`Db`](crate::Db): pass it to
/// the `_cf` methods and to [`WriteBatch::put_cf`](crate::WriteBatch::put_cf).
/// Cheap to clone. A handle of a dropped family still reads the data it
/// held when it was dropped; writes through it fail.
#[derive(Clone)]
pub struct ColumnFamily {
    pub(crate) family: Arc<Family>,
}

impl ColumnFamily {
    /// The family's id (0 for "default"; ids are never reused).
    pub fn id(&self) -> u32 {
        self.family.id
    }

    /// The family's name.
    pub fn name(&self) -> &str {
        &self.family.name
    }

    /// The family's options.
    pub fn options(&self) -> &Options {
        &self.family.opts
    }
}

impl std::fmt::Debug for ColumnFamily {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ColumnFamily({} #{})", self.family.name, self.family.id)
    }
}

/// Options that belong to the DB, not to a column family (RocksDB's
/// `DBOptions`, plus Strata's one block cache and one blob cache): the
/// options declared `DbWide` in `options/list.rs`. A family's options must
/// leave them as the DB has them.
pub const DB_WIDE_OPTIONS: &[&str] = crate::options::DB_WIDE_OPTION_NAMES;

/// A family's options: `cf`'s column-family options with the DB-wide ones
/// of `db`. A DB-wide option that `cf` moves away from its default to a
/// value other than the DB's is an error naming it, rather than a setting
/// silently ignored.
///
/// # Errors
/// `InvalidArgument` naming the family and the option.
pub(crate) fn family_options(name: &str, db: &Options, cf: &Options) -> Result<Options> {
    cf.validate()?;
    let db_pairs = db.to_pairs();
    let default_pairs = Options::default().to_pairs();
    let value = |pairs: &[(&'static str, String)], k: &str| {
        pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone())
    };
    let mut out = cf.clone();
    for (k, v) in cf.to_pairs() {
        if !DB_WIDE_OPTIONS.contains(&k) {
            continue;
        }
        let dbv = value(&db_pairs, k);
        if dbv.as_ref() == Some(&v) {
            continue;
        }
        if value(&default_pairs, k).as_ref() != Some(&v) {
            return Err(Error::InvalidArgument(format!(
                "column family '{name}': {k}={v} is a DB-wide option (the DB has {}); set it in the DB's options",
                dbv.as_deref().unwrap_or("none")
            )));
        }
        if let Some(dbv) = dbv {
            out.set(k, &dbv)?;
        }
    }
    out.statistics = db.statistics;
    out.fs = db.fs.clone();
    Ok(out)
}

/// Checks a column family name: not empty, and a name RocksDB accepts in
/// an OPTIONS file section.
///
/// # Errors
/// `InvalidArgument` naming the problem.
pub(crate) fn check_family_name(name: &str) -> Result<()> {
    if name.is_empty() {
        return Err(Error::InvalidArgument(
            "a column family name must not be empty".into(),
        ));
    }
    if name.contains(['"', '\n', '\r', '\0']) {
        return Err(Error::InvalidArgument(format!(
            "column family name {name:?} holds a quote, newline or NUL"
        )));
    }
    Ok(())
}
