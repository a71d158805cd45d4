//! A file read from a memory map (`allow_mmap_reads`): blocks are served
//! in place from the page cache, without a system call or a copy.
//!
//! Only files the engine never changes once written are mapped (table
//! files: written, synced and only then opened for reading). The map
//! covers the file's size when it is opened. A file shortened behind the
//! engine's back while mapped would make a read of its lost pages raise
//! `SIGBUS`, as in RocksDB and LevelDB with mapped reads; a file already
//! short when opened is reported as Corruption by the table reader, which
//! checks every block against the size mapped.

use std::fs::File;
use std::path::Path;

use memmap2::Mmap;

use super::RandomAccessFile;
use crate::error::{Error, Result};

/// A read-only, shared map of a whole file.
pub(crate) struct MappedFile {
    /// `None` for an empty file (which cannot be mapped).
    map: Option<Mmap>,
    path: String,
}

impl MappedFile {
    /// Opens and maps `path` read-only.
    pub(crate) fn open(path: &Path) -> Result<MappedFile> {
        let ctx = |op: &str| format!("{op} {}", path.display());
        let file = File::open(path).map_err(|e| Error::io(ctx("open"), e))?;
        let size = file
            .metadata()
            .map_err(|e| Error::io(ctx("stat"), e))?
            .len();
        let map = if size == 0 {
            None
        } else {
            // SAFETY: the map is read-only and private to this value. Its
            // bytes change only if another process rewrites or shortens a
            // file the engine never writes again once it reads it (see the
            // module's documentation).
            Some(unsafe { Mmap::map(&file) }.map_err(|e| Error::io(ctx("mmap"), e))?)
        };
        Ok(MappedFile {
            map,
            path: path.display().to_string(),
        })
    }

    fn bytes(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }
}

impl RandomAccessFile for MappedFile {
    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let b = self.bytes();
        let range = usize::try_from(offset)
            .ok()
            .and_then(|o| Some(o..o.checked_add(len)?))
            .filter(|r| r.end <= b.len());
        match range {
            Some(r) => Ok(b[r].to_vec()),
            None => Err(Error::corruption(
                &self.path,
                offset,
                format!("read of {len} bytes past end of file (size {})", b.len()),
            )),
        }
    }

    fn size(&self) -> u64 {
        self.bytes().len() as u64
    }

    fn advise_random(&self) {
        if let Some(m) = &self.map {
            // A hint only: on failure the kernel keeps its default
            // read-around, which is correct.
            let _ = m.advise(memmap2::Advice::Random);
        }
    }

    fn mapped(&self) -> Option<&[u8]> {
        Some(self.bytes())
    }
}

#[cfg(test)]
mod tests {
    use crate::fs::{FileSystem, PosixFileSystem};

    #[test]
    fn a_mapped_file_reads_as_the_file_and_rejects_reads_past_its_end() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t");
        std::fs::write(&p, b"mapped bytes").unwrap();
        let f = PosixFileSystem.open_random_mapped(&p).unwrap();
        assert_eq!(f.mapped().unwrap(), b"mapped bytes");
        assert_eq!(f.read_at(7, 5).unwrap(), b"bytes");
        assert_eq!(f.size(), 12);
        let err = f.read_at(8, 5).unwrap_err();
        assert!(err.is_corruption(), "{err}");
        assert!(f.read_at(u64::MAX, 1).unwrap_err().is_corruption());
        f.advise_random();
    }

    #[test]
    fn an_empty_file_maps_to_no_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("e");
        std::fs::write(&p, b"").unwrap();
        let f = PosixFileSystem.open_random_mapped(&p).unwrap();
        assert_eq!(f.mapped().unwrap(), b"");
        assert!(f.read_at(0, 1).unwrap_err().is_corruption());
    }
}
