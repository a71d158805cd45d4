//! Compaction: policy (pickers, pure functions of a [`Version`]) apart from
//! mechanism (jobs that read inputs and write outputs).
//!
//! [`Version`]: crate::version::Version

pub mod drop_rules;
pub mod forced;
pub mod job;
pub mod output;
pub mod picker;

pub use picker::{CompactionReason, CompactionTask};
