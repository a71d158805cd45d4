//! Versions: the set of live files and its history, kept in the MANIFEST.

pub mod edit;
mod set;
#[cfg(test)]
pub(crate) mod testutil;
#[allow(clippy::module_inception)]
mod version;
pub mod wasted_reads;

pub use set::{write_current_file, VersionSet, DEFAULT_FAMILY_NAME};
pub use version::{Version, VersionBuilder};
