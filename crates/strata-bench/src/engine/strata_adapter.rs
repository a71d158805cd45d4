//! Adapter from [`BenchEngine`](super::BenchEngine) to `strata::Db`.
//!
//! Settings reach `strata::Options::set` by their RocksDB names, so an
//! option of a feature Strata has not built yet comes back as
//! `NotSupported` naming it (and the harness names the flag). Turning an
//! unbuilt feature *off* (`level_compaction_dynamic_level_bytes=false`, which
//! db_bench passes by default) is what Strata already does, so that is
//! skipped rather than refused.

use std::path::Path;
use std::sync::Arc;

use strata::DbIterator;
use strata::{ColumnFamily, Db, Options, ReadOptions, WriteBatch, WriteOptions};

use super::families::{split, FamilyLayout};
use super::{BatchOp, BenchEngine, BenchIter, EngineFactory, EngineSample, Move};
use crate::options_map::{OptionSetting, WriteOpts};

/// Opens Strata databases.
#[derive(Debug, Default, Clone, Copy)]
pub struct StrataFactory;

/// An open Strata DB.
pub struct StrataEngine {
    db: Db,
    layout: FamilyLayout,
    /// Every family, "default" first, in the layout's order.
    families: Vec<ColumnFamily>,
}

/// Applies `settings` to Strata's options.
pub fn build_options(settings: &[OptionSetting]) -> anyhow::Result<Options> {
    let mut o = Options::default().create_if_missing(true);
    for s in settings {
        // A workload setting: Strata has DeleteRange.
        if s.option == "delete_range" {
            continue;
        }
        let (name, value) = match s.option.split_once('.') {
            Some((group, leaf)) => (group.to_string(), format!("{{{leaf}={}}}", s.value)),
            None => (s.option.to_string(), s.value.clone()),
        };
        match o.set(&name, &value) {
            Ok(()) => {}
            Err(strata::Error::NotSupported(_)) if value == "false" => {}
            Err(e) => anyhow::bail!("{e} (option {name}={value})"),
        }
    }
    Ok(o)
}

impl EngineFactory for StrataFactory {
    fn name(&self) -> &'static str {
        "Strata"
    }
    fn version(&self) -> String {
        format!(
            "{} ({})",
            env!("CARGO_PKG_VERSION"),
            crate::build_info::describe()
        )
    }
    fn open(
        &self,
        path: &Path,
        settings: &[OptionSetting],
    ) -> anyhow::Result<Arc<dyn BenchEngine>> {
        let (layout, base, specs) = split(settings)?;
        let opts = build_options(&base)?.create_missing_column_families(true);
        let mut named = Vec::new();
        for f in &specs {
            named.push((f.name.clone(), build_options(&f.settings)?));
        }
        let db = Db::open_cf(path, opts, named)?;
        let mut families = vec![db.default_column_family()];
        for f in &specs {
            families.push(
                db.column_family(&f.name)
                    .ok_or_else(|| anyhow::anyhow!("column family {} did not open", f.name))?,
            );
        }
        Ok(Arc::new(StrataEngine {
            db,
            layout,
            families,
        }))
    }
}

fn write_options(wo: WriteOpts) -> WriteOptions {
    WriteOptions::default()
        .sync(wo.sync)
        .disable_wal(wo.disable_wal)
}

impl StrataEngine {
    /// The family `key` lives in; `None` for "default".
    fn family(&self, key: &[u8]) -> Option<&ColumnFamily> {
        match self.layout.family_of(key) {
            0 => None,
            i => self.families.get(i),
        }
    }
}

impl BenchEngine for StrataEngine {
    fn put(&self, key: &[u8], value: &[u8], wo: WriteOpts) -> anyhow::Result<()> {
        match self.family(key) {
            None => Ok(self.db.put_opt(&write_options(wo), key, value)?),
            Some(cf) => {
                let mut b = WriteBatch::new();
                b.put_cf(cf, key, value);
                Ok(self.db.write_opt(&write_options(wo), b)?)
            }
        }
    }
    fn delete(&self, key: &[u8], wo: WriteOpts) -> anyhow::Result<()> {
        match self.family(key) {
            None => Ok(self.db.delete_opt(&write_options(wo), key)?),
            Some(cf) => {
                let mut b = WriteBatch::new();
                b.delete_cf(cf, key);
                Ok(self.db.write_opt(&write_options(wo), b)?)
            }
        }
    }
    fn has_merge(&self) -> bool {
        true
    }
    fn merge(&self, key: &[u8], operand: &[u8], wo: WriteOpts) -> anyhow::Result<()> {
        match self.family(key) {
            None => Ok(self.db.merge_opt(&write_options(wo), key, operand)?),
            Some(cf) => Ok(self.db.merge_cf_opt(&write_options(wo), cf, key, operand)?),
        }
    }
    fn write_batch(&self, ops: &[BatchOp<'_>], wo: WriteOpts) -> anyhow::Result<()> {
        let mut b = WriteBatch::new();
        for op in ops {
            // The default family is a handle like the others (its `put_cf`
            // is `put`).
            let cf = self.family(op.key()).unwrap_or(&self.families[0]);
            match *op {
                BatchOp::Put(k, v) => b.put_cf(cf, k, v),
                BatchOp::Delete(k) => b.delete_cf(cf, k),
                BatchOp::DeleteRange(begin, end) => b.delete_range_cf(cf, begin, end),
            }
        }
        Ok(self.db.write_opt(&write_options(wo), b)?)
    }
    fn get(&self, key: &[u8], verify_checksums: bool) -> anyhow::Result<Option<usize>> {
        let ro = ReadOptions::default().verify_checksums(verify_checksums);
        // Pinned, as the RocksDB adapter reads: no copy of the value.
        match self.family(key) {
            None => Ok(self.db.get_pinned(&ro, key)?.map(|v| v.len())),
            Some(cf) => Ok(self.db.get_pinned_cf(cf, &ro, key)?.map(|v| v.len())),
        }
    }
    fn multi_get(
        &self,
        keys: &[&[u8]],
        verify_checksums: bool,
        _batched: bool, // Strata has one MultiGet
    ) -> anyhow::Result<Vec<Option<usize>>> {
        let ro = ReadOptions::default().verify_checksums(verify_checksums);
        if self.layout != FamilyLayout::One {
            return keys.iter().map(|k| self.get(k, verify_checksums)).collect();
        }
        self.db
            .multi_get(&ro, keys)
            .into_iter()
            .map(|r| Ok(r?.map(|v| v.len())))
            .collect()
    }
    fn iter(&self, verify_checksums: bool) -> anyhow::Result<Box<dyn BenchIter + '_>> {
        let ro = ReadOptions::default().verify_checksums(verify_checksums);
        Ok(Box::new(StrataIter {
            it: self.db.iter_opt(&ro),
        }))
    }
    fn flush(&self) -> anyhow::Result<()> {
        for cf in &self.families {
            self.db.flush_cf(cf)?;
        }
        Ok(())
    }
    fn compact_all(&self) -> anyhow::Result<()> {
        for cf in &self.families {
            self.db.compact_range_cf(cf, None, None)?;
        }
        Ok(())
    }
    fn wait_for_compaction(&self) -> anyhow::Result<()> {
        Ok(self.db.wait_for_compaction()?)
    }
    fn property(&self, name: &str) -> Option<String> {
        // `rocksdb.stats` of every family when there are several (each
        // table names its family); other properties are the default's.
        if self.families.len() > 1 && name == "rocksdb.stats" {
            let texts: Option<Vec<String>> = self
                .families
                .iter()
                .map(|cf| self.db.property_cf(cf, name))
                .collect();
            return texts.map(|t| t.concat());
        }
        self.db.property(name)
    }
    fn statistics_dump(&self) -> Option<String> {
        self.db.statistics().map(|s| s.to_string())
    }
    fn sample(&self) -> EngineSample {
        // Summed over the families (one unless a layout splits the keys).
        let sum = |name: &str| -> Option<u64> {
            self.families
                .iter()
                .map(|cf| self.db.property_cf(cf, name)?.trim().parse::<u64>().ok())
                .sum()
        };
        EngineSample {
            l0_files: sum("rocksdb.num-files-at-level0"),
            pending_compaction_bytes: sum("rocksdb.estimate-pending-compaction-bytes"),
            stall_micros: self
                .db
                .statistics()
                .map(|s| s.ticker(strata::stats::Ticker::StallMicros)),
        }
    }
}

struct StrataIter {
    it: DbIterator,
}

impl BenchIter for StrataIter {
    fn go(&mut self, to: Move<'_>) -> anyhow::Result<()> {
        match to {
            Move::First => self.it.seek_to_first(),
            Move::Last => self.it.seek_to_last(),
            Move::Seek(key) => self.it.seek(key),
            Move::Next => self.it.advance(),
            Move::Prev => self.it.retreat(),
        }
        Ok(self.it.status()?)
    }
    fn valid(&self) -> bool {
        self.it.valid()
    }
    fn key(&self) -> &[u8] {
        if self.it.valid() {
            self.it.key()
        } else {
            &[]
        }
    }
    fn value_len(&self) -> usize {
        if self.it.valid() {
            self.it.value().len()
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options_map::settings_of as settings;

    #[test]
    fn db_bench_defaults_are_accepted_by_strata() {
        let o = build_options(&settings(&[])).unwrap();
        assert_eq!(o.write_buffer_size, 64 << 20);
        assert_eq!(o.delayed_write_rate, 8 << 20);
        assert_eq!(o.hard_pending_compaction_bytes_limit, 128 << 30);
        assert_eq!(o.block_cache_size, 8 << 20);
        assert_eq!(o.bloom_bits_per_key, 0.0);
        let o = build_options(&settings(&["--bloom_bits=10", "--statistics=1"])).unwrap();
        assert_eq!(o.bloom_bits_per_key, 10.0);
        assert!(o.statistics);
    }

    #[test]
    fn the_data_block_hash_index_follows_db_benchs_flags() {
        use strata::DataBlockIndexType;
        let o = build_options(&settings(&[])).unwrap();
        assert_eq!(o.data_block_index_type, DataBlockIndexType::BinarySearch);
        assert_eq!(o.data_block_hash_table_util_ratio, 0.75);
        let o = build_options(&settings(&[
            "--use_data_block_hash_index=true",
            "--data_block_hash_table_util_ratio=0.5",
        ]))
        .unwrap();
        assert_eq!(o.data_block_index_type, DataBlockIndexType::BinaryAndHash);
        assert_eq!(o.data_block_hash_table_util_ratio, 0.5);
    }

    #[test]
    fn the_writer_queues_poll_follows_db_benchs_flags() {
        let o = build_options(&settings(&[])).unwrap();
        assert!(o.enable_write_thread_adaptive_yield);
        assert_eq!(o.write_thread_max_yield_usec, 100);
        let o = build_options(&settings(&[
            "--enable_write_thread_adaptive_yield=false",
            "--write_thread_max_yield_usec=7",
        ]))
        .unwrap();
        assert!(!o.enable_write_thread_adaptive_yield);
        assert_eq!(o.write_thread_max_yield_usec, 7);
    }

    #[test]
    fn keys_reach_the_families_of_their_layout() {
        let dir = tempfile::tempdir().unwrap();
        let s = settings(&[
            "--num=100",
            "--hot_key_fraction=0.2",
            "--cold_compaction_style=1",
            "--write_buffer_size=65536",
        ]);
        let db = StrataFactory.open(dir.path(), &s).unwrap();
        let key = |k: u64| crate::keygen::make_key(k, 16);
        for k in 0..100 {
            db.put(&key(k), b"v", WriteOpts::default()).unwrap();
        }
        db.flush().unwrap();
        assert_eq!(db.get(&key(5), true).unwrap(), Some(1));
        assert_eq!(db.get(&key(50), true).unwrap(), Some(1));
        drop(db);
        let names = Db::list_column_families(dir.path(), &Options::default()).unwrap();
        assert_eq!(names, ["default", "hot", "cold"]);
        let fams = [
            ("hot", Options::default()),
            (
                "cold",
                Options::default().compaction_style(strata::CompactionStyle::Universal),
            ),
        ];
        let raw = Db::open_cf(dir.path(), Options::default(), fams).unwrap();
        let hot = raw.column_family("hot").unwrap();
        let cold = raw.column_family("cold").unwrap();
        assert!(raw.get_cf(&hot, key(19)).unwrap().is_some());
        assert!(raw.get_cf(&hot, key(20)).unwrap().is_none());
        assert!(raw.get_cf(&cold, key(20)).unwrap().is_some());
        assert!(raw.get(key(20)).unwrap().is_none());
    }

    #[test]
    fn unbuilt_features_are_refused_naming_the_option_or_accepted() {
        for (flag, option) in [
            ("--compaction_style=1", "compaction_style"),
            ("--enable_blob_files=true", "enable_blob_files"),
            ("--use_direct_reads=true", "use_direct_reads"),
            (
                "--level_compaction_dynamic_level_bytes=true",
                "level_compaction_dynamic_level_bytes",
            ),
        ] {
            // Accepted the day Strata builds the feature; until then the
            // error must name the option so the harness can name the flag.
            if let Err(e) = build_options(&settings(&[flag])) {
                assert!(format!("{e}").contains(option), "{flag}: {e}");
            }
        }
    }
}
