//! `strata inspect blob FILE`: a blob file's header, records and footer
//! (`docs/formats/blob.md`), and the checksum verification used by `verify`.

use std::io::Write;
use std::path::Path;

use strata::fs::{FileSystem, PosixFileSystem};
use strata::tools::blob::{dump_blob_file, BlobDumpOptions, BlobFileReader};
use strata::tools::filename::{parse_file_name, FileType};

/// Opens a blob file read-only.
///
/// # Errors
/// I/O errors and `Corruption` from the header or footer.
pub fn open_blob(path: &Path) -> strata::Result<BlobFileReader> {
    let number = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(parse_file_name)
        .and_then(|t| match t {
            FileType::Blob(n) => Some(n),
            _ => None,
        })
        .unwrap_or(0);
    let file = PosixFileSystem.open_random(path)?;
    BlobFileReader::open(file, number, path.display().to_string())
}

/// Dumps `path` to `out`.
///
/// # Errors
/// Open/read failures (Corruption naming the file and offset).
pub fn dump(
    path: &Path,
    records: bool,
    max_value: usize,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let r = open_blob(path)?;
    let opts = BlobDumpOptions {
        records,
        max_value_len: max_value,
    };
    dump_blob_file(&r, &opts, out)?;
    Ok(())
}

/// Reads every record of a blob file, checking every checksum.
///
/// # Errors
/// The first damage found, naming the file and offset.
pub fn check(path: &Path) -> anyhow::Result<String> {
    let r = open_blob(path)?;
    r.verify_checksums()?;
    Ok(format!("{} bytes, checksums OK", r.file_size()))
}
