//! Write stall policy: a pure function from the LSM's shape to whether
//! writers proceed, are delayed, or stop (RocksDB's `WriteController` and
//! `ColumnFamilyData::RecalculateWriteStallConditions`).
//!
//! The mechanism (sleeping, waiting on the condition variable, counting
//! `rocksdb.stall.micros`) lives in the write path.

use crate::options::Options;

/// Why writers are stalled; names follow RocksDB's `Write Stall (count)`
/// keys in `rocksdb.cfstats`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum StallCause {
    /// Too many full memtables waiting for flush.
    MemtableLimit,
    /// Too many L0 files.
    L0FileCountLimit,
    /// Too many estimated pending compaction bytes.
    PendingCompactionBytes,
}

impl StallCause {
    /// RocksDB's key prefix for this cause (`memtable-limit`,
    /// `l0-file-count-limit`, `pending-compaction-bytes`).
    pub fn name(self) -> &'static str {
        match self {
            StallCause::MemtableLimit => "memtable-limit",
            StallCause::L0FileCountLimit => "l0-file-count-limit",
            StallCause::PendingCompactionBytes => "pending-compaction-bytes",
        }
    }
}

/// What writers must do now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StallState {
    /// Write at full speed.
    Normal,
    /// Write at `delayed_write_rate`.
    Delayed(StallCause),
    /// Wait until background work changes the shape.
    Stopped(StallCause),
}

/// The inputs of the stall decision.
#[derive(Debug, Clone, Copy, Default)]
pub struct LsmShape {
    /// Immutable memtables waiting for flush.
    pub immutable_memtables: usize,
    /// Whether the active memtable is full (a switch is needed to write).
    pub active_memtable_full: bool,
    /// Files in L0.
    pub l0_files: usize,
    /// Estimated bytes compaction must rewrite to bring every level under
    /// its target.
    pub pending_compaction_bytes: u64,
}

/// Decides the stall state (stops before delays, as RocksDB does).
pub fn stall_state(shape: &LsmShape, o: &Options) -> StallState {
    let max_imm = o.max_write_buffer_number.saturating_sub(1);
    if shape.active_memtable_full && shape.immutable_memtables >= max_imm {
        return StallState::Stopped(StallCause::MemtableLimit);
    }
    if shape.l0_files >= o.level0_stop_writes_trigger {
        return StallState::Stopped(StallCause::L0FileCountLimit);
    }
    if o.hard_pending_compaction_bytes_limit > 0
        && shape.pending_compaction_bytes >= o.hard_pending_compaction_bytes_limit
    {
        return StallState::Stopped(StallCause::PendingCompactionBytes);
    }
    if o.max_write_buffer_number > 3 && shape.immutable_memtables >= max_imm && max_imm > 0 {
        return StallState::Delayed(StallCause::MemtableLimit);
    }
    if shape.l0_files >= o.level0_slowdown_writes_trigger {
        return StallState::Delayed(StallCause::L0FileCountLimit);
    }
    if o.soft_pending_compaction_bytes_limit > 0
        && shape.pending_compaction_bytes >= o.soft_pending_compaction_bytes_limit
    {
        return StallState::Delayed(StallCause::PendingCompactionBytes);
    }
    StallState::Normal
}

/// Microseconds a write of `bytes` must wait while delayed at `rate`
/// bytes/second (at least 1 ms so tiny writes still yield).
pub fn delay_micros(bytes: u64, rate: u64) -> u64 {
    let rate = rate.max(1);
    (bytes.saturating_mul(1_000_000) / rate).max(1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn o() -> Options {
        Options {
            level0_slowdown_writes_trigger: 4,
            level0_stop_writes_trigger: 8,
            soft_pending_compaction_bytes_limit: 100,
            hard_pending_compaction_bytes_limit: 200,
            ..Options::default()
        }
    }

    #[test]
    fn transitions_follow_the_triggers() {
        let o = o();
        let mut s = LsmShape::default();
        assert_eq!(stall_state(&s, &o), StallState::Normal);
        s.l0_files = 4;
        assert_eq!(
            stall_state(&s, &o),
            StallState::Delayed(StallCause::L0FileCountLimit)
        );
        s.l0_files = 8;
        assert_eq!(
            stall_state(&s, &o),
            StallState::Stopped(StallCause::L0FileCountLimit)
        );
        s.l0_files = 0;
        s.pending_compaction_bytes = 150;
        assert_eq!(
            stall_state(&s, &o),
            StallState::Delayed(StallCause::PendingCompactionBytes)
        );
        s.pending_compaction_bytes = 250;
        assert_eq!(
            stall_state(&s, &o),
            StallState::Stopped(StallCause::PendingCompactionBytes)
        );
        s.pending_compaction_bytes = 0;
        s.immutable_memtables = 1;
        s.active_memtable_full = true;
        assert_eq!(
            stall_state(&s, &o),
            StallState::Stopped(StallCause::MemtableLimit)
        );
        s.active_memtable_full = false;
        assert_eq!(stall_state(&s, &o), StallState::Normal);
    }

    #[test]
    fn limits_of_zero_disable_pending_bytes_stalls() {
        let mut o = o();
        o.soft_pending_compaction_bytes_limit = 0;
        o.hard_pending_compaction_bytes_limit = 0;
        let s = LsmShape {
            pending_compaction_bytes: u64::MAX,
            ..LsmShape::default()
        };
        assert_eq!(stall_state(&s, &o), StallState::Normal);
    }

    #[test]
    fn delay_scales_with_bytes() {
        assert_eq!(delay_micros(16 << 20, 16 << 20), 1_000_000);
        assert_eq!(delay_micros(1, 16 << 20), 1000);
    }
}
