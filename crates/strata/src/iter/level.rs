//! Concatenates the tables of one sorted level (L1 and deeper) into one
//! iterator, opening each table lazily through the table cache.
//!
//! A seek whose target lies before a table's smallest key (in the gap
//! between two tables, or before the level's first) stops there lazily:
//! the level reports the table's smallest key, known from its metadata,
//! without opening the table or reading a block. A merge over several
//! levels reads such an entry only if it becomes the merge's front
//! ([`InternalIterator::materialize`]); a random seek over levels that
//! do not overlap reads one data block instead of one per level.

use std::cmp::Ordering;
use std::sync::Arc;

use super::InternalIterator;
use crate::error::{Error, Result};
use crate::sstable::{ReadOpts, TableCache, TableIterator};
use crate::types::compare_internal_keys;
use crate::version::edit::FileMetaData;

/// Iterates the files of a non-overlapping, sorted level.
pub struct LevelIterator {
    files: Vec<Arc<FileMetaData>>,
    cache: Arc<TableCache>,
    opts: ReadOpts,
    index: usize,
    cur: Option<TableIterator>,
    /// Positioned lazily at the smallest key of `files[index]`, with `cur`
    /// not open.
    lazy: bool,
    error: Option<Error>,
}

impl LevelIterator {
    /// Iterates `files` (sorted by smallest key, non-overlapping).
    pub fn new(files: Vec<Arc<FileMetaData>>, cache: Arc<TableCache>, opts: ReadOpts) -> Self {
        LevelIterator {
            files,
            cache,
            opts,
            index: 0,
            cur: None,
            lazy: false,
            error: None,
        }
    }

    fn open(&mut self, index: usize) -> bool {
        self.index = index;
        self.cur = None;
        self.lazy = false;
        let Some(f) = self.files.get(index) else {
            return false;
        };
        match self.cache.get(f.number) {
            Ok(t) => {
                self.cur = Some(t.iter(self.opts));
                true
            }
            Err(e) => {
                self.error.get_or_insert(e);
                false
            }
        }
    }

    fn check_child(&mut self) {
        if let Some(c) = &self.cur {
            if let Err(e) = c.status() {
                self.error.get_or_insert(e);
                self.cur = None;
            }
        }
    }

    /// Checks the current table's status; true when the iterator is on an
    /// entry or stopped by an error, so that a skip goes no further.
    fn settled(&mut self) -> bool {
        self.check_child();
        match &self.cur {
            Some(c) => c.valid(),
            None => self.error.is_some(),
        }
    }

    /// Stops lazily at the smallest key of `files[index]` (invalid past
    /// the last table).
    fn stop_lazily(&mut self, index: usize) {
        self.index = index;
        self.cur = None;
        self.lazy = index < self.files.len();
    }

    fn skip_forward(&mut self) {
        loop {
            if self.settled() {
                return;
            }
            if !self.open(self.index + 1) {
                self.cur = None;
                return;
            }
            if let Some(c) = self.cur.as_mut() {
                c.seek_to_first();
            }
        }
    }

    fn skip_backward(&mut self) {
        loop {
            if self.settled() {
                return;
            }
            if self.index == 0 || !self.open(self.index - 1) {
                self.cur = None;
                return;
            }
            if let Some(c) = self.cur.as_mut() {
                c.seek_to_last();
            }
        }
    }
}

impl InternalIterator for LevelIterator {
    fn valid(&self) -> bool {
        self.error.is_none() && (self.lazy || self.cur.as_ref().is_some_and(|c| c.valid()))
    }
    fn seek_to_first(&mut self) {
        self.stop_lazily(0);
    }
    fn seek_to_last(&mut self) {
        self.lazy = false;
        if let Some(last) = self.files.len().checked_sub(1) {
            if self.open(last) {
                if let Some(c) = self.cur.as_mut() {
                    c.seek_to_last();
                }
            }
        }
        self.skip_backward();
    }
    fn seek(&mut self, target: &[u8]) {
        let i = self
            .files
            .partition_point(|f| compare_internal_keys(&f.largest, target) == Ordering::Less);
        let before = self
            .files
            .get(i)
            .is_some_and(|f| compare_internal_keys(target, &f.smallest) != Ordering::Greater);
        if before {
            self.stop_lazily(i);
            return;
        }
        if self.open(i) {
            if let Some(c) = self.cur.as_mut() {
                c.seek(target);
            }
        }
        self.skip_forward();
    }
    fn seek_for_prev(&mut self, target: &[u8]) {
        self.lazy = false;
        // Last file whose smallest key is <= target.
        let i = self
            .files
            .partition_point(|f| compare_internal_keys(&f.smallest, target) != Ordering::Greater);
        match i.checked_sub(1) {
            Some(i) if self.open(i) => {
                if let Some(c) = self.cur.as_mut() {
                    c.seek_for_prev(target);
                }
                self.skip_backward();
            }
            _ => self.cur = None,
        }
    }
    fn next(&mut self) {
        if self.lazy {
            // The entry after the lazy key: the table's first entry, unless
            // it is the lazy key itself.
            let lazy_key = self.files[self.index].smallest.clone();
            self.materialize();
            if self.valid() && compare_internal_keys(self.key(), &lazy_key) != Ordering::Equal {
                return;
            }
            if !self.valid() {
                return;
            }
        }
        if let Some(c) = self.cur.as_mut() {
            c.next();
        }
        self.skip_forward();
    }
    fn prev(&mut self) {
        if self.lazy {
            // Every entry before the lazy key lies in an earlier table.
            self.lazy = false;
            self.cur = None;
            if self.index == 0 || !self.open(self.index - 1) {
                return;
            }
            if let Some(c) = self.cur.as_mut() {
                c.seek_to_last();
            }
            self.skip_backward();
            return;
        }
        if let Some(c) = self.cur.as_mut() {
            c.prev();
        }
        self.skip_backward();
    }
    fn key(&self) -> &[u8] {
        if self.lazy {
            return &self.files[self.index].smallest;
        }
        self.cur.as_ref().expect("valid").key()
    }
    fn value(&self) -> &[u8] {
        debug_assert!(!self.lazy, "value() of a lazy position");
        self.cur.as_ref().expect("valid").value()
    }
    fn pinned_value(&self) -> Option<crate::pinnable::PinnableSlice> {
        if self.lazy {
            return None;
        }
        self.cur.as_ref()?.pinned_value()
    }
    fn is_lazy(&self) -> bool {
        self.lazy && self.error.is_none()
    }
    fn materialize(&mut self) {
        if !self.lazy {
            return;
        }
        if self.open(self.index) {
            if let Some(c) = self.cur.as_mut() {
                c.seek_to_first();
            }
        }
        self.skip_forward();
    }
    fn status(&self) -> Result<()> {
        match &self.error {
            Some(e) => Err(e.duplicate()),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sstable::{TableBuilder, TableOptions};
    use crate::types::{make_internal_key, ValueType};

    fn ikey(i: u32) -> Vec<u8> {
        make_internal_key(format!("k{i:03}").as_bytes(), 1, ValueType::Value)
    }

    /// Three tables, keys `[0, 10)`, `[20, 30)`, `[40, 50)`; the middle
    /// one's metadata claims a smallest key of 15 (as a range tombstone
    /// starting before its first entry would make it).
    fn level(dir: &std::path::Path) -> LevelIterator {
        let fs = crate::fs::default_fs();
        let mut files = Vec::new();
        for (n, lo) in [(1u64, 0u32), (2, 20), (3, 40)] {
            let path = crate::filename::table_file_name(dir, n);
            let w = fs.create(&path).unwrap();
            let mut b = TableBuilder::new(&TableOptions::default(), w, path.display().to_string());
            for i in lo..lo + 10 {
                b.add(&ikey(i), format!("v{i}").as_bytes()).unwrap();
            }
            b.finish().unwrap();
            let smallest = if n == 2 { ikey(15) } else { ikey(lo) };
            files.push(Arc::new(FileMetaData {
                number: n,
                smallest,
                largest: ikey(lo + 9),
                ..FileMetaData::default()
            }));
        }
        let cache = Arc::new(TableCache::new(dir.to_path_buf(), fs, 10, None, None));
        LevelIterator::new(files, cache, ReadOpts::default())
    }

    #[test]
    fn a_seek_into_a_gap_stops_lazily_at_the_next_tables_smallest_key() {
        let dir = tempfile::tempdir().unwrap();
        let mut it = level(dir.path());
        it.seek(&ikey(12));
        assert!(it.valid() && it.is_lazy());
        assert_eq!(it.key(), &ikey(15)[..], "the metadata's smallest key");
        it.materialize();
        assert!(!it.is_lazy());
        assert_eq!(it.key(), &ikey(20)[..], "the table's first entry");
        assert_eq!(it.value(), b"v20");
        // A seek inside a table reads it at once.
        it.seek(&ikey(25));
        assert!(!it.is_lazy());
        assert_eq!(it.value(), b"v25");
        // Past the last table: invalid, nothing to read.
        it.seek(&ikey(60));
        assert!(!it.valid());
        it.status().unwrap();
    }

    #[test]
    fn moving_from_a_lazy_position_lands_where_a_read_position_would() {
        let dir = tempfile::tempdir().unwrap();
        let mut it = level(dir.path());
        // next: the first entry after the lazy key, which (the table
        // starting after its smallest key) is the table's first entry.
        it.seek(&ikey(12));
        it.next();
        assert_eq!(it.key(), &ikey(20)[..]);
        // A lazy key that is the table's first entry is stepped over.
        it.seek(&ikey(35));
        assert_eq!(it.key(), &ikey(40)[..]);
        assert!(it.is_lazy());
        it.next();
        assert_eq!(it.key(), &ikey(41)[..]);
        // prev: the last entry of the table before.
        it.seek(&ikey(12));
        it.prev();
        assert!(!it.is_lazy());
        assert_eq!(it.key(), &ikey(9)[..]);
        // prev from a lazy stop before the first table: nothing.
        it.seek(&ikey(0));
        assert!(it.is_lazy());
        it.prev();
        assert!(!it.valid());
        it.status().unwrap();
        // seek_to_first stops lazily too; seek_to_last and seek_for_prev read.
        it.seek_to_first();
        assert!(it.is_lazy());
        it.seek_to_last();
        assert_eq!(it.key(), &ikey(49)[..]);
        it.seek_for_prev(&ikey(17));
        assert_eq!(it.key(), &ikey(9)[..]);
    }
}
