//! The drawer of `--random-options`: a pure function from a seed to an
//! option set (engine options, per column family, and the workload flags
//! that go with them), and from (option set, reopen k) to the options the
//! k-th reopen runs with. As RocksDB's db_crashtest.py, some choices hold
//! for a whole option set (compaction style, column families, WAL mode,
//! merge operator) and others are drawn again at each reopen (buffer
//! sizes, caches, compression, bloom bits, blob thresholds, direct I/O,
//! rate limiter, ...): the engine must open a DB written under other
//! values of those.
//!
//! Every engine option (`Options::to_pairs`, generated from the engine's
//! single declaration) is either in [`DB_DRAWN`] or [`FAMILY_DRAWN`] or in [`NOT_DRAWN`] with the
//! reason; a unit test fails when an option is added to the engine without
//! a decision here. A draw the engine refuses (`Options::validate`) is a
//! bug of this file: [`fix_up`] applies the documented incompatibilities.

use std::collections::BTreeMap;

use super::value::{mix64, Rng};

/// Option name -> value text, as in the option string.
pub type OptionMap = BTreeMap<&'static str, String>;

/// Where a drawn engine option applies.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Scope {
    /// DB-wide: in `--options`.
    Db,
    /// Per column family: each family draws its own.
    Family,
}

/// The DB-wide engine options the drawer draws.
pub const DB_DRAWN: &[&str] = &[
    "paranoid_checks",
    "max_total_wal_size",
    "max_background_jobs",
    "max_background_compactions",
    "max_background_flushes",
    "delayed_write_rate",
    "block_cache_size",
    "max_open_files",
    "wal_recovery_mode",
    "statistics",
    "max_subcompactions",
    "rate_limiter_bytes_per_sec",
    "rate_limiter_refill_period_us",
    "rate_limiter_auto_tuned",
    "bytes_per_sync",
    "wal_bytes_per_sync",
    "use_direct_reads",
    "allow_mmap_reads",
    "advise_random_on_open",
    "use_direct_io_for_flush_and_compaction",
    "compaction_readahead_size",
    "blob_cache_size",
    "compaction_cpu_priority",
    "enable_write_thread_adaptive_yield",
    "write_thread_max_yield_usec",
];

/// The per-family engine options the drawer draws (each family its own).
pub const FAMILY_DRAWN: &[&str] = &[
    "write_buffer_size",
    "arena_block_size",
    "max_write_buffer_number",
    "min_write_buffer_number_to_merge",
    "num_levels",
    "level0_file_num_compaction_trigger",
    "level0_slowdown_writes_trigger",
    "level0_stop_writes_trigger",
    "max_bytes_for_level_base",
    "max_bytes_for_level_multiplier",
    "max_bytes_for_level_multiplier_additional",
    "target_file_size_base",
    "target_file_size_multiplier",
    "max_compaction_bytes",
    "level_compaction_dynamic_file_size",
    "soft_pending_compaction_bytes_limit",
    "hard_pending_compaction_bytes_limit",
    "compaction_style",
    "compaction_pri",
    "disable_auto_compactions",
    "compaction_options_universal",
    "compaction_options_fifo",
    "ttl",
    "level_compaction_dynamic_level_bytes",
    "compression",
    "compression_per_level",
    "block_size",
    "block_restart_interval",
    "data_block_index_type",
    "data_block_hash_table_util_ratio",
    "enable_index_compression",
    "bloom_bits_per_key",
    "enable_blob_files",
    "min_blob_size",
    "blob_file_size",
    "blob_compression_type",
    "enable_blob_garbage_collection",
    "blob_garbage_collection_age_cutoff",
    "blob_garbage_collection_force_threshold",
    "blob_compaction_readahead_size",
    "blob_file_starting_level",
    "prepopulate_blob_cache",
    "merge_operator",
    "max_auto_readahead_size",
    "initial_auto_readahead_size",
    "num_file_reads_for_auto_readahead",
    "read_sampling_multiplier",
    "read_compaction_rate",
    "memtable_prefix_bloom_size_ratio",
    "memtable_whole_key_filtering",
];

/// The drawn options a reopen keeps: RocksDB does not allow the change
/// across a reopen (style, levels), or the verifier depends on them (TTL,
/// merge operator). Every other drawn option may change at a reopen.
pub const FIXED_PER_SET: &[&str] = &[
    "num_levels",
    "compaction_style",
    "ttl",
    "level_compaction_dynamic_level_bytes",
    "merge_operator",
];

/// The engine options the drawer leaves at the tool's values, and why
/// (checked against the engine's list by a test).
#[cfg(test)]
pub const NOT_DRAWN: &[(&str, &str)] = &[
    ("create_if_missing", "the tool creates the DB"),
    (
        "create_missing_column_families",
        "the tool sets it with several families",
    ),
    ("error_if_exists", "every reopen opens the existing DB"),
    ("stats_dump_period_sec", "only writes the info LOG"),
    ("keep_log_file_num", "only rotates the info LOG"),
];

/// The workload flags an option set draws (they override the same flags
/// given on the command line).
pub const DRAWN_FLAGS: &[&str] = &[
    "--column-families",
    "--drop-cf-one-in",
    "--sync",
    "--disable-wal",
    "--flush-one-in",
    "--compact-one-in",
    "--batch-size",
    "--threads",
    "--keys",
    "--value-size-max",
    "--checkpoint-one-in",
];

/// The operation mix's flags, which an option set draws too.
pub const MIX_FLAGS: [&str; 8] = [
    "--puts",
    "--deletes",
    "--batches",
    "--gets",
    "--scans",
    "--snapshots",
    "--merges",
    "--range-deletes",
];

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;

/// One option set: DB-wide options, each family's options ("default"
/// first) and the workload flags.
#[derive(Clone, Debug, PartialEq)]
pub struct OptionSet {
    /// The seed it was drawn from.
    pub seed: u64,
    /// DB-wide options.
    pub db: OptionMap,
    /// Per-family options, "default" first.
    pub families: Vec<OptionMap>,
    /// Workload flags and their values.
    pub flags: Vec<(&'static str, String)>,
}

fn join(maps: &[&OptionMap]) -> String {
    maps.iter()
        .flat_map(|m| m.iter())
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(";")
}

impl OptionSet {
    /// `--options`: the DB-wide options and those of "default".
    pub fn options_string(&self) -> String {
        join(&[&self.db, &self.families[0]])
    }

    /// The strata stress flags that run this set (`--options`, one
    /// `--family-options` per family after "default", the workload flags).
    pub fn args(&self) -> Vec<String> {
        let mut a = vec!["--options".to_string(), self.options_string()];
        for f in &self.families[1..] {
            a.push("--family-options".into());
            a.push(join(&[f]));
        }
        for (flag, v) in &self.flags {
            a.push((*flag).to_string());
            a.push(v.clone());
        }
        a
    }

    /// The column families' count.
    #[cfg(test)]
    pub fn column_families(&self) -> usize {
        self.families.len()
    }
}

/// `items[i]` with weight `w[i]`.
fn pick<T: Clone>(rng: &mut Rng, items: &[(u64, T)]) -> T {
    let total: u64 = items.iter().map(|(w, _)| w).sum();
    let mut r = rng.below(total);
    for (w, t) in items {
        if r < *w {
            return t.clone();
        }
        r -= w;
    }
    items[items.len() - 1].1.clone()
}

/// One of `items`, uniformly, as text.
fn one<T: ToString>(rng: &mut Rng, items: &[T]) -> String {
    items[rng.below(items.len() as u64) as usize].to_string()
}

fn coin(rng: &mut Rng) -> String {
    one(rng, &[false, true])
}

/// What a value's draw depends on besides the RNG.
#[derive(Clone, Copy)]
pub struct Context {
    /// The file system of the DB takes O_DIRECT.
    pub direct_io: bool,
}

/// A value for the engine option `name` (one of [`DB_DRAWN`] and
/// [`FAMILY_DRAWN`]).
fn draw_value(name: &str, rng: &mut Rng, ctx: Context) -> String {
    match name {
        "paranoid_checks"
        | "statistics"
        | "rate_limiter_auto_tuned"
        | "allow_mmap_reads"
        | "advise_random_on_open"
        | "level_compaction_dynamic_file_size"
        | "enable_index_compression"
        | "enable_blob_garbage_collection"
        | "level_compaction_dynamic_level_bytes" => coin(rng),
        "use_direct_reads" | "use_direct_io_for_flush_and_compaction" => {
            (ctx.direct_io && rng.below(3) == 0).to_string()
        }
        "max_total_wal_size" => one(rng, &[0, 64 * KIB, MIB]),
        "max_background_jobs" => one(rng, &[1, 2, 4, 8]),
        "max_background_compactions" => one(rng, &[-1, -1, 1, 4]),
        "max_background_flushes" => one(rng, &[-1, -1, 0, 1]),
        "delayed_write_rate" => one(rng, &[MIB, 16 * MIB]),
        "block_cache_size" => one(rng, &[0, 64 * KIB, MIB, 8 * MIB]),
        "max_open_files" => one(rng, &[-1, -1, 20, 100]),
        "wal_recovery_mode" => one(
            rng,
            &[
                "kPointInTimeRecovery",
                "kTolerateCorruptedTailRecords",
                "kSkipAnyCorruptedRecords",
            ],
        ),
        "max_subcompactions" => one(rng, &[1, 1, 2, 4]),
        "rate_limiter_bytes_per_sec" => one(rng, &[0, 0, 4 * MIB, 64 * MIB]),
        "rate_limiter_refill_period_us" => one(rng, &[10_000, 100_000]),
        "bytes_per_sync" | "wal_bytes_per_sync" => one(rng, &[0, 0, 64 * KIB]),
        "compaction_readahead_size" => one(rng, &[0, 64 * KIB, 2 * MIB]),
        "blob_cache_size" => one(rng, &[0, 0, MIB]),
        "compaction_cpu_priority" => one(rng, &["kNormal", "kLow", "kIdle"]),
        "enable_write_thread_adaptive_yield" => coin(rng),
        "write_thread_max_yield_usec" => one(rng, &[0, 100, 100, 10_000]),
        "max_auto_readahead_size" => one(rng, &[0, 8 * KIB, 256 * KIB]),
        "initial_auto_readahead_size" => one(rng, &[4 * KIB, 8 * KIB, 64 * KIB]),
        "num_file_reads_for_auto_readahead" => one(rng, &[0, 2, 2]),
        "read_sampling_multiplier" => one(rng, &[-1, -1, 0, 16]),
        "read_compaction_rate" => one(rng, &[1, 1000, 16_000]),
        "memtable_prefix_bloom_size_ratio" => one(rng, &["0", "0.002", "0.02", "0.25"]),
        "memtable_whole_key_filtering" => coin(rng),
        "write_buffer_size" => one(rng, &[16 * KIB, 64 * KIB, 256 * KIB, MIB]),
        "arena_block_size" => one(rng, &[0, 0, 4096]),
        "max_write_buffer_number" => one(rng, &[2, 3, 4]),
        "min_write_buffer_number_to_merge" => one(rng, &[1, 1, 2]),
        "num_levels" => one(rng, &[3, 4, 7, 7]),
        "level0_file_num_compaction_trigger" => one(rng, &[2, 4, 8]),
        "level0_slowdown_writes_trigger" => one(rng, &[12, 20]),
        "level0_stop_writes_trigger" => one(rng, &[24, 36]),
        "max_bytes_for_level_base" => one(rng, &[64 * KIB, 256 * KIB, MIB]),
        "max_bytes_for_level_multiplier" => one(rng, &["2", "4", "10"]),
        "max_bytes_for_level_multiplier_additional" => one(rng, &["", "", "1:2:1"]),
        "target_file_size_base" => one(rng, &[16 * KIB, 64 * KIB, 256 * KIB]),
        "target_file_size_multiplier" => one(rng, &[1, 2]),
        "max_compaction_bytes" => one(rng, &[0, 0, 256 * KIB]),
        "soft_pending_compaction_bytes_limit" => one(rng, &[64 << 30, MIB]),
        "hard_pending_compaction_bytes_limit" => one(rng, &[256 << 30, 8 * MIB]),
        "compaction_style" => pick(
            rng,
            &[
                (5, "kCompactionStyleLevel"),
                (3, "kCompactionStyleUniversal"),
                (2, "kCompactionStyleFIFO"),
            ],
        )
        .to_string(),
        "compaction_pri" => one(
            rng,
            &[
                "kByCompensatedSize",
                "kOldestLargestSeqFirst",
                "kOldestSmallestSeqFirst",
                "kMinOverlappingRatio",
            ],
        ),
        "disable_auto_compactions" => (rng.below(10) == 0).to_string(),
        "compaction_options_universal" => {
            let min = 2 + rng.below(3);
            let max = pick(rng, &[(1, min), (1, min + 2), (2, u64::from(u32::MAX))]);
            format!(
                "{{size_ratio={};min_merge_width={min};max_merge_width={max};max_size_amplification_percent={};allow_trivial_move={}}}",
                one(rng, &[1, 10, 50]),
                one(rng, &[25, 200]),
                coin(rng)
            )
        }
        "compaction_options_fifo" => format!(
            "{{max_table_files_size={};allow_compaction={}}}",
            1u64 << 30,
            coin(rng)
        ),
        // The verifier has no rule for data that expires: no short TTL.
        "ttl" => one(rng, &[strata::DEFAULT_TTL, 0]),
        "compression" | "blob_compression_type" => one(
            rng,
            &[
                "kNoCompression",
                "kSnappyCompression",
                "kLZ4Compression",
                "kZSTD",
            ],
        ),
        // Half the sets keep `compression` for every level; the others
        // give one to four levels their own, so that trivial moves meet
        // levels whose compression differs.
        "compression_per_level" => {
            let names = [
                "kNoCompression",
                "kSnappyCompression",
                "kLZ4Compression",
                "kZSTD",
            ];
            let n = match rng.below(2) {
                0 => 0,
                _ => 1 + rng.below(4),
            };
            (0..n)
                .map(|_| one(rng, &names))
                .collect::<Vec<_>>()
                .join(":")
        }
        "block_size" => one(rng, &[256, 1024, 4096, 16384]),
        "block_restart_interval" => one(rng, &[1, 4, 16]),
        "data_block_index_type" => one(rng, &["kDataBlockBinarySearch", "kDataBlockBinaryAndHash"]),
        "data_block_hash_table_util_ratio" => one(rng, &["0.75", "0.2", "4"]),
        "bloom_bits_per_key" => one(rng, &["0", "0", "2", "10", "16.5"]),
        "enable_blob_files" => (rng.below(3) == 0).to_string(),
        "min_blob_size" => one(rng, &[0, 64, 200]),
        "blob_file_size" => one(rng, &[64 * KIB, MIB]),
        "blob_garbage_collection_age_cutoff" => one(rng, &["0.25", "0.5", "1"]),
        "blob_garbage_collection_force_threshold" => one(rng, &["1", "0.5"]),
        "blob_compaction_readahead_size" => one(rng, &[0, 64 * KIB]),
        "blob_file_starting_level" => one(rng, &[0, 0, 1, 2]),
        "prepopulate_blob_cache" => one(rng, &["kDisable", "kFlushOnly"]),
        // Each operator with a rule in `codec.rs` gets merges.
        "merge_operator" => one(rng, &["nullptr", "put", "uint64add", "stringappend"]),
        other => unreachable!("{other} is not drawn"),
    }
}

/// Makes a drawn family's options a combination the engine accepts:
/// FIFO keeps no blob files and no TTL but its default; read-triggered
/// compaction runs under leveled compaction only; the memtables to merge
/// stay below the memtables kept; a memtable filter filters whole keys
/// (Strata has no prefix extractor).
pub fn fix_up(fam: &mut OptionMap) {
    let get = |m: &OptionMap, k: &str| m.get(k).cloned().unwrap_or_default();
    if get(fam, "compaction_style") != "kCompactionStyleLevel" {
        fam.insert("read_sampling_multiplier", "-1".into());
    }
    if get(fam, "compaction_style") == "kCompactionStyleFIFO" {
        fam.insert("enable_blob_files", "false".into());
    } else {
        // TTL compactions exist for FIFO only: the default or none.
        fam.insert("ttl", strata::DEFAULT_TTL.to_string());
    }
    let max: u64 = get(fam, "max_write_buffer_number").parse().unwrap_or(2);
    let merge: u64 = get(fam, "min_write_buffer_number_to_merge")
        .parse()
        .unwrap_or(1);
    if merge >= max {
        fam.insert("min_write_buffer_number_to_merge", (max - 1).to_string());
    }
    if get(fam, "memtable_whole_key_filtering") != "true" {
        fam.insert("memtable_prefix_bloom_size_ratio", "0".into());
    }
}

/// The smallest block cache drawn with `use_direct_reads`.
const DIRECT_READS_MIN_CACHE: u64 = 8 * MIB;

/// Keeps the DB-wide options from a combination too slow to run: direct
/// reads (no page cache) with a block cache under
/// [`DIRECT_READS_MIN_CACHE`] read every block of every table from the
/// device again, and a verification over a hundred FIFO L0 tables of
/// 256-byte blocks took minutes; with a table cache smaller than the
/// tables (`max_open_files`), every read opens tables again, each open
/// reading footer, index and filter from the device, and a verification
/// over a hundred universal L0 tables with 20 open files ran for tens of
/// minutes. So direct reads keep every table open (-1).
pub fn fix_up_db(db: &mut OptionMap) {
    if db.get("use_direct_reads").map(String::as_str) == Some("true") {
        db.insert("max_open_files", "-1".to_string());
    }
    let cache: u64 = db
        .get("block_cache_size")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    if db.get("use_direct_reads").map(String::as_str) == Some("true")
        && cache < DIRECT_READS_MIN_CACHE
    {
        db.insert("block_cache_size", DIRECT_READS_MIN_CACHE.to_string());
    }
}

/// Draws every option of `scope` whose name passes `which`, into `map`.
fn draw_scope(
    map: &mut OptionMap,
    scope: Scope,
    rng: &mut Rng,
    ctx: Context,
    which: impl Fn(bool) -> bool,
) {
    let names = match scope {
        Scope::Db => DB_DRAWN,
        Scope::Family => FAMILY_DRAWN,
    };
    for &name in names {
        if which(!FIXED_PER_SET.contains(&name)) {
            let v = draw_value(name, rng, ctx);
            map.insert(name, v);
        }
    }
}

/// The workload flags of a set with `families` column families.
fn draw_flags(rng: &mut Rng, families: usize) -> Vec<(&'static str, String)> {
    let disable_wal = rng.below(5) == 0;
    let sync = !disable_wal && rng.below(4) == 0;
    let mut f = vec![
        ("--column-families", families.to_string()),
        ("--sync", u8::from(sync).to_string()),
        ("--disable-wal", u8::from(disable_wal).to_string()),
        ("--flush-one-in", one(rng, &[200, 2000, 10_000])),
        ("--compact-one-in", one(rng, &[0, 1000, 10_000])),
        ("--checkpoint-one-in", one(rng, &[0, 0, 5000, 50_000])),
        ("--batch-size", one(rng, &[1, 4, 16])),
        ("--threads", one(rng, &[1, 2, 4])),
        ("--keys", one(rng, &[500, 2000, 10_000])),
        ("--value-size-max", one(rng, &[64, 256, 1024])),
    ];
    if families > 1 {
        f.push(("--drop-cf-one-in", one(rng, &[0, 2000, 10_000])));
    }
    let mix: [u32; 8] = pick(
        rng,
        &[
            (2, [35, 10, 10, 25, 10, 10, 5, 2]),
            (1, [60, 20, 10, 5, 3, 2, 0, 0]),
            (1, [10, 5, 5, 50, 20, 10, 10, 1]),
            (1, [30, 5, 10, 20, 10, 5, 15, 5]),
        ],
    );
    for (flag, w) in MIX_FLAGS.into_iter().zip(mix) {
        f.push((flag, w.to_string()));
    }
    f
}

/// The option set of `seed`.
pub fn draw(seed: u64, ctx: Context) -> OptionSet {
    let mut rng = Rng::new(seed);
    let mut db = OptionMap::new();
    draw_scope(&mut db, Scope::Db, &mut rng, ctx, |_| true);
    fix_up_db(&mut db);
    let families = pick(&mut rng, &[(3, 1usize), (1, 2), (1, 3), (1, 4)]);
    let fams = (0..families)
        .map(|_| {
            let mut m = OptionMap::new();
            draw_scope(&mut m, Scope::Family, &mut rng, ctx, |_| true);
            fix_up(&mut m);
            m
        })
        .collect();
    let flags = draw_flags(&mut rng, families);
    OptionSet {
        seed,
        db,
        families: fams,
        flags,
    }
}

/// The options of reopen `k` of `set` (reopen 0: the set itself): each
/// option a reopen may change is drawn again with probability 1/3; the
/// others, the families and the workload flags stay.
pub fn reopen(set: &OptionSet, k: u64, ctx: Context) -> OptionSet {
    if k == 0 {
        return set.clone();
    }
    let mut rng = Rng::new(mix64(set.seed) ^ mix64(k));
    let mut out = set.clone();
    let maps = std::iter::once((&mut out.db, Scope::Db))
        .chain(out.families.iter_mut().map(|m| (m, Scope::Family)));
    for (map, scope) in maps {
        let mut redraw = OptionMap::new();
        draw_scope(&mut redraw, scope, &mut rng, ctx, |r| r);
        for (name, v) in redraw {
            if rng.below(3) == 0 {
                map.insert(name, v);
            }
        }
        match scope {
            Scope::Family => fix_up(map),
            Scope::Db => fix_up_db(map),
        }
    }
    out
}

/// The seed of the option set after the one of `seed`: a chain, so that
/// `--seed` of any set's seed runs that set first.
pub fn next_seed(seed: u64) -> u64 {
    mix64(seed ^ 0x5eed_5e75)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    const CTX: Context = Context { direct_io: true };

    /// The engine options of family `f` of `s` as `strata stress` opens
    /// them.
    fn family_options(s: &OptionSet, f: usize) -> strata::Options {
        let mut text = s.options_string();
        if f > 0 {
            text = format!("{text};{}", join(&[&s.families[f]]));
        }
        text.parse()
            .unwrap_or_else(|e| panic!("seed {}: {text}: {e}", s.seed))
    }

    fn assert_valid(s: &OptionSet) {
        for f in 0..s.column_families() {
            let o = family_options(s, f);
            o.validate()
                .unwrap_or_else(|e| panic!("seed {} family {f}: {e}: {o}", s.seed));
        }
    }

    #[test]
    fn a_seed_always_draws_the_same_set_and_reopens() {
        for seed in [1, 2, 99, u64::MAX] {
            assert_eq!(draw(seed, CTX), draw(seed, CTX));
            let s = draw(seed, CTX);
            assert_eq!(reopen(&s, 3, CTX), reopen(&s, 3, CTX));
            assert_eq!(reopen(&s, 0, CTX), s);
        }
        assert_ne!(draw(1, CTX), draw(2, CTX));
    }

    /// 1,000 sets and five reopens of each: the engine accepts every
    /// family's options, and a reopen changes only what may change.
    #[test]
    fn a_thousand_draws_and_their_reopens_are_valid() {
        let mut seed = 7;
        for _ in 0..1000 {
            let s = draw(seed, CTX);
            assert_valid(&s);
            for k in 1..=5 {
                let r = reopen(&s, k, CTX);
                assert_valid(&r);
                if r.db["use_direct_reads"] == "true" {
                    let cache: u64 = r.db["block_cache_size"].parse().unwrap();
                    assert!(cache >= DIRECT_READS_MIN_CACHE, "seed {seed} reopen {k}");
                    assert_eq!(r.db["max_open_files"], "-1", "seed {seed} reopen {k}");
                }
                assert_eq!(r.flags, s.flags);
                for (a, b) in r.families.iter().zip(&s.families) {
                    for name in FIXED_PER_SET {
                        assert_eq!(a.get(name), b.get(name), "{name} changed on reopen");
                    }
                }
            }
            seed = next_seed(seed);
        }
    }

    /// Every engine option is drawn or named as not drawn, once, so that a
    /// new option of the engine's declaration needs a decision here.
    #[test]
    fn every_engine_option_is_drawn_or_named_as_not_drawn() {
        let engine: BTreeSet<&str> = strata::Options::default()
            .to_pairs()
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        let mut ours: Vec<&str> = [DB_DRAWN, FAMILY_DRAWN].concat();
        ours.extend(NOT_DRAWN.iter().map(|d| d.0));
        let set: BTreeSet<&str> = ours.iter().copied().collect();
        assert_eq!(set.len(), ours.len(), "an option is listed twice");
        assert_eq!(set, engine);
    }

    /// Over many draws every style, feature and flag value the drawer
    /// knows shows up, and every drawn option takes more than one value.
    #[test]
    fn many_draws_cover_every_style_and_feature() {
        let mut seen: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        let mut seed = 11;
        for _ in 0..500 {
            let s = reopen(&draw(seed, CTX), 1, CTX);
            for m in std::iter::once(&s.db).chain(&s.families) {
                for (k, v) in m {
                    seen.entry((*k).to_string()).or_default().insert(v.clone());
                }
            }
            for (k, v) in &s.flags {
                seen.entry((*k).to_string()).or_default().insert(v.clone());
            }
            seen.entry("families".into())
                .or_default()
                .insert(s.column_families().to_string());
            let styles: BTreeSet<&String> =
                s.families.iter().map(|f| &f["compaction_style"]).collect();
            if styles.len() > 1 {
                seen.entry("mixed styles".into())
                    .or_default()
                    .insert("yes".into());
            }
            seed = next_seed(seed);
        }
        for name in [DB_DRAWN, FAMILY_DRAWN].concat() {
            assert!(
                seen[name].len() > 1,
                "{name} took one value: {:?}",
                seen[name]
            );
        }
        for style in [
            "kCompactionStyleLevel",
            "kCompactionStyleUniversal",
            "kCompactionStyleFIFO",
        ] {
            assert!(seen["compaction_style"].contains(style), "{style}");
        }
        for (name, value) in [
            ("enable_blob_files", "true"),
            ("enable_blob_garbage_collection", "true"),
            ("use_direct_reads", "true"),
            ("use_direct_io_for_flush_and_compaction", "true"),
            ("memtable_prefix_bloom_size_ratio", "0.02"),
            ("merge_operator", "uint64add"),
            ("merge_operator", "put"),
            ("merge_operator", "stringappend"),
            ("--range-deletes", "5"),
            ("--disable-wal", "1"),
            ("--sync", "1"),
            ("families", "4"),
            ("mixed styles", "yes"),
        ] {
            assert!(seen[name].contains(value), "{name}={value} never drawn");
        }
        for flag in DRAWN_FLAGS.iter().chain(&MIX_FLAGS) {
            assert!(seen.contains_key(*flag), "{flag} never drawn");
        }
    }

    /// Without O_DIRECT (tmpfs), no set asks for direct I/O.
    #[test]
    fn no_direct_io_where_the_file_system_refuses_it() {
        let ctx = Context { direct_io: false };
        let mut seed = 5;
        for _ in 0..200 {
            let s = reopen(&draw(seed, ctx), 2, ctx);
            assert_eq!(s.db["use_direct_reads"], "false");
            assert_eq!(s.db["use_direct_io_for_flush_and_compaction"], "false");
            seed = next_seed(seed);
        }
    }
}
