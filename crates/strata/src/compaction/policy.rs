//! The compaction style as one policy: every question whose answer depends
//! on `compaction_style` is a method of [`CompactionPolicy`], so the DB
//! (`db/`) and the write controller ask it and never match on
//! [`CompactionStyle`] themselves.
//!
//! One type with an exhaustive `match` per question, not a trait with one
//! type per style (as fjall's `CompactionStrategy`, whose strategies users
//! supply): Strata's styles are the closed set of the option's enum,
//! RocksDB's three, and each style's logic already lives in its own module
//! (`leveled.rs`, `universal.rs`, `fifo.rs`). What is left is a table of
//! questions by styles, and one method per question keeps each decision in
//! one place with its three answers side by side (most differ in one style
//! only). A new style or a new question does not compile until every cell
//! of the table is answered, and the policy is a borrowed `Options`, with
//! no trait object and no `Options` passed a second time.
//!
//! The answers are pure functions of the options and a [`Version`]; the
//! clock FIFO's TTL reads is an argument (`now`, unix seconds).

use super::job::FileCutConfig;
use super::level_compression::compression_for_level;
use super::task::{Busy, CompactionReason, CompactionTask};
use super::{fifo, leveled, read_triggered, universal};
use crate::options::{CompactionStyle, Options};
use crate::sstable::CompressionType;
use crate::version::Version;
use crate::write_controller::{l0_slowdown_trigger, l0_stop_trigger};

/// RocksDB's TTL under FIFO when `ttl` is left at its default: 30 days.
const FIFO_DEFAULT_TTL_SECS: u64 = 30 * 24 * 60 * 60;

/// The style-dependent answers for one family's options.
#[derive(Debug, Clone, Copy)]
pub struct CompactionPolicy<'a> {
    o: &'a Options,
}

impl<'a> CompactionPolicy<'a> {
    /// The policy of `o`'s `compaction_style`, with `o`'s settings.
    pub fn of(o: &'a Options) -> Self {
        CompactionPolicy { o }
    }

    /// The compaction to run next on its own (RocksDB's `PickCompaction`),
    /// or `None`; always `None` with `disable_auto_compactions`.
    pub fn pick_automatic(&self, v: &Version, busy: &Busy, now: u64) -> Option<CompactionTask> {
        let o = self.o;
        if o.disable_auto_compactions {
            return None;
        }
        match o.compaction_style {
            CompactionStyle::Level => leveled::pick_compaction(v, busy, o),
            CompactionStyle::Universal => {
                universal::pick_universal_for(v, busy, o, &o.compaction_options_universal)
            }
            CompactionStyle::Fifo => fifo::pick_fifo(v, busy, o, now),
        }
    }

    /// The compaction the background runs next on its own: the style's
    /// automatic pick, else one forced by blob garbage
    /// ([`super::forced::pick_forced_blob_gc`]), else a read-triggered one
    /// ([`pick_read_triggered`](Self::pick_read_triggered)). What the
    /// compaction loop runs, what `wait_for_compaction` waits for and what
    /// `rocksdb.compaction-pending` reports (RocksDB's `NeedsCompaction`
    /// counts the files marked for forced blob GC too).
    pub fn pick_scheduled(&self, v: &Version, busy: &Busy, now: u64) -> Option<CompactionTask> {
        self.pick_automatic(v, busy, now)
            .or_else(|| super::forced::pick_forced_blob_gc(v, busy, self.o))
            .or_else(|| self.pick_read_triggered(v, busy))
    }

    /// The compaction of the table reads nominated
    /// ([`read_triggered::pick_read_triggered`]) under leveled compaction;
    /// `None` under universal and FIFO compaction, which have no level
    /// below a table to merge it into (`validate` refuses the option
    /// there).
    pub fn pick_read_triggered(&self, v: &Version, busy: &Busy) -> Option<CompactionTask> {
        match self.o.compaction_style {
            CompactionStyle::Level => read_triggered::pick_read_triggered(v, busy, self.o),
            CompactionStyle::Universal | CompactionStyle::Fifo => None,
        }
    }

    /// Whether this style runs read-triggered compactions, so that
    /// `read_sampling_multiplier` may turn them on: under leveled
    /// compaction only.
    pub fn read_triggered_compactions(&self) -> bool {
        match self.o.compaction_style {
            CompactionStyle::Level => true,
            CompactionStyle::Universal | CompactionStyle::Fifo => false,
        }
    }

    /// How many picks a manual compaction (RocksDB's `CompactRange`) makes
    /// on `v`: under leveled compaction one per level, each into the next,
    /// from L0 down to the last level that holds data (at least one, L0
    /// into the base level); under universal and FIFO compaction one.
    pub fn manual_passes(&self, v: &Version) -> usize {
        match self.o.compaction_style {
            CompactionStyle::Level => (0..v.num_levels())
                .rev()
                .find(|&l| !v.files(l).is_empty())
                .unwrap_or(0)
                .max(1),
            CompactionStyle::Universal | CompactionStyle::Fifo => 1,
        }
    }

    /// Pass `pass` (below [`manual_passes`](Self::manual_passes)) of a
    /// manual compaction of user keys `begin..=end` (`None`: unbounded),
    /// picked from the version as it stands then: under leveled compaction
    /// the level `pass` files in the range into the next level; under
    /// universal compaction every file into the last level, whatever the
    /// range (as RocksDB's); under FIFO one FIFO pick.
    pub fn pick_manual(
        &self,
        v: &Version,
        busy: &Busy,
        pass: usize,
        (begin, end): (Option<&[u8]>, Option<&[u8]>),
        now: u64,
    ) -> Option<CompactionTask> {
        let o = self.o;
        match o.compaction_style {
            CompactionStyle::Level => leveled::pick_manual(v, busy, o, pass, begin, end),
            CompactionStyle::Universal => universal_full(v, busy, o),
            CompactionStyle::Fifo => fifo::pick_fifo(v, busy, o, now),
        }
    }

    /// The compression of `task`'s output tables, picked from `v`: the
    /// output level's ([`compression_for_level`], counted from the leveled
    /// base level), or none under universal compaction when
    /// `compression_size_percent` leaves this output uncompressed
    /// ([`universal::task_compresses`]).
    pub fn output_compression(&self, v: &Version, task: &CompactionTask) -> CompressionType {
        let o = self.o;
        match o.compaction_style {
            CompactionStyle::Level => {
                compression_for_level(o, task.output_level, leveled::level_layout(v, o).0)
            }
            CompactionStyle::Universal => {
                if universal::task_compresses(
                    v,
                    task,
                    &o.compaction_options_universal,
                    o.num_levels,
                ) {
                    compression_for_level(o, task.output_level, 1)
                } else {
                    CompressionType::None
                }
            }
            CompactionStyle::Fifo => compression_for_level(o, task.output_level, 1),
        }
    }

    /// The compression of a flush's table (RocksDB's
    /// `GetCompressionFlush`): none under universal compaction with a
    /// `compression_size_percent` (>= 0); otherwise L0's.
    pub fn flush_compression(&self) -> CompressionType {
        let o = self.o;
        match o.compaction_style {
            CompactionStyle::Universal
                if o.compaction_options_universal.compression_size_percent >= 0 =>
            {
                CompressionType::None
            }
            CompactionStyle::Level | CompactionStyle::Universal | CompactionStyle::Fifo => {
                compression_for_level(o, 0, 1)
            }
        }
    }

    /// How a compaction cuts its output files besides the task's target
    /// size (`compaction/file_cut.rs`): under leveled compaction at
    /// `max_compaction_bytes` (0: 25 x `target_file_size_base`) of overlap
    /// with the grandparent level, with `level_compaction_dynamic_file_size`;
    /// under universal and FIFO compaction `None`, the target size alone.
    pub fn file_cut(&self) -> Option<FileCutConfig> {
        let o = self.o;
        match o.compaction_style {
            CompactionStyle::Level => Some(FileCutConfig {
                max_compaction_bytes: match o.max_compaction_bytes {
                    0 => o.target_file_size_base.saturating_mul(25),
                    n => n,
                },
                dynamic: o.level_compaction_dynamic_file_size,
            }),
            CompactionStyle::Universal | CompactionStyle::Fifo => None,
        }
    }

    /// The pending compaction bytes the write controller judges `v` by:
    /// under leveled compaction RocksDB's estimate
    /// ([`leveled::estimated_pending_compaction_bytes`]); under universal
    /// and FIFO compaction 0, as RocksDB computes it for leveled compaction
    /// only (so the pending-bytes stall limits never fire there).
    pub fn pending_compaction_bytes(&self, v: &Version) -> u64 {
        match self.o.compaction_style {
            CompactionStyle::Level => leveled::estimated_pending_compaction_bytes(v, self.o),
            CompactionStyle::Universal | CompactionStyle::Fifo => 0,
        }
    }

    /// The count the L0 stall and speed-up triggers compare (RocksDB's
    /// `l0_delay_trigger_count`): L0 files under leveled and FIFO
    /// compaction; under universal compaction every sorted run, each L0
    /// file and each non-empty level.
    pub fn l0_trigger_count(&self, v: &Version) -> usize {
        let l0 = v.files(0).len();
        match self.o.compaction_style {
            CompactionStyle::Level | CompactionStyle::Fifo => l0,
            CompactionStyle::Universal => {
                l0 + (1..v.num_levels())
                    .filter(|&l| !v.files(l).is_empty())
                    .count()
            }
        }
    }

    /// The [`l0_trigger_count`](Self::l0_trigger_count) at which writes
    /// slow down: [`l0_slowdown_trigger`], except under FIFO compaction,
    /// which lowers the L0 count only once its size limit is reached, so
    /// RocksDB's `SanitizeOptions` sets the L0 triggers to `INT_MAX` there
    /// (`usize::MAX`: never).
    pub fn l0_slowdown_at(&self) -> usize {
        match self.o.compaction_style {
            CompactionStyle::Level | CompactionStyle::Universal => l0_slowdown_trigger(self.o),
            CompactionStyle::Fifo => usize::MAX,
        }
    }

    /// The [`l0_trigger_count`](Self::l0_trigger_count) at which writes
    /// stop: [`l0_stop_trigger`], except under FIFO compaction
    /// (`usize::MAX`: never, as for [`l0_slowdown_at`](Self::l0_slowdown_at)).
    pub fn l0_stop_at(&self) -> usize {
        match self.o.compaction_style {
            CompactionStyle::Level | CompactionStyle::Universal => l0_stop_trigger(self.o),
            CompactionStyle::Fifo => usize::MAX,
        }
    }
}

/// The style's rules on other options, which `Options::effective_ttl` and
/// `Options::validate` apply.
impl CompactionPolicy<'_> {
    /// The TTL in seconds that `ttl` left at its default stands for: 30 days
    /// under FIFO compaction (RocksDB's), 0 (none) under the styles whose
    /// TTL compactions Strata lacks.
    pub fn default_ttl(&self) -> u64 {
        match self.o.compaction_style {
            CompactionStyle::Fifo => FIFO_DEFAULT_TTL_SECS,
            CompactionStyle::Level | CompactionStyle::Universal => 0,
        }
    }

    /// Whether this style runs TTL compactions, so that a `ttl` set to a
    /// value of its own is valid: under FIFO compaction only.
    pub fn ttl_compactions(&self) -> bool {
        match self.o.compaction_style {
            CompactionStyle::Fifo => true,
            CompactionStyle::Level | CompactionStyle::Universal => false,
        }
    }

    /// Whether this style keeps blob files (`enable_blob_files`) sound: not
    /// under FIFO compaction, which deletes tables whole, and Strata does
    /// not track the blob files they leave unreferenced.
    pub fn blob_files(&self) -> bool {
        match self.o.compaction_style {
            CompactionStyle::Level | CompactionStyle::Universal => true,
            CompactionStyle::Fifo => false,
        }
    }
}

/// A full manual compaction under universal compaction (RocksDB's
/// `CompactRange` there): every file of every level into the last level,
/// or `None` with no file or with any file busy.
fn universal_full(v: &Version, busy: &Busy, o: &Options) -> Option<CompactionTask> {
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

#[cfg(test)]
mod tests;
