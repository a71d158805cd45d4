//! `strata inspect wal FILE`: every record of a write-ahead log with its
//! write batch, and every damaged region the recovery mode dropped.

use std::io::Write;
use std::path::Path;

use strata::fs::{FileSystem, PosixFileSystem};
use strata::wal::{DroppedBytes, Reader, WalRecoveryMode};
use strata::WriteBatch;

use super::format::{type_name, BytesFmt};

/// What one pass over a log found.
#[derive(Debug, Default)]
pub struct WalSummary {
    /// Records read.
    pub records: u64,
    /// Operations in those records.
    pub ops: u64,
    /// Smallest and largest sequence number of any operation.
    pub seqs: Option<(u64, u64)>,
    /// Regions the reader skipped.
    pub dropped: Vec<DroppedBytes>,
    /// The damage that ended the scan, if any.
    pub damage: Option<strata::Error>,
}

/// Reads every record of the log at `path` under `mode`, decoding each as a
/// write batch, and calls `each` with its offset and batch. Damage that
/// `mode` does not tolerate, or a record that is not a valid write batch,
/// ends the scan and is returned in [`WalSummary::damage`].
///
/// # Errors
/// I/O errors reading the file, and errors returned by `each`.
pub fn scan(
    path: &Path,
    mode: WalRecoveryMode,
    mut each: impl FnMut(u64, &WriteBatch) -> anyhow::Result<()>,
) -> anyhow::Result<WalSummary> {
    let name = path.display().to_string();
    let data = PosixFileSystem.read_all(path)?;
    let mut reader = Reader::new(data, name.clone(), mode);
    let mut sum = WalSummary::default();
    loop {
        let rec = match reader.read_record() {
            Ok(Some(rec)) => rec,
            Ok(None) => break,
            Err(e) => {
                sum.damage = Some(e);
                break;
            }
        };
        let offset = reader.last_record_offset();
        let batch = match WriteBatch::from_data(rec, &name, offset) {
            Ok(b) => b,
            Err(e) => {
                sum.damage = Some(e);
                break;
            }
        };
        sum.records += 1;
        sum.ops += u64::from(batch.count());
        if batch.count() > 0 {
            let first = batch.sequence();
            let last = first.saturating_add(u64::from(batch.count()) - 1);
            sum.seqs = Some(match sum.seqs {
                None => (first, last),
                Some((a, b)) => (a.min(first), b.max(last)),
            });
        }
        each(offset, &batch)?;
    }
    sum.dropped = reader.dropped().to_vec();
    Ok(sum)
}

/// Prints the log at `path` to `out`.
///
/// # Errors
/// I/O errors; the engine's `Corruption` for damage `mode` does not
/// tolerate (after printing the records before it); failures writing to
/// `out`.
pub fn dump(
    path: &Path,
    mode: WalRecoveryMode,
    fmt: BytesFmt,
    out: &mut dyn Write,
) -> anyhow::Result<()> {
    let size = PosixFileSystem.file_size(path)?;
    writeln!(
        out,
        "WAL {} ({size} bytes), recovery mode {mode}",
        path.display()
    )?;
    let sum = scan(path, mode, |offset, batch| {
        writeln!(
            out,
            "record at offset {offset}: sequence {} count {} ({} bytes)",
            batch.sequence(),
            batch.count(),
            batch.data_size()
        )?;
        for (i, op) in batch.iter().enumerate() {
            let seq = batch.sequence().saturating_add(i as u64);
            match op.value_type {
                strata::types::ValueType::Deletion => writeln!(
                    out,
                    "  {seq} {} {}",
                    type_name(op.value_type),
                    fmt.show(op.key)
                )?,
                t => writeln!(
                    out,
                    "  {seq} {} {} value {} bytes",
                    type_name(t),
                    fmt.show(op.key),
                    op.value.len()
                )?,
            }
        }
        Ok(())
    })?;
    for d in &sum.dropped {
        writeln!(out, "{d}")?;
    }
    let seqs = sum
        .seqs
        .map_or("none".to_string(), |(a, b)| format!("{a}..{b}"));
    writeln!(
        out,
        "{} records, {} operations, sequences {seqs}, {} bytes dropped",
        sum.records,
        sum.ops,
        sum.dropped.iter().map(|d| d.bytes).sum::<u64>()
    )?;
    match sum.damage {
        Some(e) => Err(e.into()),
        None => Ok(()),
    }
}
