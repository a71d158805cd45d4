//! Shared helpers for Strata's fuzz targets: in-memory files, a table
//! builder, iterator drivers and a small byte reader for structured inputs.
//!
//! The targets themselves live in `fuzz_targets/`; see `docs/fuzzing.md`.

use std::sync::{Arc, Mutex};

use strata::fs::{RandomAccessFile, WritableFile};
use strata::tools::sstable::{TableBuilder, TableOptions};
use strata::tools::InternalIterator;
use strata::{CompressionType, Error, Result};

/// A read-only file held in memory.
#[derive(Debug)]
pub struct MemFile(pub Vec<u8>);

impl RandomAccessFile for MemFile {
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let start = usize::try_from(offset).unwrap_or(usize::MAX);
        match start
            .checked_add(len)
            .and_then(|end| self.0.get(start..end))
        {
            Some(b) => Ok(b.to_vec()),
            None => Err(Error::corruption("fuzz.sst", offset, "read past end")),
        }
    }
    fn size(&self) -> u64 {
        self.0.len() as u64
    }
}

/// A writable file whose bytes land in a shared vector.
pub struct MemWritable(pub Arc<Mutex<Vec<u8>>>);

impl WritableFile for MemWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        if let Ok(mut v) = self.0.lock() {
            v.extend_from_slice(data);
        }
        Ok(())
    }
    fn flush(&mut self) -> Result<()> {
        Ok(())
    }
    fn sync(&mut self) -> Result<()> {
        Ok(())
    }
    fn size(&self) -> u64 {
        self.0.lock().map(|v| v.len() as u64).unwrap_or(0)
    }
}

/// Builds a table in memory from sorted, unique internal keys.
pub fn build_table(opts: &TableOptions, entries: &[(Vec<u8>, Vec<u8>)]) -> Result<Vec<u8>> {
    let buf = Arc::new(Mutex::new(Vec::new()));
    let mut b = TableBuilder::new(
        opts,
        Box::new(MemWritable(buf.clone())),
        "fuzz.sst".to_string(),
    );
    for (k, v) in entries {
        b.add(k, v)?;
    }
    b.finish()?;
    let data = buf.lock().map(|v| v.clone()).unwrap_or_default();
    Ok(data)
}

/// Writes `records` as a WAL (or MANIFEST) file with the engine's writer.
pub fn build_log(records: &[Vec<u8>]) -> Result<Vec<u8>> {
    let buf = Arc::new(Mutex::new(Vec::new()));
    let mut w = strata::tools::wal::Writer::new(Box::new(MemWritable(buf.clone())));
    for r in records {
        w.add_record(r)?;
    }
    w.flush()?;
    drop(w);
    let data = buf.lock().map(|v| v.clone()).unwrap_or_default();
    Ok(data)
}

/// Walks `it` forward and backward and seeks to a few targets, with a
/// step budget so a corrupt structure cannot make the walk unbounded.
/// Returns the keys seen on the forward walk.
pub fn drive_iter(it: &mut dyn InternalIterator, targets: &[&[u8]]) -> Vec<Vec<u8>> {
    const BUDGET: usize = 100_000;
    let mut keys = Vec::new();
    it.seek_to_first();
    while it.valid() && keys.len() < BUDGET {
        keys.push(it.key().to_vec());
        let _ = it.value();
        it.next();
    }
    let _ = it.status();
    let mut n = 0;
    it.seek_to_last();
    while it.valid() && n < BUDGET {
        let _ = (it.key(), it.value());
        it.prev();
        n += 1;
    }
    let _ = it.status();
    for t in targets {
        it.seek(t);
        if it.valid() {
            let _ = (it.key(), it.value());
            it.next();
            if it.valid() {
                it.prev();
            }
        }
        it.seek_for_prev(t);
        if it.valid() {
            let _ = (it.key(), it.value());
            it.prev();
        }
        let _ = it.status();
    }
    keys
}

/// A temporary directory for a DB: in `$STRATA_FUZZ_TMPDIR` if set, else in
/// `/dev/shm` when it exists (tmpfs: fsync is free, so many more executions
/// per second), else in the system temp directory.
pub fn scratch_dir() -> std::io::Result<tempfile::TempDir> {
    if let Some(d) = std::env::var_os("STRATA_FUZZ_TMPDIR") {
        return tempfile::tempdir_in(d);
    }
    let shm = std::path::Path::new("/dev/shm");
    if shm.is_dir() {
        if let Ok(d) = tempfile::tempdir_in(shm) {
            return Ok(d);
        }
    }
    tempfile::tempdir()
}

/// A cursor over fuzz input bytes that yields zeros once exhausted.
#[derive(Debug)]
pub struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Bytes<'a> {
    /// A cursor at the start of `data`.
    pub fn new(data: &'a [u8]) -> Self {
        Bytes { data, pos: 0 }
    }
    /// True when every byte has been consumed.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }
    /// The next byte (0 past the end).
    pub fn u8(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }
    /// Two bytes, little-endian.
    pub fn u16(&mut self) -> u16 {
        u16::from(self.u8()) | (u16::from(self.u8()) << 8)
    }
    /// Up to `n` bytes (fewer at the end of the input).
    pub fn take(&mut self, n: usize) -> &'a [u8] {
        let start = self.pos.min(self.data.len());
        let end = start.saturating_add(n).min(self.data.len());
        self.pos = self.pos.saturating_add(n);
        &self.data[start..end]
    }
    /// Everything left.
    pub fn rest(&mut self) -> &'a [u8] {
        let start = self.pos.min(self.data.len());
        self.pos = self.data.len();
        &self.data[start..]
    }
}

/// Picks a compression type from a byte.
pub fn compression_of(b: u8) -> CompressionType {
    CompressionType::ALL[usize::from(b) % CompressionType::ALL.len()]
}
