//! Reads a table cost without answering them: the count read-triggered
//! compaction charges (LevelDB's `allowed_seeks`, Pebble's
//! `AllowedSeeks`), kept beside the table's metadata and shared by every
//! version that holds the table.
//!
//! The count lives in memory only: the MANIFEST does not record it, and a
//! reopened DB counts afresh (as LevelDB and Pebble do).

use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};

/// Wasted reads charged to one table since it entered the tree.
///
/// Not part of a table's identity: two [`FileMetaData`] that differ only in
/// their counts compare equal. A clone starts at 0: the metadata is cloned
/// into the edit that adds a table to a level, so a table a trivial move
/// takes down a level is charged afresh there, as LevelDB's are.
///
/// [`FileMetaData`]: super::edit::FileMetaData
#[derive(Default)]
pub struct WastedReads(AtomicU32);

impl WastedReads {
    /// Charges one wasted read and returns the count after it (saturating).
    pub fn charge(&self) -> u32 {
        self.0.fetch_add(1, Ordering::Relaxed).saturating_add(1)
    }

    /// The count so far.
    pub fn get(&self) -> u32 {
        self.0.load(Ordering::Relaxed)
    }
}

impl Clone for WastedReads {
    fn clone(&self) -> Self {
        WastedReads::default()
    }
}

impl PartialEq for WastedReads {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl Eq for WastedReads {}

impl fmt::Debug for WastedReads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.get())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn charges_count_up_and_a_clone_starts_at_zero() {
        let w = WastedReads::default();
        assert_eq!(w.charge(), 1);
        assert_eq!(w.charge(), 2);
        let c = w.clone();
        assert_eq!(c.get(), 0);
        assert_eq!(w.charge(), 3);
        assert_eq!(c.get(), 0);
    }

    #[test]
    fn counts_do_not_make_two_tables_differ() {
        let a = WastedReads::default();
        let b = WastedReads::default();
        b.charge();
        assert_eq!(a, b);
    }
}
