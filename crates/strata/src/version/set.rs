//! The [`VersionSet`]: the current [`Version`], the MANIFEST that logs every
//! change to it, and the DB-wide counters (file numbers, sequence numbers,
//! the oldest live WAL). See `docs/formats/manifest.md`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};

use super::edit::VersionEdit;
use super::version::{Version, VersionBuilder};
use crate::error::{Error, Result};
use crate::filename::{current_file_name, manifest_file_name, temp_file_name, FileNumber};
use crate::fs::FileSystem;
use crate::stats::{Histogram, Statistics};
use crate::types::SequenceNumber;
use crate::wal::{Reader as LogReader, WalRecoveryMode, Writer as LogWriter};

/// The name recorded as the key ordering in every MANIFEST.
pub const COMPARATOR_NAME: &str = "leveldb.BytewiseComparator";

/// Owns the MANIFEST and the sequence of versions.
pub struct VersionSet {
    dir: PathBuf,
    fs: Arc<dyn FileSystem>,
    current: Arc<Version>,
    live: Vec<Weak<Version>>,
    next_file_number: FileNumber,
    last_sequence: SequenceNumber,
    log_number: FileNumber,
    manifest_number: FileNumber,
    manifest: Option<LogWriter>,
    manifest_bytes: u64,
    stats: Option<Arc<Statistics>>,
}

/// One edit between [`VersionSet::prepare`] and [`VersionSet::commit`]:
/// its encoded record, the version it makes, and the MANIFEST's writer,
/// so that the record can be written and synced without the DB's lock.
pub struct ManifestWrite {
    writer: Option<LogWriter>,
    record: Vec<u8>,
    edit: VersionEdit,
    version: Version,
    stats: Option<Arc<Statistics>>,
}

impl ManifestWrite {
    /// Appends the record to the MANIFEST and syncs it (one record of the
    /// log format, `docs/formats/manifest.md`), timing the sync into
    /// `rocksdb.manifest.file.sync.micros`.
    ///
    /// # Errors
    /// I/O errors writing or syncing.
    pub fn write(&mut self) -> Result<()> {
        let w = self
            .writer
            .as_mut()
            .ok_or_else(|| Error::InvalidArgument("MANIFEST is not open".into()))?;
        w.add_record(&self.record)?;
        let t = std::time::Instant::now();
        w.sync()?;
        if let Some(s) = &self.stats {
            s.record_histogram(
                Histogram::ManifestFileSyncMicros,
                t.elapsed().as_micros() as u64,
            );
        }
        Ok(())
    }
}

impl VersionSet {
    fn empty(dir: &Path, fs: Arc<dyn FileSystem>, num_levels: usize) -> Self {
        VersionSet {
            dir: dir.to_path_buf(),
            fs,
            current: Arc::new(Version::new(num_levels)),
            live: Vec::new(),
            next_file_number: 2,
            last_sequence: 0,
            log_number: 0,
            manifest_number: 0,
            manifest: None,
            manifest_bytes: 0,
            stats: None,
        }
    }

    /// Creates the MANIFEST and CURRENT of a brand-new DB.
    ///
    /// # Errors
    /// I/O errors creating or syncing the files.
    pub fn create_new(dir: &Path, fs: Arc<dyn FileSystem>, num_levels: usize) -> Result<Self> {
        let mut vs = Self::empty(dir, fs, num_levels);
        vs.write_new_manifest()?;
        Ok(vs)
    }

    /// Rebuilds the state from CURRENT and the MANIFEST it names, then
    /// starts a fresh MANIFEST holding one snapshot edit.
    ///
    /// # Errors
    /// Corruption (naming the file and offset) for a damaged CURRENT or
    /// MANIFEST; I/O errors.
    pub fn recover(dir: &Path, fs: Arc<dyn FileSystem>, num_levels: usize) -> Result<Self> {
        let current_path = current_file_name(dir);
        let current = fs.read_all(&current_path)?;
        let cur_name = current_path.display().to_string();
        let text = std::str::from_utf8(&current)
            .map_err(|_| Error::corruption(&cur_name, 0, "CURRENT is not text"))?;
        let name = text.strip_suffix('\n').ok_or_else(|| {
            Error::corruption(
                &cur_name,
                text.len() as u64,
                "CURRENT does not end with a newline",
            )
        })?;
        let number: FileNumber = name
            .strip_prefix("MANIFEST-")
            .and_then(|n| n.parse().ok())
            .ok_or_else(|| {
                Error::corruption(
                    &cur_name,
                    0,
                    format!("CURRENT names '{name}', not a MANIFEST"),
                )
            })?;
        let manifest_path = manifest_file_name(dir, number);
        let data = fs.read_all(&manifest_path)?;
        let manifest_name = manifest_path.display().to_string();
        let mut reader = LogReader::new(
            data,
            manifest_name.clone(),
            WalRecoveryMode::TolerateCorruptedTailRecords,
        );
        let mut vs = Self::empty(dir, fs, num_levels);
        let mut builder = VersionBuilder::new(&vs.current);
        let mut have_next = false;
        let mut records = 0u64;
        while let Some(record) = reader.read_record()? {
            let offset = reader.last_record_offset();
            let edit = VersionEdit::decode(&record, &manifest_name, offset)?;
            if let Some(c) = &edit.comparator {
                if c != COMPARATOR_NAME {
                    return Err(Error::InvalidArgument(format!(
                        "{manifest_name}: DB was created with comparator '{c}', this build uses '{COMPARATOR_NAME}'"
                    )));
                }
            }
            builder.apply(&edit).map_err(|e| match e {
                Error::Corruption { message, .. } => {
                    Error::corruption(&manifest_name, offset, message)
                }
                other => other,
            })?;
            if let Some(n) = edit.log_number {
                vs.log_number = n;
            }
            if let Some(n) = edit.next_file_number {
                vs.next_file_number = n;
                have_next = true;
            }
            if let Some(s) = edit.last_sequence {
                vs.last_sequence = s;
            }
            records += 1;
        }
        if records == 0 || !have_next {
            return Err(Error::corruption(
                &manifest_name,
                0,
                "MANIFEST holds no complete edit with the next file number",
            ));
        }
        let version = builder.build();
        version.check_invariants().map_err(|e| match e {
            Error::Corruption { message, .. } => Error::corruption(&manifest_name, 0, message),
            other => other,
        })?;
        // File numbers must never be reused, even for files the old
        // MANIFEST never mentioned: also skip past the manifest itself.
        vs.next_file_number = vs.next_file_number.max(number + 1);
        vs.current = Arc::new(version);
        vs.write_new_manifest()?;
        Ok(vs)
    }

    /// A snapshot edit describing the whole current state.
    fn snapshot_edit(&self) -> VersionEdit {
        let mut e = VersionEdit {
            comparator: Some(COMPARATOR_NAME.to_string()),
            log_number: Some(self.log_number),
            next_file_number: Some(self.next_file_number),
            last_sequence: Some(self.last_sequence),
            ..VersionEdit::default()
        };
        for (level, files) in self.current.levels.iter().enumerate() {
            for f in files {
                e.new_files.push((level, (**f).clone()));
            }
        }
        for b in self.current.blob_files.values() {
            e.blob_file_additions
                .push(crate::version::edit::BlobFileAddition {
                    number: b.state.number,
                    total_blob_count: b.state.total_blob_count,
                    total_blob_bytes: b.state.total_blob_bytes,
                    checksum: b.checksum,
                });
            if b.state.garbage_blob_count > 0 || b.state.garbage_blob_bytes > 0 {
                e.blob_file_garbage
                    .push(crate::version::edit::BlobFileGarbage {
                        number: b.state.number,
                        garbage_blob_count: b.state.garbage_blob_count,
                        garbage_blob_bytes: b.state.garbage_blob_bytes,
                    });
            }
        }
        e
    }

    /// Writes a new MANIFEST with a snapshot of the state, syncs it, and
    /// atomically points CURRENT at it.
    fn write_new_manifest(&mut self) -> Result<()> {
        let number = self.next_file_number;
        self.next_file_number += 1;
        let path = manifest_file_name(&self.dir, number);
        let file = self.fs.create(&path)?;
        let mut w = LogWriter::new(file);
        let edit = self.snapshot_edit();
        w.add_record(&edit.encode())?;
        w.sync()?;
        self.set_current(number)?;
        let old = self.manifest_number;
        self.manifest = Some(w);
        self.manifest_number = number;
        self.manifest_bytes = edit.encode().len() as u64;
        if old != 0 {
            // The old MANIFEST is obsolete once CURRENT names the new one.
            let _ = self.fs.remove(&manifest_file_name(&self.dir, old));
        }
        Ok(())
    }

    /// Writes CURRENT through a synced temp file and a rename.
    fn set_current(&mut self, manifest_number: FileNumber) -> Result<()> {
        let tmp = temp_file_name(&self.dir, manifest_number);
        let mut f = self.fs.create(&tmp)?;
        f.append(format!("MANIFEST-{manifest_number:06}\n").as_bytes())?;
        f.sync()?;
        drop(f);
        self.fs.rename(&tmp, &current_file_name(&self.dir))?;
        self.fs.sync_dir(&self.dir)
    }

    /// Logs `edit` to the MANIFEST (synced) and installs the new version:
    /// [`prepare`](Self::prepare), [`ManifestWrite::write`] and
    /// [`commit`](Self::commit) in one go. The DB writes with its lock
    /// released instead (`db/manifest.rs`); recovery and tests use this.
    ///
    /// # Errors
    /// I/O errors writing or syncing the MANIFEST. The version is not
    /// installed then, and the caller must treat it as a background error.
    pub fn log_and_apply(&mut self, edit: VersionEdit) -> Result<()> {
        let mut w = self.prepare(edit)?;
        let r = w.write();
        self.commit(w, r)
    }

    /// Builds the version `edit` makes of the current one and encodes the
    /// edit, filling in its next file number and last sequence, and takes
    /// the MANIFEST's writer out of the set until [`commit`](Self::commit)
    /// puts it back: nothing may prepare another edit in between, since
    /// each edit applies to the version the one before it installed.
    ///
    /// # Errors
    /// Corruption if the edit does not apply (a file deleted twice); an
    /// error if another edit is being written.
    pub fn prepare(&mut self, mut edit: VersionEdit) -> Result<ManifestWrite> {
        if self.manifest.is_none() {
            return Err(Error::InvalidArgument(
                "MANIFEST is not open, or another edit is being written".into(),
            ));
        }
        edit.next_file_number = Some(self.next_file_number);
        if edit.last_sequence.is_none() {
            edit.last_sequence = Some(self.last_sequence);
        }
        let mut builder = VersionBuilder::new(&self.current);
        builder.apply(&edit)?;
        let version = builder.build();
        debug_assert!(
            version.check_invariants().is_ok(),
            "{:?}",
            version.check_invariants()
        );
        let record = edit.encode();
        Ok(ManifestWrite {
            writer: self.manifest.take(),
            record,
            edit,
            version,
            stats: self.stats.clone(),
        })
    }

    /// Puts the MANIFEST's writer back and, if `written` is `Ok` (the
    /// record is durable), installs the prepared version. Rolls over to a
    /// new MANIFEST once this one passes 64 MiB.
    ///
    /// # Errors
    /// `written`'s error (the version is not installed); I/O errors
    /// starting a new MANIFEST.
    pub fn commit(&mut self, mut w: ManifestWrite, written: Result<()>) -> Result<()> {
        self.manifest = w.writer.take();
        written?;
        self.manifest_bytes += w.record.len() as u64;
        if let Some(n) = w.edit.log_number {
            self.log_number = n;
        }
        if let Some(s) = w.edit.last_sequence {
            self.last_sequence = self.last_sequence.max(s);
        }
        self.install(w.version);
        if self.manifest_bytes > 64 << 20 {
            self.write_new_manifest()?;
        }
        Ok(())
    }

    /// Records MANIFEST sync times (`rocksdb.manifest.file.sync.micros`)
    /// into `stats` from now on.
    pub fn set_statistics(&mut self, stats: Option<Arc<Statistics>>) {
        self.stats = stats;
    }

    fn install(&mut self, v: Version) {
        let old = std::mem::replace(&mut self.current, Arc::new(v));
        self.live.retain(|w| w.strong_count() > 0);
        self.live.push(Arc::downgrade(&old));
    }

    /// The current version.
    pub fn current(&self) -> Arc<Version> {
        self.current.clone()
    }

    /// Versions still referenced: the current one and every older one a
    /// read, iterator or job still holds (`rocksdb.num-live-versions`).
    pub fn num_live_versions(&self) -> usize {
        1 + self.live.iter().filter(|w| w.strong_count() > 0).count()
    }

    /// Makes sure `n` is never allocated again (a WAL found at recovery:
    /// WALs get their numbers without a MANIFEST edit, so the MANIFEST's
    /// next file number can be behind them after a crash).
    pub fn mark_file_number_used(&mut self, n: FileNumber) {
        self.next_file_number = self.next_file_number.max(n + 1);
    }

    /// Allocates a new file number.
    pub fn new_file_number(&mut self) -> FileNumber {
        let n = self.next_file_number;
        self.next_file_number += 1;
        n
    }

    /// The next file number that will be allocated.
    #[cfg(test)]
    pub fn next_file_number(&self) -> FileNumber {
        self.next_file_number
    }

    /// Last sequence number recorded in the MANIFEST.
    pub fn last_sequence(&self) -> SequenceNumber {
        self.last_sequence
    }

    /// Records a sequence number (in memory; logged with the next edit).
    pub fn set_last_sequence(&mut self, s: SequenceNumber) {
        self.last_sequence = self.last_sequence.max(s);
    }

    /// WALs numbered below this hold nothing that is not in a table.
    pub fn log_number(&self) -> FileNumber {
        self.log_number
    }

    /// Number of the MANIFEST being written.
    pub fn manifest_number(&self) -> FileNumber {
        self.manifest_number
    }

    /// Every table file any live version (current or held by a reader)
    /// references.
    pub fn live_files(&self) -> BTreeSet<FileNumber> {
        let mut out = BTreeSet::new();
        self.current.live_files(&mut out);
        for w in &self.live {
            if let Some(v) = w.upgrade() {
                v.live_files(&mut out);
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::default_fs;
    use crate::version::edit::FileMetaData;
    use crate::version::testutil::file_meta;

    fn meta(number: u64, small: &str, large: &str) -> FileMetaData {
        file_meta(number, small, large, 1, 10)
    }

    #[test]
    fn edits_survive_recovery() {
        let dir = tempfile::tempdir().unwrap();
        let fs = default_fs();
        let mut vs = VersionSet::create_new(dir.path(), fs.clone(), 7).unwrap();
        let n = vs.new_file_number();
        let mut e = VersionEdit::default();
        e.new_files.push((1, meta(n, "a", "c")));
        e.log_number = Some(5);
        e.last_sequence = Some(42);
        vs.log_and_apply(e).unwrap();
        drop(vs);
        let vs = VersionSet::recover(dir.path(), fs.clone(), 7).unwrap();
        assert_eq!(vs.current().files(1).len(), 1);
        assert_eq!(vs.log_number(), 5);
        assert_eq!(vs.last_sequence(), 42);
        assert!(vs.next_file_number() > n);
        // Recovery rewrote the MANIFEST; a second recovery sees the same.
        let vs2 = VersionSet::recover(dir.path(), fs, 7).unwrap();
        assert_eq!(vs2.current().files(1)[0].number, n);
    }

    #[test]
    fn bad_current_is_corruption_naming_current() {
        let dir = tempfile::tempdir().unwrap();
        let fs = default_fs();
        drop(VersionSet::create_new(dir.path(), fs.clone(), 7).unwrap());
        std::fs::write(dir.path().join("CURRENT"), b"garbage").unwrap();
        let e = VersionSet::recover(dir.path(), fs, 7).err().unwrap();
        assert!(e.is_corruption());
        assert!(e.to_string().contains("CURRENT"), "{e}");
    }
}
