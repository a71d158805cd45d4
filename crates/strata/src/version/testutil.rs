//! Test helpers for versions: table files described in one line.

use super::edit::FileMetaData;
use crate::types::{make_internal_key, ValueType};

/// A table file spanning user keys `small..=large`, all of its entries at
/// sequence number `seq`, `size` bytes.
pub(crate) fn file_meta(
    number: u64,
    small: &str,
    large: &str,
    seq: u64,
    size: u64,
) -> FileMetaData {
    FileMetaData {
        number,
        file_size: size,
        smallest: make_internal_key(small.as_bytes(), seq, ValueType::Value),
        largest: make_internal_key(large.as_bytes(), seq, ValueType::Value),
        smallest_seq: seq,
        largest_seq: seq,
        num_entries: 1,
        num_deletions: 0,
        oldest_blob_file: 0,
        newest_key_time: 0,
        wasted_reads: Default::default(),
    }
}
