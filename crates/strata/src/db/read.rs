//! The read path: point lookups through memtables and levels, and
//! iterators pinned to one super version.

use std::any::Any;
use std::ops::{Bound, RangeBounds};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use super::{DbInner, Family};
use crate::blob::BlobIndex;
use crate::compaction::read_triggered;
use crate::error::Result;
use crate::iter::read_sampler::ReadSampler;
use crate::iter::{DbIterator, InternalIterator, LevelIterator, MergingIterator};
use crate::memtable::{MemGet, MemTableIterator};
use crate::options::{Options, ReadOptions};
use crate::pinnable::PinnableSlice;
use crate::range_del::{self, FragmentedTombstones, RangeDelMaskIter};
use crate::sstable::auto_readahead::AutoReadahead;
use crate::sstable::{ReadOpts, Readahead};
use crate::stats::{Histogram, Ticker};
use crate::types::{
    make_internal_key, parse_internal_key, user_key, SequenceNumber, ValueType, VALUE_TYPE_FOR_SEEK,
};

impl DbInner {
    /// The super version and sequence number a read sees: the snapshot's
    /// sequence, or the last one published.
    ///
    /// The super version first, then the sequence (RocksDB's order): any
    /// flush or compaction in this super version started before the
    /// sequence was read, so it dropped no version visible at it; and every
    /// write acknowledged before this read is in this super version's
    /// memtables or files.
    fn read_view(&self, fam: &Family, opts: &ReadOptions) -> (super::SuperVersionRef, u64) {
        let sv = self.get_super_version(fam);
        let seq = match &opts.snapshot {
            Some(s) => s.sequence(),
            None => self.last_sequence.load(Ordering::Acquire),
        };
        (sv, seq)
    }

    pub(crate) fn get(
        &self,
        fam: &Family,
        opts: &ReadOptions,
        key: &[u8],
    ) -> Result<Option<PinnableSlice>> {
        let start = self.stats.as_ref().map(|_| Instant::now());
        let (sv, seq) = self.read_view(fam, opts);
        let result = self.get_from(fam, &sv, opts, key, seq);
        if let (Some(s), Some(t)) = (&self.stats, start) {
            s.record_histogram(Histogram::DbGet, t.elapsed().as_micros() as u64);
            s.record_tick(Ticker::NumberKeysRead, 1);
            if let Ok(Some(v)) = &result {
                s.record_tick(Ticker::BytesRead, v.len() as u64);
                s.record_histogram(Histogram::BytesPerRead, v.len() as u64);
            }
        }
        result
    }

    /// Looks up every key in `keys` in one super version at one sequence
    /// number, so the values are a consistent view, as one snapshot would
    /// give (RocksDB's `MultiGet`). Each key has its own result.
    pub(crate) fn multi_get(
        &self,
        fam: &Family,
        opts: &ReadOptions,
        keys: &[&[u8]],
    ) -> Vec<Result<Option<PinnableSlice>>> {
        let start = self.stats.as_ref().map(|_| Instant::now());
        let (sv, seq) = self.read_view(fam, opts);
        let results: Vec<_> = keys
            .iter()
            .map(|k| self.get_from(fam, &sv, opts, k, seq))
            .collect();
        if let (Some(s), Some(t)) = (&self.stats, start) {
            let (found, bytes) = results
                .iter()
                .filter_map(|r| r.as_ref().ok().and_then(Option::as_ref))
                .fold((0u64, 0u64), |(n, b), v| (n + 1, b + v.len() as u64));
            s.record_histogram(Histogram::DbMultiget, t.elapsed().as_micros() as u64);
            s.record_tick(Ticker::NumberMultigetCalls, 1);
            s.record_tick(Ticker::NumberMultigetKeysRead, keys.len() as u64);
            s.record_tick(Ticker::NumberMultigetKeysFound, found);
            s.record_tick(Ticker::NumberMultigetBytesRead, bytes);
            s.record_histogram(Histogram::BytesPerMultiget, bytes);
        }
        results
    }

    /// Looks `key` up as of `seq`: memtables newest first, then L0 files
    /// newest first, then one file per deeper level. Merge operands met on
    /// the way are gathered (newest first) until a value, a tombstone or
    /// the bottom, then merged through the family's operator.
    fn get_from(
        &self,
        fam: &Family,
        sv: &super::SuperVersion,
        opts: &ReadOptions,
        key: &[u8],
        seq: u64,
    ) -> Result<Option<PinnableSlice>> {
        let stats = self.stats.as_ref();
        let mut operands: Vec<Vec<u8>> = Vec::new();
        // The newest range tombstone covering `key` seen so far: older
        // versions read as deleted.
        let mut tomb: SequenceNumber = 0;
        for mem in std::iter::once(&sv.mem).chain(sv.imm.iter()) {
            let found = match mem.get(key, seq, &mut operands, &mut tomb) {
                MemGet::Found(t, v) => Some(Some(self.resolve(
                    t,
                    key,
                    PinnableSlice::owned(v),
                    opts,
                    "memtable",
                )?)),
                MemGet::Deleted => Some(None),
                MemGet::Absent => None,
            };
            if let Some(base) = found {
                if let Some(s) = stats {
                    s.record_tick(Ticker::MemtableHit, 1);
                }
                return self.finish_get(fam, key, base, &operands);
            }
        }
        if let Some(s) = stats {
            s.record_tick(Ticker::MemtableMiss, 1);
        }
        let lookup = make_internal_key(key, seq, VALUE_TYPE_FOR_SEEK);
        let ro = table_read_opts(opts, &fam.opts);
        let v = &sv.version;
        let mut counted = false;
        // Read-triggered compaction: the first table whose data block this
        // Get read without an answer, until a second table's block is read
        // (which charges it, once).
        let mut first_read: Option<&Arc<crate::version::edit::FileMetaData>> = None;
        let mut charged = !fam.reads.on();
        for level in 0..v.num_levels() {
            let files = v.files(level);
            let candidates: Vec<_> = if level == 0 {
                files
                    .iter()
                    .filter(|f| user_key(&f.smallest) <= key && key <= user_key(&f.largest))
                    .collect()
            } else {
                let i = v.find_file(level, &lookup);
                files
                    .get(i)
                    .filter(|f| user_key(&f.smallest) <= key)
                    .into_iter()
                    .collect()
            };
            let ro = ro.at_level(level, v.num_levels());
            for f in candidates {
                if tomb > 0 {
                    // A range tombstone of a newer memtable or table covers
                    // `key`: every version here and deeper is older (a
                    // table's key range covers its tombstones, so a newer
                    // version of a covered key never sits below one), so
                    // the rest of the tree is not read.
                    return if operands.is_empty() {
                        Ok(None)
                    } else {
                        self.finish_get(fam, key, None, &operands)
                    };
                }
                let table = self.table_cache.get(f.number)?;
                if let Some(t) = table.range_tombstones().max_covering_seq(key, seq) {
                    tomb = tomb.max(t);
                }
                let (found, read_block) = table.get_probe(&lookup, &ro)?;
                if read_block && !charged {
                    match first_read {
                        None => first_read = Some(f),
                        Some(first) => {
                            fam.reads.charge(first);
                            charged = true;
                        }
                    }
                }
                let Some((ikey, value)) = found else {
                    continue;
                };
                let Some(p) = parse_internal_key(&ikey) else {
                    return Err(crate::Error::corruption(
                        format!("{:06}.sst", f.number),
                        0,
                        "malformed internal key",
                    ));
                };
                if p.user_key != key {
                    continue;
                }
                if let (Some(s), false) = (stats, counted) {
                    counted = true;
                    s.record_tick(
                        match level {
                            0 => Ticker::GetHitL0,
                            1 => Ticker::GetHitL1,
                            _ => Ticker::GetHitL2AndUp,
                        },
                        1,
                    );
                }
                let base = match p.value_type {
                    _ if p.seq < tomb => None,
                    ValueType::Deletion | ValueType::RangeDeletion => None,
                    ValueType::Merge => {
                        match self.table_merge_walk(
                            &table,
                            &lookup,
                            key,
                            &ro,
                            &mut operands,
                            tomb,
                        )? {
                            MemGet::Found(t, v) => Some(self.resolve(
                                t,
                                key,
                                PinnableSlice::owned(v),
                                opts,
                                table.file_name(),
                            )?),
                            MemGet::Deleted => None,
                            MemGet::Absent => continue,
                        }
                    }
                    t => Some(self.resolve(t, key, value, opts, table.file_name())?),
                };
                return self.finish_get(fam, key, base, &operands);
            }
        }
        if operands.is_empty() {
            return Ok(None);
        }
        self.finish_get(fam, key, None, &operands)
    }

    /// The entries of `key` in `table` from `lookup` on, oldest last:
    /// merge operands are pushed onto `operands` until a value (`Found`) or
    /// a tombstone or a version older than the range tombstone `tomb`
    /// (`Deleted`); `Absent` when the table holds nothing under them.
    fn table_merge_walk(
        &self,
        table: &std::sync::Arc<crate::sstable::Table>,
        lookup: &[u8],
        key: &[u8],
        ro: &crate::sstable::ReadOpts,
        operands: &mut Vec<Vec<u8>>,
        tomb: SequenceNumber,
    ) -> Result<MemGet> {
        let mut it = table.iter(*ro);
        it.seek(lookup);
        while it.valid() {
            let Some(p) = parse_internal_key(it.key()) else {
                return Err(crate::Error::corruption(
                    table.file_name(),
                    0,
                    "malformed internal key",
                ));
            };
            if p.user_key != key {
                break;
            }
            match p.value_type {
                _ if p.seq < tomb => return Ok(MemGet::Deleted),
                ValueType::Merge => operands.push(it.value().to_vec()),
                ValueType::Deletion | ValueType::RangeDeletion => return Ok(MemGet::Deleted),
                t => return Ok(MemGet::Found(t, it.value().to_vec())),
            }
            it.next();
        }
        it.status()?;
        Ok(MemGet::Absent)
    }

    /// A point read's answer: `base` (the value found, `None` for a
    /// tombstone or nothing) merged with `operands` (newest first) when
    /// there are any.
    fn finish_get(
        &self,
        fam: &Family,
        key: &[u8],
        base: Option<PinnableSlice>,
        operands: &[Vec<u8>],
    ) -> Result<Option<PinnableSlice>> {
        if operands.is_empty() {
            return Ok(base);
        }
        let stats = self.stats.as_deref();
        if let Some(s) = stats {
            s.record_histogram(Histogram::ReadNumMergeOperands, operands.len() as u64);
        }
        let oldest_first: Vec<&[u8]> = operands.iter().rev().map(Vec::as_slice).collect();
        crate::merge::merge_for_read(
            fam.opts.merge_operator.as_ref(),
            key,
            base.as_deref(),
            &oldest_first,
            stats,
        )
        .map(|v| Some(PinnableSlice::owned(v)))
    }

    /// The user's value for an entry: itself, or the blob it points to.
    fn resolve(
        &self,
        t: ValueType,
        key: &[u8],
        value: PinnableSlice,
        opts: &ReadOptions,
        from: &str,
    ) -> Result<PinnableSlice> {
        if t != ValueType::BlobIndex {
            return Ok(value);
        }
        let index = BlobIndex::decode(&value).ok_or_else(|| {
            crate::Error::corruption(from, 0, "undecodable blob index in a table entry")
        })?;
        self.blob_source
            .get(key, &index, opts.fill_cache, opts.verify_checksums)
            .map(PinnableSlice::owned)
    }

    pub(crate) fn iter(&self, fam: &Family, opts: &ReadOptions) -> DbIterator {
        let (sv, seq) = self.read_view(fam, opts);
        let ro = table_read_opts(opts, &fam.opts);
        let mut children: Vec<Box<dyn InternalIterator>> = Vec::new();
        children.push(Box::new(MemTableIterator::new(sv.mem.clone())));
        for m in &sv.imm {
            children.push(Box::new(MemTableIterator::new(m.clone())));
        }
        let v = &sv.version;
        for f in v.files(0) {
            let ro = ro.at_level(0, v.num_levels());
            children.push(Box::new(LevelIterator::new(
                vec![f.clone()],
                self.table_cache.clone(),
                ro,
            )));
        }
        for level in 1..v.num_levels() {
            if !v.files(level).is_empty() {
                let ro = ro.at_level(level, v.num_levels());
                children.push(Box::new(LevelIterator::new(
                    v.files(level).to_vec(),
                    self.table_cache.clone(),
                    ro,
                )));
            }
        }
        let tombstones = self.read_tombstones(&sv);
        let sampler = read_sampler(fam, &sv.version);
        let mut pins: Vec<Box<dyn Any + Send + Sync>> = vec![Box::new(sv)];
        if let Some(s) = &opts.snapshot {
            pins.push(Box::new(s.clone()));
        }
        let merged: Box<dyn InternalIterator> = Box::new(MergingIterator::new(children));
        let (inner, error) = match tombstones {
            Ok(t) if t.is_empty() => (merged, None),
            Ok(t) => (
                Box::new(RangeDelMaskIter::new(merged, t, seq)) as Box<dyn InternalIterator>,
                None,
            ),
            Err(e) => (merged, Some(e)),
        };
        let it = DbIterator::new(
            inner,
            seq,
            opts.iterate_lower_bound.clone(),
            opts.iterate_upper_bound.clone(),
            pins,
        )
        .with_statistics(self.stats.clone())
        .with_blob_source(
            self.blob_source.clone(),
            opts.fill_cache,
            opts.verify_checksums,
        )
        .with_merge_operator(fam.opts.merge_operator.clone())
        .with_read_sampler(sampler);
        match error {
            Some(e) => it.with_error(e),
            None => it,
        }
    }

    /// Every range tombstone a reader of `sv` may meet: the memtables' and
    /// the tables' (the latter loaded once per super version).
    fn read_tombstones(&self, sv: &super::SuperVersion) -> Result<Arc<FragmentedTombstones>> {
        let files = match sv.file_range_tombstones.get() {
            Some(f) => f.clone(),
            None => {
                let v = &sv.version;
                let mut sets = Vec::new();
                for level in 0..v.num_levels() {
                    for f in v.files(level) {
                        let t = self.table_cache.get(f.number)?;
                        if !t.range_tombstones().is_empty() {
                            sets.push(t.range_tombstones().clone());
                        }
                    }
                }
                let all = Arc::new(range_del::union(sets.iter().map(|s| &**s)));
                sv.file_range_tombstones.get_or_init(|| all).clone()
            }
        };
        let mems: Vec<_> = std::iter::once(&sv.mem)
            .chain(sv.imm.iter())
            .map(|m| m.range_tombstones())
            .filter(|t| !t.is_empty())
            .collect();
        if mems.is_empty() {
            return Ok(files);
        }
        Ok(Arc::new(range_del::union(
            mems.iter().map(|m| &**m).chain(std::iter::once(&*files)),
        )))
    }
}

/// The read sampler of an iterator over `version` of `fam`, when
/// read-triggered compaction is on (`read_sampling_multiplier >= 0`).
fn read_sampler(fam: &Family, version: &Arc<crate::version::Version>) -> Option<ReadSampler> {
    /// Seeds of the samplers' draws: a new one per iterator.
    static NEXT_SEED: AtomicU64 = AtomicU64::new(0x2545_F491_4F6C_DD1D);
    // `None` when the multiplier is negative: read-triggered compaction off.
    let period = read_triggered::sample_period(fam.opts.read_sampling_multiplier)?;
    let seed = NEXT_SEED.fetch_add(0x9E37_79B9_7F4A_7C15, Ordering::Relaxed);
    Some(ReadSampler::new(
        version.clone(),
        fam.reads.clone(),
        period,
        seed,
    ))
}

/// `opts` with its iterate bounds narrowed to `range`: the iterator sees
/// the keys both allow. The bounds of [`ReadOptions`] are an inclusive
/// lower and an exclusive upper bound, so an excluded start `k` becomes the
/// lower bound `k\0` and an included end `k` the upper bound `k\0`: in
/// bytewise order no key lies between `k` and `k\0`, so both are exact.
pub(crate) fn with_range<K, R>(opts: &ReadOptions, range: &R) -> ReadOptions
where
    K: AsRef<[u8]> + ?Sized,
    R: RangeBounds<K>,
{
    let successor = |k: &K| {
        let mut v = k.as_ref().to_vec();
        v.push(0);
        v
    };
    let lower = match range.start_bound() {
        Bound::Included(k) => Some(k.as_ref().to_vec()),
        Bound::Excluded(k) => Some(successor(k)),
        Bound::Unbounded => None,
    };
    let upper = match range.end_bound() {
        Bound::Included(k) => Some(successor(k)),
        Bound::Excluded(k) => Some(k.as_ref().to_vec()),
        Bound::Unbounded => None,
    };
    with_bounds(opts, lower, upper)
}

/// `opts` with its iterate bounds narrowed to the keys that start with
/// `prefix`: from `prefix` up to [`prefix_successor`] (unbounded for a
/// prefix of 0xff bytes only, which every key at or above it starts with).
pub(crate) fn with_prefix(opts: &ReadOptions, prefix: &[u8]) -> ReadOptions {
    with_bounds(opts, Some(prefix.to_vec()), prefix_successor(prefix))
}

/// The smallest key greater than every key that starts with `prefix`: the
/// prefix without its trailing 0xff bytes, its last byte incremented.
/// `None` when there is none (an empty prefix, or 0xff bytes only).
pub(crate) fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let keep = prefix.iter().rposition(|&b| b != 0xff)?;
    let mut v = prefix[..=keep].to_vec();
    v[keep] += 1;
    Some(v)
}

/// `opts` with its bounds intersected with `[lower, upper)` (`None`:
/// unbounded).
fn with_bounds(opts: &ReadOptions, lower: Option<Vec<u8>>, upper: Option<Vec<u8>>) -> ReadOptions {
    let mut o = opts.clone();
    o.iterate_lower_bound = match (o.iterate_lower_bound.take(), lower) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    };
    o.iterate_upper_bound = match (o.iterate_upper_bound.take(), upper) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    };
    o
}

#[allow(dead_code)]
fn _assert_send_sync(sv: super::SuperVersionRef) -> Box<dyn Any + Send + Sync> {
    Box::new(sv)
}

/// How a user read (`get`, an iterator) reads the table files of a family
/// with options `fam_opts`.
fn table_read_opts(opts: &ReadOptions, fam_opts: &Options) -> ReadOpts {
    ReadOpts {
        verify_checksums: opts.verify_checksums,
        fill_cache: opts.fill_cache,
        for_compaction: false,
        last_level: false,
        readahead: if opts.readahead_size > 0 {
            Readahead::Fixed(opts.readahead_size)
        } else {
            Readahead::Auto(AutoReadahead {
                initial: fam_opts.initial_auto_readahead_size,
                max: fam_opts.max_auto_readahead_size,
                after_reads: fam_opts.num_file_reads_for_auto_readahead,
            })
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds(o: &ReadOptions) -> (Option<&[u8]>, Option<&[u8]>) {
        (
            o.iterate_lower_bound.as_deref(),
            o.iterate_upper_bound.as_deref(),
        )
    }

    #[test]
    fn ranges_become_an_inclusive_lower_and_exclusive_upper_bound() {
        let d = ReadOptions::default();
        let k = |s: &'static str| s.as_bytes();
        assert_eq!(
            bounds(&with_range(&d, &(k("a")..k("c")))),
            (Some(k("a")), Some(k("c")))
        );
        assert_eq!(
            bounds(&with_range(&d, &(k("a")..=k("c")))),
            (Some(k("a")), Some(&b"c\0"[..]))
        );
        // A pair of bounds of references is a range of both `&[u8]` and
        // `[u8]`: the key type is named.
        let excluded = (Bound::Excluded(k("a")), Bound::Unbounded);
        assert_eq!(
            bounds(&with_range::<[u8], _>(&d, &excluded)),
            (Some(&b"a\0"[..]), None)
        );
        let owned = (
            Bound::Excluded(b"a".to_vec()),
            Bound::Included(b"b".to_vec()),
        );
        assert_eq!(
            bounds(&with_range(&d, &owned)),
            (Some(&b"a\0"[..]), Some(&b"b\0"[..]))
        );
        assert_eq!(bounds(&with_range::<[u8], _>(&d, &..)), (None, None));
        assert_eq!(bounds(&with_range(&d, &(..k("b")))), (None, Some(k("b"))));
        // Owned keys and strings work as bounds too.
        let owned = vec![1u8]..vec![2u8];
        assert_eq!(
            bounds(&with_range(&d, &owned)),
            (Some(&[1u8][..]), Some(&[2u8][..]))
        );
        assert_eq!(
            bounds(&with_range(&d, &("x"..="y"))),
            (Some(k("x")), Some(&b"y\0"[..]))
        );
    }

    #[test]
    fn a_range_narrows_the_read_options_bounds() {
        let o = ReadOptions {
            iterate_lower_bound: Some(b"b".to_vec()),
            iterate_upper_bound: Some(b"m".to_vec()),
            ..ReadOptions::default()
        };
        let k = |s: &'static str| s.as_bytes();
        assert_eq!(
            bounds(&with_range(&o, &(k("a")..k("z")))),
            (Some(k("b")), Some(k("m")))
        );
        assert_eq!(
            bounds(&with_range(&o, &(k("c")..k("d")))),
            (Some(k("c")), Some(k("d")))
        );
        assert_eq!(
            bounds(&with_prefix(&o, k("x"))),
            (Some(k("x")), Some(k("m")))
        );
    }

    #[test]
    fn prefix_successors() {
        assert_eq!(prefix_successor(b"abc").as_deref(), Some(&b"abd"[..]));
        assert_eq!(prefix_successor(b"a\xff\xff").as_deref(), Some(&b"b"[..]));
        assert_eq!(prefix_successor(b"\x00\xff").as_deref(), Some(&b"\x01"[..]));
        assert_eq!(prefix_successor(b"\xff\xff"), None);
        assert_eq!(prefix_successor(b""), None);
        let d = ReadOptions::default();
        assert_eq!(
            bounds(&with_prefix(&d, b"\xff")),
            (Some(&b"\xff"[..]), None)
        );
        assert_eq!(bounds(&with_prefix(&d, b"")), (Some(&b""[..]), None));
    }
}
