//! [`BlobSource`]: the read path for blobs: blob cache first, then the blob
//! file, through an LRU of open blob file readers.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::error::Result;
use crate::filename::blob_file_name;
use crate::fs::FileSystem;
use crate::stats::{Statistics, Ticker};

use super::cache::BlobCache;
use super::index::BlobIndex;
use super::reader::{BlobFileReader, BlobReadahead};
use crate::cache::OpenFiles;

/// Resolves blob indexes to values for `get`, iterators and compaction.
pub struct BlobSource {
    db_dir: PathBuf,
    fs: Arc<dyn FileSystem>,
    cache: Option<Arc<BlobCache>>,
    stats: Option<Arc<Statistics>>,
    readers: OpenFiles<BlobFileReader>,
    advise_random: bool,
}

impl std::fmt::Debug for BlobSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BlobSource")
            .field("db_dir", &self.db_dir)
            .field("open_files", &self.readers.len())
            .field("cache", &self.cache)
            .finish()
    }
}

impl BlobSource {
    /// A source reading `NNNNNN.blob` files from `db_dir`, keeping at most
    /// `max_open_files` of them open (`usize::MAX`: no bound), with an
    /// optional blob cache.
    pub fn new(
        db_dir: PathBuf,
        fs: Arc<dyn FileSystem>,
        cache: Option<Arc<BlobCache>>,
        stats: Option<Arc<Statistics>>,
        max_open_files: usize,
    ) -> Self {
        BlobSource {
            db_dir,
            fs,
            cache: cache.filter(|c| c.capacity() > 0),
            stats,
            readers: OpenFiles::new(max_open_files),
            advise_random: false,
        }
    }

    /// Advises the OS of random access on each blob file it opens
    /// (`advise_random_on_open`, as RocksDB's blob file reader does): a
    /// blob read then costs one device read of the value's pages, not the
    /// kernel's read-ahead window.
    pub fn with_advise_random(mut self, advise: bool) -> Self {
        self.advise_random = advise;
        self
    }

    /// The blob cache, if one is on.
    pub fn cache(&self) -> Option<&Arc<BlobCache>> {
        self.cache.as_ref()
    }

    fn tick(&self, t: Ticker, n: u64) {
        if let Some(s) = &self.stats {
            s.record_tick(t, n);
        }
    }

    /// The open reader of blob file `file_number`, opening (and validating)
    /// it on a miss without holding the lock.
    pub fn reader(&self, file_number: u64) -> Result<Arc<BlobFileReader>> {
        self.readers.get_or_open(file_number, || {
            let path = blob_file_name(&self.db_dir, file_number);
            let file = self.fs.open_random(&path)?;
            if self.advise_random {
                file.advise_random();
            }
            Ok(Arc::new(
                BlobFileReader::open(file, file_number, path.display().to_string())?
                    .with_statistics(self.stats.clone()),
            ))
        })
    }

    fn lookup_cache(&self, index: &BlobIndex) -> Option<Arc<Vec<u8>>> {
        let cache = self.cache.as_ref()?;
        match cache.lookup(index.file_number, index.offset) {
            Some(v) => {
                self.tick(Ticker::BlobDbCacheHit, 1);
                self.tick(Ticker::BlobDbCacheBytesRead, v.len() as u64);
                Some(v)
            }
            None => {
                self.tick(Ticker::BlobDbCacheMiss, 1);
                None
            }
        }
    }

    fn insert_cache(&self, file_number: u64, offset: u64, value: Arc<Vec<u8>>) {
        if let Some(cache) = &self.cache {
            let n = value.len() as u64;
            if cache.insert(file_number, offset, value) {
                self.tick(Ticker::BlobDbCacheAdd, 1);
                self.tick(Ticker::BlobDbCacheBytesWrite, n);
            } else {
                self.tick(Ticker::BlobDbCacheAddFailures, 1);
            }
        }
    }

    /// The value of `key` (a user key) at `index`, shared. Looks in the blob
    /// cache first; on a miss reads the file and, with `fill_cache`, caches
    /// the value.
    pub fn get_shared(
        &self,
        key: &[u8],
        index: &BlobIndex,
        fill_cache: bool,
        verify_checksums: bool,
    ) -> Result<Arc<Vec<u8>>> {
        if let Some(v) = self.lookup_cache(index) {
            return Ok(v);
        }
        let reader = self.reader(index.file_number)?;
        let value = Arc::new(reader.get(key, index, verify_checksums)?);
        if fill_cache {
            self.insert_cache(index.file_number, index.offset, value.clone());
        }
        Ok(value)
    }

    /// The value of `key` at `index`; see [`get_shared`](Self::get_shared).
    pub fn get(
        &self,
        key: &[u8],
        index: &BlobIndex,
        fill_cache: bool,
        verify_checksums: bool,
    ) -> Result<Vec<u8>> {
        let v = self.get_shared(key, index, fill_cache, verify_checksums)?;
        Ok(Arc::try_unwrap(v).unwrap_or_else(|shared| (*shared).clone()))
    }

    /// Puts a value just written to a blob file into the cache
    /// (`prepopulate_blob_cache = kFlushOnly`); `offset` is the index's
    /// value offset and `value` the uncompressed value.
    pub fn prepopulate(&self, file_number: u64, offset: u64, value: &[u8]) {
        if self.cache.is_some() {
            self.insert_cache(file_number, offset, Arc::new(value.to_vec()));
        }
    }

    /// Closes the blob files `files` and drops their cached values (call
    /// when they are deleted), in one scan of the cache; the readers are
    /// dropped on the caller's thread, which must hold no DB lock. Readers
    /// still held elsewhere stay usable.
    pub fn forget(&self, files: &[u64]) {
        let readers = self.readers.evict(files);
        if let Some(c) = &self.cache {
            c.erase_files(files);
        }
        drop(readers);
    }

    /// Blob files currently open.
    #[cfg(test)]
    pub fn open_files(&self) -> usize {
        self.readers.len()
    }

    /// A fetcher for one compaction: reads with `readahead_size` bytes of
    /// read-ahead per blob file (`blob_compaction_readahead_size`), uses but
    /// never fills the cache.
    pub fn compaction_fetcher(
        &self,
        readahead_size: usize,
        verify_checksums: bool,
    ) -> BlobFetcher<'_> {
        BlobFetcher {
            source: self,
            readahead_size,
            verify_checksums,
            buffers: HashMap::new(),
            bytes_read: 0,
        }
    }
}

/// Reads blobs for one compaction (or GC relocation), in roughly
/// increasing offset order per blob file; see
/// [`BlobSource::compaction_fetcher`].
#[derive(Debug)]
pub struct BlobFetcher<'a> {
    source: &'a BlobSource,
    readahead_size: usize,
    verify_checksums: bool,
    buffers: HashMap<u64, BlobReadahead>,
    bytes_read: u64,
}

impl BlobFetcher<'_> {
    /// The value of `key` at `index`.
    pub fn fetch(&mut self, key: &[u8], index: &BlobIndex) -> Result<Vec<u8>> {
        if let Some(v) = self.source.lookup_cache(index) {
            return Ok((*v).clone());
        }
        let reader = self.source.reader(index.file_number)?;
        let value = if self.readahead_size == 0 {
            reader.get(key, index, self.verify_checksums)?
        } else {
            let size = self.readahead_size;
            let buf = self
                .buffers
                .entry(index.file_number)
                .or_insert_with(|| BlobReadahead::new(size));
            reader.get_with_readahead(key, index, self.verify_checksums, buf)?
        };
        self.bytes_read += index.record_size(key.len());
        Ok(value)
    }

    /// Record bytes of the blobs fetched from files (not from the cache):
    /// the compaction's `Rblob`.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }
}
