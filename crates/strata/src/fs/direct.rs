//! O_DIRECT files for `use_direct_reads` and
//! `use_direct_io_for_flush_and_compaction`: every read and write is
//! aligned to [`ALIGN`] bytes from an aligned buffer, bypassing the page
//! cache.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::Path;

use super::{RandomAccessFile, WritableFile};
use crate::error::{Error, Result};

/// Alignment of offsets, lengths and buffers (covers 512-byte and 4 KiB
/// logical block sizes).
pub const ALIGN: usize = 4096;
/// Bytes buffered before a direct write.
const BUFFER: usize = 1 << 20;

/// A heap buffer whose start is aligned to [`ALIGN`].
struct AlignedBuf {
    raw: Vec<u8>,
    start: usize,
    len: usize,
    cap: usize,
}

impl AlignedBuf {
    fn new(cap: usize) -> Self {
        let cap = cap.div_ceil(ALIGN) * ALIGN;
        let raw = vec![0u8; cap + ALIGN];
        let start = raw.as_ptr().align_offset(ALIGN);
        AlignedBuf {
            raw,
            start,
            len: 0,
            cap,
        }
    }
    fn as_slice(&self) -> &[u8] {
        &self.raw[self.start..self.start + self.len]
    }
    fn full_slice_mut(&mut self) -> &mut [u8] {
        &mut self.raw[self.start..self.start + self.cap]
    }
}

fn is_einval(e: &std::io::Error) -> bool {
    e.raw_os_error() == Some(libc::EINVAL)
}

fn open_err(op: &str, path: &Path, e: std::io::Error) -> Error {
    if is_einval(&e) {
        Error::NotSupported(format!(
            "{op} {}: the file system refuses O_DIRECT (tmpfs does); turn off use_direct_reads / use_direct_io_for_flush_and_compaction",
            path.display()
        ))
    } else {
        Error::io(format!("{op} {}", path.display()), e)
    }
}

/// A file written with O_DIRECT. Appends are buffered; full aligned
/// chunks are written as they fill; `flush`/`sync` write the partial tail
/// block padded with zeros and then truncate the file to its true size
/// (the tail is kept in the buffer and rewritten by the next write).
pub struct DirectWritable {
    file: File,
    path: String,
    buf: AlignedBuf,
    /// File offset of `buf[0]` (always aligned).
    buf_offset: u64,
    size: u64,
}

impl DirectWritable {
    /// Creates (truncates) `path` with O_DIRECT.
    ///
    /// # Errors
    /// `NotSupported` if the file system refuses O_DIRECT; I/O errors.
    pub fn create(path: &Path) -> Result<Self> {
        let file = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .custom_flags(libc::O_DIRECT)
            .open(path)
            .map_err(|e| open_err("create (O_DIRECT)", path, e))?;
        Ok(DirectWritable {
            file,
            path: path.display().to_string(),
            buf: AlignedBuf::new(BUFFER),
            buf_offset: 0,
            size: 0,
        })
    }

    /// Writes the buffer (padded to alignment) at `buf_offset`; if
    /// `keep_tail`, the partial last block stays buffered.
    fn write_buffer(&mut self) -> Result<()> {
        if self.buf.len == 0 {
            return Ok(());
        }
        let padded = self.buf.len.div_ceil(ALIGN) * ALIGN;
        let len = self.buf.len;
        self.buf.full_slice_mut()[len..padded].fill(0);
        let start = self.buf.start;
        self.file
            .write_all_at(&self.buf.raw[start..start + padded], self.buf_offset)
            .map_err(|e| Error::io(format!("write (O_DIRECT) {}", self.path), e))?;
        // Keep the partial tail block buffered: the next write rewrites it.
        let full = len / ALIGN * ALIGN;
        if full > 0 {
            let start = self.buf.start;
            self.buf.raw.copy_within(start + full..start + len, start);
            self.buf.len = len - full;
            self.buf_offset += full as u64;
        }
        if padded != len {
            self.file
                .set_len(self.size)
                .map_err(|e| Error::io(format!("truncate {}", self.path), e))?;
        }
        Ok(())
    }
}

impl WritableFile for DirectWritable {
    fn append(&mut self, mut data: &[u8]) -> Result<()> {
        while !data.is_empty() {
            let room = self.buf.cap - self.buf.len;
            let n = room.min(data.len());
            let len = self.buf.len;
            self.buf.full_slice_mut()[len..len + n].copy_from_slice(&data[..n]);
            self.buf.len += n;
            self.size += n as u64;
            data = &data[n..];
            if self.buf.len == self.buf.cap {
                self.write_buffer()?;
            }
        }
        Ok(())
    }
    fn flush(&mut self) -> Result<()> {
        self.write_buffer()
    }
    fn sync(&mut self) -> Result<()> {
        self.write_buffer()?;
        self.file
            .sync_data()
            .map_err(|e| Error::io(format!("fdatasync {}", self.path), e))
    }
    fn size(&self) -> u64 {
        self.size
    }
}

impl Drop for DirectWritable {
    fn drop(&mut self) {
        let _ = self.write_buffer();
    }
}

/// A file read with O_DIRECT: each read is widened to aligned bounds.
pub struct DirectRandom {
    file: File,
    path: String,
    size: u64,
}

impl DirectRandom {
    /// Opens `path` for O_DIRECT reads.
    ///
    /// # Errors
    /// `NotSupported` if the file system refuses O_DIRECT; I/O errors.
    pub fn open(path: &Path) -> Result<Self> {
        let file = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECT)
            .open(path)
            .map_err(|e| open_err("open (O_DIRECT)", path, e))?;
        let size = file
            .metadata()
            .map_err(|e| Error::io(format!("stat {}", path.display()), e))?
            .len();
        Ok(DirectRandom {
            file,
            path: path.display().to_string(),
            size,
        })
    }
}

impl RandomAccessFile for DirectRandom {
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let end = offset + len as u64;
        if end > self.size {
            return Err(Error::corruption(
                &self.path,
                offset,
                format!("read of {len} bytes past end of file (size {})", self.size),
            ));
        }
        let a = ALIGN as u64;
        let start = offset / a * a;
        let stop = end.div_ceil(a) * a;
        let mut buf = AlignedBuf::new((stop - start) as usize);
        let want = (end - start) as usize;
        let mut got = 0usize;
        while got < want {
            let slice = &mut buf.full_slice_mut()[got..];
            let n = self
                .file
                .read_at(slice, start + got as u64)
                .map_err(|e| Error::io(format!("read (O_DIRECT) {}", self.path), e))?;
            if n == 0 {
                break;
            }
            got += n;
        }
        if got < want {
            return Err(Error::corruption(
                &self.path,
                offset,
                format!("short read: {got} of {want} bytes"),
            ));
        }
        buf.len = want;
        let skip = (offset - start) as usize;
        Ok(buf.as_slice()[skip..skip + len].to_vec())
    }
    fn size(&self) -> u64 {
        self.size
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unaligned_appends_and_reads_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("d");
        let mut w = match DirectWritable::create(&p) {
            Ok(w) => w,
            Err(Error::NotSupported(m)) => {
                eprintln!("skipped: {m}");
                return;
            }
            Err(e) => panic!("{e}"),
        };
        let mut want = Vec::new();
        for i in 0..3000u32 {
            let chunk: Vec<u8> = (0..(i % 997)).map(|j| (i + j) as u8).collect();
            w.append(&chunk).unwrap();
            want.extend_from_slice(&chunk);
            if i % 500 == 0 {
                w.flush().unwrap();
                assert_eq!(std::fs::metadata(&p).unwrap().len(), want.len() as u64);
            }
        }
        w.sync().unwrap();
        drop(w);
        assert_eq!(std::fs::read(&p).unwrap(), want);
        let r = DirectRandom::open(&p).unwrap();
        for (off, len) in [
            (0usize, 10usize),
            (4095, 2),
            (5000, 70000),
            (want.len() - 3, 3),
        ] {
            assert_eq!(r.read_at(off as u64, len).unwrap(), &want[off..off + len]);
        }
        assert!(r
            .read_at(want.len() as u64 - 1, 2)
            .unwrap_err()
            .is_corruption());
    }
}
