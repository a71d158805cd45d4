//! An [`InternalIterator`] over a memtable that keeps the memtable alive.

use std::ops::Bound;
use std::sync::Arc;

use crossbeam_skiplist::set::Entry;

use super::entry::{IKey, MemEntry};
use super::MemTable;
use crate::iter::InternalIterator;

/// Iterates a memtable in internal-key order.
pub struct MemTableIterator {
    // Field order matters: `cur` borrows from `mem` and must drop first.
    cur: Option<Entry<'static, MemEntry>>,
    mem: Arc<MemTable>,
}

impl MemTableIterator {
    /// An unpositioned iterator over `mem`.
    pub fn new(mem: Arc<MemTable>) -> Self {
        MemTableIterator { cur: None, mem }
    }

    fn position(&mut self, f: impl FnOnce(&MemTable) -> Option<Entry<'_, MemEntry>>) {
        let mem = self.mem.clone();
        // SAFETY: the entry points into the skiplist of `self.mem` (the same
        // Arc as `mem`), which `self` keeps alive for at least as long as
        // `cur`: fields drop in declaration order, and `mem` is never
        // reassigned.
        self.cur = f(&mem).map(|e| unsafe {
            std::mem::transmute::<Entry<'_, MemEntry>, Entry<'static, MemEntry>>(e)
        });
    }

    fn entry(&self) -> &MemEntry {
        self.cur
            .as_ref()
            .map(|e| e.value())
            .expect("valid() checked by caller")
    }
}

impl InternalIterator for MemTableIterator {
    fn valid(&self) -> bool {
        self.cur.is_some()
    }
    fn seek_to_first(&mut self) {
        self.position(|m| m.set.front());
    }
    fn seek_to_last(&mut self) {
        self.position(|m| m.set.back());
    }
    fn seek(&mut self, target: &[u8]) {
        self.position(|m| m.set.lower_bound(Bound::Included(IKey::new(target))));
    }
    fn seek_for_prev(&mut self, target: &[u8]) {
        self.position(|m| m.set.upper_bound(Bound::Included(IKey::new(target))));
    }
    fn next(&mut self) {
        let n = self.cur.as_ref().and_then(|e| e.next());
        self.cur = n;
    }
    fn prev(&mut self) {
        let p = self.cur.as_ref().and_then(|e| e.prev());
        self.cur = p;
    }
    fn key(&self) -> &[u8] {
        self.entry().ikey()
    }
    fn value(&self) -> &[u8] {
        self.entry().value()
    }
    fn status(&self) -> crate::Result<()> {
        Ok(())
    }
}
