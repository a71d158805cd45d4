//! Placeholder: filled in by the wal work.
