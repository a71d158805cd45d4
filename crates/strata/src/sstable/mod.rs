//! Placeholder: filled in by the sstable work.
