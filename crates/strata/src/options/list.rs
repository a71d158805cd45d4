//! The engine's options, one entry each: doc comment, then
//! `name: Type = default, Scope;` (see [`declare_options!`](super::declare)).
//! The entry is the only place an option is named: its field, setter,
//! default, option-string parsing and printing (`Options::set`,
//! `to_pairs`, the OPTIONS file) and whether it is DB-wide
//! (`DB_WIDE_OPTIONS`) all come from it. The order is the order of
//! `to_pairs`, and so of the OPTIONS file.

use std::sync::Arc;

use super::declare::declare_options;
use super::{
    CompactionPri, CompactionStyle, CpuPriority, DataBlockIndexType, PrepopulateBlobCache,
    DEFAULT_TTL,
};
use crate::compaction::fifo::FifoOptions;
use crate::compaction::universal::UniversalOptions;
use crate::fs::{default_fs, FileSystem};
use crate::merge::MergeOperator;
use crate::sstable::CompressionType;
use crate::wal::WalRecoveryMode;

declare_options! {
    /// Options for opening a DB. Defaults are RocksDB's library defaults (not
    /// db_bench's; `strata bench` applies db_bench's own defaults).
    #[derive(Clone)]
    #[non_exhaustive]
    pub struct Options {
        /// Create the DB if it does not exist. Default: `true` (RocksDB: false;
        /// Strata creates by default for convenience).
        create_if_missing: bool = true, DbWide;
        /// With [`Db::open_cf`](crate::Db::open_cf), create the named column
        /// families the DB does not have yet (otherwise a missing family is an
        /// error). Default: `false`, as in RocksDB.
        create_missing_column_families: bool = false, DbWide;
        /// Fail to open if the DB already exists. Default: `false`.
        error_if_exists: bool = false, DbWide;
        /// Verify checksums of everything read during open and compaction, and
        /// treat any corruption as fatal. Default: `true`.
        paranoid_checks: bool = true, DbWide;
        /// Bytes a memtable holds before it is made immutable and flushed to an
        /// L0 table. Default: 64 MiB. Larger: fewer L0 files and less write
        /// amplification, more memory and longer recovery.
        write_buffer_size: usize = 64 << 20, PerFamily;
        /// Bytes of each block of a memtable's arena; 0 derives it from
        /// `write_buffer_size` as RocksDB does: an eighth of it, at most 1 MiB,
        /// rounded up to 4 KiB (clamped to [4 KiB, 2 GiB], a multiple of 16).
        /// Default: 0. A memtable is full when one more block would take it more
        /// than 0.6 of a block past `write_buffer_size`, or when its last block
        /// is three quarters used, so larger blocks make memtable sizes coarser
        /// (and waste up to a quarter block per memtable); smaller ones cost more
        /// allocations. Entries larger than a quarter block get a block of
        /// their own.
        arena_block_size: usize = 0, PerFamily;
        /// Bytes of a bloom filter over each memtable's keys, as a fraction of
        /// `write_buffer_size` (RocksDB's name; RocksDB also filters by key
        /// prefix, which Strata lacks, so here a ratio above 0 needs
        /// `memtable_whole_key_filtering`). A Get whose key the filter rules
        /// out skips that memtable's skiplist search; without it, a Get
        /// answered by the tables below first searches every memtable. The
        /// filter's bytes count toward the memtable's size (as in RocksDB,
        /// which takes them from the memtable's arena), so the memtable holds
        /// that share fewer entries. 0 turns the filter off; at most 0.25.
        /// The filter has about 8 x ratio x (bytes per entry) bits a key: at
        /// 0.02, 170 with 1 KB values and 23 with 100-byte ones; 10 bits a
        /// key (about 1% of absent keys pass) needs entries of at least 60
        /// bytes.
        /// Default: 0.02 with whole-key filtering, the values of RocksDB's
        /// `OptimizeForPointLookup` (RocksDB's plain default is 0, no
        /// filter). A Get that misses a 64 MB memtable of 2 KB entries then
        /// takes 1.5-2x less time, and writes measure the same within their
        /// spread (docs/results/reads-ab/memtable-filter.md).
        memtable_prefix_bloom_size_ratio: f64 = 0.02, PerFamily;
        /// Filter whole keys in the memtable's bloom (RocksDB's name). The
        /// filter exists only with `memtable_prefix_bloom_size_ratio` above 0.
        /// Default: true, with the ratio's default (RocksDB's default is
        /// false).
        memtable_whole_key_filtering: bool = true, PerFamily;
        /// Most memtables (mutable + immutable) kept in memory; when that many
        /// are full, writers stop until a flush finishes. Default: 2.
        max_write_buffer_number: usize = 2, PerFamily;
        /// With more than one column family, the most bytes the live WALs may
        /// hold: past it, the families whose entries keep the oldest WAL alive
        /// switch their memtables and flush, so that WAL can go (a rarely
        /// written family would otherwise keep every WAL since its last flush).
        /// Default: 0, meaning 4 x the sum over families of `write_buffer_size`
        /// x `max_write_buffer_number` (RocksDB's rule). DB-wide. Ignored with
        /// one family, as in RocksDB.
        max_total_wal_size: u64 = 0, DbWide;
        /// Least number of immutable memtables merged into one flush. Default: 1.
        /// Larger merges more overwrites away before L0, at the cost of memory.
        min_write_buffer_number_to_merge: usize = 1, PerFamily;
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
        /// [`MAX_BACKGROUND_JOBS`](super::MAX_BACKGROUND_JOBS) (each possible
        /// compaction has a thread).
        max_background_jobs: usize = 2, DbWide;
        /// Legacy limit on concurrent compactions; -1 (the default) derives it
        /// from `max_background_jobs`. Any other value (with or without
        /// `max_background_flushes`) is used instead, at least 1, as RocksDB
        /// does. The single-compaction rule while compaction keeps up still
        /// applies.
        max_background_compactions: i32 = -1, DbWide;
        /// Legacy limit on concurrent flushes; -1 (the default) derives it from
        /// `max_background_jobs`. Strata runs one flush at a time (it writes
        /// every sealed memtable into one table), so only -1, 0 and 1 are
        /// accepted; a larger value is refused at open.
        max_background_flushes: i32 = -1, DbWide;
        /// CPU priority of the compaction threads (RocksDB's
        /// `Env::LowerThreadPoolCPUPriority` on its compaction pool, whose
        /// default is `kNormal`). `kLow` runs them at nice 19, `kIdle` under
        /// `SCHED_IDLE`, `kHigh` at nice -20 (which needs `CAP_SYS_NICE`;
        /// a refusal is logged and the thread runs as it is); `kNormal`
        /// leaves the process's priority. The flush thread keeps the
        /// process's priority, as RocksDB's flush pool does.
        /// Default: `kLow`, unlike RocksDB. On a machine whose cores the
        /// foreground threads keep busy, a compaction thread at the same
        /// priority takes whole time slices (milliseconds) from them, and
        /// those waits are the tail latency of writes and reads. At `kLow`
        /// the scheduler runs a foreground thread as soon as it is ready and
        /// compactions take the CPU left over; a compaction that falls
        /// behind still slows writes through the write controller (the
        /// measurement is in docs/design/engine.md, "Background threads").
        compaction_cpu_priority: CpuPriority = CpuPriority::Low, DbWide;
        /// A writer queued behind a write group's leader polls for its
        /// wake-up, yielding its core, for up to `write_thread_max_yield_usec`
        /// before it sleeps (after 200 spins, which it always makes), as
        /// RocksDB's write thread does. Default: `true`, as in RocksDB. A
        /// group is written in microseconds; sleeping and being woken costs
        /// two context switches per group and leaves the core idle
        /// meanwhile: with two writers on two cores the poll runs fills 1.26x
        /// faster. `false` sleeps at once, which leaves the cores to other
        /// processes on an oversubscribed machine.
        enable_write_thread_adaptive_yield: bool = true, DbWide;
        /// The longest a queued writer polls before it sleeps (with
        /// `enable_write_thread_adaptive_yield`), in microseconds; 0 sleeps
        /// after the spins. Default: 100, as in RocksDB.
        write_thread_max_yield_usec: u64 = 100, DbWide;
        /// Number of LSM levels. Default: 7.
        num_levels: usize = 7, PerFamily;
        /// Number of L0 files that triggers an L0->L1 compaction. Default: 4.
        level0_file_num_compaction_trigger: usize = 4, PerFamily;
        /// Number of L0 files at which writes are slowed to `delayed_write_rate`.
        /// Default: 20.
        level0_slowdown_writes_trigger: usize = 20, PerFamily;
        /// Number of L0 files at which writes stop until compaction catches up.
        /// Default: 36.
        level0_stop_writes_trigger: usize = 36, PerFamily;
        /// Target size of L1 in bytes. Default: 256 MiB.
        max_bytes_for_level_base: u64 = 256 << 20, PerFamily;
        /// Each level below L1 targets this many times the level above.
        /// Default: 10. Smaller: less write amplification per level, more levels.
        max_bytes_for_level_multiplier: f64 = 10.0, PerFamily;
        /// Extra per-level factors on the multiplier: level n's target is level
        /// n-1's x multiplier x this list's entry n-1 (missing entries are 1).
        /// Default: empty (all 1). Ignored with
        /// `level_compaction_dynamic_level_bytes`, as in RocksDB. Option string:
        /// colon-separated integers (`1:1:2:2:4:4:8`).
        max_bytes_for_level_multiplier_additional: Vec<i32> = Vec::new(), PerFamily;
        /// Target size of a compaction output file at L1, in bytes.
        /// Default: 64 MiB.
        target_file_size_base: u64 = 64 << 20, PerFamily;
        /// Each level below L1 targets files this many times larger. Default: 1.
        target_file_size_multiplier: u64 = 1, PerFamily;
        /// Largest compaction, in bytes: a leveled compaction's output file is
        /// also cut where it plus the next-level files it overlaps would exceed
        /// this. 0 (the default) means 25 x `target_file_size_base`, as in
        /// RocksDB. Smaller: smaller later compactions, more and smaller files.
        max_compaction_bytes: u64 = 0, PerFamily;
        /// Leveled compaction cuts output files at the boundaries of the files
        /// one level down once an output has reached 50-90% of its target size
        /// (compaction/file_cut.rs). Default: true (RocksDB's default). Lower
        /// write amplification (later compactions overlap fewer files) for
        /// somewhat smaller files.
        level_compaction_dynamic_file_size: bool = true, PerFamily;
        /// Estimated bytes of pending compaction at which writes slow down
        /// (0 = off). Default: 64 GiB.
        soft_pending_compaction_bytes_limit: u64 = 64 << 30, PerFamily;
        /// Estimated bytes of pending compaction at which writes stop
        /// (0 = off). Default: 256 GiB.
        hard_pending_compaction_bytes_limit: u64 = 256 << 30, PerFamily;
        /// Write rate in bytes/second while writes are slowed down.
        /// Default: 16 MiB/s.
        delayed_write_rate: u64 = 16 << 20, DbWide;
        /// Compaction style. Default: leveled.
        compaction_style: CompactionStyle = CompactionStyle::Level, PerFamily;
        /// Which file of an over-full level (L1 and deeper) leveled compaction
        /// takes first. Default: `kMinOverlappingRatio` (RocksDB's default);
        /// see [`CompactionPri`] for the trade-offs.
        compaction_pri: CompactionPri = CompactionPri::MinOverlappingRatio, PerFamily;
        /// Read-triggered compaction (Pebble's `read_sampling_multiplier`;
        /// LevelDB's seek compaction, which LevelDB always runs): -1 turns
        /// it off; 0 or more turns it on under leveled compaction (refused
        /// under universal and FIFO compaction). When on, a Get that reads
        /// a data block of one table and then a block of another charges
        /// the first; an iterator samples a key per this many 64 KiB of
        /// entries it steps over on average (0: every entry), and a sampled
        /// key two tables' key ranges hold charges the first. A table
        /// charged `max(100, size / read_compaction_rate)` times is merged
        /// into the next level when no other compaction is due, so reads
        /// that keep passing through it consult one table fewer. Costs
        /// compaction writes on trees that reads alone would leave alone.
        /// Default: -1 (off, as RocksDB, which has no read-triggered
        /// compaction); Pebble's default is 16.
        read_sampling_multiplier: i32 = -1, PerFamily;
        /// Bytes of a table per charge it allows before reads nominate it
        /// for a read-triggered compaction (Pebble's `read_compaction_rate`;
        /// see `read_sampling_multiplier`). Default: 16000, as Pebble
        /// (LevelDB: 16384). At least 1.
        read_compaction_rate: u64 = 16000, PerFamily;
        /// Run no automatic compactions: flushes still add L0 files (or sorted
        /// runs), but only `compact_range` merges them. Writers are then never
        /// slowed or stopped for L0 files or pending compaction bytes, only for
        /// memtables, as in RocksDB. Default: false. For bulk loads followed by
        /// one manual compaction; left on, reads slow down as L0 grows.
        disable_auto_compactions: bool = false, PerFamily;
        /// Universal compaction's knobs (`compaction_options_universal`):
        /// `size_ratio` (1, percent), `min_merge_width` (2), `max_merge_width`
        /// (unlimited), `max_size_amplification_percent` (200), `stop_style`
        /// (kCompactionStopStyleTotalSize), `allow_trivial_move` (false).
        compaction_options_universal: UniversalOptions = UniversalOptions::default(), PerFamily;
        /// FIFO compaction's knobs (`compaction_options_fifo`):
        /// `max_table_files_size` (1 GiB), `allow_compaction` (false); see
        /// [`FifoOptions`].
        compaction_options_fifo: FifoOptions = FifoOptions::default(), PerFamily;
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
        ttl: u64 = DEFAULT_TTL, PerFamily;
        /// Size level targets from the last level's actual size upwards, so that
        /// the LSM keeps a fixed shape as data grows (RocksDB's
        /// `level_compaction_dynamic_level_bytes`); L0 then compacts straight
        /// into the deepest level that needs data. Default: false (RocksDB 7's
        /// and db_bench's default; static targets from `max_bytes_for_level_base`).
        level_compaction_dynamic_level_bytes: bool = false, PerFamily;
        /// Block compression for SSTs. Default: `kSnappyCompression`.
        compression: CompressionType = CompressionType::Snappy, PerFamily;
        /// Block compression by the level a table is written to (RocksDB's
        /// `compression_per_level`); when not empty it replaces `compression`
        /// for table files (not blob files). Entry 0 is for flushes and L0;
        /// under leveled compaction entry 1 is for the base level (L1, or the
        /// first level with a target under `level_compaction_dynamic_level_bytes`)
        /// and each next entry for the level below it; under universal and
        /// FIFO compaction entry `i` is for level `i`. Levels past the end use
        /// the last entry. A leveled compaction whose input level's
        /// compression differs from its output level's rewrites its files
        /// instead of moving them down unchanged, as RocksDB's trivial moves
        /// do. Written as names joined by `:`
        /// (`kNoCompression:kNoCompression:kLZ4Compression`); db_bench's
        /// `--min_level_to_compress=N` sets N uncompressed levels before
        /// `--compression_type`. Default: empty (every level uses `compression`).
        compression_per_level: Vec<CompressionType> = Vec::new(), PerFamily;
        /// Uncompressed size of a data block in bytes. Default: 4096.
        block_size: usize = 4096, PerFamily;
        /// Keys between restart points in a block. Default: 16.
        block_restart_interval: usize = 16, PerFamily;
        /// How a Get finds its key inside a data block: binary search over
        /// the restart points, or that plus a hash index per block (see
        /// [`DataBlockIndexType`]). Default: `kDataBlockBinarySearch`, as
        /// RocksDB. Applies to tables written from then on; tables of both
        /// kinds read alike.
        data_block_index_type: DataBlockIndexType = DataBlockIndexType::BinarySearch, PerFamily;
        /// Keys per bucket of a data block's hash index (RocksDB's
        /// `data_block_hash_table_util_ratio`; with `data_block_index_type =
        /// kDataBlockBinaryAndHash` only): lower means more buckets, fewer
        /// keys sharing one (which fall back to binary search) and more
        /// bytes per block. Default: 0.75, as RocksDB. Must be positive.
        data_block_hash_table_util_ratio: f64 = 0.75, PerFamily;
        /// Largest read-ahead (bytes) of an iterator's automatic read-ahead
        /// (RocksDB's `max_auto_readahead_size`): an iterator that reads a
        /// table file in order asks the OS to read ahead of it (with
        /// `use_direct_reads`, reads ahead into a buffer of its own), first
        /// `initial_auto_readahead_size` bytes, then twice as many each
        /// time, up to this. Default: 256 KiB, as RocksDB. 0 turns
        /// automatic read-ahead off. Only iterators that read with `pread`
        /// and no `ReadOptions::readahead_size` use it: mapped table files
        /// (`allow_mmap_reads`, the default) are read in place.
        max_auto_readahead_size: usize = 256 << 10, PerFamily;
        /// Bytes of an iterator's first automatic read-ahead (RocksDB's
        /// `initial_auto_readahead_size`; see `max_auto_readahead_size`).
        /// Default: 8 KiB, as RocksDB. 0 turns automatic read-ahead off.
        initial_auto_readahead_size: usize = 8 << 10, PerFamily;
        /// Reads of a table file in order (each data block starting where
        /// the last ended) before an iterator's automatic read-ahead starts
        /// (RocksDB's `num_file_reads_for_auto_readahead`), so that Gets and
        /// short scans never read ahead. Default: 2, as RocksDB.
        num_file_reads_for_auto_readahead: u64 = 2, PerFamily;
        /// Compress each table's index block with `compression`, as data blocks
        /// are (RocksDB's `enable_index_compression`). Default: true. Saves
        /// about a third of the index (0.3% of a table of 1 KB values under
        /// Snappy); the index is decompressed once, when the table is opened.
        enable_index_compression: bool = true, PerFamily;
        /// Bloom filter bits per key for each SST's full-file filter; 0 means no
        /// filter. Default: 0 (as RocksDB, whose default filter policy is none).
        /// 10 bits gives about a 1% false-positive rate.
        bloom_bits_per_key: f64 = 0.0, PerFamily;
        /// Capacity of the shared LRU block cache in bytes (0 = no cache).
        /// Default: 8 MiB.
        block_cache_size: usize = 8 << 20, DbWide;
        /// Table files kept open (-1 = unlimited). Default: -1.
        max_open_files: i32 = -1, DbWide;
        /// How WAL corruption is handled at recovery. Default:
        /// `kPointInTimeRecovery`.
        wal_recovery_mode: WalRecoveryMode = WalRecoveryMode::PointInTimeRecovery, DbWide;
        /// Collect tickers and histograms (`rocksdb.*` statistics). Default: false.
        /// Costs a few percent of throughput.
        statistics: bool = false, DbWide;
        /// Seconds between dumps of `rocksdb.stats` into the LOG (0 = never).
        /// Default: 600.
        stats_dump_period_sec: u32 = 600, DbWide;
        /// Largest number of info LOG files kept: the current `LOG` and up
        /// to `keep_log_file_num - 1` rotated `LOG.old.<micros>` files.
        /// Each open rotates the LOG and deletes the oldest rotated files
        /// past this count. Default: 1000 (as RocksDB). At least 1.
        keep_log_file_num: usize = 1000, DbWide;
        /// Largest number of key ranges one compaction is split into, each run
        /// on its own thread (L0 -> base level, manual and universal
        /// compactions). Default: 1. More uses more cores for one compaction;
        /// past the core count it only adds overhead.
        max_subcompactions: u32 = 1, DbWide;
        /// Limit on the bytes per second that flushes and compactions write
        /// (table and blob files; not the WAL), shared by all background jobs:
        /// RocksDB's `rate_limiter` made with `NewGenericRateLimiter`. 0 = no
        /// limit. Default: 0. A limit smooths background I/O for foreground
        /// latency, but compaction falls behind sooner and writes stall sooner.
        /// Flushes go before compactions except one refill in ten.
        rate_limiter_bytes_per_sec: u64 = 0, DbWide;
        /// How often the rate limiter's budget is refilled, in microseconds;
        /// each refill allows `rate x period` bytes, the largest single grant.
        /// Default: 100,000 (100 ms). Shorter periods pace more smoothly for
        /// more wake-ups.
        rate_limiter_refill_period_us: u64 = 100_000, DbWide;
        /// Let the rate limiter find its own rate below
        /// `rate_limiter_bytes_per_sec` (RocksDB's `auto_tuned`): it starts at
        /// half, and every 100 refill periods goes up 5% when requests found the
        /// bucket empty in more than 90% of them, down 5% below 50%, and to a
        /// twentieth of the ceiling when none did. Default: false. Background
        /// writes then take only the bandwidth the workload keeps asking for,
        /// at the cost of a slower answer to a sudden compaction burst.
        rate_limiter_auto_tuned: bool = false, DbWide;
        /// Ask the OS to start writing a table or blob file back to the device
        /// every this many bytes while a flush or compaction writes it
        /// (`sync_file_range`), leaving the newest 1 MiB; 0 = only the final
        /// `fdatasync`. Default: 0, which RocksDB (and so Strata) turns into
        /// 1 MiB when `rate_limiter_bytes_per_sec` is set. Spreads write-back
        /// so a large file's final sync does not stall the device, for a few
        /// more system calls. Not used with direct I/O.
        bytes_per_sync: u64 = 0, DbWide;
        /// As `bytes_per_sync`, for WAL files. Default: 0 (off).
        wal_bytes_per_sync: u64 = 0, DbWide;
        /// Read table files with O_DIRECT, bypassing the OS page cache (the
        /// block cache is then the only cache); tables are then not mapped
        /// (`allow_mmap_reads`). Default: false. Open fails with
        /// `NotSupported` on file systems without O_DIRECT (tmpfs).
        use_direct_reads: bool = false, DbWide;
        /// Read table files through a memory map (RocksDB's
        /// `allow_mmap_reads`): a data block stored uncompressed is read in
        /// place from the page cache, with no system call, no copy and no
        /// allocation, and the block cache keeps a reference to it instead
        /// of a copy; a compressed block is decompressed out of the map.
        /// Checksums are verified when a block is read from the map, not
        /// on a cache hit, as with file reads. Default: true, unlike
        /// RocksDB (false): on data in the page cache it serves Gets, scans
        /// and seeks faster than `pread` reads (the measurement is in
        /// docs/design/engine.md, "Table reads"). Does not apply with
        /// `use_direct_reads`, which reads around the page cache a map
        /// reads through. Only table files are mapped, and the engine never
        /// changes one once written; a table file shortened by another
        /// process while mapped makes a read of the lost pages raise
        /// `SIGBUS`.
        allow_mmap_reads: bool = true, DbWide;
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
        advise_random_on_open: bool = true, DbWide;
        /// Write flush and compaction outputs with O_DIRECT, so background
        /// writes do not evict the page cache. Default: false.
        use_direct_io_for_flush_and_compaction: bool = false, DbWide;
        /// Store values of at least `min_blob_size` bytes in blob files, with
        /// only a small index in the SSTs (key-value separation, RocksDB's
        /// integrated BlobDB). Default: false. Compaction then moves pointers
        /// instead of values; reads of separated values cost one more read.
        enable_blob_files: bool = false, PerFamily;
        /// Smallest value (bytes) that goes to a blob file. Default: 0 (all
        /// values, when blob files are on).
        min_blob_size: u64 = 0, PerFamily;
        /// Size (bytes) at which a blob file is closed and a new one started.
        /// Default: 256 MiB.
        blob_file_size: u64 = 256 << 20, PerFamily;
        /// Compression of each blob. Default: `kNoCompression`.
        blob_compression_type: CompressionType = CompressionType::None, PerFamily;
        /// Relocate live blobs out of the oldest blob files during compaction,
        /// so those files can be deleted. Default: false (garbage is never
        /// reclaimed until every key of a file is rewritten).
        enable_blob_garbage_collection: bool = false, PerFamily;
        /// Fraction (0..=1) of blob files, oldest first, whose blobs compaction
        /// relocates when GC is on. Default: 0.25.
        blob_garbage_collection_age_cutoff: f64 = 0.25, PerFamily;
        /// Garbage ratio (0..=1) of the oldest blob files at which the tables
        /// that keep them alive are compacted on purpose. Default: 1.0 (off).
        blob_garbage_collection_force_threshold: f64 = 1.0, PerFamily;
        /// Bytes a compaction reads ahead in each input table, in one read,
        /// instead of one read per block (RocksDB's `compaction_readahead_size`).
        /// Default: 2 MiB (RocksDB 10's). 0 reads block by block, leaving
        /// read-ahead to the OS page cache; with `use_direct_reads` there is no
        /// page cache, so 0 then means 2 MiB, as RocksDB's option sanitizing
        /// did. Larger: fewer, longer reads (what spinning disks and direct I/O
        /// want), at that many bytes of memory per input table of a running
        /// compaction.
        compaction_readahead_size: u64 = 2 << 20, DbWide;
        /// Read-ahead (bytes) when compaction reads blobs for relocation.
        /// Default: 0 (none).
        blob_compaction_readahead_size: u64 = 0, PerFamily;
        /// Lowest level whose flush or compaction outputs separate values.
        /// Default: 0 (flushes already write blob files).
        blob_file_starting_level: usize = 0, PerFamily;
        /// Capacity (bytes) of the blob cache; 0 = no blob cache. Default: 0.
        blob_cache_size: usize = 0, DbWide;
        /// Put values written by flushes into the blob cache. Default: kDisable.
        prepopulate_blob_cache: PrepopulateBlobCache = PrepopulateBlobCache::Disable, PerFamily;
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
        merge_operator: Option<Arc<dyn MergeOperator>> = None, PerFamily;
    }
    not_in_option_string {
        /// File system used for every file operation. Default: the OS's.
        /// Not part of the option string.
        fs: Arc<dyn FileSystem> = default_fs();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every declared option, set to a value other than its default by
    /// name, prints that value back from `to_pairs` and changes no other
    /// option; all of them at once survive `Display` and `FromStr`. The
    /// options and their values come from the declaration, so a new
    /// option is covered as soon as it is declared.
    #[test]
    fn every_option_round_trips_through_the_option_string() {
        let names: Vec<&str> = Options::SPECS.iter().map(|s| s.name).collect();
        let defaults = Options::default().to_pairs();
        let default_names: Vec<&str> = defaults.iter().map(|(k, _)| *k).collect();
        assert_eq!(default_names, names, "to_pairs names each option once");
        let different = Options::all_different().to_pairs();
        let mut all = Options::default();
        for ((name, text), (_, default_text)) in different.iter().zip(&defaults) {
            assert_ne!(text, default_text, "{name}: the test value is the default");
            let mut o = Options::default();
            o.set(name, text)
                .unwrap_or_else(|e| panic!("{name}={text}: {e}"));
            for ((k, v), (_, d)) in o.to_pairs().iter().zip(&defaults) {
                let want = if k == name { text } else { d };
                assert_eq!(v, want, "after set({name}, {text}), to_pairs has {k}={v}");
            }
            all.set(name, text).unwrap();
        }
        assert_eq!(all.to_pairs(), different);
        let back: Options = all.to_string().parse().unwrap();
        assert_eq!(back.to_pairs(), different);
    }
}
