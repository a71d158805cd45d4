//! Iterators over internal keys, and the user-facing DB iterator built on them.

use crate::error::Result;

/// A cursor over entries sorted by internal key (`tools::types`).
///
/// LevelDB's iterator contract: after a positioning call, `valid()` says
/// whether the cursor is on an entry; `key()`/`value()` may only be called
/// when valid. An I/O or corruption error makes the iterator invalid and is
/// reported by `status()`.
pub trait InternalIterator: Send {
    /// True when positioned on an entry.
    fn valid(&self) -> bool;
    /// Moves to the first entry.
    fn seek_to_first(&mut self);
    /// Moves to the last entry.
    fn seek_to_last(&mut self);
    /// Moves to the first entry with internal key `>= target`.
    fn seek(&mut self, target: &[u8]);
    /// Moves to the last entry with internal key `<= target`.
    fn seek_for_prev(&mut self, target: &[u8]);
    /// Moves to the next entry. Requires `valid()`.
    fn next(&mut self);
    /// Moves to the previous entry. Requires `valid()`.
    fn prev(&mut self);
    /// The current internal key. Requires `valid()`.
    fn key(&self) -> &[u8];
    /// The current value. Requires `valid()`.
    fn value(&self) -> &[u8];
    /// The first error met, if any.
    fn status(&self) -> Result<()>;
    /// The current value as a reference to the block that holds it, when
    /// the iterator reads from one (a table's data block): a holder keeps
    /// the value without copying it. `None` (the default) when it cannot;
    /// the caller copies `value()` then. Requires `valid()`.
    fn pinned_value(&self) -> Option<crate::pinnable::PinnableSlice> {
        None
    }
    /// True when the iterator sits on a key it knows without having read
    /// the entry: a level positioned at a table's smallest key (from the
    /// table's metadata) without opening it. Only `key()` may be read
    /// then; [`InternalIterator::materialize`] reads the entry. The
    /// default: never.
    fn is_lazy(&self) -> bool {
        false
    }
    /// Reads the entry a lazy position stands for: afterwards the iterator
    /// is on a real entry whose key is at or after the lazy key (a
    /// table's smallest key may be a range tombstone's start, which no
    /// entry has), or invalid, or stopped by an error. A no-op when not
    /// lazy.
    fn materialize(&mut self) {}
}

mod db_iter;
mod level;
mod merging;
pub(crate) mod read_sampler;

pub use db_iter::DbIterator;
pub(crate) use level::LevelIterator;
pub use merging::MergingIterator;
#[cfg(test)]
pub use merging::VecIterator;
