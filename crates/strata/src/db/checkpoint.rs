//! Checkpoints: an openable copy of the open DB in a new directory, cut at
//! one sequence number while writes, flushes and compactions go on
//! (RocksDB's `Checkpoint::CreateCheckpoint`).
//!
//! **The cut.** At the front of the writer queue
//! ([`DbInner::with_writes_paused`]: no write group is between its WAL
//! append and the publication of its sequence number) and once no MANIFEST
//! edit is being written, the checkpoint records under the state lock:
//! - S, the last published sequence number;
//! - every family's current version (its tables and blob files);
//! - the live WALs, from the oldest family log number to the current WAL,
//!   each with its length: a closed WAL's whole file, the current WAL's
//!   bytes after its buffer is pushed to the OS, which end on the last
//!   record logged (sequence <= S);
//! - the records of a MANIFEST that rebuilds those versions
//!   (`VersionSet::snapshot_records`, what every new MANIFEST starts with)
//!   and every family's options.
//!
//! It pins the tables, blob files and WALs it names (`State::pinned_files`,
//! counted, so that checkpoints may overlap): no purge removes them until
//! they are linked or copied. Then writes go on. They wait only for a
//! MANIFEST edit in progress to end (one fsync at most) and while the cut
//! is recorded: a directory listing, a `stat` per closed WAL and the push
//! of the WAL's buffer.
//!
//! Writes made with `disable_wal` are in no WAL. When memtables hold some
//! (`State::unpersisted_writes`), the cut first switches every non-empty
//! memtable and waits for the flushes, writes still waiting, so that the
//! tables hold exactly the writes up to S.
//!
//! **The copy**, with no lock held, into the staging directory `<dir>.tmp`:
//! - tables and blob files are hard-linked (they are immutable, and synced
//!   before any version names them), or copied and synced when linking
//!   fails (another file system, or a [`FileSystem`] without links);
//! - WALs are copied up to their lengths at the cut, and synced;
//! - a new MANIFEST holding the cut's records, synced, and an OPTIONS file
//!   with the cut's options;
//! - CURRENT last, through a synced temp file and a rename; then the
//!   directory is synced.
//!
//! Then `<dir>.tmp` is renamed to `<dir>` and the parent directory synced:
//! a directory named `<dir>` is always a whole checkpoint. On a failure the
//! staging directory is removed (as far as the file system allows) and the
//! error returned; the source DB is not touched. A staging directory left
//! by a crash is cleared by the next checkpoint to the same `<dir>`, if it
//! holds nothing but a checkpoint's files.
//!
//! Opening the checkpoint recovers the MANIFEST's versions and replays each
//! family's WALs from its log number: exactly the writes with sequence
//! numbers up to S.
//!
//! The MANIFEST is written anew rather than copied: the DB's MANIFEST is
//! replaced, and the old one removed at once, when it passes 64 MiB, so a
//! copy could lose its source midway; and the new one is as small as the
//! state it describes.

use std::collections::btree_map::Entry;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::Duration;

use parking_lot::MutexGuard;

use super::{DbInner, State};
use crate::error::{Error, Result};
use crate::filename::{
    blob_file_name, manifest_file_name, parse_file_name, table_file_name, wal_file_name,
    FileNumber, FileType,
};
use crate::fs::FileSystem;
use crate::options::Options;
use crate::types::SequenceNumber;
use crate::wal::Writer as LogWriter;

/// Bytes read and written at a time when a file is copied.
const COPY_CHUNK: u64 = 1 << 20;

/// What [`Db::create_checkpoint`](crate::Db::create_checkpoint) made.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct CheckpointInfo {
    /// The checkpoint's directory.
    pub path: PathBuf,
    /// The cut: the checkpoint holds exactly the writes whose sequence
    /// numbers are at most this one, in every column family.
    pub sequence: SequenceNumber,
    /// Tables and blob files hard-linked into the checkpoint.
    pub linked_files: usize,
    /// Files copied: WALs, and tables and blob files that could not be
    /// linked.
    pub copied_files: usize,
    /// Bytes of the copied files.
    pub copied_bytes: u64,
}

/// What the cut recorded (see the module docs).
struct Cut {
    sequence: SequenceNumber,
    tables: Vec<FileNumber>,
    blobs: Vec<FileNumber>,
    /// WAL numbers with the bytes to copy of each, oldest first.
    wals: Vec<(FileNumber, u64)>,
    manifest_number: FileNumber,
    manifest_records: Vec<Vec<u8>>,
    options_number: FileNumber,
    /// The DB's options (with the default family's) and every other
    /// family's, as the OPTIONS file lists them.
    db_options: Options,
    families: Vec<(String, Options)>,
}

impl Cut {
    /// The files the cut pins until they are linked or copied.
    fn pinned(&self) -> Vec<FileNumber> {
        let wals = self.wals.iter().map(|&(n, _)| n);
        self.tables
            .iter()
            .chain(&self.blobs)
            .copied()
            .chain(wals)
            .collect()
    }
}

/// The cut's pins on files of the DB; dropping it unpins them and removes
/// those that became obsolete meanwhile.
struct Pins<'a> {
    db: &'a DbInner,
    files: Vec<FileNumber>,
}

impl Drop for Pins<'_> {
    fn drop(&mut self) {
        let mut st = self.db.state.lock();
        for n in &self.files {
            if let Entry::Occupied(mut e) = st.pinned_files.entry(*n) {
                *e.get_mut() -= 1;
                if *e.get() == 0 {
                    e.remove();
                }
            }
        }
        let job = self.db.new_job_id();
        self.db.delete_obsolete_files(&mut st, job);
    }
}

impl DbInner {
    /// Creates a checkpoint of the DB in `dir`, which must not exist (see
    /// the module docs).
    pub(crate) fn create_checkpoint(&self, dir: &Path) -> Result<CheckpointInfo> {
        let staging = staging_dir(dir)?;
        if self.fs.exists(dir) {
            return Err(Error::InvalidArgument(format!(
                "checkpoint directory {} already exists",
                dir.display()
            )));
        }
        self.prepare_staging(&staging)?;
        let cut = match self.take_cut() {
            Ok(c) => c,
            Err(e) => {
                self.remove_partial(&staging);
                return Err(e);
            }
        };
        let _pins = Pins {
            db: self,
            files: cut.pinned(),
        };
        let mut info = CheckpointInfo {
            path: dir.to_path_buf(),
            sequence: cut.sequence,
            linked_files: 0,
            copied_files: 0,
            copied_bytes: 0,
        };
        if let Err(e) = self.fill(&staging, &cut, &mut info) {
            self.remove_partial(&staging);
            self.log
                .log(&format!("[WARN] checkpoint {} failed: {e}", dir.display()));
            return Err(e);
        }
        let published = self
            .fs
            .rename(&staging, dir)
            .inspect_err(|_| self.remove_partial(&staging))
            .and_then(|()| {
                self.fs.sync_dir(parent_dir(dir)).inspect_err(|_| {
                    // Not known durable: take the name back, so that `dir`
                    // does not outlive the error.
                    match self.fs.rename(dir, &staging) {
                        Ok(()) => self.remove_partial(&staging),
                        Err(_) => self.remove_partial(dir),
                    }
                })
            });
        if let Err(e) = published {
            self.log
                .log(&format!("[WARN] checkpoint {} failed: {e}", dir.display()));
            return Err(e);
        }
        self.log.log(&format!(
            "[checkpoint] {} at sequence {}: {} files linked, {} copied ({} bytes)",
            dir.display(),
            info.sequence,
            info.linked_files,
            info.copied_files,
            info.copied_bytes
        ));
        Ok(info)
    }

    /// Creates the staging directory, clearing one a failed checkpoint
    /// left if it holds only a checkpoint's files.
    fn prepare_staging(&self, staging: &Path) -> Result<()> {
        if self.fs.exists(staging) {
            let names = self.fs.list(staging)?;
            let foreign = names.iter().find(|n| {
                !matches!(
                    parse_file_name(n),
                    Some(
                        FileType::Table(_)
                            | FileType::Blob(_)
                            | FileType::Wal(_)
                            | FileType::Manifest(_)
                            | FileType::Options(_)
                            | FileType::Current
                            | FileType::Temp
                    )
                )
            });
            if let Some(n) = foreign {
                return Err(Error::InvalidArgument(format!(
                    "{} exists and holds {n}, which no checkpoint writes: it is not a checkpoint's staging directory (remove it, or choose another checkpoint directory)",
                    staging.display()
                )));
            }
            for n in names {
                self.fs.remove(&staging.join(n))?;
            }
        }
        self.fs.create_dir_all(staging)
    }

    /// Removes what a failed checkpoint wrote to `dir` (best effort: a file
    /// system without `remove_dir` keeps the empty directory, which the
    /// next checkpoint reuses).
    fn remove_partial(&self, dir: &Path) {
        if let Ok(names) = self.fs.list(dir) {
            for n in names {
                let _ = self.fs.remove(&dir.join(n));
            }
        }
        let _ = self.fs.remove_dir(dir);
    }

    /// Fails once the DB is shutting down or writes are stopped by a
    /// background error (the WAL may end in a partial record then).
    fn check_open(&self, st: &State) -> Result<()> {
        if self.shutting_down.load(Ordering::Acquire) {
            return Err(Error::ShutdownInProgress);
        }
        match &st.bg_error {
            Some(e) => Err(Error::Background(e.clone())),
            None => Ok(()),
        }
    }

    /// Records the cut and pins its files (see the module docs).
    fn take_cut(&self) -> Result<Cut> {
        self.with_writes_paused(|st| {
            self.check_open(st)?;
            if st.unpersisted_writes {
                self.flush_for_cut(st)?;
            }
            self.wait_for_manifest(st);
            self.check_open(st)?;
            let sequence = self.last_sequence.load(Ordering::Acquire);
            let (current_wal, current_len) = match self.wal.lock().current_length() {
                Ok(c) => c,
                Err(e) => {
                    // As in a write group: the WAL can take no more records.
                    self.set_bg_error(st, e.duplicate());
                    return Err(e);
                }
            };
            let log_number = st.versions.log_number();
            let mut wals = vec![(current_wal, current_len)];
            for name in self.fs.list(&self.dir)? {
                if let Some(FileType::Wal(n)) = parse_file_name(&name) {
                    if n >= log_number && n < current_wal {
                        wals.push((n, self.fs.file_size(&wal_file_name(&self.dir, n))?));
                    }
                }
            }
            wals.sort_unstable();
            let mut tables = Vec::new();
            let mut blobs = Vec::new();
            for (id, _) in st.versions.families() {
                let v = st.versions.current(id);
                for level in 0..v.num_levels() {
                    tables.extend(v.files(level).iter().map(|f| f.number));
                }
                blobs.extend(v.blob_file_states().iter().map(|b| b.number));
            }
            // Numbers of the source's counter, so that they are unique
            // there too; the MANIFEST records the counter past them.
            let options_number = st.versions.new_file_number();
            let manifest_number = st.versions.new_file_number();
            let manifest_records = st.versions.snapshot_records();
            let families = st
                .families
                .values()
                .filter(|f| f.family.id != 0)
                .map(|f| (f.family.name.clone(), f.family.opts.clone()))
                .collect();
            let cut = Cut {
                sequence,
                tables,
                blobs,
                wals,
                manifest_number,
                manifest_records,
                options_number,
                db_options: st.fam(0).family.opts.clone(),
                families,
            };
            for n in cut.pinned() {
                *st.pinned_files.entry(n).or_default() += 1;
            }
            Ok(cut)
        })
    }

    /// With writes paused and WAL-less writes in memtables: switches every
    /// non-empty memtable and waits until every sealed memtable is
    /// flushed, so the tables hold every write published so far.
    fn flush_for_cut(&self, st: &mut MutexGuard<'_, State>) -> Result<()> {
        let ids: Vec<u32> = st
            .families
            .iter()
            .filter(|(_, f)| !f.mem.is_empty() && !f.dropping)
            .map(|(&id, _)| id)
            .collect();
        for &cf in &ids {
            // RocksDB's reason for the flush its checkpoint asks for.
            st.fam(cf).mem.set_flush_reason("Get Live Files");
        }
        if !ids.is_empty() {
            if let Err(e) = self.switch_memtables(st, &ids) {
                let d = e.duplicate();
                self.set_bg_error(st, e);
                return Err(d);
            }
        }
        for f in st.families.values_mut() {
            if !f.imm.is_empty() {
                f.flush_requested = true;
            }
        }
        self.work_cv.notify_all();
        loop {
            self.check_open(st)?;
            let flushed = st.families.values().all(|f| f.imm.is_empty() || f.dropping);
            if flushed && !st.flush_running {
                return Ok(());
            }
            self.bg_cv.wait_for(st, Duration::from_millis(100));
        }
    }

    /// Links or copies the cut's files into `staging`, then writes its
    /// MANIFEST, OPTIONS and CURRENT, and syncs the directory.
    fn fill(&self, staging: &Path, cut: &Cut, info: &mut CheckpointInfo) -> Result<()> {
        for &n in &cut.tables {
            self.link_or_copy(
                &table_file_name(&self.dir, n),
                &table_file_name(staging, n),
                info,
            )?;
        }
        for &n in &cut.blobs {
            self.link_or_copy(
                &blob_file_name(&self.dir, n),
                &blob_file_name(staging, n),
                info,
            )?;
        }
        for &(n, len) in &cut.wals {
            let from = wal_file_name(&self.dir, n);
            info.copied_bytes += copy_file(
                self.fs.as_ref(),
                &from,
                &wal_file_name(staging, n),
                Some(len),
            )?;
            info.copied_files += 1;
        }
        let mut manifest = LogWriter::new(
            self.fs
                .create(&manifest_file_name(staging, cut.manifest_number))?,
        );
        for r in &cut.manifest_records {
            manifest.add_record(r)?;
        }
        manifest.sync()?;
        drop(manifest);
        crate::options_file::write(
            &self.fs,
            staging,
            cut.options_number,
            &cut.db_options,
            &cut.families,
        )?;
        crate::version::write_current_file(self.fs.as_ref(), staging, cut.manifest_number)
    }

    /// Hard-links `from` to `to`, or copies it when the link fails.
    fn link_or_copy(&self, from: &Path, to: &Path, info: &mut CheckpointInfo) -> Result<()> {
        match self.fs.link(from, to) {
            Ok(()) => {
                info.linked_files += 1;
                Ok(())
            }
            Err(e) => {
                // Tables and blob files go before WALs: no copy yet means
                // this is the first link that failed, the one the LOG names.
                if info.copied_files == 0 {
                    self.log.log(&format!(
                        "[checkpoint] cannot link {}: {e}; copying instead",
                        from.display()
                    ));
                }
                info.copied_bytes += copy_file(self.fs.as_ref(), from, to, None)?;
                info.copied_files += 1;
                Ok(())
            }
        }
    }
}

/// Copies the first `len` bytes of `from` (all of it for `None`) to a new
/// file `to` and syncs it. Returns the bytes copied.
fn copy_file(fs: &dyn FileSystem, from: &Path, to: &Path, len: Option<u64>) -> Result<u64> {
    let src = fs.open_random(from)?;
    let len = len.unwrap_or_else(|| src.size());
    let mut dst = fs.create(to)?;
    let mut offset = 0;
    while offset < len {
        let n = (len - offset).min(COPY_CHUNK);
        dst.append(&src.read_at(offset, n as usize)?)?;
        offset += n;
    }
    dst.sync()?;
    Ok(len)
}

/// The staging directory of a checkpoint to `dir`: `<dir>.tmp`.
fn staging_dir(dir: &Path) -> Result<PathBuf> {
    match dir.file_name() {
        Some(name) => {
            let mut staging = name.to_os_string();
            staging.push(".tmp");
            Ok(dir.with_file_name(staging))
        }
        None => Err(Error::InvalidArgument(format!(
            "checkpoint directory {} names no directory to create",
            dir.display()
        ))),
    }
}

/// The directory holding `dir` (`.` for a bare name).
fn parent_dir(dir: &Path) -> &Path {
    match dir.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn staging_and_parent_directories() {
        assert_eq!(
            staging_dir(Path::new("/a/b/ckpt")).unwrap(),
            Path::new("/a/b/ckpt.tmp")
        );
        assert_eq!(
            staging_dir(Path::new("ckpt")).unwrap(),
            Path::new("ckpt.tmp")
        );
        assert!(staging_dir(Path::new("/")).is_err());
        assert!(staging_dir(Path::new("a/..")).is_err());
        assert_eq!(parent_dir(Path::new("/a/b/ckpt")), Path::new("/a/b"));
        assert_eq!(parent_dir(Path::new("ckpt")), Path::new("."));
    }

    #[test]
    fn copy_file_copies_a_prefix_and_syncs_it() {
        use crate::fs::fault::{FaultInjectionFs, FaultOp};
        let dir = tempfile::tempdir().unwrap();
        let fs = FaultInjectionFs::new(std::sync::Arc::new(crate::fs::PosixFileSystem));
        let data: Vec<u8> = (0..(COPY_CHUNK + 10)).map(|i| (i % 251) as u8).collect();
        let (a, b, c) = (
            dir.path().join("a"),
            dir.path().join("b"),
            dir.path().join("c"),
        );
        let mut f = fs.create(&a).unwrap();
        f.append(&data).unwrap();
        f.sync().unwrap();
        assert_eq!(copy_file(&fs, &a, &b, None).unwrap(), data.len() as u64);
        assert_eq!(copy_file(&fs, &a, &c, Some(5)).unwrap(), 5);
        fs.drop_unsynced_data().unwrap();
        assert_eq!(fs.read_all(&b).unwrap(), data);
        assert_eq!(fs.read_all(&c).unwrap(), &data[..5]);
        // A failed sync is the copy's error.
        fs.fail_after(FaultOp::Sync, 1, libc::EIO);
        let e = copy_file(&fs, &a, &dir.path().join("d"), None).unwrap_err();
        assert!(e.is_io(), "{e}");
    }
}
