//! Concatenates the tables of one sorted level (L1 and deeper) into one
//! iterator, opening each table lazily through the table cache.

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
            error: None,
        }
    }

    fn open(&mut self, index: usize) -> bool {
        self.index = index;
        self.cur = None;
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
        self.error.is_none() && self.cur.as_ref().is_some_and(|c| c.valid())
    }
    fn seek_to_first(&mut self) {
        if self.open(0) {
            if let Some(c) = self.cur.as_mut() {
                c.seek_to_first();
            }
        }
        self.skip_forward();
    }
    fn seek_to_last(&mut self) {
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
        if self.open(i) {
            if let Some(c) = self.cur.as_mut() {
                c.seek(target);
            }
        }
        self.skip_forward();
    }
    fn seek_for_prev(&mut self, target: &[u8]) {
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
        if let Some(c) = self.cur.as_mut() {
            c.next();
        }
        self.skip_forward();
    }
    fn prev(&mut self) {
        if let Some(c) = self.cur.as_mut() {
            c.prev();
        }
        self.skip_backward();
    }
    fn key(&self) -> &[u8] {
        self.cur.as_ref().expect("valid").key()
    }
    fn value(&self) -> &[u8] {
        self.cur.as_ref().expect("valid").value()
    }
    fn status(&self) -> Result<()> {
        match &self.error {
            Some(e) => Err(e.duplicate()),
            None => Ok(()),
        }
    }
}
