//! Options, named as RocksDB names them.
//!
//! [`Options`] is a plain struct; each field documents its default, unit and
//! trade-off. It prints to and parses from RocksDB's option-string syntax
//! (`write_buffer_size=65536;compression=kNoCompression`), the same text the
//! `OPTIONS-NNNNNN` file holds (see `docs/formats/options.md`). Option names
//! of features this build does not implement are rejected by name.

use crate::setters::with_setters;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use crate::compaction::fifo::FifoOptions;
use crate::compaction::universal::UniversalOptions;
use crate::error::{Error, Result};
use crate::fs::{default_fs, FileSystem};
use crate::merge::MergeOperator;
use crate::sstable::CompressionType;
use crate::wal::WalRecoveryMode;

/// The largest `max_background_jobs` and `max_background_compactions`:
/// the engine starts a thread for each compaction that may run at once.
pub const MAX_BACKGROUND_JOBS: usize = 1024;

/// How SSTs are organised into levels and merged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactionStyle {
    /// Leveled compaction (`kCompactionStyleLevel`, db_bench `0`).
    Level,
    /// Universal (tiered) compaction (`kCompactionStyleUniversal`, db_bench
    /// `1`): sorted runs merged by size ratio and size amplification; less
    /// write amplification, more space and read amplification.
    Universal,
    /// FIFO compaction (`kCompactionStyleFIFO`, db_bench `2`): every table
    /// stays in L0 and the oldest are deleted once all exceed
    /// `compaction_options_fifo.max_table_files_size`; for data that
    /// expires by age (logs, time series). Old data is dropped, not merged.
    Fifo,
}

impl CompactionStyle {
    /// RocksDB's name.
    pub fn name(self) -> &'static str {
        match self {
            CompactionStyle::Level => "kCompactionStyleLevel",
            CompactionStyle::Universal => "kCompactionStyleUniversal",
            CompactionStyle::Fifo => "kCompactionStyleFIFO",
        }
    }
}

impl FromStr for CompactionStyle {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "kCompactionStyleLevel" | "0" | "level" => Ok(CompactionStyle::Level),
            "kCompactionStyleUniversal" | "1" | "universal" => Ok(CompactionStyle::Universal),
            "kCompactionStyleFIFO" | "2" | "fifo" => Ok(CompactionStyle::Fifo),
            other => Err(Error::InvalidArgument(format!(
                "compaction_style: unknown value '{other}'"
            ))),
        }
    }
}

/// Which file of an over-full level a leveled compaction takes first
/// (RocksDB's `CompactionPri`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactionPri {
    /// The largest file first, deletions weighted up (`kByCompensatedSize`,
    /// 0): frees the most space per compaction.
    ByCompensatedSize,
    /// The file whose newest entry is oldest first
    /// (`kOldestLargestSeqFirst`, 1): cold ranges go down first; suits
    /// updates concentrated on hot keys.
    OldestLargestSeqFirst,
    /// The file whose oldest entry is oldest first
    /// (`kOldestSmallestSeqFirst`, 2): the longest-waiting data goes down
    /// first; suits uniform updates.
    OldestSmallestSeqFirst,
    /// The file that overlaps the fewest bytes in the next level per byte of
    /// its own first (`kMinOverlappingRatio`, 3, the default): the least
    /// write amplification per compaction.
    MinOverlappingRatio,
}

impl CompactionPri {
    /// RocksDB's name.
    pub fn name(self) -> &'static str {
        match self {
            CompactionPri::ByCompensatedSize => "kByCompensatedSize",
            CompactionPri::OldestLargestSeqFirst => "kOldestLargestSeqFirst",
            CompactionPri::OldestSmallestSeqFirst => "kOldestSmallestSeqFirst",
            CompactionPri::MinOverlappingRatio => "kMinOverlappingRatio",
        }
    }
}

impl FromStr for CompactionPri {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "kByCompensatedSize" | "0" => Ok(CompactionPri::ByCompensatedSize),
            "kOldestLargestSeqFirst" | "1" => Ok(CompactionPri::OldestLargestSeqFirst),
            "kOldestSmallestSeqFirst" | "2" => Ok(CompactionPri::OldestSmallestSeqFirst),
            "kMinOverlappingRatio" | "3" => Ok(CompactionPri::MinOverlappingRatio),
            "kRoundRobin" | "4" => Err(Error::NotSupported(
                "compaction_pri=kRoundRobin: round-robin compaction (per-level cursors kept in the MANIFEST) is not implemented".into(),
            )),
            other => Err(Error::InvalidArgument(format!(
                "compaction_pri: unknown value '{other}' (kByCompensatedSize, kOldestLargestSeqFirst, kOldestSmallestSeqFirst or kMinOverlappingRatio)"
            ))),
        }
    }
}

/// When separated values are put into the blob cache as they are written
/// (RocksDB's `PrepopulateBlobCache`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PrepopulateBlobCache {
    /// Never (`kDisable`).
    Disable,
    /// Values written by flushes (`kFlushOnly`): recent writes are hot.
    FlushOnly,
}

impl PrepopulateBlobCache {
    /// RocksDB's name.
    pub fn name(self) -> &'static str {
        match self {
            PrepopulateBlobCache::Disable => "kDisable",
            PrepopulateBlobCache::FlushOnly => "kFlushOnly",
        }
    }
}

impl FromStr for PrepopulateBlobCache {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "kDisable" | "0" | "disable" => Ok(PrepopulateBlobCache::Disable),
            "kFlushOnly" | "1" | "flush_only" => Ok(PrepopulateBlobCache::FlushOnly),
            other => Err(Error::InvalidArgument(format!(
                "prepopulate_blob_cache: unknown value '{other}' (kDisable or kFlushOnly)"
            ))),
        }
    }
}

with_setters! {
    /// Options for opening a DB. Defaults are RocksDB's library defaults (not
    /// db_bench's; `strata bench` applies db_bench's own defaults).
    #[derive(Clone)]
    #[non_exhaustive]
    pub struct Options {
        /// Create the DB if it does not exist. Default: `true` (RocksDB: false;
        /// Strata creates by default for convenience).
        pub create_if_missing: bool,
        /// Fail to open if the DB already exists. Default: `false`.
        pub error_if_exists: bool,
        /// With [`Db::open_cf`](crate::Db::open_cf), create the named column
        /// families the DB does not have yet (otherwise a missing family is an
        /// error). Default: `false`, as in RocksDB.
        pub create_missing_column_families: bool,
        /// Verify checksums of everything read during open and compaction, and
        /// treat any corruption as fatal. Default: `true`.
        pub paranoid_checks: bool,
        /// Bytes a memtable holds before it is made immutable and flushed to an
        /// L0 table. Default: 64 MiB. Larger: fewer L0 files and less write
        /// amplification, more memory and longer recovery.
        pub write_buffer_size: usize,
        /// Bytes of each block of a memtable's arena; 0 derives it from
        /// `write_buffer_size` as RocksDB does: an eighth of it, at most 1 MiB,
        /// rounded up to 4 KiB (clamped to [4 KiB, 2 GiB], a multiple of 16).
        /// Default: 0. A memtable is full when one more block would take it more
        /// than 0.6 of a block past `write_buffer_size`, or when its last block
        /// is three quarters used, so larger blocks make memtable sizes coarser
        /// (and waste up to a quarter block per memtable); smaller ones cost more
        /// allocations. Entries larger than a quarter block get a block of
        /// their own.
        pub arena_block_size: usize,
        /// Most memtables (mutable + immutable) kept in memory; when that many
        /// are full, writers stop until a flush finishes. Default: 2.
        pub max_write_buffer_number: usize,
        /// With more than one column family, the most bytes the live WALs may
        /// hold: past it, the families whose entries keep the oldest WAL alive
        /// switch their memtables and flush, so that WAL can go (a rarely
        /// written family would otherwise keep every WAL since its last flush).
        /// Default: 0, meaning 4 x the sum over families of `write_buffer_size`
        /// x `max_write_buffer_number` (RocksDB's rule). DB-wide. Ignored with
        /// one family, as in RocksDB.
        pub max_total_wal_size: u64,
        /// Least number of immutable memtables merged into one flush. Default: 1.
        /// Larger merges more overwrites away before L0, at the cost of memory.
        pub min_write_buffer_number_to_merge: usize,
        /// Background jobs (flushes and compactions) that may run at once.
        /// Default: 2. As in RocksDB (`GetBGJobLimits`), a quarter of them (at
        /// least one) are for flushes and the rest (at least one) for
        /// compactions, unless `max_background_flushes` or
        /// `max_background_compactions` is set; and only one compaction runs at
        /// a time until compaction falls behind (see
        /// `write_controller::needs_compaction_speedup`). Strata runs
        /// one flush at a time, which writes every sealed memtable into one L0
        /// table, so the flush share only matters through what is left for
        /// compactions. More: compaction catches up sooner under pressure, at
        /// the cost of cores taken from foreground work. At most
        /// [`MAX_BACKGROUND_JOBS`] (each possible compaction has a thread).
        pub max_background_jobs: usize,
        /// Legacy limit on concurrent compactions; -1 (the default) derives it
        /// from `max_background_jobs`. Any other value (with or without
        /// `max_background_flushes`) is used instead, at least 1, as RocksDB
        /// does. The single-compaction rule while compaction keeps up still
        /// applies.
        pub max_background_compactions: i32,
        /// Legacy limit on concurrent flushes; -1 (the default) derives it from
        /// `max_background_jobs`. Strata runs one flush at a time (it writes
        /// every sealed memtable into one table), so only -1, 0 and 1 are
        /// accepted; a larger value is refused at open.
        pub max_background_flushes: i32,
        /// Number of LSM levels. Default: 7.
        pub num_levels: usize,
        /// Number of L0 files that triggers an L0->L1 compaction. Default: 4.
        pub level0_file_num_compaction_trigger: usize,
        /// Number of L0 files at which writes are slowed to `delayed_write_rate`.
        /// Default: 20.
        pub level0_slowdown_writes_trigger: usize,
        /// Number of L0 files at which writes stop until compaction catches up.
        /// Default: 36.
        pub level0_stop_writes_trigger: usize,
        /// Target size of L1 in bytes. Default: 256 MiB.
        pub max_bytes_for_level_base: u64,
        /// Each level below L1 targets this many times the level above.
        /// Default: 10. Smaller: less write amplification per level, more levels.
        pub max_bytes_for_level_multiplier: f64,
        /// Extra per-level factors on the multiplier: level n's target is level
        /// n-1's x multiplier x this list's entry n-1 (missing entries are 1).
        /// Default: empty (all 1). Ignored with
        /// `level_compaction_dynamic_level_bytes`, as in RocksDB. Option string:
        /// colon-separated integers (`1:1:2:2:4:4:8`).
        pub max_bytes_for_level_multiplier_additional: Vec<i32>,
        /// Target size of a compaction output file at L1, in bytes.
        /// Default: 64 MiB.
        pub target_file_size_base: u64,
        /// Each level below L1 targets files this many times larger. Default: 1.
        pub target_file_size_multiplier: u64,
        /// Largest compaction, in bytes: a leveled compaction's output file is
        /// also cut where it plus the next-level files it overlaps would exceed
        /// this. 0 (the default) means 25 x `target_file_size_base`, as in
        /// RocksDB. Smaller: smaller later compactions, more and smaller files.
        pub max_compaction_bytes: u64,
        /// Leveled compaction cuts output files at the boundaries of the files
        /// one level down once an output has reached 50-90% of its target size
        /// (compaction/file_cut.rs). Default: true (RocksDB's default). Lower
        /// write amplification (later compactions overlap fewer files) for
        /// somewhat smaller files.
        pub level_compaction_dynamic_file_size: bool,
        /// Estimated bytes of pending compaction at which writes slow down
        /// (0 = off). Default: 64 GiB.
        pub soft_pending_compaction_bytes_limit: u64,
        /// Estimated bytes of pending compaction at which writes stop
        /// (0 = off). Default: 256 GiB.
        pub hard_pending_compaction_bytes_limit: u64,
        /// Write rate in bytes/second while writes are slowed down.
        /// Default: 16 MiB/s.
        pub delayed_write_rate: u64,
        /// Compaction style. Default: leveled.
        pub compaction_style: CompactionStyle,
        /// Run no automatic compactions: flushes still add L0 files (or sorted
        /// runs), but only `compact_range` merges them. Writers are then never
        /// slowed or stopped for L0 files or pending compaction bytes, only for
        /// memtables, as in RocksDB. Default: false. For bulk loads followed by
        /// one manual compaction; left on, reads slow down as L0 grows.
        pub disable_auto_compactions: bool,
        /// Which file of an over-full level (L1 and deeper) leveled compaction
        /// takes first. Default: `kMinOverlappingRatio` (RocksDB's default);
        /// see [`CompactionPri`] for the trade-offs.
        pub compaction_pri: CompactionPri,
        /// Universal compaction's knobs (`compaction_options_universal`):
        /// `size_ratio` (1, percent), `min_merge_width` (2), `max_merge_width`
        /// (unlimited), `max_size_amplification_percent` (200), `stop_style`
        /// (kCompactionStopStyleTotalSize), `allow_trivial_move` (false).
        pub compaction_options_universal: UniversalOptions,
        /// Seconds after which data expires: under FIFO compaction, a table
        /// whose newest entry was written longer ago than this is deleted
        /// (when that brings the tables within `max_table_files_size`; else
        /// the size rule deletes more). 0 = no expiry. Default:
        /// [`DEFAULT_TTL`], RocksDB's "pick for me" value: 30 days under FIFO,
        /// as RocksDB's option sanitizing gives block-based tables. Only FIFO
        /// implements `ttl`: RocksDB's TTL compactions under leveled and
        /// universal compaction (30 days by default there too) are not built,
        /// so the default means no TTL with those styles, and any other
        /// non-zero value with them is refused at open. See
        /// [`Options::effective_ttl`].
        pub ttl: u64,
        /// FIFO compaction's knobs (`compaction_options_fifo`):
        /// `max_table_files_size` (1 GiB), `allow_compaction` (false); see
        /// [`FifoOptions`].
        pub compaction_options_fifo: FifoOptions,
        /// Size level targets from the last level's actual size upwards, so that
        /// the LSM keeps a fixed shape as data grows (RocksDB's
        /// `level_compaction_dynamic_level_bytes`); L0 then compacts straight
        /// into the deepest level that needs data. Default: false (RocksDB 7's
        /// and db_bench's default; static targets from `max_bytes_for_level_base`).
        pub level_compaction_dynamic_level_bytes: bool,
        /// Block compression for SSTs. Default: `kSnappyCompression`.
        pub compression: CompressionType,
        /// Uncompressed size of a data block in bytes. Default: 4096.
        pub block_size: usize,
        /// Keys between restart points in a block. Default: 16.
        pub block_restart_interval: usize,
        /// Compress each table's index block with `compression`, as data blocks
        /// are (RocksDB's `enable_index_compression`). Default: true. Saves
        /// about a third of the index (0.3% of a table of 1 KB values under
        /// Snappy); the index is decompressed once, when the table is opened.
        pub enable_index_compression: bool,
        /// Bloom filter bits per key for each SST's full-file filter; 0 means no
        /// filter. Default: 0 (as RocksDB, whose default filter policy is none).
        /// 10 bits gives about a 1% false-positive rate.
        pub bloom_bits_per_key: f64,
        /// Capacity of the shared LRU block cache in bytes (0 = no cache).
        /// Default: 8 MiB.
        pub block_cache_size: usize,
        /// Table files kept open (-1 = unlimited). Default: -1.
        pub max_open_files: i32,
        /// How WAL corruption is handled at recovery. Default:
        /// `kPointInTimeRecovery`.
        pub wal_recovery_mode: WalRecoveryMode,
        /// Collect tickers and histograms (`rocksdb.*` statistics). Default: false.
        /// Costs a few percent of throughput.
        pub statistics: bool,
        /// Seconds between dumps of `rocksdb.stats` into the LOG (0 = never).
        /// Default: 600.
        pub stats_dump_period_sec: u32,
        /// Largest number of info LOG files kept: the current `LOG` and up
        /// to `keep_log_file_num - 1` rotated `LOG.old.<micros>` files.
        /// Each open rotates the LOG and deletes the oldest rotated files
        /// past this count. Default: 1000 (as RocksDB). At least 1.
        pub keep_log_file_num: usize,
        /// Largest number of key ranges one compaction is split into, each run
        /// on its own thread (L0 -> base level, manual and universal
        /// compactions). Default: 1. More uses more cores for one compaction;
        /// past the core count it only adds overhead.
        pub max_subcompactions: u32,
        /// Read table files with O_DIRECT, bypassing the OS page cache (the
        /// block cache is then the only cache); tables are then not mapped
        /// (`allow_mmap_reads`). Default: false. Open fails with
        /// `NotSupported` on file systems without O_DIRECT (tmpfs).
        pub use_direct_reads: bool,
        /// Read table files through a memory map (RocksDB's
        /// `allow_mmap_reads`): a data block stored uncompressed is read in
        /// place from the page cache, with no system call, no copy and no
        /// allocation, and the block cache keeps a reference to it instead
        /// of a copy; a compressed block is decompressed out of the map.
        /// Checksums are verified when a block is read from the map, not
        /// on a cache hit, as with file reads. Default: true, unlike
        /// RocksDB (false): on data in the page cache it measured 1.3 to
        /// 1.6 times the Gets, scans and seeks of `pread` reads
        /// (docs/design/engine.md, "Table reads"). Does not apply with
        /// `use_direct_reads`, which reads around the page cache a map
        /// reads through. Only table files are mapped, and the engine never
        /// changes one once written; a table file shortened by another
        /// process while mapped makes a read of the lost pages raise
        /// `SIGBUS`.
        pub allow_mmap_reads: bool,
        /// Tell the OS that table and blob files will be read at random
        /// (`POSIX_FADV_RANDOM` when one is opened for reads), so it does no
        /// read-ahead of its own (RocksDB's `advise_random_on_open`, which its
        /// blob file reader honours too).
        /// Default: true, as RocksDB. Point reads then fetch only the block
        /// they need. The cost falls on compactions that read block by block
        /// (`compaction_readahead_size` 0, db_bench's default): each block is
        /// then one device read, which is slow where a device read is dear
        /// (a VM's virtio disk) and the inputs are not cached (written with
        /// `use_direct_io_for_flush_and_compaction`). Ignored for tables
        /// with `use_direct_reads`, which has no OS read-ahead to turn off.
        pub advise_random_on_open: bool,
        /// Write flush and compaction outputs with O_DIRECT, so background
        /// writes do not evict the page cache. Default: false.
        pub use_direct_io_for_flush_and_compaction: bool,
        /// Store values of at least `min_blob_size` bytes in blob files, with
        /// only a small index in the SSTs (key-value separation, RocksDB's
        /// integrated BlobDB). Default: false. Compaction then moves pointers
        /// instead of values; reads of separated values cost one more read.
        pub enable_blob_files: bool,
        /// Smallest value (bytes) that goes to a blob file. Default: 0 (all
        /// values, when blob files are on).
        pub min_blob_size: u64,
        /// Size (bytes) at which a blob file is closed and a new one started.
        /// Default: 256 MiB.
        pub blob_file_size: u64,
        /// Compression of each blob. Default: `kNoCompression`.
        pub blob_compression_type: CompressionType,
        /// Relocate live blobs out of the oldest blob files during compaction,
        /// so those files can be deleted. Default: false (garbage is never
        /// reclaimed until every key of a file is rewritten).
        pub enable_blob_garbage_collection: bool,
        /// Fraction (0..=1) of blob files, oldest first, whose blobs compaction
        /// relocates when GC is on. Default: 0.25.
        pub blob_garbage_collection_age_cutoff: f64,
        /// Garbage ratio (0..=1) of the oldest blob files at which the tables
        /// that keep them alive are compacted on purpose. Default: 1.0 (off).
        pub blob_garbage_collection_force_threshold: f64,
        /// Bytes a compaction reads ahead in each input table, in one read,
        /// instead of one read per block (RocksDB's `compaction_readahead_size`).
        /// Default: 2 MiB (RocksDB 10's). 0 reads block by block, leaving
        /// read-ahead to the OS page cache; with `use_direct_reads` there is no
        /// page cache, so 0 then means 2 MiB, as RocksDB's option sanitizing
        /// did. Larger: fewer, longer reads (what spinning disks and direct I/O
        /// want), at that many bytes of memory per input table of a running
        /// compaction.
        pub compaction_readahead_size: u64,
        /// Read-ahead (bytes) when compaction reads blobs for relocation.
        /// Default: 0 (none).
        pub blob_compaction_readahead_size: u64,
        /// Lowest level whose flush or compaction outputs separate values.
        /// Default: 0 (flushes already write blob files).
        pub blob_file_starting_level: usize,
        /// Capacity (bytes) of the blob cache; 0 = no blob cache. Default: 0.
        pub blob_cache_size: usize,
        /// Put values written by flushes into the blob cache. Default: kDisable.
        pub prepopulate_blob_cache: PrepopulateBlobCache,
        /// Limit on the bytes per second that flushes and compactions write
        /// (table and blob files; not the WAL), shared by all background jobs:
        /// RocksDB's `rate_limiter` made with `NewGenericRateLimiter`. 0 = no
        /// limit. Default: 0. A limit smooths background I/O for foreground
        /// latency, but compaction falls behind sooner and writes stall sooner.
        /// Flushes go before compactions except one refill in ten.
        pub rate_limiter_bytes_per_sec: u64,
        /// How often the rate limiter's budget is refilled, in microseconds;
        /// each refill allows `rate x period` bytes, the largest single grant.
        /// Default: 100,000 (100 ms). Shorter periods pace more smoothly for
        /// more wake-ups.
        pub rate_limiter_refill_period_us: u64,
        /// Let the rate limiter find its own rate below
        /// `rate_limiter_bytes_per_sec` (RocksDB's `auto_tuned`): it starts at
        /// half, and every 100 refill periods goes up 5% when requests found the
        /// bucket empty in more than 90% of them, down 5% below 50%, and to a
        /// twentieth of the ceiling when none did. Default: false. Background
        /// writes then take only the bandwidth the workload keeps asking for,
        /// at the cost of a slower answer to a sudden compaction burst.
        pub rate_limiter_auto_tuned: bool,
        /// Ask the OS to start writing a table or blob file back to the device
        /// every this many bytes while a flush or compaction writes it
        /// (`sync_file_range`), leaving the newest 1 MiB; 0 = only the final
        /// `fdatasync`. Default: 0, which RocksDB (and so Strata) turns into
        /// 1 MiB when `rate_limiter_bytes_per_sec` is set. Spreads write-back
        /// so a large file's final sync does not stall the device, for a few
        /// more system calls. Not used with direct I/O.
        pub bytes_per_sync: u64,
        /// As `bytes_per_sync`, for WAL files. Default: 0 (off).
        pub wal_bytes_per_sync: u64,
        /// The column family's merge operator, which combines the operands of
        /// [`Db::merge`](crate::Db::merge) with a key's older value on reads,
        /// flushes and compactions. Default: none; a read that meets merge
        /// operands without one is `InvalidArgument`, while flushes and
        /// compactions keep the operands as they are. In the option string,
        /// `merge_operator=uint64add` (also `max`, `put`, `stringappend`, or
        /// the operator's own name, `UInt64AddOperator`, ...) picks a built-in
        /// ([`crate::merge::builtin`]) and `nullptr` none; the OPTIONS file
        /// records the operator's name. Opening a DB with another operator, or
        /// none, than it was written with is not checked (as in RocksDB).
        pub merge_operator: Option<Arc<dyn MergeOperator>>,
        /// File system used for every file operation. Default: the OS's.
        /// Not part of the option string.
        pub fs: Arc<dyn FileSystem>,
    }
}

impl Default for Options {
    fn default() -> Self {
        Options {
            create_if_missing: true,
            create_missing_column_families: false,
            error_if_exists: false,
            paranoid_checks: true,
            write_buffer_size: 64 << 20,
            arena_block_size: 0,
            max_write_buffer_number: 2,
            max_total_wal_size: 0,
            min_write_buffer_number_to_merge: 1,
            max_background_jobs: 2,
            max_background_compactions: -1,
            max_background_flushes: -1,
            num_levels: 7,
            level0_file_num_compaction_trigger: 4,
            level0_slowdown_writes_trigger: 20,
            level0_stop_writes_trigger: 36,
            max_bytes_for_level_base: 256 << 20,
            max_bytes_for_level_multiplier: 10.0,
            max_bytes_for_level_multiplier_additional: Vec::new(),
            target_file_size_base: 64 << 20,
            target_file_size_multiplier: 1,
            max_compaction_bytes: 0,
            level_compaction_dynamic_file_size: true,
            soft_pending_compaction_bytes_limit: 64 << 30,
            hard_pending_compaction_bytes_limit: 256 << 30,
            delayed_write_rate: 16 << 20,
            compaction_style: CompactionStyle::Level,
            compaction_pri: CompactionPri::MinOverlappingRatio,
            disable_auto_compactions: false,
            compaction_options_universal: UniversalOptions::default(),
            compaction_options_fifo: FifoOptions::default(),
            ttl: DEFAULT_TTL,
            level_compaction_dynamic_level_bytes: false,
            compression: CompressionType::Snappy,
            block_size: 4096,
            block_restart_interval: 16,
            enable_index_compression: true,
            bloom_bits_per_key: 0.0,
            block_cache_size: 8 << 20,
            max_open_files: -1,
            wal_recovery_mode: WalRecoveryMode::PointInTimeRecovery,
            statistics: false,
            stats_dump_period_sec: 600,
            keep_log_file_num: 1000,
            max_subcompactions: 1,
            use_direct_reads: false,
            allow_mmap_reads: true,
            advise_random_on_open: true,
            use_direct_io_for_flush_and_compaction: false,
            enable_blob_files: false,
            min_blob_size: 0,
            blob_file_size: 256 << 20,
            blob_compression_type: CompressionType::None,
            enable_blob_garbage_collection: false,
            blob_garbage_collection_age_cutoff: 0.25,
            blob_garbage_collection_force_threshold: 1.0,
            compaction_readahead_size: 2 << 20,
            blob_compaction_readahead_size: 0,
            blob_file_starting_level: 0,
            blob_cache_size: 0,
            prepopulate_blob_cache: PrepopulateBlobCache::Disable,
            rate_limiter_bytes_per_sec: 0,
            rate_limiter_refill_period_us: 100_000,
            rate_limiter_auto_tuned: false,
            bytes_per_sync: 0,
            wal_bytes_per_sync: 0,
            merge_operator: None,
            fs: default_fs(),
        }
    }
}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Options({self})")
    }
}

fn parse_bool(name: &str, v: &str) -> Result<bool> {
    match v {
        "true" | "1" => Ok(true),
        "false" | "0" => Ok(false),
        _ => Err(Error::InvalidArgument(format!(
            "{name}: expected true or false, got '{v}'"
        ))),
    }
}

fn parse_num<T: FromStr>(name: &str, v: &str) -> Result<T> {
    v.trim()
        .parse()
        .map_err(|_| Error::InvalidArgument(format!("{name}: cannot parse '{v}' as a number")))
}

/// The `merge_operator` option's value: `nullptr` (or empty) for none, a
/// built-in by name, else `NotSupported` naming it.
fn parse_merge_operator(v: &str) -> Result<Option<Arc<dyn MergeOperator>>> {
    if v.is_empty() || v == "nullptr" {
        return Ok(None);
    }
    crate::merge::builtin(v).map(Some).ok_or_else(|| {
        Error::NotSupported(format!(
            "merge_operator '{v}' is not a built-in merge operator (built in: {}); \
             set Options::merge_operator to the operator in code",
            crate::merge::BUILTIN_NAMES.join(", ")
        ))
    })
}

/// RocksDB's `kDefaultTtl` (0xfffffffffffffffe): `ttl` left for the
/// engine to choose ([`Options::effective_ttl`]).
pub const DEFAULT_TTL: u64 = 0xffff_ffff_ffff_fffe;

/// Option names of RocksDB features this build does not implement.
const NOT_IMPLEMENTED: &[&str] = &["periodic_compaction_seconds"];

impl Options {
    /// `bytes_per_sync` as RocksDB's `SanitizeOptions` leaves it: 1 MiB
    /// when it is 0 and a rate limiter is set.
    pub fn effective_bytes_per_sync(&self) -> u64 {
        if self.bytes_per_sync == 0 && self.rate_limiter_bytes_per_sec > 0 {
            1 << 20
        } else {
            self.bytes_per_sync
        }
    }

    /// The memtable arena's block size these options give (see
    /// `arena_block_size`).
    pub fn effective_arena_block_size(&self) -> usize {
        crate::memtable::arena::block_size(self.arena_block_size, self.write_buffer_size)
    }

    /// The TTL in seconds these options give: `ttl`, with [`DEFAULT_TTL`]
    /// resolved as RocksDB resolves it (30 days under FIFO) or, with the
    /// styles whose TTL compactions Strata lacks, to 0.
    pub fn effective_ttl(&self) -> u64 {
        match (self.ttl, self.compaction_style) {
            (DEFAULT_TTL, CompactionStyle::Fifo) => 30 * 24 * 60 * 60,
            (DEFAULT_TTL, _) => 0,
            (t, _) => t,
        }
    }

    /// The compaction read-ahead in bytes these options give:
    /// `compaction_readahead_size`, or 2 MiB when that is 0 under
    /// `use_direct_reads` (no page cache reads ahead then).
    pub fn effective_compaction_readahead_size(&self) -> usize {
        match (self.compaction_readahead_size, self.use_direct_reads) {
            (0, true) => 2 << 20,
            (n, _) => n as usize,
        }
    }

    /// Sets one option by its RocksDB name from its string value.
    ///
    /// # Errors
    /// `InvalidArgument` for an unknown name or a malformed value;
    /// `NotSupported` for an option of a feature this build lacks.
    pub fn set(&mut self, name: &str, value: &str) -> Result<()> {
        let v = value.trim();
        match name.trim() {
            "create_if_missing" => self.create_if_missing = parse_bool(name, v)?,
            "create_missing_column_families" => {
                self.create_missing_column_families = parse_bool(name, v)?
            }
            "error_if_exists" => self.error_if_exists = parse_bool(name, v)?,
            "paranoid_checks" => self.paranoid_checks = parse_bool(name, v)?,
            "write_buffer_size" => self.write_buffer_size = parse_num(name, v)?,
            "arena_block_size" => self.arena_block_size = parse_num(name, v)?,
            "max_write_buffer_number" => self.max_write_buffer_number = parse_num(name, v)?,
            "max_total_wal_size" => self.max_total_wal_size = parse_num(name, v)?,
            "min_write_buffer_number_to_merge" => {
                self.min_write_buffer_number_to_merge = parse_num(name, v)?
            }
            "max_background_jobs" => self.max_background_jobs = parse_num(name, v)?,
            "max_background_compactions" => self.max_background_compactions = parse_num(name, v)?,
            "max_background_flushes" => self.max_background_flushes = parse_num(name, v)?,
            "num_levels" => self.num_levels = parse_num(name, v)?,
            "level0_file_num_compaction_trigger" => {
                self.level0_file_num_compaction_trigger = parse_num(name, v)?
            }
            "level0_slowdown_writes_trigger" => {
                self.level0_slowdown_writes_trigger = parse_num(name, v)?
            }
            "level0_stop_writes_trigger" => self.level0_stop_writes_trigger = parse_num(name, v)?,
            "max_bytes_for_level_base" => self.max_bytes_for_level_base = parse_num(name, v)?,
            "max_bytes_for_level_multiplier" => {
                self.max_bytes_for_level_multiplier = parse_num(name, v)?
            }
            "max_bytes_for_level_multiplier_additional" => {
                self.max_bytes_for_level_multiplier_additional = v
                    .split(':')
                    .filter(|x| !x.trim().is_empty())
                    .map(|x| parse_num(name, x))
                    .collect::<Result<_>>()?
            }
            "target_file_size_base" => self.target_file_size_base = parse_num(name, v)?,
            "target_file_size_multiplier" => self.target_file_size_multiplier = parse_num(name, v)?,
            "max_compaction_bytes" => self.max_compaction_bytes = parse_num(name, v)?,
            "level_compaction_dynamic_file_size" => {
                self.level_compaction_dynamic_file_size = parse_bool(name, v)?
            }
            "soft_pending_compaction_bytes_limit" => {
                self.soft_pending_compaction_bytes_limit = parse_num(name, v)?
            }
            "hard_pending_compaction_bytes_limit" => {
                self.hard_pending_compaction_bytes_limit = parse_num(name, v)?
            }
            "delayed_write_rate" => self.delayed_write_rate = parse_num(name, v)?,
            "compaction_style" => self.compaction_style = v.parse()?,
            "compaction_pri" => self.compaction_pri = v.parse()?,
            "disable_auto_compactions" => self.disable_auto_compactions = parse_bool(name, v)?,
            "level_compaction_dynamic_level_bytes" => {
                self.level_compaction_dynamic_level_bytes = parse_bool(name, v)?
            }
            "compaction_options_universal" => {
                let inner = v.trim().trim_start_matches('{').trim_end_matches('}');
                for (k, val) in split_options(inner)? {
                    self.set_universal(&k, &val)?;
                }
            }
            n if n.starts_with("compaction_options_universal.") => {
                self.set_universal(&n["compaction_options_universal.".len()..], v)?
            }
            "ttl" => self.ttl = parse_num(name, v)?,
            "compaction_options_fifo" => {
                let inner = v.trim().trim_start_matches('{').trim_end_matches('}');
                for (k, val) in split_options(inner)? {
                    self.set_fifo(&k, &val)?;
                }
            }
            n if n.starts_with("compaction_options_fifo.") => {
                self.set_fifo(&n["compaction_options_fifo.".len()..], v)?
            }
            "compression" => self.compression = v.parse()?,
            "block_size" => self.block_size = parse_num(name, v)?,
            "block_restart_interval" => self.block_restart_interval = parse_num(name, v)?,
            "enable_index_compression" => self.enable_index_compression = parse_bool(name, v)?,
            "bloom_bits_per_key" => self.bloom_bits_per_key = parse_num(name, v)?,
            "block_cache_size" => self.block_cache_size = parse_num(name, v)?,
            "max_open_files" => self.max_open_files = parse_num(name, v)?,
            "wal_recovery_mode" => self.wal_recovery_mode = v.parse()?,
            "statistics" => self.statistics = parse_bool(name, v)?,
            "stats_dump_period_sec" => self.stats_dump_period_sec = parse_num(name, v)?,
            "keep_log_file_num" => self.keep_log_file_num = parse_num(name, v)?,
            "max_subcompactions" => self.max_subcompactions = parse_num(name, v)?,
            "rate_limiter_bytes_per_sec" => self.rate_limiter_bytes_per_sec = parse_num(name, v)?,
            "rate_limiter_refill_period_us" => {
                self.rate_limiter_refill_period_us = parse_num(name, v)?
            }
            "rate_limiter_auto_tuned" => self.rate_limiter_auto_tuned = parse_bool(name, v)?,
            "bytes_per_sync" => self.bytes_per_sync = parse_num(name, v)?,
            "wal_bytes_per_sync" => self.wal_bytes_per_sync = parse_num(name, v)?,
            "use_direct_reads" => self.use_direct_reads = parse_bool(name, v)?,
            "allow_mmap_reads" => self.allow_mmap_reads = parse_bool(name, v)?,
            "advise_random_on_open" => self.advise_random_on_open = parse_bool(name, v)?,
            "use_direct_io_for_flush_and_compaction" => {
                self.use_direct_io_for_flush_and_compaction = parse_bool(name, v)?
            }
            "block_based_table_factory" => self.set_table_options(v)?,
            "enable_blob_files" => self.enable_blob_files = parse_bool(name, v)?,
            "min_blob_size" => self.min_blob_size = parse_num(name, v)?,
            "blob_file_size" => self.blob_file_size = parse_num(name, v)?,
            "blob_compression_type" => self.blob_compression_type = v.parse()?,
            "enable_blob_garbage_collection" => {
                self.enable_blob_garbage_collection = parse_bool(name, v)?
            }
            "blob_garbage_collection_age_cutoff" => {
                self.blob_garbage_collection_age_cutoff = parse_num(name, v)?
            }
            "blob_garbage_collection_force_threshold" => {
                self.blob_garbage_collection_force_threshold = parse_num(name, v)?
            }
            "compaction_readahead_size" => self.compaction_readahead_size = parse_num(name, v)?,
            "blob_compaction_readahead_size" => {
                self.blob_compaction_readahead_size = parse_num(name, v)?
            }
            "blob_file_starting_level" => self.blob_file_starting_level = parse_num(name, v)?,
            "blob_cache_size" => self.blob_cache_size = parse_num(name, v)?,
            "prepopulate_blob_cache" => self.prepopulate_blob_cache = v.parse()?,
            "merge_operator" => self.merge_operator = parse_merge_operator(v)?,
            n if NOT_IMPLEMENTED.contains(&n) => {
                return Err(Error::NotSupported(format!(
                    "option '{n}' belongs to a feature not implemented in this build"
                )))
            }
            n => return Err(Error::InvalidArgument(format!("unknown option '{n}'"))),
        }
        Ok(())
    }

    /// Sets one field of `compaction_options_fifo`.
    fn set_fifo(&mut self, k: &str, v: &str) -> Result<()> {
        let full = format!("compaction_options_fifo.{k}");
        let f = &mut self.compaction_options_fifo;
        match k.trim() {
            "max_table_files_size" => f.max_table_files_size = parse_num(&full, v)?,
            "allow_compaction" => f.allow_compaction = parse_bool(&full, v)?,
            other => {
                return Err(Error::NotSupported(format!(
                    "compaction_options_fifo.{other} is not implemented (only max_table_files_size and allow_compaction)"
                )))
            }
        }
        Ok(())
    }

    /// Sets one field of `compaction_options_universal`.
    fn set_universal(&mut self, k: &str, v: &str) -> Result<()> {
        let full = format!("compaction_options_universal.{k}");
        let u = &mut self.compaction_options_universal;
        match k.trim() {
            "size_ratio" => u.size_ratio = parse_num(&full, v)?,
            "min_merge_width" => u.min_merge_width = parse_num(&full, v)?,
            "max_merge_width" => u.max_merge_width = parse_num(&full, v)?,
            "max_size_amplification_percent" => {
                u.max_size_amplification_percent = parse_num(&full, v)?
            }
            "stop_style" => u.stop_style = v.trim().parse()?,
            "allow_trivial_move" => u.allow_trivial_move = parse_bool(&full, v)?,
            "compression_size_percent" => u.compression_size_percent = parse_num(&full, v)?,
            other => {
                return Err(Error::InvalidArgument(format!(
                    "unknown compaction_options_universal option '{other}'"
                )))
            }
        }
        Ok(())
    }

    /// Parses RocksDB's nested `block_based_table_factory={...}` value.
    fn set_table_options(&mut self, v: &str) -> Result<()> {
        let inner = v.trim().trim_start_matches('{').trim_end_matches('}');
        for (k, val) in split_options(inner)? {
            match k.as_str() {
                "filter_policy" => {
                    // bloomfilter:BITS:USE_BLOCK_BASED  or  nullptr
                    if val == "nullptr" || val.is_empty() {
                        self.bloom_bits_per_key = 0.0;
                    } else {
                        let bits = val
                            .strip_prefix("bloomfilter:")
                            .and_then(|r| r.split(':').next())
                            .ok_or_else(|| {
                                Error::InvalidArgument(format!(
                                    "filter_policy: expected bloomfilter:BITS:false, got '{val}'"
                                ))
                            })?;
                        self.bloom_bits_per_key = parse_num("filter_policy", bits)?;
                    }
                }
                "block_size" | "block_restart_interval" | "enable_index_compression" => {
                    self.set(&k, &val)?
                }
                "block_cache" => self.block_cache_size = parse_num("block_cache", &val)?,
                other => {
                    return Err(Error::InvalidArgument(format!(
                        "unknown block_based_table_factory option '{other}'"
                    )))
                }
            }
        }
        Ok(())
    }

    /// Checks the options for values the engine cannot run with.
    ///
    /// # Errors
    /// `InvalidArgument` or `NotSupported` naming the option.
    pub fn validate(&self) -> Result<()> {
        let bad = |m: String| Err(Error::InvalidArgument(m));
        if self.write_buffer_size < 4096 {
            return bad(format!(
                "write_buffer_size={} is below the minimum of 4096",
                self.write_buffer_size
            ));
        }
        if self.arena_block_size > crate::memtable::arena::MAX_BLOCK {
            return bad(format!(
                "arena_block_size={} is above the maximum of {}",
                self.arena_block_size,
                crate::memtable::arena::MAX_BLOCK
            ));
        }
        if self.max_write_buffer_number < 2 {
            return bad("max_write_buffer_number must be at least 2".into());
        }
        if self.min_write_buffer_number_to_merge < 1
            || self.min_write_buffer_number_to_merge >= self.max_write_buffer_number
        {
            return bad(format!(
                "min_write_buffer_number_to_merge={} must be at least 1 and below max_write_buffer_number={}",
                self.min_write_buffer_number_to_merge, self.max_write_buffer_number
            ));
        }
        if self.ttl > 0 && self.ttl != DEFAULT_TTL && self.compaction_style != CompactionStyle::Fifo
        {
            return Err(Error::NotSupported(format!(
                "ttl={} with compaction_style={}: TTL compactions are implemented for FIFO only",
                self.ttl,
                self.compaction_style.name()
            )));
        }
        if self.compaction_style == CompactionStyle::Fifo && self.enable_blob_files {
            return Err(Error::NotSupported(
                "compaction_style=kCompactionStyleFIFO with enable_blob_files: FIFO deletes tables whole, and Strata does not track the blob files they leave unreferenced".into(),
            ));
        }
        if let Some(x) = self
            .max_bytes_for_level_multiplier_additional
            .iter()
            .find(|&&x| x < 1)
        {
            return bad(format!(
                "max_bytes_for_level_multiplier_additional: {x} is below 1"
            ));
        }
        if self.max_background_flushes > 1 {
            return Err(Error::NotSupported(format!(
                "max_background_flushes={}: Strata runs one flush at a time (it writes every sealed memtable into one L0 table); use -1, 0 or 1",
                self.max_background_flushes
            )));
        }
        if self.max_background_flushes < -1 || self.max_background_compactions < -1 {
            return bad(format!(
                "max_background_flushes={} and max_background_compactions={} must be -1 (derive from max_background_jobs) or at least 0",
                self.max_background_flushes, self.max_background_compactions
            ));
        }
        if self.max_background_jobs > MAX_BACKGROUND_JOBS
            || self.max_background_compactions > MAX_BACKGROUND_JOBS as i32
        {
            return bad(format!(
                "max_background_jobs={} and max_background_compactions={} must be at most {MAX_BACKGROUND_JOBS} (each possible compaction has a thread)",
                self.max_background_jobs, self.max_background_compactions
            ));
        }
        if self.num_levels < 2 || self.num_levels > 64 {
            return bad(format!("num_levels={} must be in 2..=64", self.num_levels));
        }
        if self.level0_file_num_compaction_trigger < 1 {
            return bad("level0_file_num_compaction_trigger must be at least 1".into());
        }
        if self.max_bytes_for_level_multiplier <= 1.0
            || !self.max_bytes_for_level_multiplier.is_finite()
        {
            return bad(format!(
                "max_bytes_for_level_multiplier={} must be greater than 1",
                self.max_bytes_for_level_multiplier
            ));
        }
        if self.max_bytes_for_level_base == 0 || self.target_file_size_base == 0 {
            return bad(
                "max_bytes_for_level_base and target_file_size_base must be positive".into(),
            );
        }
        if self.target_file_size_multiplier == 0 {
            return bad("target_file_size_multiplier must be at least 1".into());
        }
        if self.block_size == 0 || self.block_restart_interval == 0 {
            return bad("block_size and block_restart_interval must be positive".into());
        }
        if !(0.0..=100.0).contains(&self.bloom_bits_per_key) {
            return bad(format!(
                "bloom_bits_per_key={} must be in 0..=100",
                self.bloom_bits_per_key
            ));
        }
        if self.max_background_jobs == 0 {
            return bad("max_background_jobs must be at least 1".into());
        }
        if self.keep_log_file_num == 0 {
            return bad("keep_log_file_num must be at least 1".into());
        }
        let u = &self.compaction_options_universal;
        if u.min_merge_width < 2 || u.max_merge_width < u.min_merge_width {
            return bad(format!(
                "compaction_options_universal: min_merge_width={} must be at least 2 and at most max_merge_width={}",
                u.min_merge_width, u.max_merge_width
            ));
        }
        if !(0.0..=1.0).contains(&self.blob_garbage_collection_age_cutoff) {
            return bad(format!(
                "blob_garbage_collection_age_cutoff={} must be in 0..=1",
                self.blob_garbage_collection_age_cutoff
            ));
        }
        if !(0.0..=1.0).contains(&self.blob_garbage_collection_force_threshold) {
            return bad(format!(
                "blob_garbage_collection_force_threshold={} must be in 0..=1",
                self.blob_garbage_collection_force_threshold
            ));
        }
        if self.blob_file_size == 0 {
            return bad("blob_file_size must be positive".into());
        }
        if self.max_subcompactions == 0 {
            return bad("max_subcompactions must be at least 1".into());
        }
        if self.rate_limiter_refill_period_us == 0 {
            return bad("rate_limiter_refill_period_us must be positive".into());
        }
        Ok(())
    }
}

/// Splits `a=1;b={x=1;y=2};c=3` into pairs, keeping braces nested.
fn split_options(s: &str) -> Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let bytes = s.as_bytes();
    let mut push = |piece: &str| -> Result<()> {
        let piece = piece.trim();
        if piece.is_empty() {
            return Ok(());
        }
        let (k, v) = piece.split_once('=').ok_or_else(|| {
            Error::InvalidArgument(format!("option '{piece}' has no '=' (expected name=value)"))
        })?;
        out.push((k.trim().to_string(), v.trim().to_string()));
        Ok(())
    };
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'{' => depth += 1,
            b'}' => depth -= 1,
            b';' if depth == 0 => {
                push(&s[start..i])?;
                start = i + 1;
            }
            _ => {}
        }
        if depth < 0 {
            return Err(Error::InvalidArgument(format!("unbalanced '}}' in '{s}'")));
        }
    }
    if depth != 0 {
        return Err(Error::InvalidArgument(format!("unbalanced '{{' in '{s}'")));
    }
    push(&s[start..])?;
    Ok(out)
}

impl FromStr for Options {
    type Err = Error;
    /// Parses RocksDB's option-string syntax on top of the defaults.
    fn from_str(s: &str) -> Result<Self> {
        let mut o = Options::default();
        for (k, v) in split_options(s)? {
            o.set(&k, &v)?;
        }
        Ok(o)
    }
}

impl fmt::Display for Options {
    /// Prints every option as `name=value;` pairs, one string that
    /// [`Options::from_str`] reads back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pairs = self.to_pairs();
        let s: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}={v}")).collect();
        write!(f, "{}", s.join(";"))
    }
}

impl Options {
    /// Every option as (name, value) text, in a fixed order (used by
    /// `Display`, the OPTIONS file and the LOG).
    pub fn to_pairs(&self) -> Vec<(&'static str, String)> {
        vec![
            ("create_if_missing", self.create_if_missing.to_string()),
            (
                "create_missing_column_families",
                self.create_missing_column_families.to_string(),
            ),
            ("error_if_exists", self.error_if_exists.to_string()),
            ("paranoid_checks", self.paranoid_checks.to_string()),
            ("write_buffer_size", self.write_buffer_size.to_string()),
            ("arena_block_size", self.arena_block_size.to_string()),
            (
                "max_write_buffer_number",
                self.max_write_buffer_number.to_string(),
            ),
            ("max_total_wal_size", self.max_total_wal_size.to_string()),
            (
                "min_write_buffer_number_to_merge",
                self.min_write_buffer_number_to_merge.to_string(),
            ),
            ("max_background_jobs", self.max_background_jobs.to_string()),
            (
                "max_background_compactions",
                self.max_background_compactions.to_string(),
            ),
            (
                "max_background_flushes",
                self.max_background_flushes.to_string(),
            ),
            ("num_levels", self.num_levels.to_string()),
            (
                "level0_file_num_compaction_trigger",
                self.level0_file_num_compaction_trigger.to_string(),
            ),
            (
                "level0_slowdown_writes_trigger",
                self.level0_slowdown_writes_trigger.to_string(),
            ),
            (
                "level0_stop_writes_trigger",
                self.level0_stop_writes_trigger.to_string(),
            ),
            (
                "max_bytes_for_level_base",
                self.max_bytes_for_level_base.to_string(),
            ),
            (
                "max_bytes_for_level_multiplier",
                self.max_bytes_for_level_multiplier.to_string(),
            ),
            (
                "max_bytes_for_level_multiplier_additional",
                self.max_bytes_for_level_multiplier_additional
                    .iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(":"),
            ),
            (
                "target_file_size_base",
                self.target_file_size_base.to_string(),
            ),
            (
                "target_file_size_multiplier",
                self.target_file_size_multiplier.to_string(),
            ),
            (
                "max_compaction_bytes",
                self.max_compaction_bytes.to_string(),
            ),
            (
                "level_compaction_dynamic_file_size",
                self.level_compaction_dynamic_file_size.to_string(),
            ),
            (
                "soft_pending_compaction_bytes_limit",
                self.soft_pending_compaction_bytes_limit.to_string(),
            ),
            (
                "hard_pending_compaction_bytes_limit",
                self.hard_pending_compaction_bytes_limit.to_string(),
            ),
            ("delayed_write_rate", self.delayed_write_rate.to_string()),
            ("compaction_style", self.compaction_style.name().to_string()),
            ("compaction_pri", self.compaction_pri.name().to_string()),
            (
                "disable_auto_compactions",
                self.disable_auto_compactions.to_string(),
            ),
            ("compaction_options_universal", {
                let u = &self.compaction_options_universal;
                format!(
                        "{{size_ratio={};min_merge_width={};max_merge_width={};max_size_amplification_percent={};stop_style={};allow_trivial_move={};compression_size_percent={}}}",
                        u.size_ratio,
                        u.min_merge_width,
                        u.max_merge_width,
                        u.max_size_amplification_percent,
                        u.stop_style.name(),
                        u.allow_trivial_move,
                        u.compression_size_percent
                    )
            }),
            (
                "compaction_options_fifo",
                self.compaction_options_fifo.to_string(),
            ),
            ("ttl", self.ttl.to_string()),
            (
                "level_compaction_dynamic_level_bytes",
                self.level_compaction_dynamic_level_bytes.to_string(),
            ),
            ("compression", self.compression.name().to_string()),
            ("block_size", self.block_size.to_string()),
            (
                "block_restart_interval",
                self.block_restart_interval.to_string(),
            ),
            (
                "enable_index_compression",
                self.enable_index_compression.to_string(),
            ),
            ("bloom_bits_per_key", self.bloom_bits_per_key.to_string()),
            ("block_cache_size", self.block_cache_size.to_string()),
            ("max_open_files", self.max_open_files.to_string()),
            (
                "wal_recovery_mode",
                self.wal_recovery_mode.name().to_string(),
            ),
            ("statistics", self.statistics.to_string()),
            (
                "stats_dump_period_sec",
                self.stats_dump_period_sec.to_string(),
            ),
            ("keep_log_file_num", self.keep_log_file_num.to_string()),
            ("max_subcompactions", self.max_subcompactions.to_string()),
            (
                "rate_limiter_bytes_per_sec",
                self.rate_limiter_bytes_per_sec.to_string(),
            ),
            (
                "rate_limiter_refill_period_us",
                self.rate_limiter_refill_period_us.to_string(),
            ),
            (
                "rate_limiter_auto_tuned",
                self.rate_limiter_auto_tuned.to_string(),
            ),
            ("bytes_per_sync", self.bytes_per_sync.to_string()),
            ("wal_bytes_per_sync", self.wal_bytes_per_sync.to_string()),
            ("use_direct_reads", self.use_direct_reads.to_string()),
            ("allow_mmap_reads", self.allow_mmap_reads.to_string()),
            (
                "advise_random_on_open",
                self.advise_random_on_open.to_string(),
            ),
            (
                "use_direct_io_for_flush_and_compaction",
                self.use_direct_io_for_flush_and_compaction.to_string(),
            ),
            ("enable_blob_files", self.enable_blob_files.to_string()),
            ("min_blob_size", self.min_blob_size.to_string()),
            ("blob_file_size", self.blob_file_size.to_string()),
            (
                "blob_compression_type",
                self.blob_compression_type.name().to_string(),
            ),
            (
                "enable_blob_garbage_collection",
                self.enable_blob_garbage_collection.to_string(),
            ),
            (
                "blob_garbage_collection_age_cutoff",
                self.blob_garbage_collection_age_cutoff.to_string(),
            ),
            (
                "blob_garbage_collection_force_threshold",
                self.blob_garbage_collection_force_threshold.to_string(),
            ),
            (
                "compaction_readahead_size",
                self.compaction_readahead_size.to_string(),
            ),
            (
                "blob_compaction_readahead_size",
                self.blob_compaction_readahead_size.to_string(),
            ),
            (
                "blob_file_starting_level",
                self.blob_file_starting_level.to_string(),
            ),
            ("blob_cache_size", self.blob_cache_size.to_string()),
            (
                "prepopulate_blob_cache",
                self.prepopulate_blob_cache.name().to_string(),
            ),
            (
                "merge_operator",
                self.merge_operator
                    .as_ref()
                    .map_or_else(|| "nullptr".to_string(), |m| m.name().to_string()),
            ),
        ]
    }
}

with_setters! {
    /// Options for one write.
    #[derive(Debug, Clone, Default)]
    #[non_exhaustive]
    pub struct WriteOptions {
        /// fdatasync the WAL before acknowledging. Default: false (a crash of the
        /// machine may lose the last writes; a crash of the process does not).
        pub sync: bool,
        /// Skip the WAL: the write is lost on any crash until its memtable is
        /// flushed. Default: false. Cannot be combined with `sync`.
        pub disable_wal: bool,
    }
}

with_setters! {
    /// Options for one read or iterator.
    #[derive(Clone)]
    #[non_exhaustive]
    pub struct ReadOptions {
        /// Read as of this snapshot instead of the latest state. Default: none.
        pub snapshot: Option<crate::Snapshot>,
        /// Put blocks read into the block cache. Default: true. Turn off for
        /// scans that should not evict the working set.
        pub fill_cache: bool,
        /// Verify block checksums on every read. Default: true.
        pub verify_checksums: bool,
        /// Iterator lower bound, inclusive. Default: none.
        pub iterate_lower_bound: Option<Vec<u8>>,
        /// Iterator upper bound, exclusive. Default: none.
        pub iterate_upper_bound: Option<Vec<u8>>,
    }
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            snapshot: None,
            fill_cache: true,
            verify_checksums: true,
            iterate_lower_bound: None,
            iterate_upper_bound: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `max_background_jobs=1000000000000` once made open spawn threads
    /// until the OS refused one, and that refusal panicked.
    #[test]
    fn background_jobs_beyond_the_thread_limit_are_refused() {
        for s in [
            "max_background_jobs=1000000000000",
            "max_background_jobs=1025",
            "max_background_compactions=5000",
        ] {
            let o: Options = s.parse().unwrap();
            let e = o.validate().unwrap_err().to_string();
            assert!(e.contains("must be at most 1024"), "{s}: {e}");
        }
        let o: Options = "max_background_jobs=1024".parse().unwrap();
        o.validate().unwrap();
    }

    #[test]
    fn string_round_trip() {
        let o: Options = "write_buffer_size=65536;max_write_buffer_number=4;compression=kNoCompression;bloom_bits_per_key=10"
            .parse()
            .unwrap();
        assert_eq!(o.write_buffer_size, 65536);
        assert_eq!(o.max_write_buffer_number, 4);
        assert_eq!(o.compression, CompressionType::None);
        let back: Options = o.to_string().parse().unwrap();
        assert_eq!(back.to_string(), o.to_string());
    }

    #[test]
    fn nested_table_options() {
        let o: Options =
            "block_based_table_factory={block_size=8192;filter_policy=bloomfilter:10:false;enable_index_compression=false}"
                .parse()
                .unwrap();
        assert_eq!(o.block_size, 8192);
        assert_eq!(o.bloom_bits_per_key, 10.0);
        assert!(!o.enable_index_compression);
        assert!(Options::default().enable_index_compression);
    }

    #[test]
    fn unknown_and_unimplemented_are_named() {
        let e = "no_such_option=1".parse::<Options>().unwrap_err();
        assert!(e.to_string().contains("no_such_option"), "{e}");
        let e = "blob_garbage_collection_age_cutoff=x"
            .parse::<Options>()
            .unwrap_err();
        assert!(e.to_string().contains("blob_garbage_collection_age_cutoff"));
        let e = "compaction_pri=kRoundRobin".parse::<Options>().unwrap_err();
        assert!(matches!(e, Error::NotSupported(_)));
        let e = "compaction_options_fifo={age_for_warm=1}"
            .parse::<Options>()
            .unwrap_err();
        assert!(matches!(e, Error::NotSupported(_)), "{e}");
        let o: Options = "compaction_style=kCompactionStyleFIFO;compaction_options_fifo={max_table_files_size=1000;allow_compaction=true}"
            .parse()
            .unwrap();
        assert_eq!(o.compaction_style, CompactionStyle::Fifo);
        assert_eq!(o.compaction_options_fifo.max_table_files_size, 1000);
        assert!(o.compaction_options_fifo.allow_compaction);
        // And back through the OPTIONS-file text.
        let again: Options = o.to_string().parse().unwrap();
        assert_eq!(again.compaction_options_fifo, o.compaction_options_fifo);
        let e = "write_buffer_size=abc".parse::<Options>().unwrap_err();
        assert!(e.to_string().contains("write_buffer_size"));
        let o: Options = "compaction_style=kCompactionStyleUniversal;compaction_options_universal={size_ratio=5;max_size_amplification_percent=150};compaction_options_universal.min_merge_width=3"
            .parse()
            .unwrap();
        assert_eq!(o.compaction_style, CompactionStyle::Universal);
        assert_eq!(o.compaction_options_universal.size_ratio, 5);
        assert_eq!(
            o.compaction_options_universal
                .max_size_amplification_percent,
            150
        );
        assert_eq!(o.compaction_options_universal.min_merge_width, 3);
        let back: Options = o.to_string().parse().unwrap();
        assert_eq!(back.to_string(), o.to_string());
        let e = "compaction_options_universal={bogus=1}"
            .parse::<Options>()
            .unwrap_err();
        assert!(e.to_string().contains("bogus"), "{e}");
    }

    #[test]
    fn merge_operator_by_name() {
        let o: Options = "merge_operator=uint64add".parse().unwrap();
        assert_eq!(
            o.merge_operator.as_ref().unwrap().name(),
            "UInt64AddOperator"
        );
        assert!(o.to_string().contains("merge_operator=UInt64AddOperator"));
        let back: Options = o.to_string().parse().unwrap();
        assert_eq!(back.to_string(), o.to_string());
        assert!(Options::default()
            .to_string()
            .contains("merge_operator=nullptr"));
        let none: Options = "merge_operator=nullptr".parse().unwrap();
        assert!(none.merge_operator.is_none());
        let e = "merge_operator=sortlist".parse::<Options>().unwrap_err();
        assert!(matches!(e, Error::NotSupported(_)), "{e}");
        assert!(e.to_string().contains("'sortlist'"), "{e}");
    }

    #[test]
    fn validate_names_the_option() {
        let o = Options {
            max_write_buffer_number: 1,
            ..Options::default()
        };
        assert!(o
            .validate()
            .unwrap_err()
            .to_string()
            .contains("max_write_buffer_number"));
        let o = Options {
            max_subcompactions: 0,
            ..Options::default()
        };
        assert!(o
            .validate()
            .unwrap_err()
            .to_string()
            .contains("max_subcompactions"));
        Options::default().validate().unwrap();
    }
}
