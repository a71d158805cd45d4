//! The leveled compaction picker (RocksDB's `LevelCompactionPicker`, with
//! every `compaction_pri` but `kRoundRobin`), as pure functions of a
//! version, the set of files already being compacted, and the options.

use std::sync::Arc;

use super::level_compression::compression_for_level;
use super::task::{key_range, non_overlapping, Busy, CompactionReason, CompactionTask};
use crate::options::{CompactionPri, Options};
use crate::types::user_key;
use crate::version::edit::FileMetaData;
use crate::version::Version;

/// Target bytes of each level (index 0 unused: L0 is governed by file
/// count). L1 = `max_bytes_for_level_base`, Ln = L(n-1) x multiplier x
/// `max_bytes_for_level_multiplier_additional[n-1]` (1 where not given),
/// as RocksDB's static `CalculateBaseBytes`.
pub fn level_targets(o: &Options) -> Vec<u64> {
    let mut t = vec![0u64; o.num_levels];
    let mut cur = o.max_bytes_for_level_base as f64;
    for (level, slot) in t.iter_mut().enumerate().skip(1) {
        *slot = cur.min(u64::MAX as f64) as u64;
        let extra = o
            .max_bytes_for_level_multiplier_additional
            .get(level)
            .copied()
            .unwrap_or(1);
        cur *= o.max_bytes_for_level_multiplier * f64::from(extra);
    }
    t
}

/// The base level (where L0 compacts to) and the target bytes of every
/// level (index 0 unused).
///
/// Static (`level_compaction_dynamic_level_bytes=false`): base L1, targets
/// from [`level_targets`]. Dynamic (RocksDB's `CalculateBaseBytes`): the
/// largest level's actual size fixes the last level's target, each level
/// above targets a multiplier-th of the one below, and the base level is the
/// deepest level whose target would still exceed `max_bytes_for_level_base`
/// divided by the multiplier; levels above the base stay empty. No target is
/// below `max_bytes_for_level_base`.
pub fn level_layout(v: &Version, o: &Options) -> (usize, Vec<u64>) {
    if !o.level_compaction_dynamic_level_bytes {
        return (1, level_targets(o));
    }
    let n = v.num_levels().max(2);
    let last = n - 1;
    let mult = o.max_bytes_for_level_multiplier;
    let base_max = o.max_bytes_for_level_base;
    let base_min = (base_max as f64 / mult) as u64;
    let mut targets = vec![u64::MAX; n];
    targets[0] = 0;
    let first_non_empty = (1..n).find(|&l| !v.files(l).is_empty());
    let max_level_size = (1..n).map(|l| v.level_bytes(l)).max().unwrap_or(0);
    let (base, base_size) = match first_non_empty {
        None => (last, base_max),
        Some(first) => {
            let mut cur = max_level_size as f64;
            for _ in first..last {
                cur /= mult;
            }
            if cur <= base_min as f64 {
                (first, base_min.saturating_add(1))
            } else {
                let mut base = first;
                while base > 1 && cur > base_max as f64 {
                    base -= 1;
                    cur /= mult;
                }
                (base, (cur as u64).min(base_max))
            }
        }
    };
    let mut size = base_size as f64;
    for (i, t) in targets.iter_mut().enumerate().skip(base) {
        if i > base {
            size *= mult;
        }
        *t = (size.min(u64::MAX as f64) as u64).max(base_max);
    }
    (base, targets)
}

/// Output file size target for a level: `target_file_size_base` at L1 (and
/// L0 outputs), times `target_file_size_multiplier` per level below.
pub fn target_file_size(o: &Options, level: usize) -> u64 {
    let mut s = o.target_file_size_base;
    for _ in 1..level.max(1) {
        s = s.saturating_mul(o.target_file_size_multiplier);
    }
    s
}

/// L0's score for `count` files of `bytes` in all (RocksDB's static-level
/// form): files / `level0_file_num_compaction_trigger`, or bytes /
/// `max_bytes_for_level_base` if larger.
fn l0_score(count: usize, bytes: u64, o: &Options) -> f64 {
    let by_count = count as f64 / o.level0_file_num_compaction_trigger as f64;
    let by_size = bytes as f64 / o.max_bytes_for_level_base as f64;
    by_count.max(by_size)
}

/// Count and bytes of the files of `level` that no running compaction
/// holds.
fn free_files(v: &Version, busy: &Busy, level: usize) -> (usize, u64) {
    v.files(level)
        .iter()
        .filter(|f| !busy.files.contains(&f.number))
        .fold((0, 0), |(n, b), f| (n + 1, b + f.file_size))
}

/// L0's file count and bytes once the flushes in `busy.flushing` land:
/// each is estimated at the mean size of the `count` L0 files present, or,
/// with none present, at the memtables' own bytes.
fn projected_l0(count: usize, bytes: u64, busy: &Busy) -> (usize, u64) {
    if busy.flushing == 0 {
        return (count, bytes);
    }
    let pending = if count > 0 {
        bytes / count as u64 * busy.flushing as u64
    } else {
        busy.flushing_bytes
    };
    (count + busy.flushing, bytes.saturating_add(pending))
}

/// Compaction score of every level but the last, highest first. L0:
/// files not being compacted / trigger (or bytes / base, if larger),
/// counting the memtables being flushed as the L0 files they are about to
/// be (Strata's addition; RocksDB counts only L0 files); Ln: bytes not
/// being compacted / target.
pub fn level_scores(v: &Version, busy: &Busy, o: &Options) -> Vec<(usize, f64)> {
    let (_, targets) = level_layout(v, o);
    let mut scores = Vec::new();
    for (level, &target) in targets
        .iter()
        .enumerate()
        .take(v.num_levels().saturating_sub(1))
    {
        let (count, bytes) = free_files(v, busy, level);
        let score = if level == 0 {
            let (count, bytes) = projected_l0(count, bytes, busy);
            l0_score(count, bytes, o)
        } else {
            bytes as f64 / target.max(1) as f64
        };
        scores.push((level, score));
    }
    scores.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    scores
}

/// Picks the most urgent compaction that does not conflict with `busy`,
/// or `None` when every level is within its target.
///
/// When L0 outranks the base level but cannot compact now (its files are
/// busy, or only the flushes under way lift its score to 1), the base level
/// is skipped, as RocksDB does for a blocked L0 -> base compaction: a base
/// level emptied into the next one just before L0 lands on it would leave
/// the next level with a few wide files that every later base-level file
/// overlaps, so the write amplification would hang on whether a compaction
/// ends just before or just after a flush.
pub fn pick_compaction(v: &Version, busy: &Busy, o: &Options) -> Option<CompactionTask> {
    let (base, _) = level_layout(v, o);
    let mut l0_waiting = false;
    for (level, score) in level_scores(v, busy, o) {
        if score < 1.0 {
            break;
        }
        if level == base && l0_waiting {
            continue;
        }
        let task = if level == 0 {
            let (present, bytes) = free_files(v, busy, 0);
            if l0_score(present, bytes, o) >= 1.0 {
                pick_l0(v, busy, o, score)
            } else {
                None
            }
        } else {
            pick_level(v, busy, o, level, score)
        };
        if task.is_some() {
            return task;
        }
        if level == 0 {
            l0_waiting = true;
        }
    }
    None
}

fn pick_l0(v: &Version, busy: &Busy, o: &Options, score: f64) -> Option<CompactionTask> {
    let l0 = v.files(0);
    // One L0 compaction at a time, taking every L0 file, so that the L0
    // files left behind are always newer than what lands in L1.
    if l0.is_empty() || l0.iter().any(|f| busy.files.contains(&f.number)) {
        return None;
    }
    let inputs: Vec<_> = l0.to_vec();
    let (lo, hi) = key_range(inputs.iter());
    let (base, _) = level_layout(v, o);
    let next = v.overlapping_files(base, Some(&lo), Some(&hi));
    if busy.conflicts(&next, base, &lo, &hi) {
        return None;
    }
    // As RocksDB's L0 trivial move: L0 files whose key ranges are disjoint
    // (a sequential load) and that nothing in the base level overlaps move
    // down unchanged instead of being rewritten.
    let trivial = next.is_empty()
        && non_overlapping(inputs.iter())
        && same_compression(o, 0, base, base)
        && inputs.iter().all(|f| movable(v, o, base, f));
    let reason = CompactionReason::LevelL0FilesNum;
    Some(CompactionTask {
        score,
        trivial_move: trivial,
        ..CompactionTask::level_to_level(0, base, inputs, next, reason, target_file_size(o, 1))
    })
}

fn pick_level(
    v: &Version,
    busy: &Busy,
    o: &Options,
    level: usize,
    score: f64,
) -> Option<CompactionTask> {
    let out = level + 1;
    let avg_value = average_value_size(v);
    // The first free, non-conflicting file in `compaction_pri` order; ties
    // go to the file first in key order.
    let mut best: Option<(f64, Arc<FileMetaData>, Vec<Arc<FileMetaData>>)> = None;
    for f in v.files(level) {
        if busy.files.contains(&f.number) {
            continue;
        }
        let lo = user_key(&f.smallest);
        let hi = user_key(&f.largest);
        let next = v.overlapping_files(out, Some(lo), Some(hi));
        if busy.conflicts(&next, out, lo, hi) {
            continue;
        }
        let size = compensated_size(f, avg_value) as f64;
        let key = match o.compaction_pri {
            CompactionPri::ByCompensatedSize => -size,
            CompactionPri::OldestLargestSeqFirst => f.largest_seq as f64,
            CompactionPri::OldestSmallestSeqFirst => f.smallest_seq as f64,
            CompactionPri::MinOverlappingRatio => {
                let overlap: u64 = next.iter().map(|n| n.file_size).sum();
                overlap as f64 / size.max(1.0)
            }
        };
        if best.as_ref().is_none_or(|(k, _, _)| key < *k) {
            best = Some((key, f.clone(), next));
        }
    }
    let (_, file, next) = best?;
    let reason = CompactionReason::LevelMaxLevelSize;
    Some(file_task(v, busy, o, level, file, next, score, reason))
}

/// The compaction of `file` of `level` (>= 1) with the files of the next
/// level it overlaps (`next`): a trivial move (extended to its free
/// neighbours) when nothing overlaps it and it may move, else a merge.
#[allow(clippy::too_many_arguments)]
fn file_task(
    v: &Version,
    busy: &Busy,
    o: &Options,
    level: usize,
    file: Arc<FileMetaData>,
    next: Vec<Arc<FileMetaData>>,
    score: f64,
    reason: CompactionReason,
) -> CompactionTask {
    let out = level + 1;
    let trivial = next.is_empty()
        && same_compression(o, level, out, level_layout(v, o).0)
        && movable(v, o, out, &file);
    let inputs = if trivial {
        extend_trivial_move(v, busy, o, level, file)
    } else {
        vec![file]
    };
    CompactionTask {
        score,
        trivial_move: trivial,
        ..CompactionTask::level_to_level(level, out, inputs, next, reason, target_file_size(o, out))
    }
}

/// A compaction of one chosen table outside the levels' scores (what
/// read-triggered compaction asks for): a table of L0 takes every L0 file
/// into the base level, as an L0 compaction does; a table of a deeper
/// level (above the last) goes into the next level with the files it
/// overlaps there, or moves down unchanged when it can, as a size-driven
/// pick of it would. `None` when its inputs are busy. Score 0, `reason`.
pub(crate) fn pick_file(
    v: &Version,
    busy: &Busy,
    o: &Options,
    level: usize,
    file: &Arc<FileMetaData>,
    reason: CompactionReason,
) -> Option<CompactionTask> {
    if level == 0 {
        return pick_l0(v, busy, o, 0.0).map(|t| CompactionTask { reason, ..t });
    }
    if level + 1 >= v.num_levels() || busy.files.contains(&file.number) {
        return None;
    }
    let out = level + 1;
    let lo = user_key(&file.smallest);
    let hi = user_key(&file.largest);
    let next = v.overlapping_files(out, Some(lo), Some(hi));
    if busy.conflicts(&next, out, lo, hi) {
        return None;
    }
    Some(file_task(
        v,
        busy,
        o,
        level,
        file.clone(),
        next,
        0.0,
        reason,
    ))
}

/// Mean bytes per non-deletion entry over the version's tables: the
/// stand-in for RocksDB's average raw value size in [`compensated_size`]
/// (Strata's file metadata has no raw value sizes; this counts keys and
/// compression too).
fn average_value_size(v: &Version) -> u64 {
    let (mut bytes, mut values) = (0u64, 0u64);
    for level in 0..v.num_levels() {
        for f in v.files(level) {
            bytes += f.file_size;
            values += f.num_entries.saturating_sub(f.num_deletions);
        }
    }
    // RocksDB's GetAverageValueSize: 0 without non-deletion entries.
    bytes.checked_div(values).unwrap_or(0)
}

/// A file's size with deletions weighted up, as RocksDB's
/// `compensated_file_size`: when deletions are at least half its entries,
/// each deletion beyond the other entries counts twice the average value
/// size, since compacting it frees space below.
pub(crate) fn compensated_size(f: &FileMetaData, average_value_size: u64) -> u64 {
    let boost = (f.num_deletions * 2).saturating_sub(f.num_entries);
    f.file_size
        .saturating_add(boost.saturating_mul(average_value_size).saturating_mul(2))
}

/// At most this many files move down in one trivial move (RocksDB's
/// `kMaxMultiTrivialMove`).
const MAX_FILES_PER_TRIVIAL_MOVE: usize = 4;

/// RocksDB's `TryExtendNonL0TrivialMove`: a file that moves down unchanged
/// takes the files after it in the level along while the whole stretch
/// still overlaps nothing below, no user key straddles its end, none of them
/// is busy, and it stays within `max_compaction_bytes` and four files. A
/// level just over its target then hands several files to the next level at
/// once instead of one per pick, so the L0 compactions that follow rewrite
/// a smaller level, as they do under RocksDB.
fn extend_trivial_move(
    v: &Version,
    busy: &Busy,
    o: &Options,
    level: usize,
    first: Arc<FileMetaData>,
) -> Vec<Arc<FileMetaData>> {
    let files = v.files(level);
    let Some(start) = files.iter().position(|f| f.number == first.number) else {
        return vec![first];
    };
    let limit = max_compaction_bytes(o);
    let lo = user_key(&first.smallest).to_vec();
    let mut total = first.file_size;
    let mut out = vec![first];
    for (i, f) in files.iter().enumerate().skip(start + 1) {
        if out.len() >= MAX_FILES_PER_TRIVIAL_MOVE || busy.files.contains(&f.number) {
            break;
        }
        let hi = user_key(&f.largest);
        if !v
            .overlapping_files(level + 1, Some(&lo), Some(hi))
            .is_empty()
            || busy.conflicts(&[], level + 1, &lo, hi)
            || !movable(v, o, level + 1, f)
        {
            break;
        }
        if files
            .get(i + 1)
            .is_some_and(|n| user_key(&n.smallest) == hi)
        {
            break;
        }
        total = total.saturating_add(f.file_size);
        if total > limit {
            break;
        }
        out.push(f.clone());
    }
    out
}

/// `max_compaction_bytes`, or its default of 25 x `target_file_size_base`
/// when 0.
fn max_compaction_bytes(o: &Options) -> u64 {
    match o.max_compaction_bytes {
        0 => o.target_file_size_base.saturating_mul(25),
        n => n,
    }
}

/// Whether tables written to `from` and to `to` get the same compression
/// (`compression_per_level`): a file moves down unchanged only then, as
/// RocksDB's `Compaction::InputCompressionMatchesOutput` requires.
fn same_compression(o: &Options, from: usize, to: usize, base_level: usize) -> bool {
    compression_for_level(o, from, base_level) == compression_for_level(o, to, base_level)
}

/// Whether `f` may move into `output_level` unchanged as far as the level
/// below that goes: a moved file that overlaps more than
/// `max_compaction_bytes` of `output_level + 1` (with its own size) would
/// make a later compaction of it too big, so it is merged instead
/// (RocksDB's `Compaction::IsTrivialMove`, which looks at `output_level + 1`
/// only, not at the first deeper level with files as output cutting does).
fn movable(v: &Version, o: &Options, output_level: usize, f: &FileMetaData) -> bool {
    let below = output_level + 1;
    if below >= v.num_levels() {
        return true;
    }
    let overlap: u64 = v
        .overlapping_files(
            below,
            Some(user_key(&f.smallest)),
            Some(user_key(&f.largest)),
        )
        .iter()
        .map(|g| g.file_size)
        .sum();
    f.file_size.saturating_add(overlap) <= max_compaction_bytes(o)
}

/// A manual compaction of `level` into `level + 1` over a user-key range
/// (`None` = unbounded), or `None` if the level has no file there or the
/// files are busy.
pub fn pick_manual(
    v: &Version,
    busy: &Busy,
    o: &Options,
    level: usize,
    begin: Option<&[u8]>,
    end: Option<&[u8]>,
) -> Option<CompactionTask> {
    let out = if level == 0 {
        level_layout(v, o).0
    } else {
        (level + 1).min(v.num_levels() - 1)
    };
    let inputs = if level == 0 {
        // Any overlapping L0 file drags in all L0 files overlapping it; the
        // simplest safe choice is every L0 file.
        let any = !v.overlapping_files(0, begin, end).is_empty();
        if any {
            v.files(0).to_vec()
        } else {
            Vec::new()
        }
    } else {
        v.overlapping_files(level, begin, end)
    };
    if inputs.is_empty() {
        return None;
    }
    let (lo, hi) = key_range(inputs.iter());
    let next = if out == level {
        Vec::new()
    } else {
        v.overlapping_files(out, Some(&lo), Some(&hi))
    };
    if busy.conflicts(&inputs, out, &lo, &hi) || busy.conflicts(&next, out, &lo, &hi) {
        return None;
    }
    let reason = CompactionReason::ManualCompaction;
    Some(CompactionTask::level_to_level(
        level,
        out,
        inputs,
        next,
        reason,
        target_file_size(o, out),
    ))
}

/// RocksDB's estimate of the bytes compaction must still rewrite to bring
/// every level within its target (`rocksdb.estimate-pending-compaction-bytes`);
/// it drives the pending-bytes stall triggers.
pub fn estimated_pending_compaction_bytes(v: &Version, o: &Options) -> u64 {
    let (base, targets) = level_layout(v, o);
    let mut total: u64 = 0;
    let l0_bytes = v.level_bytes(0);
    let mut carried: u64 = 0;
    if v.files(0).len() >= o.level0_file_num_compaction_trigger {
        total += l0_bytes + v.level_bytes(base);
        carried = l0_bytes;
    }
    let last = v.num_levels().saturating_sub(1);
    for (level, &target) in targets.iter().enumerate().take(last).skip(base) {
        let level_bytes = v.level_bytes(level) + carried;
        carried = 0;
        if level_bytes > target {
            let excess = level_bytes - target;
            let below = v.level_bytes(level + 1) as f64;
            let ratio = if level_bytes > 0 {
                (below / level_bytes as f64).max(1.0)
            } else {
                1.0
            };
            total = total.saturating_add((excess as f64 * (ratio + 1.0)) as u64);
            carried = excess;
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::testutil::meta;

    #[test]
    fn compensated_size_weights_deletions_only_when_they_dominate() {
        let mut f = meta(1, "a", "b", 1000);
        f.num_entries = 10;
        f.num_deletions = 4; // 8 < 10: no boost
        assert_eq!(compensated_size(&f, 50), 1000);
        f.num_deletions = 8; // (16 - 10) x 50 x 2
        assert_eq!(compensated_size(&f, 50), 1600);
    }
}
