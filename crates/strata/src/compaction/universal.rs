//! The universal compaction picker (RocksDB's `UniversalCompactionPicker`),
//! as pure functions of a version, the set of files already being
//! compacted, and the options. See `docs/design/universal.md`.
//!
//! Universal compaction sees the tree as a stack of *sorted runs*, newest
//! first: every L0 file is a run of its own, then every non-empty level
//! from L1 down is one run. It only ever merges runs that are adjacent in
//! that order, so the runs stay ordered by age and the output of a merge
//! can take the place of its inputs in the stack.

use crate::setters::with_setters;
use std::fmt;
use std::str::FromStr;
use std::sync::Arc;

use super::leveled::target_file_size;
use super::task::{key_range, non_overlapping, Busy, CompactionReason, CompactionTask};
use crate::error::{Error, Result};
use crate::options::Options;
use crate::types::user_key;
use crate::version::edit::FileMetaData;
use crate::version::Version;

/// How the size-ratio pass decides to stop adding runs
/// (`compaction_options_universal.stop_style`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StopStyle {
    /// `kCompactionStopStyleSimilarSize`: the next run must be within
    /// `size_ratio` percent of the last run picked, in both directions.
    SimilarSize,
    /// `kCompactionStopStyleTotalSize` (RocksDB's default): the next run must
    /// be at most `(100 + size_ratio)` percent of all runs picked so far.
    #[default]
    TotalSize,
}

impl StopStyle {
    /// RocksDB's name.
    pub fn name(self) -> &'static str {
        match self {
            StopStyle::SimilarSize => "kCompactionStopStyleSimilarSize",
            StopStyle::TotalSize => "kCompactionStopStyleTotalSize",
        }
    }
}

impl fmt::Display for StopStyle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for StopStyle {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "kCompactionStopStyleSimilarSize" | "0" => Ok(StopStyle::SimilarSize),
            "kCompactionStopStyleTotalSize" | "1" => Ok(StopStyle::TotalSize),
            other => Err(Error::InvalidArgument(format!(
                "compaction_options_universal.stop_style: unknown value '{other}'"
            ))),
        }
    }
}

with_setters! {
    /// RocksDB's `CompactionOptionsUniversal` (the fields this picker honours),
    /// with RocksDB's defaults.
    #[derive(Debug, Clone, PartialEq, Eq)]
    #[non_exhaustive]
    pub struct UniversalOptions {
        /// Percentage of slack when comparing run sizes in the size-ratio pass:
        /// a run joins the candidates if it is at most `(100 + size_ratio)`%
        /// of the candidates' size. Default: 1.
        pub size_ratio: u32,
        /// Fewest runs a size-ratio or run-count compaction merges (values
        /// below 2 act as 2). Default: 2.
        pub min_merge_width: u32,
        /// Most runs a size-ratio or run-count compaction merges.
        /// Default: `u32::MAX`.
        pub max_merge_width: u32,
        /// Size amplification allowed before a full compaction, in percent:
        /// when all runs but the oldest hold at least this percentage of the
        /// oldest run's bytes, everything is merged. Default: 200.
        pub max_size_amplification_percent: u32,
        /// Stopping rule of the size-ratio pass. Default: total size.
        pub stop_style: StopStyle,
        /// Move input files down without rewriting them when no two inputs
        /// overlap. Default: false.
        pub allow_trivial_move: bool,
        /// Keep roughly this percentage of the data (the oldest runs)
        /// compressed and the rest not: -1 (the default) compresses
        /// everything. When set (0-100), flushes write uncompressed tables, a
        /// size-ratio or run-count merge compresses its output only while the
        /// runs older than it hold less than this percentage of all bytes, and
        /// full (size-amplification) merges always compress. Trades space for
        /// the CPU of compressing short-lived young data.
        pub compression_size_percent: i32,
    }
}

impl Default for UniversalOptions {
    fn default() -> Self {
        UniversalOptions {
            size_ratio: 1,
            min_merge_width: 2,
            max_merge_width: u32::MAX,
            max_size_amplification_percent: 200,
            stop_style: StopStyle::TotalSize,
            allow_trivial_move: false,
            compression_size_percent: -1,
        }
    }
}

/// One sorted run: an L0 file, or all the files of a level >= 1.
#[derive(Debug, Clone)]
pub struct SortedRun {
    /// The level the run lives in.
    pub level: usize,
    /// Its files (one for L0; the whole level, in key order, otherwise).
    pub files: Vec<Arc<FileMetaData>>,
    /// Total bytes.
    pub size: u64,
    /// True if any of its files is an input of a running compaction.
    pub being_compacted: bool,
}

/// The deepest level universal may write to: `num_levels - 1`, bounded by
/// the levels the version has.
fn max_output_level(v: &Version, num_levels: usize) -> usize {
    num_levels.min(v.num_levels()).saturating_sub(1)
}

/// The sorted runs of `v`, newest first: each L0 file (newest first), then
/// each non-empty level from L1 to `num_levels - 1`.
pub fn sorted_runs(v: &Version, busy: &Busy, num_levels: usize) -> Vec<SortedRun> {
    let mut runs = Vec::new();
    for f in v.files(0) {
        runs.push(SortedRun {
            level: 0,
            files: vec![f.clone()],
            size: f.file_size,
            being_compacted: busy.files.contains(&f.number),
        });
    }
    for level in 1..=max_output_level(v, num_levels) {
        let files = v.files(level);
        if files.is_empty() {
            continue;
        }
        runs.push(SortedRun {
            level,
            files: files.to_vec(),
            size: files.iter().map(|f| f.file_size).sum(),
            being_compacted: files.iter().any(|f| busy.files.contains(&f.number)),
        });
    }
    runs
}

/// What the picker needs to know of a run (so that the choice can also run
/// on run sizes alone, without files).
#[derive(Debug, Clone, Copy)]
struct RunInfo {
    level: usize,
    size: u64,
    busy: bool,
}

/// A chosen span of runs `start..=end`, its output level and reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Choice {
    start: usize,
    end: usize,
    output_level: usize,
    reason: CompactionReason,
}

/// Output level of a merge of runs ending just before `first_after`: the
/// deepest level when every run down to the oldest is included; otherwise
/// the level just above the next older run (L0 if that run is an L0 file).
fn output_level_before(runs: &[RunInfo], first_after: usize, max_out: usize) -> usize {
    match runs.get(first_after) {
        None => max_out,
        Some(next) => next.level.saturating_sub(1),
    }
}

/// Size amplification: the longest span of free runs ending at the oldest
/// run, merged whole when the newer runs hold at least
/// `max_size_amplification_percent` of the oldest run's bytes.
///
/// As RocksDB 10 does, the newest L0 files of the span may be left out
/// ([`exclude_new_l0s`]), so that L0 keeps fewer runs toward
/// `level0_stop_writes_trigger` while the long merge runs.
fn choose_size_amp(
    runs: &[RunInfo],
    o: &UniversalOptions,
    max_out: usize,
    stop_trigger: usize,
    accept: &dyn Fn(&Choice) -> bool,
) -> Option<Choice> {
    let end = runs.len().checked_sub(1)?;
    let oldest = runs.get(end)?;
    if oldest.busy {
        return None;
    }
    let mut start = end;
    let mut newer: u64 = 0;
    while start > 0 && !runs[start - 1].busy {
        newer = newer.saturating_add(runs[start - 1].size);
        start -= 1;
    }
    if start == end {
        return None;
    }
    let (start, newer) = exclude_new_l0s(runs, start, end, newer, o, stop_trigger);
    // RocksDB: "size amp not needed" iff newer * 100 < percent * oldest.
    if (newer as u128) * 100 < o.max_size_amplification_percent as u128 * oldest.size as u128 {
        return None;
    }
    let c = Choice {
        start,
        end,
        output_level: max_out,
        reason: CompactionReason::UniversalSizeAmplification,
    };
    accept(&c).then_some(c)
}

/// RocksDB 10's `MightExcludeNewL0sToReduceWriteStop`: drops the newest L0
/// runs from the start of a size-amplification span `start..=end` (whose
/// runs but the last hold `newer` bytes) while what is left still calls for
/// the merge and keeps at least 90% of `newer`. At least one L0 run and two
/// runs stay; how many may go is bounded by the merge widths against the
/// runs still free under `stop_trigger` (the sorted runs of the span count
/// toward it). Returns the new start and its `newer` bytes.
fn exclude_new_l0s(
    runs: &[RunInfo],
    start: usize,
    end: usize,
    newer: u64,
    o: &UniversalOptions,
    stop_trigger: usize,
) -> (usize, u64) {
    let l0s = runs[start..end].iter().filter(|r| r.level == 0).count();
    if l0s == 0 {
        return (start, newer);
    }
    let most = (l0s - 1).min(end - start - 1);
    let spare = stop_trigger - stop_trigger.min(end - start + 1);
    let (max_w, min_w) = (o.max_merge_width as usize, o.min_merge_width as usize);
    let upper = (max_w - max_w.min(spare)).min(most);
    let lower = (min_w - min_w.min(spare)).min(most);
    let base = runs[end].size as u128;
    let percent = o.max_size_amplification_percent as u128;
    let (mut excluded, mut kept) = (0, newer);
    for n in lower..=upper {
        let candidate = kept
            - runs[start + excluded..start + n]
                .iter()
                .map(|r| r.size)
                .sum::<u64>();
        if (candidate as u128) * 100 < percent * base
            || (candidate as u128) < newer as u128 * 9 / 10
        {
            break;
        }
        excluded = n;
        kept = candidate;
    }
    (start + excluded, kept)
}

/// The size-ratio pass (and, with `ratio = u32::MAX`, the run-count pass):
/// from the newest free run, add the next older run while it is not much
/// bigger than what is picked (see [`StopStyle`]), up to `max_runs` runs;
/// the first start that gathers `min_merge_width` runs wins.
fn choose_by_ratio(
    runs: &[RunInfo],
    o: &UniversalOptions,
    ratio: u32,
    max_runs: usize,
    reason: CompactionReason,
    max_out: usize,
    accept: &dyn Fn(&Choice) -> bool,
) -> Option<Choice> {
    let min_width = (o.min_merge_width as usize).max(2);
    let max_width = (o.max_merge_width as usize).min(max_runs);
    let slack = (100.0 + ratio as f64) / 100.0;
    let mut first = 0;
    while first < runs.len() {
        if runs[first].busy {
            first += 1;
            continue;
        }
        let mut picked = runs[first].size as f64;
        let mut count = 1;
        for next in runs.iter().skip(first + 1) {
            if count >= max_width || next.busy {
                break;
            }
            let next_size = next.size as f64;
            if picked * slack < next_size {
                break;
            }
            match o.stop_style {
                StopStyle::SimilarSize => {
                    // Also stop at a run much smaller than the last one
                    // picked: it may start a run of similar small ones.
                    if next_size * slack < picked {
                        break;
                    }
                    picked = next_size;
                }
                StopStyle::TotalSize => picked += next_size,
            }
            count += 1;
        }
        if count >= min_width {
            let c = Choice {
                start: first,
                end: first + count - 1,
                output_level: output_level_before(runs, first + count, max_out),
                reason,
            };
            // As RocksDB: a span that conflicts with a running compaction's
            // output ends this pass.
            return accept(&c).then_some(c);
        }
        first += 1;
    }
    None
}

/// RocksDB's order of attempts, on runs already known to reach the trigger.
fn choose(
    runs: &[RunInfo],
    o: &UniversalOptions,
    max_out: usize,
    (l0_trigger, stop_trigger): (usize, usize),
    accept: &dyn Fn(&Choice) -> bool,
) -> Option<Choice> {
    if runs.is_empty() || runs.len() < l0_trigger.max(1) {
        return None;
    }
    if let Some(c) = choose_size_amp(runs, o, max_out, stop_trigger, accept) {
        return Some(c);
    }
    if let Some(c) = choose_by_ratio(
        runs,
        o,
        o.size_ratio,
        usize::MAX,
        CompactionReason::UniversalSizeRatio,
        max_out,
        accept,
    ) {
        return Some(c);
    }
    let free = runs.iter().filter(|r| !r.busy).count();
    let max_runs = l0_trigger.max(1);
    if free > max_runs {
        return choose_by_ratio(
            runs,
            o,
            u32::MAX,
            free - max_runs + 1,
            CompactionReason::UniversalSortedRunNum,
            max_out,
            accept,
        );
    }
    None
}

fn run_infos(runs: &[SortedRun]) -> Vec<RunInfo> {
    runs.iter()
        .map(|r| RunInfo {
            level: r.level,
            size: r.size,
            busy: r.being_compacted,
        })
        .collect()
}

/// True if no two of `files` overlap in user keys.
/// Files of the runs `start..=end` arranged as a task: the first run's
/// level in `inputs`, the output level's in `output_level_inputs`, the
/// levels between in `extra_inputs`.
fn task_from_runs(
    runs: &[SortedRun],
    c: &Choice,
    score: f64,
    o: &UniversalOptions,
    target: &dyn Fn(usize) -> u64,
) -> CompactionTask {
    let level = runs[c.start].level;
    let mut inputs = Vec::new();
    let mut extra_inputs: Vec<(usize, Vec<Arc<FileMetaData>>)> = Vec::new();
    let mut output_level_inputs = Vec::new();
    for r in &runs[c.start..=c.end] {
        if r.level == level {
            inputs.extend(r.files.iter().cloned());
        } else if r.level == c.output_level {
            output_level_inputs.extend(r.files.iter().cloned());
        } else {
            extra_inputs.push((r.level, r.files.clone()));
        }
    }
    let mut task = CompactionTask {
        level,
        output_level: c.output_level,
        inputs,
        extra_inputs,
        output_level_inputs,
        score,
        reason: c.reason,
        target_file_size: target(c.output_level),
        trivial_move: false,
    };
    task.trivial_move =
        o.allow_trivial_move && task.output_level > 0 && non_overlapping(task.all_inputs());
    task
}

fn pick_with_target(
    v: &Version,
    busy: &Busy,
    o: &UniversalOptions,
    num_levels: usize,
    (l0_trigger, stop_trigger): (usize, usize),
    target: &dyn Fn(usize) -> u64,
) -> Option<CompactionTask> {
    let runs = sorted_runs(v, busy, num_levels);
    let infos = run_infos(&runs);
    let max_out = max_output_level(v, num_levels);
    // A merge into a level >= 1 must not write over the key range a running
    // compaction is writing into that level (intra-L0 outputs may overlap).
    let accept = |c: &Choice| {
        if c.output_level == 0 {
            return true;
        }
        let (lo, hi) = key_range(runs[c.start..=c.end].iter().flat_map(|r| r.files.iter()));
        !busy.conflicts(&[], c.output_level, &lo, &hi)
    };
    let choice = choose(&infos, o, max_out, (l0_trigger, stop_trigger), &accept)?;
    let score = infos.iter().filter(|r| !r.busy).count() as f64 / l0_trigger.max(1) as f64;
    Some(task_from_runs(&runs, &choice, score, o, target))
}

/// RocksDB's output file size limit under universal compaction: no limit
/// for L0 outputs, `target_file_size_base` (times the multiplier per level
/// below L1) for levels >= 1.
pub fn universal_target_file_size(o: &Options, level: usize) -> u64 {
    if level == 0 {
        u64::MAX
    } else {
        target_file_size(o, level)
    }
}

/// Picks a universal compaction, or `None` when there are fewer sorted runs
/// than `level0_file_num_compaction_trigger` or nothing qualifies. Tries, in
/// RocksDB's order: size amplification, size ratio, sorted-run count. Runs
/// with a busy file are never picked.
///
/// The oldest run may live in `num_levels - 1` (bounded by the version's
/// levels); outputs are cut at [`universal_target_file_size`]. As RocksDB
/// 10, a size-amplification merge may leave the newest L0 files out while
/// L0 nears `level0_stop_writes_trigger` (see `exclude_new_l0s`).
pub fn pick_universal_for(
    v: &Version,
    busy: &Busy,
    o: &Options,
    u: &UniversalOptions,
) -> Option<CompactionTask> {
    pick_with_target(
        v,
        busy,
        u,
        o.num_levels,
        (
            o.level0_file_num_compaction_trigger,
            crate::write_controller::l0_stop_trigger(o),
        ),
        &|level| universal_target_file_size(o, level),
    )
}

/// Whether a universal `task` picked from `v` compresses its output under
/// `compression_size_percent` (RocksDB's `enable_compression` in
/// `PickCompactionToReduceSortedRuns`): always for a size-amplification
/// merge or with the option at -1; otherwise only while the runs older
/// than the task's hold less than that percentage of all runs' bytes.
pub fn task_compresses(
    v: &Version,
    task: &CompactionTask,
    o: &UniversalOptions,
    num_levels: usize,
) -> bool {
    let percent = o.compression_size_percent;
    if percent < 0
        || !matches!(
            task.reason,
            CompactionReason::UniversalSizeRatio | CompactionReason::UniversalSortedRunNum
        )
    {
        return true;
    }
    let runs = sorted_runs(v, &Busy::default(), num_levels);
    let inputs: std::collections::BTreeSet<u64> = task.all_inputs().map(|f| f.number).collect();
    let Some(last) = runs
        .iter()
        .rposition(|r| r.files.iter().any(|f| inputs.contains(&f.number)))
    else {
        return true;
    };
    let total: u64 = runs.iter().map(|r| r.size).sum();
    let older: u64 = runs[last + 1..].iter().map(|r| r.size).sum();
    (older as u128) * 100 < total as u128 * percent as u128
}

/// True if no file older than `task`'s outputs overlaps the task's whole
/// key range (RocksDB's `Compaction::IsBottommostLevel`): then every
/// tombstone the task may drop is dropped at the bottom. When false, the
/// tombstones [`task_is_bottommost_for_key`] still lets it drop are dropped
/// early, above data of other keys (`rocksdb.compaction.optimized.del.drop.obsolete`).
pub fn task_is_bottommost(v: &Version, task: &CompactionTask) -> bool {
    let (lo, hi) = task.user_key_range();
    let deeper = (task.output_level + 1..v.num_levels())
        .any(|l| !v.overlapping_files(l, Some(&lo), Some(&hi)).is_empty());
    if deeper {
        return false;
    }
    !older_l0_outside_task_overlaps(v, task, &lo, &hi)
}

/// True if no file older than `task`'s outputs may hold `ukey`, so that a
/// tombstone for it can be dropped by the task. Unlike
/// [`Version::is_bottommost_for_key`] alone, this also looks at L0 files
/// left out of an intra-L0 task (output level 0), which sit in the same
/// level as the output and may hold older versions of the key.
pub fn task_is_bottommost_for_key(v: &Version, task: &CompactionTask, ukey: &[u8]) -> bool {
    if !v.is_bottommost_for_key(task.output_level, ukey) {
        return false;
    }
    !older_l0_outside_task_overlaps(v, task, ukey, ukey)
}

/// For an intra-L0 task (output level 0): true if an L0 file left out of
/// the task, older than all its inputs, overlaps user keys `[lo, hi]`; such
/// a file may hold versions a tombstone in the output hides. Always false
/// for tasks that write below L0.
fn older_l0_outside_task_overlaps(
    v: &Version,
    task: &CompactionTask,
    lo: &[u8],
    hi: &[u8],
) -> bool {
    if task.output_level != 0 {
        return false;
    }
    let oldest_input = task.all_inputs().map(|f| f.smallest_seq).min();
    v.files(0).iter().any(|f| {
        let outside = !task.all_inputs().any(|i| i.number == f.number);
        // Only files older than the inputs can hold data a tombstone hides.
        let older = oldest_input.is_none_or(|s| f.largest_seq < s);
        outside && older && user_key(&f.smallest) <= hi && lo <= user_key(&f.largest)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::testutil::{l0, meta, version_with};

    fn version(files: &[(usize, FileMetaData)]) -> Version {
        version_with(5, files)
    }

    /// Bytes universal compaction would rewrite, from `v` as it stands, to
    /// bring the sorted-run count under `l0_trigger`: the choice is replayed
    /// on run sizes alone, each merge's inputs counted and replaced by one
    /// run of their total size, until nothing qualifies. (RocksDB reports 0
    /// pending compaction bytes under universal compaction:
    /// `EstimateCompactionBytesNeeded` is leveled only.)
    fn estimated_pending_compaction_bytes_universal(
        v: &Version,
        o: &UniversalOptions,
        num_levels: usize,
        l0_trigger: usize,
    ) -> u64 {
        let max_out = max_output_level(v, num_levels);
        let mut runs = run_infos(&sorted_runs(v, &Busy::default(), num_levels));
        let mut total: u64 = 0;
        // Every merge replaces at least two runs by one, so this ends.
        while let Some(c) = choose(&runs, o, max_out, (l0_trigger, usize::MAX), &|_| true) {
            let merged: u64 = runs[c.start..=c.end].iter().map(|r| r.size).sum();
            total = total.saturating_add(merged);
            runs.splice(
                c.start..=c.end,
                [RunInfo {
                    level: c.output_level,
                    size: merged,
                    busy: false,
                }],
            );
        }
        total
    }

    #[test]
    fn pending_bytes_estimate() {
        let o = UniversalOptions::default();
        // Below the trigger: nothing pending.
        assert_eq!(
            estimated_pending_compaction_bytes_universal(&version(&l0(&[10, 10, 10])), &o, 5, 4),
            0
        );
        // Size amp: everything is rewritten once (250 + 100).
        let mut files = l0(&[100, 100, 50]);
        files.push((4, meta(1, "a", "z", 100)));
        assert_eq!(
            estimated_pending_compaction_bytes_universal(&version(&files), &o, 5, 4),
            350
        );
        // Five equal L0 files + a big base: size ratio merges the five
        // (50 bytes); 2 runs remain.
        let v = version(&l0(&[10, 10, 10, 10, 10, 10000]));
        assert_eq!(
            estimated_pending_compaction_bytes_universal(&v, &o, 5, 4),
            50
        );
    }

    #[test]
    fn stop_style_names() {
        assert_eq!(
            "kCompactionStopStyleSimilarSize"
                .parse::<StopStyle>()
                .unwrap(),
            StopStyle::SimilarSize
        );
        assert_eq!("1".parse::<StopStyle>().unwrap(), StopStyle::TotalSize);
        assert!("nope".parse::<StopStyle>().is_err());
        assert_eq!(
            StopStyle::default().to_string(),
            "kCompactionStopStyleTotalSize"
        );
    }

    #[test]
    fn intra_l0_task_keeps_tombstones_hidden_by_older_l0_files() {
        let files = vec![
            (0, meta(100, "a", "c", 10)),
            (0, meta(99, "a", "c", 10)),
            (0, meta(98, "b", "b", 10)),
            (0, meta(97, "x", "x", 1000)),
            (1, meta(5, "m", "n", 100)),
        ];
        let v = version(&files);
        let task = CompactionTask {
            level: 0,
            output_level: 0,
            inputs: v.files(0)[..2].to_vec(),
            extra_inputs: Vec::new(),
            output_level_inputs: Vec::new(),
            score: 1.0,
            reason: CompactionReason::UniversalSizeRatio,
            target_file_size: u64::MAX,
            trivial_move: false,
        };
        // "b" is in the older L0 file 98: the version's check alone says
        // bottommost (it only looks below L0); the task's check does not.
        assert!(v.is_bottommost_for_key(0, b"b"));
        assert!(!task_is_bottommost_for_key(&v, &task, b"b"));
        assert!(task_is_bottommost_for_key(&v, &task, b"a"));
        assert!(!task_is_bottommost_for_key(&v, &task, b"m"), "L1 holds m");
        // A newer file outside the task does not matter.
        let mut newer = task.clone();
        newer.inputs = v.files(0)[1..3].to_vec();
        assert!(task_is_bottommost_for_key(&v, &newer, b"b"));
        // Outputs to a level >= 1: the version's rule.
        let mut deep = task.clone();
        deep.output_level = 2;
        assert!(task_is_bottommost_for_key(&v, &deep, b"b"));
    }
}
