//! Compaction: policy (pickers, pure functions of a [`Version`]) apart from
//! mechanism (jobs that read inputs and write outputs).
//!
//! Pickers: [`leveled`] (RocksDB's `LevelCompactionPicker`), [`universal`]
//! (`UniversalCompactionPicker`), [`fifo`] (`FIFOCompactionPicker`); what
//! they choose is a [`task::CompactionTask`]. Mechanism: [`job`],
//! [`subcompaction`], [`output`], [`file_cut`], [`drop_rules`],
//! [`merge_helper`].
//!
//! Where the compaction style is decided: [`policy`]. Every question whose
//! answer depends on `compaction_style` (which picker picks, automatically
//! and on a manual compaction; which compression outputs and flushes use
//! ([`level_compression`] maps levels to `compression_per_level`); how
//! files are cut; the pending compaction bytes and the L0 counts and
//! triggers the write controller judges; the TTL and blob-file rules) is a
//! method of [`CompactionPolicy`]; the DB and the write controller ask it
//! and do not match on the style themselves.
//!
//! [`Version`]: crate::version::Version

#[cfg(test)]
mod datadriven_tests;
pub mod drop_rules;
pub mod fifo;
pub mod file_cut;
pub mod forced;
pub mod job;
pub mod level_compression;
pub mod leveled;
pub mod merge_helper;
pub mod output;
pub mod policy;
pub mod read_triggered;
pub mod subcompaction;
pub mod task;
#[cfg(test)]
pub(crate) mod testutil;
pub mod universal;
#[cfg(test)]
mod universal_sim;

pub use policy::CompactionPolicy;
pub use task::{Busy, CompactionReason, CompactionTask};

use crate::options::Options;
use crate::version::Version;

/// The background's next compaction at the current time: the automatic
/// pick, else one forced by blob garbage, else a read-triggered one
/// ([`CompactionPolicy::pick_scheduled`]).
pub fn pick_scheduled(v: &Version, busy: &Busy, o: &Options) -> Option<CompactionTask> {
    CompactionPolicy::of(o).pick_scheduled(v, busy, crate::clock::unix_now())
}
