//! db_bench-compatible flags: the table, the parser and the typed view the
//! benchmark code reads.

pub mod parse;
pub mod table;

pub use parse::{parse_args, FlagError, FlagValues};

/// The engines `--engine` names (whether this binary has each is
/// `engine::factory_for`'s answer).
pub const ENGINES: &[&str] = &["strata", "leveldb", "fjall", "rocksdb"];

/// Block compression as db_bench's `--compression_type` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// `none`
    None,
    /// `snappy`
    Snappy,
    /// `zlib`
    Zlib,
    /// `bzip2`
    Bzip2,
    /// `lz4`
    Lz4,
    /// `lz4hc`
    Lz4hc,
    /// `xpress`
    Xpress,
    /// `zstd`
    Zstd,
}

impl Compression {
    /// Parses db_bench's spelling; `None` if unknown.
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text.to_ascii_lowercase().as_str() {
            "none" => Self::None,
            "snappy" => Self::Snappy,
            "zlib" => Self::Zlib,
            "bzip2" => Self::Bzip2,
            "lz4" => Self::Lz4,
            "lz4hc" => Self::Lz4hc,
            "xpress" => Self::Xpress,
            "zstd" => Self::Zstd,
            _ => return None,
        })
    }
    /// RocksDB's option-string value (`kSnappyCompression`, ...).
    pub fn option_name(self) -> &'static str {
        match self {
            Self::None => "kNoCompression",
            Self::Snappy => "kSnappyCompression",
            Self::Zlib => "kZlibCompression",
            Self::Bzip2 => "kBZip2Compression",
            Self::Lz4 => "kLZ4Compression",
            Self::Lz4hc => "kLZ4HCCompression",
            Self::Xpress => "kXpressCompression",
            Self::Zstd => "kZSTD",
        }
    }
    /// The name db_bench's header prints (`Compression: Snappy`).
    pub fn header_name(self) -> &'static str {
        match self {
            Self::None => "NoCompression",
            Self::Snappy => "Snappy",
            Self::Zlib => "Zlib",
            Self::Bzip2 => "BZip2",
            Self::Lz4 => "LZ4",
            Self::Lz4hc => "LZ4HC",
            Self::Xpress => "Xpress",
            Self::Zstd => "ZSTD",
        }
    }
}

/// The typed flags a run reads. Integers keep db_bench's signedness.
#[derive(Debug, Clone)]
pub struct Flags {
    /// Every flag's effective text value (for the JSON report and option mapping).
    pub values: FlagValues,
    /// `--benchmarks`, split on commas, empty entries dropped.
    pub benchmarks: Vec<String>,
    /// `--num`
    pub num: i64,
    /// `--reads` (negative: `--num`)
    pub reads: i64,
    /// `--writes` (negative: `--num`)
    pub writes: i64,
    /// `--deletes` (negative: `--num`)
    pub deletes: i64,
    /// `--duration` seconds (0: op counts decide)
    pub duration: u64,
    /// `--threads`
    pub threads: usize,
    /// `--key_size`
    pub key_size: usize,
    /// `--value_size`
    pub value_size: usize,
    /// `--seek_nexts`
    pub seek_nexts: usize,
    /// `--batch_size`: keys per write batch in the fills, overwrite,
    /// deleterandom and deleteseq, and keys per MultiGet in multireadrandom (db_bench's
    /// `entries_per_batch_`); fillbatch uses 1000 whatever it says
    pub batch_size: u64,
    /// `--multiread_batched`: multireadrandom uses RocksDB's batched
    /// MultiGet API (Strata has one MultiGet)
    pub multiread_batched: bool,
    /// `--multiread_stride`: 0 for random keys in a MultiGet, else the keys
    /// are a random start and then every `stride`-th key
    pub multiread_stride: u64,
    /// `--compression_type`
    pub compression: Compression,
    /// `--compression_ratio`
    pub compression_ratio: f64,
    /// `--seed` (0: derive from the clock)
    pub seed: u64,
    /// `--db` (empty: a default path under /tmp)
    pub db: String,
    /// `--use_existing_db`
    pub use_existing_db: bool,
    /// `--statistics`
    pub statistics: bool,
    /// `--histogram`
    pub histogram: bool,
    /// `--stats_per_interval`
    pub stats_per_interval: i64,
    /// `--stats_interval` (ops)
    pub stats_interval: i64,
    /// `--stats_interval_seconds`
    pub stats_interval_seconds: i64,
    /// `--sync`
    pub sync: bool,
    /// `--disable_wal`
    pub disable_wal: bool,
    /// `--verify_checksum`
    pub verify_checksum: bool,
    /// `--readwritepercent`
    pub readwritepercent: i64,
    /// `--writes_before_delete_range`: writes of a thread before the first
    /// range tombstone.
    pub writes_before_delete_range: i64,
    /// `--writes_per_range_tombstone`: a write benchmark adds a range
    /// deletion after every this many writes (0: none), as db_bench's
    /// `DoWrite`.
    pub writes_per_range_tombstone: i64,
    /// `--range_tombstone_width`: keys in each range tombstone.
    pub range_tombstone_width: i64,
    /// `--max_num_range_tombstones`: range tombstones per thread at most.
    pub max_num_range_tombstones: i64,
    /// `--expand_range_tombstones`: write each range tombstone as point
    /// deletes of its keys.
    pub expand_range_tombstones: bool,
    /// `--merge_operator` (empty: none)
    pub merge_operator: String,
    /// `--merge_keys` (negative: `--num`)
    pub merge_keys: i64,
    /// `--mergereadpercent`: readrandommergerandom's share of merges
    pub mergereadpercent: i64,
    /// `--num_column_families`: keys spread over this many families (key
    /// number modulo the count), as db_bench spreads them
    pub num_column_families: usize,
    /// `--hot_key_fraction`: with a value in (0, 1), keys below this
    /// fraction of `--num` live in family "hot" and the rest in "cold"
    pub hot_key_fraction: f64,
    /// `--hot_write_fraction`: updatehotcold's share of writes to hot keys
    pub hot_write_fraction: f64,
    /// `--hot_cold_families`: hot and cold keys in their own families
    pub hot_cold_families: bool,
    /// `--benchmark_write_rate_limit` bytes/s (0: unlimited)
    pub benchmark_write_rate_limit: u64,
    /// `--engine`
    pub engine: String,
    /// `--json_report` path (empty: none)
    pub json_report: String,
    /// `--report_interval_seconds`: sample every this many seconds while a
    /// benchmark runs (0: off)
    pub report_interval_seconds: u64,
    /// `--report_file`: the CSV of the samples
    pub report_file: String,
    /// `--target_ops_per_sec` over all threads (0: closed loop)
    pub target_ops_per_sec: f64,
    /// `--ycsb_target_ops_per_sec`: the older name of the target rate, for
    /// the ycsb_* benchmarks only (checked by `ycsb::YcsbFlags`)
    pub ycsb_target_ops_per_sec: f64,
}

fn bad(name: &str, value: &str, why: &str) -> FlagError {
    FlagError(format!(
        "ERROR: invalid value '{value}' for flag '{name}': {why}"
    ))
}

impl Flags {
    /// Parses and validates `args` (everything after `strata bench`).
    pub fn from_args(args: &[String]) -> Result<Self, FlagError> {
        let values = parse_args(args)?;
        Self::from_values(values)
    }

    /// Builds the typed view from parsed values, checking ranges db_bench checks.
    pub fn from_values(values: FlagValues) -> Result<Self, FlagError> {
        let int = |n: &str| parse::parse_i64(values.raw(n)).unwrap_or(0);
        let uint = |n: &str| parse::parse_u64(values.raw(n)).unwrap_or(0);
        let boolean = |n: &str| parse::parse_bool(values.raw(n)).unwrap_or(false);
        let float = |n: &str| values.raw(n).trim().parse::<f64>().unwrap_or(0.0);
        let nonneg = |n: &str| -> Result<usize, FlagError> {
            usize::try_from(int(n)).map_err(|_| bad(n, values.raw(n), "must not be negative"))
        };
        let ctype = values.raw("compression_type").to_string();
        let compression = Compression::parse(&ctype)
            .ok_or_else(|| FlagError(format!("Cannot parse compression type '{ctype}'")))?;
        let blob_ctype = values.raw("blob_compression_type").to_string();
        if Compression::parse(&blob_ctype).is_none() {
            return Err(FlagError(format!(
                "Cannot parse compression type '{blob_ctype}'"
            )));
        }
        // db_bench wants one fanout per level, integers.
        let fanouts = values
            .raw("max_bytes_for_level_multiplier_additional")
            .trim();
        if !fanouts.is_empty() {
            let parsed: Vec<Option<i64>> = fanouts
                .split(',')
                .map(|x| parse::parse_i64(x.trim()))
                .collect();
            if parsed.iter().any(Option::is_none) {
                return Err(bad(
                    "max_bytes_for_level_multiplier_additional",
                    fanouts,
                    "must be comma-separated integers",
                ));
            }
            if parsed.len() != nonneg("num_levels")? {
                return Err(FlagError(format!(
                    "Insufficient number of fanouts specified {}",
                    parsed.len()
                )));
            }
        }
        // db_bench asserts min_level_to_compress <= num_levels.
        if int("min_level_to_compress") > int("num_levels") {
            return Err(bad(
                "min_level_to_compress",
                values.raw("min_level_to_compress"),
                "must be at most --num_levels",
            ));
        }
        let threads = nonneg("threads")?;
        if threads == 0 {
            return Err(bad("threads", values.raw("threads"), "must be positive"));
        }
        let key_size = nonneg("key_size")?;
        if key_size == 0 {
            return Err(bad("key_size", values.raw("key_size"), "must be positive"));
        }
        let ratio = float("compression_ratio");
        if ratio <= 0.0 || ratio > 1.0 {
            return Err(bad(
                "compression_ratio",
                values.raw("compression_ratio"),
                "must be in (0, 1]",
            ));
        }
        let rwp = int("readwritepercent");
        if !(0..=100).contains(&rwp) {
            return Err(bad(
                "readwritepercent",
                values.raw("readwritepercent"),
                "must be in [0, 100]",
            ));
        }
        let mergereadpercent = int("mergereadpercent");
        if !(0..=100).contains(&mergereadpercent) {
            return Err(bad(
                "mergereadpercent",
                values.raw("mergereadpercent"),
                "must be in [0, 100]",
            ));
        }
        let batch_size = u64::try_from(int("batch_size"))
            .ok()
            .filter(|&b| b > 0)
            .ok_or_else(|| bad("batch_size", values.raw("batch_size"), "must be positive"))?;
        let multiread_stride = u64::try_from(int("multiread_stride")).map_err(|_| {
            bad(
                "multiread_stride",
                values.raw("multiread_stride"),
                "must not be negative",
            )
        })?;
        let num_column_families = nonneg("num_column_families")?;
        if num_column_families == 0 {
            return Err(bad(
                "num_column_families",
                values.raw("num_column_families"),
                "must be positive",
            ));
        }
        let hot_key_fraction = float("hot_key_fraction");
        if !(0.0..1.0).contains(&hot_key_fraction) {
            return Err(bad(
                "hot_key_fraction",
                values.raw("hot_key_fraction"),
                "must be in [0, 1)",
            ));
        }
        let hot_write_fraction = float("hot_write_fraction");
        if !(0.0..=1.0).contains(&hot_write_fraction) {
            return Err(bad(
                "hot_write_fraction",
                values.raw("hot_write_fraction"),
                "must be in [0, 1]",
            ));
        }
        if hot_key_fraction > 0.0 && num_column_families > 1 {
            return Err(FlagError(
                "--hot_key_fraction and --num_column_families are two layouts of column families: give one".into(),
            ));
        }
        for side in ["hot", "cold"] {
            let given: Vec<&str> = crate::flags::table::FLAGS
                .iter()
                .map(|f| f.name)
                .filter(|n| n.starts_with(side) && n[side.len()..].starts_with('_'))
                .filter(|n| {
                    !n.starts_with("hot_key")
                        && !n.starts_with("hot_write")
                        && !n.starts_with("hot_cold")
                })
                .filter(|n| values.was_given(n))
                .collect();
            if let (Some(n), true) = (given.first(), hot_key_fraction == 0.0) {
                return Err(bad(n, values.raw(n), "needs --hot_key_fraction"));
            }
            if let (Some(n), false) = (given.first(), boolean("hot_cold_families")) {
                return Err(bad(n, values.raw(n), "needs --hot_cold_families=true"));
            }
        }
        let report_interval_seconds =
            u64::try_from(int("report_interval_seconds")).map_err(|_| {
                bad(
                    "report_interval_seconds",
                    values.raw("report_interval_seconds"),
                    "must not be negative",
                )
            })?;
        let target_ops_per_sec = float("target_ops_per_sec");
        if !(target_ops_per_sec >= 0.0 && target_ops_per_sec.is_finite()) {
            return Err(bad(
                "target_ops_per_sec",
                values.raw("target_ops_per_sec"),
                "must be a number >= 0",
            ));
        }
        if values.was_given("target_ops_per_sec") && values.was_given("ycsb_target_ops_per_sec") {
            return Err(FlagError(
                "--target_ops_per_sec and --ycsb_target_ops_per_sec both set the target rate \
                 (--ycsb_target_ops_per_sec is its older name, for ycsb_* only): give one"
                    .into(),
            ));
        }
        let engine = values.raw("engine").to_string();
        if !ENGINES.contains(&engine.as_str()) {
            return Err(bad(
                "engine",
                &engine,
                "expected strata, leveldb, fjall or rocksdb",
            ));
        }
        let flags = Flags {
            benchmarks: values
                .raw("benchmarks")
                .split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
            num: int("num"),
            reads: int("reads"),
            writes: int("writes"),
            deletes: int("deletes"),
            duration: u64::try_from(int("duration")).unwrap_or(0),
            threads,
            key_size,
            value_size: nonneg("value_size")?,
            seek_nexts: nonneg("seek_nexts")?,
            batch_size,
            multiread_batched: boolean("multiread_batched"),
            multiread_stride,
            compression,
            compression_ratio: ratio,
            seed: uint_or_i64(values.raw("seed")),
            db: values.raw("db").to_string(),
            use_existing_db: boolean("use_existing_db"),
            statistics: boolean("statistics"),
            histogram: boolean("histogram"),
            stats_per_interval: int("stats_per_interval"),
            stats_interval: int("stats_interval"),
            stats_interval_seconds: int("stats_interval_seconds"),
            sync: boolean("sync"),
            disable_wal: boolean("disable_wal"),
            verify_checksum: boolean("verify_checksum"),
            readwritepercent: rwp,
            writes_before_delete_range: int("writes_before_delete_range"),
            writes_per_range_tombstone: int("writes_per_range_tombstone"),
            range_tombstone_width: int("range_tombstone_width"),
            max_num_range_tombstones: int("max_num_range_tombstones"),
            expand_range_tombstones: boolean("expand_range_tombstones"),
            merge_operator: values.raw("merge_operator").trim().to_string(),
            merge_keys: int("merge_keys"),
            mergereadpercent,
            num_column_families,
            hot_key_fraction,
            hot_write_fraction,
            hot_cold_families: boolean("hot_cold_families"),
            benchmark_write_rate_limit: uint("benchmark_write_rate_limit"),
            engine,
            json_report: values.raw("json_report").to_string(),
            report_interval_seconds,
            report_file: values.raw("report_file").to_string(),
            target_ops_per_sec,
            ycsb_target_ops_per_sec: float("ycsb_target_ops_per_sec"),
            values,
        };
        if flags.num < 0 {
            return Err(bad("num", flags.values.raw("num"), "must not be negative"));
        }
        Ok(flags)
    }

    /// Effective read count per thread (`--reads`, or `--num` when negative).
    pub fn reads_per_thread(&self) -> u64 {
        u64::try_from(if self.reads < 0 { self.num } else { self.reads }).unwrap_or(0)
    }
    /// Effective write count per thread (`--writes`, or `--num` when negative).
    pub fn writes_per_thread(&self) -> u64 {
        u64::try_from(if self.writes < 0 {
            self.num
        } else {
            self.writes
        })
        .unwrap_or(0)
    }
    /// Effective delete count per thread.
    pub fn deletes_per_thread(&self) -> u64 {
        u64::try_from(if self.deletes < 0 {
            self.num
        } else {
            self.deletes
        })
        .unwrap_or(0)
    }
    /// Op count of the mixed benchmarks: `num` unless reads/writes are given,
    /// then the larger of the two (db_bench's `readwrites_`).
    pub fn readwrites_per_thread(&self) -> u64 {
        let v = if self.writes < 0 && self.reads < 0 {
            self.num
        } else {
            self.writes.max(self.reads)
        };
        u64::try_from(v).unwrap_or(0)
    }
    /// Key range of mergerandom and readrandommergerandom: `--merge_keys`,
    /// or `--num` when negative (db_bench's `merge_keys_`), at least 1.
    pub fn merge_key_range(&self) -> u64 {
        let v = if self.merge_keys < 0 {
            self.num
        } else {
            self.merge_keys
        };
        u64::try_from(v).unwrap_or(0).max(1)
    }
    /// The target rate over all threads of a benchmark (`ycsb`: one of the
    /// ycsb_* benchmarks): `--target_ops_per_sec`, or on ycsb_*
    /// `--ycsb_target_ops_per_sec`; `None`: closed loop.
    pub fn target_rate(&self, ycsb: bool) -> Option<f64> {
        let r = if self.target_ops_per_sec > 0.0 || !ycsb {
            self.target_ops_per_sec
        } else {
            self.ycsb_target_ops_per_sec
        };
        (r > 0.0 && r.is_finite()).then_some(r)
    }

    /// Key range: `--num` as unsigned, at least 1 (avoids a modulo by zero).
    pub fn key_range(&self) -> u64 {
        u64::try_from(self.num).unwrap_or(0).max(1)
    }
}

/// `--seed` is an int64 in db_bench; treat its bits as the u64 seed base.
fn uint_or_i64(text: &str) -> u64 {
    parse::parse_i64(text).map_or(0, |v| v as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(args: &[&str]) -> Result<Flags, FlagError> {
        Flags::from_args(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn typed_defaults_are_db_bench_defaults() {
        let f = flags(&[]).unwrap();
        assert_eq!(f.num, 1_000_000);
        assert_eq!(f.reads_per_thread(), 1_000_000);
        assert_eq!(f.key_size, 16);
        assert_eq!(f.value_size, 100);
        assert_eq!(f.compression, Compression::Snappy);
        assert_eq!(f.compression_ratio, 0.5);
        assert_eq!(f.readwritepercent, 90);
        assert_eq!(f.threads, 1);
        assert!(!f.sync && !f.disable_wal && !f.histogram && !f.statistics);
        assert_eq!(f.engine, "strata");
    }

    #[test]
    fn reads_and_writes_override_num() {
        let f = flags(&["--num=100", "--reads=7", "--writes=9"]).unwrap();
        assert_eq!(f.reads_per_thread(), 7);
        assert_eq!(f.writes_per_thread(), 9);
        assert_eq!(f.readwrites_per_thread(), 9);
        let f = flags(&["--num=100"]).unwrap();
        assert_eq!(f.readwrites_per_thread(), 100);
        assert_eq!(f.merge_key_range(), 100);
        let f = flags(&["--num=100", "--merge_keys=7"]).unwrap();
        assert_eq!(f.merge_key_range(), 7);
    }

    #[test]
    fn merge_flags() {
        let f = flags(&[]).unwrap();
        assert_eq!(
            (f.merge_operator.as_str(), f.merge_keys, f.mergereadpercent),
            ("", -1, 70)
        );
        let f = flags(&["--merge_operator=uint64add", "--mergereadpercent=10"]).unwrap();
        assert_eq!(
            (f.merge_operator.as_str(), f.mergereadpercent),
            ("uint64add", 10)
        );
        assert!(flags(&["--mergereadpercent=101"]).is_err());
    }

    #[test]
    fn target_rate_and_report_flags() {
        let f = flags(&[]).unwrap();
        assert_eq!((f.target_rate(false), f.target_rate(true)), (None, None));
        assert_eq!(
            (f.report_interval_seconds, f.report_file.as_str()),
            (0, "report.csv")
        );
        let f = flags(&["--target_ops_per_sec=500"]).unwrap();
        assert_eq!(
            (f.target_rate(false), f.target_rate(true)),
            (Some(500.0), Some(500.0))
        );
        let f = flags(&["--ycsb_target_ops_per_sec=70"]).unwrap();
        assert_eq!(
            (f.target_rate(false), f.target_rate(true)),
            (None, Some(70.0))
        );
        let e = flags(&["--target_ops_per_sec=5", "--ycsb_target_ops_per_sec=5"]).unwrap_err();
        assert!(
            e.0.contains("--target_ops_per_sec") && e.0.contains("--ycsb_target_ops_per_sec"),
            "{}",
            e.0
        );
        assert!(flags(&["--target_ops_per_sec=-1"]).is_err());
        assert!(flags(&["--report_interval_seconds=-1"]).is_err());
        let f = flags(&["--report_interval_seconds=2", "--report_file=/x/r.csv"]).unwrap();
        assert_eq!(
            (f.report_interval_seconds, f.report_file.as_str()),
            (2, "/x/r.csv")
        );
    }

    #[test]
    fn benchmarks_list_is_split() {
        let f = flags(&["--benchmarks=fillseq,,readrandom"]).unwrap();
        assert_eq!(f.benchmarks, vec!["fillseq", "readrandom"]);
    }

    #[test]
    fn invalid_values_rejected() {
        let e = flags(&["--compression_type=gzip"]).unwrap_err();
        assert_eq!(e.0, "Cannot parse compression type 'gzip'");
        assert!(flags(&["--compression_type=NONE"]).is_ok());
        assert!(flags(&["--blob_compression_type=x"]).is_err());
        assert!(flags(&["--readwritepercent=101"]).is_err());
        assert!(flags(&["--compression_ratio=0"]).is_err());
        assert!(flags(&["--engine=wiredtiger"]).is_err());
        assert!(flags(&["--engine=leveldb"]).is_ok());
        assert!(flags(&["--num=-1"]).is_err());
        assert!(flags(&["--key_size=0"]).is_err());
        assert!(flags(&["--batch_size=0"]).is_err());
        // Once taken silently as one thread.
        let e = flags(&["--threads=0"]).unwrap_err();
        assert!(
            e.0.contains("threads") && e.0.contains("must be positive"),
            "{}",
            e.0
        );
        assert!(flags(&["--multiread_stride=-1"]).is_err());
        let f = flags(&[
            "--batch_size=8",
            "--multiread_stride=3",
            "--multiread_batched",
        ])
        .unwrap();
        assert_eq!(
            (f.batch_size, f.multiread_stride, f.multiread_batched),
            (8, 3, true)
        );
    }
}
