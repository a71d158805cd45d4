//! The real file system, through `std::fs` (pread, fdatasync, flock).

use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::io::AsRawFd;
use std::path::Path;
use std::sync::Arc;

use super::{FileLock, FileSystem, RandomAccessFile, WritableFile};
use crate::error::{Error, Result};

/// Size of the user-space write buffer of a [`WritableFile`].
const WRITE_BUFFER: usize = 64 * 1024;

/// The operating system's file system.
#[derive(Debug, Default, Clone)]
pub struct PosixFileSystem;

fn ctx(op: &str, path: &Path) -> String {
    format!("{op} {}", path.display())
}

struct PosixWritable {
    file: File,
    path: String,
    buf: Vec<u8>,
    size: u64,
}

impl PosixWritable {
    fn write_out(&mut self) -> Result<()> {
        if !self.buf.is_empty() {
            self.file
                .write_all(&self.buf)
                .map_err(|e| Error::io(format!("write {}", self.path), e))?;
            self.buf.clear();
        }
        Ok(())
    }
}

impl WritableFile for PosixWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        self.size += data.len() as u64;
        if self.buf.len() + data.len() > WRITE_BUFFER {
            self.write_out()?;
            if data.len() >= WRITE_BUFFER {
                return self
                    .file
                    .write_all(data)
                    .map_err(|e| Error::io(format!("write {}", self.path), e));
            }
        }
        self.buf.extend_from_slice(data);
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        self.write_out()
    }

    fn sync(&mut self) -> Result<()> {
        self.write_out()?;
        self.file
            .sync_data()
            .map_err(|e| Error::io(format!("fdatasync {}", self.path), e))
    }

    fn size(&self) -> u64 {
        self.size
    }

    fn range_sync(&mut self, offset: u64, len: u64) -> Result<()> {
        // SAFETY: a plain system call on a file descriptor this value owns.
        let r = unsafe {
            libc::sync_file_range(
                self.file.as_raw_fd(),
                offset as libc::off64_t,
                len as libc::off64_t,
                libc::SYNC_FILE_RANGE_WRITE,
            )
        };
        if r == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        // Not every file system has it (RocksDB then falls back too); it
        // is only a hint.
        if matches!(e.raw_os_error(), Some(libc::ENOSYS) | Some(libc::EINVAL)) {
            return Ok(());
        }
        Err(Error::io(format!("sync_file_range {}", self.path), e))
    }
}

impl Drop for PosixWritable {
    fn drop(&mut self) {
        // Best effort: buffered bytes reach the OS; durability needs sync().
        let _ = self.write_out();
    }
}

struct PosixRandom {
    file: File,
    path: String,
    size: u64,
}

impl RandomAccessFile for PosixRandom {
    fn advise_random(&self) {
        // SAFETY: posix_fadvise only reads the descriptor we own; a failure
        // leaves the OS's default read-ahead, which is correct, only slower
        // or faster.
        unsafe {
            libc::posix_fadvise(self.file.as_raw_fd(), 0, 0, libc::POSIX_FADV_RANDOM);
        }
    }

    fn prefetch(&self, offset: u64, len: usize) -> bool {
        // SAFETY: as in `advise_random`. WILLNEED starts reads into the page
        // cache and returns; it reads ahead even after POSIX_FADV_RANDOM.
        unsafe {
            libc::posix_fadvise(
                self.file.as_raw_fd(),
                offset as libc::off_t,
                len as libc::off_t,
                libc::POSIX_FADV_WILLNEED,
            ) == 0
        }
    }

    fn read_at(&self, offset: u64, len: usize) -> Result<Vec<u8>> {
        let mut buf = Vec::new();
        self.read_into(offset, len, &mut buf)?;
        Ok(buf)
    }

    fn read_into(&self, offset: u64, len: usize, buf: &mut Vec<u8>) -> Result<()> {
        // Read straight into the vector's spare capacity: no zero-filling
        // (a measurable cost when every Get reads a 4 KiB block).
        buf.clear();
        buf.reserve_exact(len);
        let fd = self.file.as_raw_fd();
        let mut done = 0usize;
        while done < len {
            let pos = offset + done as u64;
            // SAFETY: the destination is `len - done` bytes of the vector's
            // spare capacity, which `pread` only writes to.
            let n = unsafe {
                libc::pread(
                    fd,
                    buf.as_mut_ptr().add(done).cast::<libc::c_void>(),
                    len - done,
                    pos as libc::off_t,
                )
            };
            if n < 0 {
                let e = std::io::Error::last_os_error();
                if e.kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Err(Error::io(format!("read {}", self.path), e));
            }
            if n == 0 {
                return Err(Error::corruption(
                    &self.path,
                    offset,
                    format!("read of {len} bytes past end of file (size {})", self.size),
                ));
            }
            done += n as usize;
        }
        // SAFETY: all `len` bytes were written by `pread` above.
        unsafe { buf.set_len(len) };
        Ok(())
    }

    fn size(&self) -> u64 {
        self.size
    }
}

#[derive(Debug)]
struct PosixLock {
    _file: File,
}

impl FileLock for PosixLock {}

impl FileSystem for PosixFileSystem {
    fn create(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        let file = File::create(path).map_err(|e| Error::io(ctx("create", path), e))?;
        Ok(Box::new(PosixWritable {
            file,
            path: path.display().to_string(),
            buf: Vec::with_capacity(WRITE_BUFFER),
            size: 0,
        }))
    }

    fn create_opt(&self, path: &Path, direct: bool) -> Result<Box<dyn WritableFile>> {
        if direct {
            Ok(Box::new(super::direct::DirectWritable::create(path)?))
        } else {
            self.create(path)
        }
    }

    fn open_random_opt(&self, path: &Path, direct: bool) -> Result<Arc<dyn RandomAccessFile>> {
        if direct {
            Ok(Arc::new(super::direct::DirectRandom::open(path)?))
        } else {
            self.open_random(path)
        }
    }

    fn open_random_mapped(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        Ok(Arc::new(super::mapped::MappedFile::open(path)?))
    }

    fn reopen_for_append(&self, path: &Path) -> Result<Box<dyn WritableFile>> {
        let file = OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| Error::io(ctx("open for append", path), e))?;
        let size = file
            .metadata()
            .map_err(|e| Error::io(ctx("stat", path), e))?
            .len();
        Ok(Box::new(PosixWritable {
            file,
            path: path.display().to_string(),
            buf: Vec::with_capacity(WRITE_BUFFER),
            size,
        }))
    }

    fn open_random(&self, path: &Path) -> Result<Arc<dyn RandomAccessFile>> {
        let file = File::open(path).map_err(|e| Error::io(ctx("open", path), e))?;
        let size = file
            .metadata()
            .map_err(|e| Error::io(ctx("stat", path), e))?
            .len();
        Ok(Arc::new(PosixRandom {
            file,
            path: path.display().to_string(),
            size,
        }))
    }

    fn read_all(&self, path: &Path) -> Result<Vec<u8>> {
        fs::read(path).map_err(|e| Error::io(ctx("read", path), e))
    }

    fn rename(&self, from: &Path, to: &Path) -> Result<()> {
        fs::rename(from, to)
            .map_err(|e| Error::io(format!("rename {} to {}", from.display(), to.display()), e))
    }

    fn remove(&self, path: &Path) -> Result<()> {
        fs::remove_file(path).map_err(|e| Error::io(ctx("remove", path), e))
    }

    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }

    fn list(&self, dir: &Path) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for entry in fs::read_dir(dir).map_err(|e| Error::io(ctx("list", dir), e))? {
            let entry = entry.map_err(|e| Error::io(ctx("list", dir), e))?;
            out.push(entry.file_name().to_string_lossy().into_owned());
        }
        out.sort();
        Ok(out)
    }

    fn create_dir_all(&self, dir: &Path) -> Result<()> {
        fs::create_dir_all(dir).map_err(|e| Error::io(ctx("create directory", dir), e))
    }

    fn sync_dir(&self, dir: &Path) -> Result<()> {
        let f = File::open(dir).map_err(|e| Error::io(ctx("open directory", dir), e))?;
        f.sync_all()
            .map_err(|e| Error::io(ctx("fsync directory", dir), e))
    }

    fn file_size(&self, path: &Path) -> Result<u64> {
        Ok(fs::metadata(path)
            .map_err(|e| Error::io(ctx("stat", path), e))?
            .len())
    }

    fn lock(&self, path: &Path) -> Result<Box<dyn FileLock>> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)
            .map_err(|e| Error::io(ctx("open", path), e))?;
        match file.try_lock() {
            Ok(()) => Ok(Box::new(PosixLock { _file: file })),
            Err(std::fs::TryLockError::WouldBlock) => Err(Error::Locked {
                path: path.display().to_string(),
                message: "the DB is already open in this or another process".into(),
            }),
            Err(std::fs::TryLockError::Error(e)) => Err(Error::io(ctx("lock", path), e)),
        }
    }

    fn link(&self, from: &Path, to: &Path) -> Result<()> {
        fs::hard_link(from, to)
            .map_err(|e| Error::io(format!("link {} to {}", from.display(), to.display()), e))
    }

    fn remove_dir(&self, dir: &Path) -> Result<()> {
        fs::remove_dir(dir).map_err(|e| Error::io(ctx("remove directory", dir), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn write_read_and_lock() {
        let dir = tempfile::tempdir().unwrap();
        let fs = PosixFileSystem;
        let p = dir.path().join("f");
        let mut w = fs.create(&p).unwrap();
        w.append(b"hello ").unwrap();
        w.append(&vec![b'x'; 100_000]).unwrap();
        w.sync().unwrap();
        assert_eq!(w.size(), 100_006);
        let r = fs.open_random(&p).unwrap();
        assert_eq!(r.read_at(0, 5).unwrap(), b"hello");
        assert!(r.read_at(100_000, 10).unwrap_err().is_corruption());
        let l = fs.lock(&dir.path().join("LOCK")).unwrap();
        assert!(matches!(
            fs.lock(&dir.path().join("LOCK")),
            Err(Error::Locked { .. })
        ));
        drop(l);
        fs.lock(&dir.path().join("LOCK")).unwrap();
    }

    #[test]
    fn hard_links_share_content_and_outlive_the_first_name() {
        let dir = tempfile::tempdir().unwrap();
        let fs = PosixFileSystem;
        let (a, b) = (dir.path().join("a"), dir.path().join("sub/b"));
        let mut w = fs.create(&a).unwrap();
        w.append(b"table").unwrap();
        w.sync().unwrap();
        fs.create_dir_all(b.parent().unwrap()).unwrap();
        fs.link(&a, &b).unwrap();
        // A second link to an existing name fails rather than replacing it.
        assert!(fs.link(&a, &b).unwrap_err().is_io());
        fs.remove(&a).unwrap();
        assert_eq!(fs.read_all(&b).unwrap(), b"table");
        assert!(fs.remove_dir(b.parent().unwrap()).is_err(), "not empty");
        fs.remove(&b).unwrap();
        fs.remove_dir(b.parent().unwrap()).unwrap();
        assert!(!fs.exists(b.parent().unwrap()));
    }
}
