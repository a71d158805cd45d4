//! Randomized model test: the DB against a `BTreeMap`.
//!
//! Each seed runs a random sequence of puts, deletes, merges (a string
//! append operator, with partial merges on even seeds), range deletions
//! (which the model applies as deletes of the range's live keys), atomic
//! batches, gets,
//! bounded forward/reverse scans, seeks with cursor moves in both
//! directions, snapshot reads (each snapshot keeps a clone of the model),
//! flushes, `compact_range`, clean reopens and simulated crashes through
//! [`FaultInjectionFs`].
//!
//! Crash rule: only writes acknowledged with `sync=true` (and everything
//! before them, and everything a returned `flush`/`compact_range` covered)
//! are guaranteed. After a crash the DB must equal the model as it was at
//! some point between the last such durable point and the last acknowledged
//! write: the durable state plus a prefix of the later writes.
//!
//! CI runs 5 seeds x 20,000 operations. Longer runs:
//! `STRATA_MODEL_SEEDS=1,2,3,4,5,6,7,8 STRATA_MODEL_OPS=200000 cargo test -p strata --test model -- --ignored --nocapture`

use strata_testkit as common;

use common::random::{self, key, model_range, Draws};
use common::{apply, check_read, dump, first_diff, lost_writes, show, Model, Ops};
use rand::Rng;
use strata::{Db, Options, ReadOptions, Snapshot, WriteBatch, WriteOptions};
use strata_testkit::fault::FaultInjectionFs;

/// One write of a step, before the model resolves merges.
#[derive(Debug, Clone)]
enum Op {
    Put(Vec<u8>, Vec<u8>),
    Delete(Vec<u8>),
    Merge(Vec<u8>, Vec<u8>),
    /// Deletes the keys in `[begin, end)`.
    DeleteRange(Vec<u8>, Vec<u8>),
}

/// `ops` as the model applies them to `m`: a merge becomes a put of the
/// value it leaves (the model's value so far, a `,`, the operand), so the
/// crash check can replay a prefix of the writes.
fn resolve(m: &Model, ops: &[Op]) -> Ops {
    let mut now: std::collections::BTreeMap<Vec<u8>, Option<Vec<u8>>> = Default::default();
    let mut out = Ops::new();
    for op in ops {
        if let Op::DeleteRange(b, e) = op {
            // A point deletion of every key of the range that holds a
            // value at this point of the writes.
            let mut keys: Vec<Vec<u8>> = m
                .range(b.clone()..)
                .take_while(|(k, _)| k.as_slice() < e.as_slice())
                .map(|(k, _)| k.clone())
                .collect();
            keys.extend(
                now.range(b.clone()..)
                    .take_while(|(k, _)| k.as_slice() < e.as_slice())
                    .map(|(k, _)| k.clone()),
            );
            keys.sort();
            keys.dedup();
            for k in keys {
                let live = match now.get(&k) {
                    Some(v) => v.is_some(),
                    None => m.contains_key(&k),
                };
                if live {
                    now.insert(k.clone(), None);
                    out.push((k, None));
                }
            }
            continue;
        }
        let (k, v) = match op {
            Op::Put(k, v) => (k.clone(), Some(v.clone())),
            Op::Delete(k) => (k.clone(), None),
            Op::DeleteRange(..) => unreachable!("handled above"),
            Op::Merge(k, operand) => {
                let old = match now.get(k) {
                    Some(v) => v.clone(),
                    None => m.get(k).cloned(),
                };
                let v = match old {
                    Some(mut v) => {
                        v.push(b',');
                        v.extend_from_slice(operand);
                        v
                    }
                    None => operand.clone(),
                };
                (k.clone(), Some(v))
            }
        };
        now.insert(k.clone(), v.clone());
        out.push((k, v));
    }
    out
}

/// Counts of what a run did, to show the test exercised what it claims.
#[derive(Debug, Default)]
struct Counts {
    writes: u64,
    merges: u64,
    range_deletes: u64,
    synced: u64,
    gets: u64,
    scans: u64,
    cursors: u64,
    snapshot_reads: u64,
    flushes: u64,
    compactions: u64,
    reopens: u64,
    crashes: u64,
    crash_lost_writes: u64,
}

struct Harness {
    d: Draws,
    dir: common::TempDir,
    fs: FaultInjectionFs,
    opts: Options,
    db: Option<Db>,
    model: Model,
    durable: Model,
    pending: Vec<Ops>,
    snaps: Vec<(Snapshot, Model)>,
    counts: Counts,
}

/// An engine configuration the model test runs under.
#[derive(Debug, Clone, Copy)]
enum Config {
    /// Leveled compaction, the small-buffer defaults.
    Leveled,
    /// Universal compaction.
    Universal,
    /// Leveled with up to 4 parallel subcompactions.
    Subcompactions,
    /// Universal with subcompactions.
    UniversalSubcompactions,
    /// Blob files on (a seed-chosen `min_blob_size`), GC on.
    Blob,
    /// Leveled with dynamic level sizes.
    DynamicLevels,
    /// Leveled with four jobs and no soft pending-bytes limit (so up to
    /// three compactions at once), a seed-chosen `compaction_pri`, and an
    /// odd-sized compaction read-ahead window.
    ParallelPri,
    /// Universal leaving young merges uncompressed
    /// (`compression_size_percent`), with a small read-ahead window.
    UniversalYoungUncompressed,
}

impl Config {
    fn apply(self, seed: u64, o: &mut strata::Options) {
        match self {
            Config::Leveled => {}
            Config::Universal => o.compaction_style = strata::CompactionStyle::Universal,
            Config::Subcompactions => o.max_subcompactions = 4,
            Config::UniversalSubcompactions => {
                o.compaction_style = strata::CompactionStyle::Universal;
                o.max_subcompactions = 3;
            }
            Config::Blob => {
                o.enable_blob_files = true;
                o.min_blob_size = [0, 16, 64, 1000][(seed % 4) as usize];
                o.blob_file_size = 128 << 10;
                o.enable_blob_garbage_collection = seed.is_multiple_of(2);
                o.blob_garbage_collection_age_cutoff = 0.5;
                o.blob_cache_size = if seed.is_multiple_of(3) { 0 } else { 1 << 20 };
            }
            Config::DynamicLevels => o.level_compaction_dynamic_level_bytes = true,
            Config::ParallelPri => {
                o.max_background_jobs = 4;
                o.soft_pending_compaction_bytes_limit = 0;
                o.compaction_pri = [
                    strata::CompactionPri::ByCompensatedSize,
                    strata::CompactionPri::OldestLargestSeqFirst,
                    strata::CompactionPri::OldestSmallestSeqFirst,
                    strata::CompactionPri::MinOverlappingRatio,
                ][(seed % 4) as usize];
                o.compaction_readahead_size = 5_000;
            }
            Config::UniversalYoungUncompressed => {
                o.compaction_style = strata::CompactionStyle::Universal;
                o.compaction_options_universal.compression_size_percent = 50;
                o.compaction_readahead_size = 12_000;
            }
        }
    }
}

impl Harness {
    fn new(seed: u64, config: Config) -> Self {
        let dir = common::tempdir();
        let fs = common::fault_fs();
        let mut opts = common::small_opts(std::sync::Arc::new(fs.clone()));
        opts.compression = common::compression(seed);
        if seed % 2 == 1 {
            opts.bloom_bits_per_key = 10.0;
        }
        // Every third seed reads its tables through memory maps.
        opts.allow_mmap_reads = seed % 3 == 2;
        // Another third has no memtable key filter or one so small that
        // most lookups pass it (the rest have the default filter).
        if seed % 3 == 1 {
            opts.memtable_prefix_bloom_size_ratio = [0.0, 0.002][(seed / 3 % 2) as usize];
        }
        config.apply(seed, &mut opts);
        // The value and the operands joined by `,`, as the model does;
        // odd seeds keep operands unmerged.
        opts.merge_operator = Some(common::merge::string_append(seed.is_multiple_of(2)));
        let db = Db::open(dir.path(), opts.clone()).unwrap();
        Harness {
            d: Draws::new(seed, 1500 + (seed % 4) as u32 * 500, 5_000..40_000),
            dir,
            fs,
            opts,
            db: Some(db),
            model: Model::new(),
            durable: Model::new(),
            pending: Vec::new(),
            snaps: Vec::new(),
            counts: Counts::default(),
        }
    }

    fn db(&self) -> &Db {
        self.db.as_ref().unwrap()
    }

    /// A key for a merge: often one of a few hot keys, so that operands
    /// pile up on them across memtables and levels.
    fn merge_key(&mut self) -> Vec<u8> {
        if self.d.rng.gen_bool(0.5) {
            key(self.d.rng.gen_range(0..40))
        } else {
            self.d.key()
        }
    }

    fn operand(&mut self) -> Vec<u8> {
        format!("m{}", self.d.step).into_bytes()
    }

    /// A range deletion between two random keys (sometimes empty, as the
    /// begin may not be below the end).
    fn delete_range_op(&mut self) -> Op {
        let a = self.d.key();
        let b = self.d.key();
        if self.d.rng.gen_ratio(1, 10) {
            Op::DeleteRange(a, b)
        } else {
            Op::DeleteRange(a.clone().min(b.clone()), a.max(b))
        }
    }

    fn write(&mut self, ops: Vec<Op>) {
        let sync = self.d.rng.gen_ratio(1, 20);
        let wo = WriteOptions::default().sync(sync).disable_wal(false);
        let ctx = self.d.ctx();
        let single = ops.len() == 1 && self.d.rng.gen_bool(0.9);
        let db = self.db();
        let r = if single {
            match &ops[0] {
                Op::Put(k, v) => db.put_opt(&wo, k, v),
                Op::Delete(k) => db.delete_opt(&wo, k),
                Op::Merge(k, v) => db.merge_opt(&wo, k, v),
                Op::DeleteRange(b, e) => {
                    let mut batch = WriteBatch::new();
                    batch.delete_range(b, e);
                    db.write_opt(&wo, batch)
                }
            }
        } else {
            let mut b = WriteBatch::new();
            for op in &ops {
                match op {
                    Op::Put(k, v) => b.put(k, v),
                    Op::Delete(k) => b.delete(k),
                    Op::Merge(k, v) => b.merge(k, v),
                    Op::DeleteRange(begin, end) => b.delete_range(begin, end),
                }
            }
            db.write_opt(&wo, b)
        };
        r.unwrap_or_else(|e| panic!("{ctx}: write failed: {e}"));
        self.counts.merges += ops.iter().filter(|o| matches!(o, Op::Merge(..))).count() as u64;
        self.counts.range_deletes += ops
            .iter()
            .filter(|o| matches!(o, Op::DeleteRange(..)))
            .count() as u64;
        let ops = resolve(&self.model, &ops);
        apply(&mut self.model, &ops);
        self.counts.writes += 1;
        if sync {
            self.counts.synced += 1;
            self.durable = self.model.clone();
            self.pending.clear();
        } else {
            self.pending.push(ops);
        }
    }

    fn op_get(&mut self) {
        let k = self.d.key();
        // Every other get reads pinned (no rng draw, so seeds replay as before).
        let got = if self.counts.gets.is_multiple_of(2) {
            self.db().get(&k)
        } else {
            self.db()
                .get_pinned(&ReadOptions::default(), &k)
                .map(|v| v.map(|v| v.into_vec()))
        };
        check_read(
            got,
            self.model.get(&k),
            &k,
            &format!("{}: get", self.d.ctx()),
        );
        self.counts.gets += 1;
    }

    /// A bounded scan (forward or reverse, maybe at a snapshot) compared with `m`.
    fn scan(&mut self, snap: Option<(Snapshot, Model)>) {
        let scan = self.d.scan();
        let (snapshot, m) = match snap {
            Some((s, m)) => (Some(s), m),
            None => (None, self.model.clone()),
        };
        let it = self.db().iter_opt(&scan.read_options(snapshot));
        scan.check(it, &m, &format!("{}: scan", self.d.ctx()));
        self.counts.scans += 1;
    }

    /// Seek or seek_for_prev, then random advance/retreat steps.
    fn cursor(&mut self) {
        let (lower, upper) = self.d.bounds();
        let use_snap = !self.snaps.is_empty() && self.d.rng.gen_bool(0.3);
        let (snapshot, m) = if use_snap {
            let i = self.d.rng.gen_range(0..self.snaps.len());
            (Some(self.snaps[i].0.clone()), self.snaps[i].1.clone())
        } else {
            (None, self.model.clone())
        };
        let ro = ReadOptions::default()
            .snapshot(snapshot)
            .iterate_lower_bound(lower.clone())
            .iterate_upper_bound(upper.clone());
        let entries = model_range(&m, &lower, &upper);
        let mut it = self.db().iter_opt(&ro);
        let target = self.d.key();
        // Position in `entries`; -1 or len = invalid.
        let mut pos: i64 = match self.d.rng.gen_range(0..4) {
            0 => {
                it.seek(&target);
                entries.partition_point(|(k, _)| k.as_slice() < target.as_slice()) as i64
            }
            1 => {
                it.seek_for_prev(&target);
                entries.partition_point(|(k, _)| k.as_slice() <= target.as_slice()) as i64 - 1
            }
            2 => {
                it.seek_to_first();
                0
            }
            _ => {
                it.seek_to_last();
                entries.len() as i64 - 1
            }
        };
        let desc = format!(
            "{}: cursor target={} lower={:?} upper={:?} snap={use_snap}",
            self.d.ctx(),
            show(&target),
            lower.as_deref().map(show),
            upper.as_deref().map(show)
        );
        for step in 0..self.d.rng.gen_range(1..12) {
            let want_valid = pos >= 0 && (pos as usize) < entries.len();
            assert_eq!(
                it.valid(),
                want_valid,
                "{desc} move {step}: valid (status {:?})",
                it.status()
            );
            if !want_valid {
                break;
            }
            let (wk, wv) = entries[pos as usize];
            assert_eq!(it.key(), wk.as_slice(), "{desc} move {step}: key");
            assert_eq!(it.value(), wv.as_slice(), "{desc} move {step}: value");
            if self.d.rng.gen_bool(0.6) {
                it.advance();
                pos += 1;
            } else {
                it.retreat();
                pos -= 1;
            }
        }
        it.status().unwrap_or_else(|e| panic!("{desc}: status {e}"));
        self.counts.cursors += 1;
    }

    fn snapshot_op(&mut self) {
        let db = self.db.as_ref().unwrap();
        random::take_or_release(&mut self.d.rng, &mut self.snaps, 4, db, &self.model);
    }

    fn snapshot_read(&mut self) {
        let Some((s, m)) = random::pick(&mut self.d.rng, &self.snaps) else {
            return;
        };
        if self.d.rng.gen_bool(0.7) {
            for _ in 0..5 {
                let k = self.d.key();
                let ro = ReadOptions::default().snapshot(Some(s.clone()));
                let got = self.db().get_opt(&ro, &k);
                check_read(
                    got,
                    m.get(&k),
                    &k,
                    &format!("{}: snapshot get", self.d.ctx()),
                );
            }
        } else {
            self.scan(Some((s, m)));
        }
        self.counts.snapshot_reads += 1;
    }

    fn became_durable(&mut self) {
        self.durable = self.model.clone();
        self.pending.clear();
    }

    fn check_full(&self, what: &str) {
        let got = dump(self.db()).unwrap_or_else(|e| panic!("{}: {what}: dump: {e}", self.d.ctx()));
        assert!(
            got == self.model,
            "{}: {what}: DB differs from model: {}",
            self.d.ctx(),
            first_diff(&got, &self.model)
        );
    }

    fn reopen(&mut self) {
        self.snaps.clear();
        self.db = None;
        self.db = Some(
            Db::open(self.dir.path(), self.opts.clone())
                .unwrap_or_else(|e| panic!("{}: reopen: {e}", self.d.ctx())),
        );
        self.check_full("after reopen");
        // Recovery writes the replayed WAL into synced tables.
        self.became_durable();
        self.counts.reopens += 1;
    }

    fn crash(&mut self) {
        self.snaps.clear();
        let db = self.db.take();
        let how = random::crash(&self.fs, &mut self.d.rng, || drop(db));
        let what = format!("{}: after crash ({how})", self.d.ctx());
        let db = Db::open(self.dir.path(), self.opts.clone())
            .unwrap_or_else(|e| panic!("{what}: open failed: {e}"));
        let got = dump(&db).unwrap_or_else(|e| panic!("{what}: dump: {e}"));
        self.counts.crash_lost_writes +=
            lost_writes(&got, &self.durable, &self.pending, &self.model, &what) as u64;
        self.model = got;
        self.db = Some(db);
        self.became_durable();
        self.counts.crashes += 1;
    }

    fn step_once(&mut self) {
        self.d.step += 1;
        let r = self.d.rng.gen_range(0..1000);
        match r {
            0..=229 => {
                let k = self.d.key();
                let v = self.d.value();
                self.write(vec![Op::Put(k, v)]);
            }
            230..=299 => {
                let k = self.merge_key();
                let v = self.operand();
                self.write(vec![Op::Merge(k, v)]);
            }
            300..=359 => {
                let k = self.d.key();
                self.write(vec![Op::Delete(k)]);
            }
            360..=379 => {
                let op = self.delete_range_op();
                self.write(vec![op]);
            }
            380..=449 => {
                let n = self.d.rng.gen_range(1..20);
                let mut ops: Vec<Op> = Vec::new();
                for _ in 0..n {
                    let k = if !ops.is_empty() && self.d.rng.gen_ratio(1, 8) {
                        match &ops[self.d.rng.gen_range(0..ops.len())] {
                            Op::Put(k, _)
                            | Op::Delete(k)
                            | Op::Merge(k, _)
                            | Op::DeleteRange(k, _) => k.clone(),
                        }
                    } else {
                        self.d.key()
                    };
                    let op = match self.d.rng.gen_range(0..9) {
                        0..=3 => Op::Put(k, self.d.value()),
                        4..=5 => Op::Delete(k),
                        6..=7 => Op::Merge(k, self.operand()),
                        _ => self.delete_range_op(),
                    };
                    ops.push(op);
                }
                self.write(ops);
            }
            450..=649 => self.op_get(),
            650..=719 => self.scan(None),
            720..=779 => self.cursor(),
            780..=809 => self.snapshot_op(),
            810..=869 => self.snapshot_read(),
            870..=874 => {
                let ctx = self.d.ctx();
                self.db()
                    .flush()
                    .unwrap_or_else(|e| panic!("{ctx}: flush: {e}"));
                self.became_durable();
                self.counts.flushes += 1;
            }
            875..=877 => {
                let ctx = self.d.ctx();
                let (a, b) = self.d.compact_range();
                self.db()
                    .compact_range(a.as_deref(), b.as_deref())
                    .unwrap_or_else(|e| panic!("{ctx}: compact_range: {e}"));
                self.became_durable();
                self.counts.compactions += 1;
                if self.d.rng.gen_bool(0.3) {
                    self.check_full("after compact_range");
                }
            }
            878..=879 => self.reopen(),
            880..=882 => self.crash(),
            _ => self.op_get(),
        }
    }
}

fn run(seed: u64, ops: u64) {
    run_config(seed, ops, Config::Leveled);
}

fn run_config(seed: u64, ops: u64, config: Config) {
    let t = std::time::Instant::now();
    let mut h = Harness::new(seed, config);
    for _ in 0..ops {
        h.step_once();
    }
    h.db().wait_for_compaction().unwrap();
    h.check_full("at the end");
    h.reopen();
    println!(
        "model seed {seed} ({config:?}): {ops} operations in {:.1}s: {:?}",
        t.elapsed().as_secs_f64(),
        h.counts
    );
    let c = &h.counts;
    // The run must have exercised every kind of step.
    assert!(c.crashes > 0 && c.reopens > 0 && c.flushes > 0 && c.compactions > 0);
    assert!(c.scans > 0 && c.cursors > 0 && c.snapshot_reads > 0 && c.synced > 0);
    assert!(c.merges > 0);
    assert!(c.range_deletes > 0);
}

#[test]
fn model_seed_1() {
    run(1, 20_000);
}

#[test]
fn model_seed_2() {
    run(2, 20_000);
}

#[test]
fn model_seed_3() {
    run(3, 20_000);
}

#[test]
fn model_seed_4() {
    run(4, 20_000);
}

#[test]
fn model_seed_5() {
    run(5, 20_000);
}

#[test]
fn model_universal() {
    run_config(6, 15_000, Config::Universal);
}

#[test]
fn model_subcompactions() {
    run_config(7, 15_000, Config::Subcompactions);
}

#[test]
fn model_universal_subcompactions() {
    run_config(8, 15_000, Config::UniversalSubcompactions);
}

#[test]
fn model_blob_files() {
    run_config(9, 15_000, Config::Blob);
    run_config(10, 15_000, Config::Blob);
}

#[test]
fn model_dynamic_levels() {
    run_config(11, 15_000, Config::DynamicLevels);
}

#[test]
fn model_parallel_compactions_and_priorities() {
    run_config(12, 10_000, Config::ParallelPri);
    run_config(13, 10_000, Config::ParallelPri);
}

#[test]
fn model_universal_young_uncompressed() {
    run_config(14, 10_000, Config::UniversalYoungUncompressed);
}

/// Long run: seeds from `STRATA_MODEL_SEEDS` (comma-separated), operations
/// per seed from `STRATA_MODEL_OPS`.
#[test]
#[ignore = "long run; see the file's doc comment for the command"]
fn model_long() {
    let ops = common::env_u64("STRATA_MODEL_OPS", 200_000);
    let configs = [
        Config::Leveled,
        Config::Universal,
        Config::Subcompactions,
        Config::UniversalSubcompactions,
        Config::Blob,
        Config::DynamicLevels,
        Config::ParallelPri,
        Config::UniversalYoungUncompressed,
    ];
    for seed in common::env_list("STRATA_MODEL_SEEDS", &[11, 12, 13, 14, 15, 16, 17, 18]) {
        for c in configs {
            run_config(seed, ops, c);
        }
    }
}
