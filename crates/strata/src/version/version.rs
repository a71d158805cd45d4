//! An immutable [`Version`]: the set of table files in each level at one
//! point in time. Readers hold an `Arc<Version>`; nothing mutates a
//! published version. A new version is made by applying a
//! [`VersionEdit`] with [`VersionBuilder`].

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::edit::{BlobFileAddition, FileMetaData, VersionEdit};
use crate::blob::gc_policy::{BlobFileState, TableBlobLink};
use crate::error::{Error, Result};
use crate::filename::FileNumber;
use crate::types::{compare_internal_keys, is_range_end_bound, user_key};

/// The table files of every level. L0 is ordered newest first (by largest
/// sequence number); every other level is ordered by smallest key and its
/// files do not overlap.
#[derive(Debug, Clone, Default)]
pub struct Version {
    /// Files per level.
    pub levels: Vec<Vec<Arc<FileMetaData>>>,
    /// Live blob files by number, with their garbage so far.
    pub blob_files: BTreeMap<FileNumber, BlobFileMeta>,
}

/// A live blob file: what the MANIFEST recorded when it was added, and the
/// garbage compactions have reported since.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlobFileMeta {
    /// Totals and garbage, as the GC policy sees them.
    pub state: BlobFileState,
    /// CRC32C of the whole file, from the writer.
    pub checksum: u32,
}

impl Version {
    /// An empty version with `num_levels` levels.
    pub fn new(num_levels: usize) -> Self {
        Version {
            levels: vec![Vec::new(); num_levels],
            blob_files: BTreeMap::new(),
        }
    }

    /// Adds every table and blob file of the version to `e` as new files
    /// (with the blob files' garbage): the edit that rebuilds the version
    /// from an empty one.
    pub fn add_all_to(&self, e: &mut crate::version::edit::VersionEdit) {
        for (level, files) in self.levels.iter().enumerate() {
            for f in files {
                e.new_files.push((level, (**f).clone()));
            }
        }
        for b in self.blob_files.values() {
            e.blob_file_additions
                .push(crate::version::edit::BlobFileAddition {
                    number: b.state.number,
                    total_blob_count: b.state.total_blob_count,
                    total_blob_bytes: b.state.total_blob_bytes,
                    checksum: b.checksum,
                });
            if b.state.garbage_blob_count > 0 || b.state.garbage_blob_bytes > 0 {
                e.blob_file_garbage
                    .push(crate::version::edit::BlobFileGarbage {
                        number: b.state.number,
                        garbage_blob_count: b.state.garbage_blob_count,
                        garbage_blob_bytes: b.state.garbage_blob_bytes,
                    });
            }
        }
    }

    /// Every live blob file's state, ascending by number.
    pub fn blob_file_states(&self) -> Vec<BlobFileState> {
        self.blob_files.values().map(|b| b.state).collect()
    }

    /// Every table with the oldest blob file it references.
    pub fn table_blob_links(&self) -> Vec<TableBlobLink> {
        let mut out = Vec::new();
        for (level, files) in self.levels.iter().enumerate() {
            for f in files {
                out.push(TableBlobLink {
                    level,
                    number: f.number,
                    oldest_blob_file: f.oldest_blob_file,
                });
            }
        }
        out
    }

    /// Number of levels.
    pub fn num_levels(&self) -> usize {
        self.levels.len()
    }

    /// Files in `level`.
    pub fn files(&self, level: usize) -> &[Arc<FileMetaData>] {
        self.levels.get(level).map_or(&[], |v| v.as_slice())
    }

    /// Total bytes of the files in `level`.
    pub fn level_bytes(&self, level: usize) -> u64 {
        self.files(level).iter().map(|f| f.file_size).sum()
    }

    /// Total bytes of all table files.
    pub fn total_bytes(&self) -> u64 {
        (0..self.num_levels()).map(|l| self.level_bytes(l)).sum()
    }

    /// Every live table file number.
    pub fn live_files(&self, out: &mut BTreeSet<FileNumber>) {
        for level in &self.levels {
            out.extend(level.iter().map(|f| f.number));
        }
        out.extend(self.blob_files.keys().copied());
    }

    /// Files of `level` whose user-key range intersects `[begin, end]`
    /// (`None` = unbounded). For L0 the result is in newest-first order.
    pub fn overlapping_files(
        &self,
        level: usize,
        begin: Option<&[u8]>,
        end: Option<&[u8]>,
    ) -> Vec<Arc<FileMetaData>> {
        self.files(level)
            .iter()
            .filter(|f| {
                let before = end.is_some_and(|e| user_key(&f.smallest) > e);
                let after = begin.is_some_and(|b| user_key(&f.largest) < b);
                !before && !after
            })
            .cloned()
            .collect()
    }

    /// The grandparents of a compaction into `output_level` over user keys
    /// `[begin, end]`: the files of the first level below `output_level`
    /// that has any file in that range (RocksDB's `GetGrandparents`; not
    /// just `output_level + 1`, which may be empty while a deeper level is
    /// not). Empty when no deeper level overlaps the range.
    pub fn grandparents(
        &self,
        output_level: usize,
        begin: &[u8],
        end: &[u8],
    ) -> Vec<Arc<FileMetaData>> {
        (output_level + 1..self.num_levels())
            .map(|l| self.overlapping_files(l, Some(begin), Some(end)))
            .find(|files| !files.is_empty())
            .unwrap_or_default()
    }

    /// Index of the first file in a sorted level (>= 1) whose largest key is
    /// `>= ikey`.
    pub fn find_file(&self, level: usize, ikey: &[u8]) -> usize {
        self.files(level)
            .partition_point(|f| compare_internal_keys(&f.largest, ikey) == Ordering::Less)
    }

    /// True if no level deeper than `level` holds a file that may contain
    /// `ukey` (so a tombstone for it at `level` can be dropped).
    pub fn is_bottommost_for_key(&self, level: usize, ukey: &[u8]) -> bool {
        for l in level + 1..self.num_levels() {
            let files = self.files(l);
            let i = files.partition_point(|f| user_key(&f.largest) < ukey);
            if let Some(f) = files.get(i) {
                if user_key(&f.smallest) <= ukey {
                    return false;
                }
            }
        }
        true
    }

    /// Bytes of the files no older data may overlap (RocksDB's
    /// `BottommostFiles`, by its `RangeMightExistAfterSortedRun`): a file of
    /// L1 or deeper counts when no file of a deeper level meets its key
    /// range; an L0 file only when it is the oldest L0 file and every
    /// deeper level is empty.
    pub fn bottommost_bytes(&self) -> u64 {
        let deeper_empty =
            |level: usize| (level + 1..self.num_levels()).all(|l| self.files(l).is_empty());
        let mut total = 0;
        if let Some(oldest) = self.files(0).last() {
            if deeper_empty(0) {
                total += oldest.file_size;
            }
        }
        for level in 1..self.num_levels() {
            for f in self.files(level) {
                let (lo, hi) = (user_key(&f.smallest), user_key(&f.largest));
                let deeper = (level + 1..self.num_levels()).any(|l| {
                    let below = self.files(l);
                    let j = below.partition_point(|g| user_key(&g.largest) < lo);
                    below.get(j).is_some_and(|g| user_key(&g.smallest) <= hi)
                });
                if !deeper {
                    total += f.file_size;
                }
            }
        }
        total
    }

    /// Checks the level invariants (sorted, non-overlapping above L0).
    pub fn check_invariants(&self) -> Result<()> {
        for (level, files) in self.levels.iter().enumerate().skip(1) {
            for w in files.windows(2) {
                // A largest key at sequence number 2^56-1 is the exclusive
                // end of a range tombstone: the next file may start at it.
                let (a, b) = (user_key(&w[0].largest), user_key(&w[1].smallest));
                if a > b || (a == b && !is_range_end_bound(&w[0].largest)) {
                    return Err(Error::corruption(
                        "MANIFEST",
                        0,
                        format!(
                            "files {} and {} overlap in level {level}",
                            w[0].number, w[1].number
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}

/// Accumulates edits on top of a base version.
pub struct VersionBuilder {
    num_levels: usize,
    levels: Vec<BTreeMap<FileNumber, Arc<FileMetaData>>>,
    blob_files: BTreeMap<FileNumber, BlobFileMeta>,
}

impl VersionBuilder {
    /// Starts from `base`.
    pub fn new(base: &Version) -> Self {
        VersionBuilder {
            num_levels: base.num_levels(),
            levels: base
                .levels
                .iter()
                .map(|files| files.iter().map(|f| (f.number, f.clone())).collect())
                .collect(),
            blob_files: base.blob_files.clone(),
        }
    }

    /// Applies one edit.
    ///
    /// # Errors
    /// Corruption if the edit names a level out of range or deletes a file
    /// that is not there.
    pub fn apply(&mut self, edit: &VersionEdit) -> Result<()> {
        for &(level, number) in &edit.deleted_files {
            let removed = self.levels.get_mut(level).and_then(|l| l.remove(&number));
            if removed.is_none() {
                return Err(Error::corruption(
                    "MANIFEST",
                    0,
                    format!("edit deletes file {number} which is not in level {level}"),
                ));
            }
        }
        for (level, f) in &edit.new_files {
            let slot = self.levels.get_mut(*level).ok_or_else(|| {
                Error::corruption(
                    "MANIFEST",
                    0,
                    format!(
                        "edit adds file {} to level {level}, beyond num_levels={}",
                        f.number, self.num_levels
                    ),
                )
            })?;
            slot.insert(f.number, Arc::new(f.clone()));
        }
        for a in &edit.blob_file_additions {
            let BlobFileAddition {
                number,
                total_blob_count,
                total_blob_bytes,
                checksum,
            } = *a;
            self.blob_files.insert(
                number,
                BlobFileMeta {
                    state: BlobFileState {
                        number,
                        total_blob_count,
                        total_blob_bytes,
                        garbage_blob_count: 0,
                        garbage_blob_bytes: 0,
                    },
                    checksum,
                },
            );
        }
        for g in &edit.blob_file_garbage {
            let meta = self.blob_files.get_mut(&g.number).ok_or_else(|| {
                Error::corruption(
                    "MANIFEST",
                    0,
                    format!(
                        "edit adds garbage to blob file {} which is not live",
                        g.number
                    ),
                )
            })?;
            let st = &mut meta.state;
            st.garbage_blob_count = st.garbage_blob_count.saturating_add(g.garbage_blob_count);
            st.garbage_blob_bytes = st.garbage_blob_bytes.saturating_add(g.garbage_blob_bytes);
            if st.garbage_blob_count > st.total_blob_count
                || st.garbage_blob_bytes > st.total_blob_bytes
            {
                return Err(Error::corruption(
                    "MANIFEST",
                    0,
                    format!("blob file {} has more garbage than blobs", g.number),
                ));
            }
        }
        for n in &edit.deleted_blob_files {
            if self.blob_files.remove(n).is_none() {
                return Err(Error::corruption(
                    "MANIFEST",
                    0,
                    format!("edit deletes blob file {n} which is not live"),
                ));
            }
        }
        Ok(())
    }

    /// Builds the resulting version.
    pub fn build(self) -> Version {
        let mut levels: Vec<Vec<Arc<FileMetaData>>> = self
            .levels
            .into_iter()
            .map(|m| m.into_values().collect())
            .collect();
        if let Some(l0) = levels.first_mut() {
            l0.sort_by(|a, b| {
                b.largest_seq
                    .cmp(&a.largest_seq)
                    .then(b.number.cmp(&a.number))
            });
        }
        for l in levels.iter_mut().skip(1) {
            l.sort_by(|a, b| compare_internal_keys(&a.smallest, &b.smallest));
        }
        Version {
            levels,
            blob_files: self.blob_files,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::testutil::file_meta;

    fn meta(number: u64, small: &str, large: &str, seq: u64) -> FileMetaData {
        file_meta(number, small, large, seq, 100)
    }

    /// Regression: output files were cut only at the boundaries of
    /// `output_level + 1`, so with that level empty (a tree like
    /// `0 2 0 4` after moves) an L0 -> L1 job ignored the deeper level's
    /// files, where RocksDB cuts at the first deeper level with files.
    #[test]
    fn grandparents_are_the_first_deeper_level_with_files_in_range() {
        use crate::compaction::testutil::{meta as gp_meta, version_with};
        let v = version_with(
            4,
            &[
                (1, gp_meta(1, "a", "m", 100)),
                (3, gp_meta(2, "a", "f", 300)),
                (3, gp_meta(3, "g", "p", 300)),
                (3, gp_meta(4, "q", "z", 300)),
            ],
        );
        let numbers = |files: Vec<Arc<FileMetaData>>| -> Vec<u64> {
            files.iter().map(|f| f.number).collect()
        };
        assert_eq!(numbers(v.grandparents(1, b"a", b"h")), vec![2, 3]);
        assert_eq!(numbers(v.grandparents(0, b"a", b"h")), vec![1]);
        assert_eq!(numbers(v.grandparents(2, b"a", b"h")), vec![2, 3]);
        assert!(v.grandparents(3, b"a", b"h").is_empty());
        // L2 has a file outside the range only: L3 is still the one.
        let w = version_with(
            4,
            &[
                (2, gp_meta(6, "x", "z", 10)),
                (3, gp_meta(2, "a", "f", 300)),
            ],
        );
        assert_eq!(numbers(w.grandparents(1, b"a", b"c")), vec![2]);
    }

    #[test]
    fn builder_applies_adds_and_deletes() {
        let mut b = VersionBuilder::new(&Version::new(3));
        let mut e = VersionEdit::default();
        e.new_files.push((0, meta(1, "a", "m", 1)));
        e.new_files.push((0, meta(2, "c", "z", 5)));
        e.new_files.push((1, meta(3, "n", "p", 0)));
        e.new_files.push((1, meta(4, "a", "f", 0)));
        b.apply(&e).unwrap();
        let v = b.build();
        assert_eq!(v.files(0)[0].number, 2, "L0 newest first");
        assert_eq!(v.files(1)[0].number, 4, "L1 by smallest key");
        v.check_invariants().unwrap();
        assert_eq!(v.overlapping_files(1, Some(b"g"), Some(b"o")).len(), 1);
        assert!(!v.is_bottommost_for_key(0, b"b"));
        assert!(v.is_bottommost_for_key(0, b"h"));
        let mut b = VersionBuilder::new(&v);
        let mut e = VersionEdit::default();
        e.deleted_files.push((1, 99));
        assert!(b.apply(&e).is_err());
    }

    #[test]
    fn bottommost_bytes_follows_rocksdb() {
        let mut b = VersionBuilder::new(&Version::new(3));
        let mut e = VersionEdit::default();
        e.new_files.push((0, meta(1, "a", "c", 9))); // newest L0: over file 2
        e.new_files.push((0, meta(2, "b", "d", 5))); // older L0: over L2's "d"
        e.new_files.push((0, meta(3, "x", "y", 1))); // nothing older there
        e.new_files.push((1, meta(4, "e", "f", 0))); // over L2's "f"
        e.new_files.push((1, meta(5, "m", "n", 0))); // nothing below
        e.new_files.push((2, meta(6, "d", "f", 0)));
        e.new_files.push((2, meta(7, "g", "h", 0)));
        b.apply(&e).unwrap();
        let v = b.build();
        // Files 5, 6 and 7, 100 bytes each: no L0 file counts while deeper
        // levels hold files, even one nothing overlaps (RocksDB's rule).
        assert_eq!(v.bottommost_bytes(), 300);
        assert_eq!(Version::new(3).bottommost_bytes(), 0);
        // L0 alone: only its oldest file.
        let mut b = VersionBuilder::new(&Version::new(3));
        let e = VersionEdit {
            new_files: vec![(0, meta(1, "a", "c", 9)), (0, meta(2, "x", "y", 5))],
            ..VersionEdit::default()
        };
        b.apply(&e).unwrap();
        assert_eq!(b.build().bottommost_bytes(), 100);
    }
}
