//! Versions: the set of live files and its history, kept in the MANIFEST.

pub mod edit;
mod set;
#[allow(clippy::module_inception)]
mod version;

pub use version::{BlobFileMeta, Version, VersionBuilder};
pub use set::{ManifestWrite, VersionSet, COMPARATOR_NAME};
