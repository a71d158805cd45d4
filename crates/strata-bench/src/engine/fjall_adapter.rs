//! Adapter from [`BenchEngine`](super::BenchEngine) to fjall (the `fjall`
//! crate): one database with one keyspace, `default`.
//!
//! As for LevelDB, db_bench's defaults are not fjall's: a flag that is not
//! given leaves fjall's own default; a given flag is applied when fjall has
//! the option, accepted when its value is what fjall does anyway, and
//! refused naming the flag otherwise.

use std::path::Path;
use std::sync::Arc;

use fjall::compaction::Leveled;
use fjall::config::{
    BlockSizePolicy, BloomConstructionPolicy, CompressionPolicy, FilterPolicy, FilterPolicyEntry,
    HashRatioPolicy, RestartIntervalPolicy,
};
use fjall::{
    AbstractTree, CompressionType, Database, Keyspace, KeyspaceCreateOptions, KvSeparationOptions,
    PersistMode,
};

use super::mapping::{given, unsupported, value};
use super::{BatchOp, BenchEngine, BenchIter, EngineFactory, Move};
use crate::dbbench_text::fjall::{format_fjall_stats, FjallSummary};
use crate::options_map::{OptionSetting, WriteOpts};

/// The `fjall` crate version this binary is built with.
pub const FJALL_VERSION: &str = "3.1.13";

/// The fjall options a run asks for; `None` is fjall's default.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FjallConfig {
    /// Keyspace `max_memtable_size` (`--write_buffer_size`).
    pub max_memtable_size: Option<u64>,
    /// Leveled `table_target_size` (`--target_file_size_base`).
    pub table_target_size: Option<u64>,
    /// Leveled `l0_threshold` (`--level0_file_num_compaction_trigger`).
    pub l0_threshold: Option<u8>,
    /// Leveled level ratio (`--max_bytes_for_level_multiplier`).
    pub level_ratio: Option<f32>,
    /// Data block size (`--block_size`).
    pub block_size: Option<u32>,
    /// Data block restart interval (`--block_restart_interval`).
    pub restart_interval: Option<u8>,
    /// A hash index in each data block (`--use_data_block_hash_index`).
    pub hash_index: Option<bool>,
    /// Keys per bucket of that index (`--data_block_hash_table_util_ratio`;
    /// fjall's hash ratio is its inverse, buckets per key).
    pub hash_util_ratio: Option<f64>,
    /// Bloom bits per key (`--bloom_bits`; 0: no filter).
    pub bloom_bits: Option<f32>,
    /// LZ4 (true) or none (`--compression_type`).
    pub lz4: Option<bool>,
    /// Block cache bytes (`--cache_size`).
    pub cache_size: Option<u64>,
    /// Background worker threads (`--max_background_jobs`).
    pub worker_threads: Option<usize>,
    /// Open-file cache (`--open_files`; `Some(None)`: no limit).
    pub max_cached_files: Option<Option<usize>>,
    /// Key-value separation into blob files (`--enable_blob_files`).
    pub blob_files: Option<bool>,
    /// Its separation threshold (`--min_blob_size`).
    pub min_blob_size: Option<u32>,
    /// Its blob file target size (`--blob_file_size`).
    pub blob_file_size: Option<u64>,
    /// LZ4 (true) or none for blob files (`--blob_compression_type`).
    pub blob_lz4: Option<bool>,
    /// Blob garbage collection (`--enable_blob_garbage_collection`).
    pub blob_gc: Option<bool>,
    /// The oldest share of blob files it rewrites
    /// (`--blob_garbage_collection_age_cutoff`).
    pub blob_gc_age_cutoff: Option<f32>,
    /// Notes for the run's stderr.
    pub notes: Vec<String>,
}

impl FjallConfig {
    /// One line: each option's value and where it comes from.
    pub fn describe(&self) -> String {
        fn show<T: std::fmt::Display>(name: &str, v: Option<T>) -> String {
            match v {
                Some(v) => format!("{name}={v}"),
                None => format!("{name}=(fjall default)"),
            }
        }
        [
            show("max_memtable_size", self.max_memtable_size),
            show("table_target_size", self.table_target_size),
            show("l0_threshold", self.l0_threshold),
            show("level_ratio", self.level_ratio),
            show("data_block_size", self.block_size),
            show("data_block_restart_interval", self.restart_interval),
            show("data_block_hash_ratio", self.hash_ratio()),
            match self.bloom_bits {
                Some(b) if b > 0.0 => format!("filter=bloom({b} bits/key)"),
                Some(_) => "filter=none".into(),
                None => "filter=(fjall default: bloom, 10 bits/key)".into(),
            },
            show(
                "compression",
                self.lz4.map(|l| if l { "lz4" } else { "none" }),
            )
            .replace("(fjall default)", "(fjall default: lz4)"),
            show("cache_size", self.cache_size),
            show("worker_threads", self.worker_threads),
            show(
                "max_cached_files",
                self.max_cached_files
                    .map(|m| m.map_or_else(|| "unlimited".to_string(), |n| n.to_string())),
            ),
            self.describe_blob_files(),
        ]
        .join(" ")
    }

    /// The key-value separation part of [`describe`](Self::describe).
    fn describe_blob_files(&self) -> String {
        let Some(o) = self.kv_separation() else {
            return "kv_separation=(fjall default: off)".into();
        };
        let mark = |given: bool| if given { "" } else { " (fjall default)" };
        format!(
            "kv_separation=on(separation_threshold={}{} file_target_size={}{} compression={}{} \
             staleness_threshold={}{} age_cutoff={}{})",
            o.separation_threshold,
            mark(self.min_blob_size.is_some()),
            o.file_target_size,
            mark(self.blob_file_size.is_some()),
            if o.compression == CompressionType::None {
                "none"
            } else {
                "lz4"
            },
            mark(self.blob_lz4.is_some()),
            o.staleness_threshold,
            mark(self.blob_gc == Some(true)),
            o.age_cutoff,
            mark(self.blob_gc.is_some()),
        )
    }

    /// fjall's key-value separation options, when the flags turn it on.
    ///
    /// RocksDB's garbage collection relocates, in each compaction, the live
    /// blobs of the oldest `age_cutoff` share of blob files; fjall's rewrites
    /// those of the oldest `age_cutoff` share of the compaction's blob files
    /// whose garbage is at least `staleness_threshold` of their bytes. GC on
    /// is staleness 0 (any garbage); GC off is an age cutoff of 0 (no file
    /// is old enough). Without the flag fjall keeps its own (0.25 and 0.25).
    pub fn kv_separation(&self) -> Option<KvSeparationOptions> {
        if self.blob_files != Some(true) {
            return None;
        }
        let mut o = KvSeparationOptions::default();
        if let Some(n) = self.min_blob_size {
            o = o.separation_threshold(n);
        }
        if let Some(n) = self.blob_file_size {
            o = o.file_target_size(n);
        }
        if let Some(lz4) = self.blob_lz4 {
            o = o.compression(if lz4 {
                CompressionType::Lz4
            } else {
                CompressionType::None
            });
        }
        match self.blob_gc {
            Some(true) => {
                o = o
                    .staleness_threshold(0.0)
                    .age_cutoff(self.blob_gc_age_cutoff.unwrap_or(0.25));
            }
            Some(false) => o = o.age_cutoff(0.0),
            None => {}
        }
        Some(o)
    }
}

impl FjallConfig {
    /// fjall's data-block hash ratio (buckets per key; 0: no hash index),
    /// when the flags set one.
    pub fn hash_ratio(&self) -> Option<f32> {
        self.hash_index.map(|on| {
            if on {
                (1.0 / self.hash_util_ratio.unwrap_or(0.75)) as f32
            } else {
                0.0
            }
        })
    }
}

fn num<T: std::str::FromStr>(s: &OptionSetting) -> anyhow::Result<T> {
    value("fjall", s)
}

/// fjall's leveled defaults (`lsm_tree::compaction::Leveled`).
const DEFAULT_TABLE_TARGET: u64 = 64 << 20;
const DEFAULT_L0_THRESHOLD: u8 = 4;

/// Maps the settings to fjall's configuration.
pub fn map_options(settings: &[OptionSetting]) -> anyhow::Result<FjallConfig> {
    let mut c = FjallConfig::default();
    let mut level_base: Option<&OptionSetting> = None;
    for s in given("fjall", settings, &mut c.notes) {
        match s.option {
            "write_buffer_size" => c.max_memtable_size = Some(num(s)?),
            "target_file_size_base" => c.table_target_size = Some(num(s)?),
            "level0_file_num_compaction_trigger" => c.l0_threshold = Some(num(s)?),
            "max_bytes_for_level_multiplier" => c.level_ratio = Some(num(s)?),
            "block_size" => {
                let n: u32 = num(s)?;
                if !(1024..=1 << 20).contains(&n) {
                    return Err(unsupported(
                        "fjall",
                        s,
                        "fjall's block size is 1 KiB to 1 MiB",
                    ));
                }
                c.block_size = Some(n);
            }
            "block_restart_interval" => c.restart_interval = Some(num(s)?),
            "data_block_index_type" => {
                c.hash_index = Some(s.value == "kDataBlockBinaryAndHash");
            }
            "data_block_hash_table_util_ratio" => {
                let r: f64 = num(s)?;
                if !(r > 0.0 && r.is_finite()) {
                    return Err(unsupported("fjall", s, "the ratio must be positive"));
                }
                c.hash_util_ratio = Some(r);
            }
            "bloom_bits_per_key" => c.bloom_bits = Some(num(s)?),
            "compression" => {
                c.lz4 = Some(match s.value.as_str() {
                    "kLZ4Compression" => true,
                    "kNoCompression" => false,
                    _ => return Err(unsupported("fjall", s, "fjall compresses with lz4 or none")),
                })
            }
            "block_cache_size" => c.cache_size = Some(num(s)?),
            "max_background_jobs" => {
                let n: usize = num(s)?;
                if n == 0 {
                    return Err(unsupported("fjall", s, "fjall needs at least one worker"));
                }
                c.worker_threads = Some(n);
            }
            "max_open_files" => {
                let n: i64 = num(s)?;
                c.max_cached_files = Some(usize::try_from(n).ok().filter(|n| *n > 0));
            }
            // Checked below: fjall's L1 is table target size x L0 threshold.
            "max_bytes_for_level_base" => level_base = Some(s),
            "merge_operator" => return Err(unsupported("fjall", s, "fjall has no merge operator")),
            "delete_range" => return Err(unsupported("fjall", s, "fjall has no DeleteRange")),
            "compaction_style" if s.value == "kCompactionStyleLevel" => {}
            "enable_blob_files" => c.blob_files = Some(s.value == "true"),
            "min_blob_size" => c.min_blob_size = Some(num(s)?),
            "blob_file_size" => {
                let n: u64 = num(s)?;
                if n == 0 {
                    return Err(unsupported("fjall", s, "the size must be positive"));
                }
                c.blob_file_size = Some(n);
            }
            "blob_compression_type" => {
                c.blob_lz4 = Some(match s.value.as_str() {
                    "kLZ4Compression" => true,
                    "kNoCompression" => false,
                    _ => {
                        return Err(unsupported(
                            "fjall",
                            s,
                            "fjall compresses blob files with lz4 or none",
                        ))
                    }
                })
            }
            "enable_blob_garbage_collection" => c.blob_gc = Some(s.value == "true"),
            "blob_garbage_collection_age_cutoff" => {
                let r: f32 = num(s)?;
                if !(0.0..=1.0).contains(&r) {
                    return Err(unsupported("fjall", s, "the cutoff is a share, 0 to 1"));
                }
                c.blob_gc_age_cutoff = Some(r);
            }
            // 1 (RocksDB's default) forces nothing, as fjall does.
            "blob_garbage_collection_force_threshold" if s.value.parse::<f64>() == Ok(1.0) => {}
            "level_compaction_dynamic_level_bytes"
            | "disable_auto_compactions"
            | "allow_mmap_reads"
                if s.value == "false" => {}
            // fjall has no read-triggered compaction.
            "read_sampling_multiplier" if s.value == "-1" => {}
            // fjall has no filter over its memtables.
            "memtable_whole_key_filtering" if s.value == "false" => {}
            "memtable_prefix_bloom_size_ratio" if s.value.parse::<f64>() == Ok(0.0) => {}
            _ => {
                return Err(unsupported(
                    "fjall",
                    s,
                    "fjall has no such option (or fixes it to another value)",
                ))
            }
        }
    }
    if let Some(s) = level_base {
        let l1 = c.table_target_size.unwrap_or(DEFAULT_TABLE_TARGET)
            * u64::from(c.l0_threshold.unwrap_or(DEFAULT_L0_THRESHOLD));
        if s.value.parse::<u64>().ok() != Some(l1) {
            return Err(unsupported(
                "fjall",
                s,
                &format!(
                    "fjall's L1 is its table target size times its L0 threshold, {l1} bytes here \
                     (--target_file_size_base x --level0_file_num_compaction_trigger)"
                ),
            ));
        }
    }
    Ok(c)
}

/// Opens fjall databases.
#[derive(Debug, Default, Clone, Copy)]
pub struct FjallFactory;

/// An open fjall database and its one keyspace.
pub struct FjallEngine {
    db: Database,
    ks: Keyspace,
}

impl EngineFactory for FjallFactory {
    fn name(&self) -> &'static str {
        "fjall"
    }
    fn keeps_own_defaults(&self) -> bool {
        true
    }
    fn version(&self) -> String {
        FJALL_VERSION.to_string()
    }
    fn open(
        &self,
        path: &Path,
        settings: &[OptionSetting],
    ) -> anyhow::Result<Arc<dyn BenchEngine>> {
        let c = map_options(settings)?;
        eprintln!("fjall options: {}", c.describe());
        for n in &c.notes {
            eprintln!("fjall: {n}");
        }
        Ok(Arc::new(open_engine(path, &c)?))
    }
}

/// Opens the database at `path` with `c`.
fn open_engine(path: &Path, c: &FjallConfig) -> anyhow::Result<FjallEngine> {
    {
        let mut b = Database::builder(path);
        if let Some(n) = c.cache_size {
            b = b.cache_size(n);
        }
        if let Some(n) = c.worker_threads {
            b = b.worker_threads(n);
        }
        if let Some(m) = c.max_cached_files {
            b = b.max_cached_files(m);
        }
        let db = b.open()?;
        let cfg = c.clone();
        let ks = db.keyspace("default", move || {
            let mut o = KeyspaceCreateOptions::default();
            if let Some(n) = cfg.max_memtable_size {
                o = o.max_memtable_size(n);
            }
            let mut leveled = Leveled::default();
            if let Some(n) = cfg.table_target_size {
                leveled = leveled.with_table_target_size(n);
            }
            if let Some(n) = cfg.l0_threshold {
                leveled = leveled.with_l0_threshold(n);
            }
            if let Some(r) = cfg.level_ratio {
                leveled = leveled.with_level_ratio_policy(vec![r]);
            }
            o = o.compaction_strategy(Arc::new(leveled));
            if let Some(kv) = cfg.kv_separation() {
                o = o.with_kv_separation(Some(kv));
            }
            if let Some(n) = cfg.block_size {
                o = o.data_block_size_policy(BlockSizePolicy::all(n));
            }
            if let Some(n) = cfg.restart_interval {
                o = o.data_block_restart_interval_policy(RestartIntervalPolicy::all(n));
            }
            if let Some(r) = cfg.hash_ratio() {
                o = o.data_block_hash_ratio_policy(HashRatioPolicy::all(r));
            }
            match cfg.bloom_bits {
                Some(b) if b > 0.0 => {
                    o = o.filter_policy(FilterPolicy::all(FilterPolicyEntry::Bloom(
                        BloomConstructionPolicy::BitsPerKey(b),
                    )))
                }
                Some(_) => o = o.filter_policy(FilterPolicy::disabled()),
                None => {}
            }
            match cfg.lz4 {
                Some(true) => {
                    o = o.data_block_compression_policy(CompressionPolicy::all(
                        fjall::CompressionType::Lz4,
                    ))
                }
                Some(false) => o = o.data_block_compression_policy(CompressionPolicy::disabled()),
                None => {}
            }
            o
        })?;
        Ok(FjallEngine { db, ks })
    }
}

impl FjallEngine {
    fn persist(&self, wo: WriteOpts) -> anyhow::Result<()> {
        if wo.sync {
            self.db.persist(PersistMode::SyncData)?;
        }
        Ok(())
    }
}

fn check_wal(wo: WriteOpts) -> anyhow::Result<()> {
    if wo.disable_wal {
        anyhow::bail!(
            "Not supported: flag '--disable_wal' is not supported by fjall (it always writes its journal)"
        );
    }
    Ok(())
}

impl BenchEngine for FjallEngine {
    fn put(&self, key: &[u8], value: &[u8], wo: WriteOpts) -> anyhow::Result<()> {
        check_wal(wo)?;
        self.ks.insert(key, value)?;
        self.persist(wo)
    }
    fn delete(&self, key: &[u8], wo: WriteOpts) -> anyhow::Result<()> {
        check_wal(wo)?;
        self.ks.remove(key)?;
        self.persist(wo)
    }
    fn write_batch(&self, ops: &[BatchOp<'_>], wo: WriteOpts) -> anyhow::Result<()> {
        check_wal(wo)?;
        let mut b = self.db.batch();
        for op in ops {
            match op {
                BatchOp::Put(k, v) => b.insert(&self.ks, *k, *v),
                BatchOp::Delete(k) => b.remove(&self.ks, *k),
                BatchOp::DeleteRange(..) => {
                    anyhow::bail!("Not supported: fjall has no DeleteRange")
                }
            }
        }
        b.commit()?;
        self.persist(wo)
    }
    fn get(&self, key: &[u8], verify_checksums: bool) -> anyhow::Result<Option<usize>> {
        // fjall checks every block's checksum; it has no switch to skip it,
        // so a run that asks not to check is refused, not run checking.
        if !verify_checksums {
            anyhow::bail!(
                "Not supported: flag '--verify_checksum' (verify_checksum=false) is not supported by fjall: it checks every block's checksum"
            );
        }
        Ok(self.ks.get(key)?.map(|v| v.len()))
    }
    fn has_multi_get(&self) -> bool {
        false
    }
    fn iter(&self, verify_checksums: bool) -> anyhow::Result<Box<dyn BenchIter + '_>> {
        if !verify_checksums {
            anyhow::bail!(
                "Not supported: flag '--verify_checksum' (verify_checksum=false) is not supported by fjall: it checks every block's checksum"
            );
        }
        Ok(Box::new(FjallIter {
            ks: &self.ks,
            it: None,
            forward: true,
            current: None,
        }))
    }
    fn flush(&self) -> anyhow::Result<()> {
        Ok(self.ks.rotate_memtable_and_wait()?)
    }
    fn compact_all(&self) -> anyhow::Result<()> {
        Ok(self.ks.major_compact()?)
    }
    fn wait_for_compaction(&self) -> anyhow::Result<()> {
        // fjall says how many flushes are queued and compactions run, not
        // whether one is due: wait until neither has changed for 200 ms.
        let state = || {
            (
                self.db.outstanding_flushes(),
                self.db.active_compactions(),
                self.db.compactions_completed(),
                self.ks.table_count(),
                self.ks.sealed_memtable_count(),
            )
        };
        let mut last = state();
        let mut since = std::time::Instant::now();
        loop {
            std::thread::sleep(std::time::Duration::from_millis(20));
            let now = state();
            if now != last {
                last = now;
                since = std::time::Instant::now();
            } else if now.0 == 0
                && now.1 == 0
                && now.4 == 0
                && since.elapsed() >= std::time::Duration::from_millis(200)
            {
                return Ok(());
            }
        }
    }
    fn property(&self, name: &str) -> Option<String> {
        if name != "rocksdb.stats" && name != "rocksdb.levelstats" {
            return None;
        }
        let levels: Vec<(usize, usize)> = (0..7)
            .filter_map(|level| Some((level, self.ks.tree.level_table_count(level)?)))
            .collect();
        let summary = (name == "rocksdb.stats").then(|| FjallSummary {
            tables: self.ks.table_count(),
            table_bytes: self.ks.tree.disk_space(),
            compactions: self.db.compactions_completed(),
            compacting_secs: self.db.time_compacting().as_secs_f64(),
            disk_bytes: self.db.disk_space().unwrap_or(0),
            journals: self.db.journal_count(),
        });
        let s = format_fjall_stats(&levels, summary.as_ref());
        Some(s)
    }
    fn statistics_dump(&self) -> Option<String> {
        None
    }
    fn sample(&self) -> super::EngineSample {
        // fjall's API gives its level 0 tables, not stall time or
        // compaction debt.
        super::EngineSample {
            l0_files: self.ks.tree.level_table_count(0).map(|n| n as u64),
            ..super::EngineSample::default()
        }
    }
}

/// A cursor over fjall's double-ended iterators: forward from a seek, or
/// backward from the last key; a change of direction starts a new
/// iterator at the current key.
struct FjallIter<'a> {
    ks: &'a Keyspace,
    it: Option<fjall::Iter>,
    forward: bool,
    current: Option<(Vec<u8>, usize)>,
}

impl FjallIter<'_> {
    fn step(&mut self) -> anyhow::Result<()> {
        let Some(it) = self.it.as_mut() else {
            self.current = None;
            return Ok(());
        };
        let item = if self.forward {
            it.next()
        } else {
            it.next_back()
        };
        self.current = match item {
            Some(g) => {
                let (k, v) = g.into_inner()?;
                Some((k.to_vec(), v.len()))
            }
            None => None,
        };
        Ok(())
    }
}

impl BenchIter for FjallIter<'_> {
    fn go(&mut self, to: Move<'_>) -> anyhow::Result<()> {
        match to {
            Move::First | Move::Last => {
                self.it = Some(self.ks.iter());
                self.forward = matches!(to, Move::First);
            }
            Move::Seek(key) => {
                self.it = Some(self.ks.range(key.to_vec()..));
                self.forward = true;
            }
            Move::Next | Move::Prev => {
                let forward = matches!(to, Move::Next);
                if self.forward != forward {
                    // A turn: a new range on the far side of the current key.
                    let Some((k, _)) = self.current.take() else {
                        return Ok(());
                    };
                    self.it = Some(if forward {
                        let mut after = k;
                        after.push(0);
                        self.ks.range(after..)
                    } else {
                        self.ks.range(..k)
                    });
                    self.forward = forward;
                }
            }
        }
        self.step()
    }
    fn valid(&self) -> bool {
        self.current.is_some()
    }
    fn key(&self) -> &[u8] {
        self.current.as_ref().map_or(&[], |(k, _)| k.as_slice())
    }
    fn value_len(&self) -> usize {
        self.current.as_ref().map_or(0, |(_, n)| *n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options_map::settings_of as settings;

    #[test]
    fn defaults_are_fjalls_own_and_given_flags_map() {
        assert_eq!(map_options(&settings(&[])).unwrap(), FjallConfig::default());
        let c = map_options(&settings(&[
            "--write_buffer_size=8388608",
            "--target_file_size_base=4194304",
            "--level0_file_num_compaction_trigger=8",
            "--max_bytes_for_level_multiplier=8",
            "--block_size=8192",
            "--block_restart_interval=4",
            "--bloom_bits=0",
            "--compression_type=lz4",
            "--cache_size=1048576",
            "--max_background_jobs=2",
            "--open_files=-1",
        ]))
        .unwrap();
        assert_eq!(c.max_memtable_size, Some(8 << 20));
        assert_eq!(c.table_target_size, Some(4 << 20));
        assert_eq!(c.l0_threshold, Some(8));
        assert_eq!(c.level_ratio, Some(8.0));
        assert_eq!(c.block_size, Some(8192));
        assert_eq!(c.restart_interval, Some(4));
        assert_eq!(c.bloom_bits, Some(0.0));
        assert_eq!(c.lz4, Some(true));
        assert_eq!(c.cache_size, Some(1 << 20));
        assert_eq!(c.worker_threads, Some(2));
        assert_eq!(c.max_cached_files, Some(None));
        assert_eq!(c.hash_ratio(), None);
        let d = c.describe();
        assert!(
            d.contains("filter=none") && d.contains("compression=lz4"),
            "{d}"
        );
    }

    /// fjall's hash ratio is buckets per key, the inverse of RocksDB's
    /// keys per bucket.
    #[test]
    fn the_data_block_hash_index_maps_to_fjalls_hash_ratio() {
        let c = map_options(&settings(&["--use_data_block_hash_index=true"])).unwrap();
        assert_eq!(c.hash_ratio(), Some(1.0 / 0.75));
        let c = map_options(&settings(&[
            "--use_data_block_hash_index=true",
            "--data_block_hash_table_util_ratio=0.5",
        ]))
        .unwrap();
        assert_eq!(c.hash_ratio(), Some(2.0));
        assert!(
            c.describe().contains("data_block_hash_ratio=2"),
            "{}",
            c.describe()
        );
        let c = map_options(&settings(&["--use_data_block_hash_index=false"])).unwrap();
        assert_eq!(c.hash_ratio(), Some(0.0));
        crate::engine::mapping::assert_refused(
            map_options,
            "fjall",
            &["--data_block_hash_table_util_ratio=0"],
        );
    }

    /// Blob files map to fjall's key-value separation; GC on and off are
    /// explicit, and what fjall cannot do is refused naming the flag.
    #[test]
    fn blob_files_map_to_kv_separation() {
        let c = map_options(&settings(&[])).unwrap();
        assert!(c.kv_separation().is_none());
        assert!(c.describe().contains("kv_separation=(fjall default: off)"));
        let c = map_options(&settings(&[
            "--enable_blob_files=true",
            "--min_blob_size=512",
            "--blob_file_size=1048576",
            "--blob_compression_type=none",
        ]))
        .unwrap();
        let kv = c.kv_separation().unwrap();
        assert_eq!(kv.separation_threshold, 512);
        assert_eq!(kv.file_target_size, 1 << 20);
        assert_eq!(kv.compression, CompressionType::None);
        // GC not given: fjall's own.
        assert_eq!(c.blob_gc, None);
        let d = KvSeparationOptions::default();
        assert_eq!(
            (kv.staleness_threshold, kv.age_cutoff),
            (d.staleness_threshold, d.age_cutoff)
        );
        let d = c.describe();
        assert!(
            d.contains("separation_threshold=512 ")
                && d.contains("compression=none ")
                && d.contains("age_cutoff=0.25 (fjall default)"),
            "{d}"
        );
        // GC off given: no blob file is old enough to be rewritten.
        let c = map_options(&settings(&[
            "--enable_blob_files=true",
            "--enable_blob_garbage_collection=false",
        ]))
        .unwrap();
        assert_eq!(c.kv_separation().unwrap().age_cutoff, 0.0);
        let c = map_options(&settings(&[
            "--enable_blob_files=true",
            "--enable_blob_garbage_collection=true",
            "--blob_garbage_collection_age_cutoff=0.5",
            "--blob_garbage_collection_force_threshold=1",
        ]))
        .unwrap();
        let kv = c.kv_separation().unwrap();
        assert_eq!((kv.staleness_threshold, kv.age_cutoff), (0.0, 0.5));
        assert!(map_options(&settings(&["--enable_blob_files=false"]))
            .unwrap()
            .kv_separation()
            .is_none());
        for (flags, name) in [
            (
                &["--enable_blob_files=true", "--blob_compression_type=zstd"][..],
                "blob_compression_type",
            ),
            (
                &["--enable_blob_files=true", "--blob_file_size=0"][..],
                "blob_file_size",
            ),
            (
                &[
                    "--enable_blob_files=true",
                    "--enable_blob_garbage_collection=true",
                    "--blob_garbage_collection_force_threshold=0.5",
                ][..],
                "blob_garbage_collection_force_threshold",
            ),
            (
                &[
                    "--enable_blob_files=true",
                    "--enable_blob_garbage_collection=true",
                    "--blob_garbage_collection_age_cutoff=1.5",
                ][..],
                "blob_garbage_collection_age_cutoff",
            ),
            (
                &["--enable_blob_files=true", "--use_blob_cache=true"][..],
                "use_blob_cache",
            ),
        ] {
            let e = map_options(&settings(flags)).unwrap_err().to_string();
            assert!(
                e.contains(&format!("'--{name}'")) && e.contains("fjall"),
                "{e}"
            );
        }
    }

    /// Values at or above the threshold go to blob files and read back.
    #[test]
    fn blob_files_hold_large_values() {
        let dir = tempfile::tempdir().unwrap();
        let c = map_options(&settings(&[
            "--enable_blob_files=true",
            "--min_blob_size=100",
            "--blob_compression_type=none",
        ]))
        .unwrap();
        let db = open_engine(dir.path(), &c).unwrap();
        for i in 0..200u32 {
            let v = vec![b'x'; if i % 2 == 0 { 500 } else { 10 }];
            db.put(format!("{i:04}").as_bytes(), &v, WriteOpts::default())
                .unwrap();
        }
        db.flush().unwrap();
        assert!(db.ks.tree.blob_file_count() >= 1);
        assert_eq!(db.get(b"0042", true).unwrap(), Some(500));
        assert_eq!(db.get(b"0043", true).unwrap(), Some(10));
        let mut it = db.iter(true).unwrap();
        it.seek(b"0100").unwrap();
        assert_eq!(it.key(), b"0100");
    }

    #[test]
    fn level_base_is_accepted_when_it_is_fjalls_l1() {
        map_options(&settings(&[
            "--target_file_size_base=2621440",
            "--max_bytes_for_level_base=10485760",
        ]))
        .unwrap();
        map_options(&settings(&[
            "--target_file_size_base=1048576",
            "--level0_file_num_compaction_trigger=8",
            "--max_bytes_for_level_base=8388608",
        ]))
        .unwrap();
        let e = map_options(&settings(&[
            "--target_file_size_base=4194304",
            "--max_bytes_for_level_base=10485760",
        ]))
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("'--max_bytes_for_level_base'") && e.contains("16777216"),
            "{e}"
        );
    }

    #[test]
    fn flags_fjall_lacks_are_errors_naming_flag_and_engine() {
        crate::engine::mapping::assert_refused(
            map_options,
            "fjall",
            &[
                "--compression_type=snappy",
                "--compression_type=zstd",
                "--max_bytes_for_level_base=1048576",
                "--level0_slowdown_writes_trigger=10",
                "--subcompactions=2",
                "--paranoid_checks=false",
                "--block_size=512",
                "--merge_operator=uint64add",
                "--writes_per_range_tombstone=10",
                "--enable_write_thread_adaptive_yield=false",
                "--write_thread_max_yield_usec=50",
            ],
        );
    }

    #[test]
    fn iterates_both_ways_and_reports_tables() {
        let dir = tempfile::tempdir().unwrap();
        let db = FjallFactory
            .open(dir.path(), &settings(&["--write_buffer_size=1048576"]))
            .unwrap();
        for i in 0..100u32 {
            db.put(format!("{i:04}").as_bytes(), b"value", WriteOpts::default())
                .unwrap();
        }
        db.flush().unwrap();
        db.wait_for_compaction().unwrap();
        assert_eq!(db.get(b"0042", true).unwrap(), Some(5));
        let mut it = db.iter(true).unwrap();
        it.seek(b"0050").unwrap();
        assert_eq!(it.key(), b"0050");
        it.prev().unwrap();
        assert_eq!(it.key(), b"0049");
        it.next().unwrap();
        assert_eq!(it.key(), b"0050");
        it.seek_to_last().unwrap();
        assert_eq!(it.key(), b"0099");
        it.prev().unwrap();
        assert_eq!(it.key(), b"0098");
        drop(it);
        let stats = db.property("rocksdb.stats").unwrap();
        let parsed = crate::dbbench_text::parse_db_stats(&stats);
        let sum = parsed.levels.last().unwrap();
        assert_eq!(sum.level, "Sum", "{stats}");
        assert!(sum.num("Files").unwrap() >= 1.0, "{stats}");
        assert_eq!(sum.num("W-Amp"), None, "fjall tells no bytes written");
    }
}
