//! Blob garbage-collection decisions, as pure functions of the version's
//! blob file and table metadata (no I/O): which blob files compaction
//! relocates from, which tables the force threshold marks for compaction,
//! and which blob files are obsolete.
//!
//! The rules follow RocksDB's integrated BlobDB (`CompactionIterator::
//! GarbageCollectBlobIfNeeded`, `VersionStorageInfo::
//! ComputeFilesMarkedForForcedBlobGC` before RocksDB 9.7, and
//! `VersionBuilder`'s obsolete-file rule); see `docs/formats/blob.md`,
//! "Garbage collection".

/// What the policy needs to know about one live blob file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlobFileState {
    /// File number.
    pub number: u64,
    /// Blobs written to the file.
    pub total_blob_count: u64,
    /// Record bytes written to the file.
    pub total_blob_bytes: u64,
    /// Blobs known to be garbage (sum of the MANIFEST's garbage records).
    pub garbage_blob_count: u64,
    /// Bytes of those blobs.
    pub garbage_blob_bytes: u64,
}

/// One live table and the oldest blob file it references.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TableBlobLink {
    /// Level of the table.
    pub level: usize,
    /// Table file number.
    pub number: u64,
    /// `FileMetaData::oldest_blob_file` (0: references no blob file).
    pub oldest_blob_file: u64,
}

/// The blob file number below which compaction relocates blobs: blobs in
/// files numbered strictly less than this are rewritten to new blob files
/// as their keys pass through a compaction.
///
/// With the `n` live blob files sorted by number, the oldest
/// `floor(age_cutoff * n)` are eligible; the cutoff is the number of the
/// first file that is not (`u64::MAX` when all are). An `age_cutoff` of 0
/// (or NaN) makes nothing eligible.
pub fn gc_cutoff_file_number(blob_files: &[u64], age_cutoff: f64) -> u64 {
    let mut sorted = blob_files.to_vec();
    sorted.sort_unstable();
    let n = eligible_count(sorted.len(), age_cutoff);
    sorted.get(n).copied().unwrap_or(u64::MAX)
}

/// The numbers of the blob files whose live blobs compaction relocates
/// (see [`gc_cutoff_file_number`]), ascending.
#[cfg(test)]
pub fn eligible_blob_files(blob_files: &[u64], age_cutoff: f64) -> Vec<u64> {
    let mut sorted = blob_files.to_vec();
    sorted.sort_unstable();
    sorted.truncate(eligible_count(sorted.len(), age_cutoff));
    sorted
}

/// True if a blob in `file_number` is relocated under `cutoff`.
pub fn should_relocate(file_number: u64, cutoff: u64) -> bool {
    file_number < cutoff
}

fn eligible_count(n: usize, age_cutoff: f64) -> usize {
    if age_cutoff.is_nan() || age_cutoff <= 0.0 {
        return 0;
    }
    ((age_cutoff.min(1.0) * n as f64).floor() as usize).min(n)
}

/// The decision of the force threshold: which tables to compact.
#[derive(Debug, Clone, PartialEq)]
pub struct ForcedBlobGc {
    /// The batch the ratio was computed over: the oldest blob file and the
    /// eligible files after it that no table links to, ascending.
    pub blob_files: Vec<u64>,
    /// Garbage bytes over total bytes of the batch.
    pub garbage_ratio: f64,
    /// Tables whose `oldest_blob_file` is the oldest blob file, as
    /// (level, table number), sorted: these are marked for compaction.
    pub tables: Vec<(usize, u64)>,
}

/// Applies `blob_garbage_collection_force_threshold` (RocksDB's rule before
/// 9.7): if the garbage ratio of the oldest batch of age-eligible blob files
/// is at least `force_threshold`, the tables linked to the oldest blob file
/// (those that keep it alive) should be compacted, so that compaction
/// relocates their blobs and the file can be dropped.
///
/// Off (returns `None`) when `age_cutoff <= 0`, `force_threshold >= 1`, no
/// file is eligible, or no table links to the oldest blob file. The batch
/// is the oldest file plus the following eligible files that have no linked
/// table (their blobs are referenced only by tables linked to an older
/// file). The caller skips tables already being compacted.
pub fn forced_blob_gc(
    blob_files: &[BlobFileState],
    tables: &[TableBlobLink],
    age_cutoff: f64,
    force_threshold: f64,
) -> Option<ForcedBlobGc> {
    if eligible_count(blob_files.len(), age_cutoff) == 0
        || force_threshold.is_nan()
        || force_threshold >= 1.0
    {
        return None;
    }
    let mut files = blob_files.to_vec();
    files.sort_unstable_by_key(|f| f.number);
    let eligible = eligible_count(files.len(), age_cutoff);
    let oldest = files.first().filter(|_| eligible > 0)?;
    let linked = |n: u64| tables.iter().filter(move |t| t.oldest_blob_file == n);
    let mut marked: Vec<(usize, u64)> =
        linked(oldest.number).map(|t| (t.level, t.number)).collect();
    if marked.is_empty() {
        return None;
    }
    marked.sort_unstable();
    let mut batch = vec![oldest.number];
    let mut total = oldest.total_blob_bytes;
    let mut garbage = oldest.garbage_blob_bytes;
    for f in files.iter().take(eligible).skip(1) {
        if linked(f.number).next().is_some() {
            break;
        }
        batch.push(f.number);
        total = total.saturating_add(f.total_blob_bytes);
        garbage = garbage.saturating_add(f.garbage_blob_bytes);
    }
    let ratio = if total == 0 {
        0.0
    } else {
        garbage as f64 / total as f64
    };
    if (garbage as f64) < force_threshold * total as f64 {
        return None;
    }
    Some(ForcedBlobGc {
        blob_files: batch,
        garbage_ratio: ratio,
        tables: marked,
    })
}

/// Blob files that can be deleted, ascending: files older than the oldest
/// blob file any table links to (nothing can reference them; all of them
/// when no table references a blob file), and files no table links to
/// whose blobs are all garbage.
pub fn obsolete_blob_files(blob_files: &[BlobFileState], tables: &[TableBlobLink]) -> Vec<u64> {
    let min_linked = tables
        .iter()
        .map(|t| t.oldest_blob_file)
        .filter(|&n| n != 0)
        .min();
    let mut out: Vec<u64> = blob_files
        .iter()
        .filter(|f| {
            let unreachable = min_linked.is_none_or(|m| f.number < m);
            let has_links = tables.iter().any(|t| t.oldest_blob_file == f.number);
            unreachable || (!has_links && f.garbage_blob_count >= f.total_blob_count)
        })
        .map(|f| f.number)
        .collect();
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(number: u64, total: u64, garbage: u64) -> BlobFileState {
        BlobFileState {
            number,
            total_blob_count: total / 100,
            total_blob_bytes: total,
            garbage_blob_count: garbage / 100,
            garbage_blob_bytes: garbage,
        }
    }

    fn sst(level: usize, number: u64, oldest: u64) -> TableBlobLink {
        TableBlobLink {
            level,
            number,
            oldest_blob_file: oldest,
        }
    }

    #[test]
    fn cutoff_golden() {
        let files = [40, 10, 20, 30, 50, 60, 70, 80];
        // (age_cutoff, cutoff, eligible)
        let golden: [(f64, u64, &[u64]); 7] = [
            (0.0, 10, &[]),
            (0.1, 10, &[]), // floor(0.8) = 0
            (0.125, 20, &[10]),
            (0.25, 30, &[10, 20]),
            (0.5, 50, &[10, 20, 30, 40]),
            (1.0, u64::MAX, &[10, 20, 30, 40, 50, 60, 70, 80]),
            (f64::NAN, 10, &[]),
        ];
        for (age, cutoff, eligible) in golden {
            assert_eq!(gc_cutoff_file_number(&files, age), cutoff, "age {age}");
            assert_eq!(eligible_blob_files(&files, age), eligible, "age {age}");
            for &n in &files {
                assert_eq!(should_relocate(n, cutoff), eligible.contains(&n));
            }
        }
        assert_eq!(gc_cutoff_file_number(&[], 0.25), u64::MAX);
    }

    #[test]
    fn force_threshold_golden() {
        // Blob files 1..=8; file 1 linked by two tables, 2 and 3 by none
        // (their blobs are referenced by tables linked to 1), 4 by one.
        // Each holds 1000 bytes; 4..=8 have no garbage.
        let mut files = vec![file(1, 1000, 900), file(2, 1000, 500), file(3, 1000, 700)];
        files.extend((4..=8).map(|n| file(n, 1000, 0)));
        let tables = [
            sst(2, 101, 1),
            sst(1, 102, 1),
            sst(1, 103, 4),
            sst(3, 104, 0),
            sst(3, 105, 6),
        ];
        // age 0.5: eligible 1..=4; batch 1,2,3 (stops at 4, which is linked):
        // garbage 2100 / 3000 = 0.7.
        let g = forced_blob_gc(&files, &tables, 0.5, 0.7).unwrap();
        assert_eq!(g.blob_files, vec![1, 2, 3]);
        assert!((g.garbage_ratio - 0.7).abs() < 1e-12);
        assert_eq!(g.tables, vec![(1, 102), (2, 101)]);
        assert_eq!(forced_blob_gc(&files, &tables, 0.5, 0.71), None);
        // age 0.25: eligible 1,2: batch 1,2: 1400/2000 = 0.7.
        let g = forced_blob_gc(&files, &tables, 0.25, 0.7).unwrap();
        assert_eq!(g.blob_files, vec![1, 2]);
        // age 0.125: batch is file 1 alone: 0.9.
        let g = forced_blob_gc(&files, &tables, 0.125, 0.85).unwrap();
        assert_eq!(g.blob_files, vec![1]);
        // Off: threshold 1.0, age 0, or too few files to be eligible.
        assert_eq!(forced_blob_gc(&files, &tables, 0.5, 1.0), None);
        assert_eq!(forced_blob_gc(&files, &tables, 0.0, 0.1), None);
        assert_eq!(forced_blob_gc(&files, &tables, 0.1, 0.1), None);
        // No table links to the oldest file: nothing to compact.
        assert_eq!(forced_blob_gc(&files, &tables[2..], 0.5, 0.1), None);
        // Input order does not matter.
        let mut rev = files.clone();
        rev.reverse();
        assert_eq!(
            forced_blob_gc(&rev, &tables, 0.5, 0.7),
            forced_blob_gc(&files, &tables, 0.5, 0.7)
        );
    }

    #[test]
    fn obsolete_files_golden() {
        let files = [
            file(1, 1000, 100),  // older than every link: obsolete
            file(2, 1000, 0),    // linked
            file(3, 1000, 1000), // unlinked and all garbage: obsolete
            file(4, 1000, 999),  // unlinked, some live blobs: kept
            file(5, 1000, 1000), // linked, so kept even though all garbage
        ];
        let tables = [sst(1, 10, 2), sst(2, 11, 5), sst(2, 12, 0)];
        assert_eq!(obsolete_blob_files(&files, &tables), vec![1, 3]);
        // No table references a blob file: all are obsolete.
        assert_eq!(
            obsolete_blob_files(&files, &[sst(0, 9, 0)]),
            vec![1, 2, 3, 4, 5]
        );
        assert!(obsolete_blob_files(&[], &tables).is_empty());
    }
}
