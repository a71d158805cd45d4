//! Randomized model test of column families: the DB against a model
//! `BTreeMap<family name, BTreeMap<key, value>>`.
//!
//! Each seed starts with "default" and three created families with
//! different options (leveled with small buffers, universal compaction
//! with smaller ones, and one with a bloom filter and compression), then
//! runs a random sequence of puts, deletes, merges (the built-in
//! `stringappend` operator in every family) and range deletions in one
//! family, batches in one family, batches across families (merges and
//! range deletions among their puts and deletes), gets, bounded scans (forward and
//! reverse), full scans, snapshot reads across families, `flush_cf`,
//! `compact_range_cf`, drops and creates of families (a dropped name comes
//! back empty), clean reopens (`open_cf` with every family
//! `Db::list_column_families` names) and simulated crashes through
//! [`FaultInjectionFs`].
//!
//! Crash rule: only writes acknowledged with `sync=true` and everything
//! before them are guaranteed; so is everything before a returned
//! `flush_cf`/`compact_range_cf` of a family the last write touched (its
//! memtable then holds data, the flush switches it to a new WAL, and with
//! several families the flush syncs the closed WALs). After a crash every
//! family must equal the model at one common point between the last such
//! durable point and the last acknowledged write: the durable state plus a
//! prefix of the later writes, the same prefix for all families (a batch
//! across families is there whole or not at all). A create or drop is
//! durable when it returns (its MANIFEST edit is synced) but does not sync
//! the WAL: after a crash the families are those of the model; a created
//! family holds a prefix of the writes made to it, and a dropped one's
//! pending writes leave the rule. Half of the creates and drops are
//! preceded by a synced write of a marker key in "default", which makes
//! them durable points of the writes too.
//!
//! The default run is 3 seeds x 8,000 operations. Longer runs:
//! `STRATA_MODEL_SEEDS=1,2,3,4,5,6,7,8 STRATA_MODEL_OPS=100000 cargo test -p strata --test model_families -- --nocapture`

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rand::Rng;
use strata::fs::FileSystem;
use strata::{
    ColumnFamily, CompactionStyle, Db, Error, Options, ReadOptions, Snapshot, WriteBatch,
    WriteOptions,
};
use strata_testkit::fault::FaultInjectionFs;
use strata_testkit::random::{self, key, Draws};
use strata_testkit::{self as common, check_read, first_diff, lost_writes, show, Model, Ops};

/// The model: family name to its keys and values.
type Families = BTreeMap<String, Model>;

/// One logical write across families as the model applies it: `(family,
/// key, Some(value) | None)`.
type CfOps = Vec<(String, Vec<u8>, Option<Vec<u8>>)>;

/// One operation of a write as the DB receives it.
#[derive(Clone, Debug)]
enum CfWrite {
    Put(String, Vec<u8>, Vec<u8>),
    Delete(String, Vec<u8>),
    /// A `stringappend` operand.
    Merge(String, Vec<u8>, Vec<u8>),
    /// The keys in `[begin, end)`.
    DeleteRange(String, Vec<u8>, Vec<u8>),
}

impl CfWrite {
    fn family(&self) -> &str {
        match self {
            CfWrite::Put(f, ..)
            | CfWrite::Delete(f, _)
            | CfWrite::Merge(f, ..)
            | CfWrite::DeleteRange(f, ..) => f,
        }
    }
}

/// `writes` in order as puts and deletes of `model`'s state, which they
/// update: a merge becomes a put of the old value and the operand joined by
/// `,` (the operand alone on an absent key), a range deletion a delete of
/// each key the family holds in the range. A prefix of these applied to the
/// state before the write equals a prefix of the write, which is what the
/// crash rule compares.
fn resolve(model: &mut Families, writes: &[CfWrite]) -> CfOps {
    let mut out = CfOps::new();
    for w in writes {
        let m = model
            .get_mut(w.family())
            .expect("write to a family the model lacks");
        match w {
            CfWrite::Put(f, k, v) => {
                m.insert(k.clone(), v.clone());
                out.push((f.clone(), k.clone(), Some(v.clone())));
            }
            CfWrite::Delete(f, k) => {
                m.remove(k);
                out.push((f.clone(), k.clone(), None));
            }
            CfWrite::Merge(f, k, operand) => {
                let v = match m.get(k) {
                    Some(old) => [old.as_slice(), b",", operand].concat(),
                    None => operand.clone(),
                };
                m.insert(k.clone(), v.clone());
                out.push((f.clone(), k.clone(), Some(v)));
            }
            CfWrite::DeleteRange(f, begin, end) => {
                let gone: Vec<Vec<u8>> = if begin < end {
                    m.range::<Vec<u8>, _>(begin.clone()..end.clone())
                        .map(|(k, _)| k.clone())
                        .collect()
                } else {
                    Vec::new()
                };
                for k in gone {
                    m.remove(&k);
                    out.push((f.clone(), k, None));
                }
            }
        }
    }
    out
}

const DEFAULT: &str = "default";

/// The names families are created under (a dropped one is created again).
const NAMES: [&str; 5] = ["hot", "uni", "cold", "spare", "extra"];

/// At most this many families (default included) are live at once.
const MAX_FAMILIES: usize = 5;

/// The key a synced write sets in "default" before a create or drop.
const MARKER: &[u8] = b"~marker";

/// The options a family is created with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Profile {
    /// Leveled compaction on [`common::small_opts`].
    Small,
    /// Universal compaction with a 32 KiB write buffer.
    Universal,
    /// A bloom filter, the seed's compression, a 128 KiB write buffer and
    /// a later L0 trigger.
    Bloom,
}

const PROFILES: [Profile; 3] = [Profile::Small, Profile::Universal, Profile::Bloom];

/// Counts of what a run did, to show the test exercised what it claims.
#[derive(Debug, Default)]
struct Counts {
    writes: u64,
    synced: u64,
    merges: u64,
    range_deletes: u64,
    mixed_batches: u64,
    single_family_batches: u64,
    cross_family_batches: u64,
    gets: u64,
    scans: u64,
    full_scans: u64,
    snapshot_reads: u64,
    flushes: u64,
    durable_flushes: u64,
    compactions: u64,
    creates: u64,
    recreates: u64,
    drops: u64,
    /// Creates and drops with unsynced writes before them.
    unsynced_creates_drops: u64,
    /// The deepest level holding a table seen after a flush or compaction.
    deepest_level: u64,
    refused_writes_to_dropped: u64,
    reopens: u64,
    crashes: u64,
    crash_lost_writes: u64,
}

struct Harness {
    d: Draws,
    dir: common::TempDir,
    fs: FaultInjectionFs,
    shared: Arc<dyn FileSystem>,
    db: Option<Db>,
    /// Live families and the options they were created with.
    profiles: BTreeMap<String, Profile>,
    /// Handles of the live families of the open DB.
    handles: BTreeMap<String, ColumnFamily>,
    model: Families,
    durable: Families,
    pending: Vec<CfOps>,
    /// Families the last acknowledged write touched (cleared by flushes,
    /// reopens and crashes).
    last_write: BTreeSet<String>,
    /// Snapshots with the model of each family live when they were taken.
    snaps: Vec<(Snapshot, Families)>,
    /// Names dropped at least once.
    dropped: BTreeSet<String>,
    counts: Counts,
}

/// A key of the flattened model: the family name, a NUL (no family name
/// holds one), the key.
fn flat_key(family: &str, key: &[u8]) -> Vec<u8> {
    let mut k = family.as_bytes().to_vec();
    k.push(0);
    k.extend_from_slice(key);
    k
}

/// Every family's entries in one [`Model`], so that the single-family
/// helpers (`matching_prefix`, `first_diff`) check all families at once.
fn flatten(f: &Families) -> Model {
    f.iter()
        .flat_map(|(name, m)| m.iter().map(move |(k, v)| (flat_key(name, k), v.clone())))
        .collect()
}

fn flat_ops(ops: &CfOps) -> Ops {
    ops.iter()
        .map(|(f, k, v)| (flat_key(f, k), v.clone()))
        .collect()
}

/// Every key and value of family `cf`, by forward iteration.
fn dump_cf(db: &Db, cf: &ColumnFamily) -> strata::Result<Model> {
    let mut m = Model::new();
    for r in db.iter_cf(cf, &ReadOptions::default())? {
        let (k, v) = r?;
        m.insert(k, v);
    }
    Ok(m)
}

impl Harness {
    fn new(seed: u64) -> Self {
        let dir = common::tempdir();
        let fs = common::fault_fs();
        let shared: Arc<dyn FileSystem> = Arc::new(fs.clone());
        let mut h = Harness {
            d: Draws::new(seed, 800 + (seed % 4) as u32 * 300, 3_000..20_000),
            dir,
            fs,
            shared,
            db: None,
            profiles: BTreeMap::new(),
            handles: BTreeMap::new(),
            model: Families::new(),
            durable: Families::new(),
            pending: Vec::new(),
            last_write: BTreeSet::new(),
            snaps: Vec::new(),
            dropped: BTreeSet::new(),
            counts: Counts::default(),
        };
        h.profiles.insert(DEFAULT.into(), Profile::Small);
        h.model.insert(DEFAULT.into(), Model::new());
        let db = Db::open(h.dir.path(), h.options(Profile::Small)).unwrap();
        h.db = Some(db);
        h.refresh_handles();
        for (name, p) in [
            ("hot", Profile::Small),
            ("uni", Profile::Universal),
            ("cold", Profile::Bloom),
        ] {
            h.create(name, p);
        }
        h
    }

    /// The options of a family of profile `p` (for "default", the DB's).
    fn options(&self, p: Profile) -> Options {
        let mut o = common::small_opts(self.shared.clone())
            .merge_operator(strata::merge::builtin("stringappend"));
        match p {
            Profile::Small => {}
            Profile::Universal => {
                o.compaction_style = CompactionStyle::Universal;
                o.write_buffer_size = 32 << 10;
            }
            Profile::Bloom => {
                o.bloom_bits_per_key = 10.0;
                o.compression = common::compression(self.d.seed);
                o.write_buffer_size = 128 << 10;
                o.level0_file_num_compaction_trigger = 4;
            }
        }
        o
    }

    fn db(&self) -> &Db {
        self.db.as_ref().unwrap()
    }

    fn cf(&self, name: &str) -> ColumnFamily {
        self.handles
            .get(name)
            .unwrap_or_else(|| panic!("{}: no handle of {name}", self.d.ctx()))
            .clone()
    }

    /// Reloads the handles from the DB; checks its live families are the
    /// model's.
    fn refresh_handles(&mut self) {
        let db = self.db.as_ref().unwrap();
        self.handles = db
            .column_families()
            .into_iter()
            .map(|c| (c.name().to_string(), c))
            .collect();
        let live: Vec<&String> = self.handles.keys().collect();
        let want: Vec<&String> = self.model.keys().collect();
        assert_eq!(live, want, "{}: live families", self.d.ctx());
        let default = db.default_column_family();
        assert_eq!((default.id(), default.name()), (0, DEFAULT));
    }

    fn rand_family(&mut self) -> String {
        let names: Vec<&String> = self.model.keys().collect();
        names[self.d.rng.gen_range(0..names.len())].clone()
    }

    fn write(&mut self, ops: CfOps) {
        let sync = self.d.rng.gen_ratio(1, 20);
        self.write_with(ops, sync);
    }

    /// Writes `ops` (puts and deletes) as [`Harness::write_ops`] does.
    fn write_with(&mut self, ops: CfOps, sync: bool) {
        let writes = ops
            .into_iter()
            .map(|(f, k, v)| match v {
                Some(v) => CfWrite::Put(f, k, v),
                None => CfWrite::Delete(f, k),
            })
            .collect();
        self.write_ops(writes, sync);
    }

    /// Writes `writes` (one operation through the single-key calls, or a
    /// batch) and applies their resolution to the model.
    fn write_ops(&mut self, writes: Vec<CfWrite>, sync: bool) {
        let wo = WriteOptions::default().sync(sync).disable_wal(false);
        let ctx = self.d.ctx();
        let single = writes.len() == 1 && !sync && self.d.rng.gen_bool(0.9);
        let plain_default = self.d.rng.gen_bool(0.3);
        let db = self.db();
        let plain = |f: &str| f == DEFAULT && plain_default;
        let r = if single {
            let w = &writes[0];
            let cf = self.cf(w.family());
            match w {
                CfWrite::Put(f, k, v) if plain(f) => db.put(k, v),
                CfWrite::Delete(f, k) if plain(f) => db.delete(k),
                CfWrite::Merge(f, k, v) if plain(f) => db.merge(k, v),
                CfWrite::DeleteRange(f, b, e) if plain(f) => db.delete_range(b, e),
                CfWrite::Put(_, k, v) => db.put_cf(&cf, k, v),
                CfWrite::Delete(_, k) => db.delete_cf(&cf, k),
                CfWrite::Merge(_, k, v) => db.merge_cf(&cf, k, v),
                CfWrite::DeleteRange(_, b, e) => db.delete_range_cf(&cf, b, e),
            }
        } else {
            let mut b = WriteBatch::new();
            for w in &writes {
                match w {
                    CfWrite::Put(f, k, v) if plain(f) => b.put(k, v),
                    CfWrite::Merge(f, k, v) if plain(f) => b.merge(k, v),
                    CfWrite::DeleteRange(f, x, y) if plain(f) => b.delete_range(x, y),
                    CfWrite::Put(f, k, v) => b.put_cf(&self.cf(f), k, v),
                    CfWrite::Delete(f, k) => b.delete_cf(&self.cf(f), k),
                    CfWrite::Merge(f, k, v) => b.merge_cf(&self.cf(f), k, v),
                    CfWrite::DeleteRange(f, x, y) => b.delete_range_cf(&self.cf(f), x, y),
                }
            }
            db.write_opt(&wo, b)
        };
        r.unwrap_or_else(|e| panic!("{ctx}: write failed: {e}"));
        let ops = resolve(&mut self.model, &writes);
        self.last_write = writes.iter().map(|w| w.family().to_string()).collect();
        self.counts.writes += 1;
        self.counts.merges += writes
            .iter()
            .filter(|w| matches!(w, CfWrite::Merge(..)))
            .count() as u64;
        self.counts.range_deletes += writes
            .iter()
            .filter(|w| matches!(w, CfWrite::DeleteRange(..)))
            .count() as u64;
        if sync {
            self.counts.synced += 1;
            self.became_durable();
        } else {
            self.pending.push(ops);
        }
    }

    /// A merge operand: short, and naming the step that wrote it.
    fn rand_operand(&mut self) -> Vec<u8> {
        format!("m{}.{}", self.d.step, self.d.rng.gen_range(0..100)).into_bytes()
    }

    /// A range of up to 40 keys of the key space, sometimes empty or
    /// reversed (which deletes nothing).
    fn rand_range(&mut self) -> (Vec<u8>, Vec<u8>) {
        let a = self.d.rng.gen_range(0..self.d.nkeys);
        let b = if self.d.rng.gen_ratio(1, 10) {
            a.saturating_sub(self.d.rng.gen_range(0..3))
        } else {
            a + self.d.rng.gen_range(1..40)
        };
        (key(a), key(b))
    }

    /// One merge or range deletion in one family.
    fn op_merge_or_delete_range(&mut self, range: bool) {
        let f = self.rand_family();
        let w = if range {
            let (b, e) = self.rand_range();
            CfWrite::DeleteRange(f, b, e)
        } else {
            let k = if self.d.rng.gen_bool(0.5) {
                key(self.d.rng.gen_range(0..20))
            } else {
                self.d.key()
            };
            CfWrite::Merge(f, k, self.rand_operand())
        };
        let sync = self.d.rng.gen_ratio(1, 20);
        self.write_ops(vec![w], sync);
    }

    /// A batch over one to three families mixing puts, deletes, merges and
    /// range deletions.
    fn op_mixed_batch(&mut self) {
        let mut writes = Vec::new();
        for _ in 0..self.d.rng.gen_range(2..12) {
            let f = self.rand_family();
            let w = match self.d.rng.gen_range(0..10) {
                0..=3 => {
                    let k = self.d.key();
                    CfWrite::Put(f, k, self.d.value())
                }
                4 => CfWrite::Delete(f, self.d.key()),
                5..=7 => {
                    let k = key(self.d.rng.gen_range(0..20));
                    CfWrite::Merge(f, k, self.rand_operand())
                }
                _ => {
                    let (b, e) = self.rand_range();
                    CfWrite::DeleteRange(f, b, e)
                }
            };
            writes.push(w);
        }
        let sync = self.d.rng.gen_ratio(1, 20);
        self.write_ops(writes, sync);
        self.counts.mixed_batches += 1;
    }

    fn became_durable(&mut self) {
        self.durable = self.model.clone();
        self.pending.clear();
    }

    fn op_put_or_delete(&mut self, delete: bool) {
        let f = self.rand_family();
        let k = self.d.key();
        let v = (!delete).then(|| self.d.value());
        self.write(vec![(f, k, v)]);
    }

    fn op_batch_one_family(&mut self) {
        let f = self.rand_family();
        let n = self.d.rng.gen_range(2..16);
        let mut ops = CfOps::new();
        for _ in 0..n {
            let k = if !ops.is_empty() && self.d.rng.gen_ratio(1, 8) {
                ops[self.d.rng.gen_range(0..ops.len())].1.clone()
            } else {
                self.d.key()
            };
            let v = self.d.rng.gen_bool(0.75).then(|| self.d.value());
            ops.push((f.clone(), k, v));
        }
        self.write(ops);
        self.counts.single_family_batches += 1;
    }

    /// A batch over 2 to 4 families; sometimes the same key and value in
    /// each (as a stress test's mirrored batch), otherwise random keys.
    fn op_batch_across_families(&mut self) {
        if self.model.len() < 2 {
            return self.op_batch_one_family();
        }
        let mut fams: Vec<String> = self.model.keys().cloned().collect();
        let want = self.d.rng.gen_range(2..=fams.len().min(4));
        while fams.len() > want {
            let i = self.d.rng.gen_range(0..fams.len());
            fams.swap_remove(i);
        }
        let mut ops = CfOps::new();
        if self.d.rng.gen_bool(0.3) {
            let k = self.d.key();
            let v = self.d.rng.gen_bool(0.8).then(|| self.d.value());
            for f in &fams {
                ops.push((f.clone(), k.clone(), v.clone()));
            }
        } else {
            // Every chosen family at least once, then random ones.
            for f in &fams {
                let k = self.d.key();
                let v = self.d.rng.gen_bool(0.75).then(|| self.d.value());
                ops.push((f.clone(), k, v));
            }
            for _ in 0..self.d.rng.gen_range(0..10) {
                let f = fams[self.d.rng.gen_range(0..fams.len())].clone();
                let k = if self.d.rng.gen_ratio(1, 6) {
                    ops[self.d.rng.gen_range(0..ops.len())].1.clone()
                } else {
                    self.d.key()
                };
                let v = self.d.rng.gen_bool(0.75).then(|| self.d.value());
                ops.push((f, k, v));
            }
            // Shuffle, so families interleave in the batch.
            for i in (1..ops.len()).rev() {
                let j = self.d.rng.gen_range(0..=i);
                ops.swap(i, j);
            }
        }
        self.write(ops);
        self.counts.cross_family_batches += 1;
    }

    fn op_get(&mut self) {
        let f = self.rand_family();
        let k = self.d.key();
        let cf = self.cf(&f);
        let got = if f == DEFAULT && self.d.rng.gen_bool(0.3) {
            self.db().get(&k)
        } else {
            self.db().get_cf(&cf, &k)
        };
        let what = format!("{}: get {f}", self.d.ctx());
        check_read(got, self.model[&f].get(&k), &k, &what);
        self.counts.gets += 1;
    }

    /// A bounded scan of family `f` (forward or reverse, maybe at a
    /// snapshot) compared with `m`.
    fn scan_family(&mut self, f: &str, snapshot: Option<Snapshot>, m: &Model) {
        let scan = self.d.scan();
        let cf = self.cf(f);
        let it = self
            .db()
            .iter_cf(&cf, &scan.read_options(snapshot))
            .unwrap_or_else(|e| panic!("{}: iter_cf {f}: {e}", self.d.ctx()));
        scan.check(it, m, &format!("{}: scan {f}", self.d.ctx()));
        self.counts.scans += 1;
    }

    fn op_scan(&mut self) {
        let f = self.rand_family();
        let m = self.model[&f].clone();
        self.scan_family(&f, None, &m);
    }

    fn check_family(&self, f: &str, what: &str) {
        let got = dump_cf(self.db(), &self.cf(f))
            .unwrap_or_else(|e| panic!("{}: {what}: dump {f}: {e}", self.d.ctx()));
        assert!(
            got == self.model[f],
            "{}: {what}: family {f} differs from the model: {}",
            self.d.ctx(),
            first_diff(&got, &self.model[f])
        );
    }

    fn op_full_scan(&mut self) {
        let f = self.rand_family();
        self.check_family(&f, "full scan");
        self.counts.full_scans += 1;
    }

    fn check_all(&self, what: &str) {
        for f in self.model.keys() {
            self.check_family(f, what);
        }
    }

    fn op_snapshot(&mut self) {
        let db = self.db.as_ref().unwrap();
        random::take_or_release(&mut self.d.rng, &mut self.snaps, 3, db, &self.model);
    }

    /// Reads at a snapshot: gets in every family it covers, or a scan of
    /// one; a snapshot is one point for all families.
    fn op_snapshot_read(&mut self) {
        let Some((s, fams)) = random::pick(&mut self.d.rng, &self.snaps) else {
            return;
        };
        if fams.is_empty() {
            return;
        }
        if self.d.rng.gen_bool(0.6) {
            for (f, m) in &fams {
                let cf = self.cf(f);
                for _ in 0..3 {
                    let k = self.d.key();
                    let ro = ReadOptions::default().snapshot(Some(s.clone()));
                    let got = self.db().get_cf_opt(&cf, &ro, &k);
                    let what = format!("{}: snapshot get {f}", self.d.ctx());
                    check_read(got, m.get(&k), &k, &what);
                }
            }
        } else {
            let names: Vec<&String> = fams.keys().collect();
            let f = names[self.d.rng.gen_range(0..names.len())].clone();
            self.scan_family(&f, Some(s), &fams[&f]);
        }
        self.counts.snapshot_reads += 1;
    }

    /// `flush_cf` or `compact_range_cf` of a family, mostly one the last
    /// write touched. Then it is a durable point: the flush switched a
    /// memtable holding data to a new WAL.
    fn op_flush_or_compact(&mut self, compact: bool) {
        let f = if !self.last_write.is_empty() && self.d.rng.gen_bool(0.7) {
            let v: Vec<&String> = self.last_write.iter().collect();
            v[self.d.rng.gen_range(0..v.len())].clone()
        } else {
            self.rand_family()
        };
        let cf = self.cf(&f);
        let ctx = self.d.ctx();
        if compact {
            let (a, b) = self.d.compact_range();
            self.db()
                .compact_range_cf(&cf, a.as_deref(), b.as_deref())
                .unwrap_or_else(|e| panic!("{ctx}: compact_range_cf {f}: {e}"));
            self.counts.compactions += 1;
        } else {
            self.db()
                .flush_cf(&cf)
                .unwrap_or_else(|e| panic!("{ctx}: flush_cf {f}: {e}"));
            self.counts.flushes += 1;
        }
        let deepest = (0..7u64)
            .filter(|l| {
                self.db()
                    .property_cf(&cf, &format!("rocksdb.num-files-at-level{l}"))
                    .is_some_and(|n| n != "0")
            })
            .max()
            .unwrap_or(0);
        self.counts.deepest_level = self.counts.deepest_level.max(deepest);
        if self.last_write.contains(&f) {
            self.became_durable();
            self.last_write.clear();
            self.counts.durable_flushes += 1;
        }
        if self.d.rng.gen_bool(0.3) {
            self.check_family(&f, "after flush or compaction");
        }
    }

    /// A synced write of the marker key in "default": makes what came
    /// before durable, so that a create or drop after it is a durable point.
    fn synced_marker(&mut self) {
        let v = format!("{}", self.d.step).into_bytes();
        self.write_with(vec![(DEFAULT.into(), MARKER.to_vec(), Some(v))], true);
    }

    /// Creates family `name` (live in the model afterwards, empty).
    fn create(&mut self, name: &str, p: Profile) {
        let opts = self.options(p);
        let ctx = self.d.ctx();
        let cf = self
            .db()
            .create_column_family(name, opts)
            .unwrap_or_else(|e| panic!("{ctx}: create {name}: {e}"));
        assert_eq!(cf.name(), name);
        self.profiles.insert(name.into(), p);
        self.model.insert(name.into(), Model::new());
        self.durable.insert(name.into(), Model::new());
        self.refresh_handles();
        // A name created again starts empty.
        self.check_family(name, "after create");
        self.counts.creates += 1;
    }

    fn op_create(&mut self) {
        if self.model.len() >= MAX_FAMILIES {
            return self.op_drop();
        }
        let free: Vec<&str> = NAMES
            .iter()
            .copied()
            .filter(|n| !self.model.contains_key(*n))
            .collect();
        // Mostly a name dropped before: it must come back empty.
        let again: Vec<&str> = free
            .iter()
            .copied()
            .filter(|n| self.dropped.contains(*n))
            .collect();
        let name = if !again.is_empty() && self.d.rng.gen_bool(0.7) {
            again[self.d.rng.gen_range(0..again.len())]
        } else {
            free[self.d.rng.gen_range(0..free.len())]
        };
        let p = PROFILES[self.d.rng.gen_range(0..PROFILES.len())];
        if self.d.rng.gen_bool(0.5) {
            self.synced_marker();
        } else if !self.pending.is_empty() {
            self.counts.unsynced_creates_drops += 1;
        }
        if self.dropped.contains(name) {
            self.counts.recreates += 1;
        }
        self.create(name, p);
        // An existing name is refused.
        let e = self
            .db()
            .create_column_family(name, self.options(p))
            .unwrap_err();
        assert!(
            matches!(e, Error::InvalidArgument(_)),
            "{}: {e}",
            self.d.ctx()
        );
    }

    fn op_drop(&mut self) {
        let names: Vec<String> = self
            .model
            .keys()
            .filter(|n| *n != DEFAULT)
            .cloned()
            .collect();
        if names.is_empty() {
            return self.op_create();
        }
        let name = names[self.d.rng.gen_range(0..names.len())].clone();
        if self.d.rng.gen_bool(0.5) {
            self.synced_marker();
        } else if !self.pending.is_empty() {
            self.counts.unsynced_creates_drops += 1;
        }
        let cf = self.cf(&name);
        let ctx = self.d.ctx();
        self.db()
            .drop_column_family(&cf)
            .unwrap_or_else(|e| panic!("{ctx}: drop {name}: {e}"));
        let old = self.model.remove(&name).unwrap();
        // The drop is durable; the family's unsynced writes leave the rule.
        self.durable.remove(&name);
        for ops in &mut self.pending {
            ops.retain(|(f, _, _)| *f != name);
        }
        self.profiles.remove(&name);
        self.dropped.insert(name.clone());
        self.last_write.remove(&name);
        for (_, fams) in &mut self.snaps {
            fams.remove(&name);
        }
        self.refresh_handles();
        assert!(self.db().column_family(&name).is_none(), "{ctx}");
        // The old handle still reads what the family held.
        for _ in 0..3 {
            let k = self.d.key();
            let got = self
                .db()
                .get_cf(&cf, &k)
                .unwrap_or_else(|e| panic!("{ctx}: get through a dropped handle: {e}"));
            assert_eq!(
                got.as_ref(),
                old.get(&k),
                "{ctx}: dropped {name} {}",
                show(&k)
            );
        }
        // A batch naming the dropped family is refused whole.
        let k = self.d.key();
        let mut b = WriteBatch::new();
        b.put(&k, b"never");
        b.put_cf(&cf, &k, b"never");
        let e = self.db().write(b).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{ctx}: {e}");
        let got = self.db().get(&k).unwrap();
        assert_eq!(
            got.as_ref(),
            self.model[DEFAULT].get(&k),
            "{ctx}: a refused batch wrote"
        );
        assert!(self.db().drop_column_family(&cf).is_err(), "{ctx}");
        self.counts.refused_writes_to_dropped += 1;
        self.counts.drops += 1;
    }

    /// The families to pass to `open_cf` besides "default": every family
    /// `list_column_families` names, which must be the model's.
    fn listed_families(&self, what: &str) -> Vec<(String, Options)> {
        let names = Db::list_column_families(self.dir.path(), &self.options(Profile::Small))
            .unwrap_or_else(|e| panic!("{}: {what}: list_column_families: {e}", self.d.ctx()));
        assert_eq!(names.first().map(String::as_str), Some(DEFAULT));
        let listed: BTreeSet<&String> = names.iter().collect();
        let want: BTreeSet<&String> = self.model.keys().collect();
        assert_eq!(listed, want, "{}: {what}: listed families", self.d.ctx());
        names
            .iter()
            .filter(|n| *n != DEFAULT)
            .map(|n| (n.clone(), self.options(self.profiles[n])))
            .collect()
    }

    fn open(&mut self, what: &str) -> Db {
        let fams = self.listed_families(what);
        if !fams.is_empty() && self.d.rng.gen_ratio(1, 4) {
            // Every family must be opened.
            let e = Db::open_cf(
                self.dir.path(),
                self.options(Profile::Small),
                fams[1..].to_vec(),
            )
            .unwrap_err();
            assert!(
                e.to_string().contains("not opened"),
                "{}: {what}: {e}",
                self.d.ctx()
            );
        }
        Db::open_cf(self.dir.path(), self.options(Profile::Small), fams)
            .unwrap_or_else(|e| panic!("{}: {what}: open_cf: {e}", self.d.ctx()))
    }

    fn reopen(&mut self) {
        self.snaps.clear();
        self.db = None;
        let db = self.open("reopen");
        self.db = Some(db);
        self.refresh_handles();
        self.check_all("after reopen");
        // Recovery writes the replayed WAL into synced tables.
        self.became_durable();
        self.last_write.clear();
        self.counts.reopens += 1;
    }

    fn crash(&mut self) {
        self.snaps.clear();
        self.handles.clear();
        let db = self.db.take();
        let how = random::crash(&self.fs, &mut self.d.rng, || drop(db));
        let what = format!("after crash ({how})");
        let db = self.open(&what);
        let mut got = Families::new();
        for cf in db.column_families() {
            let m = dump_cf(&db, &cf)
                .unwrap_or_else(|e| panic!("{}: {what}: dump {}: {e}", self.d.ctx(), cf.name()));
            got.insert(cf.name().to_string(), m);
        }
        let flat_got = flatten(&got);
        let pending: Vec<Ops> = self.pending.iter().map(flat_ops).collect();
        let (durable, acknowledged) = (flatten(&self.durable), flatten(&self.model));
        let what = format!("{}: {what}: the families", self.d.ctx());
        self.counts.crash_lost_writes +=
            lost_writes(&flat_got, &durable, &pending, &acknowledged, &what) as u64;
        self.model = got;
        self.db = Some(db);
        self.refresh_handles();
        self.became_durable();
        self.last_write.clear();
        self.counts.crashes += 1;
    }

    fn step_once(&mut self) {
        self.d.step += 1;
        match self.d.rng.gen_range(0..1000) {
            0..=229 => self.op_put_or_delete(false),
            230..=264 => self.op_merge_or_delete_range(false),
            265..=329 => self.op_put_or_delete(true),
            330..=339 => self.op_merge_or_delete_range(true),
            340..=349 => self.op_mixed_batch(),
            350..=409 => self.op_batch_one_family(),
            410..=489 => self.op_batch_across_families(),
            490..=669 => self.op_get(),
            670..=739 => self.op_scan(),
            740..=749 => self.op_full_scan(),
            750..=774 => self.op_snapshot(),
            775..=814 => self.op_snapshot_read(),
            815..=819 => self.op_flush_or_compact(false),
            820..=821 => self.op_flush_or_compact(true),
            822..=823 => self.op_create(),
            824..=825 => self.op_drop(),
            826 => self.reopen(),
            827..=828 => self.crash(),
            _ => self.op_get(),
        }
    }
}

fn run(seed: u64, ops: u64) -> Counts {
    let t = std::time::Instant::now();
    let mut h = Harness::new(seed);
    for _ in 0..ops {
        h.step_once();
    }
    h.db().wait_for_compaction().unwrap();
    h.check_all("at the end");
    h.reopen();
    println!(
        "model_families seed {seed}: {ops} operations in {:.1}s, {} families at the end: {:?}",
        t.elapsed().as_secs_f64(),
        h.model.len(),
        h.counts
    );
    h.counts
}

/// Seeds from `STRATA_MODEL_SEEDS` (comma-separated), operations per seed
/// from `STRATA_MODEL_OPS`.
#[test]
fn model_families() {
    let ops = common::env_u64("STRATA_MODEL_OPS", 8_000);
    let mut total = Counts::default();
    for seed in common::env_list("STRATA_MODEL_SEEDS", &[1, 2, 3]) {
        let c = run(seed, ops);
        total.writes += c.writes;
        total.synced += c.synced;
        total.merges += c.merges;
        total.range_deletes += c.range_deletes;
        total.mixed_batches += c.mixed_batches;
        total.cross_family_batches += c.cross_family_batches;
        total.scans += c.scans;
        total.full_scans += c.full_scans;
        total.snapshot_reads += c.snapshot_reads;
        total.durable_flushes += c.durable_flushes;
        total.compactions += c.compactions;
        total.creates += c.creates;
        total.recreates += c.recreates;
        total.drops += c.drops;
        total.unsynced_creates_drops += c.unsynced_creates_drops;
        total.deepest_level = total.deepest_level.max(c.deepest_level);
        total.reopens += c.reopens;
        total.crashes += c.crashes;
    }
    // The runs must have exercised every kind of step (counts summed over
    // the seeds, so that short runs pass too).
    let c = &total;
    assert!(c.cross_family_batches > 0 && c.synced > 0, "{c:?}");
    assert!(
        c.merges > 0 && c.range_deletes > 0 && c.mixed_batches > 0,
        "{c:?}"
    );
    assert!(
        c.scans > 0 && c.full_scans > 0 && c.snapshot_reads > 0,
        "{c:?}"
    );
    assert!(c.durable_flushes > 0 && c.compactions > 0, "{c:?}");
    assert!(c.drops > 0 && c.recreates > 0, "{c:?}");
    assert!(c.unsynced_creates_drops > 0 && c.deepest_level > 0, "{c:?}");
    assert!(c.reopens > 0 && c.crashes > 0, "{c:?}");
}
