//! A memtable entry: one allocation holding the internal key and the value,
//! ordered by the internal-key comparator.

use std::borrow::Borrow;
use std::cmp::Ordering;

use crate::types::{append_internal_key, compare_internal_keys, SequenceNumber, ValueType};

/// An internal key as an unsized slice type with the internal-key order, so
/// the skiplist can be searched without allocating an entry.
#[derive(Debug, PartialEq, Eq)]
#[repr(transparent)]
pub struct IKey([u8]);

impl IKey {
    /// Views bytes as an internal key.
    pub fn new(b: &[u8]) -> &IKey {
        // SAFETY: IKey is repr(transparent) over [u8].
        unsafe { &*(b as *const [u8] as *const IKey) }
    }
}

impl Ord for IKey {
    fn cmp(&self, other: &Self) -> Ordering {
        compare_internal_keys(&self.0, &other.0)
    }
}

impl PartialOrd for IKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// `[ikey_len: u32 LE][internal key][value]` in one boxed slice.
#[derive(Debug)]
pub struct MemEntry(Box<[u8]>);

impl MemEntry {
    /// Builds an entry.
    pub fn new(key: &[u8], seq: SequenceNumber, t: ValueType, value: &[u8]) -> Self {
        let ikey_len = key.len() + 8;
        let mut buf = Vec::with_capacity(4 + ikey_len + value.len());
        buf.extend_from_slice(&(ikey_len as u32).to_le_bytes());
        append_internal_key(&mut buf, key, seq, t);
        buf.extend_from_slice(value);
        MemEntry(buf.into_boxed_slice())
    }

    fn ikey_len(&self) -> usize {
        u32::from_le_bytes([self.0[0], self.0[1], self.0[2], self.0[3]]) as usize
    }

    /// The internal key.
    pub fn ikey(&self) -> &[u8] {
        &self.0[4..4 + self.ikey_len()]
    }

    /// The value.
    pub fn value(&self) -> &[u8] {
        &self.0[4 + self.ikey_len()..]
    }

    /// Bytes held.
    pub fn charge(&self) -> usize {
        self.0.len()
    }
}

impl Borrow<IKey> for MemEntry {
    fn borrow(&self) -> &IKey {
        IKey::new(self.ikey())
    }
}

impl PartialEq for MemEntry {
    fn eq(&self, other: &Self) -> bool {
        self.ikey() == other.ikey()
    }
}
impl Eq for MemEntry {}
impl Ord for MemEntry {
    fn cmp(&self, other: &Self) -> Ordering {
        compare_internal_keys(self.ikey(), other.ikey())
    }
}
impl PartialOrd for MemEntry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
