//! The write path: group commit (one WAL write and one fsync for a group of
//! concurrent writers, LevelDB's writer queue), memtable switching, and the
//! stall mechanism that carries out the write controller's decisions.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::{Condvar, Mutex, MutexGuard};

use super::{DbInner, State};
use crate::batch::WriteBatch;
use crate::compaction::CompactionPolicy;
use crate::error::{Error, Result};
use crate::filename::wal_file_name;
use crate::memtable::MemTable;
use crate::options::WriteOptions;
use crate::stats::{Histogram, Ticker};
use crate::sync_point::{hit, SyncPoint};
use crate::write_controller::{stall_state, LsmShape, StallState};

/// Largest combined batch a group commit builds.
const MAX_GROUP_BYTES: usize = 1 << 20;

/// One waiting writer.
pub(crate) struct WriterSlot {
    batch: Mutex<Option<WriteBatch>>,
    /// The family whose memtable this writer switches (no batch), if any.
    force_switch: Option<u32>,
    sync: bool,
    disable_wal: bool,
    done: AtomicBool,
    result: Mutex<Option<Result<()>>>,
    cv: Condvar,
    /// Set before `cv` is notified, so that a writer waiting without the
    /// state lock (`await_signal`) sees its wake-up without sleeping.
    signaled: AtomicBool,
}

/// Busy-polls a queued writer makes before it yields or sleeps (RocksDB's
/// `WriteThread::AwaitState` spins 200 times too).
const WRITER_SPINS: u32 = 200;

impl WriterSlot {
    fn new(
        batch: Option<WriteBatch>,
        force_switch: Option<u32>,
        sync: bool,
        disable_wal: bool,
    ) -> Arc<WriterSlot> {
        Arc::new(WriterSlot {
            batch: Mutex::new(batch),
            force_switch,
            sync,
            disable_wal,
            done: AtomicBool::new(false),
            result: Mutex::new(None),
            cv: Condvar::new(),
            signaled: AtomicBool::new(false),
        })
    }

    /// Wakes this writer: its group is written or it is now at the front.
    fn wake(&self) {
        self.signaled.store(true, Ordering::Release);
        self.cv.notify_one();
    }

    /// Polls, without the state lock, until this writer is woken or
    /// `max` has passed: spins first, then yields the core to any other
    /// runnable thread (`max` too large for a deadline polls until woken).
    /// The caller then takes the lock and checks its state as before, so a
    /// wake-up missed here only costs a sleep.
    fn await_signal(&self, max: Duration) -> bool {
        for _ in 0..WRITER_SPINS {
            if self.signaled.load(Ordering::Acquire) {
                return true;
            }
            std::hint::spin_loop();
        }
        let deadline = Instant::now().checked_add(max);
        while deadline.is_none_or(|d| Instant::now() < d) {
            if self.signaled.load(Ordering::Acquire) {
                return true;
            }
            std::thread::yield_now();
        }
        self.signaled.load(Ordering::Acquire)
    }
}

impl DbInner {
    pub(crate) fn write(&self, opts: &WriteOptions, batch: WriteBatch) -> Result<()> {
        batch.check()?;
        self.write_internal(opts, Some(batch), 0)
    }

    /// `Db::flush_wal`: pushes the current WAL's buffer to the OS, and
    /// with `sync` syncs every WAL not yet synced (closed ones first). A
    /// write group holds the WAL's lock while it appends, so every write
    /// that returned before this call is covered. A failure becomes the
    /// background error, as a failed WAL append or sync in a write group
    /// does: after a failed fsync the WAL's state on disk is unknown.
    pub(crate) fn flush_wal(&self, sync: bool) -> Result<()> {
        if let Some(e) = &self.state.lock().bg_error {
            return Err(Error::Background(e.clone()));
        }
        let t = Instant::now();
        let r = {
            let mut g = self.wal.lock();
            if sync {
                g.sync_all().inspect(|()| hit(SyncPoint::WalSync))
            } else {
                g.flush_current()
            }
        };
        if let Err(e) = r {
            let mut st = self.state.lock();
            self.set_bg_error(&mut st, e.duplicate());
            return Err(e);
        }
        if let (Some(s), true) = (&self.stats, sync) {
            s.record_tick(Ticker::WalFileSynced, 1);
            s.record_histogram(Histogram::WalFileSyncMicros, t.elapsed().as_micros() as u64);
        }
        Ok(())
    }

    /// Runs `f` at the front of the writer queue: no write group is being
    /// logged or applied while it runs (the last one's sequence is
    /// published), and writes that arrive wait behind it. `f` may release
    /// the lock (to wait for a MANIFEST write or a flush); writers still
    /// wait. Used to take a checkpoint's cut (`checkpoint.rs`).
    pub(crate) fn with_writes_paused<T>(
        &self,
        f: impl FnOnce(&mut MutexGuard<'_, State>) -> Result<T>,
    ) -> Result<T> {
        let slot = WriterSlot::new(None, None, false, false);
        let mut st = self.state.lock();
        st.writers.push_back(slot.clone());
        while !st.writers.front().is_some_and(|f| Arc::ptr_eq(f, &slot)) {
            slot.cv.wait(&mut st);
        }
        let r = f(&mut st);
        // No leader takes this slot into its group (it has no batch), and
        // only the front writer pops: it is still at the front.
        st.writers.pop_front();
        if let Some(front) = st.writers.front() {
            front.wake();
        }
        r
    }

    /// Switches family `cf`'s memtable through the writer queue, so that no
    /// leader is still filling the memtable that becomes immutable.
    pub(crate) fn force_memtable_switch(&self, cf: u32) -> Result<()> {
        self.write_internal(&WriteOptions::default(), None, cf)
    }

    fn write_internal(
        &self,
        opts: &WriteOptions,
        batch: Option<WriteBatch>,
        switch_cf: u32,
    ) -> Result<()> {
        if opts.sync && opts.disable_wal {
            return Err(Error::InvalidArgument(
                "Sync writes has to enable WAL.".into(),
            ));
        }
        let start = Instant::now();
        let force_switch = batch.is_none().then_some(switch_cf);
        let slot = WriterSlot::new(batch, force_switch, opts.sync, opts.disable_wal);
        let mut st = self.state.lock();
        if let Some(b) = slot.batch.lock().as_ref() {
            if let Some(&cf) = b.families().iter().find(|cf| !st.families.contains_key(cf)) {
                return Err(Error::InvalidArgument(format!(
                    "the write batch names column family {cf}, which does not exist (dropped?)"
                )));
            }
        }
        st.writers.push_back(slot.clone());
        if !st.writers.front().is_some_and(|f| Arc::ptr_eq(f, &slot)) {
            // Behind a leader: wait for it without the lock first.
            let max = if self.opts.enable_write_thread_adaptive_yield {
                Duration::from_micros(self.opts.write_thread_max_yield_usec)
            } else {
                Duration::ZERO
            };
            MutexGuard::unlocked(&mut st, || slot.await_signal(max));
        }
        while !slot.done.load(Ordering::Acquire)
            && !st.writers.front().is_some_and(|f| Arc::ptr_eq(f, &slot))
        {
            slot.cv.wait(&mut st);
        }
        if slot.done.load(Ordering::Acquire) {
            if let Some(s) = &self.stats {
                s.record_tick(Ticker::WriteDoneByOther, 1);
                s.record_histogram(Histogram::DbWrite, start.elapsed().as_micros() as u64);
            }
            return slot.result.lock().take().unwrap_or(Ok(()));
        }
        let result = self.lead_group(&mut st, &slot);
        if let Some(s) = &self.stats {
            s.record_tick(Ticker::WriteDoneBySelf, 1);
            s.record_histogram(Histogram::DbWrite, start.elapsed().as_micros() as u64);
        }
        result
    }

    /// Runs as the front writer: makes room, writes the group, wakes it.
    fn lead_group(&self, st: &mut MutexGuard<'_, State>, leader: &Arc<WriterSlot>) -> Result<()> {
        let first_bytes = leader.batch.lock().as_ref().map_or(0, |b| b.data_size()) as u64;
        let micros_before = st.istats.stall_micros;
        let mut stalled = false;
        let mut result =
            self.make_room_for_write(st, leader.force_switch, first_bytes, &mut stalled);
        // One sample per write group the controller delayed or stopped, its
        // whole delay, 0 included (RocksDB's `rocksdb.db.write.stall`: a
        // StopWatch around each DelayWrite call).
        if let (Some(s), true) = (&self.stats, stalled) {
            s.record_histogram(
                Histogram::WriteStall,
                st.istats.stall_micros - micros_before,
            );
        }
        let mut group_len = 1;
        if result.is_ok() && leader.force_switch.is_none() {
            let (batch, n, sync) = self.build_group(st, leader);
            group_len = n;
            result = self.write_group(st, batch, sync, leader.disable_wal);
        }
        // Wake every member of the group with the group's result.
        for _ in 0..group_len {
            let Some(w) = st.writers.pop_front() else {
                break;
            };
            if !Arc::ptr_eq(&w, leader) {
                *w.result.lock() = Some(match &result {
                    Ok(()) => Ok(()),
                    Err(e) => Err(e.duplicate()),
                });
                w.done.store(true, Ordering::Release);
                w.wake();
            }
        }
        if let Some(front) = st.writers.front() {
            front.wake();
        }
        result
    }

    /// Takes the batches of the writers at the front of the queue that can
    /// share one WAL record. Returns the combined batch, the number of
    /// writers in the group and whether it must be synced.
    fn build_group(&self, st: &State, leader: &Arc<WriterSlot>) -> (WriteBatch, usize, bool) {
        let mut combined = leader.batch.lock().take().unwrap_or_default();
        let mut size = combined.data_size();
        let max = if size <= 128 << 10 {
            size + (128 << 10)
        } else {
            MAX_GROUP_BYTES
        };
        let mut n = 1;
        for w in st.writers.iter().skip(1) {
            if w.sync && !leader.sync {
                break;
            }
            if w.disable_wal != leader.disable_wal {
                break;
            }
            let mut g = w.batch.lock();
            let Some(b) = g.as_ref() else { break };
            if size + b.data_size() > max {
                break;
            }
            size += b.data_size();
            combined.append(b);
            *g = None;
            n += 1;
        }
        (combined, n, leader.sync)
    }

    /// Logs and applies one group's batch (the state lock is released
    /// while the WAL is written and the memtable filled).
    fn write_group(
        &self,
        st: &mut MutexGuard<'_, State>,
        mut batch: WriteBatch,
        sync: bool,
        disable_wal: bool,
    ) -> Result<()> {
        let count = u64::from(batch.count());
        if count == 0 {
            return Ok(());
        }
        let first_seq = self.last_sequence.load(Ordering::Acquire) + 1;
        batch.set_sequence(first_seq);
        // Each family's active memtable. A family dropped since the batch
        // was checked has none: its entries are logged but not applied
        // (recovery skips them too).
        let mems: Vec<(u32, Arc<MemTable>)> = if batch.families().is_empty() {
            vec![(0, st.fam(0).mem.clone())]
        } else {
            st.families
                .iter()
                .map(|(&id, f)| (id, f.mem.clone()))
                .collect()
        };
        let stats = self.stats.clone();
        let (wal_result, wal_bytes) = MutexGuard::unlocked(st, || {
            let mut wal_bytes = 0u64;
            if !disable_wal {
                let mut g = self.wal.lock();
                // A synced write first makes the closed WALs durable, so
                // that nothing logged before it can be lost.
                if sync {
                    if let Err(e) = g.sync_closed() {
                        return (Err(e), 0);
                    }
                }
                let w = match g.current() {
                    Ok(w) => w,
                    Err(e) => return (Err(e), 0),
                };
                if let Err(e) = w.add_record(batch.data()) {
                    return (Err(e), 0);
                }
                hit(SyncPoint::WalAppend);
                let r = if sync {
                    let t = Instant::now();
                    let r = w.sync();
                    if let Some(s) = &stats {
                        s.record_histogram(
                            Histogram::WalFileSyncMicros,
                            t.elapsed().as_micros() as u64,
                        );
                    }
                    r
                } else {
                    w.flush()
                };
                if let Err(e) = r {
                    return (Err(e), 0);
                }
                if sync {
                    hit(SyncPoint::WalSync);
                }
                // The batch's bytes, as RocksDB counts `rocksdb.wal.bytes`
                // (its log_size): not the log's record headers and block
                // padding (0.4% more at 1 KB values), so that the two
                // engines' WAF are computed alike.
                wal_bytes = batch.data_size() as u64;
                g.logged(first_seq + count - 1);
            }
            for (i, op) in batch.iter().enumerate() {
                let mem = if op.cf == 0 {
                    Some(&mems[0].1)
                } else {
                    mems.iter().find(|(id, _)| *id == op.cf).map(|(_, m)| m)
                };
                if let Some(mem) = mem {
                    mem.add(first_seq + i as u64, op.value_type, op.key, op.value);
                }
            }
            (Ok(()), wal_bytes)
        });
        if let Err(e) = wal_result {
            // The WAL may now hold a partial record: nothing more may be
            // appended to it. Stop writes until the DB is reopened.
            self.set_bg_error(st, e.duplicate());
            return Err(e);
        }
        let last = first_seq + count - 1;
        self.last_sequence.store(last, Ordering::Release);
        if !disable_wal {
            let wal = st.current_wal;
            *st.wal_bytes.entry(wal).or_default() += wal_bytes;
        }
        st.versions.set_last_sequence(last);
        let bytes = batch.data_size() as u64;
        let is = &mut st.istats;
        is.user_writes += 1;
        is.commit_groups += 1;
        is.user_keys += count;
        is.user_bytes += bytes;
        if disable_wal {
            st.unpersisted_writes = true;
        } else {
            is.wal_writes += 1;
            is.wal_bytes += wal_bytes;
            if sync {
                is.wal_syncs += 1;
            }
        }
        if let Some(s) = &self.stats {
            s.record_tick(Ticker::NumberKeysWritten, count);
            s.record_tick(Ticker::BytesWritten, bytes);
            s.record_histogram(Histogram::BytesPerWrite, bytes);
            if !disable_wal {
                s.record_tick(Ticker::WalFileBytes, wal_bytes);
                s.record_tick(Ticker::WriteWithWal, 1);
                if sync {
                    s.record_tick(Ticker::WalFileSynced, 1);
                }
            }
        }
        Ok(())
    }

    /// The LSM shape of family `cf` the write controller decides on. The
    /// pending compaction bytes depend only on the version, so they are
    /// computed once per installed version, not on every write group.
    pub(crate) fn lsm_shape(&self, st: &mut State, cf: u32, force_switch: bool) -> LsmShape {
        let v = st.versions.current(cf);
        let f = st.fam_mut(cf);
        let o = &f.family.opts;
        let policy = CompactionPolicy::of(o);
        let (pending, bottommost) = match &f.pending_bytes_cache {
            // The Weak keeps the allocation, so its address cannot be
            // reused by a later version while the cache holds it.
            Some((cached, pending, bottommost))
                if std::ptr::eq(cached.as_ptr(), Arc::as_ptr(&v)) =>
            {
                (*pending, *bottommost)
            }
            _ => {
                let pending = policy.pending_compaction_bytes(&v);
                let bottommost = v.bottommost_bytes();
                f.pending_bytes_cache = Some((Arc::downgrade(&v), pending, bottommost));
                (pending, bottommost)
            }
        };
        let l0_files = policy.l0_trigger_count(&v);
        LsmShape {
            immutable_memtables: f.imm.len(),
            active_memtable_full: force_switch || f.mem.is_full(o.write_buffer_size),
            l0_files,
            pending_compaction_bytes: pending,
            bottommost_bytes: bottommost,
        }
    }

    /// The write controller's decision over every family: the most severe
    /// one (stopped over delayed over normal), with the shape of the family
    /// it came from. `force` names a family whose non-empty memtable must
    /// be switched.
    pub(crate) fn stall_state(&self, st: &mut State, force: Option<u32>) -> (StallState, LsmShape) {
        let ids: Vec<u32> = st.families.keys().copied().collect();
        let mut worst = (StallState::Normal, LsmShape::default());
        for cf in ids {
            let force_switch = force == Some(cf) && !st.fam(cf).mem.is_empty();
            let shape = self.lsm_shape(st, cf, force_switch);
            let state = stall_state(&shape, &st.fam(cf).family.opts);
            let rank = |s: &StallState| match s {
                StallState::Normal => 0,
                StallState::Delayed(_) => 1,
                StallState::Stopped(_) => 2,
            };
            if rank(&state) > rank(&worst.0) || (cf == 0 && rank(&state) == rank(&worst.0)) {
                worst = (state, shape);
            }
        }
        worst
    }

    /// With several families and the live WALs past `max_total_wal_size`:
    /// the families whose unflushed entries keep the oldest WAL alive and
    /// whose active memtable holds data. Their memtables switch and flush,
    /// so that the WAL can go (RocksDB's `SwitchWAL`).
    fn families_holding_wals(&self, st: &mut State) -> Vec<u32> {
        if st.families.len() < 2 {
            return Vec::new();
        }
        let limit = match self.opts.max_total_wal_size {
            0 => st
                .families
                .values()
                .map(|f| {
                    let o = f.opts();
                    4 * o.write_buffer_size as u64 * o.max_write_buffer_number as u64
                })
                .sum(),
            n => n,
        };
        if st.wal_bytes.values().sum::<u64>() <= limit {
            return Vec::new();
        }
        let oldest = st.versions.log_number();
        let mut switch = Vec::new();
        for (&id, f) in st.families.iter_mut() {
            if st.versions.family_log_number(id) > oldest {
                continue;
            }
            // Its sealed memtables flush; an active one that may hold
            // entries of the oldest WAL switches first.
            let switches = !f.mem.is_empty() && f.mem.wal_number() <= oldest;
            if switches || !f.imm.is_empty() {
                f.flush_requested = true;
            }
            if switches {
                switch.push(id);
            }
        }
        switch
    }

    /// Families whose active memtable must be switched before the next
    /// write: full ones, and `force` if its memtable holds data.
    fn families_to_switch(&self, st: &State, force: Option<u32>) -> Vec<u32> {
        st.families
            .iter()
            .filter(|(&id, f)| {
                (force == Some(id) && !f.mem.is_empty())
                    || f.mem.is_full(f.family.opts.write_buffer_size)
            })
            .map(|(&id, _)| id)
            .collect()
    }

    /// Ensures the active memtable has room, switching it when full and
    /// delaying or stopping the writer as the write controller decides.
    /// `force` switches a non-empty memtable regardless of its size. Sets
    /// `stalled` if the write controller delayed or stopped the writer.
    pub(crate) fn make_room_for_write(
        &self,
        st: &mut MutexGuard<'_, State>,
        mut force: Option<u32>,
        bytes: u64,
        stalled: &mut bool,
    ) -> Result<()> {
        let mut delayed = false;
        let mut stop_counted = false;
        loop {
            if let Some(e) = &st.bg_error {
                return Err(Error::Background(e.clone()));
            }
            if self.shutting_down.load(Ordering::Acquire) {
                return Err(Error::ShutdownInProgress);
            }
            let (state, shape) = self.stall_state(st, force);
            self.note_stall_state(state);
            match state {
                StallState::Stopped(cause) => {
                    *stalled = true;
                    if !stop_counted {
                        st.istats.count_stall(cause, true);
                        stop_counted = true;
                        st.last_logged_stall = Some(cause);
                        self.log.log(&format!(
                            "[WARN] Stopping writes because of {} (L0 files {}, immutable memtables {}, pending compaction bytes {})",
                            cause.name(),
                            shape.l0_files,
                            shape.immutable_memtables,
                            shape.pending_compaction_bytes
                        ));
                    }
                    st.write_stopped = true;
                    let t = Instant::now();
                    self.work_cv.notify_all();
                    // Woken by the flush or compaction that changes the
                    // shape; the timeout only re-checks shutdown.
                    self.bg_cv.wait_for(st, Duration::from_millis(100));
                    self.add_stall(st, t.elapsed());
                    continue;
                }
                StallState::Delayed(cause) if !delayed => {
                    delayed = true;
                    *stalled = true;
                    if st.last_logged_stall.is_none() {
                        st.delay_credit.reset();
                    }
                    if st.last_logged_stall != Some(cause) {
                        st.last_logged_stall = Some(cause);
                        self.log.log(&format!(
                            "[WARN] Stalling writes because of {} (L0 files {}, immutable memtables {}, pending compaction bytes {}); rate {} bytes/s",
                            cause.name(),
                            shape.l0_files,
                            shape.immutable_memtables,
                            shape.pending_compaction_bytes,
                            self.opts.delayed_write_rate
                        ));
                    }
                    // Micros since open, plus one: the credit's clock must
                    // not start at 0.
                    let now_us = st.opened_at.elapsed().as_micros() as u64 + 1;
                    let wait = Duration::from_micros(st.delay_credit.delay(
                        bytes.max(1),
                        self.opts.delayed_write_rate,
                        now_us,
                    ));
                    // RocksDB sleeps in 1 ms steps and stops early when the
                    // delay ends; this sleeps the whole wait.
                    if !wait.is_zero() {
                        st.istats.count_stall(cause, false);
                        MutexGuard::unlocked(st, || std::thread::sleep(wait));
                        self.add_stall(st, wait);
                    }
                    continue;
                }
                _ => {}
            }
            st.write_stopped = false;
            if let (StallState::Normal, Some(c)) = (state, st.last_logged_stall) {
                st.last_logged_stall = None;
                self.log.log(&format!("Write stall ({}) cleared", c.name()));
            }
            let mut switch = self.families_to_switch(st, force);
            if switch.is_empty() {
                switch = self.families_holding_wals(st);
            }
            if switch.is_empty() {
                return Ok(());
            }
            for &cf in &switch {
                let f = st.fam(cf);
                let reason = if f.mem.is_full(f.family.opts.write_buffer_size) {
                    "Write Buffer Full"
                } else if force == Some(cf) {
                    st.forced_flush_reason.unwrap_or("Manual Flush")
                } else {
                    "WAL Full"
                };
                f.mem.set_flush_reason(reason);
            }
            if let Err(e) = self.switch_memtables(st, &switch) {
                // The old WAL may not be synced and the new one may not
                // exist: stop writes until reopen.
                let d = e.duplicate();
                self.set_bg_error(st, e);
                return Err(d);
            }
            force = None;
        }
    }

    fn add_stall(&self, st: &mut State, d: Duration) {
        let micros = d.as_micros() as u64;
        st.istats.stall_micros += micros;
        if let Some(s) = &self.stats {
            s.record_tick(Ticker::StallMicros, micros);
        }
    }

    /// Makes the active memtables of families `cfs` immutable, starts a new
    /// WAL and new memtables for them, and wakes the flush thread. The
    /// other families keep their memtables (and so the older WALs that
    /// hold their entries).
    pub(crate) fn switch_memtables(&self, st: &mut State, cfs: &[u32]) -> Result<()> {
        let number = st.versions.new_file_number();
        let path = wal_file_name(&self.dir, number);
        let file = crate::fs::incremental_sync::sync_incrementally(
            self.fs.create(&path)?,
            self.opts.wal_bytes_per_sync,
            false,
        );
        // The new WAL's directory entry must be durable before any synced
        // write in it is acknowledged.
        // Neither the new WAL's directory entry nor the old WAL is synced
        // here: the new WAL names the old one in a predecessor record, and
        // the first synced write after the switch syncs the directory and
        // the old WAL before its own (db/wal_set.rs).
        self.wal.lock().start(number, file)?;
        st.current_wal = number;
        for &cf in cfs {
            let f = st.fam_mut(cf);
            let fresh = Arc::new(MemTable::for_options(number, &f.family.opts));
            let old = std::mem::replace(&mut f.mem, fresh);
            f.imm.push_back(old);
            self.install_super_version(st, cf);
        }
        hit(SyncPoint::MemtableSwitch);
        self.work_cv.notify_all();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn slot() -> Arc<WriterSlot> {
        WriterSlot::new(None, None, false, false)
    }

    #[test]
    fn a_writer_woken_while_polling_sees_it_without_sleeping() {
        let s = slot();
        let waker = {
            let s = s.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(5));
                s.wake();
            })
        };
        // A bound far longer than the wake-up: it returns when woken.
        let t = Instant::now();
        assert!(s.await_signal(Duration::from_secs(30)));
        assert!(t.elapsed() < Duration::from_secs(20));
        waker.join().unwrap();
    }

    #[test]
    fn a_writer_never_woken_stops_polling_after_the_bound() {
        let s = slot();
        let t = Instant::now();
        assert!(!s.await_signal(Duration::from_millis(2)));
        assert!(t.elapsed() >= Duration::from_millis(2));
        s.wake();
        assert!(s.await_signal(Duration::ZERO));
    }
}
