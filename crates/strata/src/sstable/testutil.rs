//! In-memory files and table-building helpers for the sstable tests.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::error::{Error, Result};
use crate::fs::{RandomAccessFile, WritableFile};
use crate::stats::Statistics;

use super::block_cache::BlockCache;
use super::reader::Table;
use super::writer::{TableBuilder, TableInfo, TableOptions};

/// A writable file whose bytes land in a shared vector.
pub struct MemWritable(pub Arc<Mutex<Vec<u8>>>, pub Arc<AtomicU64>);

impl WritableFile for MemWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        self.0.lock().extend_from_slice(data);
        Ok(())
    }
    fn flush(&mut self) -> Result<()> {
        Ok(())
    }
    fn sync(&mut self) -> Result<()> {
        self.1.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
    fn size(&self) -> u64 {
        self.0.lock().len() as u64
    }
}

/// A read-only in-memory file that counts its reads.
#[derive(Debug)]
pub struct MemFile {
    pub data: Vec<u8>,
    pub reads: AtomicU64,
}

impl MemFile {
    pub fn new(data: Vec<u8>) -> Arc<MemFile> {
        Arc::new(MemFile {
            data,
            reads: AtomicU64::new(0),
        })
    }
}

impl RandomAccessFile for MemFile {
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        self.reads.fetch_add(1, Ordering::Relaxed);
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        match start
            .checked_add(len)
            .and_then(|end| self.data.get(start..end))
        {
            Some(b) => Ok(b.to_vec()),
            None => Err(Error::corruption("mem", offset, "read past end")),
        }
    }
    fn size(&self) -> u64 {
        self.data.len() as u64
    }
}

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
        Box::new(MemWritable(buf.clone(), syncs.clone())),
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
