//! The memtable: a concurrent skiplist of internal keys holding the newest
//! writes until they are flushed to an L0 table.

pub mod arena;
pub mod filter;
mod iter;
pub mod skiplist;

pub use iter::MemTableIterator;

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use parking_lot::Mutex;

use filter::MemFilter;
use skiplist::SkipList;

use crate::filename::FileNumber;
use crate::options::Options;
use crate::range_del::{FragmentedTombstones, RangeTombstone};
use crate::sstable::bloom::bloom_hash;
use crate::types::{
    make_internal_key, parse_internal_key, SequenceNumber, ValueType, VALUE_TYPE_FOR_SEEK,
};

/// What a memtable knows about a key as of a sequence number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemGet {
    /// The newest visible version that is not a merge operand is a value
    /// (or blob index) of this type.
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
    /// Why it was made immutable (RocksDB's flush reason name), set once
    /// when the DB switches it out.
    flush_reason: std::sync::OnceLock<&'static str>,
    /// Range tombstones (RocksDB's range-del memtable), kept apart from
    /// the point entries, with their fragments cached until the next one.
    range_dels: Mutex<RangeDels>,
    has_range_dels: AtomicBool,
    /// A bloom filter over the point entries' user keys
    /// (`memtable_whole_key_filtering`), when the options ask for one.
    filter: Option<MemFilter>,
}

#[derive(Debug, Default)]
struct RangeDels {
    list: Vec<RangeTombstone>,
    fragmented: Option<Arc<FragmentedTombstones>>,
}

impl MemTable {
    /// An empty memtable whose writes are logged in WAL `wal_number`, with
    /// arena blocks of `arena_block` bytes ([`arena::block_size`]).
    /// No key filter.
    #[cfg(test)]
    pub fn new(wal_number: FileNumber, arena_block: usize) -> Self {
        Self::with_filter(wal_number, arena_block, 0)
    }

    /// The memtable a column family with options `o` uses: its arena block
    /// size and its key filter's size ([`Options::memtable_filter_bytes`]).
    pub fn for_options(wal_number: FileNumber, o: &Options) -> Self {
        Self::with_filter(
            wal_number,
            o.effective_arena_block_size(),
            o.memtable_filter_bytes(),
        )
    }

    /// As [`MemTable::new`], with a key filter of `filter_bytes` bytes (none
    /// for 0).
    pub fn with_filter(wal_number: FileNumber, arena_block: usize, filter_bytes: usize) -> Self {
        MemTable {
            list: SkipList::new(arena_block),
            entries: AtomicU64::new(0),
            deletions: AtomicU64::new(0),
            first_seq: AtomicU64::new(u64::MAX),
            wal_number,
            flush_reason: std::sync::OnceLock::new(),
            range_dels: Mutex::new(RangeDels::default()),
            has_range_dels: AtomicBool::new(false),
            filter: MemFilter::new(filter_bytes),
        }
    }

    /// Records why the memtable is being made immutable; the first call
    /// wins.
    pub fn set_flush_reason(&self, reason: &'static str) {
        let _ = self.flush_reason.set(reason);
    }

    /// The reason [`MemTable::set_flush_reason`] recorded (`Other` when
    /// none was).
    pub fn flush_reason(&self) -> &'static str {
        self.flush_reason.get().copied().unwrap_or("Other")
    }

    /// Adds one entry. `seq` must be unique across the DB. A range
    /// deletion (`key` its begin, `value` its end) goes to the range
    /// tombstones.
    pub fn add(&self, seq: SequenceNumber, t: ValueType, key: &[u8], value: &[u8]) {
        if t == ValueType::RangeDeletion {
            let mut r = self.range_dels.lock();
            r.list.push(RangeTombstone::new(key, value, seq));
            r.fragmented = None;
            self.has_range_dels.store(true, Ordering::Release);
            self.entries.fetch_add(1, Ordering::Relaxed);
            self.first_seq.fetch_min(seq, Ordering::Relaxed);
            return;
        }
        // The key's bits go in before the entry: a reader that sees the
        // entry sees them.
        if let Some(f) = &self.filter {
            f.add_hash(bloom_hash(key));
        }
        let ikey = make_internal_key(key, seq, t);
        self.list.insert(&ikey, value);
        self.entries.fetch_add(1, Ordering::Relaxed);
        if t == ValueType::Deletion {
            self.deletions.fetch_add(1, Ordering::Relaxed);
        }
        self.first_seq.fetch_min(seq, Ordering::Relaxed);
    }

    /// Looks up the newest version of `key` with sequence `<= seq`. Merge
    /// operands met on the way are pushed onto `operands` (newest first)
    /// and the walk goes on to older versions, so the answer is then what
    /// lies under them (`Absent` when this memtable holds nothing older).
    ///
    /// `tomb` is the newest sequence number of a range tombstone covering
    /// `key` seen in newer data (0: none); it is raised by this memtable's
    /// own tombstones, and a version older than it reads as deleted.
    pub fn get(
        &self,
        key: &[u8],
        seq: SequenceNumber,
        operands: &mut Vec<Vec<u8>>,
        tomb: &mut SequenceNumber,
    ) -> MemGet {
        if self.has_range_dels.load(Ordering::Acquire) {
            if let Some(t) = self.range_tombstones().max_covering_seq(key, seq) {
                *tomb = (*tomb).max(t);
            }
        }
        if !self.may_contain(key) {
            return MemGet::Absent;
        }
        let lookup = make_internal_key(key, seq, VALUE_TYPE_FOR_SEEK);
        let mut node = self.list.seek(&lookup);
        while let Some(n) = node {
            match parse_internal_key(n.key()) {
                Some(p) if p.user_key == key && p.seq < *tomb => return MemGet::Deleted,
                Some(p) if p.user_key == key => match p.value_type {
                    ValueType::Deletion | ValueType::RangeDeletion => return MemGet::Deleted,
                    ValueType::Merge => operands.push(n.value().to_vec()),
                    t => return MemGet::Found(t, n.value().to_vec()),
                },
                _ => return MemGet::Absent,
            }
            node = self.list.next(n);
        }
        MemGet::Absent
    }

    /// False when the key filter shows no point entry for `key` was added
    /// (true without a filter).
    pub fn may_contain(&self, key: &[u8]) -> bool {
        self.filter
            .as_ref()
            .is_none_or(|f| f.may_contain_hash(bloom_hash(key)))
    }

    /// Bytes of the key filter (0 without one).
    pub fn filter_bytes(&self) -> usize {
        self.filter.as_ref().map_or(0, MemFilter::size)
    }

    /// The range tombstones, fragmented (empty if there are none).
    pub fn range_tombstones(&self) -> Arc<FragmentedTombstones> {
        if !self.has_range_dels.load(Ordering::Acquire) {
            return Arc::default();
        }
        let mut r = self.range_dels.lock();
        if let Some(f) = &r.fragmented {
            return f.clone();
        }
        let f = Arc::new(FragmentedTombstones::new(&r.list));
        r.fragmented = Some(f.clone());
        f
    }

    /// Bytes charged to this memtable so far: its arena's blocks less what
    /// is left of the current one, and its key filter (which RocksDB
    /// allocates from the arena).
    pub fn approximate_memory_usage(&self) -> usize {
        self.list.memory_usage() + self.filter_bytes()
    }

    /// True when the memtable should be switched and flushed: it holds
    /// entries and its arena is full for `write_buffer_size`
    /// ([`arena::memtable_full`], RocksDB's rule), the key filter's bytes
    /// counted as allocated (RocksDB's filter is a block of its arena).
    pub fn is_full(&self, write_buffer_size: usize) -> bool {
        let (allocated, unused) = self.list.arena_usage();
        !self.is_empty()
            && arena::memtable_full(
                allocated + self.filter_bytes(),
                unused,
                self.list.arena_block(),
                write_buffer_size,
            )
    }

    /// Number of entries (puts, deletes, merges and range deletions).
    pub fn num_entries(&self) -> u64 {
        self.entries.load(Ordering::Relaxed)
    }

    /// Number of tombstones.
    pub fn num_deletions(&self) -> u64 {
        self.deletions.load(Ordering::Relaxed)
    }

    /// True when nothing was inserted.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty() && !self.has_range_dels.load(Ordering::Acquire)
    }

    /// The WAL number holding this memtable's writes.
    pub fn wal_number(&self) -> FileNumber {
        self.wal_number
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iter::InternalIterator;
    use std::sync::Arc;
    use ValueType::{Deletion, Merge, Value};

    /// A memtable holding `entries` (type, key, value) at sequence numbers
    /// 1, 2, ... in the order given.
    fn filled(entries: &[(ValueType, &str, &str)]) -> MemTable {
        let m = MemTable::new(1, 4096);
        for (seq, (t, k, v)) in (1..).zip(entries) {
            m.add(seq, *t, k.as_bytes(), v.as_bytes());
        }
        m
    }

    #[test]
    fn get_sees_newest_visible_version() {
        let m = filled(&[
            (Value, "a", "v1"),
            (Value, "a", "v2"),
            (Deletion, "a", ""),
            (Value, "b", "x"),
        ]);
        let get = |k: &[u8], seq| {
            let mut ops = Vec::new();
            let r = m.get(k, seq, &mut ops, &mut 0);
            assert!(ops.is_empty());
            r
        };
        assert_eq!(
            get(b"a", 1),
            MemGet::Found(ValueType::Value, b"v1".to_vec())
        );
        assert_eq!(
            get(b"a", 2),
            MemGet::Found(ValueType::Value, b"v2".to_vec())
        );
        assert_eq!(get(b"a", 3), MemGet::Deleted);
        assert_eq!(get(b"a", 100), MemGet::Deleted);
        assert_eq!(get(b"b", 3), MemGet::Absent);
        assert_eq!(get(b"c", 100), MemGet::Absent);
        assert_eq!(get(b"", 100), MemGet::Absent);
        assert_eq!(m.num_entries(), 4);
        assert_eq!(m.num_deletions(), 1);
    }

    #[test]
    fn get_collects_merge_operands_down_to_what_lies_under_them() {
        let m = filled(&[
            (Value, "a", "base"),
            (Merge, "a", "m2"),
            (Merge, "a", "m3"),
            (Deletion, "a", ""),
            (Merge, "a", "m5"),
            (Merge, "b", "only"),
        ]);
        let mut ops = Vec::new();
        assert_eq!(
            m.get(b"a", 3, &mut ops, &mut 0),
            MemGet::Found(ValueType::Value, b"base".to_vec())
        );
        assert_eq!(ops, vec![b"m3".to_vec(), b"m2".to_vec()]);
        ops.clear();
        assert_eq!(m.get(b"a", 100, &mut ops, &mut 0), MemGet::Deleted);
        assert_eq!(ops, vec![b"m5".to_vec()]);
        ops.clear();
        // Only operands, then another key: nothing under them here.
        assert_eq!(m.get(b"b", 100, &mut ops, &mut 0), MemGet::Absent);
        assert_eq!(ops, vec![b"only".to_vec()]);
    }

    #[test]
    fn iterator_walks_both_ways() {
        let m = Arc::new(filled(&[
            (Value, "d", "d"),
            (Value, "b", "b"),
            (Value, "a", "a"),
            (Value, "c", "c"),
        ]));
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

    /// Entries a 64 MiB memtable takes before it is full, with 16-byte keys
    /// and `value_len`-byte values, inserted in random order.
    fn entries_until_full(value_len: usize) -> u64 {
        let wbs = 64 << 20;
        let m = MemTable::new(1, arena::block_size(0, wbs));
        let value = vec![b'v'; value_len];
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut seq = 1;
        while !m.is_full(wbs) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            m.add(
                seq,
                ValueType::Value,
                format!("{:016}", x % 10_000_000).as_bytes(),
                &value,
            );
            seq += 1;
        }
        m.num_entries()
    }

    /// RocksDB 10.4.2's memtables took 62,280 1 KB entries, 16,066-16,069 of
    /// 4 KB and 460,759-460,780 of 100 bytes before a flush at the default
    /// 64 MiB write buffer (`total_num_input_entries` of `flush_started` in
    /// its LOG, `strata bench --engine=rocksdb --benchmarks=fillrandom
    /// --disable_wal=1`); the skiplist's random heights move the count by a
    /// few dozen at most. Strata's memtables held 62,448, 16,184 and 433,906
    /// (0.3% and 0.7% more, 5.8% fewer) before they charged memory as
    /// RocksDB's arena does.
    #[test]
    fn memtable_holds_as_many_entries_as_rocksdbs() {
        let n = entries_until_full(1024);
        assert!((62_230..=62_330).contains(&n), "1 KB: {n}");
        let n = entries_until_full(4096);
        assert!((16_040..=16_095).contains(&n), "4 KB: {n}");
        let n = entries_until_full(100);
        assert!((460_600..=460_950).contains(&n), "100 B: {n}");
    }

    /// A memtable with a key filter answers every Get as one without: the
    /// filter only skips searches that would find nothing. Random puts,
    /// deletes, merges and range deletions over a small key space, then
    /// Gets of present and absent keys at every sequence number.
    #[test]
    fn filtered_memtable_answers_every_get_as_an_unfiltered_one() {
        let plain = MemTable::new(1, 4096);
        let filtered = MemTable::with_filter(1, 4096, 256);
        let mut x: u64 = 0x2545_F491_4F6C_DD1D;
        let mut rnd = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let n = 600u64;
        for seq in 1..=n {
            let k = format!("k{:03}", rnd(200));
            let (t, v) = match rnd(10) {
                0 => (Deletion, String::new()),
                1 | 2 => (Merge, format!("m{seq}")),
                3 => (ValueType::RangeDeletion, format!("k{:03}", rnd(200))),
                _ => (Value, format!("v{seq}")),
            };
            for m in [&plain, &filtered] {
                m.add(seq, t, k.as_bytes(), v.as_bytes());
            }
        }
        for key in 0..400u64 {
            let k = format!("k{key:03}");
            for seq in (0..=n).step_by(7) {
                let (mut ops_p, mut ops_f) = (Vec::new(), Vec::new());
                let (mut tomb_p, mut tomb_f) = (0, 0);
                let p = plain.get(k.as_bytes(), seq, &mut ops_p, &mut tomb_p);
                let f = filtered.get(k.as_bytes(), seq, &mut ops_f, &mut tomb_f);
                assert_eq!(p, f, "{k} at {seq}");
                assert_eq!(ops_p, ops_f, "{k} at {seq}");
                assert_eq!(tomb_p, tomb_f, "{k} at {seq}");
            }
        }
        // Keys 200-399 were never written: the filter rules most of them out.
        let ruled_out = (200..400u64)
            .filter(|i| !filtered.may_contain(format!("k{i:03}").as_bytes()))
            .count();
        assert!(ruled_out > 150, "{ruled_out} of 200 absent keys ruled out");
        assert!((0..400u64).all(|i| plain.may_contain(format!("k{i:03}").as_bytes())));
    }

    /// The filter's bytes count as the memtable's: with a filter of a tenth
    /// of the write buffer the memtable is full about a tenth sooner.
    #[test]
    fn filter_bytes_count_toward_the_memtables_size() {
        let wbs = 4 << 20;
        let fill = |filter_bytes: usize| {
            let m = MemTable::with_filter(1, arena::block_size(0, wbs), filter_bytes);
            let base = m.approximate_memory_usage();
            let mut seq = 1;
            while !m.is_full(wbs) {
                m.add(seq, Value, format!("{seq:016}").as_bytes(), &[b'v'; 1000]);
                seq += 1;
            }
            (base, m.num_entries())
        };
        let (base_plain, plain) = fill(0);
        let (base_filtered, filtered) = fill(wbs / 10);
        // Rounded up to whole 64-byte lines.
        assert!((wbs / 10..wbs / 10 + 64).contains(&(base_filtered - base_plain)));
        let share = filtered as f64 / plain as f64;
        assert!((0.85..0.95).contains(&share), "{filtered} against {plain}");
    }

    #[test]
    fn concurrent_inserts_are_all_visible() {
        let m = Arc::new(MemTable::new(1, 4096));
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
                m.get(k.as_bytes(), u64::MAX >> 8, &mut Vec::new(), &mut 0),
                MemGet::Found(..)
            ));
        }
    }
}
