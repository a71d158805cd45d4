//! The option sets a sequence runs under: drawn at random, kept only when
//! [`Options::validate`] accepts them.

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use strata::{Options, WriteOptions};

/// One option set: the DB's options as an option string, and the write
/// options of every write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionSet {
    /// The options, in RocksDB's option-string syntax.
    pub options: String,
    /// Writes skip the WAL (`disable_wal`): a reopen then keeps them only
    /// because `close` flushes them.
    pub disable_wal: bool,
    /// Writes are synced (`sync`; never with `disable_wal`).
    pub sync: bool,
}

/// What every option set has: the merge operator the model follows and the
/// families the runner opens.
const ALWAYS: &str = "merge_operator=stringappend;create_missing_column_families=true";

impl OptionSet {
    /// The first option set of every sequence: small buffers so that
    /// flushes and compactions happen, everything else the default.
    pub fn baseline() -> OptionSet {
        OptionSet {
            options: "write_buffer_size=65536;target_file_size_base=65536;\
                      max_bytes_for_level_base=262144;level0_file_num_compaction_trigger=2"
                .into(),
            disable_wal: false,
            sync: false,
        }
    }

    /// The DB's options.
    ///
    /// # Panics
    /// When the option string does not parse (a drawn set always does).
    pub fn db_options(&self) -> Options {
        format!("{ALWAYS};{}", self.options)
            .parse()
            .unwrap_or_else(|e| panic!("options {:?}: {e}", self.options))
    }

    /// The write options of every write.
    pub fn write_options(&self) -> WriteOptions {
        WriteOptions::default()
            .disable_wal(self.disable_wal)
            .sync(self.sync)
    }

    /// Whether the DB needs a directory on a disk: O_DIRECT, which tmpfs
    /// may refuse.
    pub fn needs_disk(&self) -> bool {
        self.options.contains("use_direct_reads=true")
            || self
                .options
                .contains("use_direct_io_for_flush_and_compaction=true")
    }

    /// Option set `i` of sequence `seed`: [`OptionSet::baseline`] for 0,
    /// else drawn from `(seed, i)` until [`Options::validate`] accepts it.
    pub fn draw(seed: u64, i: u64) -> OptionSet {
        if i == 0 {
            return OptionSet::baseline();
        }
        let mut rng = StdRng::seed_from_u64(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ i);
        loop {
            let set = draw_one(&mut rng);
            if set.db_options().validate().is_ok() {
                return set;
            }
        }
    }
}

/// One of `choices`, as `name=choice`.
fn one(rng: &mut StdRng, name: &str, choices: &[&str]) -> String {
    format!("{name}={}", choices.choose(rng).expect("choices"))
}

/// Pushes `name=<one of choices>` onto `o` half the time.
fn maybe(rng: &mut StdRng, o: &mut Vec<String>, name: &str, choices: &[&str]) {
    if rng.gen_bool(0.5) {
        o.push(one(rng, name, choices));
    }
}

/// Each option is left at its default half the time, else drawn from
/// values that change what the engine does with a few hundred operations:
/// tiny buffers and files (so flushes and compactions happen), small
/// blocks, every compression, filters, blob files, no caches or small
/// ones, file reads by map, by `pread` and O_DIRECT, subcompactions.
fn draw_one(rng: &mut StdRng) -> OptionSet {
    let mut o: Vec<String> = Vec::new();
    let style = [
        "kCompactionStyleLevel",
        "kCompactionStyleLevel",
        "kCompactionStyleUniversal",
        "kCompactionStyleFIFO",
    ]
    .choose(rng)
    .copied()
    .expect("styles");
    o.push(format!("compaction_style={style}"));
    maybe(
        rng,
        &mut o,
        "write_buffer_size",
        &["4096", "8192", "32768", "65536", "1048576"],
    );
    maybe(rng, &mut o, "max_write_buffer_number", &["2", "3", "5"]);
    maybe(rng, &mut o, "arena_block_size", &["4096", "65536"]);
    maybe(
        rng,
        &mut o,
        "target_file_size_base",
        &["4096", "16384", "65536"],
    );
    maybe(
        rng,
        &mut o,
        "max_bytes_for_level_base",
        &["16384", "65536", "262144"],
    );
    maybe(
        rng,
        &mut o,
        "max_bytes_for_level_multiplier",
        &["2", "4", "10"],
    );
    maybe(
        rng,
        &mut o,
        "level0_file_num_compaction_trigger",
        &["1", "2", "4"],
    );
    maybe(rng, &mut o, "level0_slowdown_writes_trigger", &["4", "20"]);
    maybe(rng, &mut o, "num_levels", &["2", "3", "4", "7"]);
    maybe(
        rng,
        &mut o,
        "level_compaction_dynamic_level_bytes",
        &["true"],
    );
    maybe(
        rng,
        &mut o,
        "level_compaction_dynamic_file_size",
        &["false"],
    );
    maybe(
        rng,
        &mut o,
        "compaction_pri",
        &[
            "kByCompensatedSize",
            "kOldestLargestSeqFirst",
            "kOldestSmallestSeqFirst",
        ],
    );
    maybe(rng, &mut o, "max_compaction_bytes", &["16384", "1048576"]);
    maybe(rng, &mut o, "disable_auto_compactions", &["true"]);
    maybe(
        rng,
        &mut o,
        "compression",
        &[
            "kNoCompression",
            "kSnappyCompression",
            "kLZ4Compression",
            "kZSTD",
        ],
    );
    maybe(rng, &mut o, "enable_index_compression", &["false"]);
    maybe(rng, &mut o, "block_size", &["64", "256", "1024", "16384"]);
    maybe(rng, &mut o, "block_restart_interval", &["1", "2", "8"]);
    maybe(
        rng,
        &mut o,
        "data_block_index_type",
        &["kDataBlockBinaryAndHash"],
    );
    maybe(
        rng,
        &mut o,
        "data_block_hash_table_util_ratio",
        &["0.1", "4"],
    );
    maybe(rng, &mut o, "bloom_bits_per_key", &["1", "10"]);
    maybe(rng, &mut o, "block_cache_size", &["0", "4096", "65536"]);
    maybe(rng, &mut o, "max_open_files", &["20", "100"]);
    maybe(rng, &mut o, "allow_mmap_reads", &["false"]);
    maybe(rng, &mut o, "advise_random_on_open", &["false"]);
    maybe(rng, &mut o, "compaction_readahead_size", &["0", "4096"]);
    maybe(rng, &mut o, "max_subcompactions", &["2", "4"]);
    maybe(rng, &mut o, "max_background_jobs", &["1", "4"]);
    maybe(rng, &mut o, "paranoid_checks", &["false"]);
    if style != "kCompactionStyleFIFO" && rng.gen_bool(0.3) {
        o.push("enable_blob_files=true".into());
        maybe(rng, &mut o, "min_blob_size", &["0", "20", "1000"]);
        maybe(rng, &mut o, "blob_file_size", &["4096", "65536"]);
        maybe(
            rng,
            &mut o,
            "blob_compression_type",
            &["kSnappyCompression", "kZSTD"],
        );
        maybe(rng, &mut o, "enable_blob_garbage_collection", &["true"]);
        maybe(
            rng,
            &mut o,
            "blob_garbage_collection_age_cutoff",
            &["0.5", "1.0"],
        );
        maybe(
            rng,
            &mut o,
            "blob_garbage_collection_force_threshold",
            &["0.5"],
        );
        maybe(rng, &mut o, "blob_file_starting_level", &["1"]);
        maybe(rng, &mut o, "blob_cache_size", &["4096", "1048576"]);
        maybe(rng, &mut o, "prepopulate_blob_cache", &["kFlushOnly"]);
    }
    if rng.gen_bool(0.1) {
        o.push("use_direct_reads=true".into());
    }
    if rng.gen_bool(0.1) {
        o.push("use_direct_io_for_flush_and_compaction=true".into());
    }
    maybe(
        rng,
        &mut o,
        "memtable_prefix_bloom_size_ratio",
        &["0", "0.002", "0.25"],
    );
    let disable_wal = rng.gen_bool(0.25);
    let sync = !disable_wal && rng.gen_bool(0.1);
    OptionSet {
        options: o.join(";"),
        disable_wal,
        sync,
    }
}
