//! Normal mode: worker threads running random operations, each read
//! checked against the in-memory expected state, each write logged to the
//! expected-state log before it is issued and acknowledged after.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use parking_lot::{Mutex, MutexGuard};
use strata::{Db, ReadOptions, Snapshot, WriteBatch, WriteOptions};

use super::config::Config;
use super::expected::{KeyState, LogWriter, Record, RecordKind};
use super::value::{key_bytes, value_bytes, Rng};

const STRIPES: usize = 1024;

/// A snapshot taken by a thread and the values it must show for some keys.
type HeldSnapshot = (Snapshot, Vec<(u32, Option<Vec<u8>>)>);

/// Operation counters.
#[derive(Default)]
pub struct Counters {
    /// Puts acknowledged.
    pub puts: AtomicU64,
    /// Deletes acknowledged.
    pub deletes: AtomicU64,
    /// Batches acknowledged.
    pub batches: AtomicU64,
    /// Gets verified.
    pub gets: AtomicU64,
    /// Range scans verified.
    pub scans: AtomicU64,
    /// Snapshots taken (with expected values recorded).
    pub snapshots_taken: AtomicU64,
    /// Snapshot reads verified.
    pub snapshot_reads: AtomicU64,
    /// Keys compared with the expected state (gets, scans, snapshots).
    pub verified: AtomicU64,
    /// Flushes done.
    pub flushes: AtomicU64,
}

impl Counters {
    /// All operations.
    pub fn total(&self) -> u64 {
        [
            &self.puts,
            &self.deletes,
            &self.batches,
            &self.gets,
            &self.scans,
            &self.snapshots_taken,
            &self.snapshot_reads,
        ]
        .iter()
        .map(|c| c.load(Ordering::Relaxed))
        .sum()
    }
}

/// State shared by the workers.
pub struct Shared {
    /// The DB.
    pub db: Db,
    /// Flags.
    pub cfg: Config,
    /// The expected-state log.
    pub log: LogWriter,
    /// Per key: `version << 1 | exists`, changed only under the key's stripe.
    state: Vec<AtomicU64>,
    /// Per key: highest version used.
    max_used: Vec<AtomicU64>,
    stripes: Vec<Mutex<()>>,
    next_batch: AtomicU64,
    started_ops: AtomicU64,
    stop: AtomicBool,
    /// First violation or error seen by a worker.
    pub failure: Mutex<Option<String>>,
    /// Counters.
    pub counters: Counters,
    wopts: WriteOptions,
    deadline: Option<Instant>,
}

fn pack(version: u64, exists: bool) -> u64 {
    version << 1 | u64::from(exists)
}

impl Shared {
    /// Shared state starting from `base`.
    pub fn new(db: Db, cfg: Config, log: LogWriter, base: &[KeyState]) -> Shared {
        let deadline = (cfg.duration > 0)
            .then(|| Instant::now() + std::time::Duration::from_secs(cfg.duration));
        Shared {
            db,
            wopts: cfg.write_options(),
            cfg,
            log,
            state: base
                .iter()
                .map(|s| AtomicU64::new(pack(s.version, s.exists)))
                .collect(),
            max_used: base.iter().map(|s| AtomicU64::new(s.max_used)).collect(),
            stripes: (0..STRIPES).map(|_| Mutex::new(())).collect(),
            next_batch: AtomicU64::new(1),
            started_ops: AtomicU64::new(0),
            stop: AtomicBool::new(false),
            failure: Mutex::new(None),
            counters: Counters::default(),
            deadline,
        }
    }

    fn fail(&self, msg: String) {
        let mut f = self.failure.lock();
        if f.is_none() {
            *f = Some(msg);
        }
        self.stop.store(true, Ordering::Release);
    }

    /// Locks the stripes of `keys` in ascending stripe order (no deadlock).
    fn lock(&self, keys: &[u32]) -> Vec<MutexGuard<'_, ()>> {
        let mut s: Vec<usize> = keys.iter().map(|&k| k as usize % STRIPES).collect();
        s.sort_unstable();
        s.dedup();
        s.into_iter()
            .filter_map(|i| self.stripes.get(i))
            .map(|m| m.lock())
            .collect()
    }

    fn expected(&self, k: u32) -> Option<Vec<u8>> {
        let s = self.state[k as usize].load(Ordering::Acquire);
        (s & 1 == 1)
            .then(|| value_bytes(k, s >> 1, self.cfg.value_size_min, self.cfg.value_size_max))
    }

    fn check(&self, what: &str, k: u32, got: &Option<Vec<u8>>) -> bool {
        let want = self.expected(k);
        self.counters.verified.fetch_add(1, Ordering::Relaxed);
        if *got != want {
            let show = |v: &Option<Vec<u8>>| match v {
                Some(v) => format!("{:?}", String::from_utf8_lossy(&v[..v.len().min(27)])),
                None => "absent".into(),
            };
            self.fail(format!(
                "{what} key{k:08}: expected {} found {}",
                show(&want),
                show(got)
            ));
            return false;
        }
        true
    }

    /// Writes puts/deletes for `keys` (already locked) as one batch or one
    /// single write; logs before and after.
    fn write(&self, ops: &[(u32, bool)]) -> anyhow::Result<()> {
        let batch_id = if ops.len() > 1 {
            self.next_batch.fetch_add(1, Ordering::Relaxed)
        } else {
            0
        };
        let synced = self.wopts.sync;
        let mut starts = Vec::with_capacity(ops.len());
        let mut batch = WriteBatch::new();
        for &(k, del) in ops {
            let v = self.max_used[k as usize].fetch_add(1, Ordering::AcqRel) + 1;
            starts.push(Record {
                kind: if del {
                    RecordKind::StartDelete
                } else {
                    RecordKind::StartPut
                },
                synced,
                key: k,
                version: v,
                aux: batch_id,
            });
            if del {
                batch.delete(key_bytes(k));
            } else {
                batch.put(
                    key_bytes(k),
                    value_bytes(k, v, self.cfg.value_size_min, self.cfg.value_size_max),
                );
            }
        }
        self.log.append(&starts, synced)?;
        self.db.write_opt(&self.wopts, batch)?;
        let acks: Vec<Record> = starts
            .iter()
            .map(|r| Record {
                kind: RecordKind::Ack,
                ..*r
            })
            .collect();
        self.log.append(&acks, false)?;
        for r in &starts {
            self.state[r.key as usize].store(
                pack(r.version, r.kind == RecordKind::StartPut),
                Ordering::Release,
            );
        }
        Ok(())
    }

    fn random_key(&self, rng: &mut Rng) -> u32 {
        rng.below(u64::from(self.cfg.keys)) as u32
    }

    fn op_put(&self, rng: &mut Rng, del: bool) -> anyhow::Result<()> {
        let k = self.random_key(rng);
        let _g = self.lock(&[k]);
        self.write(&[(k, del)])?;
        let c = if del {
            &self.counters.deletes
        } else {
            &self.counters.puts
        };
        c.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    fn op_batch(&self, rng: &mut Rng) -> anyhow::Result<()> {
        let n = self.cfg.batch_size.clamp(1, self.cfg.keys as usize);
        let mut keys: Vec<u32> = Vec::with_capacity(n);
        while keys.len() < n {
            let k = self.random_key(rng);
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        let ops: Vec<(u32, bool)> = keys.iter().map(|&k| (k, rng.below(100) < 15)).collect();
        let _g = self.lock(&keys);
        self.write(&ops)?;
        self.counters.batches.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    fn op_get(&self, rng: &mut Rng) -> anyhow::Result<()> {
        let k = self.random_key(rng);
        let _g = self.lock(&[k]);
        // Every other get reads pinned (the value left in its block).
        let got = if self.counters.gets.load(Ordering::Relaxed).is_multiple_of(2) {
            self.db.get(key_bytes(k))?
        } else {
            self.db
                .get_pinned(&ReadOptions::default(), &key_bytes(k))?
                .map(|v| v.into_vec())
        };
        self.check("get", k, &got);
        self.counters.gets.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    fn op_scan(&self, rng: &mut Rng) -> anyhow::Result<()> {
        let start = self.random_key(rng);
        let len = 1 + rng.below(u64::from(self.cfg.scan_length.max(1))) as u32;
        let end = start.saturating_add(len).min(self.cfg.keys);
        let keys: Vec<u32> = (start..end).collect();
        let _g = self.lock(&keys);
        let ro = ReadOptions {
            iterate_lower_bound: Some(key_bytes(start)),
            iterate_upper_bound: Some(key_bytes(end)),
            ..ReadOptions::default()
        };
        let mut found: Vec<Option<Vec<u8>>> = vec![None; keys.len()];
        let mut prev: Option<Vec<u8>> = None;
        for item in self.db.iter_opt(&ro) {
            let (key, value) = item?;
            let idx = super::value::parse_key(&key)
                .filter(|&i| i >= start && i < end)
                .map(|i| (i - start) as usize);
            let Some(idx) = idx else {
                self.fail(format!(
                    "scan [key{start:08}, key{end:08}) returned {}",
                    String::from_utf8_lossy(&key)
                ));
                return Ok(());
            };
            if prev.as_ref().is_some_and(|p| *p >= key) {
                self.fail(format!(
                    "scan out of order at {}",
                    String::from_utf8_lossy(&key)
                ));
                return Ok(());
            }
            found[idx] = Some(value);
            prev = Some(key);
        }
        for (i, got) in found.iter().enumerate() {
            if !self.check("scan", start + i as u32, got) {
                break;
            }
        }
        self.counters.scans.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    fn op_snapshot(&self, rng: &mut Rng, held: &mut Option<HeldSnapshot>) -> anyhow::Result<()> {
        match held.take() {
            None => {
                let keys: Vec<u32> = (0..4).map(|_| self.random_key(rng)).collect();
                let _g = self.lock(&keys);
                let snap = self.db.snapshot();
                let want = keys.iter().map(|&k| (k, self.expected(k))).collect();
                *held = Some((snap, want));
                self.counters
                    .snapshots_taken
                    .fetch_add(1, Ordering::Relaxed);
            }
            Some((snap, want)) => {
                let ro = ReadOptions {
                    snapshot: Some(snap),
                    ..ReadOptions::default()
                };
                for (k, w) in want {
                    let got = self.db.get_opt(&ro, key_bytes(k))?;
                    self.counters.verified.fetch_add(1, Ordering::Relaxed);
                    if got != w {
                        self.fail(format!(
                            "snapshot read key{k:08}: expected {} found {}",
                            w.map_or("absent".into(), |v| format!(
                                "{:?}",
                                String::from_utf8_lossy(&v[..27.min(v.len())])
                            )),
                            got.map_or("absent".into(), |v| format!(
                                "{:?}",
                                String::from_utf8_lossy(&v[..27.min(v.len())])
                            ))
                        ));
                        break;
                    }
                }
                self.counters.snapshot_reads.fetch_add(1, Ordering::Relaxed);
            }
        }
        Ok(())
    }

    /// Flushes and records that every write acknowledged before is durable.
    ///
    /// # Errors
    /// Flush or log errors.
    pub fn flush(&self) -> anyhow::Result<()> {
        let before = self.log.len();
        self.db.flush()?;
        self.log.append(
            &[Record {
                kind: RecordKind::Flushed,
                synced: false,
                key: u32::MAX,
                version: 0,
                aux: before,
            }],
            self.wopts.sync,
        )?;
        self.counters.flushes.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    fn one_op(&self, rng: &mut Rng, held: &mut Option<HeldSnapshot>) -> anyhow::Result<()> {
        let c = &self.cfg;
        if c.flush_one_in > 0 && rng.below(c.flush_one_in) == 0 {
            self.flush()?;
        }
        if c.compact_one_in > 0 && rng.below(c.compact_one_in) == 0 {
            let a = self.random_key(rng);
            let b = a.saturating_add(rng.below(1000) as u32).min(c.keys - 1);
            self.db
                .compact_range(Some(&key_bytes(a)), Some(&key_bytes(b)))?;
        }
        let weights = [c.puts, c.deletes, c.batches, c.gets, c.scans, c.snapshots];
        let total: u64 = weights.iter().map(|&w| u64::from(w)).sum();
        let mut r = rng.below(total);
        let mut which = 0;
        for (i, &w) in weights.iter().enumerate() {
            if r < u64::from(w) {
                which = i;
                break;
            }
            r -= u64::from(w);
        }
        match which {
            0 => self.op_put(rng, false),
            1 => self.op_put(rng, true),
            2 => self.op_batch(rng),
            3 => self.op_get(rng),
            4 => self.op_scan(rng),
            _ => self.op_snapshot(rng, held),
        }
    }

    /// One worker thread's loop.
    pub fn worker(self: &Arc<Self>, seed: u64) {
        let mut rng = Rng::new(seed);
        let mut held = None;
        loop {
            if self.stop.load(Ordering::Acquire) {
                break;
            }
            if self.deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            if self.cfg.ops > 0 && self.started_ops.fetch_add(1, Ordering::Relaxed) >= self.cfg.ops
            {
                break;
            }
            if let Err(e) = self.one_op(&mut rng, &mut held) {
                self.fail(format!("operation failed: {e:#}"));
                break;
            }
        }
    }
}
