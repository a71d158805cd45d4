//! [`BlobOutput`]: the blob side of one flush or compaction: decides which
//! values leave the table, writes them to a rolling series of blob files,
//! and finishes (or cleans up) those files.

use crate::fs::incremental_sync::sync_incrementally;
use crate::rate_limiter::{limit_writes, IoPriority, RateLimiter};
use std::path::PathBuf;
use std::sync::Arc;

use crate::error::Result;
use crate::filename::{blob_file_name, FileNumber};
use crate::fs::FileSystem;
use crate::sstable::CompressionType;
use crate::stats::Statistics;
use crate::types::{make_internal_key, parse_internal_key, ValueType};

use super::index::BlobIndex;
use super::source::BlobSource;
use super::writer::{BlobFileBuilder, BlobFileInfo};

/// The options that shape blob output (RocksDB's names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlobOutputOptions {
    /// `min_blob_size`: values of at least this many bytes are separated.
    pub min_blob_size: u64,
    /// `blob_file_size`: a blob file is finished once it reaches this size
    /// and the next value starts a new one.
    pub blob_file_size: u64,
    /// `blob_compression_type`.
    pub compression: CompressionType,
    /// `prepopulate_blob_cache = kFlushOnly` and this output is a flush:
    /// put every separated value into the blob cache.
    pub prepopulate_cache: bool,
}

impl Default for BlobOutputOptions {
    /// RocksDB's defaults: every value separated, 256 MiB files, no
    /// compression, no prepopulation.
    fn default() -> Self {
        BlobOutputOptions {
            min_blob_size: 0,
            blob_file_size: 256 << 20,
            compression: CompressionType::None,
            prepopulate_cache: false,
        }
    }
}

/// Writes the separated values of one flush or compaction.
///
/// Call [`add`](Self::add) for each value (in output order); it returns
/// the index to store instead of the value, or `None` to keep the value
/// inline ([`add_entry`](Self::add_entry) does the same for a whole table
/// entry). Then [`finish`](Self::finish) (syncs the files and the
/// directory; put the returned files into the same `VersionEdit` as the
/// tables) or, on failure, [`abandon`](Self::abandon) (deletes them).
pub struct BlobOutput<'a> {
    db_dir: PathBuf,
    fs: Arc<dyn FileSystem>,
    opts: BlobOutputOptions,
    stats: Option<Arc<Statistics>>,
    source: Option<&'a BlobSource>,
    current: Option<BlobFileBuilder>,
    finished: Vec<BlobFileInfo>,
    created: Vec<u64>,
    /// The I/O rate limiter and the priority of these writes.
    limit: Option<(Arc<RateLimiter>, IoPriority)>,
    /// Range-sync blob files every this many bytes (`bytes_per_sync`).
    bytes_per_sync: u64,
    /// The column family the blob files belong to (their header's id).
    column_family_id: u32,
}

impl std::fmt::Debug for BlobOutput<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlobOutput")
            .field("db_dir", &self.db_dir)
            .field("opts", &self.opts)
            .field("created", &self.created)
            .finish()
    }
}

impl<'a> BlobOutput<'a> {
    /// Blob output into `db_dir`. `source` receives prepopulated values
    /// (only used with `opts.prepopulate_cache`).
    pub fn new(
        db_dir: PathBuf,
        fs: Arc<dyn FileSystem>,
        opts: BlobOutputOptions,
        stats: Option<Arc<Statistics>>,
        source: Option<&'a BlobSource>,
    ) -> Self {
        BlobOutput {
            db_dir,
            fs,
            opts,
            stats,
            source,
            current: None,
            finished: Vec::new(),
            created: Vec::new(),
            limit: None,
            bytes_per_sync: 0,
            column_family_id: 0,
        }
    }

    /// Records column family `id` in the header of each blob file.
    pub fn with_column_family(mut self, id: u32) -> Self {
        self.column_family_id = id;
        self
    }

    /// Takes the bytes of every blob file written from `limiter` at `pri`
    /// (high for flushes, low for compactions), when there is one.
    pub fn with_rate_limiter(
        mut self,
        limiter: Option<&Arc<RateLimiter>>,
        pri: IoPriority,
    ) -> Self {
        self.limit = limiter.map(|l| (l.clone(), pri));
        self
    }

    /// Asks the OS to write each blob file back every `bytes` bytes
    /// (`bytes_per_sync`; 0 = off).
    pub fn with_bytes_per_sync(mut self, bytes: u64) -> Self {
        self.bytes_per_sync = bytes;
        self
    }

    /// True if a value of `len` bytes is separated.
    pub fn separates(&self, len: usize) -> bool {
        len as u64 >= self.opts.min_blob_size
    }

    /// Writes `value` of `user_key` to a blob file if it is at least
    /// `min_blob_size` bytes, returning its index; `None` keeps it inline.
    /// `new_file_number` is called when a blob file is started.
    pub fn add(
        &mut self,
        user_key: &[u8],
        value: &[u8],
        new_file_number: &mut dyn FnMut() -> FileNumber,
    ) -> Result<Option<BlobIndex>> {
        if !self.separates(value.len()) {
            return Ok(None);
        }
        let builder = match &mut self.current {
            Some(b) => b,
            None => {
                let n = new_file_number();
                let path = blob_file_name(&self.db_dir, n);
                let file = limit_writes(
                    sync_incrementally(self.fs.create(&path)?, self.bytes_per_sync, false),
                    self.limit.as_ref(),
                    false,
                    self.stats.as_ref(),
                );
                self.created.push(n);
                self.current.insert(
                    BlobFileBuilder::new(
                        file,
                        n,
                        path.display().to_string(),
                        self.opts.compression,
                        self.stats.clone(),
                    )
                    .with_column_family(self.column_family_id),
                )
            }
        };
        let index = builder.add(user_key, value)?;
        if self.opts.prepopulate_cache {
            if let Some(s) = self.source {
                s.prepopulate(index.file_number, index.offset, value);
            }
        }
        if builder.file_size() >= self.opts.blob_file_size {
            self.finish_current()?;
        }
        Ok(Some(index))
    }

    /// [`add`](Self::add) for a table entry: a `Value` entry whose value is
    /// separated comes back as the entry to write instead (same user key and
    /// sequence number, type `BlobIndex`, the encoded index); anything else
    /// gives `None` (write the entry as it is).
    pub fn add_entry(
        &mut self,
        ikey: &[u8],
        value: &[u8],
        new_file_number: &mut dyn FnMut() -> FileNumber,
    ) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
        let Some(p) = parse_internal_key(ikey) else {
            return Ok(None);
        };
        if p.value_type != ValueType::Value {
            return Ok(None);
        }
        Ok(self.add(p.user_key, value, new_file_number)?.map(|i| {
            (
                make_internal_key(p.user_key, p.seq, ValueType::BlobIndex),
                i.encode(),
            )
        }))
    }

    fn finish_current(&mut self) -> Result<()> {
        if let Some(b) = self.current.take() {
            self.finished.push(b.finish()?);
        }
        Ok(())
    }

    /// Numbers of every blob file created (finished or not).
    #[cfg(test)]
    pub fn created(&self) -> &[u64] {
        &self.created
    }

    /// Finishes the open file, syncs every new file's directory entry and
    /// returns the files, ascending by number. Their sizes sum to the
    /// operation's blob bytes written (`Wblob`).
    pub fn finish(mut self) -> Result<Vec<BlobFileInfo>> {
        self.finish_current()?;
        if !self.created.is_empty() {
            self.fs.sync_dir(&self.db_dir)?;
        }
        let mut out = std::mem::take(&mut self.finished);
        out.sort_unstable_by_key(|f| f.number);
        Ok(out)
    }

    /// Stops and deletes every blob file this output created (best effort;
    /// a file left behind is an orphan, removed at the next open).
    pub fn abandon(mut self) {
        if let Some(b) = self.current.take() {
            b.abandon();
        }
        for n in &self.created {
            let _ = self.fs.remove(&blob_file_name(&self.db_dir, *n));
        }
        if let Some(s) = self.source {
            s.forget(&self.created);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blob::BlobCache;
    use crate::fs::PosixFileSystem;

    fn setup() -> (tempfile::TempDir, Arc<dyn FileSystem>) {
        (tempfile::tempdir().unwrap(), Arc::new(PosixFileSystem))
    }

    #[test]
    fn separates_by_size_and_rolls_files() {
        let (dir, fs) = setup();
        let mut next = 10u64;
        let mut nfn = move || {
            next += 1;
            next
        };
        let opts = BlobOutputOptions {
            min_blob_size: 100,
            blob_file_size: 1000,
            compression: CompressionType::None,
            prepopulate_cache: false,
        };
        let mut out = BlobOutput::new(dir.path().to_path_buf(), fs.clone(), opts, None, None);
        assert_eq!(out.add(b"small", &[1; 99], &mut nfn).unwrap(), None);
        let mut indexes = Vec::new();
        for n in 0..10u8 {
            let i = out.add(&[n], &[n; 300], &mut nfn).unwrap().unwrap();
            indexes.push(i);
        }
        // 22 + 3 × 322 = 988 < 1000, the 4th record crosses: 4 per file.
        let files: Vec<u64> = indexes.iter().map(|i| i.file_number).collect();
        assert_eq!(files, vec![11, 11, 11, 11, 12, 12, 12, 12, 13, 13]);
        assert_eq!(out.created(), &[11, 12, 13]);
        let infos = out.finish().unwrap();
        assert_eq!(
            infos.iter().map(|i| i.blob_count).collect::<Vec<_>>(),
            vec![4, 4, 2]
        );
        let src = BlobSource::new(dir.path().to_path_buf(), fs, None, None, 100);
        for (n, i) in indexes.iter().enumerate() {
            assert_eq!(
                src.get(&[n as u8], i, true, true).unwrap(),
                vec![n as u8; 300]
            );
        }
        for info in &infos {
            let r = src.reader(info.number).unwrap();
            assert_eq!(r.file_size(), info.file_size);
            assert_eq!(r.file_checksum().unwrap(), info.checksum);
        }
    }

    #[test]
    fn prepopulates_and_abandon_deletes() {
        let (dir, fs) = setup();
        let cache = Arc::new(BlobCache::new(1 << 20));
        let src = BlobSource::new(
            dir.path().to_path_buf(),
            fs.clone(),
            Some(cache.clone()),
            None,
            100,
        );
        let opts = BlobOutputOptions {
            prepopulate_cache: true,
            ..Default::default()
        };
        let mut out = BlobOutput::new(dir.path().to_path_buf(), fs.clone(), opts, None, Some(&src));
        let i = out.add(b"k", b"value", &mut || 5).unwrap().unwrap();
        assert_eq!(
            cache.lookup(5, i.offset).as_deref(),
            Some(&b"value".to_vec())
        );
        let path = blob_file_name(dir.path(), 5);
        assert!(fs.exists(&path));
        out.abandon();
        assert!(!fs.exists(&path));
        assert!(cache.is_empty());
    }

    #[test]
    fn nothing_separated_creates_no_file() {
        let (dir, fs) = setup();
        let opts = BlobOutputOptions {
            min_blob_size: 1 << 20,
            ..Default::default()
        };
        let mut out = BlobOutput::new(dir.path().to_path_buf(), fs.clone(), opts, None, None);
        assert_eq!(out.add(b"k", b"v", &mut || 1).unwrap(), None);
        assert!(out.finish().unwrap().is_empty());
        assert!(fs.list(dir.path()).unwrap().is_empty());
    }
}

#[cfg(test)]
mod crash_tests {
    use super::*;
    use crate::fs::fault::{FaultInjectionFs, FaultOp};
    use crate::fs::PosixFileSystem;

    fn numbers(first: u64) -> impl FnMut() -> FileNumber {
        let mut next = first;
        move || {
            next += 1;
            next - 1
        }
    }

    fn output<'a>(dir: &std::path::Path, fs: Arc<dyn FileSystem>) -> BlobOutput<'a> {
        let opts = BlobOutputOptions {
            blob_file_size: 4096,
            compression: CompressionType::None,
            ..Default::default()
        };
        BlobOutput::new(dir.to_path_buf(), fs, opts, None, None)
    }

    /// Files returned by `finish` survive a crash intact; files of an
    /// unfinished output vanish or fail to open (never read as valid).
    #[test]
    fn finished_files_survive_a_crash_unfinished_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let ffs = Arc::new(FaultInjectionFs::new(Arc::new(PosixFileSystem)));
        let fs: Arc<dyn FileSystem> = ffs.clone();
        let mut done = output(dir.path(), fs.clone());
        let mut nfn = numbers(10);
        let mut kept = Vec::new();
        for i in 0..30u32 {
            let v = vec![i as u8; 500 + i as usize];
            let idx = done.add(&i.to_le_bytes(), &v, &mut nfn).unwrap().unwrap();
            kept.push((i, idx, v));
        }
        let infos = done.finish().unwrap();
        assert!(infos.len() > 1);
        let mut pending = output(dir.path(), fs.clone());
        let mut nfn = numbers(100);
        for i in 0..30u32 {
            pending.add(&i.to_le_bytes(), &[7; 700], &mut nfn).unwrap();
        }
        let unfinished: Vec<u64> = pending.created().to_vec();
        ffs.crash().unwrap();
        drop(pending);
        let src = BlobSource::new(dir.path().to_path_buf(), fs.clone(), None, None, 100);
        for (i, idx, v) in &kept {
            assert_eq!(&src.get(&i.to_le_bytes(), idx, true, true).unwrap(), v);
        }
        for n in unfinished {
            match src.reader(n) {
                Ok(_) => panic!("unfinished blob file {n} opened after a crash"),
                Err(e) => assert!(
                    e.is_corruption() || matches!(e, crate::Error::Io { .. }),
                    "{e}"
                ),
            }
        }
        // A failed sync surfaces from finish.
        ffs.fail_after(FaultOp::Sync, 1, libc::EIO);
        let mut failing = output(dir.path(), fs);
        failing.add(b"k", b"v", &mut numbers(200)).unwrap();
        assert!(failing.finish().is_err());
    }
}
