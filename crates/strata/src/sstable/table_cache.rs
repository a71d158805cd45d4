//! Keeps open tables, bounded by `max_open_files` (RocksDB's table cache).

use std::path::PathBuf;
use std::sync::Arc;

use crate::error::Result;
use crate::filename::table_file_name;
use crate::fs::FileSystem;
use crate::stats::{Histogram, Statistics, Ticker};

use super::block_cache::BlockCache;
use super::reader::Table;
use crate::cache::OpenFiles;

/// An LRU map from file number to open [`Table`].
pub struct TableCache {
    db_dir: PathBuf,
    fs: Arc<dyn FileSystem>,
    block_cache: Option<Arc<BlockCache>>,
    stats: Option<Arc<Statistics>>,
    tables: OpenFiles<Table>,
    direct_reads: bool,
    mmap_reads: bool,
    advise_random: bool,
}

impl std::fmt::Debug for TableCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableCache")
            .field("db_dir", &self.db_dir)
            .field("open", &self.tables.len())
            .finish()
    }
}

impl TableCache {
    /// A cache of at most `max_open_files` open tables (`usize::MAX` means
    /// no bound) from `db_dir`, sharing `block_cache`.
    pub fn new(
        db_dir: PathBuf,
        fs: Arc<dyn FileSystem>,
        max_open_files: usize,
        block_cache: Option<Arc<BlockCache>>,
        stats: Option<Arc<Statistics>>,
    ) -> Self {
        TableCache {
            db_dir,
            fs,
            block_cache,
            stats,
            tables: OpenFiles::new(max_open_files),
            direct_reads: false,
            mmap_reads: false,
            advise_random: false,
        }
    }

    /// Opens tables with O_DIRECT (`use_direct_reads`).
    pub fn with_direct_reads(mut self, direct: bool) -> Self {
        self.direct_reads = direct;
        self
    }

    /// Opens tables through a memory map (`allow_mmap_reads`), unless
    /// they are opened with O_DIRECT.
    pub fn with_mmap_reads(mut self, mmap: bool) -> Self {
        self.mmap_reads = mmap;
        self
    }

    /// Advises random access on every table opened
    /// (`advise_random_on_open`).
    pub fn with_advise_random(mut self, advise: bool) -> Self {
        self.advise_random = advise;
        self
    }

    /// The open table for `file_number`, opening `NNNNNN.sst` on a miss.
    /// The file is opened without holding the cache's lock.
    ///
    /// As RocksDB's `TableCache::FindTable`, a miss counts
    /// `rocksdb.no.file.opens` once the file is open, and
    /// `rocksdb.no.file.errors` if opening the file or the table failed.
    pub fn get(&self, file_number: u64) -> Result<Arc<Table>> {
        self.tables.get_or_open(file_number, || {
            let start = self.stats.as_ref().map(|_| std::time::Instant::now());
            let table = self.open_table(file_number);
            if let (Some(s), Some(t)) = (&self.stats, start) {
                match &table {
                    Err(_) => s.record_tick(Ticker::NoFileErrors, 1),
                    Ok(_) => s.record_histogram(
                        Histogram::TableOpenIoMicros,
                        t.elapsed().as_micros() as u64,
                    ),
                }
            }
            table
        })
    }

    fn open_table(&self, file_number: u64) -> Result<Arc<Table>> {
        let path = table_file_name(&self.db_dir, file_number);
        let file = if self.mmap_reads && !self.direct_reads {
            self.fs.open_random_mapped(&path)?
        } else {
            self.fs.open_random_opt(&path, self.direct_reads)?
        };
        if self.advise_random && !self.direct_reads {
            file.advise_random();
        }
        if let Some(s) = &self.stats {
            s.record_tick(Ticker::NoFileOpens, 1);
        }
        Ok(Arc::new(Table::open(
            file,
            file_number,
            path.display().to_string(),
            self.block_cache.clone(),
            self.stats.clone(),
        )?))
    }

    /// Forgets the tables `files` once they are deleted: their open readers
    /// and their blocks in the block cache. Under mmap reads the last
    /// reference to a table's map goes here, so unmapping it (milliseconds
    /// for a large table) runs on the caller's thread, which must hold no
    /// DB lock, and not on a reader's thread whose insert into the block
    /// cache evicts the table's last cached block. Readers still holding a
    /// table keep it alive until they drop it.
    pub fn forget(&self, files: &[u64]) {
        let readers = self.tables.evict(files);
        if let Some(c) = &self.block_cache {
            c.erase_files(files);
        }
        drop(readers);
    }

    /// Tables currently open in the cache.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.tables.len()
    }
}
