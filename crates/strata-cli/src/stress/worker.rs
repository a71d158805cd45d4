//! Normal mode: worker threads running random operations, each read
//! checked against the in-memory expected state, each write logged to the
//! expected-state log before it is issued and acknowledged after.
//!
//! With several column families a write goes to a set of them: the same
//! key, version and value in each, in one batch, so that after a crash the
//! families must agree on it (all or nothing). Versions stay per key,
//! shared by the families. Values follow each family's merge operator
//! (`codec.rs`): a merge's operand depends on the version the key holds in
//! that family.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use parking_lot::{Mutex, MutexGuard, RwLock};
use strata::{ColumnFamily, Db, ReadOptions, Snapshot, WriteBatch, WriteOptions};

use super::checkpoint;
use super::codec::Codec;
use super::config::Config;
use super::expected::{KeyState, LogWriter, Record, RecordKind};
use super::value::{key_bytes, Rng};

const STRIPES: usize = 1024;

/// What a write does to one key.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    /// A put.
    Put,
    /// A delete.
    Delete,
    /// A merge in each family whose operator the test has a rule for
    /// ([`Codec::merges`]), a put in the others; the key holds the new
    /// version either way.
    Merge,
}

/// How a write's keys reach the DB.
#[derive(Clone, Copy)]
enum Shape {
    /// Key by key.
    Keys,
    /// Deletes of every key in `[start, end)` as one range deletion per
    /// family (the log records a delete of each key, one batch).
    Range(u32, u32),
}

/// A snapshot taken by a thread, the family read through it (its index and
/// handle, which still reads the family if it is dropped meanwhile) and the
/// version each of some keys must show (`None`: absent).
type HeldSnapshot = (Snapshot, usize, ColumnFamily, Vec<(u32, Option<u64>)>);

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
    /// Acknowledged writes (puts, deletes, batches) to several families.
    pub cross_family: AtomicU64,
    /// Families dropped and created again.
    pub drops: AtomicU64,
    /// Merges acknowledged (`--merges`).
    pub merges: AtomicU64,
    /// Range deletions acknowledged (`--range-deletes`).
    pub range_deletes: AtomicU64,
    /// Checkpoints taken and verified (`--checkpoint-one-in`).
    pub checkpoints: AtomicU64,
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
            &self.merges,
            &self.range_deletes,
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
    /// Handles of the column families, "default" first. Every operation
    /// holds this shared; a drop and re-creation holds it exclusively.
    families: RwLock<Vec<ColumnFamily>>,
    /// Number of column families.
    nfam: usize,
    /// Per family: how its values are written and read.
    codecs: Vec<Codec>,
    /// Per family and key (index `family * keys + key`):
    /// `version << 1 | exists`, changed only under the key's stripe.
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
    /// Shared state starting from `base` (the key states of each family of
    /// `families`, in order), each family's values written and read by its
    /// entry of `codecs`.
    pub fn new(
        db: Db,
        families: Vec<ColumnFamily>,
        cfg: Config,
        codecs: Vec<Codec>,
        log: LogWriter,
        base: &[Vec<KeyState>],
    ) -> Shared {
        let deadline = (cfg.duration > 0)
            .then(|| Instant::now() + std::time::Duration::from_secs(cfg.duration));
        let max_used: Vec<AtomicU64> = base
            .first()
            .map(|b| b.iter().map(|s| AtomicU64::new(s.max_used)).collect())
            .unwrap_or_default();
        Shared {
            db,
            wopts: cfg.write_options(),
            cfg,
            log,
            nfam: families.len(),
            codecs,
            families: RwLock::new(families),
            state: base
                .iter()
                .flatten()
                .map(|s| AtomicU64::new(pack(s.version, s.exists)))
                .collect(),
            max_used,
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

    fn slot(&self, f: usize, k: u32) -> &AtomicU64 {
        &self.state[f * self.cfg.keys as usize + k as usize]
    }

    /// The version key `k` holds in family `f` (`None`: absent).
    fn held(&self, f: usize, k: u32) -> Option<u64> {
        let s = self.slot(f, k).load(Ordering::Acquire);
        (s & 1 == 1).then_some(s >> 1)
    }

    /// How a read names family `f` in a message: nothing for "default"
    /// alone (messages as before families), else `cfN: `.
    fn family_label(&self, f: usize) -> String {
        if self.nfam == 1 {
            String::new()
        } else {
            format!("{}: ", self.cfg.family_names()[f])
        }
    }

    /// Whether `got` is what key `k` of family `f` holds at `held`
    /// (`None`: absent); a violation stops the run.
    fn check_held(
        &self,
        what: &str,
        f: usize,
        k: u32,
        held: Option<u64>,
        got: Option<&[u8]>,
    ) -> bool {
        self.counters.verified.fetch_add(1, Ordering::Relaxed);
        let codec = &self.codecs[f];
        if codec.holds(k, held, got) {
            return true;
        }
        self.fail(format!(
            "{}{what} key{k:08}: expected {} found {}",
            self.family_label(f),
            held.map_or("absent".into(), |v| format!("version {v}")),
            codec.show(got)
        ));
        false
    }

    fn check(&self, what: &str, f: usize, k: u32, got: &Option<Vec<u8>>) -> bool {
        self.check_held(what, f, k, self.held(f, k), got.as_deref())
    }

    /// Writes `ops` (their keys already locked) to each family of the bit
    /// set `mask` as one batch or one single write; logs before and after.
    fn write(
        &self,
        fams: &[ColumnFamily],
        ops: &[(u32, Op)],
        mask: u16,
        shape: Shape,
    ) -> anyhow::Result<()> {
        let batch_id = if ops.len() > 1 || mask.count_ones() > 1 {
            self.next_batch.fetch_add(1, Ordering::Relaxed)
        } else {
            0
        };
        let targets: Vec<usize> = (0..self.nfam).filter(|f| mask & (1 << f) != 0).collect();
        let synced = self.wopts.sync;
        let mut starts = Vec::with_capacity(ops.len());
        let mut batch = WriteBatch::new();
        for &(k, op) in ops {
            let del = op == Op::Delete;
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
                families: Record::encode_families(mask),
            });
            if matches!(shape, Shape::Range(..)) {
                continue;
            }
            for &f in &targets {
                let codec = &self.codecs[f];
                let key = key_bytes(k);
                match (op, f) {
                    (Op::Delete, 0) => batch.delete(key),
                    (Op::Delete, _) => batch.delete_cf(&fams[f], key),
                    (Op::Merge, 0) if codec.merges() => {
                        batch.merge(key, codec.merge(k, v, self.held(f, k)));
                    }
                    (Op::Merge, _) if codec.merges() => {
                        batch.merge_cf(&fams[f], key, codec.merge(k, v, self.held(f, k)));
                    }
                    (_, 0) => batch.put(key, codec.put(k, v)),
                    (_, _) => batch.put_cf(&fams[f], key, codec.put(k, v)),
                }
            }
        }
        if let Shape::Range(start, end) = shape {
            for &f in &targets {
                let (a, b) = (key_bytes(start), key_bytes(end));
                match f {
                    0 => batch.delete_range(a, b),
                    _ => batch.delete_range_cf(&fams[f], a, b),
                }
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
            for &f in &targets {
                self.slot(f, r.key).store(
                    pack(r.version, r.kind == RecordKind::StartPut),
                    Ordering::Release,
                );
            }
        }
        if targets.len() > 1 {
            self.counters.cross_family.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }

    /// The families a write goes to, as a bit set: one family, all of them,
    /// or a random set of at least two. Draws nothing with one family.
    fn random_families(&self, rng: &mut Rng) -> u16 {
        let n = self.nfam as u32;
        if n == 1 {
            return 1;
        }
        let all = ((1u32 << n) - 1) as u16;
        match rng.below(3) {
            0 => 1 << rng.below(u64::from(n)),
            1 => all,
            _ => loop {
                let m = rng.below(u64::from(all) + 1) as u16;
                if m.count_ones() >= 2 {
                    break m;
                }
            },
        }
    }

    /// A family to read from; draws nothing with one family.
    fn random_family(&self, rng: &mut Rng) -> usize {
        if self.nfam == 1 {
            0
        } else {
            rng.below(self.nfam as u64) as usize
        }
    }

    fn random_key(&self, rng: &mut Rng) -> u32 {
        rng.below(u64::from(self.cfg.keys)) as u32
    }

    fn op_put(&self, fams: &[ColumnFamily], rng: &mut Rng, del: bool) -> anyhow::Result<()> {
        let k = self.random_key(rng);
        let mask = self.random_families(rng);
        let _g = self.lock(&[k]);
        let op = if del { Op::Delete } else { Op::Put };
        self.write(fams, &[(k, op)], mask, Shape::Keys)?;
        let c = if del {
            &self.counters.deletes
        } else {
            &self.counters.puts
        };
        c.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    fn op_batch(&self, fams: &[ColumnFamily], rng: &mut Rng) -> anyhow::Result<()> {
        let n = self.cfg.batch_size.clamp(1, self.cfg.keys as usize);
        let mut keys: Vec<u32> = Vec::with_capacity(n);
        while keys.len() < n {
            let k = self.random_key(rng);
            if !keys.contains(&k) {
                keys.push(k);
            }
        }
        // 15% deletes; with merges in the mix, a quarter of the rest merges.
        let merges = self.cfg.merges > 0;
        let ops: Vec<(u32, Op)> = keys
            .iter()
            .map(|&k| match rng.below(100) {
                0..15 => (k, Op::Delete),
                15..36 if merges => (k, Op::Merge),
                _ => (k, Op::Put),
            })
            .collect();
        let mask = self.random_families(rng);
        let _g = self.lock(&keys);
        self.write(fams, &ops, mask, Shape::Keys)?;
        self.counters.batches.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// A merge of one key, in each family where [`Codec::merges`] (a put
    /// in the others).
    fn op_merge(&self, fams: &[ColumnFamily], rng: &mut Rng) -> anyhow::Result<()> {
        let k = self.random_key(rng);
        let mask = self.random_families(rng);
        let _g = self.lock(&[k]);
        self.write(fams, &[(k, Op::Merge)], mask, Shape::Keys)?;
        self.counters.merges.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Deletes a random range of up to `--scan-length` keys with one range
    /// deletion per family.
    fn op_range_delete(&self, fams: &[ColumnFamily], rng: &mut Rng) -> anyhow::Result<()> {
        let start = self.random_key(rng);
        let len = 1 + rng.below(u64::from(self.cfg.scan_length.max(1))) as u32;
        let end = start.saturating_add(len).min(self.cfg.keys);
        let ops: Vec<(u32, Op)> = (start..end).map(|k| (k, Op::Delete)).collect();
        let keys: Vec<u32> = (start..end).collect();
        let mask = self.random_families(rng);
        let _g = self.lock(&keys);
        self.write(fams, &ops, mask, Shape::Range(start, end))?;
        self.counters.range_deletes.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    fn op_get(&self, fams: &[ColumnFamily], rng: &mut Rng) -> anyhow::Result<()> {
        let k = self.random_key(rng);
        let f = self.random_family(rng);
        let _g = self.lock(&[k]);
        // Every other get reads pinned (the value left in its block).
        let got = if f != 0 {
            self.db.get_cf(&fams[f], key_bytes(k))?
        } else if self.counters.gets.load(Ordering::Relaxed).is_multiple_of(2) {
            self.db.get(key_bytes(k))?
        } else {
            self.db
                .get_pinned(&ReadOptions::default(), &key_bytes(k))?
                .map(|v| v.into_vec())
        };
        self.check("get", f, k, &got);
        self.counters.gets.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    fn op_scan(&self, fams: &[ColumnFamily], rng: &mut Rng) -> anyhow::Result<()> {
        let start = self.random_key(rng);
        let len = 1 + rng.below(u64::from(self.cfg.scan_length.max(1))) as u32;
        let f = self.random_family(rng);
        let end = start.saturating_add(len).min(self.cfg.keys);
        let keys: Vec<u32> = (start..end).collect();
        let _g = self.lock(&keys);
        let ro = ReadOptions::default()
            .iterate_lower_bound(Some(key_bytes(start)))
            .iterate_upper_bound(Some(key_bytes(end)));
        let mut found: Vec<Option<Vec<u8>>> = vec![None; keys.len()];
        let mut prev: Option<Vec<u8>> = None;
        let iter = if f == 0 {
            self.db.iter_opt(&ro)
        } else {
            self.db.iter_cf(&fams[f], &ro)?
        };
        for item in iter {
            let (key, value) = item?;
            let idx = super::value::parse_key(&key)
                .filter(|&i| i >= start && i < end)
                .map(|i| (i - start) as usize);
            let Some(idx) = idx else {
                self.fail(format!(
                    "{}scan [key{start:08}, key{end:08}) returned {}",
                    self.family_label(f),
                    String::from_utf8_lossy(&key)
                ));
                return Ok(());
            };
            if prev.as_ref().is_some_and(|p| *p >= key) {
                self.fail(format!(
                    "{}scan out of order at {}",
                    self.family_label(f),
                    String::from_utf8_lossy(&key)
                ));
                return Ok(());
            }
            found[idx] = Some(value);
            prev = Some(key);
        }
        for (i, got) in found.iter().enumerate() {
            if !self.check("scan", f, start + i as u32, got) {
                break;
            }
        }
        self.counters.scans.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    fn op_snapshot(
        &self,
        fams: &[ColumnFamily],
        rng: &mut Rng,
        held: &mut Option<HeldSnapshot>,
    ) -> anyhow::Result<()> {
        match held.take() {
            None => {
                let keys: Vec<u32> = (0..4).map(|_| self.random_key(rng)).collect();
                let f = self.random_family(rng);
                let _g = self.lock(&keys);
                let snap = self.db.snapshot();
                let want = keys.iter().map(|&k| (k, self.held(f, k))).collect();
                *held = Some((snap, f, fams[f].clone(), want));
                self.counters
                    .snapshots_taken
                    .fetch_add(1, Ordering::Relaxed);
            }
            Some((snap, f, cf, want)) => {
                let ro = ReadOptions::default().snapshot(Some(snap));
                for (k, w) in want {
                    let got = if f == 0 {
                        self.db.get_opt(&ro, key_bytes(k))?
                    } else {
                        self.db.get_cf_opt(&cf, &ro, key_bytes(k))?
                    };
                    if !self.check_held("snapshot read", f, k, w, got.as_deref()) {
                        break;
                    }
                }
                self.counters.snapshot_reads.fetch_add(1, Ordering::Relaxed);
            }
        }
        Ok(())
    }

    /// Flushes every family and records that every write acknowledged
    /// before is durable.
    ///
    /// # Errors
    /// Flush or log errors.
    pub fn flush(&self) -> anyhow::Result<()> {
        let fams = self.families.read();
        self.flush_families(&fams)
    }

    fn flush_families(&self, fams: &[ColumnFamily]) -> anyhow::Result<()> {
        let before = self.log.len();
        if self.nfam == 1 {
            self.db.flush()?;
        } else {
            for cf in fams {
                self.db.flush_cf(cf)?;
            }
        }
        self.log.append(
            &[Record {
                kind: RecordKind::Flushed,
                synced: false,
                key: u32::MAX,
                version: 0,
                aux: before,
                families: 0,
            }],
            self.wopts.sync,
        )?;
        self.counters.flushes.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Drops a random family other than "default" and creates it again,
    /// with no other operation running; logged before and after. The
    /// family is empty afterwards.
    fn drop_and_recreate(&self, rng: &mut Rng) -> anyhow::Result<()> {
        let mut fams = self.families.write();
        let f = 1 + rng.below(self.nfam as u64 - 1) as usize;
        let name = self.cfg.family_names()[f].clone();
        let rec = |kind| Record {
            kind,
            synced: self.wopts.sync,
            key: u32::MAX,
            version: 0,
            aux: 0,
            families: 1 << f,
        };
        self.log
            .append(&[rec(RecordKind::DropStart)], self.wopts.sync)?;
        self.db.drop_column_family(&fams[f])?;
        fams[f] = self
            .db
            .create_column_family(&name, self.cfg.family_options(f)?)?;
        for k in 0..self.cfg.keys {
            self.slot(f, k).store(pack(0, false), Ordering::Release);
        }
        self.log
            .append(&[rec(RecordKind::DropAck)], self.wopts.sync)?;
        self.counters.drops.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// Takes a checkpoint with every other operation held, notes the
    /// expected state, and verifies the checkpoint against it while the
    /// others go on (`checkpoint.rs`).
    fn checkpoint(&self) -> anyhow::Result<()> {
        let n = self.counters.checkpoints.fetch_add(1, Ordering::Relaxed);
        let parent = checkpoint::dir_for(&self.cfg.db);
        std::fs::create_dir_all(&parent)?;
        let dir = parent.join(format!("{n}-{}", std::process::id()));
        let state: Vec<u64> = {
            let _held = self.families.write();
            self.db.create_checkpoint(&dir)?;
            self.state
                .iter()
                .map(|s| s.load(Ordering::Acquire))
                .collect()
        };
        let keys = self.cfg.keys as usize;
        let held = |f: usize, k: u32| {
            let s = state[f * keys + k as usize];
            (s & 1 == 1).then_some(s >> 1)
        };
        if let Some(v) = checkpoint::verify(&self.cfg, &self.codecs, &dir, held)? {
            self.fail(v);
        }
        Ok(())
    }

    fn one_op(&self, rng: &mut Rng, held: &mut Option<HeldSnapshot>) -> anyhow::Result<()> {
        let c = &self.cfg;
        if c.checkpoint_one_in > 0 && rng.below(c.checkpoint_one_in) == 0 {
            self.checkpoint()?;
        }
        if self.nfam > 1 && c.drop_cf_one_in() > 0 && rng.below(c.drop_cf_one_in()) == 0 {
            self.drop_and_recreate(rng)?;
        }
        let fams = self.families.read();
        let fams: &[ColumnFamily] = &fams;
        if c.flush_one_in > 0 && rng.below(c.flush_one_in) == 0 {
            self.flush_families(fams)?;
        }
        if c.compact_one_in > 0 && rng.below(c.compact_one_in) == 0 {
            let a = self.random_key(rng);
            let b = a.saturating_add(rng.below(1000) as u32).min(c.keys - 1);
            let (a, b) = (key_bytes(a), key_bytes(b));
            match self.random_family(rng) {
                0 => self.db.compact_range(Some(&a), Some(&b))?,
                f => self.db.compact_range_cf(&fams[f], Some(&a), Some(&b))?,
            }
        }
        let weights = [
            c.puts,
            c.deletes,
            c.batches,
            c.gets,
            c.scans,
            c.snapshots,
            c.merges,
            c.range_deletes,
        ];
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
            0 => self.op_put(fams, rng, false),
            1 => self.op_put(fams, rng, true),
            2 => self.op_batch(fams, rng),
            3 => self.op_get(fams, rng),
            4 => self.op_scan(fams, rng),
            5 => self.op_snapshot(fams, rng, held),
            6 => self.op_merge(fams, rng),
            _ => self.op_range_delete(fams, rng),
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
