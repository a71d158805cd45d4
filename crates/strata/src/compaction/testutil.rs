//! Test helpers shared by the pickers' tests: files and versions in one
//! line.

use crate::version::edit::{FileMetaData, VersionEdit};
use crate::version::testutil::file_meta;
use crate::version::{Version, VersionBuilder};

/// A file spanning user keys `small..=large` whose sequence number is its
/// file number (so a bigger number is newer).
pub fn meta(number: u64, small: &str, large: &str, size: u64) -> FileMetaData {
    file_meta(number, small, large, number, size)
}

/// A version of `num_levels` levels holding `files` as (level, file).
pub fn version_with(num_levels: usize, files: &[(usize, FileMetaData)]) -> Version {
    let mut b = VersionBuilder::new(&Version::new(num_levels));
    let e = VersionEdit {
        new_files: files.to_vec(),
        ..VersionEdit::default()
    };
    b.apply(&e).expect("test files fit the levels");
    b.build()
}

/// L0 files of the given sizes spanning "a".."z", newest first (numbers
/// 100, 99, ...).
pub fn l0(sizes: &[u64]) -> Vec<(usize, FileMetaData)> {
    sizes
        .iter()
        .enumerate()
        .map(|(i, &s)| (0, meta(100 - i as u64, "a", "z", s)))
        .collect()
}
