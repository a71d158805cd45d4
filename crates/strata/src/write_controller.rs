//! Write stall policy: a pure function from the LSM's shape to whether
//! writers proceed, are delayed, or stop (RocksDB's `WriteController` and
//! `ColumnFamilyData::RecalculateWriteStallConditions`).
//!
//! The mechanism (sleeping, waiting on the condition variable, counting
//! `rocksdb.stall.micros`) lives in the write path.

use crate::compaction::CompactionPolicy;
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
    /// Files in L0; under universal compaction, sorted runs (each L0 file
    /// and each non-empty level), as RocksDB's `l0_delay_trigger_count`
    /// counts them ([`CompactionPolicy::l0_trigger_count`]).
    pub l0_files: usize,
    /// Estimated bytes compaction must rewrite to bring every level under
    /// its target.
    pub pending_compaction_bytes: u64,
    /// Bytes of the files that no older data overlaps (RocksDB's
    /// `BottommostFiles`): the settled part of the DB, against which
    /// compaction debt is judged.
    pub bottommost_bytes: u64,
}

/// Decides the stall state (stops before delays, as RocksDB does).
pub fn stall_state(shape: &LsmShape, o: &Options) -> StallState {
    let max_imm = o.max_write_buffer_number.saturating_sub(1);
    if shape.active_memtable_full && shape.immutable_memtables >= max_imm {
        return StallState::Stopped(StallCause::MemtableLimit);
    }
    // With automatic compactions off nothing would lower these counts:
    // RocksDB ignores the L0 and pending-bytes triggers then.
    let compactions = !o.disable_auto_compactions;
    let policy = CompactionPolicy::of(o);
    if compactions && shape.l0_files >= policy.l0_stop_at() {
        return StallState::Stopped(StallCause::L0FileCountLimit);
    }
    if compactions
        && o.hard_pending_compaction_bytes_limit > 0
        && shape.pending_compaction_bytes >= o.hard_pending_compaction_bytes_limit
    {
        return StallState::Stopped(StallCause::PendingCompactionBytes);
    }
    if o.max_write_buffer_number > 3 && shape.immutable_memtables >= max_imm && max_imm > 0 {
        return StallState::Delayed(StallCause::MemtableLimit);
    }
    if compactions && shape.l0_files >= policy.l0_slowdown_at() {
        return StallState::Delayed(StallCause::L0FileCountLimit);
    }
    if compactions
        && o.soft_pending_compaction_bytes_limit > 0
        && shape.pending_compaction_bytes >= o.soft_pending_compaction_bytes_limit
    {
        return StallState::Delayed(StallCause::PendingCompactionBytes);
    }
    StallState::Normal
}

/// Why compactions may run in parallel (RocksDB's compaction pressure
/// token, or a stall).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SpeedupCause {
    /// Writers are delayed or stopped.
    Stall(StallCause),
    /// L0 holds [`l0_files_for_compaction_speedup`] files (sorted runs under
    /// universal compaction) or more.
    L0Files,
    /// `soft_pending_compaction_bytes_limit` is 0, which RocksDB takes as
    /// "always speed up".
    NoSoftLimit,
    /// Pending compaction bytes reached
    /// [`pending_bytes_for_compaction_speedup`].
    PendingCompactionBytes,
}

/// The L0 file count that slows writes, as RocksDB's `SanitizeOptions`
/// leaves it: never below `level0_file_num_compaction_trigger` (a lower
/// value would slow writes before compaction could start). Writes slow
/// down at [`CompactionPolicy::l0_slowdown_at`], this under leveled and
/// universal compaction.
pub fn l0_slowdown_trigger(o: &Options) -> usize {
    o.level0_slowdown_writes_trigger
        .max(o.level0_file_num_compaction_trigger)
}

/// The L0 file count that stops writes, as RocksDB's `SanitizeOptions`
/// leaves it: never below [`l0_slowdown_trigger`]. Below the compaction
/// trigger it would stop writes for good (no flush, so no compaction).
pub fn l0_stop_trigger(o: &Options) -> usize {
    o.level0_stop_writes_trigger.max(l0_slowdown_trigger(o))
}

/// The warning the info LOG gets at open when the L0 triggers are out of
/// order and [`l0_slowdown_trigger`] / [`l0_stop_trigger`] raise them.
pub fn l0_trigger_warning(o: &Options) -> Option<String> {
    let (slow, stop) = (l0_slowdown_trigger(o), l0_stop_trigger(o));
    (slow != o.level0_slowdown_writes_trigger || stop != o.level0_stop_writes_trigger).then(|| {
        format!(
            "[WARN] level0_file_num_compaction_trigger={} <= level0_slowdown_writes_trigger={} <= level0_stop_writes_trigger={} does not hold; writes slow down at {slow} and stop at {stop} L0 files (as RocksDB adjusts them)",
            o.level0_file_num_compaction_trigger,
            o.level0_slowdown_writes_trigger,
            o.level0_stop_writes_trigger
        )
    })
}

/// L0 files at which compactions may run in parallel: a quarter of the way
/// from the compaction trigger to the slowdown trigger, or twice the
/// compaction trigger if that is fewer (RocksDB's
/// `GetL0FileCountForCompactionSpeedup`).
/// The slowdown trigger is the policy's
/// ([`CompactionPolicy::l0_slowdown_at`]): unbounded under FIFO, which
/// leaves twice the compaction trigger.
pub fn l0_files_for_compaction_speedup(o: &Options) -> usize {
    let trigger = o.level0_file_num_compaction_trigger;
    let slowdown = CompactionPolicy::of(o).l0_slowdown_at();
    let quarter = trigger.saturating_add(slowdown.saturating_sub(trigger) / 4);
    trigger.saturating_mul(2).min(quarter)
}

/// Pending compaction bytes at which compactions may run in parallel: an
/// eighth of the settled data (at least two L0 -> base compactions' worth,
/// `2 x max_bytes_for_level_base`), but never above a quarter of
/// `soft_pending_compaction_bytes_limit`; with no settled data yet, that
/// quarter (RocksDB's `GetPendingCompactionBytesForCompactionSpeedup`).
pub fn pending_bytes_for_compaction_speedup(bottommost_bytes: u64, o: &Options) -> u64 {
    let slowdown = o.soft_pending_compaction_bytes_limit / 4;
    if bottommost_bytes == 0 {
        return slowdown;
    }
    let size = (bottommost_bytes / 8).max(o.max_bytes_for_level_base.saturating_mul(2));
    size.min(slowdown)
}

/// Whether compaction has fallen behind enough that more than one
/// compaction may run at once, and why (RocksDB's
/// `WriteController::NeedSpeedupCompaction`: a stall, or the compaction
/// pressure token of `RecalculateWriteStallConditions`). RocksDB's fourth
/// pressure cause, two or more files marked for compaction by a table
/// property collector, cannot arise: Strata has no such collectors.
pub fn needs_compaction_speedup(shape: &LsmShape, o: &Options) -> Option<SpeedupCause> {
    match stall_state(shape, o) {
        StallState::Delayed(c) | StallState::Stopped(c) => return Some(SpeedupCause::Stall(c)),
        StallState::Normal => {}
    }
    if shape.l0_files >= l0_files_for_compaction_speedup(o) {
        Some(SpeedupCause::L0Files)
    } else if o.soft_pending_compaction_bytes_limit == 0 {
        Some(SpeedupCause::NoSoftLimit)
    } else if shape.pending_compaction_bytes
        >= pending_bytes_for_compaction_speedup(shape.bottommost_bytes, o)
    {
        Some(SpeedupCause::PendingCompactionBytes)
    } else {
        None
    }
}

/// How many flushes and compactions may run at once.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BgJobLimits {
    /// Concurrent flushes.
    pub max_flushes: usize,
    /// Concurrent compactions.
    pub max_compactions: usize,
}

/// RocksDB's `DBImpl::GetBGJobLimits`: with both legacy limits at -1, a
/// quarter of `max_background_jobs` (at least one) for flushes and the rest
/// (at least one) for compactions; otherwise each legacy limit, at least
/// one. Unless `parallelize` (compaction needs a speed-up), one compaction.
pub fn bg_job_limits(o: &Options, parallelize: bool) -> BgJobLimits {
    let (max_flushes, max_compactions) =
        if o.max_background_flushes == -1 && o.max_background_compactions == -1 {
            let flushes = (o.max_background_jobs / 4).max(1);
            (
                flushes,
                o.max_background_jobs.saturating_sub(flushes).max(1),
            )
        } else {
            (
                o.max_background_flushes.max(1) as usize,
                o.max_background_compactions.max(1) as usize,
            )
        };
    BgJobLimits {
        max_flushes,
        max_compactions: if parallelize { max_compactions } else { 1 },
    }
}

/// How often delayed writes get their credit, in microseconds (RocksDB's
/// `kMicrosPerRefill`), and the shortest sleep of a delayed write.
pub const MICROS_PER_REFILL: u64 = 1000;

/// The credit of delayed writes, as RocksDB's `WriteController::GetDelay`
/// keeps it: while writes are delayed, `delayed_write_rate` is granted in
/// refills every millisecond; a write the credit covers goes on at once,
/// and one beyond it sleeps until the refills catch up with it, at least
/// a millisecond. Most delayed writes therefore pass without a sleep and a
/// few sleep a millisecond or more: the same average rate as pacing every
/// write, with RocksDB's shape of the write latency histogram (a low P99,
/// the delay in the P99.9).
#[derive(Debug, Clone, Default)]
pub struct DelayCredit {
    credit_bytes: u64,
    /// The next refill, in microseconds on the caller's clock; 0 until the
    /// first write beyond the credit.
    next_refill_us: u64,
}

impl DelayCredit {
    /// Forgets credit and debt: a new delay period starts (RocksDB resets
    /// both when the first delay token is taken).
    pub fn reset(&mut self) {
        *self = DelayCredit::default();
    }

    /// Microseconds a write of `bytes` must sleep at `rate` bytes/second,
    /// `now_us` microseconds into the caller's clock (which must not start
    /// at 0); 0 when the credit covers it.
    pub fn delay(&mut self, bytes: u64, rate: u64, now_us: u64) -> u64 {
        if self.credit_bytes >= bytes {
            self.credit_bytes -= bytes;
            return 0;
        }
        let rate = rate.max(1);
        if self.next_refill_us == 0 {
            self.next_refill_us = now_us;
        }
        if self.next_refill_us <= now_us {
            let elapsed = now_us - self.next_refill_us + MICROS_PER_REFILL;
            self.credit_bytes += (elapsed as f64 / 1e6 * rate as f64 + 0.999_999) as u64;
            self.next_refill_us = now_us + MICROS_PER_REFILL;
            if self.credit_bytes >= bytes {
                self.credit_bytes -= bytes;
                return 0;
            }
        }
        let over = bytes - self.credit_bytes;
        self.credit_bytes = 0;
        self.next_refill_us += (over as f64 / rate as f64 * 1e6) as u64;
        self.next_refill_us
            .saturating_sub(now_us)
            .max(MICROS_PER_REFILL)
    }
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
        use StallCause::*;
        use StallState::*;
        let o = o();
        // (L0 files, pending compaction bytes, immutable memtables, active
        // memtable full) and the state they give.
        let cases = [
            (0, 0, 0, false, Normal),
            (4, 0, 0, false, Delayed(L0FileCountLimit)),
            (8, 0, 0, false, Stopped(L0FileCountLimit)),
            (0, 150, 0, false, Delayed(PendingCompactionBytes)),
            (0, 250, 0, false, Stopped(PendingCompactionBytes)),
            (0, 0, 1, true, Stopped(MemtableLimit)),
            (0, 0, 1, false, Normal),
        ];
        for (l0_files, pending_compaction_bytes, immutable_memtables, active_memtable_full, want) in
            cases
        {
            let s = LsmShape {
                l0_files,
                pending_compaction_bytes,
                immutable_memtables,
                active_memtable_full,
                ..LsmShape::default()
            };
            assert_eq!(stall_state(&s, &o), want, "{s:?}");
        }
    }

    /// `level0_stop_writes_trigger=0` once stopped writes for good: with
    /// one L0 file and a compaction trigger of 4, no flush and so no
    /// compaction could ever lower the count. The triggers are raised as
    /// RocksDB's SanitizeOptions raises them, and the LOG says so.
    #[test]
    fn l0_triggers_below_the_compaction_trigger_are_raised() {
        let mut o = o();
        o.level0_file_num_compaction_trigger = 4;
        o.level0_slowdown_writes_trigger = 2;
        o.level0_stop_writes_trigger = 0;
        assert_eq!((l0_slowdown_trigger(&o), l0_stop_trigger(&o)), (4, 4));
        let shape = |l0_files| LsmShape {
            l0_files,
            ..LsmShape::default()
        };
        assert_eq!(stall_state(&shape(1), &o), StallState::Normal);
        assert_eq!(
            stall_state(&shape(4), &o),
            StallState::Stopped(StallCause::L0FileCountLimit)
        );
        let w = l0_trigger_warning(&o).unwrap();
        assert!(w.contains("slow down at 4 and stop at 4"), "{w}");
        assert_eq!(l0_trigger_warning(&Options::default()), None);
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
    fn job_limits_split_a_quarter_to_flushes_and_hold_compactions_to_one_until_pressure() {
        let mut o = Options::default();
        for (jobs, flushes, compactions) in
            [(1, 1, 1), (2, 1, 1), (4, 1, 3), (8, 2, 6), (16, 4, 12)]
        {
            o.max_background_jobs = jobs;
            let l = bg_job_limits(&o, true);
            assert_eq!(
                (l.max_flushes, l.max_compactions),
                (flushes, compactions),
                "{jobs}"
            );
            assert_eq!(bg_job_limits(&o, false).max_compactions, 1, "{jobs}");
        }
        // Either legacy limit replaces the split; 0 counts as 1.
        o.max_background_jobs = 8;
        o.max_background_compactions = 3;
        let l = bg_job_limits(&o, true);
        assert_eq!((l.max_flushes, l.max_compactions), (1, 3));
        o.max_background_compactions = -1;
        o.max_background_flushes = 0;
        let l = bg_job_limits(&o, true);
        assert_eq!((l.max_flushes, l.max_compactions), (1, 1));
    }

    #[test]
    fn speedup_thresholds_follow_rocksdb() {
        let mut o = Options::default(); // triggers 4 / 20
        assert_eq!(l0_files_for_compaction_speedup(&o), 8); // min(8, 4 + 16/4)
        o.level0_slowdown_writes_trigger = 8;
        assert_eq!(l0_files_for_compaction_speedup(&o), 5); // min(8, 4 + 4/4)
        let o = Options::default(); // soft 64 GiB, base 256 MiB
        assert_eq!(pending_bytes_for_compaction_speedup(0, &o), 16 << 30);
        assert_eq!(pending_bytes_for_compaction_speedup(1 << 30, &o), 512 << 20);
        assert_eq!(pending_bytes_for_compaction_speedup(64 << 30, &o), 8 << 30);
        assert_eq!(pending_bytes_for_compaction_speedup(1 << 40, &o), 16 << 30);
    }

    #[test]
    fn speedup_causes_in_rocksdb_order() {
        let o = Options::default();
        let mut s = LsmShape {
            bottommost_bytes: 1 << 30,
            ..LsmShape::default()
        };
        assert_eq!(needs_compaction_speedup(&s, &o), None);
        s.pending_compaction_bytes = 512 << 20;
        assert_eq!(
            needs_compaction_speedup(&s, &o),
            Some(SpeedupCause::PendingCompactionBytes)
        );
        s.l0_files = 8;
        assert_eq!(
            needs_compaction_speedup(&s, &o),
            Some(SpeedupCause::L0Files)
        );
        s.l0_files = 20;
        assert_eq!(
            needs_compaction_speedup(&s, &o),
            Some(SpeedupCause::Stall(StallCause::L0FileCountLimit))
        );
        let mut o = o;
        o.soft_pending_compaction_bytes_limit = 0;
        assert_eq!(
            needs_compaction_speedup(&LsmShape::default(), &o),
            Some(SpeedupCause::NoSoftLimit)
        );
    }

    #[test]
    fn without_auto_compactions_only_memtables_stall_writers() {
        let o = Options {
            disable_auto_compactions: true,
            ..o()
        };
        let mut s = LsmShape {
            l0_files: 100,
            pending_compaction_bytes: u64::MAX,
            ..LsmShape::default()
        };
        assert_eq!(stall_state(&s, &o), StallState::Normal);
        s.immutable_memtables = 1;
        s.active_memtable_full = true;
        assert_eq!(
            stall_state(&s, &o),
            StallState::Stopped(StallCause::MemtableLimit)
        );
    }

    /// Regression: FIFO writers stopped for good at 36 L0 files, since
    /// FIFO deletes files only past its size limit.
    #[test]
    fn fifo_ignores_the_l0_triggers() {
        let mut o = o();
        o.set("compaction_style", "kCompactionStyleFIFO").unwrap();
        let s = LsmShape {
            l0_files: 1000,
            ..LsmShape::default()
        };
        assert_eq!(stall_state(&s, &o), StallState::Normal);
        assert_eq!(
            l0_files_for_compaction_speedup(&o),
            2 * o.level0_file_num_compaction_trigger
        );
    }

    #[test]
    fn delayed_writes_within_the_credit_pass_and_the_rest_sleep_a_refill_or_more() {
        // 8 MB/s: one refill is 8,389 bytes, eight 1 KB writes.
        let rate = 8 << 20;
        let mut c = DelayCredit::default();
        let t = 1_000_000;
        // The first write beyond the (empty) credit starts the refills and
        // gets one interval's worth: it and the next seven pass.
        let delays: Vec<u64> = (0..9).map(|_| c.delay(1024, rate, t)).collect();
        assert_eq!(delays[..8], [0; 8]);
        // The ninth is 827 bytes over budget: it waits for the next refill
        // plus the 98 us those bytes take at the rate.
        assert_eq!(delays[8], MICROS_PER_REFILL + 98);
        // A write as large as a second of the rate sleeps about a second.
        let mut c = DelayCredit::default();
        let d = c.delay(rate, rate, t);
        assert!((999_000..=1_001_000).contains(&d), "{d}");
        // Time brings credit back: 5 ms later the next write passes.
        let mut c = DelayCredit::default();
        let waited: u64 = (0..9).map(|_| c.delay(1024, rate, t)).sum();
        assert!(waited > 0);
        assert_eq!(c.delay(1024, rate, t + 5_000), 0);
    }

    #[test]
    fn delayed_writes_average_the_delayed_write_rate() {
        // 1 KB writes at 1 MB/s, each issued when its sleep ends: 10,000
        // writes take about 10,000 * 1024 / 2^20 s.
        let rate = 1 << 20;
        let mut c = DelayCredit::default();
        let mut now = 1u64;
        let mut slept = 0u64;
        for _ in 0..10_000 {
            let d = c.delay(1024, rate, now);
            slept += d;
            now += d;
        }
        let want = 10_000.0 * 1024.0 / rate as f64 * 1e6;
        let got = now as f64;
        assert!((got - want).abs() / want < 0.02, "{got} vs {want}");
        assert!(slept > 0);
    }

    #[test]
    fn reset_forgets_debt() {
        let rate = 1 << 20;
        let mut c = DelayCredit::default();
        assert!(c.delay(10 << 20, rate, 1) > 9_000_000);
        c.reset();
        assert_eq!(c.delay(1024, rate, 2), 0);
    }
}
