//! [`Writer`]: appends logical records to a log file in 32 KiB blocks.

use super::format::{encode_header, RecordType, BLOCK_SIZE, HEADER_SIZE};
use crate::error::{Error, Result};
use crate::fs::WritableFile;

/// Appends records to a log (a WAL or a MANIFEST).
///
/// Records are buffered by the underlying file until [`Writer::flush`] or
/// [`Writer::sync`]; only `sync` makes them durable. After any I/O error the
/// writer refuses further appends: the file may end in a partial record, and
/// appending after it would turn a torn tail into mid-log corruption.
pub struct Writer {
    file: Box<dyn WritableFile>,
    /// Bytes already used in the current block.
    block_offset: usize,
    /// Set after an I/O error.
    failed: bool,
}

impl Writer {
    /// Writes a new log from the start of `file` (expected empty).
    pub fn new(file: Box<dyn WritableFile>) -> Self {
        let size = file.size();
        Self::new_at(file, size)
    }

    /// Continues a log whose first `existing_size` bytes are already written
    /// (reusing a WAL, or appending to an open MANIFEST). The existing content
    /// must end cleanly (at a record boundary).
    pub fn new_at(file: Box<dyn WritableFile>, existing_size: u64) -> Self {
        Writer {
            file,
            block_offset: (existing_size % BLOCK_SIZE as u64) as usize,
            failed: false,
        }
    }

    /// Appends one logical record; returns the bytes it took on disk
    /// (headers, payload, and any block-trailer padding written before it).
    pub fn add_record(&mut self, payload: &[u8]) -> Result<u64> {
        if self.failed {
            return Err(failed_error());
        }
        let buf = self.frame(payload);
        match self.file.append(&buf) {
            Ok(()) => Ok(buf.len() as u64),
            Err(e) => {
                self.failed = true;
                Err(e)
            }
        }
    }

    /// Builds the on-disk bytes of one logical record and advances the block
    /// offset. An empty payload still writes one FULL record.
    fn frame(&mut self, payload: &[u8]) -> Vec<u8> {
        let fragments = payload.len() / (BLOCK_SIZE - HEADER_SIZE) + 2;
        let mut out = Vec::with_capacity(payload.len() + fragments * HEADER_SIZE + HEADER_SIZE);
        let mut rest = payload;
        let mut begin = true;
        loop {
            let leftover = BLOCK_SIZE - self.block_offset;
            if leftover < HEADER_SIZE {
                // Too small for a header: zero-fill and start a new block.
                out.resize(out.len() + leftover, 0);
                self.block_offset = 0;
            }
            let avail = BLOCK_SIZE - self.block_offset - HEADER_SIZE;
            let n = rest.len().min(avail);
            let (chunk, tail) = rest.split_at(n);
            let end = tail.is_empty();
            let t = match (begin, end) {
                (true, true) => RecordType::Full,
                (true, false) => RecordType::First,
                (false, true) => RecordType::Last,
                (false, false) => RecordType::Middle,
            };
            out.extend_from_slice(&encode_header(t, chunk));
            out.extend_from_slice(chunk);
            self.block_offset += HEADER_SIZE + n;
            rest = tail;
            begin = false;
            if end {
                return out;
            }
        }
    }

    /// Pushes buffered records to the OS (not durable).
    pub fn flush(&mut self) -> Result<()> {
        if self.failed {
            return Err(failed_error());
        }
        self.file.flush().inspect_err(|_| self.failed = true)
    }

    /// Makes every record added so far durable.
    pub fn sync(&mut self) -> Result<()> {
        if self.failed {
            return Err(failed_error());
        }
        self.file.sync().inspect_err(|_| self.failed = true)
    }

    /// Bytes in the log file so far.
    pub fn size(&self) -> u64 {
        self.file.size()
    }
}

fn failed_error() -> Error {
    Error::io(
        "log writer",
        std::io::Error::other("an earlier write or sync of this log failed"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::{FileSystem, PosixFileSystem};

    #[test]
    fn sizes_and_block_padding() {
        let dir = tempfile::tempdir().unwrap();
        let fs = PosixFileSystem;
        let p = dir.path().join("log");
        let mut w = Writer::new(fs.create(&p).unwrap());
        assert_eq!(w.add_record(b"abc").unwrap(), 10);
        // Leave 6 bytes in the first block: the next record pads them.
        let fill = BLOCK_SIZE - 10 - HEADER_SIZE - 6;
        assert_eq!(w.add_record(&vec![1u8; fill]).unwrap(), (fill + 7) as u64);
        assert_eq!(w.add_record(b"x").unwrap(), 6 + 8);
        // A record spanning three blocks takes three headers.
        let big = vec![2u8; 2 * BLOCK_SIZE];
        assert_eq!(
            w.add_record(&big).unwrap(),
            (big.len() + 3 * HEADER_SIZE) as u64
        );
        w.sync().unwrap();
        assert_eq!(w.size(), fs.file_size(&p).unwrap());
        let data = fs.read_all(&p).unwrap();
        assert_eq!(&data[BLOCK_SIZE - 6..BLOCK_SIZE], &[0u8; 6]);
        assert_eq!(data[BLOCK_SIZE + 6], RecordType::Full as u8);
    }

    #[test]
    fn new_at_continues_block_alignment() {
        let dir = tempfile::tempdir().unwrap();
        let fs = PosixFileSystem;
        let p = dir.path().join("log");
        let mut w = Writer::new(fs.create(&p).unwrap());
        w.add_record(&vec![0u8; BLOCK_SIZE - 20]).unwrap();
        w.sync().unwrap();
        drop(w);
        let f = fs.reopen_for_append(&p).unwrap();
        let size = f.size();
        let mut w = Writer::new_at(f, size);
        // 13 bytes left: a 10-byte record must be split into FIRST + LAST.
        assert_eq!(w.add_record(&[7u8; 10]).unwrap(), 24);
        w.sync().unwrap();
        let data = fs.read_all(&p).unwrap();
        assert_eq!(data[BLOCK_SIZE - 13 + 6], RecordType::First as u8);
        assert_eq!(data[BLOCK_SIZE + 6], RecordType::Last as u8);
    }
}
