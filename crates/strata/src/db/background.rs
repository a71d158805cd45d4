//! Background threads (one for flushes, the rest for compactions), manual
//! compaction, obsolete-file deletion and shutdown.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use parking_lot::MutexGuard;

use super::{DbInner, State};
use crate::blob::gc_policy::{gc_cutoff_file_number, obsolete_blob_files};
use crate::blob::BlobOutputOptions;
use crate::compaction::fifo::pick_fifo;
use crate::compaction::forced::pick_forced_blob_gc;
use crate::compaction::job::{run_compaction, BlobJobConfig, FileCutConfig, JobContext};
use crate::compaction::leveled::pick_manual;
use crate::compaction::subcompaction::{should_form_subcompactions, subcompaction_boundaries};
use crate::compaction::universal::task_compresses;
use crate::compaction::CompactionTask;
use crate::compaction::{pick_automatic, pick_universal_full};
use crate::error::{Error, Result};
use crate::event_log::{compression_label, lsm_state, table_file_creation, Event, CF_NAME};
use crate::options::CompactionStyle;
use crate::stats::{Histogram, Ticker};
use crate::write_controller::{bg_job_limits, needs_compaction_speedup, SpeedupCause};

fn speedup_name(c: SpeedupCause) -> String {
    match c {
        SpeedupCause::Stall(cause) => format!("a write stall ({})", cause.name()),
        SpeedupCause::L0Files => "level-0 files".into(),
        SpeedupCause::NoSoftLimit => "soft_pending_compaction_bytes_limit=0".into(),
        SpeedupCause::PendingCompactionBytes => "estimated pending compaction bytes".into(),
    }
}

impl DbInner {
    /// Starts the flush thread and one thread for each compaction that may
    /// ever run at once ([`bg_job_limits`] under pressure).
    pub(crate) fn start_threads(self: &Arc<Self>) -> Vec<JoinHandle<()>> {
        let spawn = |name: String, body: fn(Arc<Self>)| {
            let me = self.clone();
            std::thread::Builder::new()
                .name(name)
                .spawn(move || body(me))
                .expect("spawn a background thread")
        };
        let mut threads = vec![spawn("strata:flush".into(), Self::flush_loop)];
        let n = bg_job_limits(&self.opts, true).max_compactions;
        for i in 0..n {
            threads.push(spawn(format!("strata:compact{i}"), Self::compaction_loop));
        }
        threads
    }

    fn flush_needed(&self, st: &State) -> bool {
        !st.imm.is_empty()
            && !st.flush_running
            && st.bg_error.is_none()
            && (st.flush_requested
                || st.write_stopped
                || st.imm.len() >= self.opts.min_write_buffer_number_to_merge)
    }

    /// Records in `st.busy` the sealed memtables whose flush is running or
    /// due, which the leveled picker counts as L0 files (see
    /// `compaction::leveled::level_scores`). Called before every pick.
    pub(crate) fn sync_flushing(&self, st: &mut State) {
        let (n, bytes) = if st.flush_running || self.flush_needed(st) {
            let bytes = st
                .imm
                .iter()
                .map(|m| m.approximate_memory_usage() as u64)
                .sum();
            (st.imm.len(), bytes)
        } else {
            (0, 0)
        };
        st.busy.flushing = n;
        st.busy.flushing_bytes = bytes;
    }

    fn flush_loop(self: Arc<Self>) {
        let mut st = self.state.lock();
        loop {
            if self.shutting_down.load(Ordering::Acquire) {
                return;
            }
            if self.flush_needed(&st) {
                self.background_flush(&mut st);
                continue;
            }
            self.work_cv.wait_for(&mut st, Duration::from_secs(1));
        }
    }

    fn compaction_loop(self: Arc<Self>) {
        let mut st = self.state.lock();
        loop {
            if self.shutting_down.load(Ordering::Acquire) {
                return;
            }
            self.maybe_dump_stats(&mut st);
            let task = if st.bg_error.is_none()
                && st.manual_compactions == 0
                && !self.opts.disable_auto_compactions
                && st.compactions_running < self.compaction_limit(&mut st)
            {
                self.sync_flushing(&mut st);
                let v = st.versions.current();
                pick_automatic(&v, &st.busy, &self.opts)
                    .or_else(|| pick_forced_blob_gc(&v, &st.busy, &self.opts))
            } else {
                None
            };
            match task {
                Some(task) => {
                    let _ = self.run_task(&mut st, &task);
                }
                None => {
                    self.work_cv.wait_for(&mut st, Duration::from_secs(1));
                }
            }
        }
    }

    /// How many compactions may run now: one, or more while compaction has
    /// fallen behind (RocksDB's `GetBGJobLimits` with
    /// `NeedSpeedupCompaction`). Logs each change.
    fn compaction_limit(&self, st: &mut MutexGuard<'_, State>) -> usize {
        let shape = self.lsm_shape(st, false);
        let cause = needs_compaction_speedup(&shape, &self.opts);
        let limits = bg_job_limits(&self.opts, cause.is_some());
        if cause.is_some() != st.last_speedup && bg_job_limits(&self.opts, true).max_compactions > 1
        {
            st.last_speedup = cause.is_some();
            self.log.log(&match cause {
                Some(c) => format!(
                    "Increasing compaction threads to {} because of {} (L0 files {}, pending compaction bytes {})",
                    limits.max_compactions,
                    speedup_name(c),
                    shape.l0_files,
                    shape.pending_compaction_bytes
                ),
                None => "Compaction caught up: one compaction at a time".to_string(),
            });
        }
        limits.max_compactions
    }

    fn maybe_dump_stats(&self, st: &mut MutexGuard<'_, State>) {
        let period = self.opts.stats_dump_period_sec;
        if period == 0 || st.last_stats_dump.elapsed() < Duration::from_secs(u64::from(period)) {
            return;
        }
        self.dump_stats(st);
    }

    /// Writes `rocksdb.stats` to the LOG and starts a new interval. Open
    /// calls it once, as RocksDB's first stats dump runs when the DB opens:
    /// the `Int` row of a later `rocksdb.stats` then leaves out the flushes
    /// recovery made, as RocksDB's does.
    pub(crate) fn dump_stats(&self, st: &mut State) {
        st.last_stats_dump = Instant::now();
        let text = self.stats_text(st);
        self.log
            .log(&format!("------- DUMPING STATS -------\n{text}"));
    }

    /// Marks a task's files busy, runs it without the lock, installs the
    /// result and unmarks.
    pub(crate) fn run_task(
        &self,
        st: &mut MutexGuard<'_, State>,
        task: &CompactionTask,
    ) -> Result<()> {
        let (lo, hi) = task.user_key_range();
        for f in task.all_inputs() {
            st.busy.files.insert(f.number);
        }
        st.busy
            .output_ranges
            .push((task.output_level, lo.clone(), hi.clone()));
        st.compactions_running += 1;
        let version = st.versions.current();
        let snapshots = self.snapshots.sequences();
        let job = self.new_job_id();
        self.log.log(&format!(
            "[JOB compaction] {} L{} -> L{}: {} + {} + {} files, score {:.2}{}",
            task.reason.name(),
            task.level,
            task.output_level,
            task.inputs.len(),
            task.extra_inputs
                .iter()
                .map(|(_, f)| f.len())
                .sum::<usize>(),
            task.output_level_inputs.len(),
            task.score,
            if task.trivial_move {
                " (trivial move)"
            } else {
                ""
            }
        ));
        self.log.log(&format!(
            "[JOB compaction] inputs {}, keys {}..{}",
            input_summary(task),
            key_prefix_hex(&lo),
            key_prefix_hex(&hi)
        ));
        let started = parking_lot::Mutex::new(Vec::new());
        let blob_cfg = self.blob_job_config(&version, task.output_level);
        let boundaries = self.subcompaction_boundaries(task);
        // RocksDB records it where it picks an automatic compaction, trivial
        // moves included, and never for manual ones.
        let manual = task.reason == crate::compaction::CompactionReason::ManualCompaction;
        if let (Some(s), false) = (&self.stats, manual) {
            s.record_histogram(
                Histogram::NumFilesInSingleCompaction,
                task.all_inputs().count() as u64,
            );
        }
        // Universal's compression_size_percent may leave a young merge's
        // output uncompressed.
        let table_opts = self.output_table_opts(
            self.opts.compaction_style != CompactionStyle::Universal
                || task_compresses(
                    &version,
                    task,
                    &self.opts.compaction_options_universal,
                    self.opts.num_levels,
                ),
        );
        if !task.trivial_move && !task.reason.is_deletion() {
            self.log
                .event(&compaction_started(job, task, version.num_levels()));
        }
        let on_table = |n: crate::filename::FileNumber, info: &crate::sstable::TableInfo| {
            self.log.event(&table_file_creation(job, n, info));
        };
        let result = MutexGuard::unlocked(st, || {
            let ctx = JobContext {
                dir: &self.dir,
                fs: &self.fs,
                table_opts: &table_opts,
                table_cache: &self.table_cache,
                stats: self.stats.as_ref(),
                verify_checksums: self.opts.paranoid_checks,
                shutting_down: &self.shutting_down,
                direct_writes: self.opts.use_direct_io_for_flush_and_compaction,
                rate_limiter: self.io_limiter.as_ref(),
                bytes_per_sync: self.opts.effective_bytes_per_sync(),
                blobs: blob_cfg,
                file_cut: self.file_cut_config(),
                readahead: self.opts.effective_compaction_readahead_size(),
                on_table: Some(&on_table),
            };
            let r = run_compaction(&ctx, task, &version, snapshots, &boundaries, &|| {
                let n = self.allocate_output();
                started.lock().push(n);
                n
            });
            if let Ok((edit, _)) = &r {
                if !edit.new_files.is_empty() && !task.trivial_move {
                    self.fs.sync_dir(&self.dir)?;
                }
            }
            r
        });
        let outcome = result.and_then(|(edit, js)| {
            crate::db::flush::log_blob_file_creations(&self.log, job, &edit.blob_file_additions);
            self.log_and_apply(st, edit)?;
            Ok(js)
        });
        // The version the job read from names its inputs: let it go before
        // `delete_obsolete_files` below, or the inputs of the last compaction
        // stay on disk until some later job (or a reopen) removes them.
        drop(version);
        for n in started.lock().iter() {
            st.pending_outputs.remove(n);
        }
        for f in task.all_inputs() {
            st.busy.files.remove(&f.number);
        }
        if let Some(i) = st
            .busy
            .output_ranges
            .iter()
            .position(|(l, a, b)| *l == task.output_level && *a == lo && *b == hi)
        {
            st.busy.output_ranges.remove(i);
        }
        let ret = match outcome {
            // A FIFO deletion is not a compaction in RocksDB's statistics:
            // no Compaction Stats row, no compaction histograms.
            Ok(_) if task.reason.is_deletion() => {
                let bytes: u64 = task.all_inputs().map(|f| f.file_size).sum();
                self.log.log(&format!(
                    "[JOB compaction] FIFO deleted {} files ({bytes} bytes)",
                    task.all_inputs().count()
                ));
                self.install_super_version(st);
                Ok(())
            }
            Ok(js) => {
                st.istats.levels[task.output_level].add_job(&js, task.trivial_move);
                if let Some(s) = &self.stats {
                    s.record_tick(
                        Ticker::CompactReadBytes,
                        js.read_bytes_level + js.read_bytes_next,
                    );
                    s.record_tick(Ticker::CompactWriteBytes, js.write_bytes);
                    s.record_tick(Ticker::CompactionKeyDropNewerEntry, js.dropped_shadowed);
                    s.record_tick(Ticker::CompactionKeyDropObsolete, js.dropped_obsolete);
                    s.record_tick(
                        Ticker::CompactionOptimizedDelDropObsolete,
                        js.dropped_obsolete_early,
                    );
                    if !task.trivial_move {
                        s.record_histogram(Histogram::CompactionTime, js.micros);
                        s.record_histogram(Histogram::CompactionCpuTime, js.cpu_micros);
                        s.record_tick(Ticker::CompactionCpuTotalTime, js.cpu_micros);
                    }
                    // Only jobs that may split record how many ranges they
                    // ran (RocksDB records it where it forms subcompactions,
                    // so `max_subcompactions=1` leaves it empty).
                    let n = self.opts.max_subcompactions as usize;
                    if should_form_subcompactions(task, n, self.opts.num_levels) {
                        s.record_histogram(
                            Histogram::NumSubcompactionsScheduled,
                            js.subcompactions,
                        );
                    }
                }
                self.log.log(&format!(
                    "[JOB compaction] done L{} -> L{}: read {} + {} bytes, wrote {} bytes in {} files, {} keys in, {} dropped, {} us ({} us CPU)",
                    task.level,
                    task.output_level,
                    js.read_bytes_level,
                    js.read_bytes_next,
                    js.write_bytes,
                    js.output_files,
                    js.keys_in,
                    js.dropped_obsolete + js.dropped_shadowed,
                    js.micros,
                    js.cpu_micros
                ));
                if let Some(s) = &self.stats {
                    s.record_tick(Ticker::CompactReadBytes, js.blob_bytes_read);
                    s.record_tick(Ticker::CompactWriteBytes, js.blob_bytes_written);
                }
                let r = self.retire_blob_files(st);
                self.install_super_version(st);
                let lsm = lsm_state(&st.versions.current());
                self.log.event(&if task.trivial_move {
                    Event::new("trivial_move", job)
                        .with("destination_level", task.output_level)
                        .with("files", task.all_inputs().count())
                        .with("total_files_size", js.moved_bytes)
                        // Not in RocksDB's event (its text line has the
                        // level summary): the tree after the move.
                        .with("lsm_state", lsm)
                } else {
                    Event::new("compaction_finished", job)
                        .with("compaction_time_micros", js.micros)
                        .with("compaction_time_cpu_micros", js.cpu_micros)
                        .with("output_level", task.output_level)
                        .with("num_output_files", js.output_files)
                        .with("total_output_size", js.write_bytes)
                        .with("num_input_records", js.keys_in)
                        .with(
                            "num_output_records",
                            js.keys_in
                                .saturating_sub(js.dropped_shadowed + js.dropped_obsolete),
                        )
                        .with("num_subcompactions", js.subcompactions)
                        .with(
                            "output_compression",
                            compression_label(table_opts.compression.name()),
                        )
                        .with("lsm_state", lsm)
                });
                r
            }
            Err(Error::ShutdownInProgress) => Err(Error::ShutdownInProgress),
            Err(e) => {
                let d = e.duplicate();
                self.set_bg_error(st, e);
                Err(d)
            }
        };
        // Stalled writers and the flush thread go on while this thread
        // removes the job's obsolete files with the lock released; the
        // compaction slot is freed only after (`purge.rs`, RocksDB's order).
        self.delete_obsolete_files(st, job);
        st.compactions_running -= 1;
        self.bg_cv.notify_all();
        self.work_cv.notify_all();
        ret
    }

    /// The blob configuration of a job writing to `output_level`.
    pub(crate) fn blob_job_config(
        &self,
        version: &crate::version::Version,
        output_level: usize,
    ) -> BlobJobConfig<'_> {
        let o = &self.opts;
        let blob_opts = BlobOutputOptions {
            min_blob_size: o.min_blob_size,
            blob_file_size: o.blob_file_size,
            compression: o.blob_compression_type,
            prepopulate_cache: false,
        };
        let output = (o.enable_blob_files && output_level >= o.blob_file_starting_level)
            .then_some(blob_opts);
        let gc_cutoff = if o.enable_blob_garbage_collection {
            let numbers: Vec<u64> = version.blob_files.keys().copied().collect();
            gc_cutoff_file_number(&numbers, o.blob_garbage_collection_age_cutoff)
        } else {
            0
        };
        BlobJobConfig {
            source: &self.blob_source,
            output,
            gc_cutoff,
            readahead: o.blob_compaction_readahead_size as usize,
        }
    }

    /// Subcompaction boundaries for a task (none: one range).
    pub(crate) fn subcompaction_boundaries(&self, task: &CompactionTask) -> Vec<Vec<u8>> {
        let n = self.opts.max_subcompactions as usize;
        if should_form_subcompactions(task, n, self.opts.num_levels) {
            let t = self.stats.as_ref().map(|_| std::time::Instant::now());
            let b = subcompaction_boundaries(task, n);
            if let (Some(s), Some(t)) = (&self.stats, t) {
                s.record_histogram(
                    Histogram::SubcompactionSetupTime,
                    t.elapsed().as_micros() as u64,
                );
            }
            b
        } else {
            Vec::new()
        }
    }

    /// Drops blob files nothing references any more from the version (an
    /// edit of `deleted_blob_files`); the files themselves go once no live
    /// version holds them.
    pub(crate) fn retire_blob_files(&self, st: &mut MutexGuard<'_, State>) -> Result<()> {
        // The edit must apply to the version it was computed from.
        self.wait_for_manifest(st);
        let v = st.versions.current();
        if v.blob_files.is_empty() {
            return Ok(());
        }
        let dead = obsolete_blob_files(&v.blob_file_states(), &v.table_blob_links());
        if dead.is_empty() {
            return Ok(());
        }
        self.log
            .log(&format!("[blob] retiring blob files {dead:?}"));
        let edit = crate::version::edit::VersionEdit {
            deleted_blob_files: dead,
            ..Default::default()
        };
        if let Err(e) = self.log_and_apply(st, edit) {
            let d = e.duplicate();
            self.set_bg_error(st, e);
            return Err(d);
        }
        Ok(())
    }

    /// Compacts `[begin, end]` level by level down to the last level that
    /// holds data (RocksDB's `CompactRange`).
    pub(crate) fn compact_range(&self, begin: Option<&[u8]>, end: Option<&[u8]>) -> Result<()> {
        self.flush_and_wait("Manual Compaction")?;
        let mut st = self.state.lock();
        st.manual_compactions += 1;
        // Let running automatic compactions finish first.
        while st.compactions_running > 0 {
            self.bg_cv.wait_for(&mut st, Duration::from_millis(100));
        }
        let result = self.manual_levels(&mut st, begin, end);
        self.wait_for_purge(&mut st);
        st.manual_compactions -= 1;
        self.work_cv.notify_all();
        result
    }

    fn manual_levels(
        &self,
        st: &mut MutexGuard<'_, State>,
        begin: Option<&[u8]>,
        end: Option<&[u8]>,
    ) -> Result<()> {
        // No version is held across `run_task`: the job deletes the files
        // it merged away only if no version still names them.
        if self.opts.compaction_style == CompactionStyle::Fifo {
            // RocksDB's FIFO `CompactRange` is one FIFO pick.
            let task = pick_fifo(
                &st.versions.current(),
                &st.busy,
                &self.opts,
                crate::clock::unix_now(),
            );
            if let Some(task) = task {
                self.run_task(st, &task)?;
            }
            return Ok(());
        }
        if self.opts.compaction_style == CompactionStyle::Universal {
            let task = pick_universal_full(&st.versions.current(), &st.busy, &self.opts);
            if let Some(task) = task {
                self.run_task(st, &task)?;
            }
            return Ok(());
        }
        let last_nonempty = {
            let v = st.versions.current();
            (0..v.num_levels())
                .rev()
                .find(|&l| !v.files(l).is_empty())
                .unwrap_or(0)
        };
        for level in 0..last_nonempty.max(1) {
            if let Some(e) = &st.bg_error {
                return Err(Error::Background(e.clone()));
            }
            if self.shutting_down.load(Ordering::Acquire) {
                return Err(Error::ShutdownInProgress);
            }
            // Every file of the level overlapping the range goes in one task
            // (all L0 files, or the overlapping run of a sorted level).
            let task = pick_manual(
                &st.versions.current(),
                &st.busy,
                &self.opts,
                level,
                begin,
                end,
            );
            if let Some(task) = task {
                self.run_task(st, &task)?;
            }
        }
        Ok(())
    }

    /// Waits until nothing is flushing or compacting and nothing needs to.
    pub(crate) fn wait_for_compaction(&self) -> Result<()> {
        let mut st = self.state.lock();
        loop {
            if let Some(e) = &st.bg_error {
                return Err(Error::Background(e.clone()));
            }
            self.sync_flushing(&mut st);
            let pending = !st.imm.is_empty()
                || st.flush_running
                || st.compactions_running > 0
                || !st.purging.is_empty()
                || pick_automatic(&st.versions.current(), &st.busy, &self.opts).is_some();
            if !pending {
                return Ok(());
            }
            if self.shutting_down.load(Ordering::Acquire) {
                return Err(Error::ShutdownInProgress);
            }
            if !st.imm.is_empty() {
                st.flush_requested = true;
            }
            self.work_cv.notify_all();
            self.bg_cv.wait_for(&mut st, Duration::from_millis(100));
        }
    }

    /// How leveled compactions cut output files (compaction/file_cut.rs);
    /// universal compactions use the size target alone.
    fn file_cut_config(&self) -> Option<FileCutConfig> {
        if self.opts.compaction_style != crate::options::CompactionStyle::Level {
            return None;
        }
        let max = match self.opts.max_compaction_bytes {
            0 => self.opts.target_file_size_base.saturating_mul(25),
            n => n,
        };
        Some(FileCutConfig {
            max_compaction_bytes: max,
            dynamic: self.opts.level_compaction_dynamic_file_size,
        })
    }

    /// Called at close: with unpersisted (WAL-less) writes, flush them, as
    /// RocksDB does unless `avoid_flush_during_shutdown`.
    pub(crate) fn close(&self) {
        let needs = {
            let st = self.state.lock();
            st.unpersisted_writes && st.bg_error.is_none()
        };
        if needs {
            if let Err(e) = self.flush_and_wait("Shut down") {
                self.log.log(&format!("[WARN] flush at close failed: {e}"));
            }
        }
    }
}

/// The LOG's list of a compaction's inputs, as RocksDB's "Compaction start
/// summary": per input level, `[L1: 12(64MB) 15(63MB)]`.
fn input_summary(task: &CompactionTask) -> String {
    task.input_levels()
        .iter()
        .map(|(level, files)| {
            let list: Vec<String> = files
                .iter()
                .map(|f| format!("{}({}MB)", f.number, f.file_size >> 20))
                .collect();
            format!("[L{level}: {}]", list.join(" "))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The first eight bytes of a user key in hex (enough to place a db_bench
/// key, whose leading bytes are its number), for the LOG.
fn key_prefix_hex(key: &[u8]) -> String {
    key.iter().take(8).map(|b| format!("{b:02x}")).collect()
}

/// `compaction_started`: the reason, every level's input file numbers
/// (`files_L0` .. one list per level, empty where none), score and input
/// bytes.
fn compaction_started(job: u64, task: &CompactionTask, num_levels: usize) -> Event {
    let mut e = Event::new("compaction_started", job)
        .with("cf_name", CF_NAME)
        .with("compaction_reason", task.reason.name());
    let inputs = task.input_levels();
    for level in 0..num_levels {
        let numbers: Vec<u64> = inputs
            .iter()
            .filter(|(l, _)| *l == level)
            .flat_map(|(_, files)| files.iter().map(|f| f.number))
            .collect();
        e = e.with(format!("files_L{level}"), numbers);
    }
    e.with("score", task.score).with(
        "input_data_size",
        task.all_inputs().map(|f| f.file_size).sum::<u64>(),
    )
}
