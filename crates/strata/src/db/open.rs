//! Opening a DB: lock, recover the MANIFEST, replay WALs into L0 tables,
//! start a fresh WAL, delete leftovers, write the OPTIONS file, start the
//! background threads.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use parking_lot::{Condvar, Mutex};

use super::family::family_options;
use super::internal_stats::InternalStats;
use super::{Db, DbInner, Family, FamilyState, State, SuperVersion};
use crate::batch::WriteBatch;
use crate::error::{Error, Result};
use crate::filename::{
    current_file_name, lock_file_name, parse_file_name, wal_file_name, FileType,
};
use crate::info_log::InfoLog;
use crate::memtable::MemTable;
use crate::options::Options;
use crate::snapshot::SnapshotList;
use crate::sstable::{BlockCache, TableCache};
use crate::stats::Statistics;
use crate::sync_point::{hit, SyncPoint};
use crate::version::edit::VersionEdit;
use crate::version::VersionSet;
use crate::version::DEFAULT_FAMILY_NAME;
use crate::wal::predecessor::Predecessor;
use crate::wal::Reader as LogReader;
use crate::wal::WalRecoveryMode;

/// The families to open: "default" first, each name with its options
/// (DB-wide options checked against the DB's).
fn requested_families(
    options: &Options,
    families: Vec<(String, Options)>,
) -> Result<Vec<(String, Options)>> {
    let mut out: Vec<(String, Options)> = Vec::new();
    let mut default = None;
    for (name, o) in families {
        super::family::check_family_name(&name)?;
        if name == DEFAULT_FAMILY_NAME {
            default = Some(o);
            continue;
        }
        if out.iter().any(|(n, _)| *n == name) {
            return Err(Error::InvalidArgument(format!(
                "column family '{name}' is listed twice"
            )));
        }
        let fo = family_options(&name, options, &o)?;
        out.push((name, fo));
    }
    let default = match default {
        Some(o) => family_options(DEFAULT_FAMILY_NAME, options, &o)?,
        None => options.clone(),
    };
    out.insert(0, (DEFAULT_FAMILY_NAME.to_string(), default));
    Ok(out)
}

pub(super) fn open(path: &Path, options: Options, families: Vec<(String, Options)>) -> Result<Db> {
    options.validate()?;
    let requested = requested_families(&options, families)?;
    let fs = options.fs.clone();
    if !fs.exists(path) {
        if !options.create_if_missing {
            return Err(Error::InvalidArgument(format!(
                "{}: does not exist (create_if_missing is false)",
                path.display()
            )));
        }
        fs.create_dir_all(path)?;
    }
    let lock = fs.lock(&lock_file_name(path))?;
    let exists = fs.exists(&current_file_name(path));
    if exists && options.error_if_exists {
        return Err(Error::InvalidArgument(format!(
            "{}: exists (error_if_exists is true)",
            path.display()
        )));
    }
    // A MANIFEST alone (a crash while creating the DB) holds no data; WALs,
    // tables or blob files do, and must not be silently replaced.
    if !exists {
        let leftovers: Vec<String> = fs
            .list(path)?
            .into_iter()
            .filter(|n| {
                matches!(
                    parse_file_name(n),
                    Some(FileType::Table(_) | FileType::Wal(_) | FileType::Blob(_))
                )
            })
            .collect();
        if !leftovers.is_empty() {
            return Err(Error::corruption(
                current_file_name(path).display().to_string(),
                0,
                format!(
                    "CURRENT is missing but the directory holds data files ({}); refusing to start a new DB over them",
                    leftovers.iter().take(5).cloned().collect::<Vec<_>>().join(", ")
                ),
            ));
        }
    }
    if !exists && !options.create_if_missing {
        return Err(Error::InvalidArgument(format!(
            "{}: does not exist (create_if_missing is false)",
            path.display()
        )));
    }
    probe_direct_io(&fs, path, &options)?;
    let log = InfoLog::open(&fs, path, options.keep_log_file_num);
    log.log(&format!(
        "Strata version {} opening {}",
        env!("CARGO_PKG_VERSION"),
        path.display()
    ));
    log.log_lines(
        options
            .to_pairs()
            .into_iter()
            .map(|(k, v)| format!("                         Options.{k}: {v}")),
    );
    for (name, o) in &requested {
        if let Some(w) = crate::write_controller::l0_trigger_warning(o) {
            log.log(&format!("{w} (column family '{name}')"));
        }
    }
    let levels = |name: &str| {
        requested
            .iter()
            .find(|(n, _)| n == name)
            .map_or(options.num_levels, |(_, o)| o.num_levels)
    };
    let mut versions = if exists {
        VersionSet::recover(path, fs.clone(), &levels)?
    } else {
        VersionSet::create_new(path, fs.clone(), requested[0].1.num_levels)?
    };
    let on_disk = versions.families();
    let unopened: Vec<&str> = on_disk
        .iter()
        .filter(|(_, n)| !requested.iter().any(|(r, _)| r == n))
        .map(|(_, n)| n.as_str())
        .collect();
    if !unopened.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "{}: column families not opened: {} (open every family the DB has: Db::open_cf; Db::list_column_families names them)",
            path.display(),
            unopened.join(", ")
        )));
    }
    let missing: Vec<(String, Options)> = requested
        .iter()
        .filter(|(n, _)| !on_disk.iter().any(|(_, d)| d == n))
        .cloned()
        .collect();
    if !missing.is_empty() && !options.create_missing_column_families {
        return Err(Error::InvalidArgument(format!(
            "{}: column families do not exist: {} (set create_missing_column_families to create them)",
            path.display(),
            missing
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let stats = options.statistics.then(Statistics::new);
    versions.set_statistics(stats.clone());
    let block_cache =
        (options.block_cache_size > 0).then(|| Arc::new(BlockCache::new(options.block_cache_size)));
    let max_open = if options.max_open_files < 0 {
        usize::MAX
    } else {
        (options.max_open_files as usize).max(16)
    };
    let table_cache = Arc::new(
        TableCache::new(
            path.to_path_buf(),
            fs.clone(),
            max_open,
            block_cache.clone(),
            stats.clone(),
        )
        .with_direct_reads(options.use_direct_reads)
        .with_mmap_reads(options.allow_mmap_reads)
        .with_advise_random(options.advise_random_on_open),
    );
    let blob_cache = (options.blob_cache_size > 0)
        .then(|| Arc::new(crate::blob::BlobCache::new(options.blob_cache_size)));
    let blob_source = Arc::new(
        crate::blob::BlobSource::new(
            path.to_path_buf(),
            fs.clone(),
            blob_cache,
            stats.clone(),
            max_open,
        )
        .with_advise_random(options.advise_random_on_open),
    );
    let last_seq = versions.last_sequence();
    let db_id = super::family::new_db_id();
    let mut family_states = BTreeMap::new();
    for (id, name) in &on_disk {
        let Some((_, fo)) = requested.iter().find(|(n, _)| n == name) else {
            continue;
        };
        let mem = Arc::new(MemTable::for_options(0, fo));
        let sv = SuperVersion {
            file_range_tombstones: Default::default(),
            mem: mem.clone(),
            imm: Vec::new(),
            version: versions.current(*id),
            stats: stats.clone(),
        };
        let family = Arc::new(Family::new(*id, name.clone(), fo.clone(), sv, db_id));
        family_states.insert(*id, FamilyState::new(family, mem));
    }
    let default_family = match family_states.get(&0) {
        Some(f) => f.family.clone(),
        None => {
            return Err(Error::corruption(
                current_file_name(path).display().to_string(),
                0,
                "the MANIFEST has no default column family",
            ))
        }
    };
    let state = State {
        families: family_states,
        versions,
        writers: VecDeque::new(),
        current_wal: 0,
        wal_bytes: BTreeMap::new(),
        flush_running: false,
        compactions_running: 0,
        manual_compactions: 0,
        pending_outputs: BTreeSet::new(),
        bg_error: None,
        istats: InternalStats::new(options.num_levels),
        unpersisted_writes: false,
        delay_credit: Default::default(),
        opened_at: std::time::Instant::now(),
        last_stats_dump: Instant::now(),
        write_stopped: false,
        last_logged_stall: None,
        last_speedup: false,
        forced_flush_reason: None,
        purging: BTreeSet::new(),
        pinned_files: BTreeMap::new(),
        manifest_writing: false,
    };
    let wal = {
        let (fs, dir) = (fs.clone(), path.to_path_buf());
        super::wal_set::WalSet::new(move || fs.sync_dir(&dir))
    };
    let inner = Arc::new(DbInner {
        dir: path.to_path_buf(),
        fs,
        default_family,
        db_id,
        stats: stats.clone(),
        table_cache,
        block_cache,
        blob_source,
        io_limiter: (options.rate_limiter_bytes_per_sec > 0).then(|| {
            Arc::new(crate::rate_limiter::RateLimiter::with_tuning(
                options.rate_limiter_bytes_per_sec,
                options.rate_limiter_refill_period_us,
                10,
                options.rate_limiter_auto_tuned,
            ))
        }),
        state: Mutex::new(state),
        bg_cv: Condvar::new(),
        work_cv: Condvar::new(),
        manifest_cv: Condvar::new(),
        super_version_number: AtomicU64::new(0),
        last_sequence: AtomicU64::new(last_seq),
        snapshots: Arc::new(SnapshotList::default()),
        shutting_down: AtomicBool::new(false),
        wal: Mutex::new(wal),
        log,
        next_job_id: AtomicU64::new(1),
        _lock: lock,
        opts: options,
    });
    inner.recover_wals()?;
    for (name, fo) in missing {
        inner.create_family_with(&name, fo)?;
    }
    {
        let mut st = inner.state.lock();
        let job = inner.new_job_id();
        inner.delete_obsolete_files(&mut st, job);
        inner.write_options_file(&mut st)?;
        inner.delete_obsolete_files(&mut st, job);
        if inner.opts.stats_dump_period_sec > 0 {
            inner.dump_stats(&mut st);
        }
    }
    let threads = inner.start_threads()?;
    inner.work_cv.notify_all();
    inner.log.log("DB opened");
    Ok(Db {
        inner,
        threads: Mutex::new(threads),
        closed: AtomicBool::new(false),
    })
}

impl DbInner {
    /// Replays every WAL at or after the MANIFEST's log number into
    /// memtables, writes them as L0 tables, and switches to a new WAL in
    /// one MANIFEST edit.
    fn recover_wals(&self) -> Result<()> {
        let mut st = self.state.lock();
        let log_number = st.versions.log_number();
        let mut wals: Vec<u64> = self
            .fs
            .list(&self.dir)?
            .iter()
            .filter_map(|n| match parse_file_name(n) {
                Some(FileType::Wal(k)) if k >= log_number => Some(k),
                _ => None,
            })
            .collect();
        wals.sort_unstable();
        let job = self.new_job_id();
        self.log.event(
            &crate::event_log::Event::new("recovery_started", job).with("wal_files", wals.clone()),
        );
        if let Some(&newest) = wals.last() {
            // Regression (wal_numbers_are_not_reused_after_a_crash): the
            // recovery's new WAL took the number of a WAL being replayed.
            st.versions.mark_file_number_used(newest);
        }
        let ids: Vec<u32> = st.families.keys().copied().collect();
        let max_cf = st.versions.max_column_family();
        // Per family: its log number, recovery memtable and edit.
        let mut fams: BTreeMap<u32, (u64, Arc<MemTable>, VersionEdit)> = ids
            .iter()
            .map(|&id| {
                let o = st.fam(id).opts();
                (
                    id,
                    (
                        st.versions.family_log_number(id),
                        Arc::new(MemTable::for_options(0, o)),
                        VersionEdit {
                            column_family: id,
                            ..VersionEdit::default()
                        },
                    ),
                )
            })
            .collect();
        let mut max_seq = st.versions.last_sequence();
        let mut stopped = false;
        let mut outputs = Vec::new();
        // WAL number -> highest sequence replayed from it.
        let mut replayed: HashMap<u64, u64> = HashMap::new();
        for &n in &wals {
            let path = wal_file_name(&self.dir, n);
            let name = path.display().to_string();
            if stopped {
                self.log.log(&format!(
                    "[WARN] recovery: skipping {name}: an earlier WAL ended in corruption (point-in-time recovery)"
                ));
                continue;
            }
            let data = self.fs.read_all(&path)?;
            let mut reader = LogReader::new(data, name.clone(), self.opts.wal_recovery_mode);
            let mut records = 0u64;
            let mut wal_last_seq = 0u64;
            while let Some(rec) = reader.read_record()? {
                let offset = reader.last_record_offset();
                if let Some(p) = Predecessor::decode(&rec, &name, offset) {
                    let p = p?;
                    if let Some(gap) = predecessor_gap(&p, log_number, &replayed) {
                        let why = format!(
                            "{name}: its predecessor WAL {} was logged up to sequence {} but recovery read it only up to {gap}: writes were lost there",
                            p.log_number, p.last_sequence
                        );
                        match self.opts.wal_recovery_mode {
                            WalRecoveryMode::SkipAnyCorruptedRecords => {
                                self.log.log(&format!("[WARN] recovery: {why}; replaying on (skip_any_corrupted_records)"));
                            }
                            WalRecoveryMode::AbsoluteConsistency => {
                                return Err(Error::corruption(&name, offset, why));
                            }
                            WalRecoveryMode::PointInTimeRecovery
                            | WalRecoveryMode::TolerateCorruptedTailRecords => {
                                self.log.log(&format!("[WARN] recovery: {why}; stopping replay before {name} (point-in-time)"));
                                stopped = true;
                                break;
                            }
                        }
                    }
                    continue;
                }
                let batch = WriteBatch::from_data(rec, &name, offset)?;
                if let Some(&cf) = batch.families().iter().find(|&&cf| cf > max_cf) {
                    return Err(Error::corruption(
                        &name,
                        offset,
                        format!("write batch for column family {cf}, beyond the largest id the MANIFEST gave ({max_cf})"),
                    ));
                }
                let mut seq = batch.sequence();
                for op in batch.iter() {
                    // A family dropped since, or flushed past this WAL,
                    // takes nothing from it.
                    if let Some((fam_log, mem, _)) = fams.get(&op.cf) {
                        if n >= *fam_log {
                            mem.add(seq, op.value_type, op.key, op.value);
                        }
                    }
                    seq += 1;
                }
                if batch.count() > 0 {
                    max_seq = max_seq.max(seq - 1);
                    wal_last_seq = wal_last_seq.max(seq - 1);
                }
                records += 1;
                for (&cf, (_, mem, edit)) in fams.iter_mut() {
                    let o = st.fam(cf).opts();
                    if mem.is_full(o.write_buffer_size) {
                        let full = std::mem::replace(mem, Arc::new(MemTable::for_options(0, o)));
                        if let Some(f) = self.recovery_table(&mut st, cf, &full, edit)? {
                            outputs.push(f.number);
                            edit.new_files.push((0, f));
                        }
                    }
                }
            }
            for d in reader.dropped() {
                self.log
                    .log(&format!("[WARN] recovery: {name}: dropped {d}"));
            }
            replayed.insert(n, wal_last_seq);
            hit(SyncPoint::RecoveryWalReplayed);
            if stopped {
                continue;
            }
            stopped = reader.stopped_at().is_some();
            self.log
                .log(&format!("Recovered {records} records from {name}"));
        }
        for (&cf, (_, mem, edit)) in fams.iter_mut() {
            if !mem.is_empty() {
                if let Some(f) = self.recovery_table(&mut st, cf, mem, edit)? {
                    outputs.push(f.number);
                    edit.new_files.push((0, f));
                }
            }
        }
        let number = st.versions.new_file_number();
        let file = crate::fs::incremental_sync::sync_incrementally(
            self.fs.create(&wal_file_name(&self.dir, number))?,
            self.opts.wal_bytes_per_sync,
            false,
        );
        self.fs.sync_dir(&self.dir)?;
        self.wal.lock().start(number, file)?;
        st.current_wal = number;
        st.versions.set_last_sequence(max_seq);
        // One edit per family, each moving its log number to the new WAL.
        // A crash between them leaves the older WALs in place (they go
        // only after every edit), and each family replays from its own
        // log number again.
        for (_, (_, _, mut edit)) in fams {
            edit.log_number = Some(number);
            edit.last_sequence = Some(max_seq);
            st.versions.log_and_apply(edit)?;
            hit(SyncPoint::RecoveryEditLogged);
        }
        for n in outputs {
            st.pending_outputs.remove(&n);
        }
        self.last_sequence.store(max_seq, Ordering::Release);
        for cf in ids {
            let f = st.fam_mut(cf);
            f.mem = Arc::new(MemTable::for_options(number, &f.family.opts));
            self.install_super_version(&mut st, cf);
        }
        self.log
            .event(&crate::event_log::Event::new("recovery_finished", job).with("status", "OK"));
        Ok(())
    }

    fn recovery_table(
        &self,
        st: &mut State,
        cf: u32,
        mem: &Arc<MemTable>,
        edit: &mut VersionEdit,
    ) -> Result<Option<crate::version::edit::FileMetaData>> {
        // Recovery flushes count no memtable payload, as RocksDB's
        // `WriteLevel0TableForRecovery`.
        let job = self.new_job_id();
        let start = std::time::Instant::now();
        let fam = st.fam(cf).family.clone();
        let (f, blobs) = self.write_level0_table(
            &fam,
            job,
            std::slice::from_ref(mem),
            Vec::new(),
            &mut || {
                let n = st.versions.new_file_number();
                st.pending_outputs.insert(n);
                n
            },
            &mut super::flush::FlushPayload::default(),
        )?;
        if f.is_some() {
            hit(SyncPoint::RecoveryTableWritten);
        }
        let blob_bytes: u64 = blobs.iter().map(|b| b.file_size).sum();
        let additions: Vec<_> = blobs.iter().map(|b| b.to_addition()).collect();
        super::flush::log_blob_file_creations(&self.log, job, &fam.name, &additions);
        edit.blob_file_additions.extend(additions);
        // As `WriteLevel0TableForRecovery`: one L0 job with its wall time,
        // counted even when it wrote no table, its table bytes also in
        // `rocksdb.compact.write.bytes`. Without the time the L0 row (and its
        // bytes in the Sum row) went missing from `rocksdb.stats`.
        let table_bytes = f.as_ref().map_or(0, |f| f.file_size);
        // RocksDB times a recovery flush but takes no CPU time for it.
        st.fam_mut(cf).istats.add_flush(
            table_bytes,
            blob_bytes,
            start.elapsed().as_micros() as u64,
            0,
        );
        if let Some(s) = &self.stats {
            s.record_tick(crate::stats::Ticker::CompactWriteBytes, table_bytes);
        }
        Ok(f)
    }
}

/// How far short of its predecessor record's claim recovery fell: `None`
/// when the predecessor WAL is flushed already (older than `log_number`),
/// held no batch, or was replayed up to the sequence the record names;
/// otherwise the highest sequence replayed from it (0 if it was missing).
fn predecessor_gap(p: &Predecessor, log_number: u64, replayed: &HashMap<u64, u64>) -> Option<u64> {
    if p.last_sequence == 0 || p.log_number < log_number {
        return None;
    }
    let got = replayed.get(&p.log_number).copied().unwrap_or(0);
    (got < p.last_sequence).then_some(got)
}

/// With direct I/O asked for, checks at open that the file system accepts
/// O_DIRECT, so the error names the option instead of failing a flush.
fn probe_direct_io(fs: &Arc<dyn crate::fs::FileSystem>, dir: &Path, o: &Options) -> Result<()> {
    let checks = [
        (
            "use_direct_io_for_flush_and_compaction",
            o.use_direct_io_for_flush_and_compaction,
        ),
        ("use_direct_reads", o.use_direct_reads),
    ];
    for (name, on) in checks {
        if !on {
            continue;
        }
        let probe = crate::filename::temp_file_name(dir, 0);
        let r = fs.create_opt(&probe, true).and_then(|mut f| {
            f.append(b"probe")?;
            f.sync()
        });
        let r = r.and_then(|()| fs.open_random_opt(&probe, true).map(|_| ()));
        let _ = fs.remove(&probe);
        if let Err(e) = r {
            return Err(Error::NotSupported(format!("{name}=true: {e}")));
        }
    }
    Ok(())
}
