//! Compaction: policy (pickers, pure functions of a [`Version`]) apart from
//! mechanism (jobs that read inputs and write outputs).
//!
//! Pickers: [`leveled`] (RocksDB's `LevelCompactionPicker`), [`universal`]
//! (`UniversalCompactionPicker`), [`fifo`] (`FIFOCompactionPicker`); what
//! they choose is a [`task::CompactionTask`]. Mechanism: [`job`],
//! [`subcompaction`], [`output`], [`file_cut`], [`drop_rules`],
//! [`merge_helper`].
//!
//! [`Version`]: crate::version::Version

#[cfg(test)]
mod datadriven_tests;
pub mod drop_rules;
pub mod fifo;
pub mod file_cut;
pub mod forced;
pub mod job;
pub mod leveled;
pub mod merge_helper;
pub mod output;
pub mod subcompaction;
pub mod task;
#[cfg(test)]
pub(crate) mod testutil;
pub mod universal;
#[cfg(test)]
mod universal_sim;

pub use task::{CompactionReason, CompactionTask};

use crate::options::{CompactionStyle, Options};
use crate::version::Version;
pub use task::Busy;

/// The automatic pick for the configured compaction style.
pub fn pick_automatic(v: &Version, busy: &Busy, o: &Options) -> Option<CompactionTask> {
    if o.disable_auto_compactions {
        return None;
    }
    match o.compaction_style {
        CompactionStyle::Level => leveled::pick_compaction(v, busy, o),
        CompactionStyle::Universal => {
            universal::pick_universal_for(v, busy, o, &o.compaction_options_universal)
        }
        CompactionStyle::Fifo => fifo::pick_fifo(v, busy, o, crate::clock::unix_now()),
    }
}

/// A full manual compaction under universal compaction (RocksDB's
/// `CompactRange` there): every file of every level into the last level.
pub fn pick_universal_full(v: &Version, busy: &Busy, o: &Options) -> Option<CompactionTask> {
    let non_empty: Vec<usize> = (0..v.num_levels())
        .filter(|&l| !v.files(l).is_empty())
        .collect();
    let &first = non_empty.first()?;
    let last = v.num_levels() - 1;
    let all: Vec<_> = non_empty
        .iter()
        .flat_map(|&l| v.files(l).iter().cloned())
        .collect();
    if all.iter().any(|f| busy.files.contains(&f.number)) {
        return None;
    }
    let extra: Vec<_> = non_empty
        .iter()
        .filter(|&&l| l != first && l != last)
        .map(|&l| (l, v.files(l).to_vec()))
        .collect();
    let output_level_inputs = if first == last {
        Vec::new()
    } else {
        v.files(last).to_vec()
    };
    Some(CompactionTask {
        level: first,
        output_level: last,
        inputs: v.files(first).to_vec(),
        extra_inputs: extra,
        output_level_inputs,
        score: 0.0,
        reason: CompactionReason::ManualCompaction,
        target_file_size: universal::universal_target_file_size(o, last),
        trivial_move: false,
    })
}
