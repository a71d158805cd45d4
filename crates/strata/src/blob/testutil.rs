//! In-memory files for the blob tests.

use std::sync::Arc;

use parking_lot::Mutex;

use crate::error::{Error, Result};
use crate::fs::{RandomAccessFile, WritableFile};

/// A writable file whose bytes land in a shared vector; counts syncs.
pub struct MemWritable {
    pub data: Arc<Mutex<Vec<u8>>>,
    pub syncs: Arc<Mutex<u64>>,
    /// Appends fail once this many bytes would be exceeded.
    pub fail_after: Option<usize>,
}

impl MemWritable {
    pub fn new() -> (Box<MemWritable>, Arc<Mutex<Vec<u8>>>) {
        let data = Arc::new(Mutex::new(Vec::new()));
        (
            Box::new(MemWritable {
                data: data.clone(),
                syncs: Arc::new(Mutex::new(0)),
                fail_after: None,
            }),
            data,
        )
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
        *self.syncs.lock() += 1;
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
    pub reads: Mutex<u64>,
}

impl MemFile {
    pub fn new(data: Vec<u8>) -> Arc<MemFile> {
        Arc::new(MemFile {
            data,
            reads: Mutex::new(0),
        })
    }
}

impl RandomAccessFile for MemFile {
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        *self.reads.lock() += 1;
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
