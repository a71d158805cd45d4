//! The read path: point lookups through memtables and levels, and
//! iterators pinned to one super version.

use std::any::Any;
use std::sync::atomic::Ordering;
use std::time::Instant;

use super::{DbInner, Family};
use crate::blob::BlobIndex;
use crate::error::Result;
use crate::iter::{DbIterator, InternalIterator, LevelIterator, MergingIterator};
use crate::memtable::{MemGet, MemTableIterator};
use crate::options::ReadOptions;
use crate::pinnable::PinnableSlice;
use crate::sstable::ReadOpts;
use crate::stats::{Histogram, Ticker};
use crate::types::{
    make_internal_key, parse_internal_key, user_key, ValueType, VALUE_TYPE_FOR_SEEK,
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
        let result = self.get_from(&sv, opts, key, seq);
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
            .map(|k| self.get_from(&sv, opts, k, seq))
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

    fn get_from(
        &self,
        sv: &super::SuperVersion,
        opts: &ReadOptions,
        key: &[u8],
        seq: u64,
    ) -> Result<Option<PinnableSlice>> {
        let stats = self.stats.as_ref();
        for mem in std::iter::once(&sv.mem).chain(sv.imm.iter()) {
            match mem.get(key, seq) {
                MemGet::Found(t, v) => {
                    if let Some(s) = stats {
                        s.record_tick(Ticker::MemtableHit, 1);
                    }
                    return self
                        .resolve(t, key, PinnableSlice::owned(v), opts, "memtable")
                        .map(Some);
                }
                MemGet::Deleted => {
                    if let Some(s) = stats {
                        s.record_tick(Ticker::MemtableHit, 1);
                    }
                    return Ok(None);
                }
                MemGet::Absent => {}
            }
        }
        if let Some(s) = stats {
            s.record_tick(Ticker::MemtableMiss, 1);
        }
        let lookup = make_internal_key(key, seq, VALUE_TYPE_FOR_SEEK);
        let ro = table_read_opts(opts);
        let v = &sv.version;
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
                let table = self.table_cache.get(f.number)?;
                if let Some((ikey, value)) = table.get_pinned(&lookup, &ro)? {
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
                    if let Some(s) = stats {
                        s.record_tick(
                            match level {
                                0 => Ticker::GetHitL0,
                                1 => Ticker::GetHitL1,
                                _ => Ticker::GetHitL2AndUp,
                            },
                            1,
                        );
                    }
                    return match p.value_type {
                        ValueType::Deletion => Ok(None),
                        t => self
                            .resolve(t, key, value, opts, table.file_name())
                            .map(Some),
                    };
                }
            }
        }
        Ok(None)
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
        let ro = table_read_opts(opts);
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
        let mut pins: Vec<Box<dyn Any + Send + Sync>> = vec![Box::new(sv)];
        if let Some(s) = &opts.snapshot {
            pins.push(Box::new(s.clone()));
        }
        DbIterator::new(
            Box::new(MergingIterator::new(children)),
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
    }
}

#[allow(dead_code)]
fn _assert_send_sync(sv: super::SuperVersionRef) -> Box<dyn Any + Send + Sync> {
    Box::new(sv)
}

/// How a user read (`get`, an iterator) reads table files.
fn table_read_opts(opts: &ReadOptions) -> ReadOpts {
    ReadOpts {
        verify_checksums: opts.verify_checksums,
        fill_cache: opts.fill_cache,
        for_compaction: false,
        last_level: false,
        readahead: 0,
    }
}
