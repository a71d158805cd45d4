//! Table-building helpers for the sstable tests, over the in-memory files
//! of `fs::testutil`, and incompressible test data.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::error::Result;
use crate::fs::testutil::{MemFile, MemWritable};
use crate::stats::Statistics;

use super::block_cache::BlockCache;
use super::reader::Table;
use super::writer::{TableBuilder, TableInfo, TableOptions};

/// Builds a table from sorted (internal key, value) pairs; returns the
/// bytes, the info and how many times the file was synced.
pub fn build_table(
    opts: &TableOptions,
    entries: &[(Vec<u8>, Vec<u8>)],
) -> (Vec<u8>, TableInfo, u64) {
    build_table_as(opts, entries, false)
}

/// As [`build_table`], with the index and footer version that builds before
/// format version 3 wrote (`legacy`), or this build's.
pub fn build_table_as(
    opts: &TableOptions,
    entries: &[(Vec<u8>, Vec<u8>)],
    legacy: bool,
) -> (Vec<u8>, TableInfo, u64) {
    let buf = Arc::new(Mutex::new(Vec::new()));
    let syncs = Arc::new(AtomicU64::new(0));
    let mut b = TableBuilder::new(
        opts,
        MemWritable::over(buf.clone(), syncs.clone()),
        "test.sst".to_string(),
    );
    if legacy {
        b = b.with_legacy_index();
    }
    for (k, v) in entries {
        b.add(k, v).unwrap();
    }
    let info = b.finish().unwrap();
    let data = buf.lock().clone();
    (data, info, syncs.load(Ordering::Relaxed))
}

/// As [`build_table`], with `tombstones` in the range-deletion block.
pub fn build_table_with_range_dels(
    opts: &TableOptions,
    entries: &[(Vec<u8>, Vec<u8>)],
    tombstones: crate::range_del::FragmentedTombstones,
) -> (Vec<u8>, TableInfo) {
    let buf = Arc::new(Mutex::new(Vec::new()));
    let syncs = Arc::new(AtomicU64::new(0));
    let mut b = TableBuilder::new(
        opts,
        MemWritable::over(buf.clone(), syncs),
        "test.sst".to_string(),
    );
    b.set_range_tombstones(tombstones);
    for (k, v) in entries {
        b.add(k, v).unwrap();
    }
    let info = b.finish().unwrap();
    let data = buf.lock().clone();
    (data, info)
}

/// Opens table bytes held in memory.
pub fn open_table(
    data: Vec<u8>,
    cache: Option<Arc<BlockCache>>,
    stats: Option<Arc<Statistics>>,
) -> Result<(Arc<Table>, Arc<MemFile>)> {
    let f = MemFile::new(data);
    let t = Table::open(f.clone(), 7, "test.sst".to_string(), cache, stats)?;
    Ok((Arc::new(t), f))
}

/// Writes table bytes to a file in `dir` and opens the table through a
/// memory map of it (`allow_mmap_reads`); returns the table and the file.
pub fn open_mapped_table(
    dir: &std::path::Path,
    data: &[u8],
    cache: Option<Arc<BlockCache>>,
    stats: Option<Arc<Statistics>>,
) -> Result<(Arc<Table>, Arc<dyn crate::fs::RandomAccessFile>)> {
    use crate::fs::FileSystem;
    let path = dir.join("000007.sst");
    std::fs::write(&path, data).expect("write the table file");
    let f = crate::fs::PosixFileSystem.open_random_mapped(&path)?;
    let name = path.display().to_string();
    let t = Table::open(f.clone(), 7, name, cache, stats)?;
    Ok((Arc::new(t), f))
}

/// `n` bytes of xorshift64 noise from `seed` (made odd, so that every seed
/// gives noise), which does not compress.
pub fn noise(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}
