//! DB properties with RocksDB's names (`rocksdb.stats`, ...).

use std::fmt::Write as _;
use std::sync::atomic::Ordering;

use super::{DbInner, State};
use crate::compaction::picker::{estimated_pending_compaction_bytes, level_scores, level_targets};

impl DbInner {
    pub(crate) fn property(&self, name: &str) -> Option<String> {
        let st = self.state.lock();
        let v = st.versions.current();
        if let Some(n) = name.strip_prefix("rocksdb.num-files-at-level") {
            let level: usize = n.parse().ok()?;
            return (level < v.num_levels()).then(|| v.files(level).len().to_string());
        }
        if let Some(n) = name.strip_prefix("rocksdb.compression-ratio-at-level") {
            let _level: usize = n.parse().ok()?;
            return None;
        }
        let s = match name {
            "rocksdb.stats" => self.stats_text(&st),
            "rocksdb.cfstats" => self.stats_text(&st),
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
                let sv = self.get_super_version();
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
            "rocksdb.estimate-pending-compaction-bytes" => {
                estimated_pending_compaction_bytes(&v, &self.opts).to_string()
            }
            "rocksdb.num-immutable-mem-table" => st.imm.len().to_string(),
            "rocksdb.cur-size-active-mem-table" => st.mem.approximate_memory_usage().to_string(),
            "rocksdb.cur-size-all-mem-tables" => (st.mem.approximate_memory_usage()
                + st.imm
                    .iter()
                    .map(|m| m.approximate_memory_usage())
                    .sum::<usize>())
            .to_string(),
            "rocksdb.mem-table-flush-pending" => u8::from(!st.imm.is_empty()).to_string(),
            "rocksdb.compaction-pending" => u8::from(
                crate::compaction::picker::pick_compaction(&v, &st.busy, &self.opts).is_some(),
            )
            .to_string(),
            "rocksdb.num-running-compactions" => st.compactions_running.to_string(),
            "rocksdb.num-running-flushes" => u8::from(st.flush_running).to_string(),
            "rocksdb.background-errors" => u8::from(st.bg_error.is_some()).to_string(),
            "rocksdb.is-write-stopped" => u8::from(st.write_stopped).to_string(),
            "rocksdb.actual-delayed-write-rate" => self.opts.delayed_write_rate.to_string(),
            "rocksdb.num-snapshots" => self.snapshots.count().to_string(),
            "rocksdb.oldest-snapshot-time" => "0".into(),
            "rocksdb.num-live-versions" => "1".into(),
            "rocksdb.current-super-version-number" => "0".into(),
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
            _ => return None,
        };
        Some(s)
    }

    /// The `rocksdb.stats` text: Compaction Stats and DB Stats blocks.
    pub(crate) fn stats_text(&self, st: &State) -> String {
        let v = st.versions.current();
        let targets = level_targets(&self.opts);
        let scores = level_scores(&v, &st.busy, &self.opts);
        let mut s = String::new();
        let _ = writeln!(s, "\n** Compaction Stats [default] **");
        let _ = writeln!(s, "Level    Files   Size     Score Read(GB)  Rn(GB) Rnp1(GB) Write(GB) Wnew(GB) Moved(GB) W-Amp Rd(MB/s) Wr(MB/s) Comp(sec) CompMergeCPU(sec) Comp(cnt) Avg(sec) KeyIn KeyDrop Rblob(GB) Wblob(GB)");
        let _ = writeln!(s, "{}", "-".repeat(200));
        let gb = |b: u64| b as f64 / (1u64 << 30) as f64;
        for l in 0..v.num_levels() {
            let ls = &st.istats.levels[l];
            let score = scores.iter().find(|(x, _)| *x == l).map_or(0.0, |x| x.1);
            let _ = targets;
            let _ = writeln!(
                s,
                "  L{l:<3} {:>5} {:>8.2} MB {score:>5.1} {:>8.1} {:>7.1} {:>8.1} {:>9.1} {:>8.1} {:>9.1} {:>5.1} {:>8.1} {:>8.1} {:>9.2} {:>17.2} {:>9} {:>8.3} {:>5} {:>7} {:>9.1} {:>9.1}",
                v.files(l).len(),
                v.level_bytes(l) as f64 / 1048576.0,
                gb(ls.read_n + ls.read_np1),
                gb(ls.read_n),
                gb(ls.read_np1),
                gb(ls.write),
                gb(ls.write.saturating_sub(ls.read_np1)),
                gb(ls.moved),
                if ls.read_n > 0 { ls.write as f64 / ls.read_n as f64 } else { 0.0 },
                0.0,
                0.0,
                ls.micros as f64 / 1e6,
                ls.cpu_micros as f64 / 1e6,
                ls.count,
                if ls.count > 0 { ls.micros as f64 / 1e6 / ls.count as f64 } else { 0.0 },
                ls.keys_in,
                ls.keys_dropped,
                0.0,
                0.0
            );
        }
        s
    }
}
