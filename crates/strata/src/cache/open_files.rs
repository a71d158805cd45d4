//! [`OpenFiles`]: the open readers of a DB's files by file number, at most
//! `max_open_files` of them (RocksDB's `TableCache`, used for table and
//! blob files alike).

use std::sync::Arc;

use parking_lot::Mutex;

use super::lru::Lru;
use crate::error::Result;

/// An LRU map from file number to an open reader.
pub(crate) struct OpenFiles<T> {
    lru: Mutex<Lru<u64, Arc<T>>>,
}

impl<T> OpenFiles<T> {
    /// At most `max_open_files` readers (`usize::MAX`: no bound).
    pub(crate) fn new(max_open_files: usize) -> Self {
        OpenFiles {
            lru: Mutex::new(Lru::new(max_open_files.max(1))),
        }
    }

    /// The open reader of `file_number`, made by `open` on a miss. `open`
    /// runs without holding the lock; when another thread opened the same
    /// file meanwhile, its reader is kept and this one dropped.
    ///
    /// # Errors
    /// What `open` returns.
    pub(crate) fn get_or_open(
        &self,
        file_number: u64,
        open: impl FnOnce() -> Result<Arc<T>>,
    ) -> Result<Arc<T>> {
        if let Some(r) = self.lru.lock().get(&file_number) {
            return Ok(r);
        }
        let reader = open()?;
        let mut lru = self.lru.lock();
        if let Some(r) = lru.get(&file_number) {
            return Ok(r); // another thread opened it meanwhile
        }
        lru.insert(file_number, reader.clone(), 1);
        Ok(reader)
    }

    /// Forgets the readers of `files` under one lock and returns them, for
    /// the caller to drop outside its own locks (holders keep them alive).
    pub(crate) fn evict(&self, files: &[u64]) -> Vec<Arc<T>> {
        let mut lru = self.lru.lock();
        files.iter().filter_map(|n| lru.remove(n)).collect()
    }

    /// Readers open.
    pub(crate) fn len(&self) -> usize {
        self.lru.lock().len()
    }
}
