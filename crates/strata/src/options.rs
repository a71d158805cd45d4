//! Options, named as RocksDB names them.
//!
//! [`Options`] is a plain struct; each field documents its default, unit and
//! trade-off. It prints to and parses from RocksDB's option-string syntax
//! (`write_buffer_size=65536;compression=kNoCompression`), the same text the
//! `OPTIONS-NNNNNN` file holds (see `docs/formats/options.md`). Option names
//! of features this build does not implement are rejected by name.
//!
//! Every option is one entry of the declaration in `options/list.rs`
//! (`options/declare.rs` says what the entry generates); the option string
//! is in `options/parse.rs`, how each type of value reads and prints in
//! `options/value.rs` and `options/nested.rs`. This file holds what the
//! engine derives from the options and checks in them.

mod declare;
mod enums;
mod list;
mod nested;
mod parse;
mod read_write;
mod value;

pub use enums::{
    CompactionPri, CompactionStyle, CpuPriority, DataBlockIndexType, PrepopulateBlobCache,
};
pub use list::Options;
pub use read_write::{ReadOptions, WriteOptions};

use std::fmt;

use crate::compaction::policy::CompactionPolicy;
use crate::error::{Error, Result};
use declare::{count_in_scope, names_in_scope, OptionScope};

/// The largest `max_background_jobs` and `max_background_compactions`:
/// the engine starts a thread for each compaction that may run at once.
pub const MAX_BACKGROUND_JOBS: usize = 1024;

/// RocksDB's `kDefaultTtl` (0xfffffffffffffffe): `ttl` left for the
/// engine to choose ([`Options::effective_ttl`]).
pub const DEFAULT_TTL: u64 = 0xffff_ffff_ffff_fffe;

/// The names of the DB-wide options (declared `DbWide`), in declaration
/// order.
pub(crate) const DB_WIDE_OPTION_NAMES: &[&str] = &names_in_scope::<
    { count_in_scope(Options::SPECS, OptionScope::DbWide) },
>(Options::SPECS, OptionScope::DbWide);

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Options({self})")
    }
}

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

    /// Bytes of each memtable's key filter: `write_buffer_size` x
    /// `memtable_prefix_bloom_size_ratio` with `memtable_whole_key_filtering`,
    /// else 0 (no filter); at most 512 MiB (RocksDB's limit, 2^32 bits).
    pub fn memtable_filter_bytes(&self) -> usize {
        if !self.memtable_whole_key_filtering || self.memtable_prefix_bloom_size_ratio <= 0.0 {
            return 0;
        }
        ((self.write_buffer_size as f64 * self.memtable_prefix_bloom_size_ratio) as usize)
            .min(crate::memtable::filter::MAX_BYTES)
    }

    /// The TTL in seconds these options give: `ttl`, with [`DEFAULT_TTL`]
    /// resolved as RocksDB resolves it (30 days under FIFO) or, with the
    /// styles whose TTL compactions Strata lacks, to 0.
    pub fn effective_ttl(&self) -> u64 {
        match self.ttl {
            DEFAULT_TTL => CompactionPolicy::of(self).default_ttl(),
            t => t,
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
        let ratio = self.memtable_prefix_bloom_size_ratio;
        if !(0.0..=0.25).contains(&ratio) {
            return bad(format!(
                "memtable_prefix_bloom_size_ratio={ratio} is outside [0, 0.25]"
            ));
        }
        if ratio > 0.0 && !self.memtable_whole_key_filtering {
            return Err(Error::NotSupported(format!(
                "memtable_prefix_bloom_size_ratio={ratio} without memtable_whole_key_filtering: Strata has no prefix extractor, so its memtable filter is over whole keys only (a ratio of 0 turns it off)"
            )));
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
        let policy = CompactionPolicy::of(self);
        if self.ttl > 0 && self.ttl != DEFAULT_TTL && !policy.ttl_compactions() {
            return Err(Error::NotSupported(format!(
                "ttl={} with compaction_style={}: TTL compactions are implemented for FIFO only",
                self.ttl,
                self.compaction_style.name()
            )));
        }
        if self.read_sampling_multiplier < -1 {
            return bad(format!(
                "read_sampling_multiplier={} must be -1 (off) or at least 0",
                self.read_sampling_multiplier
            ));
        }
        if self.read_sampling_multiplier >= 0 && !policy.read_triggered_compactions() {
            return Err(Error::NotSupported(format!(
                "read_sampling_multiplier={} with compaction_style={}: read-triggered compactions are implemented for leveled compaction only",
                self.read_sampling_multiplier,
                self.compaction_style.name()
            )));
        }
        if self.read_compaction_rate == 0 {
            return bad("read_compaction_rate must be at least 1".into());
        }
        if self.enable_blob_files && !policy.blob_files() {
            return Err(Error::NotSupported(format!(
                "compaction_style={} with enable_blob_files: FIFO deletes tables whole, and Strata does not track the blob files they leave unreferenced",
                self.compaction_style.name()
            )));
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
        if !(self.data_block_hash_table_util_ratio > 0.0
            && self.data_block_hash_table_util_ratio.is_finite())
        {
            return bad(format!(
                "data_block_hash_table_util_ratio={} must be positive",
                self.data_block_hash_table_util_ratio
            ));
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
    fn a_memtable_filter_needs_whole_key_filtering_and_a_ratio_up_to_a_quarter() {
        let check = |s: &str| {
            s.parse::<Options>()
                .unwrap()
                .validate()
                .map_err(|e| e.to_string())
        };
        let e = check("memtable_whole_key_filtering=false").unwrap_err();
        assert!(
            e.contains(
                "memtable_prefix_bloom_size_ratio=0.02 without memtable_whole_key_filtering"
            ),
            "{e}"
        );
        check("memtable_whole_key_filtering=false;memtable_prefix_bloom_size_ratio=0").unwrap();
        for bad in ["0.3", "-0.1"] {
            let e = check(&format!("memtable_prefix_bloom_size_ratio={bad}")).unwrap_err();
            assert!(e.contains("outside [0, 0.25]"), "{e}");
        }
        let o: Options = "write_buffer_size=1048576;memtable_prefix_bloom_size_ratio=0.25"
            .parse()
            .unwrap();
        o.validate().unwrap();
        assert_eq!(o.memtable_filter_bytes(), 262_144);
        // Whole-key filtering with no bytes has no filter, as in RocksDB.
        let o: Options = "memtable_prefix_bloom_size_ratio=0".parse().unwrap();
        o.validate().unwrap();
        assert_eq!(o.memtable_filter_bytes(), 0);
        // The default: RocksDB's OptimizeForPointLookup values.
        assert_eq!(Options::default().memtable_filter_bytes(), 1_342_177);
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
