//! `strata inspect manifest FILE`: every version edit with its offset.

use std::io::Write;
use std::path::Path;

use strata::fs::{FileSystem, PosixFileSystem};
use strata::tools::version::VersionEdit;
use strata::tools::wal::{DroppedBytes, Reader};
use strata::WalRecoveryMode;

/// Reads every edit of the MANIFEST at `path` as recovery does (a torn last
/// record is dropped and returned), calling `each` with its offset.
///
/// # Errors
/// I/O errors; `Corruption` (file and offset) for any other damage or a
/// record that is not a valid edit.
pub fn scan(
    path: &Path,
    mut each: impl FnMut(u64, VersionEdit) -> anyhow::Result<()>,
) -> anyhow::Result<Vec<DroppedBytes>> {
    let name = path.display().to_string();
    let data = PosixFileSystem.read_all(path)?;
    let mut reader = Reader::new(
        data,
        name.clone(),
        WalRecoveryMode::TolerateCorruptedTailRecords,
    );
    while let Some(rec) = reader.read_record()? {
        let offset = reader.last_record_offset();
        each(offset, VersionEdit::decode(&rec, &name, offset)?)?;
    }
    Ok(reader.dropped().to_vec())
}

/// Prints the MANIFEST at `path` to `out`.
///
/// # Errors
/// As [`scan`]; `Corruption` when the file holds no complete edit;
/// failures writing to `out`.
pub fn dump(path: &Path, out: &mut dyn Write) -> anyhow::Result<()> {
    let size = PosixFileSystem.file_size(path)?;
    writeln!(out, "MANIFEST {} ({size} bytes)", path.display())?;
    let mut n = 0u64;
    let dropped = scan(path, |offset, edit| {
        n += 1;
        writeln!(out, "edit #{n} at offset {offset}: {edit}")?;
        Ok(())
    })?;
    for d in &dropped {
        writeln!(out, "{d}")?;
    }
    writeln!(out, "{n} edits")?;
    if n == 0 {
        // Recovery needs at least one edit; a file whose every byte was
        // dropped as a torn tail is not a usable MANIFEST.
        return Err(strata::Error::corruption(
            path.display().to_string(),
            0,
            "no complete version edit in the file",
        )
        .into());
    }
    Ok(())
}
