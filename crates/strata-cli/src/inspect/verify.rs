//! `strata inspect verify DIR`: checks every checksum of every file the DB
//! references (CURRENT, the MANIFEST, each live table's blocks, each WAL
//! recovery would replay, the OPTIONS files), read-only.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

use serde_json::json;
use strata::fs::{FileSystem, PosixFileSystem};
use strata::tools::filename::{
    manifest_file_name, options_file_name, parse_file_name, table_file_name, wal_file_name,
    FileType,
};
use strata::tools::options_file;
use strata::WalRecoveryMode;

use super::shape::{is_not_found, list_dir, load_manifest, read_current, ManifestState};

/// Outcome of checking one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    /// Every check passed.
    Ok,
    /// A check failed: the error (naming file and offset for corruption).
    Corrupt(String),
    /// The file was deleted by the DB while being checked (a concurrent
    /// compaction or WAL switch) and is no longer referenced.
    Gone,
}

/// One checked file.
#[derive(Debug, Clone)]
pub struct FileCheck {
    /// The file's name in the directory.
    pub name: String,
    /// `CURRENT`, `MANIFEST`, `table`, `WAL` or `OPTIONS`.
    pub kind: &'static str,
    /// What was found.
    pub status: Status,
    /// What was checked (counts, tolerated torn tails).
    pub detail: String,
}

/// The result of verifying a DB.
#[derive(Debug, Default)]
pub struct VerifyReport {
    /// Every file checked, in order.
    pub files: Vec<FileCheck>,
}

impl VerifyReport {
    /// Number of files with a failed check.
    pub fn corrupt(&self) -> usize {
        self.files
            .iter()
            .filter(|f| matches!(f.status, Status::Corrupt(_)))
            .count()
    }

    fn push(&mut self, name: String, kind: &'static str, r: anyhow::Result<String>) {
        let (status, detail) = match r {
            Ok(d) => (Status::Ok, d),
            Err(e) if is_not_found(&e) => (Status::Corrupt(format!("missing: {e}")), String::new()),
            Err(e) => (Status::Corrupt(format!("{e}")), String::new()),
        };
        self.files.push(FileCheck {
            name,
            kind,
            status,
            detail,
        });
    }
}

/// Checks a table: structure blocks at open, then every data block.
fn check_table(path: &Path, expected_size: Option<u64>) -> anyhow::Result<String> {
    let table = super::sst::open_table(path)?;
    if let Some(want) = expected_size {
        if table.file_size() != want {
            return Err(strata::Error::corruption(
                path.display().to_string(),
                table.file_size(),
                format!(
                    "file is {} bytes but the MANIFEST records {want}",
                    table.file_size()
                ),
            )
            .into());
        }
    }
    table.verify_checksums()?;
    let p = table.properties();
    Ok(format!(
        "{} data blocks, {} entries",
        p.num_data_blocks, p.num_entries
    ))
}

/// Checks a WAL: every record's checksum and batch encoding. A torn tail
/// (what a crash mid-write leaves, and what a live writer's unfinished
/// record looks like) is tolerated and noted, as recovery does.
fn check_wal(path: &Path) -> anyhow::Result<String> {
    let sum = super::wal::scan(
        path,
        WalRecoveryMode::TolerateCorruptedTailRecords,
        |_, _| Ok(()),
    )?;
    if let Some(e) = sum.damage {
        return Err(e.into());
    }
    let mut d = format!("{} records, {} operations", sum.records, sum.ops);
    for x in &sum.dropped {
        d.push_str(&format!("; tolerated {x}"));
    }
    Ok(d)
}

fn check_manifest(dir: &Path) -> (Option<ManifestState>, anyhow::Result<String>) {
    match load_manifest(dir) {
        Ok(m) => {
            let mut d = format!("{} edits", m.edits);
            for x in &m.dropped {
                d.push_str(&format!("; tolerated {x}"));
            }
            (Some(m), Ok(d))
        }
        Err(e) => (None, Err(e)),
    }
}

fn live_tables(m: &ManifestState) -> Vec<(usize, u64, u64)> {
    let v = &m.version;
    (0..v.num_levels())
        .flat_map(|l| v.files(l).iter().map(move |f| (l, f.number, f.file_size)))
        .collect()
}

/// Verifies the DB in `dir`.
///
/// # Errors
/// Only when `dir` is not a DB at all (no directory or no CURRENT); every
/// damage found is in the report.
pub fn verify(dir: &Path) -> anyhow::Result<VerifyReport> {
    let mut rep = VerifyReport::default();
    let current = read_current(dir);
    match &current {
        Err(e)
            if e.chain()
                .all(|c| c.downcast_ref::<strata::Error>().is_none()) =>
        {
            anyhow::bail!("{e}")
        }
        _ => {}
    }
    let current_ok = current.is_ok();
    rep.push(
        "CURRENT".into(),
        "CURRENT",
        current.map(|n| format!("names MANIFEST-{n:06}")),
    );
    let (manifest, mres) = if current_ok {
        check_manifest(dir)
    } else {
        (
            None,
            Err(anyhow::anyhow!("not checked: CURRENT is unreadable")),
        )
    };
    let manifest_name = manifest
        .as_ref()
        .and_then(|m| m.path.file_name())
        .map_or("MANIFEST".to_string(), |n| n.to_string_lossy().into_owned());
    rep.push(manifest_name, "MANIFEST", mres);
    let listing = list_dir(dir)?;
    // Without a readable MANIFEST every table in the directory is checked.
    let tables: Vec<(Option<usize>, u64, Option<u64>)> = match &manifest {
        Some(m) => live_tables(m)
            .into_iter()
            .map(|(l, n, s)| (Some(l), n, Some(s)))
            .collect(),
        None => listing
            .tables
            .iter()
            .map(|f| (None, f.number, None))
            .collect(),
    };
    for (level, number, size) in &tables {
        let path = table_file_name(dir, *number);
        let r =
            check_table(&path, *size).map(|d| level.map_or(d.clone(), |l| format!("L{l}, {d}")));
        rep.push(format!("{number:06}.sst"), "table", r);
    }
    let blobs: Vec<u64> = match &manifest {
        Some(m) => m.version.blob_files.keys().copied().collect(),
        None => listing.blobs.iter().map(|f| f.number).collect(),
    };
    for n in blobs {
        let path = strata::tools::filename::blob_file_name(dir, n);
        rep.push(format!("{n:06}.blob"), "blob", super::blob::check(&path));
    }
    let log_number = manifest.as_ref().map_or(0, |m| m.log_number);
    for w in listing.wals.iter().filter(|w| w.number >= log_number) {
        rep.push(
            w.name.clone(),
            "WAL",
            check_wal(&wal_file_name(dir, w.number)),
        );
    }
    for o in &listing.options {
        let path = options_file_name(dir, o.number);
        let r = PosixFileSystem
            .read_all(&path)
            .and_then(|data| options_file::parse(&data, &path.display().to_string()))
            .map(|opts| format!("checksum OK, {} options", opts.to_pairs().len()))
            .map_err(anyhow::Error::from);
        rep.push(o.name.clone(), "OPTIONS", r);
    }
    forgive_vanished(dir, &mut rep, manifest.as_ref());
    Ok(rep)
}

/// A live DB deletes files while we read: a table, WAL, OPTIONS file or
/// MANIFEST that is missing now and no longer referenced by the DB's
/// current state was removed legitimately, not lost.
fn forgive_vanished(dir: &Path, rep: &mut VerifyReport, before: Option<&ManifestState>) {
    let missing =
        |f: &FileCheck| matches!(&f.status, Status::Corrupt(m) if m.starts_with("missing"));
    if before.is_none() || !rep.files.iter().any(missing) {
        return;
    }
    let Ok(now) = load_manifest(dir) else { return };
    let live: BTreeSet<u64> = live_tables(&now).into_iter().map(|(_, n, _)| n).collect();
    for f in rep.files.iter_mut().filter(|f| missing(f)) {
        let still_needed = match parse_file_name(&f.name) {
            Some(FileType::Table(n)) => live.contains(&n),
            Some(FileType::Blob(n)) => now.version.blob_files.contains_key(&n),
            Some(FileType::Wal(n)) => n >= now.log_number && wal_file_name(dir, n).exists(),
            Some(FileType::Options(n)) => options_file_name(dir, n).exists(),
            Some(FileType::Manifest(n)) => manifest_file_name(dir, n).exists(),
            _ => true,
        };
        if !still_needed {
            f.status = Status::Gone;
        }
    }
}

/// Prints the report for `dir` to `out` (text or JSON).
///
/// # Errors
/// Failures writing to `out`.
pub fn write_report(
    dir: &Path,
    rep: &VerifyReport,
    as_json: bool,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let bad = rep.corrupt();
    if as_json {
        let files: Vec<_> = rep
            .files
            .iter()
            .map(|f| {
                let (status, error) = match &f.status {
                    Status::Ok => ("ok", None),
                    Status::Corrupt(e) => ("corrupt", Some(e.clone())),
                    Status::Gone => ("gone", None),
                };
                json!({"file": f.name, "kind": f.kind, "status": status, "detail": f.detail, "error": error})
            })
            .collect();
        let v = json!({
            "dir": dir.display().to_string(),
            "files": files,
            "checked": rep.files.len(),
            "corrupt": bad,
            "ok": bad == 0,
        });
        writeln!(out, "{}", serde_json::to_string_pretty(&v)?)?;
        return Ok(());
    }
    writeln!(out, "Verifying {}", dir.display())?;
    for f in &rep.files {
        match &f.status {
            Status::Ok => writeln!(out, "OK       {:<16} {}", f.name, f.detail)?,
            Status::Corrupt(e) => writeln!(out, "CORRUPT  {:<16} {e}", f.name)?,
            Status::Gone => writeln!(
                out,
                "GONE     {:<16} deleted by the DB while checking (no longer referenced)",
                f.name
            )?,
        }
    }
    writeln!(
        out,
        "{} files checked: {} OK, {bad} corrupt",
        rep.files.len(),
        rep.files.iter().filter(|f| f.status == Status::Ok).count()
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deleted_live_table_is_reported_missing_not_forgiven() {
        let dir = tempfile::tempdir().unwrap();
        crate::inspect::small_db(dir.path());
        let rep = verify(dir.path()).unwrap();
        assert_eq!(rep.corrupt(), 0, "{rep:?}");
        let kinds: Vec<&str> = rep.files.iter().map(|f| f.kind).collect();
        for k in ["CURRENT", "MANIFEST", "table", "WAL", "OPTIONS"] {
            assert!(kinds.contains(&k), "{k} not checked: {kinds:?}");
        }
        let table = rep.files.iter().find(|f| f.kind == "table").unwrap();
        std::fs::remove_file(dir.path().join(&table.name)).unwrap();
        let rep = verify(dir.path()).unwrap();
        assert_eq!(rep.corrupt(), 1);
        let f = rep.files.iter().find(|f| f.kind == "table").unwrap();
        assert!(
            matches!(&f.status, Status::Corrupt(m) if m.starts_with("missing")),
            "{f:?}"
        );
    }

    #[test]
    fn table_size_must_match_the_manifest() {
        let dir = tempfile::tempdir().unwrap();
        crate::inspect::small_db(dir.path());
        let m = load_manifest(dir.path()).unwrap();
        let f = &m.version.files(0)[0];
        let path = table_file_name(dir.path(), f.number);
        check_table(&path, Some(f.file_size)).unwrap();
        let e = check_table(&path, Some(f.file_size + 1)).unwrap_err();
        assert!(e.to_string().contains("MANIFEST records"), "{e}");
    }
}
