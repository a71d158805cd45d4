//! Versions: the set of live files and its history, kept in the MANIFEST.

pub mod edit;
