//! Versions: the set of live files and its history, kept in the MANIFEST.

pub mod edit;
mod set;
#[allow(clippy::module_inception)]
mod version;

pub use set::VersionSet;
pub use version::{Version, VersionBuilder};
