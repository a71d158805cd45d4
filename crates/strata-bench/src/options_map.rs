//! The one place where db_bench flags become engine options.
//!
//! Every engine setting is expressed as a RocksDB option name and a value in
//! RocksDB option-string syntax (`write_buffer_size=67108864`). The Strata
//! adapter feeds them to `strata::Options` (which rejects features it has not
//! built with `NotSupported` naming the option), the RocksDB adapter to the
//! matching `rocksdb::Options` setters. So a flag starts working on Strata the
//! day its engine supports the option, with no change here.

use crate::flags::{Compression, Flags};

/// One engine option derived from one flag.
#[derive(Debug, Clone, PartialEq)]
pub struct OptionSetting {
    /// The db_bench flag it comes from (for error messages).
    pub flag: &'static str,
    /// RocksDB's option name (`max_bytes_for_level_base`), or for the three
    /// table/DB-level knobs without a flat RocksDB name: `bloom_bits_per_key`,
    /// `block_cache_size`, `statistics`.
    pub option: &'static str,
    /// Value in option-string syntax.
    pub value: String,
    /// Whether the flag was given on the command line (not db_bench's
    /// default). Engines without db_bench's defaults (LevelDB, fjall) apply
    /// only these and keep their own defaults for the rest.
    pub given: bool,
}

/// Per-write options (db_bench's `write_options_`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriteOpts {
    /// fsync the WAL before acknowledging.
    pub sync: bool,
    /// Skip the WAL.
    pub disable_wal: bool,
}

/// The engine options `flags` ask for, in a stable order.
pub fn engine_options(flags: &Flags) -> Vec<OptionSetting> {
    let v = &flags.values;
    let mut out = Vec::new();
    let mut set = |flag: &'static str, option: &'static str, value: String| {
        out.push(OptionSetting {
            flag,
            option,
            value,
            given: v.was_given(flag),
        })
    };
    let same = [
        "write_buffer_size",
        "arena_block_size",
        "max_write_buffer_number",
        "max_total_wal_size",
        "min_write_buffer_number_to_merge",
        "max_background_jobs",
        "max_background_compactions",
        "max_background_flushes",
        "num_levels",
        "max_bytes_for_level_base",
        "max_bytes_for_level_multiplier",
        "level_compaction_dynamic_level_bytes",
        "target_file_size_base",
        "target_file_size_multiplier",
        "disable_auto_compactions",
        "max_compaction_bytes",
        "level0_file_num_compaction_trigger",
        "level0_slowdown_writes_trigger",
        "level0_stop_writes_trigger",
        "soft_pending_compaction_bytes_limit",
        "hard_pending_compaction_bytes_limit",
        "delayed_write_rate",
        "enable_write_thread_adaptive_yield",
        "write_thread_max_yield_usec",
        "block_size",
        "enable_index_compression",
    ];
    for name in same {
        set(name, name, v.raw(name).to_string());
    }
    set("open_files", "max_open_files", v.raw("open_files").into());
    set(
        "use_data_block_hash_index",
        "data_block_index_type",
        if v.raw("use_data_block_hash_index") == "true" {
            "kDataBlockBinaryAndHash"
        } else {
            "kDataBlockBinarySearch"
        }
        .into(),
    );
    set(
        "data_block_hash_table_util_ratio",
        "data_block_hash_table_util_ratio",
        v.raw("data_block_hash_table_util_ratio").into(),
    );
    set(
        "compression_type",
        "compression",
        flags.compression.option_name().into(),
    );
    // db_bench: a non-negative --min_level_to_compress=N makes
    // compression_per_level num_levels long, N levels uncompressed and the
    // rest --compression_type.
    if let (Ok(first), Ok(levels)) = (
        v.raw("min_level_to_compress").parse::<i64>(),
        v.raw("num_levels").parse::<i64>(),
    ) {
        if first >= 0 {
            let per_level: Vec<&str> = (0..levels)
                .map(|l| {
                    if l < first {
                        "kNoCompression"
                    } else {
                        flags.compression.option_name()
                    }
                })
                .collect();
            set(
                "min_level_to_compress",
                "compression_per_level",
                per_level.join(":"),
            );
        }
    }
    set(
        "subcompactions",
        "max_subcompactions",
        v.raw("subcompactions").into(),
    );
    set(
        "compaction_style",
        "compaction_style",
        compaction_style(v.raw("compaction_style")),
    );
    // db_bench sets the FIFO options whatever the style (they matter only
    // under FIFO), and always `ttl` from --fifo_compaction_ttl: its default
    // 0 turns off the 30-day TTL both engines would otherwise pick.
    let fifo_mb: u64 = v
        .raw("fifo_compaction_max_table_files_size_mb")
        .parse()
        .unwrap_or(0);
    set(
        "fifo_compaction_max_table_files_size_mb",
        "compaction_options_fifo.max_table_files_size",
        fifo_mb.saturating_mul(1 << 20).to_string(),
    );
    set(
        "fifo_compaction_allow_compaction",
        "compaction_options_fifo.allow_compaction",
        v.raw("fifo_compaction_allow_compaction").into(),
    );
    set(
        "fifo_compaction_ttl",
        "ttl",
        v.raw("fifo_compaction_ttl").into(),
    );
    let fanouts = v.raw("max_bytes_for_level_multiplier_additional").trim();
    if !fanouts.is_empty() {
        set(
            "max_bytes_for_level_multiplier_additional",
            "max_bytes_for_level_multiplier_additional",
            fanouts
                .split(',')
                .map(str::trim)
                .collect::<Vec<_>>()
                .join(":"),
        );
    }
    let pri = match v.raw("compaction_pri") {
        "0" => "kByCompensatedSize".to_string(),
        "1" => "kOldestLargestSeqFirst".to_string(),
        "2" => "kOldestSmallestSeqFirst".to_string(),
        "3" => "kMinOverlappingRatio".to_string(),
        "4" => "kRoundRobin".to_string(),
        other => other.to_string(), // rejected by the engine, naming the flag
    };
    set("compaction_pri", "compaction_pri", pri);
    if v.raw("universal_compression_size_percent") != "-1" {
        set(
            "universal_compression_size_percent",
            "compaction_options_universal.compression_size_percent",
            v.raw("universal_compression_size_percent").into(),
        );
    }
    if v.raw("universal_allow_trivial_move") == "true" {
        set(
            "universal_allow_trivial_move",
            "compaction_options_universal.allow_trivial_move",
            "true".into(),
        );
    }
    // db_bench only overrides the universal options it was given non-zero.
    for (flag, option) in [
        (
            "universal_size_ratio",
            "compaction_options_universal.size_ratio",
        ),
        (
            "universal_min_merge_width",
            "compaction_options_universal.min_merge_width",
        ),
        (
            "universal_max_merge_width",
            "compaction_options_universal.max_merge_width",
        ),
        (
            "universal_max_size_amplification_percent",
            "compaction_options_universal.max_size_amplification_percent",
        ),
    ] {
        if v.raw(flag) != "0" {
            set(flag, option, v.raw(flag).into());
        }
    }
    if v.raw("use_direct_io_for_flush_and_compaction") == "true" {
        set(
            "use_direct_io_for_flush_and_compaction",
            "use_direct_io_for_flush_and_compaction",
            "true".into(),
        );
    }
    if v.raw("use_direct_reads") == "true" {
        set("use_direct_reads", "use_direct_reads", "true".into());
    }
    // db_bench's default is its engine's own (`Options().allow_mmap_reads`):
    // RocksDB's false, Strata's true. Only a given flag sets it.
    if v.was_given("mmap_read") {
        set("mmap_read", "allow_mmap_reads", v.raw("mmap_read").into());
    }
    set(
        "advise_random_on_open",
        "advise_random_on_open",
        v.raw("advise_random_on_open").into(),
    );
    // db_bench 7.8.3's default is 0, which its RocksDB raised to 2 MiB under
    // direct reads (SanitizeOptions); RocksDB 10 no longer does, so the
    // harness does it for both engines.
    let readahead = match (
        v.raw("compaction_readahead_size"),
        v.raw("use_direct_reads"),
    ) {
        ("0", "true") => "2097152".to_string(),
        (n, _) => n.to_string(),
    };
    set(
        "compaction_readahead_size",
        "compaction_readahead_size",
        readahead,
    );
    // db_bench sets both always; 0 leaves RocksDB's own rule (1 MiB for
    // tables when a rate limiter is set).
    for name in ["bytes_per_sync", "wal_bytes_per_sync"] {
        set(name, name, v.raw(name).into());
    }
    if v.raw("enable_blob_files") == "true" {
        set("enable_blob_files", "enable_blob_files", "true".into());
        set(
            "min_blob_size",
            "min_blob_size",
            v.raw("min_blob_size").into(),
        );
        set(
            "blob_file_size",
            "blob_file_size",
            v.raw("blob_file_size").into(),
        );
        let bc = Compression::parse(v.raw("blob_compression_type")).unwrap_or(Compression::None);
        set(
            "blob_compression_type",
            "blob_compression_type",
            bc.option_name().into(),
        );
        // Passed either way: fjall, whose own default collects garbage,
        // has to see an explicit `false`.
        let gc = v.raw("enable_blob_garbage_collection") == "true";
        set(
            "enable_blob_garbage_collection",
            "enable_blob_garbage_collection",
            gc.to_string(),
        );
        if gc {
            for name in [
                "blob_garbage_collection_age_cutoff",
                "blob_garbage_collection_force_threshold",
            ] {
                set(name, name, v.raw(name).into());
            }
        }
        if v.raw("use_blob_cache") == "true" {
            // Named after the flag that turns it on, so that an engine
            // keeping its own defaults sees it given.
            set(
                "use_blob_cache",
                "blob_cache_size",
                v.raw("blob_cache_size").into(),
            );
        }
    }
    // db_bench makes a rate limiter only for a non-zero rate.
    if v.raw("rate_limiter_bytes_per_sec") != "0" {
        for name in [
            "rate_limiter_bytes_per_sec",
            "rate_limiter_refill_period_us",
            "rate_limiter_auto_tuned",
        ] {
            set(name, name, v.raw(name).into());
        }
    }
    // db_bench: negative bloom_bits = table default (no filter), 0 = none.
    let bloom: i64 = v.raw("bloom_bits").parse().unwrap_or(-1);
    set("bloom_bits", "bloom_bits_per_key", bloom.max(0).to_string());
    let cache: i64 = v.raw("cache_size").parse().unwrap_or(0);
    set("cache_size", "block_cache_size", cache.max(0).to_string());
    set("statistics", "statistics", flags.statistics.to_string());
    // Range tombstones need the engine's DeleteRange (expanded ones are
    // point deletes any engine writes).
    if flags.writes_per_range_tombstone > 0 && !flags.expand_range_tombstones {
        set(
            "writes_per_range_tombstone",
            "delete_range",
            flags.writes_per_range_tombstone.to_string(),
        );
    }
    // db_bench sets a merge operator only when the flag names one.
    if !flags.merge_operator.is_empty() {
        set(
            "merge_operator",
            "merge_operator",
            flags.merge_operator.clone(),
        );
    }
    // Passed only when given: db_bench's defaults are the engines' own.
    for name in [
        "block_restart_interval",
        "paranoid_checks",
        "max_auto_readahead_size",
        "initial_auto_readahead_size",
        "num_file_reads_for_auto_readahead",
        "read_sampling_multiplier",
        "read_compaction_rate",
    ] {
        if v.was_given(name) {
            set(name, name, v.raw(name).into());
        }
    }
    // db_bench's defaults (no memtable filter) are RocksDB's; passed only
    // when given, so an engine keeps its own default (Strata's filters).
    if v.was_given("memtable_bloom_size_ratio") {
        set(
            "memtable_bloom_size_ratio",
            "memtable_prefix_bloom_size_ratio",
            v.raw("memtable_bloom_size_ratio").into(),
        );
    }
    if v.was_given("memtable_whole_key_filtering") {
        set(
            "memtable_whole_key_filtering",
            "memtable_whole_key_filtering",
            v.raw("memtable_whole_key_filtering").into(),
        );
    }
    // A Strata flag; empty (its default) keeps each engine's own priority.
    if !v.raw("compaction_cpu_priority").is_empty() {
        set(
            "compaction_cpu_priority",
            "compaction_cpu_priority",
            v.raw("compaction_cpu_priority").into(),
        );
    }
    // Column families (engine/families.rs): the layout, then each family's
    // own options under their flag's name.
    if flags.num_column_families > 1 {
        set(
            "num_column_families",
            crate::engine::families::NUM_COLUMN_FAMILIES,
            flags.num_column_families.to_string(),
        );
    }
    if flags.hot_key_fraction > 0.0 && flags.hot_cold_families {
        let hot_keys = (flags.hot_key_fraction * flags.num.max(0) as f64) as u64;
        set(
            "hot_key_fraction",
            crate::engine::families::HOT_KEYS,
            hot_keys.to_string(),
        );
        for spec in crate::flags::table::FLAGS {
            let name = spec.name;
            let family_flag = (name.starts_with("hot_") || name.starts_with("cold_"))
                && !matches!(
                    name,
                    "hot_key_fraction" | "hot_write_fraction" | "hot_cold_families"
                );
            if family_flag && v.was_given(name) {
                let value = if name.ends_with("_compaction_style") {
                    compaction_style(v.raw(name))
                } else {
                    v.raw(name).to_string()
                };
                set(name, name, value);
            }
        }
    }
    out
}

/// db_bench's `--compaction_style` number as RocksDB's option value.
fn compaction_style(v: &str) -> String {
    match v {
        "0" => "kCompactionStyleLevel".to_string(),
        "1" => "kCompactionStyleUniversal".to_string(),
        "2" => "kCompactionStyleFIFO".to_string(),
        "3" => "kCompactionStyleNone".to_string(),
        other => other.to_string(), // rejected by the engine, naming the flag
    }
}

/// db_bench's write options.
pub fn write_options(flags: &Flags) -> WriteOpts {
    WriteOpts {
        sync: flags.sync,
        disable_wal: flags.disable_wal,
    }
}

/// Joins the settings into a RocksDB option string (`a=1;b=2`), skipping the
/// given option names.
pub fn option_string(settings: &[OptionSetting], skip: &[&str]) -> String {
    settings
        .iter()
        .filter(|s| !skip.contains(&s.option))
        .map(|s| format!("{}={}", s.option, s.value))
        .collect::<Vec<_>>()
        .join(";")
}

/// The engine settings of a `strata bench` command line (`args` after
/// `strata bench`), for the adapters' tests.
#[cfg(test)]
pub(crate) fn settings_of(args: &[&str]) -> Vec<OptionSetting> {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    engine_options(&Flags::from_args(&args).unwrap())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(args: &[&str]) -> Vec<OptionSetting> {
        let f = Flags::from_args(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap();
        engine_options(&f)
    }

    fn get<'a>(o: &'a [OptionSetting], name: &str) -> Option<&'a str> {
        o.iter()
            .find(|s| s.option == name)
            .map(|s| s.value.as_str())
    }

    #[test]
    fn db_bench_defaults_reach_the_engine() {
        let o = opts(&[]);
        assert_eq!(get(&o, "write_buffer_size"), Some("67108864"));
        assert_eq!(
            get(&o, "level_compaction_dynamic_level_bytes"),
            Some("false")
        );
        assert_eq!(get(&o, "delayed_write_rate"), Some("8388608"));
        assert_eq!(
            get(&o, "hard_pending_compaction_bytes_limit"),
            Some("137438953472")
        );
        assert_eq!(get(&o, "compression"), Some("kSnappyCompression"));
        assert_eq!(get(&o, "compaction_style"), Some("kCompactionStyleLevel"));
        assert_eq!(get(&o, "bloom_bits_per_key"), Some("0"));
        assert_eq!(get(&o, "block_cache_size"), Some("8388608"));
        assert_eq!(get(&o, "enable_index_compression"), Some("true"));
        assert_eq!(get(&o, "enable_blob_files"), None);
        assert_eq!(get(&o, "compaction_options_universal.size_ratio"), None);
    }

    #[test]
    fn merge_operator_reaches_strata_by_name_and_others_are_refused() {
        assert_eq!(get(&opts(&[]), "merge_operator"), None);
        let o = opts(&["--merge_operator=uint64add"]);
        assert_eq!(get(&o, "merge_operator"), Some("uint64add"));
        let so = crate::engine::strata_adapter::build_options(&o).unwrap();
        assert_eq!(so.merge_operator.unwrap().name(), "UInt64AddOperator");
        for name in ["max", "put", "stringappend"] {
            let so = crate::engine::strata_adapter::build_options(&opts(&[&format!(
                "--merge_operator={name}"
            )]))
            .unwrap();
            assert!(so.merge_operator.is_some(), "{name}");
        }
        let o = opts(&["--merge_operator=sortlist"]);
        let e = crate::engine::strata_adapter::build_options(&o).unwrap_err();
        let text = crate::engine::explain_open_error(&e, &o);
        assert!(
            text.contains("flag '--merge_operator'") && text.contains("'sortlist'"),
            "{text}"
        );
    }

    #[test]
    fn compaction_pri_and_background_limits_reach_strata() {
        let o = opts(&[]);
        assert_eq!(get(&o, "compaction_pri"), Some("kMinOverlappingRatio"));
        assert_eq!(get(&o, "target_file_size_multiplier"), Some("1"));
        assert_eq!(get(&o, "disable_auto_compactions"), Some("false"));
        let so = crate::engine::strata_adapter::build_options(&opts(&[
            "--target_file_size_multiplier=2",
            "--disable_auto_compactions=1",
        ]))
        .unwrap();
        assert_eq!(so.target_file_size_multiplier, 2);
        assert!(so.disable_auto_compactions);
        assert_eq!(get(&o, "max_background_compactions"), Some("-1"));
        let o = opts(&[
            "--compaction_pri=1",
            "--max_background_compactions=3",
            "--max_background_flushes=1",
            "--compaction_style=1",
            "--universal_allow_trivial_move=true",
        ]);
        let so = crate::engine::strata_adapter::build_options(&o).unwrap();
        assert_eq!(
            so.compaction_pri,
            strata::CompactionPri::OldestLargestSeqFirst
        );
        assert_eq!(so.max_background_compactions, 3);
        assert_eq!(so.max_background_flushes, 1);
        assert!(so.compaction_options_universal.allow_trivial_move);
        assert_eq!(so.compaction_options_universal.compression_size_percent, -1);
        let o = opts(&[
            "--compaction_style=1",
            "--universal_compression_size_percent=40",
        ]);
        let so = crate::engine::strata_adapter::build_options(&o).unwrap();
        assert_eq!(so.compaction_options_universal.compression_size_percent, 40);
        // Round robin is refused naming the option (the harness adds the flag).
        let e = crate::engine::strata_adapter::build_options(&opts(&["--compaction_pri=4"]))
            .err()
            .unwrap();
        assert!(format!("{e:#}").contains("compaction_pri"), "{e:#}");
    }

    #[test]
    fn memtable_filter_flags_reach_strata_only_when_given() {
        let o = opts(&[]);
        assert_eq!(get(&o, "memtable_prefix_bloom_size_ratio"), None);
        assert_eq!(get(&o, "memtable_whole_key_filtering"), None);
        let so = crate::engine::strata_adapter::build_options(&opts(&[
            "--memtable_bloom_size_ratio=0.02",
            "--memtable_whole_key_filtering=true",
        ]))
        .unwrap();
        assert_eq!(so.memtable_prefix_bloom_size_ratio, 0.02);
        assert!(so.memtable_whole_key_filtering);
        // A ratio without whole keys would filter by prefix in RocksDB;
        // Strata has no prefix extractor and says so.
        let e = crate::engine::strata_adapter::build_options(&opts(&[
            "--memtable_bloom_size_ratio=0.02",
            "--memtable_whole_key_filtering=false",
        ]))
        .unwrap()
        .validate()
        .unwrap_err()
        .to_string();
        assert!(e.contains("memtable_whole_key_filtering"), "{e}");
    }

    #[test]
    fn compaction_readahead_follows_db_bench_7_8() {
        assert_eq!(get(&opts(&[]), "compaction_readahead_size"), Some("0"));
        let direct = opts(&["--use_direct_reads=true"]);
        assert_eq!(get(&direct, "compaction_readahead_size"), Some("2097152"));
        let set = opts(&[
            "--use_direct_reads=true",
            "--compaction_readahead_size=65536",
        ]);
        assert_eq!(get(&set, "compaction_readahead_size"), Some("65536"));
    }

    #[test]
    fn advise_random_on_open_is_on_unless_turned_off() {
        assert_eq!(get(&opts(&[]), "advise_random_on_open"), Some("true"));
        let off = opts(&["--advise_random_on_open=false"]);
        assert_eq!(get(&off, "advise_random_on_open"), Some("false"));
        let so = crate::engine::strata_adapter::build_options(&off).unwrap();
        assert!(!so.advise_random_on_open);
        let so = crate::engine::strata_adapter::build_options(&opts(&[])).unwrap();
        assert!(so.advise_random_on_open);
    }

    #[test]
    fn min_level_to_compress_leaves_the_first_levels_uncompressed() {
        use strata::CompressionType::{Lz4, None as No};
        assert_eq!(get(&opts(&[]), "compression_per_level"), None);
        let o = opts(&[
            "--min_level_to_compress=2",
            "--num_levels=4",
            "--compression_type=lz4",
        ]);
        assert_eq!(
            get(&o, "compression_per_level"),
            Some("kNoCompression:kNoCompression:kLZ4Compression:kLZ4Compression")
        );
        let so = crate::engine::strata_adapter::build_options(&o).unwrap();
        assert_eq!(so.compression_per_level, [No, No, Lz4, Lz4]);
        let e = Flags::from_args(&["--min_level_to_compress=8".to_string()])
            .unwrap_err()
            .to_string();
        assert!(e.contains("min_level_to_compress"), "{e}");
    }

    #[test]
    fn fifo_flags_reach_strata() {
        let o = opts(&[
            "--compaction_style=2",
            "--fifo_compaction_max_table_files_size_mb=64",
        ]);
        let so = crate::engine::strata_adapter::build_options(&o).unwrap();
        assert_eq!(so.compaction_style, strata::CompactionStyle::Fifo);
        assert_eq!(so.compaction_options_fifo.max_table_files_size, 64 << 20);
        assert!(so.compaction_options_fifo.allow_compaction);
        let o = opts(&["--compaction_style=2", "--fifo_compaction_ttl=60"]);
        let so = crate::engine::strata_adapter::build_options(&o).unwrap();
        assert_eq!(so.ttl, 60);
        assert_eq!(get(&opts(&[]), "ttl"), Some("0"));
        // db_bench's 0 reaches Strata under any style.
        let so = crate::engine::strata_adapter::build_options(&opts(&[])).unwrap();
        assert_eq!(so.effective_ttl(), 0);
    }

    #[test]
    fn fanouts_need_one_per_level() {
        let o = opts(&[
            "--num_levels=3",
            "--max_bytes_for_level_multiplier_additional=1,2,3",
        ]);
        let so = crate::engine::strata_adapter::build_options(&o).unwrap();
        assert_eq!(so.max_bytes_for_level_multiplier_additional, vec![1, 2, 3]);
        let args: Vec<String> = ["--max_bytes_for_level_multiplier_additional=1,2"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let e = Flags::from_args(&args).unwrap_err();
        assert!(
            e.to_string()
                .contains("Insufficient number of fanouts specified 2"),
            "{e}"
        );
    }

    #[test]
    fn bytes_per_sync_flags_reach_the_options() {
        let o = opts(&[]);
        assert_eq!(get(&o, "bytes_per_sync"), Some("0"));
        assert_eq!(get(&o, "wal_bytes_per_sync"), Some("0"));
        let o = opts(&["--bytes_per_sync=8388608", "--wal_bytes_per_sync=524288"]);
        let so = crate::engine::strata_adapter::build_options(&o).unwrap();
        assert_eq!(so.bytes_per_sync, 8 << 20);
        assert_eq!(so.wal_bytes_per_sync, 512 << 10);
        // RocksDB's SanitizeOptions: 1 MiB under a rate limiter.
        let o = opts(&["--rate_limiter_bytes_per_sec=1000000"]);
        let so = crate::engine::strata_adapter::build_options(&o).unwrap();
        assert_eq!(so.effective_bytes_per_sync(), 1 << 20);
    }

    #[test]
    fn rate_limiter_only_with_a_rate() {
        let o = opts(&[]);
        assert_eq!(get(&o, "rate_limiter_bytes_per_sec"), None);
        let o = opts(&["--rate_limiter_bytes_per_sec=1000000"]);
        assert_eq!(get(&o, "rate_limiter_bytes_per_sec"), Some("1000000"));
        assert_eq!(get(&o, "rate_limiter_refill_period_us"), Some("100000"));
        let so = crate::engine::strata_adapter::build_options(&o).unwrap();
        assert_eq!(so.rate_limiter_bytes_per_sec, 1_000_000);
        assert_eq!(so.rate_limiter_refill_period_us, 100_000);
        assert!(!so.rate_limiter_auto_tuned);
        let o = opts(&[
            "--rate_limiter_bytes_per_sec=1000000",
            "--rate_limiter_auto_tuned=true",
        ]);
        assert_eq!(get(&o, "rate_limiter_auto_tuned"), Some("true"));
        let so = crate::engine::strata_adapter::build_options(&o).unwrap();
        assert!(so.rate_limiter_auto_tuned);
    }

    #[test]
    fn flags_map_to_options() {
        let o = opts(&[
            "--compaction_style=1",
            "--universal_size_ratio=5",
            "--subcompactions=4",
            "--enable_blob_files=true",
            "--min_blob_size=0",
            "--bloom_bits=10",
            "--compression_type=none",
            "--enable_index_compression=0",
        ]);
        assert_eq!(get(&o, "enable_index_compression"), Some("false"));
        assert_eq!(
            get(&o, "compaction_style"),
            Some("kCompactionStyleUniversal")
        );
        assert_eq!(
            get(&o, "compaction_options_universal.size_ratio"),
            Some("5")
        );
        assert_eq!(get(&o, "max_subcompactions"), Some("4"));
        assert_eq!(get(&o, "enable_blob_files"), Some("true"));
        assert_eq!(get(&o, "min_blob_size"), Some("0"));
        assert_eq!(get(&o, "bloom_bits_per_key"), Some("10"));
        assert_eq!(get(&o, "compression"), Some("kNoCompression"));
        let s = option_string(&o, &["statistics"]);
        assert!(
            s.contains("compaction_style=kCompactionStyleUniversal;"),
            "{s}"
        );
        assert!(!s.contains("statistics="));
    }
}
