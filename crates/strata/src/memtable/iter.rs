//! An [`InternalIterator`] over a memtable that keeps the memtable alive.

use std::sync::Arc;

use super::skiplist::NodeRef;
use super::MemTable;
use crate::iter::InternalIterator;

/// Iterates a memtable in internal-key order.
pub struct MemTableIterator {
    mem: Arc<MemTable>,
    // Valid while `mem` is alive, which `self` guarantees.
    cur: Option<NodeRef>,
}

impl MemTableIterator {
    /// An unpositioned iterator over `mem`.
    pub fn new(mem: Arc<MemTable>) -> Self {
        MemTableIterator { mem, cur: None }
    }

    fn node(&self) -> NodeRef {
        self.cur.expect("valid() checked by caller")
    }
}

impl InternalIterator for MemTableIterator {
    fn valid(&self) -> bool {
        self.cur.is_some()
    }
    fn seek_to_first(&mut self) {
        self.cur = self.mem.list.first();
    }
    fn seek_to_last(&mut self) {
        self.cur = self.mem.list.last();
    }
    fn seek(&mut self, target: &[u8]) {
        self.cur = self.mem.list.seek(target);
    }
    fn seek_for_prev(&mut self, target: &[u8]) {
        self.cur = self.mem.list.seek_for_prev(target);
    }
    fn next(&mut self) {
        self.cur = self.cur.and_then(|n| self.mem.list.next(n));
    }
    fn prev(&mut self) {
        self.cur = self.cur.and_then(|n| self.mem.list.prev(n));
    }
    fn key(&self) -> &[u8] {
        self.node().key()
    }
    fn value(&self) -> &[u8] {
        self.node().value()
    }
    fn status(&self) -> crate::Result<()> {
        Ok(())
    }
}
