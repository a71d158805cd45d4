//! The text of RocksDB 7.8's `rocksdb.stats` property (what db_bench's `stats`
//! benchmark and the LOG print): the `** Compaction Stats [cf] **` tables, the
//! flush/compaction/stall summary lines, the per-level read latency
//! histograms, and the `** DB Stats **` block.
//!
//! Pure formatting: the engine gathers the numbers into the input structs
//! and these functions lay them out byte for byte as RocksDB 7.8.3 does,
//! computing the derived columns (Read, Wnew, W-Amp, MB/s, Avg) the same way.

use std::fmt::Write as _;

use super::histogram_impl::HistogramImpl;
use super::human::{bytes_to_human_string, count_to_human_string, micros_to_hms};

const KB_PER_MB: f64 = 1024.0;
const MB: f64 = 1_048_576.0;
const GB: f64 = MB * KB_PER_MB;
const MICROS_PER_SEC: f64 = 1_000_000.0;

/// One row of the compaction table: a level (`L0`...), a priority (`Low`,
/// `High`), or the `Sum` / `Int` rows. Byte and time fields are cumulative
/// counters (RocksDB's `InternalStats::CompactionStats`); flushes count as
/// level-0 "compactions".
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LevelStatsRow {
    /// Row label, printed right-aligned in 4 columns (`L0`, `Sum`, `Int`, `Low`).
    pub level: String,
    /// Files on the level now.
    pub files: u64,
    /// Of those, files being compacted now.
    pub files_being_compacted: u64,
    /// Total size of the level's files now.
    pub size_bytes: u64,
    /// Compaction score now (`Score`).
    pub score: f64,
    /// Bytes compactions read from the non-output level(s) (`Rn(GB)`).
    pub read_bytes_n: u64,
    /// Bytes compactions read from the output level (`Rnp1(GB)`).
    pub read_bytes_np1: u64,
    /// Blob-file bytes compactions read (`Rblob(GB)`).
    pub read_blob_bytes: u64,
    /// Table-file bytes flushes/compactions wrote (`Write(GB)`).
    pub write_bytes: u64,
    /// Blob-file bytes flushes/compactions wrote (`Wblob(GB)`).
    pub write_blob_bytes: u64,
    /// Bytes moved down by trivial moves, without rewriting (`Moved(GB)`).
    pub moved_bytes: u64,
    /// Wall time of the jobs (`Comp(sec)`).
    pub comp_micros: u64,
    /// Thread CPU time of the jobs (`CompMergeCPU(sec)`).
    pub comp_cpu_micros: u64,
    /// Number of jobs (`Comp(cnt)`).
    pub comp_count: u64,
    /// Entries the jobs read (`KeyIn`).
    pub num_input_records: u64,
    /// Entries the jobs dropped (`KeyDrop`).
    pub num_dropped_records: u64,
}

impl LevelStatsRow {
    /// An all-zero row with a label.
    pub fn new(level: &str) -> Self {
        LevelStatsRow {
            level: level.to_string(),
            ..Default::default()
        }
    }

    /// True if RocksDB would print a line for this level: it has files or
    /// its jobs took time.
    pub fn is_active(&self) -> bool {
        self.files > 0 || self.comp_micros > 0 || self.comp_cpu_micros > 0
    }

    /// Adds another row's counters and file counts (not the score).
    pub fn add(&mut self, o: &LevelStatsRow) {
        self.files = self.files.saturating_add(o.files);
        self.files_being_compacted = self
            .files_being_compacted
            .saturating_add(o.files_being_compacted);
        self.size_bytes = self.size_bytes.saturating_add(o.size_bytes);
        self.read_bytes_n = self.read_bytes_n.saturating_add(o.read_bytes_n);
        self.read_bytes_np1 = self.read_bytes_np1.saturating_add(o.read_bytes_np1);
        self.read_blob_bytes = self.read_blob_bytes.saturating_add(o.read_blob_bytes);
        self.write_bytes = self.write_bytes.saturating_add(o.write_bytes);
        self.write_blob_bytes = self.write_blob_bytes.saturating_add(o.write_blob_bytes);
        self.moved_bytes = self.moved_bytes.saturating_add(o.moved_bytes);
        self.comp_micros = self.comp_micros.saturating_add(o.comp_micros);
        self.comp_cpu_micros = self.comp_cpu_micros.saturating_add(o.comp_cpu_micros);
        self.comp_count = self.comp_count.saturating_add(o.comp_count);
        self.num_input_records = self.num_input_records.saturating_add(o.num_input_records);
        self.num_dropped_records = self
            .num_dropped_records
            .saturating_add(o.num_dropped_records);
    }

    /// Counters accumulated since `earlier` (field-wise difference,
    /// saturating at 0), for the `Int` row; files, size and score are taken
    /// from `self`.
    #[cfg(test)]
    pub fn since(&self, earlier: &LevelStatsRow) -> LevelStatsRow {
        LevelStatsRow {
            level: self.level.clone(),
            files: self.files,
            files_being_compacted: self.files_being_compacted,
            size_bytes: self.size_bytes,
            score: self.score,
            read_bytes_n: self.read_bytes_n.saturating_sub(earlier.read_bytes_n),
            read_bytes_np1: self.read_bytes_np1.saturating_sub(earlier.read_bytes_np1),
            read_blob_bytes: self.read_blob_bytes.saturating_sub(earlier.read_blob_bytes),
            write_bytes: self.write_bytes.saturating_sub(earlier.write_bytes),
            write_blob_bytes: self
                .write_blob_bytes
                .saturating_sub(earlier.write_blob_bytes),
            moved_bytes: self.moved_bytes.saturating_sub(earlier.moved_bytes),
            comp_micros: self.comp_micros.saturating_sub(earlier.comp_micros),
            comp_cpu_micros: self.comp_cpu_micros.saturating_sub(earlier.comp_cpu_micros),
            comp_count: self.comp_count.saturating_sub(earlier.comp_count),
            num_input_records: self
                .num_input_records
                .saturating_sub(earlier.num_input_records),
            num_dropped_records: self
                .num_dropped_records
                .saturating_sub(earlier.num_dropped_records),
        }
    }

    /// All bytes read: `Rn + Rnp1 + Rblob` (`Read(GB)`).
    pub fn read_bytes(&self) -> u64 {
        self.read_bytes_n
            .saturating_add(self.read_bytes_np1)
            .saturating_add(self.read_blob_bytes)
    }

    /// All bytes written: table + blob files.
    pub fn written_bytes(&self) -> u64 {
        self.write_bytes.saturating_add(self.write_blob_bytes)
    }
}

/// One formatted row (RocksDB's `PrintLevelStats`), with its newline.
pub fn format_level_row(row: &LevelStatsRow, w_amp: f64) -> String {
    let read = row.read_bytes() as f64;
    let written = row.written_bytes() as f64;
    let w_new = row.write_bytes as i128 - row.read_bytes_np1 as i128;
    let elapsed = (row.comp_micros as f64 + 1.0) / MICROS_PER_SEC;
    let avg = if row.comp_count == 0 {
        0.0
    } else {
        row.comp_micros as f64 / MICROS_PER_SEC / row.comp_count as f64
    };
    format!(
        "{:>4} {:>6}/{:<3} {:>8} {:>5.1} {:>8.1} {:>7.1} {:>8.1} {:>9.1} {:>8.1} {:>9.1} \
{:>5.1} {:>8.1} {:>8.1} {:>9.2} {:>17.2} {:>9} {:>8.3} {:>7} {:>6} {:>9.1} {:>9.1}\n",
        row.level,
        row.files,
        row.files_being_compacted,
        bytes_to_human_string(row.size_bytes),
        row.score,
        read / GB,
        row.read_bytes_n as f64 / GB,
        row.read_bytes_np1 as f64 / GB,
        row.write_bytes as f64 / GB,
        w_new as f64 / GB,
        row.moved_bytes as f64 / GB,
        w_amp,
        read / MB / elapsed,
        written / MB / elapsed,
        row.comp_micros as f64 / MICROS_PER_SEC,
        row.comp_cpu_micros as f64 / MICROS_PER_SEC,
        row.comp_count,
        avg,
        count_to_human_string(row.num_input_records),
        count_to_human_string(row.num_dropped_records),
        row.read_blob_bytes as f64 / GB,
        row.write_blob_bytes as f64 / GB,
    )
}

/// The table heading (RocksDB's `PrintLevelStatsHeader`): a blank line, the
/// `** Compaction Stats [cf] **` title, the column names with `group_by`
/// (`Level` or `Priority`) first, and a dashed line one longer than them.
pub fn format_table_header(cf_name: &str, group_by: &str) -> String {
    let columns = format!(
        "{group_by}    Files   Size     Score Read(GB)  Rn(GB) Rnp1(GB) Write(GB) Wnew(GB) \
Moved(GB) W-Amp Rd(MB/s) Wr(MB/s) Comp(sec) CompMergeCPU(sec) Comp(cnt) Avg(sec) KeyIn \
KeyDrop Rblob(GB) Wblob(GB)"
    );
    let dashes = "-".repeat(columns.len() + 1);
    format!("\n** Compaction Stats [{cf_name}] **\n{columns}\n{dashes}\n")
}

/// Write-stall counts by cause, with the names RocksDB 7.8 prints on its
/// `Stalls(count):` line (cumulative since the DB opened).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StallCounts {
    /// `level0_slowdown`: writes slowed because L0 reached `level0_slowdown_writes_trigger`.
    pub level0_slowdown: u64,
    /// `level0_slowdown_with_compaction`: the same while an L0 compaction was running.
    pub level0_slowdown_with_compaction: u64,
    /// `level0_numfiles`: writes stopped because L0 reached `level0_stop_writes_trigger`.
    pub level0_numfiles: u64,
    /// `level0_numfiles_with_compaction`: the same while an L0 compaction was running.
    pub level0_numfiles_with_compaction: u64,
    /// `stop for pending_compaction_bytes`: stopped by `hard_pending_compaction_bytes_limit`.
    pub stop_for_pending_compaction_bytes: u64,
    /// `slowdown for pending_compaction_bytes`: slowed by `soft_pending_compaction_bytes_limit`.
    pub slowdown_for_pending_compaction_bytes: u64,
    /// `memtable_compaction`: stopped because `max_write_buffer_number` memtables were full.
    pub memtable_compaction: u64,
    /// `memtable_slowdown`: slowed because memtables were nearly all full.
    pub memtable_slowdown: u64,
}

impl StallCounts {
    /// Total stall events: every cause except the `_with_compaction` ones,
    /// which are subsets of their plain counterparts (RocksDB's
    /// `total_stall_count`).
    pub fn total(&self) -> u64 {
        [
            self.level0_slowdown,
            self.level0_numfiles,
            self.stop_for_pending_compaction_bytes,
            self.slowdown_for_pending_compaction_bytes,
            self.memtable_compaction,
            self.memtable_slowdown,
        ]
        .iter()
        .fold(0u64, |a, b| a.saturating_add(*b))
    }

    /// The `Stalls(count): ...` line with its newline; `interval_total` is the
    /// number of stall events since the previous dump.
    pub fn format_line(&self, interval_total: u64) -> String {
        format!(
            "Stalls(count): {} level0_slowdown, {} level0_slowdown_with_compaction, \
{} level0_numfiles, {} level0_numfiles_with_compaction, {} stop for \
pending_compaction_bytes, {} slowdown for pending_compaction_bytes, {} \
memtable_compaction, {} memtable_slowdown, interval {} total count\n",
            self.level0_slowdown,
            self.level0_slowdown_with_compaction,
            self.level0_numfiles,
            self.level0_numfiles_with_compaction,
            self.stop_for_pending_compaction_bytes,
            self.slowdown_for_pending_compaction_bytes,
            self.memtable_compaction,
            self.memtable_slowdown,
            interval_total
        )
    }
}

/// Everything the column-family part of `rocksdb.stats` shows.
#[derive(Debug, Clone, Default)]
pub struct CompactionStatsInput {
    /// Column family name (`default`).
    pub cf_name: String,
    /// One row per level, index = level number; rows that are not
    /// [`LevelStatsRow::is_active`] are not printed nor summed (as in RocksDB).
    /// Labels are ignored: rows print as `L<index>`.
    pub levels: Vec<LevelStatsRow>,
    /// Counters since the previous dump, for the `Int` row (sum over levels;
    /// file counts, size and score are ignored).
    pub interval: LevelStatsRow,
    /// Rows of the second table, by thread-pool priority (`Low`, `High`);
    /// printed as given with W-Amp 0. Empty prints just the heading.
    pub priorities: Vec<LevelStatsRow>,
    /// Bytes written by flushes, cumulative and since the previous dump.
    pub flush_bytes: u64,
    /// [`Self::flush_bytes`] since the previous dump.
    pub interval_flush_bytes: u64,
    /// Bytes of externally ingested files (0: Strata has no ingestion yet).
    pub ingest_bytes: u64,
    /// [`Self::ingest_bytes`] since the previous dump.
    pub interval_ingest_bytes: u64,
    /// Ingested files (`AddFile(Total Files)`).
    pub ingest_files: u64,
    /// [`Self::ingest_files`] since the previous dump.
    pub interval_ingest_files: u64,
    /// Ingested files placed in L0 (`AddFile(L0 Files)`).
    pub ingest_l0_files: u64,
    /// [`Self::ingest_l0_files`] since the previous dump.
    pub interval_ingest_l0_files: u64,
    /// Keys in ingested files (`AddFile(Keys)`).
    pub ingest_keys: u64,
    /// [`Self::ingest_keys`] since the previous dump.
    pub interval_ingest_keys: u64,
    /// Live blob files.
    pub blob_file_count: u64,
    /// Total size of the live blob files.
    pub blob_total_bytes: u64,
    /// Bytes of garbage (unreferenced blobs) in them.
    pub blob_garbage_bytes: u64,
    /// Seconds since the DB opened.
    pub uptime_secs: f64,
    /// Seconds since the previous dump.
    pub interval_secs: f64,
    /// Stall counts by cause (cumulative).
    pub stalls: StallCounts,
    /// Stall events since the previous dump.
    pub interval_stall_count: u64,
    /// Lines printed verbatim after the `Stalls(count)` line (RocksDB prints
    /// its block cache's description there); each should end with `\n`.
    pub block_cache_lines: Vec<String>,
    /// Table-file read latency per level: `(level, histogram)`; empty
    /// histograms are skipped.
    pub level_read_latency: Vec<(usize, HistogramImpl)>,
    /// Blob-file read latency (skipped when empty).
    pub blob_read_latency: Option<HistogramImpl>,
}

impl CompactionStatsInput {
    /// Bytes that entered the tree: flushed + ingested (RocksDB's `curr_ingest`).
    pub fn ingest_total(&self) -> u64 {
        self.flush_bytes.saturating_add(self.ingest_bytes)
    }

    /// The `Sum` row: active levels added up, score 0.
    pub fn sum_row(&self) -> LevelStatsRow {
        let mut sum = LevelStatsRow::new("Sum");
        for row in self.levels.iter().filter(|r| r.is_active()) {
            sum.add(row);
        }
        sum.score = 0.0;
        sum
    }
}

/// The column-family statistics text (RocksDB's `rocksdb.cfstats`: the
/// compaction tables, summary lines and per-level read latency).
pub fn format_cf_stats(input: &CompactionStatsInput) -> String {
    let mut out = format_table_header(&input.cf_name, "Level");
    let ingest = input.ingest_total();
    for (level, row) in input.levels.iter().enumerate() {
        if !row.is_active() {
            continue;
        }
        let labelled = LevelStatsRow {
            level: format!("L{level}"),
            ..row.clone()
        };
        let w_amp = super::waf::rocksdb_level_w_amp(level, row, ingest);
        out.push_str(&format_level_row(&labelled, w_amp));
    }
    let sum = input.sum_row();
    out.push_str(&format_level_row(
        &sum,
        super::waf::rocksdb_sum_w_amp(&sum, ingest),
    ));
    let int = LevelStatsRow {
        level: "Int".to_string(),
        files: 0,
        files_being_compacted: 0,
        size_bytes: 0,
        score: 0.0,
        ..input.interval.clone()
    };
    // RocksDB adds 1 to the interval denominator to avoid dividing by zero.
    let int_ingest = input.interval_flush_bytes as f64 + input.interval_ingest_bytes as f64 + 1.0;
    out.push_str(&format_level_row(
        &int,
        int.written_bytes() as f64 / int_ingest,
    ));

    out.push_str(&format_table_header(&input.cf_name, "Priority"));
    for row in &input.priorities {
        out.push_str(&format_level_row(row, 0.0));
    }

    let live = input
        .blob_total_bytes
        .saturating_sub(input.blob_garbage_bytes);
    let space_amp = if live == 0 {
        0.0
    } else {
        input.blob_total_bytes as f64 / live as f64
    };
    let _ = write!(
        out,
        "\nBlob file count: {}, total size: {:.1} GB, garbage size: {:.1} GB, space amp: {:.1}\n\n",
        input.blob_file_count,
        input.blob_total_bytes as f64 / GB,
        input.blob_garbage_bytes as f64 / GB,
        space_amp
    );
    let _ = writeln!(
        out,
        "Uptime(secs): {:.1} total, {:.1} interval",
        input.uptime_secs, input.interval_secs
    );
    // `<label>: cumulative X, interval X`, bytes in GB and counts as is.
    for (label, cumulative, interval) in [
        ("Flush(GB)", input.flush_bytes, input.interval_flush_bytes),
        (
            "AddFile(GB)",
            input.ingest_bytes,
            input.interval_ingest_bytes,
        ),
    ] {
        let _ = writeln!(
            out,
            "{label}: cumulative {:.3}, interval {:.3}",
            cumulative as f64 / GB,
            interval as f64 / GB
        );
    }
    for (label, cumulative, interval) in [
        (
            "AddFile(Total Files)",
            input.ingest_files,
            input.interval_ingest_files,
        ),
        (
            "AddFile(L0 Files)",
            input.ingest_l0_files,
            input.interval_ingest_l0_files,
        ),
        (
            "AddFile(Keys)",
            input.ingest_keys,
            input.interval_ingest_keys,
        ),
    ] {
        let _ = writeln!(out, "{label}: cumulative {cumulative}, interval {interval}");
    }
    out.push_str(&compaction_line("Cumulative", &sum, input.uptime_secs));
    out.push_str(&compaction_line(
        "Interval",
        &input.interval,
        input.interval_secs,
    ));
    out.push_str(&input.stalls.format_line(input.interval_stall_count));
    for line in &input.block_cache_lines {
        out.push_str(line);
    }

    let _ = writeln!(
        out,
        "\n** File Read Latency Histogram By Level [{}] **",
        input.cf_name
    );
    for (level, h) in &input.level_read_latency {
        if !h.is_empty() {
            let _ = writeln!(
                out,
                "** Level {level} read latency histogram (micros):\n{}",
                h.to_db_bench_string()
            );
        }
    }
    if let Some(h) = input.blob_read_latency.as_ref().filter(|h| !h.is_empty()) {
        let _ = writeln!(
            out,
            "** Blob file read latency histogram (micros):\n{}",
            h.to_db_bench_string()
        );
    }
    out
}

/// `<Cumulative|Interval> compaction: X GB write, X MB/s write, X GB read,
/// X MB/s read, X seconds`, counting table and blob bytes, flushes included.
fn compaction_line(label: &str, row: &LevelStatsRow, secs: f64) -> String {
    let secs = secs.max(0.001);
    let w = row.written_bytes() as f64;
    let r = row.read_bytes() as f64;
    format!(
        "{label} compaction: {:.2} GB write, {:.2} MB/s write, {:.2} GB read, {:.2} MB/s read, \
{:.1} seconds\n",
        w / GB,
        w / MB / secs,
        r / GB,
        r / MB / secs,
        row.comp_micros as f64 / MICROS_PER_SEC
    )
}

/// DB-wide write counters (RocksDB's `InternalStats` DB stats), cumulative.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DbStatsCounters {
    /// Bytes the user wrote (`rocksdb.bytes.written`).
    pub user_bytes_written: u64,
    /// Keys written (`rocksdb.number.keys.written`).
    pub keys_written: u64,
    /// Writes committed by their own thread, i.e. commit groups (`rocksdb.write.self`).
    pub write_self: u64,
    /// Writes committed by another thread's group (`rocksdb.write.other`).
    pub write_other: u64,
    /// Bytes appended to the WAL (`rocksdb.wal.bytes`).
    pub wal_bytes: u64,
    /// WAL syncs (`rocksdb.wal.synced`).
    pub wal_synced: u64,
    /// Writes that went through the WAL (`rocksdb.write.wal`).
    pub write_with_wal: u64,
    /// Time writers were stalled (`rocksdb.stall.micros`).
    pub write_stall_micros: u64,
}

impl DbStatsCounters {
    /// Field-wise `self - earlier`, saturating at 0.
    pub fn since(&self, earlier: &DbStatsCounters) -> DbStatsCounters {
        DbStatsCounters {
            user_bytes_written: self
                .user_bytes_written
                .saturating_sub(earlier.user_bytes_written),
            keys_written: self.keys_written.saturating_sub(earlier.keys_written),
            write_self: self.write_self.saturating_sub(earlier.write_self),
            write_other: self.write_other.saturating_sub(earlier.write_other),
            wal_bytes: self.wal_bytes.saturating_sub(earlier.wal_bytes),
            wal_synced: self.wal_synced.saturating_sub(earlier.wal_synced),
            write_with_wal: self.write_with_wal.saturating_sub(earlier.write_with_wal),
            write_stall_micros: self
                .write_stall_micros
                .saturating_sub(earlier.write_stall_micros),
        }
    }
}

/// Everything the `** DB Stats **` block shows.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct DbStatsInput {
    /// Seconds since the DB opened.
    pub uptime_secs: f64,
    /// Seconds since the previous dump.
    pub interval_secs: f64,
    /// Counters now.
    pub cumulative: DbStatsCounters,
    /// Counters at the previous dump (zeros for the first one).
    pub at_previous_dump: DbStatsCounters,
}

/// The `** DB Stats **` block (RocksDB's `rocksdb.dbstats`), starting with a
/// blank line. Counts use RocksDB's `K`/`M`/`G` abbreviations; the interval
/// ingest is in MB where the cumulative one is in GB, as in RocksDB.
pub fn format_db_stats(input: &DbStatsInput) -> String {
    let c = &input.cumulative;
    let i = c.since(&input.at_previous_dump);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n** DB Stats **\nUptime(secs): {:.1} total, {:.1} interval",
        input.uptime_secs, input.interval_secs
    );
    period_lines(&mut out, "Cumulative", c, input.uptime_secs, ("GB", GB));
    period_lines(&mut out, "Interval", &i, input.interval_secs, ("MB", MB));
    out
}

/// The writes, WAL and stall lines of one period (`Cumulative` or
/// `Interval`) whose counters are `d`, over `secs` seconds (at least 1 ms
/// in rates); the ingest is in `ingest_unit` (name, bytes).
fn period_lines(
    out: &mut String,
    period: &str,
    d: &DbStatsCounters,
    secs: f64,
    ingest_unit: (&str, f64),
) {
    let secs = secs.max(0.001);
    // An amount of bytes and its rate, as RocksDB prints both.
    let amount = |bytes: u64, (unit_name, unit): (&str, f64)| {
        let b = bytes as f64;
        format!("{:.2} {unit_name}, {:.2} MB/s", b / unit, b / MB / secs)
    };
    let _ = writeln!(
        out,
        "{period} writes: {} writes, {} keys, {} commit groups, {:.1} writes per commit group, \
ingest: {}",
        count_to_human_string(d.write_other.saturating_add(d.write_self)),
        count_to_human_string(d.keys_written),
        count_to_human_string(d.write_self),
        (d.write_other as f64 + d.write_self as f64) / (d.write_self as f64 + 1.0),
        amount(d.user_bytes_written, ingest_unit)
    );
    let _ = writeln!(
        out,
        "{period} WAL: {} writes, {} syncs, {:.2} writes per sync, written: {}",
        count_to_human_string(d.write_with_wal),
        count_to_human_string(d.wal_synced),
        d.write_with_wal as f64 / (d.wal_synced as f64 + 1.0),
        amount(d.wal_bytes, ("GB", GB))
    );
    let _ = writeln!(
        out,
        "{period} stall: {}, {:.1} percent",
        micros_to_hms(d.write_stall_micros),
        d.write_stall_micros as f64 / 10_000.0 / secs
    );
}

/// The whole `rocksdb.stats` text: column-family stats, then DB stats.
pub fn format_stats(cf: &CompactionStatsInput, db: &DbStatsInput) -> String {
    let mut s = format_cf_stats(cf);
    s.push_str(&format_db_stats(db));
    s
}

#[cfg(test)]
mod tests;
