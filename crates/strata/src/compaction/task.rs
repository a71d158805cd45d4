//! What a compaction picker chooses, shared by the leveled, universal and
//! FIFO pickers: the task (RocksDB's `Compaction`), its reason (RocksDB's
//! `CompactionReason`) and what running compactions occupy.

use std::collections::BTreeSet;
use std::fmt;
use std::sync::Arc;

use crate::filename::FileNumber;
use crate::types::user_key;
use crate::version::edit::FileMetaData;

/// Why a compaction runs (RocksDB's `CompactionReason` names).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompactionReason {
    /// L0 reached `level0_file_num_compaction_trigger` files.
    LevelL0FilesNum,
    /// A level exceeded its target size.
    LevelMaxLevelSize,
    /// `compact_range` asked for it.
    ManualCompaction,
    /// The blob garbage force threshold marked the input table.
    ForcedBlobGc,
    /// Universal: the newer sorted runs outgrew the oldest by more than
    /// `max_size_amplification_percent`.
    UniversalSizeAmplification,
    /// Universal: a stretch of newest runs of similar size (`size_ratio`).
    UniversalSizeRatio,
    /// Universal: more sorted runs than `level0_file_num_compaction_trigger`.
    UniversalSortedRunNum,
    /// FIFO: the tables exceed `max_table_files_size`; the oldest files are
    /// deleted (nothing is written).
    FifoMaxSize,
    /// FIFO with `allow_compaction`: small newest L0 files merged into one.
    FifoReduceNumFiles,
    /// FIFO with `ttl`: files whose newest entry is older than `ttl` are
    /// deleted (nothing is written).
    FifoTtl,
    /// Reads nominated the input table (`read_sampling_multiplier`; see
    /// [`read_triggered`](super::read_triggered)). RocksDB has no such
    /// reason; the name is Strata's.
    ReadTriggered,
}

impl CompactionReason {
    /// RocksDB's name, as printed in the LOG.
    pub fn name(self) -> &'static str {
        match self {
            CompactionReason::LevelL0FilesNum => "LevelL0FilesNum",
            CompactionReason::LevelMaxLevelSize => "LevelMaxLevelSize",
            CompactionReason::ManualCompaction => "ManualCompaction",
            CompactionReason::ForcedBlobGc => "ForcedBlobGC",
            CompactionReason::UniversalSizeAmplification => "UniversalSizeAmplification",
            CompactionReason::UniversalSizeRatio => "UniversalSizeRatio",
            CompactionReason::UniversalSortedRunNum => "UniversalSortedRunNum",
            CompactionReason::FifoMaxSize => "FIFOMaxSize",
            CompactionReason::FifoReduceNumFiles => "FIFOReduceNumFiles",
            CompactionReason::FifoTtl => "FIFOTtl",
            CompactionReason::ReadTriggered => "ReadTriggered",
        }
    }

    /// True for a compaction that deletes its inputs and writes nothing.
    pub fn is_deletion(self) -> bool {
        matches!(
            self,
            CompactionReason::FifoMaxSize | CompactionReason::FifoTtl
        )
    }

    /// True for the reasons the universal picker gives.
    pub fn is_universal(self) -> bool {
        matches!(
            self,
            CompactionReason::UniversalSizeAmplification
                | CompactionReason::UniversalSizeRatio
                | CompactionReason::UniversalSortedRunNum
        )
    }
}

/// A chosen compaction: inputs from `level`, from the levels strictly
/// between `level` and `output_level` (`extra_inputs`, universal only) and
/// from `output_level`, written to `output_level`.
#[derive(Debug, Clone)]
pub struct CompactionTask {
    /// The level the compaction starts from.
    pub level: usize,
    /// The level its outputs go to.
    pub output_level: usize,
    /// Input files from `level`.
    pub inputs: Vec<Arc<FileMetaData>>,
    /// Input files from the levels strictly between `level` and
    /// `output_level`, by increasing level: (level, files of that level in
    /// key order). Empty for leveled compactions; a universal compaction
    /// that merges several sorted runs puts the in-between runs here.
    pub extra_inputs: Vec<(usize, Vec<Arc<FileMetaData>>)>,
    /// Input files from `output_level` that overlap `inputs`.
    pub output_level_inputs: Vec<Arc<FileMetaData>>,
    /// The score that made the level eligible (>= 1 for automatic picks).
    pub score: f64,
    /// Why.
    pub reason: CompactionReason,
    /// Output file size target in bytes.
    pub target_file_size: u64,
    /// True when the single input can move down without rewriting.
    pub trivial_move: bool,
}

impl CompactionTask {
    /// A leveled compaction of `inputs` from `level` with the files of
    /// `output_level` they overlap (`next`) into `output_level`, cutting
    /// outputs at `target_file_size`; score 0 and a rewrite, not a trivial
    /// move, until the picker says otherwise.
    pub fn level_to_level(
        level: usize,
        output_level: usize,
        inputs: Vec<Arc<FileMetaData>>,
        next: Vec<Arc<FileMetaData>>,
        reason: CompactionReason,
        target_file_size: u64,
    ) -> Self {
        CompactionTask {
            level,
            output_level,
            inputs,
            extra_inputs: Vec::new(),
            output_level_inputs: next,
            score: 0.0,
            reason,
            target_file_size,
            trivial_move: false,
        }
    }

    /// All input files.
    pub fn all_inputs(&self) -> impl Iterator<Item = &Arc<FileMetaData>> {
        self.inputs
            .iter()
            .chain(self.extra_inputs.iter().flat_map(|(_, files)| files.iter()))
            .chain(self.output_level_inputs.iter())
    }

    /// The inputs grouped by the level they come from: `level`, each level
    /// of `extra_inputs`, then `output_level` (its group may be empty).
    /// When `level == output_level` (an intra-L0 compaction) there is one
    /// group, and `output_level_inputs` must be empty.
    pub fn input_levels(&self) -> Vec<(usize, &[Arc<FileMetaData>])> {
        let mut out: Vec<(usize, &[Arc<FileMetaData>])> = vec![(self.level, &self.inputs)];
        for (level, files) in &self.extra_inputs {
            out.push((*level, files));
        }
        if self.output_level != self.level {
            out.push((self.output_level, &self.output_level_inputs));
        }
        out
    }

    /// Smallest and largest user key over all inputs.
    pub fn user_key_range(&self) -> (Vec<u8>, Vec<u8>) {
        key_range(self.all_inputs())
    }
}

/// One line: levels, reason, score, the input file numbers of each input
/// level (the output level's group last, even when empty), the output file
/// size target (`unlimited` for `u64::MAX`) and, for a trivial move,
/// `trivial-move`. For example
/// `L0->L1 LevelL0FilesNum score=1.00 L0=[100 99] L1=[10 11] target=100`.
impl fmt::Display for CompactionTask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "L{}->L{} {} score={:.2}",
            self.level,
            self.output_level,
            self.reason.name(),
            self.score
        )?;
        for (level, files) in self.input_levels() {
            let numbers: Vec<String> = files.iter().map(|m| m.number.to_string()).collect();
            write!(f, " L{level}=[{}]", numbers.join(" "))?;
        }
        match self.target_file_size {
            u64::MAX => f.write_str(" target=unlimited")?,
            t => write!(f, " target={t}")?,
        }
        if self.trivial_move {
            f.write_str(" trivial-move")?;
        }
        Ok(())
    }
}

/// What running compactions occupy, so that a new pick does not conflict.
#[derive(Debug, Clone, Default)]
pub struct Busy {
    /// Files that are inputs of running compactions.
    pub files: BTreeSet<FileNumber>,
    /// (output level, smallest user key, largest user key) of each running
    /// compaction.
    pub output_ranges: Vec<(usize, Vec<u8>, Vec<u8>)>,
    /// Sealed memtables whose flush is running or due: L0 files in all but
    /// name. The leveled picker counts them toward L0's score (see
    /// [`level_scores`](super::leveled::level_scores)) so that whether a compaction ends just before or
    /// just after a flush does not change what runs next.
    pub flushing: usize,
    /// Approximate memory bytes of those memtables (used to estimate their
    /// L0 file sizes when L0 is empty).
    pub flushing_bytes: u64,
    /// The table reads nominated for a read-triggered compaction, if any
    /// ([`read_triggered`](super::read_triggered)); copied from the
    /// family before each pick.
    pub read_nominee: Option<FileNumber>,
}

impl Busy {
    /// True if any of `files` is busy, or a running compaction writes into
    /// `out_level` over a range meeting `[lo, hi]`.
    pub(crate) fn conflicts(
        &self,
        files: &[Arc<FileMetaData>],
        out_level: usize,
        lo: &[u8],
        hi: &[u8],
    ) -> bool {
        files.iter().any(|f| self.files.contains(&f.number))
            || self
                .output_ranges
                .iter()
                .any(|(l, a, b)| *l == out_level && a.as_slice() <= hi && lo <= b.as_slice())
    }
}

/// True when no two of `files` share a user key (their ranges are
/// disjoint), so they can sit side by side in one level.
pub(crate) fn non_overlapping<'a>(files: impl Iterator<Item = &'a Arc<FileMetaData>>) -> bool {
    let mut ranges: Vec<(&[u8], &[u8])> = files
        .map(|f| (user_key(&f.smallest), user_key(&f.largest)))
        .collect();
    ranges.sort();
    ranges.windows(2).all(|w| w[0].1 < w[1].0)
}

/// Smallest and largest user key over `files`.
pub(crate) fn key_range<'a>(
    files: impl Iterator<Item = &'a Arc<FileMetaData>>,
) -> (Vec<u8>, Vec<u8>) {
    let mut lo: Option<&[u8]> = None;
    let mut hi: Option<&[u8]> = None;
    for f in files {
        let s = user_key(&f.smallest);
        let l = user_key(&f.largest);
        if lo.is_none_or(|x| s < x) {
            lo = Some(s);
        }
        if hi.is_none_or(|x| l > x) {
            hi = Some(l);
        }
    }
    (lo.unwrap_or(&[]).to_vec(), hi.unwrap_or(&[]).to_vec())
}
