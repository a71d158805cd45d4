//! The FIFO compaction picker (RocksDB's `FIFOCompactionPicker`, size-based
//! part), as pure functions of a version, the busy set and the options.
//!
//! FIFO keeps every table in L0 and, once all tables together exceed
//! `max_table_files_size`, deletes the oldest whole files until they fit:
//! a bounded window over the newest data, for logs and time series, with a
//! write amplification of 1 (flushes only). Deletion "compactions" write
//! nothing; they are a version edit. With `allow_compaction`, while the
//! size is within the limit, runs of small newest L0 files are merged into
//! one (intra-L0), so reads see fewer files.

use crate::setters::with_setters;
use std::fmt;

use crate::options::Options;
use crate::version::Version;

use super::task::{Busy, CompactionReason, CompactionTask};

with_setters! {
    /// FIFO compaction's knobs (`compaction_options_fifo`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    #[non_exhaustive]
    pub struct FifoOptions {
        /// Bytes all table files together may hold; past it, the oldest files
        /// are deleted. Default: 1 GiB (RocksDB's).
        pub max_table_files_size: u64,
        /// Merge small newest L0 files while within the size limit (at least
        /// `level0_file_num_compaction_trigger` of them, each run's bytes per
        /// file removed below 1.1 x `write_buffer_size`). Default: false.
        /// Fewer files for reads, for some rewriting; merged files expire as a
        /// whole, later.
        pub allow_compaction: bool,
    }
}

impl Default for FifoOptions {
    fn default() -> Self {
        FifoOptions {
            max_table_files_size: 1 << 30,
            allow_compaction: false,
        }
    }
}

impl fmt::Display for FifoOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{{max_table_files_size={};allow_compaction={}}}",
            self.max_table_files_size, self.allow_compaction
        )
    }
}

/// Output files of a FIFO intra-L0 merge are cut at this size (RocksDB's).
const INTRA_L0_OUTPUT_FILE_SIZE: u64 = 16 << 20;

/// Picks a FIFO compaction: a deletion of the oldest files when the tables
/// exceed `max_table_files_size`, else (with `allow_compaction`) an
/// intra-L0 merge of the newest small files, else `None`. One FIFO job at
/// a time: nothing is picked while any file is busy.
///
/// A version with files below L0 (a DB opened with FIFO after another
/// style) is purged from its last non-empty level first, smallest keys
/// first, as RocksDB does.
pub fn pick_fifo(v: &Version, busy: &Busy, o: &Options, now: u64) -> Option<CompactionTask> {
    let f = &o.compaction_options_fifo;
    if !busy.files.is_empty() {
        return None;
    }
    if o.effective_ttl() > 0 {
        if let Some(task) = pick_ttl(v, o, now) {
            return Some(task);
        }
    }
    let total = v.total_bytes();
    let last = (0..v.num_levels())
        .rev()
        .find(|&l| !v.files(l).is_empty())?;
    if total <= f.max_table_files_size {
        return if last == 0 && f.allow_compaction {
            pick_intra_l0(v, o)
        } else {
            None
        };
    }
    // L0 is newest first, so its oldest files are at the end; a deeper
    // level has no age order, so it goes from the smallest key.
    let files = v.files(last);
    let order: Box<dyn Iterator<Item = _>> = if last == 0 {
        Box::new(files.iter().rev())
    } else {
        Box::new(files.iter())
    };
    let mut left = total;
    let mut inputs = Vec::new();
    for file in order {
        left -= file.file_size;
        inputs.push(file.clone());
        if left <= f.max_table_files_size {
            break;
        }
    }
    Some(CompactionTask {
        level: last,
        output_level: last,
        inputs,
        extra_inputs: Vec::new(),
        output_level_inputs: Vec::new(),
        score: total as f64 / f.max_table_files_size.max(1) as f64,
        reason: CompactionReason::FifoMaxSize,
        target_file_size: 0,
        trivial_move: false,
    })
}

/// RocksDB's `PickTTLCompaction`: the oldest L0 files whose newest entry
/// was written more than `ttl` seconds before `now`, deleted when that
/// brings the tables within `max_table_files_size` (otherwise the size pick
/// deletes at least as much). The walk stops at the first file that is
/// young enough or whose time is unknown.
fn pick_ttl(v: &Version, o: &Options, now: u64) -> Option<CompactionTask> {
    let cutoff = now.checked_sub(o.effective_ttl())?;
    let l0 = v.files(0);
    let mut left = v.total_bytes();
    let mut inputs = Vec::new();
    for f in l0.iter().rev() {
        if f.newest_key_time == 0 || f.newest_key_time >= cutoff {
            break;
        }
        left -= f.file_size;
        inputs.push(f.clone());
    }
    if inputs.is_empty() || left > o.compaction_options_fifo.max_table_files_size {
        return None;
    }
    Some(CompactionTask {
        level: 0,
        output_level: 0,
        inputs,
        extra_inputs: Vec::new(),
        output_level_inputs: Vec::new(),
        score: 1.0,
        reason: CompactionReason::FifoTtl,
        target_file_size: 0,
        trivial_move: false,
    })
}

/// RocksDB's `FindIntraL0Compaction` with FIFO's bounds: from the newest L0
/// file, take older ones while the bytes per file merged away do not grow
/// and the total stays within `max_compaction_bytes`; worth it when that
/// takes at least `level0_file_num_compaction_trigger` files and the bytes
/// per file removed stay below 1.1 x `write_buffer_size` (so merged files
/// are not merged again and again).
fn pick_intra_l0(v: &Version, o: &Options) -> Option<CompactionTask> {
    let l0 = v.files(0);
    let first = l0.first()?;
    let max_compaction_bytes = match o.max_compaction_bytes {
        0 => o.target_file_size_base.saturating_mul(25),
        n => n,
    };
    let per_file_limit = (o.write_buffer_size as f64 * 1.1) as u64;
    let mut bytes = first.file_size;
    let mut per_deleted = u64::MAX;
    let mut limit = 1;
    while limit < l0.len() {
        bytes += l0[limit].file_size;
        let next = bytes / limit as u64;
        if next > per_deleted || bytes > max_compaction_bytes {
            break;
        }
        per_deleted = next;
        limit += 1;
    }
    if limit < o.level0_file_num_compaction_trigger || per_deleted >= per_file_limit {
        return None;
    }
    Some(CompactionTask {
        level: 0,
        output_level: 0,
        inputs: l0[..limit].to_vec(),
        extra_inputs: Vec::new(),
        output_level_inputs: Vec::new(),
        score: l0.len() as f64 / o.level0_file_num_compaction_trigger.max(1) as f64,
        reason: CompactionReason::FifoReduceNumFiles,
        target_file_size: INTRA_L0_OUTPUT_FILE_SIZE,
        trivial_move: false,
    })
}

#[cfg(test)]
mod tests {
    use crate::options::{CompactionStyle, Options};

    /// The default `ttl` is 30 days under FIFO only (the picks it makes are
    /// in `testdata/compaction/fifo`).
    #[test]
    fn default_ttl_is_thirty_days_under_fifo_only() {
        let mut o = Options::default();
        assert_eq!(o.effective_ttl(), 0);
        o.compaction_style = CompactionStyle::Fifo;
        assert_eq!(o.effective_ttl(), 30 * 24 * 3600);
        o.ttl = 600;
        assert_eq!(o.effective_ttl(), 600);
    }
}
