//! Snapshots: a pinned sequence number that compactions must respect.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use crate::types::SequenceNumber;

/// The set of live snapshots, counted per sequence number.
#[derive(Debug, Default)]
pub struct SnapshotList {
    seqs: Mutex<BTreeMap<SequenceNumber, Entry>>,
}

/// The snapshots at one sequence number.
#[derive(Debug, Clone, Copy)]
struct Entry {
    count: usize,
    /// When the first of them was taken, seconds since the Unix epoch.
    unix_time: u64,
}

impl Entry {
    fn register(m: &mut BTreeMap<SequenceNumber, Entry>, seq: SequenceNumber) {
        m.entry(seq)
            .or_insert_with(|| Entry {
                count: 0,
                unix_time: unix_now(),
            })
            .count += 1;
    }
}

fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl SnapshotList {
    /// All live snapshot sequence numbers, ascending (duplicates merged).
    pub fn sequences(&self) -> Vec<SequenceNumber> {
        self.seqs.lock().keys().copied().collect()
    }

    /// Number of live snapshots.
    pub fn count(&self) -> usize {
        self.seqs.lock().values().map(|e| e.count).sum()
    }

    /// Oldest live snapshot, if any.
    pub fn oldest(&self) -> Option<SequenceNumber> {
        self.seqs.lock().keys().next().copied()
    }

    /// When the oldest live snapshot was taken, in seconds since the Unix
    /// epoch (`rocksdb.oldest-snapshot-time`), if any is live.
    pub fn oldest_unix_time(&self) -> Option<u64> {
        self.seqs.lock().values().next().map(|e| e.unix_time)
    }

    #[cfg(test)]
    fn acquire(&self, seq: SequenceNumber) {
        Entry::register(&mut self.seqs.lock(), seq);
    }

    fn release(&self, seq: SequenceNumber) {
        let mut m = self.seqs.lock();
        if let Some(e) = m.get_mut(&seq) {
            e.count -= 1;
            if e.count == 0 {
                m.remove(&seq);
            }
        }
    }
}

struct SnapshotInner {
    seq: SequenceNumber,
    list: Arc<SnapshotList>,
}

impl Drop for SnapshotInner {
    fn drop(&mut self) {
        self.list.release(self.seq);
    }
}

/// A consistent, read-only view of the DB as of one moment. Reads through a
/// snapshot see every write acknowledged before it was taken and none
/// after. Released when the last clone is dropped.
#[derive(Clone)]
pub struct Snapshot {
    inner: Arc<SnapshotInner>,
}

impl Snapshot {
    #[cfg(test)]
    pub(crate) fn new(list: &Arc<SnapshotList>, seq: SequenceNumber) -> Self {
        list.acquire(seq);
        Self::from_registered(list, seq)
    }

    /// A snapshot at the current value of `last_sequence`, read while the
    /// list is locked: a flush or compaction that captures the list either
    /// sees this snapshot or started before its sequence was read (so all
    /// its inputs are at or below it). Reading the sequence first and
    /// registering after would let a job drop versions the snapshot needs.
    pub(crate) fn latest(list: &Arc<SnapshotList>, last_sequence: &AtomicU64) -> Self {
        let seq = {
            let mut m = list.seqs.lock();
            let seq = last_sequence.load(Ordering::Acquire);
            Entry::register(&mut m, seq);
            seq
        };
        Self::from_registered(list, seq)
    }

    fn from_registered(list: &Arc<SnapshotList>, seq: SequenceNumber) -> Self {
        Snapshot {
            inner: Arc::new(SnapshotInner {
                seq,
                list: list.clone(),
            }),
        }
    }

    /// The sequence number the snapshot reads at.
    pub fn sequence(&self) -> SequenceNumber {
        self.inner.seq
    }
}

impl fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Snapshot({})", self.inner.seq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn released_on_last_drop() {
        let list = Arc::new(SnapshotList::default());
        let a = Snapshot::new(&list, 5);
        let b = a.clone();
        let c = Snapshot::new(&list, 9);
        assert_eq!(list.sequences(), vec![5, 9]);
        drop(a);
        assert_eq!(list.oldest(), Some(5));
        drop(b);
        assert_eq!(list.sequences(), vec![9]);
        drop(c);
        assert_eq!(list.count(), 0);
    }

    #[test]
    fn oldest_time_is_the_first_snapshots_and_goes_with_it() {
        let list = Arc::new(SnapshotList::default());
        assert_eq!(list.oldest_unix_time(), None);
        let before = unix_now();
        let a = Snapshot::new(&list, 5);
        let t = list.oldest_unix_time().unwrap();
        assert!(t >= before && t <= unix_now());
        let b = Snapshot::new(&list, 9);
        assert_eq!(list.oldest_unix_time(), Some(t));
        drop(a);
        assert!(list.oldest_unix_time().unwrap() >= t);
        drop(b);
        assert_eq!(list.oldest_unix_time(), None);
    }
}
