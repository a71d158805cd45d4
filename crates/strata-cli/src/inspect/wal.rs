//! `strata inspect wal FILE`: every record of a write-ahead log with its
//! write batch, and every damaged region the recovery mode dropped.

use std::io::Write;
use std::path::Path;

use strata::fs::{FileSystem, PosixFileSystem};
use strata::tools::batch::WriteBatchInternals;
use strata::tools::wal::{DroppedBytes, Predecessor, Reader};
use strata::WalRecoveryMode;
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
    /// The predecessor record (offset, content): the WAL this one follows
    /// and the last sequence logged there (docs/formats/wal.md).
    pub predecessor: Option<(u64, Predecessor)>,
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
        match Predecessor::decode(&rec, &name, offset) {
            Some(Ok(p)) => {
                sum.predecessor = Some((offset, p));
                continue;
            }
            Some(Err(e)) => {
                sum.damage = Some(e);
                break;
            }
            None => {}
        }
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
                strata::tools::types::ValueType::Deletion => writeln!(
                    out,
                    "  {seq} {} {}",
                    type_name(op.value_type),
                    fmt.show(op.key)
                )?,
                strata::tools::types::ValueType::RangeDeletion => writeln!(
                    out,
                    "  {seq} {} [{}, {})",
                    type_name(op.value_type),
                    fmt.show(op.key),
                    fmt.show(op.value)
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
    if let Some((offset, p)) = sum.predecessor {
        writeln!(
            out,
            "predecessor record at offset {offset}: follows WAL {:06}.log, logged there up to sequence {}",
            p.log_number, p.last_sequence
        )?;
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn wal_of(dir: &Path) -> std::path::PathBuf {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "log"))
            .max_by_key(|p| std::fs::metadata(p).unwrap().len())
            .unwrap()
    }

    #[test]
    fn scan_counts_records_ops_and_sequences() {
        let dir = tempfile::tempdir().unwrap();
        crate::inspect::small_db(dir.path());
        let path = wal_of(dir.path());
        let mut offsets = Vec::new();
        let sum = scan(&path, WalRecoveryMode::AbsoluteConsistency, |o, _| {
            offsets.push(o);
            Ok(())
        })
        .unwrap();
        assert_eq!((sum.records, sum.ops), (2, 2));
        assert_eq!(sum.seqs, Some((7, 8)));
        // The first batch follows the predecessor record (7 + 29 bytes).
        assert_eq!(offsets.first(), Some(&36));
        assert_eq!(sum.predecessor.map(|(o, _)| o), Some(0));
        assert!(sum.damage.is_none() && sum.dropped.is_empty());

        let mut out = Vec::new();
        dump(&path, WalRecoveryMode::default(), BytesFmt::Hex, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("7 Put 0x77 value 10 bytes"), "{text}");
        assert!(text.contains("8 Delete 0x78"), "{text}");
    }

    #[test]
    fn dump_shows_range_deletions() {
        let dir = tempfile::tempdir().unwrap();
        {
            let db = strata::Db::open(dir.path(), strata::Options::default()).unwrap();
            db.delete_range(b"b", b"f").unwrap();
        }
        let path = wal_of(dir.path());
        let mut out = Vec::new();
        dump(
            &path,
            WalRecoveryMode::default(),
            BytesFmt::Escaped,
            &mut out,
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains(" DeleteRange ['b', 'f')"), "{text}");
    }

    #[test]
    fn damage_ends_the_scan_and_is_returned() {
        let dir = tempfile::tempdir().unwrap();
        crate::inspect::small_db(dir.path());
        let path = wal_of(dir.path());
        let mut data = std::fs::read(&path).unwrap();
        let n = data.len();
        data[n - 1] ^= 0xff; // the last record's payload
        std::fs::write(&path, &data).unwrap();
        let sum = scan(&path, WalRecoveryMode::AbsoluteConsistency, |_, _| Ok(())).unwrap();
        assert_eq!(sum.records, 1);
        assert!(sum.damage.unwrap().is_corruption());
        let sum = scan(&path, WalRecoveryMode::PointInTimeRecovery, |_, _| Ok(())).unwrap();
        assert_eq!(sum.records, 1);
        assert!(sum.damage.is_none());
        assert_eq!(sum.dropped.len(), 1);
    }

    #[test]
    fn shows_the_predecessor_record_of_a_wal_started_by_a_switch() {
        let dir = tempfile::tempdir().unwrap();
        let db = strata::Db::open(dir.path(), strata::Options::default()).unwrap();
        db.put(b"a", b"1").unwrap();
        db.flush().unwrap();
        db.put(b"b", b"2").unwrap();
        drop(db);
        // The newest WAL follows the one the flush closed.
        let newest = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "log"))
            .max()
            .unwrap();
        let sum = scan(&newest, WalRecoveryMode::AbsoluteConsistency, |_, _| Ok(())).unwrap();
        let (offset, p) = sum.predecessor.expect("a predecessor record");
        assert_eq!((offset, p.last_sequence, sum.records), (0, 1, 1));
        let mut out = Vec::new();
        dump(&newest, WalRecoveryMode::default(), BytesFmt::Hex, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("predecessor record at offset 0: follows WAL"),
            "{text}"
        );
    }
}
