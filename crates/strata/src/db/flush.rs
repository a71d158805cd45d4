//! Flush: immutable memtables -> one L0 table, then the MANIFEST edit that
//! adds it and retires their WALs.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::MutexGuard;

use super::{DbInner, Family, State};
use crate::blob::{BlobFileInfo, BlobOutput, BlobOutputOptions};
use crate::compaction::drop_rules::{Decision, DropRules};
use crate::compaction::job::thread_cpu_micros;
use crate::compaction::merge_helper::{merge_until, MergeContext};
use crate::compaction::output::OutputWriter;
use crate::compaction::CompactionPolicy;
use crate::error::{Error, Result};
use crate::event_log::{compression_label, lsm_state, table_file_creation, Event};
use crate::filename::FileNumber;
use crate::iter::{InternalIterator, MergingIterator};
use crate::memtable::{MemTable, MemTableIterator};
use crate::options::PrepopulateBlobCache;
use crate::stats::{Histogram, Ticker};
use crate::types::{parse_internal_key, ValueType};
use crate::version::edit::{FileMetaData, VersionEdit};

/// What a flush read from its memtables: bytes (internal key plus value)
/// of every entry, and of the entries it dropped as superseded.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FlushPayload {
    /// All entries (`rocksdb.memtable.payload.bytes.at.flush`).
    pub read: u64,
    /// Dropped entries (`rocksdb.memtable.garbage.bytes.at.flush`).
    pub dropped: u64,
}

/// What one flush writes: a family's sealed memtables, the snapshots whose
/// versions it keeps, and the job its events name.
struct FlushInput<'a> {
    fam: &'a Family,
    job: u64,
    mems: &'a [Arc<MemTable>],
    snapshots: Vec<u64>,
}

impl DbInner {
    /// Writes memtables to (at most) one L0 table without touching the
    /// version; the caller logs the edit. Runs without the state lock.
    /// Adds the bytes it read and dropped to `payload`.
    pub(crate) fn write_level0_table(
        &self,
        fam: &Family,
        job: u64,
        mems: &[Arc<MemTable>],
        snapshots: Vec<u64>,
        new_file_number: &mut dyn FnMut() -> FileNumber,
        payload: &mut FlushPayload,
    ) -> Result<(Option<FileMetaData>, Vec<BlobFileInfo>)> {
        let o = &fam.opts;
        let mut blobs = (o.enable_blob_files && o.blob_file_starting_level == 0)
            .then(|| self.blob_output(o, true).with_column_family(fam.id));
        let input = FlushInput {
            fam,
            job,
            mems,
            snapshots,
        };
        let r = self.write_level0_inner(input, new_file_number, blobs.as_mut(), payload);
        match (r, blobs) {
            (Ok(f), Some(b)) => Ok((f, b.finish()?)),
            (Ok(f), None) => Ok((f, Vec::new())),
            (Err(e), Some(b)) => {
                b.abandon();
                Err(e)
            }
            (Err(e), None) => Err(e),
        }
    }

    /// A blob output with a family's blob options `o`.
    pub(crate) fn blob_output(&self, o: &crate::options::Options, flush: bool) -> BlobOutput<'_> {
        BlobOutput::new(
            self.dir.clone(),
            self.fs.clone(),
            BlobOutputOptions {
                min_blob_size: o.min_blob_size,
                blob_file_size: o.blob_file_size,
                compression: o.blob_compression_type,
                prepopulate_cache: flush
                    && o.prepopulate_blob_cache == PrepopulateBlobCache::FlushOnly,
            },
            self.stats.clone(),
            Some(&self.blob_source),
        )
        .with_rate_limiter(
            self.io_limiter.as_ref(),
            if flush {
                crate::rate_limiter::IoPriority::High
            } else {
                crate::rate_limiter::IoPriority::Low
            },
        )
        .with_bytes_per_sync(self.opts.effective_bytes_per_sync())
    }

    // The table of `write_level0_table`, its values moved to `blobs` where
    // given; the caller finishes or abandons `blobs`.
    fn write_level0_inner(
        &self,
        input: FlushInput<'_>,
        new_file_number: &mut dyn FnMut() -> FileNumber,
        mut blobs: Option<&mut BlobOutput<'_>>,
        payload: &mut FlushPayload,
    ) -> Result<Option<FileMetaData>> {
        let FlushInput {
            fam,
            job,
            mems,
            snapshots,
        } = input;
        let children: Vec<Box<dyn InternalIterator>> = mems
            .iter()
            .map(|m| Box::new(MemTableIterator::new(m.clone())) as Box<dyn InternalIterator>)
            .collect();
        let mem_tombstones: Vec<_> = mems.iter().map(|m| m.range_tombstones()).collect();
        let tombstones = crate::range_del::union(mem_tombstones.iter().map(|t| &**t));
        let mut it = crate::range_del::CoveredSkipIter::new(
            MergingIterator::new(children),
            Arc::new(tombstones.clone()),
            snapshots.clone(),
        );
        let mut rules = DropRules::new(snapshots);
        let table_opts = self.flush_table_opts(fam);
        let on_table = |n: FileNumber, info: &crate::sstable::TableInfo| {
            self.log
                .event(&table_file_creation(job, &fam.name, n, info));
        };
        let mut out = OutputWriter::new(
            &self.dir,
            &self.fs,
            &table_opts,
            u64::MAX,
            self.stats.as_ref(),
        )
        .with_direct_writes(self.opts.use_direct_io_for_flush_and_compaction)
        .with_rate_limiter(self.io_limiter.as_ref())
        .with_bytes_per_sync(self.opts.effective_bytes_per_sync())
        // Every entry of a sealed memtable was written before its flush.
        .with_newest_key_time(crate::clock::unix_now())
        .with_table_listener(Some(&on_table))
        .with_range_tombstones(tombstones);
        let merge_ctx = MergeContext {
            op: fam.opts.merge_operator.as_deref(),
            stats: self.stats.as_deref(),
        };
        it.seek_to_first();
        while it.valid() {
            let bytes = (it.key().len() + it.value().len()) as u64;
            payload.read += bytes;
            let decision = rules.decide(it.key(), |_| false);
            let is_merge =
                || parse_internal_key(it.key()).is_some_and(|p| p.value_type == ValueType::Merge);
            if decision == Decision::Keep && is_merge() {
                // The run of merge operands from here, merged (older files
                // may hold the key, so never as the bottom); it leaves the
                // iterator after the run.
                let m = merge_until(
                    &merge_ctx,
                    &mut it,
                    &rules,
                    &|_| false,
                    &mut |uk, index| {
                        let index = crate::blob::BlobIndex::decode(index).ok_or_else(|| {
                            Error::corruption(
                                "memtable",
                                0,
                                format!(
                                    "undecodable blob index for key {}",
                                    crate::merge::show_key(uk)
                                ),
                            )
                        })?;
                        self.blob_source.get(uk, &index, false, true)
                    },
                    &mut |k, v| {
                        payload.read += (k.len() + v.len()) as u64;
                        Ok(())
                    },
                )?;
                for (k, v) in &m.entries {
                    let replaced = match blobs.as_deref_mut() {
                        Some(b) => b.add_entry(k, v, new_file_number)?,
                        None => None,
                    };
                    match replaced {
                        Some((k, v)) => out.add(&k, &v, new_file_number)?,
                        None => out.add(k, v, new_file_number)?,
                    }
                }
                continue;
            }
            if decision != Decision::Keep {
                payload.dropped += bytes;
            } else {
                let replaced = match blobs.as_deref_mut() {
                    Some(b) => b.add_entry(it.key(), it.value(), new_file_number)?,
                    None => None,
                };
                match replaced {
                    Some((k, v)) => out.add(&k, &v, new_file_number)?,
                    None => out.add(it.key(), it.value(), new_file_number)?,
                }
            }
            it.next();
        }
        it.status()?;
        let (mut files, _) = out.finish(new_file_number)?;
        if !files.is_empty() {
            self.fs.sync_dir(&self.dir)?;
        }
        Ok(files.pop())
    }

    /// The compression a flush's table gets, as events name it
    /// (`flush_finished`'s `output_compression`).
    fn flush_compression_label(&self, fam: &Family) -> String {
        compression_label(self.flush_table_opts(fam).compression.name())
    }

    /// The table options of a flush's table, compressed as the family's
    /// [`CompactionPolicy::flush_compression`] says.
    fn flush_table_opts<'a>(
        &self,
        fam: &'a Family,
    ) -> std::borrow::Cow<'a, crate::sstable::TableOptions> {
        self.output_table_opts(fam, CompactionPolicy::of(&fam.opts).flush_compression())
    }

    /// The table options for a family's new tables: the family's with
    /// block compression `compression` (the output level's, or none under
    /// universal's `compression_size_percent`).
    pub(crate) fn output_table_opts<'a>(
        &self,
        fam: &'a Family,
        compression: crate::sstable::CompressionType,
    ) -> std::borrow::Cow<'a, crate::sstable::TableOptions> {
        if fam.table_opts.compression == compression {
            std::borrow::Cow::Borrowed(&fam.table_opts)
        } else {
            std::borrow::Cow::Owned(crate::sstable::TableOptions {
                compression,
                ..fam.table_opts.clone()
            })
        }
    }

    /// Allocates an output file number and protects it from deletion.
    pub(crate) fn allocate_output(&self) -> FileNumber {
        let mut st = self.state.lock();
        let n = st.versions.new_file_number();
        st.pending_outputs.insert(n);
        n
    }

    /// Flushes the immutable memtables of family `cf`. Called by the flush
    /// thread with the lock held; releases it while writing.
    pub(crate) fn background_flush(&self, st: &mut MutexGuard<'_, State>, cf: u32) {
        let fam = st.fam(cf).family.clone();
        let mems: Vec<Arc<MemTable>> = st.fam(cf).imm.iter().cloned().collect();
        if mems.is_empty() {
            return;
        }
        st.flush_running = true;
        st.fam_mut(cf).jobs_running += 1;
        st.fam_mut(cf).flushing = true;
        // The version this flush started from stays live until its table is
        // written, as RocksDB's `FlushJob` holds its base version: a
        // compaction that finishes meanwhile leaves its inputs for this
        // thread to remove (`purge.rs`).
        let base = st.versions.current(cf);
        let snapshots = self.snapshots.sequences();
        let start = Instant::now();
        let cpu = thread_cpu_micros();
        let entries: u64 = mems.iter().map(|m| m.num_entries()).sum();
        let deletes: u64 = mems.iter().map(|m| m.num_deletions()).sum();
        let mem_bytes: usize = mems.iter().map(|m| m.approximate_memory_usage()).sum();
        let job = self.new_job_id();
        self.log.log(&format!(
            "[{}] [JOB flush] Flushing {} memtable(s): {entries} entries, {mem_bytes} bytes",
            fam.name,
            mems.len()
        ));
        self.log.event(
            &Event::new("flush_started", job)
                .with("cf_name", fam.name.as_str())
                .with("num_memtables", mems.len())
                .with("total_num_input_entries", entries)
                .with("num_deletes", deletes)
                .with("memory_usage", mem_bytes)
                .with("flush_reason", mems[0].flush_reason()),
        );
        let mut started = Vec::new();
        let mut payload = FlushPayload::default();
        // With several families, a WAL record may hold a batch that spans
        // this family and others: the WALs this flush retires for it must
        // be durable before its table is, or a crash could keep the table's
        // part of a batch and lose the other families' part (RocksDB syncs
        // the closed WALs for the same reason).
        let sync_wals = st.families.len() > 1;
        let result = MutexGuard::unlocked(st, || {
            let r = self.write_level0_table(
                &fam,
                job,
                &mems,
                snapshots,
                &mut || {
                    let n = self.allocate_output();
                    started.push(n);
                    n
                },
                &mut payload,
            );
            if sync_wals && r.is_ok() {
                self.wal.lock().sync_closed()?;
            }
            r
        });
        drop(base);
        let n = mems.len();
        let outcome = result.and_then(|(file, blob_files)| {
            let mut edit = VersionEdit {
                column_family: cf,
                ..VersionEdit::default()
            };
            let bytes = file.as_ref().map_or(0, |f| f.file_size);
            let blob_bytes: u64 = blob_files.iter().map(|b| b.file_size).sum();
            if let Some(f) = file.clone() {
                edit.new_files.push((0, f));
            }
            edit.blob_file_additions = blob_files.iter().map(|b| b.to_addition()).collect();
            log_blob_file_creations(&self.log, job, &fam.name, &edit.blob_file_additions);
            // The oldest WAL still needed is the one of the oldest memtable
            // that is not being flushed now.
            let f = st.fam(cf);
            let log_number = f
                .imm
                .iter()
                .skip(n)
                .map(|m| m.wal_number())
                .chain(std::iter::once(f.mem.wal_number()))
                .min()
                .unwrap_or(0);
            edit.log_number = Some(log_number);
            // Families with nothing unflushed need no WAL before the
            // current one: recording that lets older WALs go.
            edit.family_log_numbers = st
                .families
                .iter()
                .filter(|(&id, f)| id != cf && f.is_empty())
                .map(|(&id, _)| (id, st.current_wal))
                .filter(|&(id, n)| n > st.versions.family_log_number(id))
                .collect();
            edit.last_sequence = Some(self.last_sequence.load(Ordering::Acquire));
            self.log_and_apply(st, edit)?;
            crate::sync_point::hit(crate::sync_point::SyncPoint::FlushManifestSynced);
            Ok((file, bytes, blob_bytes))
        });
        for n in started {
            st.pending_outputs.remove(&n);
        }
        match outcome {
            Ok((file, bytes, blob_bytes)) => {
                let f = st.fam_mut(cf);
                for _ in 0..n {
                    f.imm.pop_front();
                }
                let micros = start.elapsed().as_micros() as u64;
                f.istats.add_flush(
                    bytes,
                    blob_bytes,
                    micros,
                    thread_cpu_micros().saturating_sub(cpu),
                );
                if let Some(s) = &self.stats {
                    s.record_tick(Ticker::FlushWriteBytes, bytes + blob_bytes);
                    s.record_tick(Ticker::MemtablePayloadBytesAtFlush, payload.read);
                    s.record_tick(Ticker::MemtableGarbageBytesAtFlush, payload.dropped);
                    s.record_histogram(Histogram::FlushTime, micros);
                }
                // Only when nothing unflushed is left: WAL-less writes made
                // into the active memtable while this flush ran are still
                // unpersisted, and the flush at close must see them.
                if st
                    .families
                    .values()
                    .all(|f| f.imm.is_empty() && f.mem.num_entries() == 0)
                {
                    st.unpersisted_writes = false;
                }
                self.install_super_version(st, cf);
                self.log.log(&format!(
                    "[{}] [JOB flush] Level-0 table #{}: {bytes} bytes, blob files {blob_bytes} bytes, {micros} us",
                    fam.name,
                    file.map_or(0, |f| f.number)
                ));
                let _ = self.retire_blob_files(st, cf);
                self.install_super_version(st, cf);
                self.log.event(
                    &Event::new("flush_finished", job)
                        .with("cf_name", fam.name.as_str())
                        .with("output_compression", self.flush_compression_label(&fam))
                        .with("lsm_state", lsm_state(&st.versions.current(cf)))
                        .with("immutable_memtables", st.fam(cf).imm.len()),
                );
            }
            Err(e) => {
                if !matches!(e, Error::ShutdownInProgress) {
                    self.set_bg_error(st, e);
                }
            }
        }
        // The flushed memtables' last references are usually these (the
        // super version no longer names them): their arenas, a write buffer
        // each, are freed with the lock released, not under it, where the
        // unmapping of their blocks would hold up every writer.
        MutexGuard::unlocked(st, move || drop(mems));
        // Writers and compactions go on while this thread removes what the
        // flush (or a compaction that finished during it) made obsolete,
        // with the lock released; the flush slot is freed only after.
        self.delete_obsolete_files(st, job);
        st.flush_running = false;
        let f = st.fam_mut(cf);
        f.jobs_running -= 1;
        f.flushing = false;
        if f.imm.is_empty() {
            f.flush_requested = false;
        }
        self.bg_cv.notify_all();
        self.work_cv.notify_all();
    }

    /// Switches family `cf`'s memtable (if it holds data) and waits until
    /// every immutable memtable of it is flushed. `reason` is RocksDB's
    /// flush reason name the LOG gives the switch.
    pub(crate) fn flush_and_wait(&self, cf: u32, reason: &'static str) -> Result<()> {
        self.state.lock().forced_flush_reason = Some(reason);
        let switched = self.force_memtable_switch(cf);
        let mut st = self.state.lock();
        st.forced_flush_reason = None;
        switched?;
        if !st.families.contains_key(&cf) {
            return Err(Error::InvalidArgument(format!(
                "column family {cf} was dropped"
            )));
        }
        st.fam_mut(cf).flush_requested = true;
        self.work_cv.notify_all();
        loop {
            if let Some(e) = &st.bg_error {
                return Err(Error::Background(e.clone()));
            }
            let done = st
                .families
                .get(&cf)
                .is_none_or(|f| f.imm.is_empty() || f.dropping);
            if done && !st.flush_running {
                self.wait_for_purge(&mut st);
                return Ok(());
            }
            if self.shutting_down.load(Ordering::Acquire) {
                return Err(Error::ShutdownInProgress);
            }
            self.bg_cv.wait_for(&mut st, Duration::from_millis(100));
        }
    }
}

/// `blob_file_creation` events for the blob files a job wrote.
pub(crate) fn log_blob_file_creations(
    log: &crate::info_log::InfoLog,
    job: u64,
    cf_name: &str,
    files: &[crate::version::edit::BlobFileAddition],
) {
    for b in files {
        log.event(
            &Event::new("blob_file_creation", job)
                .with("cf_name", cf_name)
                .with("file_number", b.number)
                .with("total_blob_count", b.total_blob_count)
                .with("total_blob_bytes", b.total_blob_bytes)
                .with("file_checksum", "")
                .with("file_checksum_func_name", "Unknown")
                .with("status", "OK"),
        );
    }
}
