//! Which block compression a table gets from the level it is written to:
//! `compression`, or the entry of `compression_per_level` for that level
//! (RocksDB's `GetCompressionType` and `GetCompressionFlush`).

use crate::options::Options;
use crate::sstable::CompressionType;

/// The compression of a table written to `level`, where `base_level` is
/// the level entry 1 of `compression_per_level` stands for (the leveled
/// base level; 1 under universal and FIFO compaction). L0 takes entry 0,
/// level `base_level + i` entry `1 + i`; a level between L0 and the base
/// level takes entry 0, and a level past the list's end its last entry.
/// With an empty list, `compression` for every level.
pub fn compression_for_level(o: &Options, level: usize, base_level: usize) -> CompressionType {
    let per_level = &o.compression_per_level;
    let Some(last) = per_level.len().checked_sub(1) else {
        return o.compression;
    };
    let index = if level == 0 {
        0
    } else {
        (level + 1).saturating_sub(base_level.max(1))
    };
    per_level[index.min(last)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sstable::CompressionType::{Lz4, None as No, Snappy, Zstd};

    fn with(per_level: Vec<CompressionType>) -> Options {
        Options {
            compression: Snappy,
            compression_per_level: per_level,
            ..Options::default()
        }
    }

    fn levels(o: &Options, base: usize) -> Vec<CompressionType> {
        (0..7).map(|l| compression_for_level(o, l, base)).collect()
    }

    #[test]
    fn an_empty_list_leaves_every_level_to_compression() {
        assert_eq!(levels(&with(vec![]), 1), [Snappy; 7]);
    }

    #[test]
    fn entries_count_from_the_base_level_and_the_last_one_repeats() {
        let o = with(vec![No, No, Lz4, Zstd]);
        assert_eq!(levels(&o, 1), [No, No, Lz4, Zstd, Zstd, Zstd, Zstd]);
        // Dynamic level bytes with base level 4: L1-L3 hold nothing and
        // take entry 0; L4 is entry 1.
        assert_eq!(levels(&o, 4), [No, No, No, No, No, Lz4, Zstd]);
        // A base level of 0 (universal's callers pass 1) counts as 1.
        assert_eq!(levels(&o, 0), levels(&o, 1));
    }
}
