//! Compactions forced by blob garbage (`blob_garbage_collection_force_threshold`):
//! the tables that keep the oldest, mostly-garbage blob files alive are
//! compacted so their blobs are relocated and the files can be deleted.

use crate::blob::gc_policy::forced_blob_gc;
use crate::options::Options;
use crate::version::Version;

use super::leveled::pick_manual;
use super::task::{Busy, CompactionTask};

/// A compaction of one table the force threshold marked, or `None`.
///
/// The marked table is compacted into the next level (or within the last
/// level), as a manual compaction over its key range would be; with blob
/// GC on, its blobs in files below the age cutoff are relocated.
pub fn pick_forced_blob_gc(v: &Version, busy: &Busy, o: &Options) -> Option<CompactionTask> {
    if o.disable_auto_compactions || !o.enable_blob_garbage_collection || v.blob_files.is_empty() {
        return None;
    }
    let forced = forced_blob_gc(
        &v.blob_file_states(),
        &v.table_blob_links(),
        o.blob_garbage_collection_age_cutoff,
        o.blob_garbage_collection_force_threshold,
    )?;
    for (level, number) in forced.tables {
        if busy.files.contains(&number) {
            continue;
        }
        let Some(f) = v.files(level).iter().find(|f| f.number == number) else {
            continue;
        };
        let lo = crate::types::user_key(&f.smallest).to_vec();
        let hi = crate::types::user_key(&f.largest).to_vec();
        let last = v.num_levels() - 1;
        let mut task = if level == last {
            // Rewrite the file within the last level.
            let mut t = pick_manual(v, busy, o, level, Some(&lo), Some(&hi))?;
            t.output_level = level;
            t.inputs.retain(|x| x.number == number);
            t.output_level_inputs.clear();
            t
        } else {
            pick_manual(v, busy, o, level, Some(&lo), Some(&hi))?
        };
        task.reason = super::task::CompactionReason::ForcedBlobGc;
        return Some(task);
    }
    None
}
