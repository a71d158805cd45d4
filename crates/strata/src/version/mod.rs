//! Versions: the set of live files and its history, kept in the MANIFEST.

pub mod edit;
mod set;
mod version;

pub use set::{VersionSet, COMPARATOR_NAME};
pub use version::{Version, VersionBuilder};
