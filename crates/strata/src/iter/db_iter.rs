//! The user-facing iterator: turns the merged stream of internal entries
//! into the user's view at one sequence number (LevelDB's and RocksDB's
//! `DBIter`): newest visible version per key, tombstones hidden, merge
//! operands combined through the family's merge operator, bounds applied.

use std::any::Any;
use std::sync::Arc;
use std::time::Instant;

use super::read_sampler::ReadSampler;
use super::InternalIterator;
use crate::blob::{BlobIndex, BlobSource};
use crate::error::{Error, Result};
use crate::merge::MergeOperator;
use crate::stats::{Histogram, Statistics, Ticker};
use crate::types::{
    make_internal_key, parse_internal_key, SequenceNumber, ValueType, MAX_SEQUENCE_NUMBER,
    VALUE_TYPE_FOR_SEEK,
};

/// Step counters an iterator keeps to itself and adds to the statistics
/// when it is dropped (RocksDB's `DBIter::LocalStatistics`): Next and Prev
/// are the hot path of a scan, and one plain add per step is cheaper than
/// the shared atomic adds of recording each step.
#[derive(Debug, Default)]
struct LocalStats {
    next: u64,
    next_found: u64,
    prev: u64,
    prev_found: u64,
    bytes_read: u64,
    /// Internal entries passed over (`rocksdb.number.iter.skip`).
    skipped: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Forward,
    Reverse,
}

/// An iterator over the DB as of one point in time, in ascending key order
/// (or descending after [`DbIterator::reverse`]).
///
/// As a Rust [`Iterator`] it yields `Result<(key, value)>`; it starts at the
/// first key (last when reversed) unless positioned first with one of the
/// `seek*` methods. The cursor methods (`valid`, `key`, `value`, `advance`,
/// `retreat`) give RocksDB-style control.
pub struct DbIterator {
    iter: Box<dyn InternalIterator>,
    seq: SequenceNumber,
    direction: Direction,
    valid: bool,
    saved_key: Vec<u8>,
    saved_value: SavedValue,
    lower: Option<Vec<u8>>,
    upper: Option<Vec<u8>>,
    error: Option<Error>,
    positioned: bool,
    reversed: bool,
    done: bool,
    stats: Option<Arc<Statistics>>,
    /// Step counters, added to `stats` on drop.
    local: LocalStats,
    blobs: Option<(Arc<BlobSource>, bool, bool)>,
    /// The current entry's value when it was fetched from a blob file or
    /// is the result of a merge.
    blob_value: Option<Vec<u8>>,
    /// The family's merge operator.
    merge: Option<Arc<dyn MergeOperator>>,
    /// Moving forward, the current key's value is a merge result: the key
    /// is in `saved_key`, the value in `blob_value`, and the inner
    /// iterator is past the key's merge operands (RocksDB's
    /// `current_entry_is_merged_`).
    merged: bool,
    /// Merge operands of the key being assembled: newest first moving
    /// forward, oldest first moving backward.
    operands: Vec<Vec<u8>>,
    /// Read sampling for read-triggered compaction, when it is on.
    sampler: Option<ReadSampler>,
    // Keeps memtables, versions and the snapshot alive while iterating.
    _pins: Vec<Box<dyn Any + Send + Sync>>,
}

impl DbIterator {
    pub(crate) fn new(
        iter: Box<dyn InternalIterator>,
        seq: SequenceNumber,
        lower: Option<Vec<u8>>,
        upper: Option<Vec<u8>>,
        pins: Vec<Box<dyn Any + Send + Sync>>,
    ) -> Self {
        DbIterator {
            iter,
            seq,
            direction: Direction::Forward,
            valid: false,
            saved_key: Vec::new(),
            saved_value: SavedValue::default(),
            lower,
            upper,
            error: None,
            positioned: false,
            reversed: false,
            done: false,
            stats: None,
            local: LocalStats::default(),
            blobs: None,
            blob_value: None,
            merge: None,
            merged: false,
            operands: Vec::new(),
            sampler: None,
            _pins: pins,
        }
    }

    /// Samples the entries the iterator steps over through `sampler`
    /// (read-triggered compaction).
    pub(crate) fn with_read_sampler(mut self, sampler: Option<ReadSampler>) -> Self {
        self.sampler = sampler;
        self
    }

    /// Records into `stats` (when given): `rocksdb.num.iterator.created`
    /// now and `rocksdb.num.iterator.deleted` on drop; per seek
    /// `rocksdb.number.db.seek`, `.seek.found` and `rocksdb.db.seek.micros`;
    /// and `rocksdb.number.db.next/prev`, `.next.found/.prev.found`,
    /// `rocksdb.db.iter.bytes.read` and `rocksdb.number.iter.skip`, which
    /// are counted in the iterator and added when it is dropped (as RocksDB
    /// does).
    pub(crate) fn with_statistics(mut self, stats: Option<Arc<Statistics>>) -> Self {
        if let Some(s) = &stats {
            s.record_tick(Ticker::NoIteratorCreated, 1);
        }
        self.stats = stats;
        self
    }

    /// Resolves blob indexes through `source` (with the read's
    /// `fill_cache` and `verify_checksums`).
    pub(crate) fn with_blob_source(
        mut self,
        source: Arc<BlobSource>,
        fill_cache: bool,
        verify_checksums: bool,
    ) -> Self {
        self.blobs = Some((source, fill_cache, verify_checksums));
        self
    }

    /// Combines merge operands through `merge` (the family's operator;
    /// without one, a key with operands is an `InvalidArgument` error).
    pub(crate) fn with_merge_operator(mut self, merge: Option<Arc<dyn MergeOperator>>) -> Self {
        self.merge = merge;
        self
    }

    /// The value a blob index `raw` of `key` points to.
    fn fetch_blob(&self, key: &[u8], raw: &[u8]) -> Result<Vec<u8>> {
        match (&self.blobs, BlobIndex::decode(raw)) {
            (_, None) => Err(Error::corruption("iterator", 0, "undecodable blob index")),
            (None, Some(_)) => Err(Error::corruption(
                "iterator",
                0,
                "blob index met but no blob source is attached",
            )),
            (Some((src, fill, verify)), Some(idx)) => src.get(key, &idx, *fill, *verify),
        }
    }

    /// Merges the operands gathered for `saved_key` (oldest first in
    /// `ops`) over `base` (a value or blob index, or none) and makes the
    /// result the current value; an error ends the iteration.
    fn merge_current(&mut self, base: Option<(ValueType, Vec<u8>)>, ops: &[&[u8]]) {
        let base = match base {
            Some((ValueType::BlobIndex, raw)) => match self.fetch_blob(&self.saved_key, &raw) {
                Ok(v) => Some(v),
                Err(e) => {
                    self.error = Some(e);
                    self.valid = false;
                    return;
                }
            },
            Some((_, v)) => Some(v),
            None => None,
        };
        match crate::merge::merge_for_read(
            self.merge.as_ref(),
            &self.saved_key,
            base.as_deref(),
            ops,
            self.stats.as_deref(),
        ) {
            Ok(v) => {
                self.blob_value = Some(v);
                self.valid = true;
            }
            Err(e) => {
                self.error = Some(e);
                self.valid = false;
                self.blob_value = None;
            }
        }
    }

    /// Moving forward, on the newest visible merge operand of `saved_key`:
    /// gathers the older operands down to a value, a tombstone or the next
    /// key, and merges them (RocksDB's `MergeValuesNewToOld`). The inner
    /// iterator stops on the entry that ended the run.
    fn merge_forward(&mut self) {
        self.operands.clear();
        self.operands.push(self.iter.value().to_vec());
        let mut base = None;
        self.iter.next();
        while self.iter.valid() {
            let Some(p) = parse_internal_key(self.iter.key()) else {
                self.fail_on_malformed_key();
                return;
            };
            if p.user_key != self.saved_key.as_slice() {
                break;
            }
            // Every later entry of the key is older than the operand, so
            // visible at the iterator's sequence.
            match p.value_type {
                ValueType::Merge => self.operands.push(self.iter.value().to_vec()),
                ValueType::Deletion | ValueType::RangeDeletion => break,
                t @ (ValueType::Value | ValueType::BlobIndex) => {
                    base = Some((t, self.iter.value().to_vec()));
                    break;
                }
            }
            self.iter.next();
        }
        self.set_error_from_child();
        if self.error.is_some() {
            self.valid = false;
            return;
        }
        let operands = std::mem::take(&mut self.operands);
        let ops: Vec<&[u8]> = operands.iter().rev().map(Vec::as_slice).collect();
        self.merge_current(base, &ops);
        self.merged = self.valid;
        self.operands = operands;
    }

    /// After positioning on an entry of type `t`, fetches its blob.
    fn load_blob(&mut self, t: ValueType) {
        self.blob_value = None;
        if t != ValueType::BlobIndex || !self.valid {
            return;
        }
        let raw = match self.direction {
            Direction::Forward => self.iter.value(),
            Direction::Reverse => self.saved_value.as_slice(),
        };
        let key = match self.direction {
            Direction::Forward => crate::types::user_key(self.iter.key()),
            Direction::Reverse => &self.saved_key,
        };
        match self.fetch_blob(key, raw) {
            Ok(v) => self.blob_value = Some(v),
            Err(e) => {
                self.error = Some(e);
                self.valid = false;
            }
        }
    }

    /// Runs a positioning call and records it as a seek (`rocksdb.db.seek`,
    /// `rocksdb.number.db.seek`, ...).
    fn timed_seek(&mut self, position: impl FnOnce(&mut Self)) {
        let start = self.stats.as_ref().map(|_| Instant::now());
        position(self);
        if let (Some(s), Some(t)) = (&self.stats, start) {
            s.record_tick(Ticker::NumberDbSeek, 1);
            if self.valid() {
                s.record_tick(Ticker::NumberDbSeekFound, 1);
                s.record_tick(
                    Ticker::IterBytesRead,
                    (self.key().len() + self.value().len()) as u64,
                );
            }
            s.record_histogram(Histogram::DbSeek, t.elapsed().as_micros() as u64);
        }
    }

    /// Counts one Next (`forward`) or Prev call, after it moved.
    fn count_step(&mut self, forward: bool) {
        if self.stats.is_none() {
            return;
        }
        let found = self.valid();
        let bytes = if found {
            (self.key().len() + self.value().len()) as u64
        } else {
            0
        };
        let l = &mut self.local;
        if forward {
            l.next += 1;
            l.next_found += u64::from(found);
        } else {
            l.prev += 1;
            l.prev_found += u64::from(found);
        }
        l.bytes_read += bytes;
    }

    /// Makes the `Iterator` implementation walk backwards (from the last key
    /// unless already positioned).
    pub fn reverse(mut self) -> Self {
        self.reversed = true;
        self
    }

    /// True when positioned on an entry.
    pub fn valid(&self) -> bool {
        self.valid && self.error.is_none()
    }

    /// The current key. Panics if not `valid()`.
    pub fn key(&self) -> &[u8] {
        assert!(self.valid(), "DbIterator::key on an invalid iterator");
        match self.direction {
            Direction::Forward if !self.merged => crate::types::user_key(self.iter.key()),
            _ => &self.saved_key,
        }
    }

    /// The current value. Panics if not `valid()`.
    pub fn value(&self) -> &[u8] {
        assert!(self.valid(), "DbIterator::value on an invalid iterator");
        if let Some(v) = &self.blob_value {
            return v;
        }
        match self.direction {
            Direction::Forward => self.iter.value(),
            Direction::Reverse => self.saved_value.as_slice(),
        }
    }

    /// The first error met (corruption, I/O), if any.
    ///
    /// # Errors
    /// That error.
    pub fn status(&self) -> Result<()> {
        if let Some(e) = &self.error {
            return Err(e.duplicate());
        }
        self.iter.status()
    }

    fn set_error_from_child(&mut self) {
        if self.error.is_none() {
            if let Err(e) = self.iter.status() {
                self.error = Some(e);
                self.valid = false;
            }
        }
    }

    /// Starts a seek in `direction`: whatever the iterator was on is dropped.
    fn start_positioning(&mut self, direction: Direction) {
        self.positioned = true;
        self.done = false;
        self.direction = direction;
        self.merged = false;
        self.saved_value.clear();
    }

    /// Positions at the first key (at or after the lower bound).
    pub fn seek_to_first(&mut self) {
        self.timed_seek(|it| it.seek_to_first_inner());
    }

    fn seek_to_first_inner(&mut self) {
        self.start_positioning(Direction::Forward);
        match self.lower.clone() {
            Some(l) => self
                .iter
                .seek(&make_internal_key(&l, self.seq, VALUE_TYPE_FOR_SEEK)),
            None => self.iter.seek_to_first(),
        }
        self.find_next_user_entry(false);
    }

    /// Positions at the last key (before the upper bound).
    pub fn seek_to_last(&mut self) {
        self.timed_seek(|it| it.seek_to_last_inner());
    }

    fn seek_to_last_inner(&mut self) {
        self.start_positioning(Direction::Reverse);
        match self.upper.clone() {
            Some(u) => self.iter.seek_for_prev(&make_internal_key(
                &u,
                MAX_SEQUENCE_NUMBER,
                VALUE_TYPE_FOR_SEEK,
            )),
            None => self.iter.seek_to_last(),
        }
        self.find_prev_user_entry();
    }

    /// Positions at the first key `>= key`.
    pub fn seek(&mut self, key: &[u8]) {
        self.timed_seek(|it| it.seek_inner(key));
    }

    fn seek_inner(&mut self, key: &[u8]) {
        let key = match &self.lower {
            Some(l) if key < l.as_slice() => l.clone(),
            _ => key.to_vec(),
        };
        self.start_positioning(Direction::Forward);
        self.iter
            .seek(&make_internal_key(&key, self.seq, VALUE_TYPE_FOR_SEEK));
        self.find_next_user_entry(false);
    }

    /// Positions at the last key `<= key`.
    pub fn seek_for_prev(&mut self, key: &[u8]) {
        self.timed_seek(|it| it.seek_for_prev_inner(key));
    }

    fn seek_for_prev_inner(&mut self, key: &[u8]) {
        self.start_positioning(Direction::Reverse);
        match &self.upper {
            Some(u) if key >= u.as_slice() => {
                let u = u.clone();
                self.iter.seek_for_prev(&make_internal_key(
                    &u,
                    MAX_SEQUENCE_NUMBER,
                    VALUE_TYPE_FOR_SEEK,
                ));
            }
            _ => self
                .iter
                .seek_for_prev(&make_internal_key(key, 0, ValueType::Deletion)),
        }
        self.find_prev_user_entry();
    }

    /// Moves to the next key. Requires `valid()`.
    pub fn advance(&mut self) {
        if !self.valid() {
            return;
        }
        if self.direction == Direction::Reverse {
            self.direction = Direction::Forward;
            // The inner iterator is before the current key's entries; move
            // onto them and skip them (saved_key holds the current key).
            if self.iter.valid() {
                self.iter.next();
            } else {
                self.iter.seek_to_first();
            }
        } else if !self.merged {
            self.saved_key.clear();
            self.saved_key
                .extend_from_slice(crate::types::user_key(self.iter.key()));
            self.iter.next();
        }
        // After a merge, `saved_key` is the current key and the inner
        // iterator is already past its operands.
        self.find_next_user_entry(true);
        self.count_step(true);
    }

    /// Moves to the previous key. Requires `valid()`.
    pub fn retreat(&mut self) {
        if !self.valid() {
            return;
        }
        self.retreat_inner();
        self.count_step(false);
    }

    fn retreat_inner(&mut self) {
        if self.direction == Direction::Forward {
            if self.merged {
                // `saved_key` is the current key; the inner iterator is
                // past its operands (or off the end): step back to the
                // last entry before the key.
                if !self.iter.valid() {
                    self.iter.seek_to_last();
                }
                while self.iter.valid()
                    && crate::types::user_key(self.iter.key()) >= self.saved_key.as_slice()
                {
                    self.iter.prev();
                }
                self.merged = false;
                if !self.iter.valid() {
                    self.set_error_from_child();
                    self.valid = false;
                    self.saved_key.clear();
                    self.saved_value.clear();
                    self.blob_value = None;
                    return;
                }
            } else {
                self.saved_key.clear();
                self.saved_key
                    .extend_from_slice(crate::types::user_key(self.iter.key()));
                loop {
                    self.iter.prev();
                    if !self.iter.valid() {
                        self.set_error_from_child();
                        self.valid = false;
                        self.saved_key.clear();
                        self.saved_value.clear();
                        return;
                    }
                    if crate::types::user_key(self.iter.key()) < self.saved_key.as_slice() {
                        break;
                    }
                }
            }
            self.direction = Direction::Reverse;
        }
        self.find_prev_user_entry();
    }

    /// The iterator failed before it was positioned (a table holding range
    /// tombstones could not be opened): it is never valid and its status is
    /// `e`.
    pub(crate) fn with_error(mut self, e: Error) -> Self {
        self.error = Some(e);
        self.valid = false;
        self
    }

    /// Stops the iterator on an internal key that does not parse.
    fn fail_on_malformed_key(&mut self) {
        self.error = Some(Error::corruption(
            "iterator",
            0,
            "malformed internal key in the merged stream",
        ));
        self.valid = false;
    }

    fn find_next_user_entry(&mut self, mut skipping: bool) {
        self.merged = false;
        while self.iter.valid() {
            let Some(p) = parse_internal_key(self.iter.key()) else {
                self.fail_on_malformed_key();
                return;
            };
            if let Some(s) = &mut self.sampler {
                s.on_entry(p.user_key, self.iter.key().len() + self.iter.value().len());
            }
            if let Some(u) = &self.upper {
                if p.user_key >= u.as_slice() {
                    break;
                }
            }
            if p.seq <= self.seq {
                match p.value_type {
                    ValueType::Deletion | ValueType::RangeDeletion => {
                        self.saved_key.clear();
                        self.saved_key.extend_from_slice(p.user_key);
                        skipping = true;
                    }
                    t @ (ValueType::Value | ValueType::BlobIndex) => {
                        if !(skipping && p.user_key <= self.saved_key.as_slice()) {
                            self.valid = true;
                            self.saved_key.clear();
                            self.load_blob(t);
                            return;
                        }
                    }
                    ValueType::Merge => {
                        if !(skipping && p.user_key <= self.saved_key.as_slice()) {
                            self.saved_key.clear();
                            self.saved_key.extend_from_slice(p.user_key);
                            self.merge_forward();
                            return;
                        }
                    }
                }
            }
            // Passed over: an older version, a deletion marker or a version
            // it hides, or an entry newer than the iterator's sequence.
            self.local.skipped += 1;
            self.iter.next();
        }
        self.set_error_from_child();
        self.saved_key.clear();
        self.valid = false;
        self.blob_value = None;
    }

    fn find_prev_user_entry(&mut self) {
        // What the entries of `saved_key` seen so far (oldest first) add up
        // to: nothing (`Deletion`), a value in `saved_value`, or merge
        // operands in `operands` over `base` (the value's type, if any).
        let mut value_type = ValueType::Deletion;
        let mut base: Option<ValueType> = None;
        let mut stepped: u64 = 0;
        self.merged = false;
        self.operands.clear();
        while self.iter.valid() {
            let Some(p) = parse_internal_key(self.iter.key()) else {
                self.fail_on_malformed_key();
                return;
            };
            if let Some(s) = &mut self.sampler {
                s.on_entry(p.user_key, self.iter.key().len() + self.iter.value().len());
            }
            if let Some(l) = &self.lower {
                if p.user_key < l.as_slice() {
                    break;
                }
            }
            if p.seq <= self.seq {
                if value_type != ValueType::Deletion && p.user_key < self.saved_key.as_slice() {
                    // Found the newest visible entry of saved_key.
                    break;
                }
                match p.value_type {
                    ValueType::Deletion | ValueType::RangeDeletion => {
                        self.saved_key.clear();
                        self.saved_value.clear();
                        self.operands.clear();
                        base = None;
                    }
                    ValueType::Merge => {
                        if value_type == ValueType::Deletion {
                            self.saved_key.clear();
                            self.saved_key.extend_from_slice(p.user_key);
                            self.saved_value.clear();
                            base = None;
                        } else if value_type != ValueType::Merge {
                            base = Some(value_type);
                        }
                        self.operands.push(self.iter.value().to_vec());
                    }
                    _ => {
                        self.saved_key.clear();
                        self.saved_key.extend_from_slice(p.user_key);
                        self.saved_value.keep(self.iter.as_ref());
                        self.operands.clear();
                        base = None;
                    }
                }
                value_type = p.value_type;
            }
            stepped += 1;
            self.iter.prev();
        }
        self.set_error_from_child();
        // Every entry stepped over was passed over, except the version the
        // iterator stops on (it steps past it to find where the key starts).
        let stopped = value_type != ValueType::Deletion && self.error.is_none();
        self.local.skipped += stepped.saturating_sub(u64::from(stopped));
        if value_type == ValueType::Deletion || self.error.is_some() {
            self.valid = false;
            self.saved_key.clear();
            self.saved_value.clear();
            self.direction = Direction::Forward;
            self.blob_value = None;
        } else if value_type == ValueType::Merge {
            self.blob_value = None;
            let base = base.map(|t| (t, self.saved_value.take()));
            let operands = std::mem::take(&mut self.operands);
            let ops: Vec<&[u8]> = operands.iter().map(Vec::as_slice).collect();
            self.merge_current(base, &ops);
            self.operands = operands;
            if !self.valid {
                self.saved_key.clear();
                self.direction = Direction::Forward;
            }
        } else {
            self.valid = true;
            self.load_blob(value_type);
        }
    }
}

impl Drop for DbIterator {
    fn drop(&mut self) {
        if let Some(s) = &self.stats {
            let l = &self.local;
            for (t, n) in [
                (Ticker::NumberDbNext, l.next),
                (Ticker::NumberDbNextFound, l.next_found),
                (Ticker::NumberDbPrev, l.prev),
                (Ticker::NumberDbPrevFound, l.prev_found),
                (Ticker::IterBytesRead, l.bytes_read),
                (Ticker::NumberIterSkip, l.skipped),
            ] {
                if n > 0 {
                    s.record_tick(t, n);
                }
            }
            s.record_tick(Ticker::NoIteratorDeleted, 1);
        }
    }
}

impl Iterator for DbIterator {
    type Item = Result<(Vec<u8>, Vec<u8>)>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        if !self.positioned {
            if self.reversed {
                self.seek_to_last();
            } else {
                self.seek_to_first();
            }
        }
        if !self.valid() {
            self.done = true;
            return match self.status() {
                Err(e) => Some(Err(e)),
                Ok(()) => None,
            };
        }
        let item = (self.key().to_vec(), self.value().to_vec());
        if self.reversed {
            self.retreat();
        } else {
            self.advance();
        }
        Some(Ok(item))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iter::VecIterator;

    /// A user iterator at `seq` over `entries`, between `lower` and `upper`.
    fn build_bounded(
        entries: &[(&str, u64, ValueType, &str)],
        seq: u64,
        lower: Option<&[u8]>,
        upper: Option<&[u8]>,
    ) -> DbIterator {
        DbIterator::new(
            Box::new(VecIterator::from_entries(entries)),
            seq,
            lower.map(<[u8]>::to_vec),
            upper.map(<[u8]>::to_vec),
            Vec::new(),
        )
    }

    fn build(entries: &[(&str, u64, ValueType, &str)], seq: u64) -> DbIterator {
        build_bounded(entries, seq, None, None)
    }

    const V: ValueType = ValueType::Value;
    const D: ValueType = ValueType::Deletion;

    fn data() -> Vec<(&'static str, u64, ValueType, &'static str)> {
        vec![
            ("a", 1, V, "a1"),
            ("a", 5, V, "a5"),
            ("b", 2, V, "b2"),
            ("b", 6, D, ""),
            ("c", 3, V, "c3"),
            ("d", 7, V, "d7"),
        ]
    }

    fn collect(it: DbIterator) -> Vec<String> {
        it.map(|r| {
            let (k, v) = r.unwrap();
            format!(
                "{}={}",
                String::from_utf8(k).unwrap(),
                String::from_utf8(v).unwrap()
            )
        })
        .collect()
    }

    #[test]
    fn forward_and_reverse_at_sequences() {
        assert_eq!(collect(build(&data(), 100)), ["a=a5", "c=c3", "d=d7"]);
        assert_eq!(
            collect(build(&data(), 100).reverse()),
            ["d=d7", "c=c3", "a=a5"]
        );
        assert_eq!(collect(build(&data(), 5)), ["a=a5", "b=b2", "c=c3"]);
        assert_eq!(
            collect(build(&data(), 5).reverse()),
            ["c=c3", "b=b2", "a=a5"]
        );
        assert_eq!(collect(build(&data(), 0)), Vec::<String>::new());
    }

    #[test]
    fn direction_switches_and_seeks() {
        let mut it = build(&data(), 100);
        it.seek(b"b");
        assert_eq!(it.key(), b"c");
        it.retreat();
        assert_eq!(it.key(), b"a");
        it.advance();
        assert_eq!(it.key(), b"c");
        it.advance();
        assert_eq!(it.key(), b"d");
        it.retreat();
        assert_eq!(it.key(), b"c");
        it.seek_for_prev(b"bz");
        assert_eq!(it.key(), b"a");
        assert_eq!(it.value(), b"a5");
        it.seek_for_prev(b"c");
        assert_eq!(it.key(), b"c");
        it.seek_to_last();
        assert_eq!(it.key(), b"d");
        it.advance();
        assert!(!it.valid());
    }

    fn ticks(stats: &Statistics) -> Vec<(Ticker, u64)> {
        [
            Ticker::NoIteratorCreated,
            Ticker::NoIteratorDeleted,
            Ticker::NumberDbSeek,
            Ticker::NumberDbSeekFound,
            Ticker::NumberDbNext,
            Ticker::NumberDbNextFound,
            Ticker::NumberDbPrev,
            Ticker::NumberDbPrevFound,
            Ticker::IterBytesRead,
            Ticker::NumberIterSkip,
        ]
        .into_iter()
        .map(|t| (t, stats.ticker(t)))
        .collect()
    }

    /// The tickers after one scan of `data()` to its end: one seek found,
    /// (calls, found) of Next and of Prev, 9 bytes read, 3 entries skipped.
    fn full_scan_ticks(next: (u64, u64), prev: (u64, u64)) -> Vec<(Ticker, u64)> {
        use Ticker::*;
        vec![
            (NoIteratorCreated, 1),
            (NoIteratorDeleted, 1),
            (NumberDbSeek, 1),
            (NumberDbSeekFound, 1),
            (NumberDbNext, next.0),
            (NumberDbNextFound, next.1),
            (NumberDbPrev, prev.0),
            (NumberDbPrevFound, prev.1),
            (IterBytesRead, 9),
            (NumberIterSkip, 3),
        ]
    }

    #[test]
    fn forward_scan_tickers() {
        let stats = Statistics::new();
        let it = build(&data(), 100).with_statistics(Some(stats.clone()));
        assert_eq!(stats.ticker(Ticker::NoIteratorCreated), 1);
        assert_eq!(stats.ticker(Ticker::NoIteratorDeleted), 0);
        assert_eq!(collect(it), ["a=a5", "c=c3", "d=d7"]);
        // One seek lands on a; three Nexts, the last running off the end.
        // Bytes: a+a5, c+c3, d+d7. Passed over: a@1, b@6 (deletion), b@2.
        assert_eq!(ticks(&stats), full_scan_ticks((3, 2), (0, 0)));
    }

    #[test]
    fn reverse_scan_tickers() {
        let stats = Statistics::new();
        let it = build(&data(), 100)
            .with_statistics(Some(stats.clone()))
            .reverse();
        assert_eq!(collect(it), ["d=d7", "c=c3", "a=a5"]);
        // Passed over backwards: b@2, b@6 (its deletion), a@1 (a@5 is
        // newer and is the version returned).
        assert_eq!(ticks(&stats), full_scan_ticks((0, 0), (3, 2)));
    }

    #[test]
    fn entries_newer_than_the_snapshot_count_as_skipped() {
        let stats = Statistics::new();
        let it = build(&data(), 5).with_statistics(Some(stats.clone()));
        assert_eq!(collect(it), ["a=a5", "b=b2", "c=c3"]);
        // a@1 (older), b@6 and d@7 (newer than sequence 5).
        assert_eq!(stats.ticker(Ticker::NumberIterSkip), 3);
        assert_eq!(stats.ticker(Ticker::NumberDbNextFound), 2);
    }

    #[test]
    fn prev_off_the_start_is_counted() {
        let stats = Statistics::new();
        let mut it = build(&data(), 100).with_statistics(Some(stats.clone()));
        it.seek_to_first();
        it.retreat();
        assert!(!it.valid());
        drop(it);
        assert_eq!(stats.ticker(Ticker::NumberDbPrev), 1);
        assert_eq!(stats.ticker(Ticker::NumberDbPrevFound), 0);
        assert_eq!(stats.ticker(Ticker::IterBytesRead), 3);
    }

    #[test]
    fn bounds_are_respected() {
        let it = build_bounded(&data(), 100, Some(b"b"), Some(b"d"));
        assert_eq!(collect(it), ["c=c3"]);
        let it = build_bounded(&data(), 100, Some(b"a"), Some(b"d"));
        assert_eq!(collect(it.reverse()), ["c=c3", "a=a5"]);
    }
}

/// The value a reverse step keeps after the child iterator has moved past
/// it: a reference into the data block that holds it when the child can
/// give one (no copy, however large the value), else a copy.
#[derive(Default)]
struct SavedValue {
    copy: Vec<u8>,
    pin: Option<crate::pinnable::PinnableSlice>,
}

impl SavedValue {
    fn clear(&mut self) {
        self.copy.clear();
        self.pin = None;
    }

    /// Keeps `it`'s current value.
    fn keep(&mut self, it: &dyn InternalIterator) {
        self.copy.clear();
        self.pin = it.pinned_value();
        if self.pin.is_none() {
            self.copy.extend_from_slice(it.value());
        }
    }

    fn as_slice(&self) -> &[u8] {
        self.pin.as_deref().unwrap_or(&self.copy)
    }

    /// The value as a vector, leaving this empty.
    fn take(&mut self) -> Vec<u8> {
        match self.pin.take() {
            Some(p) => p.into_vec(),
            None => std::mem::take(&mut self.copy),
        }
    }
}
