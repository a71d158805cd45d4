//! The [`VersionSet`]: the current [`Version`], the MANIFEST that logs every
//! change to it, and the DB-wide counters (file numbers, sequence numbers,
//! the oldest live WAL). See `docs/formats/manifest.md`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak};

use super::edit::VersionEdit;
use super::version::{Version, VersionBuilder};
use crate::error::{Error, Result};
use crate::filename::{current_file_name, manifest_file_name, temp_file_name, FileNumber};
use crate::fs::FileSystem;
use crate::stats::{Histogram, Statistics};
use crate::sync_point::{hit, SyncPoint};
use crate::types::SequenceNumber;
use crate::wal::{Reader as LogReader, WalRecoveryMode, Writer as LogWriter};

/// The name recorded as the key ordering in every MANIFEST.
pub const COMPARATOR_NAME: &str = "leveldb.BytewiseComparator";

/// The id of the "default" column family, which every DB has.
pub const DEFAULT_FAMILY: u32 = 0;

/// The name of the "default" column family.
pub const DEFAULT_FAMILY_NAME: &str = "default";

/// One column family's versions.
struct FamilyVersions {
    name: String,
    current: Arc<Version>,
    live: Vec<Weak<Version>>,
    /// WALs numbered below this hold nothing of this family that is not in
    /// a table.
    log_number: FileNumber,
}

impl FamilyVersions {
    fn new(name: String, num_levels: usize) -> Self {
        FamilyVersions {
            name,
            current: Arc::new(Version::new(num_levels)),
            live: Vec::new(),
            log_number: 0,
        }
    }
}

/// Owns the MANIFEST and, per column family, the sequence of versions.
pub struct VersionSet {
    dir: PathBuf,
    fs: Arc<dyn FileSystem>,
    families: BTreeMap<u32, FamilyVersions>,
    /// Versions of dropped families that readers may still hold.
    dropped: Vec<Weak<Version>>,
    max_column_family: u32,
    next_file_number: FileNumber,
    last_sequence: SequenceNumber,
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
    /// The family's new version (`None` when the edit drops the family).
    version: Option<Version>,
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

/// Points `dir`'s CURRENT at `MANIFEST-manifest_number`: the name is
/// written to a temp file, synced, renamed over CURRENT, and the directory
/// synced, so CURRENT names the old MANIFEST or the new one after a crash.
///
/// # Errors
/// I/O errors.
pub fn write_current_file(
    fs: &dyn FileSystem,
    dir: &Path,
    manifest_number: FileNumber,
) -> Result<()> {
    let tmp = temp_file_name(dir, manifest_number);
    let mut f = fs.create(&tmp)?;
    f.append(format!("MANIFEST-{manifest_number:06}\n").as_bytes())?;
    f.sync()?;
    drop(f);
    fs.rename(&tmp, &current_file_name(dir))?;
    fs.sync_dir(dir)
}

fn wrap_corruption(e: Error, file: &str, offset: u64) -> Error {
    match e {
        Error::Corruption { message, .. } => Error::corruption(file, offset, message),
        other => other,
    }
}

impl VersionSet {
    fn empty(dir: &Path, fs: Arc<dyn FileSystem>, default_levels: usize) -> Self {
        let mut families = BTreeMap::new();
        families.insert(
            DEFAULT_FAMILY,
            FamilyVersions::new(DEFAULT_FAMILY_NAME.to_string(), default_levels),
        );
        VersionSet {
            dir: dir.to_path_buf(),
            fs,
            families,
            dropped: Vec::new(),
            max_column_family: 0,
            next_file_number: 2,
            last_sequence: 0,
            manifest_number: 0,
            manifest: None,
            manifest_bytes: 0,
            stats: None,
        }
    }

    /// Creates the MANIFEST and CURRENT of a brand-new DB, which holds the
    /// "default" column family alone.
    ///
    /// # Errors
    /// I/O errors creating or syncing the files.
    pub fn create_new(dir: &Path, fs: Arc<dyn FileSystem>, num_levels: usize) -> Result<Self> {
        let mut vs = Self::empty(dir, fs, num_levels);
        vs.write_new_manifest()?;
        Ok(vs)
    }

    /// Reads CURRENT and returns the name of the MANIFEST it names and
    /// that MANIFEST's number.
    fn read_current(dir: &Path, fs: &Arc<dyn FileSystem>) -> Result<(PathBuf, FileNumber)> {
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
        Ok((manifest_file_name(dir, number), number))
    }

    /// The column families of the DB in `dir`, "default" first, then in
    /// the order of their ids (RocksDB's `ListColumnFamilies`).
    ///
    /// # Errors
    /// As [`VersionSet::recover`].
    pub fn list_families(dir: &Path, fs: Arc<dyn FileSystem>) -> Result<Vec<String>> {
        let (vs, _) = Self::replay(dir, fs, &|_| crate::version::edit::MAX_LEVELS)?;
        Ok(vs.families.values().map(|f| f.name.clone()).collect())
    }

    /// Replays the MANIFEST named by CURRENT. `levels` gives the number of
    /// levels of a family by name.
    fn replay(
        dir: &Path,
        fs: Arc<dyn FileSystem>,
        levels: &dyn Fn(&str) -> usize,
    ) -> Result<(Self, FileNumber)> {
        let (manifest_path, number) = Self::read_current(dir, &fs)?;
        let data = fs.read_all(&manifest_path)?;
        let manifest_name = manifest_path.display().to_string();
        let mut reader = LogReader::new(
            data,
            manifest_name.clone(),
            WalRecoveryMode::TolerateCorruptedTailRecords,
        );
        let mut vs = Self::empty(dir, fs, levels(DEFAULT_FAMILY_NAME));
        let mut builders: BTreeMap<u32, VersionBuilder> = BTreeMap::new();
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
            let bad = |m: String| Error::corruption(&manifest_name, offset, m);
            let cf = edit.column_family;
            if let Some(name) = &edit.add_column_family {
                if vs.families.contains_key(&cf) {
                    return Err(bad(format!("column family {cf} ('{name}') added twice")));
                }
                if vs.families.values().any(|f| &f.name == name) {
                    return Err(bad(format!("two column families named '{name}'")));
                }
                vs.families
                    .insert(cf, FamilyVersions::new(name.clone(), levels(name)));
                vs.max_column_family = vs.max_column_family.max(cf);
            }
            let Some(fam) = vs.families.get_mut(&cf) else {
                return Err(bad(format!("edit for unknown column family {cf}")));
            };
            if edit.drop_column_family {
                if cf == DEFAULT_FAMILY {
                    return Err(bad("the default column family is dropped".into()));
                }
                vs.families.remove(&cf);
                builders.remove(&cf);
            } else {
                let b = builders
                    .entry(cf)
                    .or_insert_with(|| VersionBuilder::new(&fam.current));
                b.apply(&edit)
                    .map_err(|e| wrap_corruption(e, &manifest_name, offset))?;
                if let Some(n) = edit.log_number {
                    fam.log_number = n;
                }
            }
            for &(other, n) in &edit.family_log_numbers {
                if let Some(f) = vs.families.get_mut(&other) {
                    f.log_number = f.log_number.max(n);
                }
            }
            if let Some(m) = edit.max_column_family {
                vs.max_column_family = vs.max_column_family.max(m);
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
        for (cf, b) in builders {
            let version = b.build();
            version
                .check_invariants()
                .map_err(|e| wrap_corruption(e, &manifest_name, 0))?;
            if let Some(f) = vs.families.get_mut(&cf) {
                f.current = Arc::new(version);
            }
        }
        Ok((vs, number))
    }

    /// Rebuilds the state from CURRENT and the MANIFEST it names, then
    /// starts a fresh MANIFEST holding a snapshot of it. `levels` gives
    /// the number of levels of each column family by name.
    ///
    /// # Errors
    /// Corruption (naming the file and offset) for a damaged CURRENT or
    /// MANIFEST; I/O errors.
    pub fn recover(
        dir: &Path,
        fs: Arc<dyn FileSystem>,
        levels: &dyn Fn(&str) -> usize,
    ) -> Result<Self> {
        let (mut vs, number) = Self::replay(dir, fs, levels)?;
        hit(SyncPoint::RecoveryManifestRead);
        // File numbers must never be reused, even for files the old
        // MANIFEST never mentioned: also skip past the manifest itself.
        vs.next_file_number = vs.next_file_number.max(number + 1);
        vs.write_new_manifest()?;
        hit(SyncPoint::RecoveryNewManifest);
        Ok(vs)
    }

    /// Snapshot edits describing the whole current state: the counters and
    /// the default family first, then one edit adding each other family.
    fn snapshot_edits(&self) -> Vec<VersionEdit> {
        let mut out = Vec::new();
        for (&cf, fam) in &self.families {
            let mut e = VersionEdit {
                column_family: cf,
                log_number: Some(fam.log_number),
                ..VersionEdit::default()
            };
            if cf == DEFAULT_FAMILY {
                e.comparator = Some(COMPARATOR_NAME.to_string());
                e.next_file_number = Some(self.next_file_number);
                e.last_sequence = Some(self.last_sequence);
                e.max_column_family = Some(self.max_column_family);
            } else {
                e.add_column_family = Some(fam.name.clone());
            }
            fam.current.add_all_to(&mut e);
            out.push(e);
        }
        out
    }

    /// The records a new MANIFEST starts with: the encoded
    /// [`snapshot_edits`](Self::snapshot_edits) of the current state, which
    /// a MANIFEST holding nothing else recovers exactly (a checkpoint's
    /// MANIFEST, `db/checkpoint.rs`).
    pub fn snapshot_records(&self) -> Vec<Vec<u8>> {
        self.snapshot_edits()
            .iter()
            .map(VersionEdit::encode)
            .collect()
    }

    /// Writes a new MANIFEST with a snapshot of the state, syncs it, and
    /// atomically points CURRENT at it.
    fn write_new_manifest(&mut self) -> Result<()> {
        let number = self.next_file_number;
        self.next_file_number += 1;
        let path = manifest_file_name(&self.dir, number);
        let file = self.fs.create(&path)?;
        let mut w = LogWriter::new(file);
        let mut bytes = 0u64;
        for edit in self.snapshot_edits() {
            let record = edit.encode();
            bytes += record.len() as u64;
            w.add_record(&record)?;
        }
        w.sync()?;
        self.set_current(number)?;
        let old = self.manifest_number;
        self.manifest = Some(w);
        self.manifest_number = number;
        self.manifest_bytes = bytes;
        if old != 0 {
            // The old MANIFEST is obsolete once CURRENT names the new one.
            let _ = self.fs.remove(&manifest_file_name(&self.dir, old));
        }
        Ok(())
    }

    /// Writes CURRENT through a synced temp file and a rename.
    fn set_current(&mut self, manifest_number: FileNumber) -> Result<()> {
        write_current_file(self.fs.as_ref(), &self.dir, manifest_number)?;
        hit(SyncPoint::CurrentRenamed);
        Ok(())
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
        let mut w = self.prepare(edit, 0)?;
        let r = w.write();
        self.commit(w, r)
    }

    /// Builds the version `edit` makes of its family's current one and
    /// encodes the edit, filling in its next file number and last
    /// sequence, and takes the MANIFEST's writer out of the set until
    /// [`commit`](Self::commit) puts it back: nothing may prepare another
    /// edit in between, since each edit applies to the version the one
    /// before it installed. `num_levels` is the levels of a family the
    /// edit adds (ignored otherwise).
    ///
    /// # Errors
    /// Corruption if the edit does not apply (a file deleted twice);
    /// InvalidArgument for an unknown family, a family added twice, or
    /// while another edit is being written.
    pub fn prepare(&mut self, mut edit: VersionEdit, num_levels: usize) -> Result<ManifestWrite> {
        if self.manifest.is_none() {
            return Err(Error::InvalidArgument(
                "MANIFEST is not open, or another edit is being written".into(),
            ));
        }
        edit.next_file_number = Some(self.next_file_number);
        if edit.last_sequence.is_none() {
            edit.last_sequence = Some(self.last_sequence);
        }
        let cf = edit.column_family;
        let base = match (&edit.add_column_family, self.families.get(&cf)) {
            (Some(name), None) => {
                if self.families.values().any(|f| &f.name == name) {
                    return Err(Error::InvalidArgument(format!(
                        "column family '{name}' already exists"
                    )));
                }
                edit.max_column_family = Some(self.max_column_family.max(cf));
                Arc::new(Version::new(num_levels))
            }
            (None, Some(f)) => f.current.clone(),
            (Some(name), Some(_)) => {
                return Err(Error::InvalidArgument(format!(
                    "column family id {cf} for '{name}' is taken"
                )))
            }
            (None, None) => {
                return Err(Error::InvalidArgument(format!(
                    "column family {cf} does not exist (dropped?)"
                )))
            }
        };
        let version = if edit.drop_column_family {
            if cf == DEFAULT_FAMILY {
                return Err(Error::InvalidArgument(
                    "the default column family cannot be dropped".into(),
                ));
            }
            None
        } else {
            let mut builder = VersionBuilder::new(&base);
            builder.apply(&edit)?;
            let version = builder.build();
            debug_assert!(
                version.check_invariants().is_ok(),
                "{:?}",
                version.check_invariants()
            );
            Some(version)
        };
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
        let e = &w.edit;
        let cf = e.column_family;
        if let Some(name) = &e.add_column_family {
            self.families
                .insert(cf, FamilyVersions::new(name.clone(), 1));
        }
        if let Some(m) = e.max_column_family {
            self.max_column_family = self.max_column_family.max(m);
        }
        if let Some(s) = e.last_sequence {
            self.last_sequence = self.last_sequence.max(s);
        }
        for &(other, n) in &e.family_log_numbers {
            if let Some(f) = self.families.get_mut(&other) {
                f.log_number = f.log_number.max(n);
            }
        }
        match w.version.take() {
            Some(v) => {
                if let Some(f) = self.families.get_mut(&cf) {
                    if let Some(n) = e.log_number {
                        f.log_number = n;
                    }
                    let old = std::mem::replace(&mut f.current, Arc::new(v));
                    f.live.retain(|w| w.strong_count() > 0);
                    f.live.push(Arc::downgrade(&old));
                }
            }
            None => {
                if let Some(f) = self.families.remove(&cf) {
                    self.dropped.retain(|w| w.strong_count() > 0);
                    self.dropped.push(Arc::downgrade(&f.current));
                    self.dropped.extend(f.live);
                }
            }
        }
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

    /// The current version of column family `cf`.
    ///
    /// # Panics
    /// If the family does not exist: callers hold a live family's id.
    pub fn current(&self, cf: u32) -> Arc<Version> {
        match self.families.get(&cf) {
            Some(f) => f.current.clone(),
            None => panic!("column family {cf} does not exist"),
        }
    }

    /// Whether column family `cf` exists (was not dropped).
    pub fn has_family(&self, cf: u32) -> bool {
        self.families.contains_key(&cf)
    }

    /// The live column families: (id, name), by id.
    pub fn families(&self) -> Vec<(u32, String)> {
        self.families
            .iter()
            .map(|(&id, f)| (id, f.name.clone()))
            .collect()
    }

    /// The largest column family id ever given.
    pub fn max_column_family(&self) -> u32 {
        self.max_column_family
    }

    /// Versions of `cf` still referenced: the current one and every older
    /// one a read, iterator or job still holds (`rocksdb.num-live-versions`).
    pub fn num_live_versions(&self, cf: u32) -> usize {
        self.families.get(&cf).map_or(0, |f| {
            1 + f.live.iter().filter(|w| w.strong_count() > 0).count()
        })
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

    /// WALs numbered below this hold nothing that is not in a table: the
    /// smallest log number of any live column family.
    pub fn log_number(&self) -> FileNumber {
        self.families
            .values()
            .map(|f| f.log_number)
            .min()
            .unwrap_or(0)
    }

    /// The log number of column family `cf` (0 if it does not exist).
    pub fn family_log_number(&self, cf: u32) -> FileNumber {
        self.families.get(&cf).map_or(0, |f| f.log_number)
    }

    /// Number of the MANIFEST being written.
    pub fn manifest_number(&self) -> FileNumber {
        self.manifest_number
    }

    /// Every table and blob file any live version (current or held by a
    /// reader, of any family, dropped ones included) references.
    pub fn live_files(&self) -> BTreeSet<FileNumber> {
        let mut out = BTreeSet::new();
        for f in self.families.values() {
            f.current.live_files(&mut out);
            for w in &f.live {
                if let Some(v) = w.upgrade() {
                    v.live_files(&mut out);
                }
            }
        }
        for w in &self.dropped {
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
        let vs = VersionSet::recover(dir.path(), fs.clone(), &|_| 7).unwrap();
        assert_eq!(vs.current(0).files(1).len(), 1);
        assert_eq!(vs.log_number(), 5);
        assert_eq!(vs.last_sequence(), 42);
        assert!(vs.next_file_number() > n);
        // Recovery rewrote the MANIFEST; a second recovery sees the same.
        let vs2 = VersionSet::recover(dir.path(), fs, &|_| 7).unwrap();
        assert_eq!(vs2.current(0).files(1)[0].number, n);
    }

    #[test]
    fn families_survive_recovery_and_a_drop_frees_the_id_for_nobody() {
        let dir = tempfile::tempdir().unwrap();
        let fs = default_fs();
        let mut vs = VersionSet::create_new(dir.path(), fs.clone(), 7).unwrap();
        for (id, name) in [(1, "hot"), (2, "cold")] {
            let e = VersionEdit {
                column_family: id,
                add_column_family: Some(name.into()),
                log_number: Some(3),
                ..VersionEdit::default()
            };
            let mut w = vs.prepare(e, 5).unwrap();
            let r = w.write();
            vs.commit(w, r).unwrap();
        }
        let n = vs.new_file_number();
        let mut e = VersionEdit {
            column_family: 2,
            log_number: Some(9),
            family_log_numbers: vec![(0, 9)],
            ..VersionEdit::default()
        };
        e.new_files.push((4, meta(n, "a", "c")));
        vs.log_and_apply(e).unwrap();
        // The default and "cold" are past WAL 9; "hot" still needs WAL 3.
        assert_eq!(vs.log_number(), 3);
        assert_eq!(vs.current(2).files(4).len(), 1);
        assert_eq!(vs.current(2).num_levels(), 5);
        vs.log_and_apply(VersionEdit {
            column_family: 1,
            drop_column_family: true,
            ..VersionEdit::default()
        })
        .unwrap();
        assert_eq!(vs.log_number(), 9);
        // An edit for the dropped family, or a drop of "default", is refused.
        assert!(vs
            .prepare(
                VersionEdit {
                    column_family: 1,
                    ..VersionEdit::default()
                },
                0
            )
            .is_err());
        assert!(vs
            .prepare(
                VersionEdit {
                    drop_column_family: true,
                    ..VersionEdit::default()
                },
                0
            )
            .is_err());
        drop(vs);
        let levels = |name: &str| if name == "cold" { 5 } else { 7 };
        let vs = VersionSet::recover(dir.path(), fs.clone(), &levels).unwrap();
        assert_eq!(
            vs.families(),
            vec![(0, "default".into()), (2, "cold".into())]
        );
        assert_eq!(vs.max_column_family(), 2);
        assert_eq!(vs.current(2).files(4)[0].number, n);
        assert_eq!(vs.log_number(), 9);
        // Recovered twice (the first recovery rewrote the MANIFEST).
        drop(vs);
        let vs = VersionSet::recover(dir.path(), fs.clone(), &levels).unwrap();
        assert_eq!(vs.max_column_family(), 2);
        assert_eq!(
            VersionSet::list_families(dir.path(), fs).unwrap(),
            ["default", "cold"]
        );
        assert_eq!(vs.family_log_number(2), 9);
    }

    #[test]
    fn bad_current_is_corruption_naming_current() {
        let dir = tempfile::tempdir().unwrap();
        let fs = default_fs();
        drop(VersionSet::create_new(dir.path(), fs.clone(), 7).unwrap());
        std::fs::write(dir.path().join("CURRENT"), b"garbage").unwrap();
        let e = VersionSet::recover(dir.path(), fs, &|_| 7).err().unwrap();
        assert!(e.is_corruption());
        assert!(e.to_string().contains("CURRENT"), "{e}");
    }
}
