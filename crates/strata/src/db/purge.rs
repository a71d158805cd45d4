//! Obsolete files: found under the state lock, removed without it, by
//! the job that made them obsolete before it gives up its slot.
//!
//! A finished flush or compaction leaves files no version names (the
//! compaction's inputs, WALs older than the MANIFEST's log number, old
//! MANIFEST and OPTIONS files). Finding them needs the state (live files,
//! pending outputs); removing them does not, and an unlink of a large table
//! takes milliseconds on ext4, as does unmapping one (the last reference to
//! a mapped table: its reader in the table cache, or a block of it in the
//! block cache). So the job drops the dead files' readers and cached blocks
//! and unlinks the files with the state lock released, as RocksDB's
//! `PurgeObsoleteFiles`: writers, which take the lock for every write
//! group, never wait on an unlink or an unmap.
//!
//! The job keeps its slot (`State::compactions_running`,
//! `State::flush_running`) until its files are gone, as RocksDB frees
//! `bg_compaction_scheduled_` only after the purge: with one compaction at
//! a time, the next compaction starts once the last one's inputs are
//! removed, and the flushes that land meanwhile join its L0 batch. A flush
//! holds the version it started from until its table is written (RocksDB's
//! `FlushJob` base version), so the inputs of a compaction that finishes
//! while a flush runs stay live until then and the flush's thread removes
//! them; the next compaction need not wait for those.

use std::time::Duration;

use parking_lot::MutexGuard;

use super::{DbInner, State};
use crate::event_log::Event;
use crate::filename::{parse_file_name, FileType};
use crate::stats::Ticker;

/// A file found obsolete, to be removed by the job that found it.
struct ObsoleteFile {
    /// File name within the DB directory.
    name: String,
    /// What the name parsed as.
    kind: Option<FileType>,
}

impl DbInner {
    /// Removes every file that no version, pending output, checkpoint pin
    /// or current WAL needs, with the state lock released while it unlinks. Files another
    /// job is removing are skipped, so two jobs finishing close together do
    /// not both try to remove one file.
    pub(crate) fn delete_obsolete_files(&self, st: &mut MutexGuard<'_, State>, job: u64) {
        let batch = self.find_obsolete_files(st);
        self.purge(st, batch, job);
    }

    /// The files no version, pending output, checkpoint pin or current WAL
    /// needs, marked as being removed (`State::purging`).
    fn find_obsolete_files(&self, st: &mut State) -> Vec<ObsoleteFile> {
        let mut batch = Vec::new();
        // After a background error the MANIFEST may hold an edit whose
        // outcome is unknown (a failed sync): keep every file, so that a
        // reopen finds whatever the MANIFEST names. Orphans go at reopen.
        if st.bg_error.is_some() {
            return batch;
        }
        let Ok(names) = self.fs.list(&self.dir) else {
            return batch;
        };
        let mut live = st.versions.live_files();
        live.extend(st.pending_outputs.iter().copied());
        let pins: Vec<u64> = st.pinned_files.keys().copied().collect();
        let pinned = |n: u64| pins.binary_search(&n).is_ok();
        let log_number = st.versions.log_number();
        self.wal.lock().forget_before(log_number);
        let current_wal = st.current_wal;
        st.wal_bytes
            .retain(|&n, _| n >= log_number || n == current_wal);
        let manifest = st.versions.manifest_number();
        let newest_options = names
            .iter()
            .filter_map(|n| match parse_file_name(n) {
                Some(FileType::Options(k)) => Some(k),
                _ => None,
            })
            .max();
        for name in names {
            if st.purging.contains(&name) {
                continue;
            }
            let kind = parse_file_name(&name);
            let remove = match kind {
                Some(FileType::Table(n) | FileType::Blob(n)) => !live.contains(&n) && !pinned(n),
                Some(FileType::Wal(n)) => n < log_number && n != current_wal && !pinned(n),
                Some(FileType::Manifest(n)) => n < manifest,
                Some(FileType::Options(n)) => Some(n) != newest_options,
                // A temp file being written with the lock released (the
                // OPTIONS file) is a pending output.
                Some(FileType::Temp) => !name
                    .strip_suffix(".dbtmp")
                    .and_then(|n| n.parse::<u64>().ok())
                    .is_some_and(|n| live.contains(&n)),
                _ => false,
            };
            if remove {
                st.purging.insert(name.clone());
                batch.push(ObsoleteFile { name, kind });
            }
        }
        batch
    }

    /// Unlinks `batch` with the state lock released (waking the writers
    /// and background threads that can go on meanwhile), then unmarks it.
    /// Deletion events are `job`'s.
    fn purge(&self, st: &mut MutexGuard<'_, State>, batch: Vec<ObsoleteFile>, job: u64) {
        if batch.is_empty() {
            return;
        }
        self.bg_cv.notify_all();
        self.work_cv.notify_all();
        MutexGuard::unlocked(st, || {
            // Readers and cached blocks of the dead files go first, here
            // without the lock: the last reference to a mapped table
            // unmaps it, which for a large table takes milliseconds.
            let numbers = |blob: bool| -> Vec<u64> {
                batch
                    .iter()
                    .filter_map(|f| match f.kind {
                        Some(FileType::Table(n)) if !blob => Some(n),
                        Some(FileType::Blob(n)) if blob => Some(n),
                        _ => None,
                    })
                    .collect()
            };
            self.table_cache.forget(&numbers(false));
            self.blob_source.forget(&numbers(true));
            for f in &batch {
                self.remove_obsolete(f, job);
            }
        });
        for f in &batch {
            st.purging.remove(&f.name);
        }
        self.bg_cv.notify_all();
    }

    /// Unlinks one obsolete file, with its LOG line, deletion event and
    /// ticker.
    fn remove_obsolete(&self, f: &ObsoleteFile, job: u64) {
        let path = self.dir.join(&f.name);
        match self.fs.remove(&path) {
            Ok(()) => {
                crate::sync_point::hit(crate::sync_point::SyncPoint::PurgeFileDeleted);
                self.log.log(&format!("[DELETE] obsolete file {}", f.name));
                let event = match f.kind {
                    Some(FileType::Table(n)) => Some(("table_file_deletion", n)),
                    Some(FileType::Blob(n)) => Some(("blob_file_deletion", n)),
                    _ => None,
                };
                if let Some((event, n)) = event {
                    self.log.event(
                        &Event::new(event, job)
                            .with("file_number", n)
                            .with("status", "OK"),
                    );
                }
                // The kinds RocksDB deletes through its SstFileManager,
                // which counts `rocksdb.files.deleted.immediately` (the
                // others it unlinks without counting).
                let counted = matches!(
                    f.kind,
                    Some(FileType::Table(_) | FileType::Blob(_) | FileType::Wal(_))
                );
                if let (true, Some(s)) = (counted, &self.stats) {
                    s.record_tick(Ticker::FilesDeletedImmediately, 1);
                }
            }
            Err(e) => self.log.log(&format!(
                "[WARN] cannot delete obsolete file {}: {e}",
                f.name
            )),
        }
    }

    /// Waits until no job is removing obsolete files, so that a caller
    /// told "flushed" or "compacted" finds the directory as the job left
    /// it (a manual compaction's removals run on the caller's thread, a
    /// flush's on the flush thread).
    pub(crate) fn wait_for_purge(&self, st: &mut MutexGuard<'_, State>) {
        while !st.purging.is_empty() {
            self.bg_cv.wait_for(st, Duration::from_millis(100));
        }
    }
}
