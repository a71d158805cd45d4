//! DB properties with RocksDB's names (`rocksdb.stats`, ...).

use std::fmt::Write as _;
use std::sync::atomic::Ordering;

use super::internal_stats::{InternalStats, LevelCompStats};
use super::{DbInner, State};
use crate::blob::BlobSpaceStats;
use crate::compaction::leveled::level_scores;
use crate::compaction::policy::CompactionPolicy;
use crate::stats::compaction_table::{
    format_stats, CompactionStatsInput, DbStatsCounters, DbStatsInput, LevelStatsRow, StallCounts,
};
use crate::stats::waf::{end_to_end_waf, rocksdb_w_amp_from_tickers, WafInputs};
use crate::write_controller::StallCause;

impl DbInner {
    /// Property `name` of family `cf` (DB-wide properties are the same for
    /// every family); `None` for an unknown name or family.
    pub(crate) fn property(&self, cf: u32, name: &str) -> Option<String> {
        let mut st = self.state.lock();
        if !st.families.contains_key(&cf) {
            return None;
        }
        let v = st.versions.current(cf);
        let fam = st.fam(cf).family.clone();
        let o = &fam.opts;
        if let Some(n) = name.strip_prefix("rocksdb.num-files-at-level") {
            let level: usize = n.parse().ok()?;
            return (level < v.num_levels()).then(|| v.files(level).len().to_string());
        }
        if let Some(n) = name.strip_prefix("rocksdb.compression-ratio-at-level") {
            let level: usize = n.parse().ok()?;
            if level >= v.num_levels() {
                return None;
            }
            // Opening tables is I/O: not under the DB's lock.
            drop(st);
            // As RocksDB's GetEstimatedCompressionRatioAtLevel: the level's
            // raw key and value bytes (table properties) over its file
            // bytes, -1 with no readable file; printed as std::to_string.
            let (mut raw, mut on_disk) = (0u64, 0u64);
            for f in v.files(level) {
                if let Ok(t) = self.table_cache.get(f.number) {
                    let p = t.properties();
                    let r = p.raw_key_size + p.raw_value_size;
                    if r > 0 {
                        raw += r;
                        on_disk += f.file_size;
                    }
                }
            }
            let ratio = if on_disk == 0 {
                -1.0
            } else {
                raw as f64 / on_disk as f64
            };
            return Some(format!("{ratio:.6}"));
        }
        let blob_space = || BlobSpaceStats::from_files(&v.blob_file_states());
        let s = match name {
            "rocksdb.stats" | "rocksdb.cfstats" => self.stats_text(&mut st, cf),
            "rocksdb.levelstats" => {
                let mut s = String::from("Level Files Size(MB)\n--------------------\n");
                for l in 0..v.num_levels() {
                    let _ = writeln!(
                        s,
                        "{l:>5} {:>5} {:>8.0}",
                        v.files(l).len(),
                        v.level_bytes(l) as f64 / 1048576.0
                    );
                }
                s
            }
            "rocksdb.estimate-num-keys" => {
                let mut n: u64 = 0;
                let mut d: u64 = 0;
                let sv = self.get_super_version(&fam);
                for m in std::iter::once(&sv.mem).chain(sv.imm.iter()) {
                    n += m.num_entries();
                    d += m.num_deletions();
                }
                for l in 0..v.num_levels() {
                    for f in v.files(l) {
                        n += f.num_entries;
                        d += f.num_deletions;
                    }
                }
                // As RocksDB: entries minus twice the deletions (a delete
                // removes itself and, probably, one older value).
                n.saturating_sub(2 * d).to_string()
            }
            "rocksdb.total-sst-files-size" | "rocksdb.live-sst-files-size" => {
                v.total_bytes().to_string()
            }
            "rocksdb.estimate-pending-compaction-bytes" => CompactionPolicy::of(o)
                .pending_compaction_bytes(&v)
                .to_string(),
            "rocksdb.num-immutable-mem-table" => st.fam(cf).imm.len().to_string(),
            "rocksdb.cur-size-active-mem-table" => {
                st.fam(cf).mem.approximate_memory_usage().to_string()
            }
            "rocksdb.cur-size-all-mem-tables" => {
                let f = st.fam(cf);
                (f.mem.approximate_memory_usage()
                    + f.imm
                        .iter()
                        .map(|m| m.approximate_memory_usage())
                        .sum::<usize>())
                .to_string()
            }
            "rocksdb.mem-table-flush-pending" => u8::from(!st.fam(cf).imm.is_empty()).to_string(),
            "rocksdb.compaction-pending" => {
                u8::from(crate::compaction::pick_scheduled(&v, &st.fam(cf).busy, o).is_some())
                    .to_string()
            }
            "rocksdb.num-running-compactions" => st.compactions_running.to_string(),
            "rocksdb.num-running-flushes" => u8::from(st.flush_running).to_string(),
            "rocksdb.background-errors" => u8::from(st.bg_error.is_some()).to_string(),
            "rocksdb.is-write-stopped" => u8::from(st.write_stopped).to_string(),
            "rocksdb.actual-delayed-write-rate" => self.opts.delayed_write_rate.to_string(),
            "rocksdb.num-snapshots" => self.snapshots.count().to_string(),
            "rocksdb.oldest-snapshot-time" => {
                self.snapshots.oldest_unix_time().unwrap_or(0).to_string()
            }
            "rocksdb.oldest-snapshot-sequence" => self.snapshots.oldest().unwrap_or(0).to_string(),
            "rocksdb.num-live-versions" => st.versions.num_live_versions(cf).to_string(),
            "rocksdb.current-super-version-number" => self
                .super_version_number
                .load(Ordering::Acquire)
                .to_string(),
            "rocksdb.estimate-live-data-size" => v.total_bytes().to_string(),
            "rocksdb.block-cache-capacity" => self
                .block_cache
                .as_ref()
                .map_or(0, |c| c.capacity())
                .to_string(),
            "rocksdb.block-cache-usage" => self
                .block_cache
                .as_ref()
                .map_or(0, |c| c.usage())
                .to_string(),
            "rocksdb.last-sequence" => self.last_sequence.load(Ordering::Acquire).to_string(),
            "rocksdb.num-blob-files" => v.blob_files.len().to_string(),
            "rocksdb.blob-stats" => blob_space().to_property_string(),
            "rocksdb.live-blob-file-size" => blob_space().total_file_size.to_string(),
            "rocksdb.live-blob-file-garbage-size" => blob_space().total_garbage_size.to_string(),
            "rocksdb.total-blob-file-size" => {
                // Over the blob files of every live version (files a reader
                // still pins count until it lets go).
                let live = st.versions.live_files();
                let mut total = 0u64;
                for n in live {
                    if let Ok(sz) = self
                        .fs
                        .file_size(&crate::filename::blob_file_name(&self.dir, n))
                    {
                        total += sz;
                    }
                }
                total.to_string()
            }
            "rocksdb.blob-cache-capacity" => self
                .blob_source
                .cache()
                .map_or(0, |c| c.capacity())
                .to_string(),
            "rocksdb.blob-cache-usage" => self
                .blob_source
                .cache()
                .map_or(0, |c| c.usage())
                .to_string(),
            _ => return None,
        };
        Some(s)
    }

    /// The `rocksdb.stats` text (RocksDB 7.8's layout): Compaction Stats
    /// and DB Stats blocks. Each call starts a new interval, as in RocksDB.
    pub(crate) fn stats_text(&self, st: &mut State, cf_id: u32) -> String {
        let cf = cf_id;
        let v = st.versions.current(cf);
        let f = st.fam(cf);
        let busy = &f.busy;
        let cf_name = f.family.name.clone();
        let scores = level_scores(&v, busy, f.opts());
        let now = std::time::Instant::now();
        // The DB-wide counters with this family's compaction rows.
        let mut istats = st.istats.clone();
        istats.levels = f.istats.levels.clone();
        istats.flush_bytes = f.istats.flush_bytes;
        let (prev, prev_at) = f
            .stats_baseline
            .clone()
            .unwrap_or_else(|| (InternalStats::new(v.num_levels()), st.istats.start));
        let row = |l: usize, ls: &LevelCompStats| LevelStatsRow {
            level: format!("L{l}"),
            files: v.files(l).len() as u64,
            files_being_compacted: v
                .files(l)
                .iter()
                .filter(|f| busy.files.contains(&f.number))
                .count() as u64,
            size_bytes: v.level_bytes(l),
            score: scores.iter().find(|(x, _)| *x == l).map_or(0.0, |x| x.1),
            read_bytes_n: ls.read_n,
            read_bytes_np1: ls.read_np1,
            read_blob_bytes: ls.read_blob,
            write_bytes: ls.write,
            write_blob_bytes: ls.write_blob,
            moved_bytes: ls.moved,
            comp_micros: ls.micros,
            comp_cpu_micros: ls.cpu_micros,
            comp_count: ls.count,
            num_input_records: ls.keys_in,
            num_dropped_records: ls.keys_dropped,
        };
        let levels: Vec<LevelStatsRow> = istats
            .levels
            .iter()
            .enumerate()
            .map(|(l, ls)| row(l, ls))
            .collect();
        let mut interval = LevelStatsRow::new("Int");
        for (l, ls) in istats.levels.iter().enumerate() {
            let p = prev.levels.get(l).cloned().unwrap_or_default();
            let d = LevelCompStats {
                read_n: ls.read_n - p.read_n,
                read_np1: ls.read_np1 - p.read_np1,
                write: ls.write - p.write,
                moved: ls.moved - p.moved,
                read_blob: ls.read_blob - p.read_blob,
                write_blob: ls.write_blob - p.write_blob,
                micros: ls.micros - p.micros,
                cpu_micros: ls.cpu_micros - p.cpu_micros,
                count: ls.count - p.count,
                keys_in: ls.keys_in - p.keys_in,
                keys_dropped: ls.keys_dropped - p.keys_dropped,
            };
            let mut r = row(l, &d);
            r.files = 0;
            r.size_bytes = 0;
            interval.add(&r);
        }
        let stalls = stall_counts(&istats);
        let prev_stalls = stall_counts(&prev);
        let uptime = now.duration_since(st.istats.start).as_secs_f64();
        let interval_secs = now.duration_since(prev_at).as_secs_f64();
        let blob_space = BlobSpaceStats::from_files(&v.blob_file_states());
        let cf = CompactionStatsInput {
            blob_file_count: blob_space.num_blob_files,
            blob_total_bytes: blob_space.total_file_size,
            blob_garbage_bytes: blob_space.total_garbage_size,
            cf_name,
            levels,
            interval,
            priorities: Vec::new(),
            flush_bytes: istats.flush_bytes,
            interval_flush_bytes: istats.flush_bytes - prev.flush_bytes,
            uptime_secs: uptime,
            interval_secs,
            stalls,
            interval_stall_count: stalls.total() - prev_stalls.total(),
            block_cache_lines: self
                .block_cache
                .as_ref()
                .map(|c| {
                    vec![format!(
                        "Block cache LRUCache capacity: {} usage: {}\n",
                        c.capacity(),
                        c.usage()
                    )]
                })
                .unwrap_or_default(),
            ..CompactionStatsInput::default()
        };
        let counters = |is: &InternalStats| DbStatsCounters {
            user_bytes_written: is.user_bytes,
            keys_written: is.user_keys,
            write_self: is.commit_groups,
            write_other: is.user_writes - is.commit_groups,
            wal_bytes: is.wal_bytes,
            wal_synced: is.wal_syncs,
            write_with_wal: is.wal_writes,
            write_stall_micros: is.stall_micros,
        };
        let db = DbStatsInput {
            uptime_secs: uptime,
            interval_secs,
            cumulative: counters(&istats),
            at_previous_dump: counters(&prev),
        };
        let mut text = format_stats(&cf, &db);
        text.push_str(&write_amp_line(&istats));
        st.fam_mut(cf_id).stats_baseline = Some((istats, now));
        text
    }
}

/// Strata's addition to `rocksdb.stats`: bytes written by kind and both
/// write-amplification definitions (`docs/stats.md`).
fn write_amp_line(is: &InternalStats) -> String {
    let compaction: u64 = is
        .levels
        .iter()
        .skip(1)
        .map(|l| l.write + l.write_blob)
        .sum();
    let inputs = WafInputs {
        user_bytes: is.user_bytes,
        wal_bytes: is.wal_bytes,
        flush_bytes: is.flush_bytes,
        compaction_bytes: compaction,
        extra_blob_bytes: 0,
    };
    let gb = |b: u64| b as f64 / (1u64 << 30) as f64;
    format!(
        "Write amplification: user {:.3} GB, WAL {:.3} GB, flush {:.3} GB (blob {:.3} GB), compaction {:.3} GB (blob {:.3} GB); W-Amp (flush+compaction over flush) {:.2}, end-to-end (all writes over user bytes) {:.2}\n",
        gb(is.user_bytes),
        gb(is.wal_bytes),
        gb(is.flush_bytes),
        gb(is.levels.first().map_or(0, |l| l.write_blob)),
        gb(compaction),
        gb(is.levels.iter().skip(1).map(|l| l.write_blob).sum()),
        rocksdb_w_amp_from_tickers(&inputs),
        end_to_end_waf(&inputs)
    )
}

/// Maps the write controller's stall causes to RocksDB's `Stalls(count)`.
fn stall_counts(is: &InternalStats) -> StallCounts {
    let get = |c: StallCause, stop: bool| is.stall_counts.get(&(c, stop)).copied().unwrap_or(0);
    StallCounts {
        level0_slowdown: get(StallCause::L0FileCountLimit, false),
        level0_numfiles: get(StallCause::L0FileCountLimit, true),
        stop_for_pending_compaction_bytes: get(StallCause::PendingCompactionBytes, true),
        slowdown_for_pending_compaction_bytes: get(StallCause::PendingCompactionBytes, false),
        memtable_compaction: get(StallCause::MemtableLimit, true),
        memtable_slowdown: get(StallCause::MemtableLimit, false),
        ..StallCounts::default()
    }
}
