//! Versions: the set of live files and its history, kept in the MANIFEST.

mod current;
pub mod edit;
mod set;

pub use current::{BlobFileMeta, Version, VersionBuilder};
pub use set::{ManifestWrite, VersionSet, COMPARATOR_NAME};
