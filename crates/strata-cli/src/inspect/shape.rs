//! Reads a DB directory's shape without opening the DB: CURRENT, a
//! read-only replay of the MANIFEST it names, and the files present. Never
//! takes the LOCK and never writes, so it works while a process has the DB
//! open (a MANIFEST switch in the middle of the read is retried).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use strata::fs::{FileSystem, PosixFileSystem};
use strata::tools::filename::{current_file_name, manifest_file_name, parse_file_name, FileType};
use strata::tools::version::{Version, VersionBuilder, VersionEdit, MAX_LEVELS};
use strata::tools::wal::DroppedBytes;
use strata::Error;

/// How many times a MANIFEST that vanished between reading CURRENT and
/// reading it (a concurrent switch to a new MANIFEST) is retried.
const MANIFEST_RETRIES: usize = 5;

/// The state the MANIFEST describes.
#[derive(Debug)]
pub struct ManifestState {
    /// Number of the MANIFEST file CURRENT names.
    pub number: u64,
    /// Path of that MANIFEST.
    pub path: PathBuf,
    /// Edits replayed.
    pub edits: u64,
    /// Torn tail dropped while reading it.
    pub dropped: Vec<DroppedBytes>,
    /// The comparator recorded, if any.
    pub comparator: Option<String>,
    /// WALs numbered below this are not needed for recovery (the smallest
    /// log number of any live column family).
    pub log_number: u64,
    /// The live column families: (id, name), by id.
    pub families: Vec<(u32, String)>,
    /// Next file number to be allocated.
    pub next_file_number: u64,
    /// Last sequence number recorded (writes still only in WALs may be
    /// newer).
    pub last_sequence: u64,
    /// Live table files per level ([`MAX_LEVELS`] levels), of every live
    /// column family.
    pub version: Version,
    /// Live blob files (number -> total blob bytes).
    pub blob_files: BTreeMap<u64, u64>,
}

/// A file present in the directory, by type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirFile {
    /// Its number (0 for unnumbered files).
    pub number: u64,
    /// Its name in the directory.
    pub name: String,
    /// Its size (`None` if it vanished while being listed).
    pub size: Option<u64>,
}

/// The files of a DB directory, grouped by type.
#[derive(Debug, Default)]
pub struct DirListing {
    /// `*.log` files, by number.
    pub wals: Vec<DirFile>,
    /// `*.sst` files, by number.
    pub tables: Vec<DirFile>,
    /// `*.blob` files, by number.
    pub blobs: Vec<DirFile>,
    /// `MANIFEST-*` files, by number.
    pub manifests: Vec<DirFile>,
    /// `OPTIONS-*` files, by number.
    pub options: Vec<DirFile>,
    /// Everything else (CURRENT, LOCK, LOG, temp and unknown files).
    pub other: Vec<DirFile>,
}

/// Lists `dir`, sorting each group by file number.
///
/// # Errors
/// I/O errors listing the directory.
pub fn list_dir(dir: &Path) -> anyhow::Result<DirListing> {
    let fs = PosixFileSystem;
    let mut l = DirListing::default();
    for name in fs.list(dir)? {
        let size = fs.file_size(&dir.join(&name)).ok();
        let file = |number| DirFile {
            number,
            name: name.clone(),
            size,
        };
        match parse_file_name(&name) {
            Some(FileType::Wal(n)) => l.wals.push(file(n)),
            Some(FileType::Table(n)) => l.tables.push(file(n)),
            Some(FileType::Blob(n)) => l.blobs.push(file(n)),
            Some(FileType::Manifest(n)) => l.manifests.push(file(n)),
            Some(FileType::Options(n)) => l.options.push(file(n)),
            _ => l.other.push(file(0)),
        }
    }
    for v in [
        &mut l.wals,
        &mut l.tables,
        &mut l.blobs,
        &mut l.manifests,
        &mut l.options,
    ] {
        v.sort_by_key(|f| f.number);
    }
    Ok(l)
}

/// Reads CURRENT and returns the MANIFEST number it names.
///
/// # Errors
/// A clear "not a Strata DB" error when `dir` or CURRENT is missing;
/// `Corruption` naming CURRENT when its contents are malformed.
pub fn read_current(dir: &Path) -> anyhow::Result<u64> {
    if !dir.is_dir() {
        anyhow::bail!("{}: not a directory", dir.display());
    }
    let path = current_file_name(dir);
    if !path.exists() {
        anyhow::bail!("{}: not a Strata DB (no CURRENT file)", dir.display());
    }
    let data = PosixFileSystem.read_all(&path)?;
    let name = path.display().to_string();
    let text = std::str::from_utf8(&data)
        .map_err(|e| Error::corruption(&name, e.valid_up_to() as u64, "CURRENT is not text"))?;
    let line = text.strip_suffix('\n').ok_or_else(|| {
        Error::corruption(
            &name,
            text.len() as u64,
            "CURRENT does not end with a newline",
        )
    })?;
    let number = line
        .strip_prefix("MANIFEST-")
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| {
            Error::corruption(&name, 0, format!("CURRENT names '{line}', not a MANIFEST"))
        })?;
    Ok(number)
}

/// True if `e` (anywhere in its chain) is a file-not-found I/O error.
pub fn is_not_found(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::NotFound)
    })
}

/// Reads CURRENT and replays the MANIFEST it names, read-only.
///
/// # Errors
/// As [`read_current`]; I/O errors; `Corruption` naming the MANIFEST and
/// the offset of a damaged record or an edit that does not apply.
pub fn load_manifest(dir: &Path) -> anyhow::Result<ManifestState> {
    let mut attempt = 0;
    loop {
        let number = read_current(dir)?;
        let path = manifest_file_name(dir, number);
        match replay(&path, number) {
            Err(e) if is_not_found(&e) && attempt < MANIFEST_RETRIES => {
                // CURRENT was switched to a new MANIFEST and the old one
                // deleted after we read CURRENT: read it again.
                attempt += 1;
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            r => return r,
        }
    }
}

/// One column family during a replay.
struct FamilyReplay {
    name: String,
    builder: VersionBuilder,
    log_number: u64,
    /// Live blob files (number -> total blob bytes).
    blob_files: BTreeMap<u64, u64>,
}

impl FamilyReplay {
    fn new(name: String) -> Self {
        FamilyReplay {
            name,
            builder: VersionBuilder::new(&Version::new(MAX_LEVELS)),
            log_number: 0,
            blob_files: BTreeMap::new(),
        }
    }
}

/// Replays one MANIFEST file, each column family on its own.
fn replay(path: &Path, number: u64) -> anyhow::Result<ManifestState> {
    let name = path.display().to_string();
    let mut families: BTreeMap<u32, FamilyReplay> = BTreeMap::new();
    families.insert(0, FamilyReplay::new("default".into()));
    let mut st = ManifestState {
        number,
        path: path.to_path_buf(),
        edits: 0,
        dropped: Vec::new(),
        comparator: None,
        log_number: 0,
        families: Vec::new(),
        next_file_number: 0,
        last_sequence: 0,
        version: Version::new(0),
        blob_files: BTreeMap::new(),
    };
    let dropped = super::manifest::scan(path, |offset, edit| {
        let bad = |m: String| Error::corruption(&name, offset, m);
        let cf = edit.column_family;
        if let Some(n) = &edit.add_column_family {
            families.insert(cf, FamilyReplay::new(n.clone()));
        }
        if edit.drop_column_family {
            families.remove(&cf);
        } else {
            let Some(f) = families.get_mut(&cf) else {
                return Err(bad(format!("edit for unknown column family {cf}")).into());
            };
            f.builder.apply(&edit).map_err(|e| match e {
                Error::Corruption { message, .. } => bad(message),
                other => other,
            })?;
            if let Some(n) = edit.log_number {
                f.log_number = f.log_number.max(n);
            }
            for b in &edit.blob_file_additions {
                f.blob_files.insert(b.number, b.total_blob_bytes);
            }
            for n in &edit.deleted_blob_files {
                f.blob_files.remove(n);
            }
        }
        for (other, n) in &edit.family_log_numbers {
            if let Some(f) = families.get_mut(other) {
                f.log_number = f.log_number.max(*n);
            }
        }
        if let Some(c) = edit.comparator {
            st.comparator = Some(c);
        }
        if let Some(n) = edit.next_file_number {
            st.next_file_number = n;
        }
        if let Some(n) = edit.last_sequence {
            st.last_sequence = n;
        }
        st.edits += 1;
        Ok(())
    })?;
    if st.edits == 0 {
        return Err(Error::corruption(&name, 0, "MANIFEST holds no complete edit").into());
    }
    st.dropped = dropped;
    st.log_number = families.values().map(|f| f.log_number).min().unwrap_or(0);
    st.families = families
        .iter()
        .map(|(&id, f)| (id, f.name.clone()))
        .collect();
    // Every live family's files in one version, level by level.
    let mut all = VersionEdit::default();
    for f in families.into_values() {
        f.builder.build().add_all_to(&mut all);
        st.blob_files.extend(f.blob_files);
    }
    let mut merged = VersionBuilder::new(&Version::new(MAX_LEVELS));
    merged.apply(&all)?;
    st.version = merged.build();
    Ok(st)
}

/// Highest level holding a file, plus one (0 when the DB has no tables).
pub fn used_levels(v: &Version) -> usize {
    (0..v.num_levels())
        .rev()
        .find(|&l| !v.files(l).is_empty())
        .map_or(0, |l| l + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn current_must_name_a_manifest() {
        let dir = tempfile::tempdir().unwrap();
        let e = read_current(&dir.path().join("nope")).unwrap_err();
        assert!(e.to_string().contains("not a directory"), "{e}");
        let e = read_current(dir.path()).unwrap_err();
        assert!(e.to_string().contains("not a Strata DB"), "{e}");
        let cur = dir.path().join("CURRENT");
        for bad in [
            &b"MANIFEST-000005"[..],
            b"OPTIONS-1\n",
            b"MANIFEST-\n",
            b"\xff\n",
        ] {
            std::fs::write(&cur, bad).unwrap();
            let e = read_current(dir.path()).unwrap_err();
            let corrupt = e
                .downcast_ref::<strata::Error>()
                .is_some_and(strata::Error::is_corruption);
            assert!(corrupt, "{bad:?}: {e}");
            assert!(e.to_string().contains("CURRENT"), "{e}");
        }
        std::fs::write(&cur, b"MANIFEST-000012\n").unwrap();
        assert_eq!(read_current(dir.path()).unwrap(), 12);
    }

    #[test]
    fn manifest_replay_and_listing_of_a_real_db() {
        let dir = tempfile::tempdir().unwrap();
        crate::inspect::small_db(dir.path());
        let m = load_manifest(dir.path()).unwrap();
        assert_eq!(used_levels(&m.version), 1);
        assert_eq!(m.version.files(0).len(), 1);
        assert_eq!(m.version.files(0)[0].num_entries, 5);
        assert!(m.edits >= 1 && m.next_file_number > m.log_number);
        let l = list_dir(dir.path()).unwrap();
        assert_eq!(l.tables.len(), 1);
        assert_eq!(l.tables[0].number, m.version.files(0)[0].number);
        assert!(!l.wals.is_empty() && l.manifests.len() == 1 && !l.options.is_empty());
        assert!(l.other.iter().any(|f| f.name == "CURRENT"));
    }

    #[test]
    fn damaged_manifest_is_corruption_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        crate::inspect::small_db(dir.path());
        let n = read_current(dir.path()).unwrap();
        let path = manifest_file_name(dir.path(), n);
        std::fs::write(&path, b"").unwrap();
        let e = load_manifest(dir.path()).unwrap_err();
        assert!(e.to_string().contains("MANIFEST-"), "{e}");
        std::fs::remove_file(&path).unwrap();
        let e = load_manifest(dir.path()).unwrap_err();
        assert!(is_not_found(&e), "{e}");
    }
}
