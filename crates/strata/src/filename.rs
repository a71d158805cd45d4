//! Every file name in a DB directory is built and parsed here.
//!
//! `000123.log` (WAL), `000123.sst` (table), `000123.blob` (blob file),
//! `MANIFEST-000123`, `OPTIONS-000123`, `CURRENT`, `LOCK`, `LOG`, `LOG.old.N`,
//! and `*.dbtmp` for files being written before an atomic rename.

use std::path::{Path, PathBuf};

/// A file number: WALs, tables, blob files and manifests share one counter.
pub type FileNumber = u64;

/// The kinds of file the engine keeps in a DB directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileType {
    /// Write-ahead log `NNNNNN.log`.
    Wal(FileNumber),
    /// Table `NNNNNN.sst`.
    Table(FileNumber),
    /// Blob file `NNNNNN.blob`.
    Blob(FileNumber),
    /// `MANIFEST-NNNNNN`.
    Manifest(FileNumber),
    /// `OPTIONS-NNNNNN`.
    Options(FileNumber),
    /// `CURRENT`.
    Current,
    /// `LOCK`.
    Lock,
    /// `LOG` or `LOG.old.*`.
    InfoLog,
    /// `*.dbtmp`.
    Temp,
}

/// `dir/NNNNNN.log`
pub fn wal_file_name(dir: &Path, n: FileNumber) -> PathBuf {
    dir.join(format!("{n:06}.log"))
}
/// `dir/NNNNNN.sst`
pub fn table_file_name(dir: &Path, n: FileNumber) -> PathBuf {
    dir.join(format!("{n:06}.sst"))
}
/// `dir/NNNNNN.blob`
pub fn blob_file_name(dir: &Path, n: FileNumber) -> PathBuf {
    dir.join(format!("{n:06}.blob"))
}
/// `dir/MANIFEST-NNNNNN`
pub fn manifest_file_name(dir: &Path, n: FileNumber) -> PathBuf {
    dir.join(format!("MANIFEST-{n:06}"))
}
/// `dir/OPTIONS-NNNNNN`
pub fn options_file_name(dir: &Path, n: FileNumber) -> PathBuf {
    dir.join(format!("OPTIONS-{n:06}"))
}
/// `dir/CURRENT`
pub fn current_file_name(dir: &Path) -> PathBuf {
    dir.join("CURRENT")
}
/// `dir/LOCK`
pub fn lock_file_name(dir: &Path) -> PathBuf {
    dir.join("LOCK")
}
/// `dir/LOG`
pub fn info_log_file_name(dir: &Path) -> PathBuf {
    dir.join("LOG")
}
/// `dir/NNNNNN.dbtmp`
pub fn temp_file_name(dir: &Path, n: FileNumber) -> PathBuf {
    dir.join(format!("{n:06}.dbtmp"))
}

/// Classifies a directory entry by name; `None` for files that are not ours.
pub fn parse_file_name(name: &str) -> Option<FileType> {
    let num = |s: &str| -> Option<FileNumber> {
        if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        s.parse().ok()
    };
    match name {
        "CURRENT" => return Some(FileType::Current),
        "LOCK" => return Some(FileType::Lock),
        "LOG" => return Some(FileType::InfoLog),
        _ => {}
    }
    if name.starts_with("LOG.old") {
        return Some(FileType::InfoLog);
    }
    if let Some(rest) = name.strip_prefix("MANIFEST-") {
        return num(rest).map(FileType::Manifest);
    }
    if let Some(rest) = name.strip_prefix("OPTIONS-") {
        return num(rest).map(FileType::Options);
    }
    let (stem, ext) = name.rsplit_once('.')?;
    let n = num(stem)?;
    match ext {
        "log" => Some(FileType::Wal(n)),
        "sst" => Some(FileType::Table(n)),
        "blob" => Some(FileType::Blob(n)),
        "dbtmp" => Some(FileType::Temp),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        let d = Path::new("/db");
        for (p, t) in [
            (wal_file_name(d, 7), FileType::Wal(7)),
            (table_file_name(d, 1234567), FileType::Table(1234567)),
            (blob_file_name(d, 3), FileType::Blob(3)),
            (manifest_file_name(d, 12), FileType::Manifest(12)),
            (options_file_name(d, 12), FileType::Options(12)),
        ] {
            let name = p.file_name().unwrap().to_str().unwrap();
            assert_eq!(parse_file_name(name), Some(t));
        }
        assert_eq!(parse_file_name("000001.txt"), None);
        assert_eq!(parse_file_name("MANIFEST-x"), None);
        assert_eq!(
            parse_file_name("LOG.old.1700000000"),
            Some(FileType::InfoLog)
        );
    }
}
