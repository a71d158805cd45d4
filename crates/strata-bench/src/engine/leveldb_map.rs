//! LevelDB's side of the option mapping, and what its LOG tells about
//! flushes and compactions. Plain Rust (no FFI), so it is tested whether or
//! not the LevelDB library was found at build time.
//!
//! LevelDB has none of db_bench's defaults: a flag that is not given leaves
//! LevelDB's own default; a given flag is applied when LevelDB has the
//! option, accepted when its value is what LevelDB does anyway (its fixed
//! level sizes and L0 triggers), and refused naming the flag otherwise.

use super::mapping::{given, unsupported, value};
use crate::options_map::OptionSetting;

/// LevelDB 1.23's compile-time constants and option defaults (`dbformat.h`,
/// `options.h`, `version_set.cc`).
pub mod fixed {
    /// `config::kNumLevels`.
    pub const NUM_LEVELS: u32 = 7;
    /// `config::kL0_CompactionTrigger`.
    pub const L0_COMPACTION_TRIGGER: u32 = 4;
    /// `config::kL0_SlowdownWritesTrigger`.
    pub const L0_SLOWDOWN_TRIGGER: u32 = 8;
    /// `config::kL0_StopWritesTrigger`.
    pub const L0_STOP_TRIGGER: u32 = 12;
    /// `MaxBytesForLevel(1)`: 10 MiB.
    pub const LEVEL1_BYTES: u64 = 10 * 1048576;
    /// Each level is 10 times the one above.
    pub const LEVEL_MULTIPLIER: u32 = 10;
    /// `Options::write_buffer_size`.
    pub const WRITE_BUFFER_SIZE: usize = 4 << 20;
    /// `Options::max_file_size`.
    pub const MAX_FILE_SIZE: usize = 2 << 20;
    /// `Options::block_size`.
    pub const BLOCK_SIZE: usize = 4096;
    /// `Options::block_restart_interval`.
    pub const BLOCK_RESTART_INTERVAL: i32 = 16;
    /// `Options::max_open_files`.
    pub const MAX_OPEN_FILES: i32 = 1000;
    /// The block cache LevelDB makes when given none.
    pub const CACHE_SIZE: usize = 8 << 20;
}

/// The LevelDB options a run asks for; `None` is LevelDB's default.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LevelDbConfig {
    /// `write_buffer_size` (`--write_buffer_size`).
    pub write_buffer_size: Option<usize>,
    /// `max_file_size` (`--target_file_size_base`).
    pub max_file_size: Option<usize>,
    /// `block_size` (`--block_size`).
    pub block_size: Option<usize>,
    /// `block_restart_interval` (`--block_restart_interval`).
    pub block_restart_interval: Option<i32>,
    /// Bloom filter bits per key (`--bloom_bits`; 0: no filter policy).
    pub bloom_bits: Option<i32>,
    /// Snappy (true) or none (`--compression_type`).
    pub snappy: Option<bool>,
    /// LRU block cache bytes (`--cache_size`; 0 caches nothing).
    pub cache_size: Option<usize>,
    /// `paranoid_checks` (`--paranoid_checks`).
    pub paranoid_checks: Option<bool>,
    /// `max_open_files` (`--open_files`).
    pub max_open_files: Option<i32>,
    /// Notes for the run's stderr (flags accepted with a caveat).
    pub notes: Vec<String>,
}

impl LevelDbConfig {
    /// One line per option: its value and where it comes from.
    pub fn describe(&self) -> String {
        fn show<T: std::fmt::Display>(name: &str, v: Option<T>, default: T) -> String {
            match v {
                Some(v) => format!("{name}={v}"),
                None => format!("{name}={default} (LevelDB default)"),
            }
        }
        [
            show(
                "write_buffer_size",
                self.write_buffer_size,
                fixed::WRITE_BUFFER_SIZE,
            ),
            show("max_file_size", self.max_file_size, fixed::MAX_FILE_SIZE),
            show("block_size", self.block_size, fixed::BLOCK_SIZE),
            show(
                "block_restart_interval",
                self.block_restart_interval,
                fixed::BLOCK_RESTART_INTERVAL,
            ),
            match self.bloom_bits {
                Some(b) if b > 0 => format!("filter_policy=NewBloomFilterPolicy({b})"),
                Some(_) => "filter_policy=none".into(),
                None => "filter_policy=none (LevelDB default)".into(),
            },
            show(
                "compression",
                self.snappy
                    .map(|s| if s { "snappy" } else { "none" }.to_string()),
                "snappy".into(),
            ),
            show("block_cache", self.cache_size, fixed::CACHE_SIZE),
            show("paranoid_checks", self.paranoid_checks, false),
            show("max_open_files", self.max_open_files, fixed::MAX_OPEN_FILES),
        ]
        .join(" ")
    }
}

/// Values of options LevelDB does not have that describe what it does
/// anyway: given with exactly these values, the flags are accepted.
pub fn fixed_equivalent(option: &str, value: &str) -> bool {
    let want: String = match option {
        "compaction_style" => "kCompactionStyleLevel".into(),
        "level_compaction_dynamic_level_bytes"
        | "disable_auto_compactions"
        | "enable_blob_files"
        | "use_direct_reads"
        | "use_direct_io_for_flush_and_compaction" => "false".into(),
        "num_levels" => fixed::NUM_LEVELS.to_string(),
        "level0_file_num_compaction_trigger" => fixed::L0_COMPACTION_TRIGGER.to_string(),
        "level0_slowdown_writes_trigger" => fixed::L0_SLOWDOWN_TRIGGER.to_string(),
        "level0_stop_writes_trigger" => fixed::L0_STOP_TRIGGER.to_string(),
        "max_bytes_for_level_base" => fixed::LEVEL1_BYTES.to_string(),
        "max_bytes_for_level_multiplier" => fixed::LEVEL_MULTIPLIER.to_string(),
        "max_subcompactions" | "max_background_jobs" => "1".into(),
        // LevelDB maps table files for reading (up to 1000 of them on a
        // 64-bit build, more than a run opens).
        "allow_mmap_reads" => "true".into(),
        // LevelDB always compacts the tables reads pass through (seek
        // compaction): a Get charges the first table it read for nothing,
        // iterators sample a key per 1 MB on average (16 x 64 KiB), and a
        // table allows one charge per 16 KiB.
        "read_sampling_multiplier" => "16".into(),
        "read_compaction_rate" => "16384".into(),
        // A LevelDB writer behind another waits on a condition variable,
        // never polling.
        "enable_write_thread_adaptive_yield" => "false".into(),
        // LevelDB binary searches its blocks' restart points (no hash index).
        "data_block_index_type" => "kDataBlockBinarySearch".into(),
        "data_block_hash_table_util_ratio" => "0.75".into(),
        // LevelDB searches its memtable for every Get (no filter over it).
        "memtable_prefix_bloom_size_ratio" => "0".into(),
        "memtable_whole_key_filtering" => "false".into(),
        _ => return false,
    };
    // `--max_bytes_for_level_multiplier=10.0` is 10 too.
    value == want
        || matches!(
            (value.parse::<f64>(), want.parse::<f64>()),
            (Ok(a), Ok(b)) if a == b
        )
}

/// Whether level `level` (1 to 5) is surely over LevelDB's byte limit,
/// given its size as `leveldb.stats` prints it: whole MB, rounded. A level
/// is due when it holds at least its limit, but a printed 10 is anything
/// from 9.5 to 10.5 MB, so only a size at least half a MB over the limit
/// counts; a level within half a MB of it is left to the file set's
/// stability check (a wait that counted it could never end once LevelDB,
/// reading the exact size, finds no compaction due).
pub fn level_over_limit(level: u32, size_mb_rounded: f64) -> bool {
    let limit_mb = (fixed::LEVEL1_BYTES as f64 / 1048576.0)
        * f64::from(fixed::LEVEL_MULTIPLIER).powi(level as i32 - 1);
    size_mb_rounded - 0.5 >= limit_mb
}

fn num<T: std::str::FromStr>(s: &OptionSetting) -> anyhow::Result<T> {
    value("LevelDB", s)
}

/// Maps the settings to LevelDB's options (see the module doc for the rule).
pub fn map_options(settings: &[OptionSetting]) -> anyhow::Result<LevelDbConfig> {
    let mut c = LevelDbConfig::default();
    for s in given("LevelDB", settings, &mut c.notes) {
        match s.option {
            "write_buffer_size" => c.write_buffer_size = Some(num(s)?),
            "target_file_size_base" => c.max_file_size = Some(num(s)?),
            "block_size" => c.block_size = Some(num(s)?),
            "block_restart_interval" => c.block_restart_interval = Some(num(s)?),
            "bloom_bits_per_key" => c.bloom_bits = Some(num(s)?),
            "compression" => {
                c.snappy = Some(match s.value.as_str() {
                    "kSnappyCompression" => true,
                    "kNoCompression" => false,
                    _ => {
                        return Err(unsupported(
                            "LevelDB",
                            s,
                            "LevelDB compresses with snappy or none",
                        ))
                    }
                })
            }
            "block_cache_size" => c.cache_size = Some(num(s)?),
            "paranoid_checks" => c.paranoid_checks = Some(s.value == "true"),
            "max_open_files" => {
                let n: i32 = num(s)?;
                if n <= 0 {
                    return Err(unsupported(
                        "LevelDB",
                        s,
                        "LevelDB needs a positive table-cache limit (its default is 1000)",
                    ));
                }
                c.max_open_files = Some(n);
            }
            "merge_operator" => {
                return Err(unsupported("LevelDB", s, "LevelDB has no merge operator"))
            }
            "delete_range" => return Err(unsupported("LevelDB", s, "LevelDB has no DeleteRange")),
            o if fixed_equivalent(o, &s.value) => {}
            _ => {
                return Err(unsupported(
                    "LevelDB",
                    s,
                    "LevelDB has no such option (or fixes it to another value)",
                ))
            }
        }
    }
    Ok(c)
}

/// Flush and compaction bytes read from a LevelDB `LOG`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LogBytes {
    /// Memtable flushes (`Level-0 table #N: B bytes OK`).
    pub flushes: u64,
    /// Bytes those flushes wrote.
    pub flush_bytes: u64,
    /// Compactions (`Compacted a@l + b@m files => B bytes`).
    pub compactions: u64,
    /// Bytes those compactions wrote.
    pub compaction_bytes: u64,
    /// Microseconds from each flush's `started` line to its `bytes OK`.
    pub flush_micros: u64,
    /// Microseconds from each `Compacting` line to its `Compacted`.
    pub compaction_micros: u64,
}

impl LogBytes {
    /// RocksDB's Compaction Stats W-Amp definition: (flush + compaction
    /// bytes written) / bytes flushed; `None` before the first flush.
    pub fn w_amp(&self) -> Option<f64> {
        (self.flush_bytes > 0)
            .then(|| (self.flush_bytes + self.compaction_bytes) as f64 / self.flush_bytes as f64)
    }
}

/// Microseconds since 1970 of a LOG line's timestamp
/// (`2026/11/26-14:01:19.044485 ...`, local time; only differences are used).
fn log_time(line: &str) -> Option<i64> {
    let ts = line.get(..26)?;
    let n = |r: std::ops::Range<usize>| ts.get(r)?.parse::<i64>().ok();
    let (y, m, d) = (n(0..4)?, n(5..7)?, n(8..10)?);
    let (hh, mm, ss, us) = (n(11..13)?, n(14..16)?, n(17..19)?, n(20..26)?);
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146097 + doe - 719468;
    Some(((days * 24 + hh) * 60 + mm) * 60_000_000 + ss * 1_000_000 + us)
}

/// Sums the flush and compaction lines of LevelDB's info LOG (1.23's
/// wording, in `db_impl.cc`), with their durations from the lines'
/// timestamps (one background thread: a compaction's `Compacting` and
/// `Compacted` lines pair in order).
pub fn parse_log(text: &str) -> LogBytes {
    let mut b = LogBytes::default();
    let mut flush_start: Option<i64> = None;
    let mut compaction_start: Option<i64> = None;
    let since = |start: Option<i64>, line: &str| -> u64 {
        match (start, log_time(line)) {
            (Some(a), Some(z)) if z >= a => (z - a) as u64,
            _ => 0,
        }
    };
    for line in text.lines() {
        if line.contains(": started") && line.contains("Level-0 table #") {
            flush_start = log_time(line);
            continue;
        }
        if line.contains(" Compacting ") {
            compaction_start = log_time(line);
            continue;
        }
        if let Some(rest) = line.split_once("Level-0 table #").map(|x| x.1) {
            if let Some(bytes) = rest
                .split_once(": ")
                .and_then(|(_, r)| r.strip_suffix(" bytes OK"))
                .and_then(|n| n.trim().parse::<u64>().ok())
            {
                // An empty memtable (a flush request with nothing to write)
                // writes no table.
                if bytes > 0 {
                    b.flushes += 1;
                    b.flush_bytes += bytes;
                    b.flush_micros += since(flush_start, line);
                }
                flush_start = None;
            }
        } else if let Some(rest) = line.split_once("Compacted ").map(|x| x.1) {
            if let Some(bytes) = rest
                .split_once("=> ")
                .and_then(|(_, r)| r.strip_suffix(" bytes"))
                .and_then(|n| n.trim().parse::<u64>().ok())
            {
                b.compactions += 1;
                b.compaction_bytes += bytes;
                b.compaction_micros += since(compaction_start, line);
                compaction_start = None;
            }
        }
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options_map::settings_of as settings;

    #[test]
    fn defaults_are_leveldbs_own() {
        let c = map_options(&settings(&[])).unwrap();
        assert_eq!(
            c,
            LevelDbConfig::default(),
            "no flag given: every option LevelDB's default"
        );
        assert!(c
            .describe()
            .contains("write_buffer_size=4194304 (LevelDB default)"));
    }

    #[test]
    fn given_flags_map_to_leveldb_options() {
        let c = map_options(&settings(&[
            "--write_buffer_size=1048576",
            "--target_file_size_base=4194304",
            "--block_size=16384",
            "--block_restart_interval=8",
            "--bloom_bits=10",
            "--compression_type=none",
            "--cache_size=0",
            "--paranoid_checks=false",
            "--open_files=500",
            "--statistics=1",
        ]))
        .unwrap();
        assert_eq!(c.write_buffer_size, Some(1 << 20));
        assert_eq!(c.max_file_size, Some(4 << 20));
        assert_eq!(c.block_size, Some(16384));
        assert_eq!(c.block_restart_interval, Some(8));
        assert_eq!(c.bloom_bits, Some(10));
        assert_eq!(c.snappy, Some(false));
        assert_eq!(c.cache_size, Some(0));
        assert_eq!(c.paranoid_checks, Some(false));
        assert_eq!(c.max_open_files, Some(500));
        assert_eq!(c.notes.len(), 1, "{:?}", c.notes);
        let d = c.describe();
        assert!(d.contains("filter_policy=NewBloomFilterPolicy(10)"), "{d}");
        assert!(d.contains("compression=none "), "{d}");
    }

    #[test]
    fn what_leveldb_does_anyway_is_accepted() {
        map_options(&settings(&[
            "--level0_file_num_compaction_trigger=4",
            "--level0_slowdown_writes_trigger=8",
            "--level0_stop_writes_trigger=12",
            "--max_bytes_for_level_base=10485760",
            "--max_bytes_for_level_multiplier=10",
            "--num_levels=7",
            "--compaction_style=0",
        ]))
        .unwrap();
    }

    #[test]
    fn flags_leveldb_lacks_are_errors_naming_flag_and_engine() {
        crate::engine::mapping::assert_refused(
            map_options,
            "LevelDB",
            &[
                "--level0_file_num_compaction_trigger=8",
                "--max_bytes_for_level_base=1048576",
                "--compression_type=lz4",
                "--enable_blob_files=true",
                "--subcompactions=4",
                "--compaction_style=1",
                "--max_write_buffer_number=4",
                "--open_files=-1",
                "--merge_operator=uint64add",
                "--writes_per_range_tombstone=10",
                "--enable_write_thread_adaptive_yield=true",
                "--write_thread_max_yield_usec=50",
                "--use_data_block_hash_index=true",
                "--data_block_hash_table_util_ratio=0.5",
            ],
        );
    }

    #[test]
    fn writers_that_never_poll_are_what_leveldb_does() {
        map_options(&settings(&["--enable_write_thread_adaptive_yield=false"])).unwrap();
    }

    #[test]
    fn binary_search_in_blocks_is_what_leveldb_does() {
        map_options(&settings(&[
            "--use_data_block_hash_index=false",
            "--data_block_hash_table_util_ratio=0.75",
        ]))
        .unwrap();
    }

    #[test]
    fn log_bytes_give_w_amp() {
        let log = "\
2026/11/26-13:00:00.000001 7f Level-0 table #5: started
2026/11/26-13:00:00.100000 7f Level-0 table #5: 1000 bytes OK
2026/11/26-13:00:00.200000 7f Level-0 table #7: started
2026/11/26-13:00:00.300000 7f Level-0 table #7: 1000 bytes OK
2026/11/26-13:00:00.400000 7f Compacting 2@0 + 0@1 files
2026/11/26-13:00:00.500000 7f Generated table #8@0: 10 keys, 1900 bytes
2026/11/26-13:00:00.500001 7f Compacted 2@0 + 0@1 files => 1900 bytes
2026/11/26-13:00:00.600000 7f Moved #9 to level-2 3000 bytes OK: files[ 0 1 1 0 0 0 0 ]
";
        let b = parse_log(log);
        assert_eq!(
            b,
            LogBytes {
                flushes: 2,
                flush_bytes: 2000,
                compactions: 1,
                compaction_bytes: 1900,
                flush_micros: 199_999,
                compaction_micros: 100_001,
            }
        );
        assert_eq!(b.w_amp(), Some(1.95));
        assert_eq!(
            crate::dbbench_text::leveldb::log_line(&b),
            "LOG: 2 flushes 2000 bytes 0.200 s, 1 compactions 1900 bytes 0.100 s, W-Amp 1.95"
        );
        // Across midnight and a month end.
        let t = |s: &str| log_time(s).unwrap();
        assert_eq!(
            t("2026/12/01-00:00:00.000001 x") - t("2026/11/30-23:59:59.999999 x"),
            2
        );
        assert_eq!(parse_log("").w_amp(), None);
    }

    #[test]
    fn a_level_is_over_its_limit_only_when_its_rounded_size_says_so_surely() {
        // L1's limit is 10 MiB: a printed 10 may be 9.6 MiB, not due.
        assert!(!level_over_limit(1, 10.0));
        assert!(level_over_limit(1, 11.0));
        assert!(!level_over_limit(2, 100.0));
        assert!(level_over_limit(2, 101.0));
        assert!(!level_over_limit(3, 0.0));
    }
}
