//! In-memory files for the engine's unit tests (WAL, table and blob
//! files written and read without touching a disk).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::error::{Error, Result};
use crate::fs::{RandomAccessFile, WritableFile};

/// A writable file whose bytes land in a shared vector; counts syncs.
pub struct MemWritable {
    pub data: Arc<Mutex<Vec<u8>>>,
    pub syncs: Arc<AtomicU64>,
    /// Appends fail once this many bytes would be exceeded.
    pub fail_after: Option<usize>,
}

impl MemWritable {
    /// An empty file and the vector its bytes land in.
    pub fn new() -> (Box<MemWritable>, Arc<Mutex<Vec<u8>>>) {
        let data = Arc::new(Mutex::new(Vec::new()));
        (MemWritable::over(data.clone(), Arc::default()), data)
    }

    /// A file appending to `data` and counting its syncs in `syncs`.
    pub fn over(data: Arc<Mutex<Vec<u8>>>, syncs: Arc<AtomicU64>) -> Box<MemWritable> {
        Box::new(MemWritable {
            data,
            syncs,
            fail_after: None,
        })
    }
}

impl WritableFile for MemWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        let mut d = self.data.lock();
        if let Some(limit) = self.fail_after {
            if d.len() + data.len() > limit {
                return Err(Error::io(
                    "append",
                    std::io::Error::from_raw_os_error(libc::ENOSPC),
                ));
            }
        }
        d.extend_from_slice(data);
        Ok(())
    }
    fn flush(&mut self) -> Result<()> {
        Ok(())
    }
    fn sync(&mut self) -> Result<()> {
        self.syncs.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }
    fn size(&self) -> u64 {
        self.data.lock().len() as u64
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
            None => Err(Error::corruption("mem", offset, "read past end of file")),
        }
    }
    fn size(&self) -> u64 {
        self.data.len() as u64
    }
}
