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
use crate::compaction::job::{run_compaction, BlobJobConfig, JobContext};
use crate::compaction::subcompaction::{should_form_subcompactions, subcompaction_boundaries};
use crate::compaction::{
    pick_scheduled, read_triggered, CompactionPolicy, CompactionReason, CompactionTask,
};
use crate::error::{Error, Result};
use crate::event_log::{compression_label, lsm_state, table_file_creation, Event};
use crate::options::CpuPriority;
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
    ///
    /// # Errors
    /// The OS refuses a thread: the threads already started are stopped
    /// and joined, and the error names the thread.
    pub(crate) fn start_threads(self: &Arc<Self>) -> Result<Vec<JoinHandle<()>>> {
        type Body = fn(Arc<DbInner>);
        let mut names: Vec<(String, Body, CpuPriority)> =
            vec![("strata:flush".into(), Self::flush_loop, CpuPriority::Normal)];
        let n = bg_job_limits(&self.opts, true).max_compactions;
        for i in 0..n {
            names.push((
                format!("strata:compact{i}"),
                Self::compaction_loop,
                self.opts.compaction_cpu_priority,
            ));
        }
        let mut threads = Vec::with_capacity(names.len());
        for (name, body, priority) in names {
            let me = self.clone();
            match std::thread::Builder::new()
                .name(name.clone())
                .spawn(move || {
                    if let Err(e) = crate::thread_priority::set_current(priority) {
                        me.log.log(&format!(
                            "[WARN] thread {}: CPU priority {} refused, running at the process's: {e}",
                            std::thread::current().name().unwrap_or("background"),
                            priority.name()
                        ));
                    }
                    body(me)
                })
            {
                Ok(t) => threads.push(t),
                Err(e) => {
                    self.stop_threads(threads);
                    return Err(Error::io(format!("start background thread {name}"), e));
                }
            }
        }
        Ok(threads)
    }

    /// Tells the background threads to stop, wakes them and joins them; a
    /// thread that panicked is logged.
    pub(crate) fn stop_threads(&self, threads: Vec<JoinHandle<()>>) {
        self.shutting_down.store(true, Ordering::Release);
        {
            let _st = self.state.lock();
            self.work_cv.notify_all();
            self.bg_cv.notify_all();
        }
        for t in threads {
            let name = t.thread().name().unwrap_or("background").to_string();
            if t.join().is_err() {
                self.log.log(&format!("[ERROR] thread {name} panicked"));
            }
        }
    }

    /// The family whose flush should run now: of those with sealed
    /// memtables due for flush, the one holding the oldest WAL. `None`
    /// while a flush runs (one at a time) or after a background error.
    fn flush_pick(&self, st: &State) -> Option<u32> {
        if st.flush_running || st.bg_error.is_some() {
            return None;
        }
        st.families
            .iter()
            .filter(|(_, f)| f.flush_needed(st.write_stopped))
            .min_by_key(|(_, f)| f.imm.front().map_or(u64::MAX, |m| m.wal_number()))
            .map(|(&id, _)| id)
    }

    /// Records in each family's `busy` the sealed memtables whose flush is
    /// running or due, which the leveled picker counts as L0 files (see
    /// `compaction::leveled::level_scores`), and the table reads nominated
    /// for a read-triggered compaction (dropping a nomination of a table
    /// the current version no longer holds above its last level). Called
    /// before every pick.
    pub(crate) fn sync_busy(&self, st: &mut State) {
        let stopped = st.write_stopped;
        let no_error = st.bg_error.is_none();
        for (&cf, f) in st.families.iter_mut() {
            f.busy.read_nominee = match f.family.reads.nominee() {
                Some(n) if read_triggered::nominee_level(&st.versions.current(cf), n).is_some() => {
                    Some(n)
                }
                Some(n) => {
                    f.family.reads.clear(n);
                    None
                }
                None => None,
            };
            let due = f.flushing || (no_error && f.flush_needed(stopped));
            let (n, bytes) = if due {
                let bytes = f
                    .imm
                    .iter()
                    .map(|m| m.approximate_memory_usage() as u64)
                    .sum();
                (f.imm.len(), bytes)
            } else {
                (0, 0)
            };
            f.busy.flushing = n;
            f.busy.flushing_bytes = bytes;
        }
    }

    fn flush_loop(self: Arc<Self>) {
        let mut st = self.state.lock();
        loop {
            if self.shutting_down.load(Ordering::Acquire) {
                return;
            }
            if let Some(cf) = self.flush_pick(&st) {
                self.background_flush(&mut st, cf);
                continue;
            }
            self.work_cv.wait_for(&mut st, Duration::from_secs(1));
        }
    }

    /// The automatic compaction to run next: of every family's pick, the
    /// one with the highest score.
    fn pick_compaction(&self, st: &mut State) -> Option<(u32, CompactionTask)> {
        self.sync_busy(st);
        let mut best: Option<(u32, CompactionTask)> = None;
        for (&cf, f) in &st.families {
            let o = f.opts();
            if o.disable_auto_compactions || f.dropping {
                continue;
            }
            let v = st.versions.current(cf);
            let task = pick_scheduled(&v, &f.busy, o);
            if let Some(t) = task {
                if best.as_ref().is_none_or(|(_, b)| t.score > b.score) {
                    best = Some((cf, t));
                }
            }
        }
        if let Some((cf, t)) = &best {
            if t.reason == CompactionReason::ReadTriggered {
                let f = st.fam(*cf);
                if let Some(n) = f.busy.read_nominee {
                    f.family.reads.clear(n);
                }
            }
        }
        best
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
                && st.compactions_running < self.compaction_limit(&mut st)
            {
                self.pick_compaction(&mut st)
            } else {
                None
            };
            match task {
                Some((cf, task)) => {
                    let _ = self.run_task(&mut st, cf, &task);
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
        let ids: Vec<u32> = st.families.keys().copied().collect();
        let mut found = None;
        for cf in ids {
            let shape = self.lsm_shape(st, cf, false);
            if let Some(c) = needs_compaction_speedup(&shape, st.fam(cf).opts()) {
                found = Some((c, shape));
                break;
            }
        }
        let cause = found.map(|(c, _)| c);
        let shape = found.map(|(_, s)| s).unwrap_or_default();
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
        let ids: Vec<u32> = st.families.keys().copied().collect();
        for cf in ids {
            let text = self.stats_text(st, cf);
            self.log
                .log(&format!("------- DUMPING STATS -------\n{text}"));
        }
    }

    /// Marks a task's files busy, runs it without the lock, installs the
    /// result and unmarks.
    pub(crate) fn run_task(
        &self,
        st: &mut MutexGuard<'_, State>,
        cf: u32,
        task: &CompactionTask,
    ) -> Result<()> {
        let (lo, hi) = task.user_key_range();
        let fam = st.fam(cf).family.clone();
        let o = &fam.opts;
        let policy = CompactionPolicy::of(o);
        let fs_ = st.fam_mut(cf);
        for f in task.all_inputs() {
            fs_.busy.files.insert(f.number);
        }
        fs_.busy
            .output_ranges
            .push((task.output_level, lo.clone(), hi.clone()));
        fs_.jobs_running += 1;
        st.compactions_running += 1;
        let version = st.versions.current(cf);
        let snapshots = self.snapshots.sequences();
        let job = self.new_job_id();
        self.log.log(&format!(
            "[{}] [JOB compaction] {} L{} -> L{}: {} + {} + {} files, score {:.2}{}",
            fam.name,
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
        let mut blob_cfg = self.blob_job_config(o, &version, task.output_level);
        blob_cfg.column_family_id = cf;
        let boundaries = self.subcompaction_boundaries(o, task);
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
        let table_opts = self.output_table_opts(&fam, policy.output_compression(&version, task));
        if !task.trivial_move && !task.reason.is_deletion() {
            self.log.event(&compaction_started(
                job,
                &fam.name,
                task,
                version.num_levels(),
            ));
        }
        let on_table = |n: crate::filename::FileNumber, info: &crate::sstable::TableInfo| {
            self.log
                .event(&table_file_creation(job, &fam.name, n, info));
        };
        let result = MutexGuard::unlocked(st, || {
            let ctx = JobContext {
                dir: &self.dir,
                fs: &self.fs,
                table_opts: &table_opts,
                table_cache: &self.table_cache,
                stats: self.stats.as_ref(),
                verify_checksums: o.paranoid_checks,
                shutting_down: &self.shutting_down,
                direct_writes: self.opts.use_direct_io_for_flush_and_compaction,
                rate_limiter: self.io_limiter.as_ref(),
                bytes_per_sync: self.opts.effective_bytes_per_sync(),
                blobs: blob_cfg,
                file_cut: policy.file_cut(),
                readahead: self.opts.effective_compaction_readahead_size(),
                on_table: Some(&on_table),
                merge_operator: o.merge_operator.as_deref(),
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
        let outcome = result.and_then(|(mut edit, js)| {
            edit.column_family = cf;
            crate::db::flush::log_blob_file_creations(
                &self.log,
                job,
                &fam.name,
                &edit.blob_file_additions,
            );
            self.log_and_apply(st, edit)?;
            crate::sync_point::hit(crate::sync_point::SyncPoint::CompactionManifestSynced);
            Ok(js)
        });
        // The version the job read from names its inputs: let it go before
        // `delete_obsolete_files` below, or the inputs of the last compaction
        // stay on disk until some later job (or a reopen) removes them.
        drop(version);
        for n in started.lock().iter() {
            st.pending_outputs.remove(n);
        }
        {
            let busy = &mut st.fam_mut(cf).busy;
            for f in task.all_inputs() {
                busy.files.remove(&f.number);
            }
            if let Some(i) = busy
                .output_ranges
                .iter()
                .position(|(l, a, b)| *l == task.output_level && *a == lo && *b == hi)
            {
                busy.output_ranges.remove(i);
            }
        }
        let ret = match outcome {
            // A FIFO deletion is not a compaction in RocksDB's statistics:
            // no Compaction Stats row, no compaction histograms.
            Ok(_) if task.reason.is_deletion() => {
                let bytes: u64 = task.all_inputs().map(|f| f.file_size).sum();
                self.log.log(&format!(
                    "[{}] [JOB compaction] FIFO deleted {} files ({bytes} bytes)",
                    fam.name,
                    task.all_inputs().count()
                ));
                self.install_super_version(st, cf);
                Ok(())
            }
            Ok(js) => {
                st.fam_mut(cf).istats.levels[task.output_level].add_job(&js, task.trivial_move);
                if let Some(s) = &self.stats {
                    s.record_tick(
                        Ticker::CompactReadBytes,
                        js.read_bytes_level + js.read_bytes_next,
                    );
                    s.record_tick(Ticker::CompactWriteBytes, js.write_bytes);
                    s.record_tick(Ticker::CompactionKeyDropNewerEntry, js.dropped_shadowed);
                    s.record_tick(Ticker::CompactionKeyDropObsolete, js.dropped_obsolete);
                    s.record_tick(Ticker::CompactionKeyDropRangeDel, js.dropped_range_del);
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
                    let n = o.max_subcompactions as usize;
                    if should_form_subcompactions(task, n, o.num_levels) {
                        s.record_histogram(
                            Histogram::NumSubcompactionsScheduled,
                            js.subcompactions,
                        );
                    }
                }
                self.log.log(&format!(
                    "[{}] [JOB compaction] done L{} -> L{}: read {} + {} bytes, wrote {} bytes in {} files, {} keys in, {} dropped, {} us ({} us CPU)",
                    fam.name,
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
                let r = self.retire_blob_files(st, cf);
                self.install_super_version(st, cf);
                let lsm = lsm_state(&st.versions.current(cf));
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
        st.fam_mut(cf).jobs_running -= 1;
        self.bg_cv.notify_all();
        self.work_cv.notify_all();
        ret
    }

    /// The blob configuration of a job writing to `output_level`.
    pub(crate) fn blob_job_config(
        &self,
        o: &crate::options::Options,
        version: &crate::version::Version,
        output_level: usize,
    ) -> BlobJobConfig<'_> {
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
            column_family_id: 0,
        }
    }

    /// Subcompaction boundaries for a task (none: one range).
    pub(crate) fn subcompaction_boundaries(
        &self,
        o: &crate::options::Options,
        task: &CompactionTask,
    ) -> Vec<Vec<u8>> {
        let n = o.max_subcompactions as usize;
        if should_form_subcompactions(task, n, o.num_levels) {
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
    pub(crate) fn retire_blob_files(&self, st: &mut MutexGuard<'_, State>, cf: u32) -> Result<()> {
        // The edit must apply to the version it was computed from.
        self.wait_for_manifest(st);
        if !st.versions.has_family(cf) {
            return Ok(());
        }
        let v = st.versions.current(cf);
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
            column_family: cf,
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

    /// Compacts `[begin, end]` (RocksDB's `CompactRange`) in the passes the
    /// family's [`CompactionPolicy`] plans: level by level down to the last
    /// level that holds data under leveled compaction, one pick under
    /// universal and FIFO compaction.
    pub(crate) fn compact_range(
        &self,
        cf: u32,
        begin: Option<&[u8]>,
        end: Option<&[u8]>,
    ) -> Result<()> {
        self.flush_and_wait(cf, "Manual Compaction")?;
        let mut st = self.state.lock();
        st.manual_compactions += 1;
        // Let running automatic compactions finish first.
        while st.compactions_running > 0 {
            self.bg_cv.wait_for(&mut st, Duration::from_millis(100));
        }
        let result = if st.families.get(&cf).is_some_and(|f| !f.dropping) {
            self.manual_passes(&mut st, cf, begin, end)
        } else {
            Err(Error::InvalidArgument(format!(
                "column family {cf} was dropped"
            )))
        };
        self.wait_for_purge(&mut st);
        st.manual_compactions -= 1;
        self.work_cv.notify_all();
        result
    }

    fn manual_passes(
        &self,
        st: &mut MutexGuard<'_, State>,
        cf: u32,
        begin: Option<&[u8]>,
        end: Option<&[u8]>,
    ) -> Result<()> {
        let fam = st.fam(cf).family.clone();
        let policy = CompactionPolicy::of(&fam.opts);
        let passes = policy.manual_passes(&st.versions.current(cf));
        // No version is held across `run_task`: the job deletes the files
        // it merged away only if no version still names them. Each pass
        // picks from the version the one before it left.
        for pass in 0..passes {
            if let Some(e) = &st.bg_error {
                return Err(Error::Background(e.clone()));
            }
            if self.shutting_down.load(Ordering::Acquire) {
                return Err(Error::ShutdownInProgress);
            }
            let task = policy.pick_manual(
                &st.versions.current(cf),
                &st.fam(cf).busy,
                pass,
                (begin, end),
                crate::clock::unix_now(),
            );
            if let Some(task) = task {
                self.run_task(st, cf, &task)?;
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
            self.sync_busy(&mut st);
            let pending = st.flush_running
                || st.compactions_running > 0
                || !st.purging.is_empty()
                || st.families.iter().any(|(&cf, f)| {
                    !f.imm.is_empty()
                        || (!f.opts().disable_auto_compactions
                            && pick_scheduled(&st.versions.current(cf), &f.busy, f.opts())
                                .is_some())
                });
            if !pending {
                return Ok(());
            }
            if self.shutting_down.load(Ordering::Acquire) {
                return Err(Error::ShutdownInProgress);
            }
            for f in st.families.values_mut() {
                if !f.imm.is_empty() {
                    f.flush_requested = true;
                }
            }
            self.work_cv.notify_all();
            self.bg_cv.wait_for(&mut st, Duration::from_millis(100));
        }
    }

    /// Called at close: with unpersisted (WAL-less) writes, flush them, as
    /// RocksDB does unless `avoid_flush_during_shutdown`. Returns the first
    /// flush's error (each is also in the LOG).
    pub(crate) fn close(&self) -> Result<()> {
        let needs: Vec<u32> = {
            let st = self.state.lock();
            if st.unpersisted_writes && st.bg_error.is_none() {
                st.families
                    .iter()
                    .filter(|(_, f)| !f.is_empty())
                    .map(|(&id, _)| id)
                    .collect()
            } else {
                Vec::new()
            }
        };
        let mut first = Ok(());
        for cf in needs {
            if let Err(e) = self.flush_and_wait(cf, "Shut down") {
                self.log.log(&format!("[WARN] flush at close failed: {e}"));
                if first.is_ok() {
                    first = Err(e);
                }
            }
        }
        first
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
fn compaction_started(job: u64, cf_name: &str, task: &CompactionTask, num_levels: usize) -> Event {
    let mut e = Event::new("compaction_started", job)
        .with("cf_name", cf_name)
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
