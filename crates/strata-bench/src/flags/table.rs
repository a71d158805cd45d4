//! The one table of flags `strata bench` accepts: name, type, default, help.
//!
//! Names, types and defaults are RocksDB 7.8.3 `db_bench`'s (checked against
//! its captured `--help` in `testdata/rocksdb-7.8.3/help.txt`), except the
//! entries marked [strata], which are extensions.

/// The value type of a flag, named as gflags names it in error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `true`/`false`/`1`/`0`/... ; a bare `--flag` means true.
    Bool,
    /// 32-bit signed integer.
    I32,
    /// 64-bit signed integer.
    I64,
    /// 64-bit unsigned integer.
    U64,
    /// Floating point number.
    F64,
    /// Free text.
    Str,
}

impl Kind {
    /// gflags' name for the type (`int64`, `bool`, ...).
    pub fn gflags_name(self) -> &'static str {
        match self {
            Kind::Bool => "bool",
            Kind::I32 => "int32",
            Kind::I64 => "int64",
            Kind::U64 => "uint64",
            Kind::F64 => "double",
            Kind::Str => "string",
        }
    }
}

/// One flag: its db_bench name, type, default (as db_bench prints it) and help.
#[derive(Debug, Clone, Copy)]
pub struct FlagSpec {
    /// Name without dashes, e.g. `write_buffer_size`.
    pub name: &'static str,
    /// Value type.
    pub kind: Kind,
    /// Default value, in the syntax the flag accepts.
    pub default: &'static str,
    /// One-line help.
    pub help: &'static str,
}

const fn f(name: &'static str, kind: Kind, default: &'static str, help: &'static str) -> FlagSpec {
    FlagSpec {
        name,
        kind,
        default,
        help,
    }
}

use Kind::*;

/// Default benchmark list (a useful subset of db_bench's long default list).
pub const DEFAULT_BENCHMARKS: &str = "fillseq,fillsync,fillrandom,overwrite,readrandom,readseq,readreverse,compact,readrandom,readseq,readreverse";

/// Every accepted flag.
pub static FLAGS: &[FlagSpec] = &[
    f(
        "benchmarks",
        Str,
        DEFAULT_BENCHMARKS,
        "Comma-separated list of benchmarks to run in order",
    ),
    f(
        "num",
        I64,
        "1000000",
        "Number of key/values to place in database",
    ),
    f(
        "reads",
        I64,
        "-1",
        "Number of read operations to do. If negative, do --num reads",
    ),
    f(
        "writes",
        I64,
        "-1",
        "Number of write operations to do. If negative, do --num writes",
    ),
    f(
        "deletes",
        I64,
        "-1",
        "Number of delete operations to do. If negative, do --num deletions",
    ),
    f(
        "duration",
        I32,
        "0",
        "Seconds for the random-ops tests to run. When 0, num and reads determine the length",
    ),
    f("threads", I32, "1", "Number of concurrent threads to run"),
    f("key_size", I32, "16", "Size of each key"),
    f("value_size", I32, "100", "Size of each value"),
    f("batch_size", I64, "1", "Batch size"),
    f(
        "multiread_batched",
        Bool,
        "false",
        "Use the new MultiGet API",
    ),
    f(
        "multiread_stride",
        I64,
        "0",
        "Stride length for the keys in a MultiGet batch",
    ),
    f(
        "seek_nexts",
        I32,
        "0",
        "How many times to call Next() after Seek() in seekrandom",
    ),
    f(
        "compression_type",
        Str,
        "snappy",
        "Block compression: none, snappy, zlib, bzip2, lz4, lz4hc, xpress, zstd",
    ),
    f(
        "compression_ratio",
        F64,
        "0.5",
        "Generate values that shrink to this fraction of their size after compression",
    ),
    f(
        "seed",
        I64,
        "0",
        "Seed base for random number generators. When 0 it is derived from the current time",
    ),
    f("db", Str, "", "Use the db with the following name"),
    f(
        "use_existing_db",
        Bool,
        "false",
        "If true, do not destroy the existing database; fill benchmarks are skipped",
    ),
    f(
        "statistics",
        Bool,
        "false",
        "Database statistics (printed as STATISTICS: at the end)",
    ),
    f(
        "histogram",
        Bool,
        "false",
        "Print histogram of operation timings",
    ),
    f(
        "stats_per_interval",
        I32,
        "0",
        "Reports additional stats per interval when this is greater than 0",
    ),
    f(
        "stats_interval",
        I64,
        "0",
        "Stats are reported every N operations when this is greater than zero",
    ),
    f(
        "stats_interval_seconds",
        I64,
        "0",
        "Report stats every N seconds. Overrides stats_interval when both are > 0",
    ),
    f(
        "report_interval_seconds",
        I64,
        "0",
        "If greater than zero, it will write simple stats in CSV format to --report_file every N seconds",
    ),
    f(
        "report_file",
        Str,
        "report.csv",
        "Filename where some simple stats are reported to (if --report_interval_seconds is bigger than 0)",
    ),
    f(
        "bloom_bits",
        I32,
        "-1",
        "Bloom filter bits per key. Negative means use default (none). Zero disables",
    ),
    f(
        "cache_size",
        I64,
        "8388608",
        "Number of bytes to use as a cache of uncompressed data",
    ),
    f("block_size", I32, "4096", "Number of bytes in a block"),
    f(
        "enable_index_compression",
        Bool,
        "true",
        "Compress the index block",
    ),
    f(
        "use_data_block_hash_index",
        Bool,
        "false",
        "if use kDataBlockBinaryAndHash instead of kDataBlockBinarySearch. This is valid if only we use BlockTable",
    ),
    f(
        "data_block_hash_table_util_ratio",
        F64,
        "0.75",
        "util ratio for data block hash index table. This is only valid if use_data_block_hash_index is set to true",
    ),
    f(
        "open_files",
        I32,
        "-1",
        "Maximum number of files to keep open at the same time (max_open_files)",
    ),
    f(
        "verify_checksum",
        Bool,
        "true",
        "Verify checksum for every block read from storage",
    ),
    f(
        "write_buffer_size",
        I64,
        "67108864",
        "Number of bytes to buffer in memtable before compacting",
    ),
    f(
        "arena_block_size",
        I64,
        "0",
        "The size, in bytes, of one block in arena memory allocation.",
    ),
    f(
        "memtable_bloom_size_ratio",
        F64,
        "0",
        "Ratio of memtable size used for bloom filter. 0 means no bloom filter.",
    ),
    f(
        "memtable_whole_key_filtering",
        Bool,
        "false",
        "Try to use whole key bloom filter in memtables.",
    ),
    f(
        "max_write_buffer_number",
        I32,
        "2",
        "The number of in-memory memtables",
    ),
    f(
        "min_write_buffer_number_to_merge",
        I32,
        "1",
        "The minimum number of write buffers merged before writing to storage",
    ),
    f(
        "max_background_jobs",
        I32,
        "2",
        "The maximum number of concurrent background jobs",
    ),
    f(
        "max_background_compactions",
        I32,
        "-1",
        "The maximum number of concurrent background compactions that can occur in parallel",
    ),
    f(
        "max_background_flushes",
        I32,
        "-1",
        "The maximum number of concurrent background flushes that can occur in parallel",
    ),
    f(
        "subcompactions",
        U64,
        "1",
        "Maximum number of subcompactions to divide L0-L1 compactions into",
    ),
    f(
        "compaction_style",
        I32,
        "0",
        "Style of compaction: 0 level-based, 1 universal, 2 FIFO, 3 none",
    ),
    f(
        "compaction_readahead_size",
        I32,
        "0",
        "Compaction readahead size",
    ),
    f(
        "bytes_per_sync",
        U64,
        "0",
        "Allows OS to incrementally sync SST files to disk while they are being written, in the background. Issue one request for every bytes_per_sync written. 0 turns it off.",
    ),
    f(
        "wal_bytes_per_sync",
        U64,
        "0",
        "Allows OS to incrementally sync WAL files to disk while they are being written, in the background. Issue one request for every wal_bytes_per_sync written. 0 turns it off.",
    ),
    f(
        "compaction_pri",
        I32,
        "3",
        "priority of files to compaction: by size or by data age",
    ),
    f(
        "fifo_compaction_max_table_files_size_mb",
        U64,
        "0",
        "The limit of total table file sizes to trigger FIFO compaction",
    ),
    f(
        "fifo_compaction_allow_compaction",
        Bool,
        "true",
        "Allow compaction in FIFO compaction.",
    ),
    f(
        "fifo_compaction_ttl",
        U64,
        "0",
        "TTL for the SST Files in seconds.",
    ),
    f(
        "universal_compression_size_percent",
        I32,
        "-1",
        "The percentage of the database to compress for universal compaction. -1 means compress everything.",
    ),
    f(
        "universal_allow_trivial_move",
        Bool,
        "false",
        "Allow trivial move in universal compaction.",
    ),
    f(
        "universal_size_ratio",
        I32,
        "0",
        "Percentage flexibility while comparing file size (universal only)",
    ),
    f(
        "universal_min_merge_width",
        I32,
        "0",
        "The minimum number of files in a single compaction run (universal only)",
    ),
    f(
        "universal_max_merge_width",
        I32,
        "0",
        "The max number of files to compact in universal style compaction",
    ),
    f(
        "universal_max_size_amplification_percent",
        I32,
        "0",
        "The max size amplification for universal style compaction",
    ),
    f("num_levels", I32, "7", "The total number of levels"),
    f(
        "max_bytes_for_level_base",
        U64,
        "268435456",
        "Max bytes for level-1",
    ),
    f(
        "max_bytes_for_level_multiplier",
        F64,
        "10",
        "A multiplier to compute max bytes for level-N (N >= 2)",
    ),
    f(
        "max_bytes_for_level_multiplier_additional",
        Str,
        "",
        "A vector that specifies additional fanout per level",
    ),
    f(
        "min_level_to_compress",
        I32,
        "-1",
        "If non-negative, compression starts from this level. Levels with number < min_level_to_compress are not compressed. Otherwise, apply compression_type to all levels.",
    ),
    f(
        "level_compaction_dynamic_level_bytes",
        Bool,
        "false",
        "Whether level size base is dynamic",
    ),
    f(
        "target_file_size_base",
        I64,
        "67108864",
        "Target file size at level-1",
    ),
    f(
        "target_file_size_multiplier",
        I32,
        "1",
        "A multiplier to compute target level-N file size (N >= 2)",
    ),
    f(
        "disable_auto_compactions",
        Bool,
        "false",
        "Do not auto trigger compactions",
    ),
    f(
        "max_compaction_bytes",
        U64,
        "0",
        "Max bytes allowed in one compaction",
    ),
    f(
        "level0_file_num_compaction_trigger",
        I32,
        "4",
        "Number of files in level-0 when compactions start",
    ),
    f(
        "level0_slowdown_writes_trigger",
        I32,
        "20",
        "Number of files in level-0 that will slow down writes",
    ),
    f(
        "level0_stop_writes_trigger",
        I32,
        "36",
        "Number of files in level-0 that will trigger put stop",
    ),
    f(
        "soft_pending_compaction_bytes_limit",
        U64,
        "68719476736",
        "Slowdown writes if pending compaction bytes exceed this number",
    ),
    f(
        "hard_pending_compaction_bytes_limit",
        U64,
        "137438953472",
        "Stop writes if pending compaction bytes exceed this number",
    ),
    f(
        "delayed_write_rate",
        U64,
        "8388608",
        "Bytes/s allowed into the DB while writes are slowed down",
    ),
    f(
        "enable_write_thread_adaptive_yield",
        Bool,
        "true",
        "Use a yielding spin loop for brief writer thread waits.",
    ),
    f(
        "write_thread_max_yield_usec",
        U64,
        "100",
        "Maximum microseconds for enable_write_thread_adaptive_yield operation.",
    ),
    f(
        "rate_limiter_bytes_per_sec",
        U64,
        "0",
        "Set options.rate_limiter value.",
    ),
    f(
        "rate_limiter_refill_period_us",
        I64,
        "100000",
        "Set refill period on rate limiter.",
    ),
    f(
        "rate_limiter_auto_tuned",
        Bool,
        "false",
        "Enable dynamic adjustment of rate limit according to demand for background I/O",
    ),
    f(
        "disable_wal",
        Bool,
        "false",
        "If true, do not write WAL for write",
    ),
    f("sync", Bool, "false", "Sync all writes to disk"),
    f(
        "block_restart_interval",
        I32,
        "16",
        "Number of keys between restart points for delta encoding of keys in data block.",
    ),
    f(
        "max_auto_readahead_size",
        U64,
        "262144",
        "Rocksdb implicit readahead starts at BlockBasedTableOptions.initial_auto_readahead_size and doubles on every additional read upto max_auto_readahead_size",
    ),
    f(
        "initial_auto_readahead_size",
        U64,
        "8192",
        "RocksDB does auto-readahead for iterators on noticing more than two sequential reads for a table file if user doesn't provide readahead_size. The readahead size starts at initial_auto_readahead_size",
    ),
    f(
        "num_file_reads_for_auto_readahead",
        U64,
        "2",
        "Rocksdb implicit readahead is enabled if reads are sequential and num_file_reads_for_auto_readahead indicates after how many sequential reads into that file internal auto prefetching should be start.",
    ),
    f(
        "paranoid_checks",
        Bool,
        "true",
        "RocksDB will aggressively check consistency of the data.",
    ),
    f(
        "use_direct_io_for_flush_and_compaction",
        Bool,
        "false",
        "Use O_DIRECT for background flush and compaction writes",
    ),
    f(
        "use_direct_reads",
        Bool,
        "false",
        "Use O_DIRECT for reading data",
    ),
    f(
        "mmap_read",
        Bool,
        "false",
        "Allow reads to occur via mmap-ing files. Not given: the engine's own default (Strata: true; RocksDB: false; LevelDB always maps, fjall never does)",
    ),
    f(
        "advise_random_on_open",
        Bool,
        "true",
        "Advise random access on table file open",
    ),
    f(
        "enable_blob_files",
        Bool,
        "false",
        "[Integrated BlobDB] Enable writing large values to separate blob files",
    ),
    f(
        "min_blob_size",
        U64,
        "0",
        "[Integrated BlobDB] The size of the smallest value stored separately in a blob file",
    ),
    f(
        "blob_file_size",
        U64,
        "268435456",
        "[Integrated BlobDB] The size limit for blob files",
    ),
    f(
        "blob_compression_type",
        Str,
        "none",
        "[Integrated BlobDB] The compression algorithm for values in blob files",
    ),
    f(
        "enable_blob_garbage_collection",
        Bool,
        "false",
        "[Integrated BlobDB] Enable blob garbage collection",
    ),
    f(
        "blob_garbage_collection_age_cutoff",
        F64,
        "0.25",
        "[Integrated BlobDB] Cutoff in terms of blob file age for garbage collection",
    ),
    f(
        "blob_garbage_collection_force_threshold",
        F64,
        "1",
        "[Integrated BlobDB] Garbage ratio of the oldest blob files that forces garbage collection",
    ),
    f(
        "use_blob_cache",
        Bool,
        "false",
        "[Integrated BlobDB] Enable blob cache",
    ),
    f(
        "blob_cache_size",
        U64,
        "8388608",
        "[Integrated BlobDB] Number of bytes to use as a cache of blobs",
    ),
    f(
        "readwritepercent",
        I32,
        "90",
        "Percentage of reads in readrandomwriterandom (90 means 9 gets for every put)",
    ),
    f(
        "benchmark_write_rate_limit",
        U64,
        "0",
        "If non-zero, rate-limit the writes of the benchmark (bytes/second)",
    ),
    f(
        "undefok",
        Str,
        "",
        "Comma-separated flag names that may be given although this program does not define them",
    ),
    f(
        "keyrange_dist_a",
        F64,
        "0",
        "The parameter 'a' of prefix average access distribution f(x)=a*exp(b*x)+c*exp(d*x)",
    ),
    f(
        "keyrange_dist_b",
        F64,
        "0",
        "The parameter 'b' of prefix average access distribution f(x)=a*exp(b*x)+c*exp(d*x)",
    ),
    f(
        "keyrange_dist_c",
        F64,
        "0",
        "The parameter 'c' of prefix average access distribution f(x)=a*exp(b*x)+c*exp(d*x)",
    ),
    f(
        "keyrange_dist_d",
        F64,
        "0",
        "The parameter 'd' of prefix average access distribution f(x)=a*exp(b*x)+c*exp(d*x)",
    ),
    f(
        "keyrange_num",
        I64,
        "1",
        "The number of key ranges that are in the same prefix group, each prefix range will have its key access distribution",
    ),
    f(
        "key_dist_a",
        F64,
        "0",
        "The parameter 'a' of key access distribution model f(x)=a*x^b",
    ),
    f(
        "key_dist_b",
        F64,
        "0",
        "The parameter 'b' of key access distribution model f(x)=a*x^b",
    ),
    f(
        "value_theta",
        F64,
        "0",
        "The parameter 'theta' of Generized Pareto Distribution f(x)=(1/sigma)*(1+k*(x-theta)/sigma)^-(1/k+1)",
    ),
    f(
        "value_k",
        F64,
        "0.26150000000000001",
        "The parameter 'k' of Generized Pareto Distribution f(x)=(1/sigma)*(1+k*(x-theta)/sigma)^-(1/k+1)",
    ),
    f(
        "value_sigma",
        F64,
        "25.449999999999999",
        "The parameter 'sigma' of Generized Pareto Distribution f(x)=(1/sigma)*(1+k*(x-theta)/sigma)^-(1/k+1)",
    ),
    f(
        "iter_theta",
        F64,
        "0",
        "The parameter 'theta' of Generized Pareto Distribution f(x)=(1/sigma)*(1+k*(x-theta)/sigma)^-(1/k+1)",
    ),
    f(
        "iter_k",
        F64,
        "2.5169999999999999",
        "The parameter 'k' of Generized Pareto Distribution f(x)=(1/sigma)*(1+k*(x-theta)/sigma)^-(1/k+1)",
    ),
    f(
        "iter_sigma",
        F64,
        "14.236000000000001",
        "The parameter 'sigma' of Generized Pareto Distribution f(x)=(1/sigma)*(1+k*(x-theta)/sigma)^-(1/k+1)",
    ),
    f(
        "mix_get_ratio",
        F64,
        "1",
        "The ratio of Get queries of mix_graph workload",
    ),
    f(
        "mix_put_ratio",
        F64,
        "0",
        "The ratio of Put queries of mix_graph workload",
    ),
    f(
        "mix_seek_ratio",
        F64,
        "0",
        "The ratio of Seek queries of mix_graph workload",
    ),
    f(
        "mix_max_scan_len",
        I64,
        "10000",
        "The max scan length of Iterator",
    ),
    f(
        "mix_max_value_size",
        I64,
        "1024",
        "The max value size of this workload",
    ),
    f(
        "sine_a",
        F64,
        "1",
        "A in f(x) = A sin(bx + c) + d",
    ),
    f(
        "sine_b",
        F64,
        "1",
        "B in f(x) = A sin(bx + c) + d",
    ),
    f(
        "sine_c",
        F64,
        "0",
        "C in f(x) = A sin(bx + c) + d",
    ),
    f(
        "sine_d",
        F64,
        "1",
        "D in f(x) = A sin(bx + c) + d",
    ),
    f(
        "sine_mix_rate",
        Bool,
        "false",
        "Enable the sine QPS control on the mix workload",
    ),
    f(
        "sine_mix_rate_interval_milliseconds",
        U64,
        "10000",
        "Interval of which the sine wave read_rate_limit is recalculated",
    ),
    f(
        "sine_mix_rate_noise",
        F64,
        "0",
        "Add the noise ratio to the sine rate, it is between 0.0 and 1.0",
    ),
    f(
        "read_sampling_multiplier",
        I64,
        "-1",
        "[strata] Read-triggered compaction (Pebble's option; LevelDB's seek compaction): -1 off (Strata's default; RocksDB has none); 0 or more on, an iterator sampling a key per this many 64 KiB read. LevelDB: only 16 (what it does); fjall and RocksDB: only -1",
    ),
    f(
        "read_compaction_rate",
        U64,
        "16000",
        "[strata] Bytes of a table per wasted read it allows before read-triggered compaction merges it down (Pebble's option). LevelDB: only 16384 (what it does); fjall and RocksDB: refused",
    ),
    f(
        "compaction_cpu_priority",
        Str,
        "",
        "[strata] CPU priority of the compaction threads: kIdle, kLow, kNormal or kHigh (RocksDB's CpuPriority, which RocksDB sets on its compaction pool with Env::LowerThreadPoolCPUPriority). Empty: each engine's own default (Strata: kLow; RocksDB: kNormal)",
    ),
    f(
        "engine",
        Str,
        "strata",
        "[strata] Engine to run: strata, leveldb, fjall, or rocksdb (builds with the `rocksdb` feature)",
    ),
    f(
        "json_report",
        Str,
        "",
        "[strata] Write every figure of the run to this path as JSON (schema in docs/strata-bench.md)",
    ),
    f(
        "target_ops_per_sec",
        F64,
        "0",
        "[strata] Target rate of every benchmark over all threads, each thread paced at its share (0: closed loop, as fast as possible); latencies then count from each op's scheduled start",
    ),
    f(
        "ycsb_request_distribution",
        Str,
        "",
        "[strata] Key choice of the ycsb_* workloads: zipfian, uniform or latest (empty: each workload's own)",
    ),
    f(
        "ycsb_insert_order",
        Str,
        "hashed",
        "[strata] Record keys of the ycsb_* benchmarks: hashed (YCSB's default) or ordered (record k under key k, as fillseq writes it)",
    ),
    f(
        "ycsb_zipfian_constant",
        F64,
        "0.99",
        "[strata] The zipfian constant of the ycsb_* workloads, in (0, 1)",
    ),
    f(
        "ycsb_max_scan_length",
        I64,
        "100",
        "[strata] Longest scan of ycsb_e (lengths uniform from 1)",
    ),
    f(
        "ycsb_target_ops_per_sec",
        F64,
        "0",
        "[strata] Target rate of the ycsb_* benchmarks over all threads (0: unthrottled); latencies then count from each op's scheduled start",
    ),
    f(
        "max_total_wal_size",
        U64,
        "0",
        "Set total max WAL size",
    ),
    f(
        "writes_before_delete_range",
        I64,
        "0",
        "Number of writes before DeleteRange is called regularly.",
    ),
    f(
        "writes_per_range_tombstone",
        I64,
        "0",
        "Number of writes between range tombstones",
    ),
    f(
        "range_tombstone_width",
        I64,
        "100",
        "Number of keys in tombstone's range",
    ),
    f(
        "max_num_range_tombstones",
        I64,
        "0",
        "Maximum number of range tombstones to insert.",
    ),
    f(
        "expand_range_tombstones",
        Bool,
        "false",
        "Expand range tombstone into sequential regular tombstones.",
    ),
    f(
        "merge_operator",
        Str,
        "",
        "The merge operator to use with the database (uint64add, max, put, stringappend; others are refused by name). Use a fresh database when it changes",
    ),
    f(
        "merge_keys",
        I64,
        "-1",
        "Number of distinct keys to use for MergeRandom and ReadRandomMergeRandom. If negative, there will be FLAGS_num keys.",
    ),
    f(
        "mergereadpercent",
        I32,
        "70",
        "Ratio of merges to merges&reads (expressed as percentage) for the ReadRandomMergeRandom workload. The default value 70 means 70% out of all read and merge operations are merges. In other words, 7 merges for every 3 gets.",
    ),
    f(
        "num_column_families",
        I32,
        "1",
        "Number of Column Families to use.",
    ),
    f(
        "hot_key_fraction",
        F64,
        "0",
        "[strata] Split the keys over two column families: the first fraction of the key range in 'hot', the rest in 'cold' (0: one family)",
    ),
    f(
        "hot_cold_families",
        Bool,
        "true",
        "[strata] With --hot_key_fraction: hot and cold keys in column families 'hot' and 'cold' (false: all in 'default'; updatehotcold, readhot and readcold still tell them apart)",
    ),
    f(
        "hot_write_fraction",
        F64,
        "0.9",
        "[strata] Fraction of updatehotcold's writes that go to the hot keys",
    ),
    f(
        "hot_compaction_style",
        Str,
        "",
        "[strata] --compaction_style of the 'hot' column family (empty: --compaction_style)",
    ),
    f(
        "hot_write_buffer_size",
        Str,
        "",
        "[strata] --write_buffer_size of the 'hot' column family (empty: --write_buffer_size)",
    ),
    f(
        "hot_max_write_buffer_number",
        Str,
        "",
        "[strata] --max_write_buffer_number of the 'hot' column family (empty: --max_write_buffer_number)",
    ),
    f(
        "hot_level0_file_num_compaction_trigger",
        Str,
        "",
        "[strata] --level0_file_num_compaction_trigger of the 'hot' column family (empty: --level0_file_num_compaction_trigger)",
    ),
    f(
        "hot_max_bytes_for_level_base",
        Str,
        "",
        "[strata] --max_bytes_for_level_base of the 'hot' column family (empty: --max_bytes_for_level_base)",
    ),
    f(
        "hot_max_bytes_for_level_multiplier",
        Str,
        "",
        "[strata] --max_bytes_for_level_multiplier of the 'hot' column family (empty: --max_bytes_for_level_multiplier)",
    ),
    f(
        "hot_target_file_size_base",
        Str,
        "",
        "[strata] --target_file_size_base of the 'hot' column family (empty: --target_file_size_base)",
    ),
    f(
        "hot_num_levels",
        Str,
        "",
        "[strata] --num_levels of the 'hot' column family (empty: --num_levels)",
    ),
    f(
        "cold_compaction_style",
        Str,
        "",
        "[strata] --compaction_style of the 'cold' column family (empty: --compaction_style)",
    ),
    f(
        "cold_write_buffer_size",
        Str,
        "",
        "[strata] --write_buffer_size of the 'cold' column family (empty: --write_buffer_size)",
    ),
    f(
        "cold_max_write_buffer_number",
        Str,
        "",
        "[strata] --max_write_buffer_number of the 'cold' column family (empty: --max_write_buffer_number)",
    ),
    f(
        "cold_level0_file_num_compaction_trigger",
        Str,
        "",
        "[strata] --level0_file_num_compaction_trigger of the 'cold' column family (empty: --level0_file_num_compaction_trigger)",
    ),
    f(
        "cold_max_bytes_for_level_base",
        Str,
        "",
        "[strata] --max_bytes_for_level_base of the 'cold' column family (empty: --max_bytes_for_level_base)",
    ),
    f(
        "cold_max_bytes_for_level_multiplier",
        Str,
        "",
        "[strata] --max_bytes_for_level_multiplier of the 'cold' column family (empty: --max_bytes_for_level_multiplier)",
    ),
    f(
        "cold_target_file_size_base",
        Str,
        "",
        "[strata] --target_file_size_base of the 'cold' column family (empty: --target_file_size_base)",
    ),
    f(
        "cold_num_levels",
        Str,
        "",
        "[strata] --num_levels of the 'cold' column family (empty: --num_levels)",
    ),
];

/// The spec of flag `name`, if it exists.
pub fn lookup(name: &str) -> Option<&'static FlagSpec> {
    FLAGS.iter().find(|s| s.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses db_bench's `--help` into (name, type, default) triples.
    fn parse_help(text: &str) -> Vec<(String, String, String)> {
        let mut out = Vec::new();
        let mut current: Option<(String, String)> = None;
        let flush = |cur: Option<(String, String)>, out: &mut Vec<(String, String, String)>| {
            if let Some((name, body)) = cur {
                let flat = body.split_whitespace().collect::<Vec<_>>().join(" ");
                if let Some(pos) = flat.rfind(" type: ") {
                    let rest = &flat[pos + 7..];
                    if let Some((ty, def)) = rest.split_once(" default: ") {
                        let def = def.split(" currently: ").next().unwrap_or(def);
                        out.push((name, ty.to_string(), def.trim_matches('"').to_string()));
                    }
                }
            }
        };
        for line in text.lines() {
            let t = line.trim_start();
            let indent = line.len() - t.len();
            // A section header ends the last flag of the section before.
            if t.starts_with("Flags from ") {
                flush(current.take(), &mut out);
                continue;
            }
            if indent == 4 && t.starts_with('-') {
                if let Some((name, _)) = t[1..].split_once(" (") {
                    flush(current.take(), &mut out);
                    current = Some((name.to_string(), t.to_string()));
                    continue;
                }
            }
            if let Some((_, body)) = current.as_mut() {
                body.push(' ');
                body.push_str(t);
            }
        }
        flush(current.take(), &mut out);
        out
    }

    #[test]
    fn defaults_and_types_match_db_bench_7_8_3_help() {
        let help = include_str!("../../testdata/rocksdb-7.8.3/help.txt");
        let parsed = parse_help(help);
        assert!(
            parsed.len() > 300,
            "help parser found only {}",
            parsed.len()
        );
        let mut checked = 0;
        for spec in FLAGS {
            if spec.help.starts_with("[strata]")
                || spec.name == "benchmarks"
                || spec.name == "undefok"
            {
                continue;
            }
            let Some((_, ty, def)) = parsed.iter().find(|(n, _, _)| n == spec.name) else {
                panic!("flag {} is not a db_bench 7.8.3 flag", spec.name);
            };
            assert_eq!(ty, spec.kind.gflags_name(), "type of --{}", spec.name);
            assert_eq!(def, spec.default, "default of --{}", spec.name);
            checked += 1;
        }
        assert!(checked >= 55, "checked {checked}");
    }

    #[test]
    fn help_text_is_in_db_bench_format() {
        // What reads db_bench's `--help` reads `strata bench --help` the same.
        let ours = crate::help_text();
        assert!(ours.starts_with("strata bench: db_bench-compatible benchmark"));
        let parsed = parse_help(&ours);
        assert_eq!(parsed.len(), FLAGS.len());
        for (spec, (name, ty, def)) in FLAGS.iter().zip(&parsed) {
            assert_eq!(
                (name.as_str(), ty.as_str(), def.as_str()),
                (spec.name, spec.kind.gflags_name(), spec.default)
            );
        }
    }

    #[test]
    fn names_are_unique() {
        for (i, a) in FLAGS.iter().enumerate() {
            assert!(
                FLAGS[i + 1..].iter().all(|b| b.name != a.name),
                "{}",
                a.name
            );
        }
    }
}
