//! The memtable: a concurrent skiplist of internal keys holding the newest
//! writes until they are flushed to an L0 table.

mod iter;
pub mod skiplist;

pub use iter::MemTableIterator;

use std::sync::atomic::{AtomicU64, Ordering};

use skiplist::SkipList;

use crate::filename::FileNumber;
use crate::types::{
    make_internal_key, parse_internal_key, SequenceNumber, ValueType, VALUE_TYPE_FOR_SEEK,
};

/// What a memtable knows about a key as of a sequence number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemGet {
    /// The newest visible version is a value (or blob index) of this type.
    Found(ValueType, Vec<u8>),
    /// The newest visible version is a tombstone.
    Deleted,
    /// No visible version here; look in older data.
    Absent,
}

/// One memtable. Inserts are lock-free and concurrent; reads never block.
#[derive(Debug)]
pub struct MemTable {
    list: SkipList,
    entries: AtomicU64,
    deletions: AtomicU64,
    first_seq: AtomicU64,
    /// The WAL whose records this memtable holds (0 when the WAL is off).
    wal_number: FileNumber,
    /// Unique id, increasing in creation order.
    id: u64,
}

impl MemTable {
    /// An empty memtable whose writes are logged in WAL `wal_number`.
    pub fn new(id: u64, wal_number: FileNumber) -> Self {
        MemTable {
            list: SkipList::new(),
            entries: AtomicU64::new(0),
            deletions: AtomicU64::new(0),
            first_seq: AtomicU64::new(u64::MAX),
            wal_number,
            id,
        }
    }

    /// Adds one entry. `seq` must be unique across the DB.
    pub fn add(&self, seq: SequenceNumber, t: ValueType, key: &[u8], value: &[u8]) {
        let ikey = make_internal_key(key, seq, t);
        self.list.insert(&ikey, value);
        self.entries.fetch_add(1, Ordering::Relaxed);
        if t == ValueType::Deletion {
            self.deletions.fetch_add(1, Ordering::Relaxed);
        }
        self.first_seq.fetch_min(seq, Ordering::Relaxed);
    }

    /// Looks up the newest version of `key` with sequence `<= seq`.
    pub fn get(&self, key: &[u8], seq: SequenceNumber) -> MemGet {
        let lookup = make_internal_key(key, seq, VALUE_TYPE_FOR_SEEK);
        let Some(node) = self.list.seek(&lookup) else {
            return MemGet::Absent;
        };
        match parse_internal_key(node.key()) {
            Some(p) if p.user_key == key => match p.value_type {
                ValueType::Deletion => MemGet::Deleted,
                t => MemGet::Found(t, node.value().to_vec()),
            },
            _ => MemGet::Absent,
        }
    }

    /// Bytes charged to this memtable so far.
    pub fn approximate_memory_usage(&self) -> usize {
        self.list.memory_usage()
    }

    /// Number of entries (puts and deletes).
    pub fn num_entries(&self) -> u64 {
        self.entries.load(Ordering::Relaxed)
    }

    /// Number of tombstones.
    pub fn num_deletions(&self) -> u64 {
        self.deletions.load(Ordering::Relaxed)
    }

    /// True when nothing was inserted.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Smallest sequence number inserted (`u64::MAX` when empty).
    pub fn first_seq(&self) -> SequenceNumber {
        self.first_seq.load(Ordering::Relaxed)
    }

    /// The WAL number holding this memtable's writes.
    pub fn wal_number(&self) -> FileNumber {
        self.wal_number
    }

    /// The memtable's id.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Calls `f(internal_key, value)` for every entry in order (used by flush).
    pub fn for_each(
        &self,
        mut f: impl FnMut(&[u8], &[u8]) -> crate::Result<()>,
    ) -> crate::Result<()> {
        let mut n = self.list.first();
        while let Some(node) = n {
            f(node.key(), node.value())?;
            n = self.list.next(node);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iter::InternalIterator;
    use std::sync::Arc;

    #[test]
    fn get_sees_newest_visible_version() {
        let m = MemTable::new(1, 1);
        m.add(1, ValueType::Value, b"a", b"v1");
        m.add(2, ValueType::Value, b"a", b"v2");
        m.add(3, ValueType::Deletion, b"a", b"");
        m.add(4, ValueType::Value, b"b", b"x");
        assert_eq!(
            m.get(b"a", 1),
            MemGet::Found(ValueType::Value, b"v1".to_vec())
        );
        assert_eq!(
            m.get(b"a", 2),
            MemGet::Found(ValueType::Value, b"v2".to_vec())
        );
        assert_eq!(m.get(b"a", 3), MemGet::Deleted);
        assert_eq!(m.get(b"a", 100), MemGet::Deleted);
        assert_eq!(m.get(b"b", 3), MemGet::Absent);
        assert_eq!(m.get(b"c", 100), MemGet::Absent);
        assert_eq!(m.get(b"", 100), MemGet::Absent);
        assert_eq!(m.num_entries(), 4);
        assert_eq!(m.num_deletions(), 1);
    }

    #[test]
    fn iterator_walks_both_ways() {
        let m = Arc::new(MemTable::new(1, 1));
        for (i, k) in [b"d", b"b", b"a", b"c"].iter().enumerate() {
            m.add(i as u64 + 1, ValueType::Value, *k, *k);
        }
        let mut it = MemTableIterator::new(m.clone());
        it.seek_to_first();
        let mut fwd = Vec::new();
        while it.valid() {
            fwd.push(crate::types::user_key(it.key()).to_vec());
            it.next();
        }
        assert_eq!(
            fwd,
            vec![b"a".to_vec(), b"b".to_vec(), b"c".to_vec(), b"d".to_vec()]
        );
        it.seek_to_last();
        let mut back = Vec::new();
        while it.valid() {
            back.push(it.value().to_vec());
            it.prev();
        }
        assert_eq!(
            back,
            vec![b"d".to_vec(), b"c".to_vec(), b"b".to_vec(), b"a".to_vec()]
        );
        it.seek(&make_internal_key(b"bb", 100, VALUE_TYPE_FOR_SEEK));
        assert_eq!(it.value(), b"c");
        it.seek_for_prev(&make_internal_key(b"bb", 100, VALUE_TYPE_FOR_SEEK));
        assert_eq!(it.value(), b"b");
    }

    #[test]
    fn concurrent_inserts_are_all_visible() {
        let m = Arc::new(MemTable::new(1, 1));
        let threads: Vec<_> = (0..4u64)
            .map(|t| {
                let m = m.clone();
                std::thread::spawn(move || {
                    for i in 0..2000u64 {
                        let k = format!("k{:05}", i * 4 + t);
                        m.add(i * 4 + t + 1, ValueType::Value, k.as_bytes(), b"v");
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(m.num_entries(), 8000);
        for i in 0..8000u64 {
            let k = format!("k{i:05}");
            assert!(matches!(
                m.get(k.as_bytes(), u64::MAX >> 8),
                MemGet::Found(..)
            ));
        }
    }
}
