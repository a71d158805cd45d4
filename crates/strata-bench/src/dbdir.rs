//! The database directory: destroying it for fresh-DB benchmarks and
//! measuring bytes on disk by file kind.

use std::path::Path;

use serde::Serialize;

/// Whether `name` is a file an LSM engine (Strata or RocksDB) keeps in its
/// directory, so destroying the DB never removes anything else.
fn is_db_file(name: &str) -> bool {
    const PREFIXES: [&str; 6] = [
        "MANIFEST-",
        "OPTIONS-",
        "LOG",
        "CURRENT",
        "IDENTITY",
        "LOCK",
    ];
    const SUFFIXES: [&str; 5] = [".log", ".sst", ".blob", ".dbtmp", ".ldb"];
    PREFIXES.iter().any(|p| name.starts_with(p)) || SUFFIXES.iter().any(|s| name.ends_with(s))
}

/// Removes the DB files in `path` (like RocksDB's `DestroyDB`), then the
/// directory itself if it ended up empty. Missing directories are fine.
pub fn destroy_db(path: &Path) -> std::io::Result<()> {
    let entries = match std::fs::read_dir(path) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
    };
    for entry in entries {
        let entry = entry?;
        let name = entry.file_name();
        if entry.file_type()?.is_file() && is_db_file(&name.to_string_lossy()) {
            std::fs::remove_file(entry.path())?;
        }
    }
    let _ = std::fs::remove_dir(path); // only succeeds when empty
    Ok(())
}

/// Bytes on disk in the DB directory, by file kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct DiskUsage {
    /// Write-ahead log files (`*.log`).
    pub wal_bytes: u64,
    /// Table files (`*.sst`).
    pub sst_bytes: u64,
    /// Blob files (`*.blob`).
    pub blob_bytes: u64,
    /// Everything else (MANIFEST, OPTIONS, LOG, ...).
    pub other_bytes: u64,
    /// Sum of the above.
    pub total_bytes: u64,
}

/// Sums file sizes in `path` (not recursive) by kind.
pub fn disk_usage(path: &Path) -> DiskUsage {
    let mut u = DiskUsage::default();
    let Ok(entries) = std::fs::read_dir(path) else {
        return u;
    };
    for entry in entries.flatten() {
        let Ok(meta) = entry.metadata() else { continue };
        if !meta.is_file() {
            continue;
        }
        let name = entry.file_name().to_string_lossy().to_string();
        let len = meta.len();
        if name.ends_with(".log") {
            u.wal_bytes += len;
        } else if name.ends_with(".sst") {
            u.sst_bytes += len;
        } else if name.ends_with(".blob") {
            u.blob_bytes += len;
        } else {
            u.other_bytes += len;
        }
        u.total_bytes += len;
    }
    u
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destroy_keeps_foreign_files_and_usage_by_kind() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        for (name, len) in [
            ("000001.log", 10),
            ("000002.sst", 20),
            ("000003.blob", 30),
            ("MANIFEST-000004", 5),
            ("notes.txt", 1),
        ] {
            std::fs::write(p.join(name), vec![0u8; len]).unwrap();
        }
        let u = disk_usage(p);
        assert_eq!(
            (
                u.wal_bytes,
                u.sst_bytes,
                u.blob_bytes,
                u.other_bytes,
                u.total_bytes
            ),
            (10, 20, 30, 6, 66)
        );
        destroy_db(p).unwrap();
        let left: Vec<_> = std::fs::read_dir(p)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, vec![std::ffi::OsString::from("notes.txt")]);
        destroy_db(&p.join("missing")).unwrap();
    }
}
