//! [`PinnableSlice`]: a value returned by [`crate::Db::get_pinned`],
//! kept in the data block it was read from instead of copied out of it
//! (RocksDB's `PinnableSlice`).

use std::fmt;
use std::ops::{Deref, Range};
use std::sync::Arc;

use crate::sstable::block::Block;

/// A value read by [`crate::Db::get_pinned`]. It derefs to the value's
/// bytes.
///
/// A value found in a table file is *pinned*: it holds a reference to the
/// data block it lies in (the same block the block cache holds, when it is
/// cached), so reading it copies nothing. The block stays in memory while
/// the slice lives, even if the cache evicts it, as in RocksDB; drop the
/// slice (or call [`PinnableSlice::into_vec`]) rather than keep many of
/// them. A value found in a memtable, or in a blob file, is a copy of its
/// own.
pub struct PinnableSlice {
    inner: Inner,
}

enum Inner {
    Owned(Vec<u8>),
    Pinned {
        block: Arc<Block>,
        range: Range<usize>,
    },
}

impl PinnableSlice {
    /// A value that owns its bytes.
    pub(crate) fn owned(v: Vec<u8>) -> Self {
        PinnableSlice {
            inner: Inner::Owned(v),
        }
    }

    /// The bytes at `range` of `block`'s contents, or `None` if the range
    /// does not lie inside them.
    pub(crate) fn pinned(block: Arc<Block>, range: Range<usize>) -> Option<Self> {
        block.contents(range.clone())?;
        Some(PinnableSlice {
            inner: Inner::Pinned { block, range },
        })
    }

    /// Whether the value refers into a data block rather than owning a copy.
    pub fn is_pinned(&self) -> bool {
        matches!(self.inner, Inner::Pinned { .. })
    }

    /// The value as a vector: moved out if owned, copied if pinned (which
    /// releases the block).
    pub fn into_vec(self) -> Vec<u8> {
        match self.inner {
            Inner::Owned(v) => v,
            Inner::Pinned { .. } => self.deref().to_vec(),
        }
    }
}

impl Deref for PinnableSlice {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.inner {
            Inner::Owned(v) => v,
            // In range: checked when the slice was made, and a block's
            // contents never change.
            Inner::Pinned { block, range } => block.contents(range.clone()).unwrap_or(&[]),
        }
    }
}

impl AsRef<[u8]> for PinnableSlice {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl PartialEq<[u8]> for PinnableSlice {
    fn eq(&self, other: &[u8]) -> bool {
        self.deref() == other
    }
}

impl PartialEq<&[u8]> for PinnableSlice {
    fn eq(&self, other: &&[u8]) -> bool {
        self.deref() == *other
    }
}

impl fmt::Debug for PinnableSlice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PinnableSlice")
            .field("pinned", &self.is_pinned())
            .field("value", &self.deref())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sstable::block_builder::BlockBuilder;

    fn block_with(entries: &[(&[u8], &[u8])]) -> Arc<Block> {
        let mut b = BlockBuilder::new(16);
        for (k, v) in entries {
            b.add(k, v);
        }
        Arc::new(Block::new(b.finish().to_vec(), Arc::from("t.sst"), 0).unwrap())
    }

    #[test]
    fn pinned_value_reads_the_block_bytes() {
        let block = block_with(&[(b"a", b"one"), (b"b", b"two")]);
        let data = block.contents(0..block.size()).unwrap().to_vec();
        let at = data.windows(3).position(|w| w == b"two").unwrap();
        let p = PinnableSlice::pinned(block.clone(), at..at + 3).unwrap();
        assert!(p.is_pinned());
        assert_eq!(&*p, b"two");
        assert_eq!(Arc::strong_count(&block), 2, "the slice holds the block");
        assert_eq!(p.into_vec(), b"two".to_vec());
        assert_eq!(Arc::strong_count(&block), 1, "into_vec releases the block");
    }

    #[test]
    fn a_range_outside_the_block_is_refused() {
        let block = block_with(&[(b"a", b"one")]);
        let n = block.size();
        assert!(PinnableSlice::pinned(block, n..n + 1).is_none());
    }

    #[test]
    fn owned_value_is_not_pinned() {
        let p = PinnableSlice::owned(b"v".to_vec());
        assert!(!p.is_pinned());
        assert_eq!(p, &b"v"[..]);
        assert_eq!(p.into_vec(), b"v".to_vec());
    }
}
