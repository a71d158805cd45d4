//! YCSB's core workloads as benchmarks (`site.ycsb.workloads.CoreWorkload`
//! with the property files `workloada` to `workloadf`):
//!
//! | benchmark | mix | key choice (default) |
//! |---|---|---|
//! | `ycsb_load` | inserts records `0..--num` | in order, keys hashed |
//! | `ycsb_a` | 50% read, 50% update | zipfian |
//! | `ycsb_b` | 95% read, 5% update | zipfian |
//! | `ycsb_c` | 100% read | zipfian |
//! | `ycsb_d` | 95% read, 5% insert | latest |
//! | `ycsb_e` | 95% scan, 5% insert | zipfian (scan start), lengths uniform 1-100 |
//! | `ycsb_f` | 50% read, 50% read-modify-write | zipfian |
//!
//! Records are YCSB's: key number `k` is stored under the db_bench-format
//! key of `fnv_hash64(k)` (YCSB's default `insertorder=hashed`; with
//! `--ycsb_insert_order=ordered`, under the key of `k`, so the workloads
//! run on a DB that db_bench's `fillseq` loaded), values are
//! 1,000 bytes (ten 100-byte fields) unless `--value_size` is given. An
//! update writes a whole new record; a read-modify-write reads the record
//! and writes a new one, timed as one operation. Zipfian key choice is
//! YCSB's scrambled zipfian over the records plus the inserts the run
//! expects, redrawing keys not inserted yet, as YCSB does.
//!
//! Flags: `--ycsb_request_distribution` (zipfian, uniform or latest; each
//! workload's own when empty), `--ycsb_zipfian_constant` (0.99),
//! `--ycsb_max_scan_length` (100), `--ycsb_target_ops_per_sec` (0: as fast
//! as possible; the older name of `--target_ops_per_sec`, which paces every
//! benchmark). Operations per thread come from `--reads` (or `--num` when
//! negative) or `--duration`. With a target rate each thread schedules its
//! operations at even intervals and every latency is measured from the
//! operation's scheduled start, so a stall that delays later operations
//! shows in their latencies (no coordinated omission; see
//! [`crate::pacer`]). The latency
//! histograms are per operation type: read, update, insert, scan and
//! readmodifywrite.
//!
//! With several threads each inserts its own new keys (thread `t` takes
//! `num + t`, `num + t + threads`, ...), and `latest` counts back from the
//! thread's own newest record.

use crate::distributions::latest::SkewedLatest;
use crate::distributions::next_unit;
use crate::distributions::zipfian::{fnv_hash64, ScrambledZipfian};
use crate::flags::Flags;
use crate::keygen::generate_key_from_int;
use crate::rng::Random64;
use crate::stats::OpType;
use crate::valuegen::ValueGenerator;
use crate::workloads::{scan_from, Duration, ThreadCtx};

/// YCSB's record size: ten fields of 100 bytes.
pub const RECORD_SIZE: usize = 1000;

/// One of YCSB's six core workloads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Workload {
    /// Update heavy.
    A,
    /// Read mostly.
    B,
    /// Read only.
    C,
    /// Read latest.
    D,
    /// Short ranges.
    E,
    /// Read-modify-write.
    F,
}

/// How keys are chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Distribution {
    /// Every record alike.
    Uniform,
    /// YCSB's scrambled zipfian.
    Zipfian,
    /// Skewed towards the newest records.
    Latest,
}

/// The shares of each operation (YCSB's `*proportion` properties).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mix {
    /// Reads.
    pub read: f64,
    /// Updates.
    pub update: f64,
    /// Inserts.
    pub insert: f64,
    /// Scans.
    pub scan: f64,
    /// Read-modify-writes.
    pub rmw: f64,
}

impl Workload {
    /// The workload of a benchmark name (`ycsb_a` ... `ycsb_f`).
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "ycsb_a" => Self::A,
            "ycsb_b" => Self::B,
            "ycsb_c" => Self::C,
            "ycsb_d" => Self::D,
            "ycsb_e" => Self::E,
            "ycsb_f" => Self::F,
            _ => return None,
        })
    }

    /// The operation mix of its property file.
    pub fn mix(self) -> Mix {
        let m = |read, update, insert, scan, rmw| Mix {
            read,
            update,
            insert,
            scan,
            rmw,
        };
        match self {
            Self::A => m(0.5, 0.5, 0.0, 0.0, 0.0),
            Self::B => m(0.95, 0.05, 0.0, 0.0, 0.0),
            Self::C => m(1.0, 0.0, 0.0, 0.0, 0.0),
            Self::D => m(0.95, 0.0, 0.05, 0.0, 0.0),
            Self::E => m(0.0, 0.0, 0.05, 0.95, 0.0),
            Self::F => m(0.5, 0.0, 0.0, 0.0, 0.5),
        }
    }

    /// Its property file's `requestdistribution`.
    pub fn default_distribution(self) -> Distribution {
        match self {
            Self::D => Distribution::Latest,
            _ => Distribution::Zipfian,
        }
    }
}

/// One operation of a mix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Read one record.
    Read,
    /// Overwrite one record.
    Update,
    /// Insert a new record.
    Insert,
    /// Read a short range.
    Scan,
    /// Read one record, then overwrite it.
    ReadModifyWrite,
}

impl Mix {
    /// The operation for a uniform draw `u` in [0, 1) (YCSB's
    /// `DiscreteGenerator`: cumulative shares in the order read, update,
    /// insert, scan, read-modify-write).
    pub fn pick(&self, u: f64) -> Op {
        let sum = self.read + self.update + self.insert + self.scan + self.rmw;
        let mut x = u * sum;
        for (share, op) in [
            (self.read, Op::Read),
            (self.update, Op::Update),
            (self.insert, Op::Insert),
            (self.scan, Op::Scan),
            (self.rmw, Op::ReadModifyWrite),
        ] {
            if x < share {
                return op;
            }
            x -= share;
        }
        Op::Read
    }
}

/// The `--ycsb_*` flags of a run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct YcsbFlags {
    /// `--ycsb_request_distribution`; `None`: the workload's own.
    pub distribution: Option<Distribution>,
    /// `--ycsb_zipfian_constant`.
    pub zipfian_constant: f64,
    /// `--ycsb_max_scan_length`.
    pub max_scan_length: u64,
    /// `--ycsb_target_ops_per_sec` over all threads; 0: unthrottled.
    pub target_ops_per_sec: f64,
    /// Record size: `--value_size` when given, else [`RECORD_SIZE`].
    pub record_size: usize,
    /// `--ycsb_insert_order`: hashed (YCSB's default) or ordered keys.
    pub hashed: bool,
}

impl YcsbFlags {
    /// Reads and checks the flags; an error names the flag.
    pub fn from_flags(f: &Flags) -> Result<Self, String> {
        let raw = |n: &str| f.values.raw(n).trim().to_string();
        let distribution = match raw("ycsb_request_distribution").as_str() {
            "" => None,
            "zipfian" => Some(Distribution::Zipfian),
            "uniform" => Some(Distribution::Uniform),
            "latest" => Some(Distribution::Latest),
            other => {
                return Err(format!(
                    "Invalid value '{other}' for flag 'ycsb_request_distribution': expected zipfian, uniform or latest"
                ))
            }
        };
        let number = |n: &str| -> Result<f64, String> {
            raw(n)
                .parse::<f64>()
                .map_err(|_| format!("Invalid value '{}' for flag '{n}'", raw(n)))
        };
        let zipfian_constant = number("ycsb_zipfian_constant")?;
        if !(zipfian_constant > 0.0 && zipfian_constant < 1.0) {
            return Err(format!(
                "Invalid value '{zipfian_constant}' for flag 'ycsb_zipfian_constant': must be in (0, 1)"
            ));
        }
        let max_scan_length = number("ycsb_max_scan_length")?;
        if max_scan_length < 1.0 || max_scan_length.fract() != 0.0 {
            return Err(format!(
                "Invalid value '{max_scan_length}' for flag 'ycsb_max_scan_length': must be a whole number >= 1"
            ));
        }
        let target_ops_per_sec = number("ycsb_target_ops_per_sec")?;
        if target_ops_per_sec < 0.0 || !target_ops_per_sec.is_finite() {
            return Err(format!(
                "Invalid value '{target_ops_per_sec}' for flag 'ycsb_target_ops_per_sec': must not be negative"
            ));
        }
        let hashed = match raw("ycsb_insert_order").as_str() {
            "hashed" => true,
            "ordered" => false,
            other => {
                return Err(format!(
                "Invalid value '{other}' for flag 'ycsb_insert_order': expected hashed or ordered"
            ))
            }
        };
        let record_size = if f.values.was_given("value_size") {
            f.value_size
        } else {
            RECORD_SIZE
        };
        Ok(Self {
            distribution,
            zipfian_constant,
            max_scan_length: max_scan_length as u64,
            target_ops_per_sec,
            record_size,
            hashed,
        })
    }
}

/// Writes the key of record number `keynum` into `buf`: the key of
/// `fnv_hash64(keynum)` (hashed), or of `keynum` itself (ordered, the keys
/// db_bench's fills write).
pub fn record_key(keynum: u64, hashed: bool, buf: &mut [u8]) {
    generate_key_from_int(if hashed { fnv_hash64(keynum) } else { keynum }, buf);
}

/// Chooses the record numbers a workload reads, updates and scans from.
enum KeyChooser {
    Uniform(u64),
    Zipfian(ScrambledZipfian),
    Latest(SkewedLatest),
}

impl KeyChooser {
    /// A record number no greater than `last` (the newest inserted).
    fn next(&mut self, rng: &mut Random64, last: u64) -> u64 {
        match self {
            Self::Uniform(n) => rng.next_u64() % *n,
            Self::Latest(g) => g.next(rng, last),
            Self::Zipfian(g) => loop {
                let k = g.next(rng);
                if k <= last {
                    return k;
                }
            },
        }
    }
}

fn op_type(op: Op) -> OpType {
    match op {
        Op::Read => OpType::Read,
        Op::Update => OpType::Update,
        Op::Insert => OpType::Insert,
        Op::Scan => OpType::Scan,
        Op::ReadModifyWrite => OpType::ReadModifyWrite,
    }
}

/// `ycsb_load`: inserts records `0..--num`, each thread every
/// `threads`-th one from its index.
pub fn load(ctx: &mut ThreadCtx<'_>, threads: usize) -> anyhow::Result<()> {
    let f = ctx.flags;
    let y = YcsbFlags::from_flags(f).map_err(anyhow::Error::msg)?;
    let mut values = ValueGenerator::new(f.compression_ratio, y.record_size);
    let mut key = vec![0u8; f.key_size];
    let mut bytes = 0u64;
    let num = u64::try_from(f.num).unwrap_or(0);
    let mut k = ctx.tid as u64;
    while k < num {
        record_key(k, y.hashed, &mut key);
        let v = values.generate(y.record_size);
        ctx.db
            .put(&key, v, ctx.wo)
            .map_err(|e| anyhow::anyhow!("put error: {e:#}"))?;
        bytes += (key.len() + v.len()) as u64;
        ctx.finished(1, OpType::Insert);
        k += threads.max(1) as u64;
    }
    ctx.stats.add_bytes(bytes);
    Ok(())
}

/// `ycsb_a` ... `ycsb_f`: the workload's mix over the loaded records.
pub fn run(ctx: &mut ThreadCtx<'_>, w: Workload, threads: usize) -> anyhow::Result<()> {
    let f = ctx.flags;
    let y = YcsbFlags::from_flags(f).map_err(anyhow::Error::msg)?;
    let mix = w.mix();
    let records = u64::try_from(f.num).unwrap_or(0).max(1);
    let ops = f.reads_per_thread();
    let threads = threads.max(1) as u64;
    // YCSB's `expectednewkeys`: twice the inserts the run expects.
    let expected_new = (ops as f64 * threads as f64 * mix.insert * 2.0) as u64;
    let mut chooser = match y.distribution.unwrap_or(w.default_distribution()) {
        Distribution::Uniform => KeyChooser::Uniform(records),
        Distribution::Zipfian => KeyChooser::Zipfian(ScrambledZipfian::new(
            0,
            records + expected_new,
            y.zipfian_constant,
        )),
        Distribution::Latest => KeyChooser::Latest(SkewedLatest::new(records - 1)),
    };
    let mut values = ValueGenerator::new(f.compression_ratio, y.record_size);
    let mut key = vec![0u8; f.key_size];
    let mut duration = Duration::new(f.duration, ops);
    let mut last = records - 1;
    let mut next_insert = records + ctx.tid as u64;
    let [mut reads, mut updates, mut inserts, mut scans, mut rmws, mut found] = [0u64; 6];
    let mut bytes = 0u64;
    while !duration.done(1) {
        let op = mix.pick(next_unit(&mut ctx.rand));
        match op {
            Op::Insert => {
                record_key(next_insert, y.hashed, &mut key);
                let v = values.generate(y.record_size);
                ctx.db
                    .put(&key, v, ctx.wo)
                    .map_err(|e| anyhow::anyhow!("put error: {e:#}"))?;
                bytes += (key.len() + v.len()) as u64;
                last = last.max(next_insert);
                next_insert += threads;
                inserts += 1;
            }
            Op::Scan => {
                record_key(chooser.next(&mut ctx.rand, last), y.hashed, &mut key);
                let len = 1 + ctx.rand.next_u64() % y.max_scan_length;
                let db = std::sync::Arc::clone(ctx.db);
                let mut it = db.iter(ctx.flags.verify_checksum)?;
                it.seek(&key)?;
                scan_from(it.as_mut(), len, &mut bytes)?;
                scans += 1;
            }
            Op::Read | Op::Update | Op::ReadModifyWrite => {
                record_key(chooser.next(&mut ctx.rand, last), y.hashed, &mut key);
                if op != Op::Update {
                    ctx.get_counted(&key, &mut found, &mut bytes)?;
                }
                if op != Op::Read {
                    let v = values.generate(y.record_size);
                    ctx.db
                        .put(&key, v, ctx.wo)
                        .map_err(|e| anyhow::anyhow!("put error: {e:#}"))?;
                    bytes += (key.len() + v.len()) as u64;
                }
                match op {
                    Op::Read => reads += 1,
                    Op::Update => updates += 1,
                    _ => rmws += 1,
                }
            }
        }
        ctx.finished(1, op_type(op));
    }
    ctx.stats.add_bytes(bytes);
    ctx.stats.add_message(&format!(
        "( reads:{reads} updates:{updates} inserts:{inserts} scans:{scans} readmodifywrites:{rmws} found:{found} of {})",
        reads + rmws
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mixes_pick_in_their_shares() {
        for w in [
            Workload::A,
            Workload::B,
            Workload::C,
            Workload::D,
            Workload::E,
            Workload::F,
        ] {
            let m = w.mix();
            let sum = m.read + m.update + m.insert + m.scan + m.rmw;
            assert!((sum - 1.0).abs() < 1e-12, "{w:?}");
            let mut rng = Random64::new(3);
            let n = 100_000;
            let mut reads = 0;
            for _ in 0..n {
                if m.pick(next_unit(&mut rng)) == Op::Read {
                    reads += 1;
                }
            }
            let share = reads as f64 / n as f64;
            assert!((share - m.read).abs() < 0.01, "{w:?}: {share}");
        }
        let e = Workload::E.mix();
        assert_eq!(e.pick(0.0), Op::Insert);
        assert_eq!(e.pick(0.999), Op::Scan);
        assert_eq!(Workload::F.mix().pick(0.75), Op::ReadModifyWrite);
        assert_eq!(Workload::parse("ycsb_d"), Some(Workload::D));
        assert_eq!(Workload::D.default_distribution(), Distribution::Latest);
        assert_eq!(Workload::parse("ycsb_g"), None);
    }

    #[test]
    fn zipfian_choice_redraws_keys_not_inserted_yet() {
        let mut c = KeyChooser::Zipfian(ScrambledZipfian::new(0, 2000, 0.99));
        let mut rng = Random64::new(1);
        for _ in 0..10_000 {
            assert!(c.next(&mut rng, 999) <= 999);
        }
    }

    /// The `name:count` field of `bench`'s result line.
    fn field(out: &str, bench: &str, name: &str) -> u64 {
        let line = out
            .lines()
            .find(|l| l.starts_with(bench))
            .unwrap_or_else(|| panic!("no {bench} line in {out}"));
        crate::e2e_tests::number_after(line, &format!("{name}:"))
    }

    #[test]
    fn every_workload_reads_records_that_exist() {
        let (_dir, db) = crate::e2e_tests::temp_db();
        let all = "--benchmarks=ycsb_load,ycsb_a,ycsb_b,ycsb_c,ycsb_d,ycsb_e,ycsb_f";
        let f = crate::engine::memory::MemoryFactory::default();
        let r = crate::e2e_tests::run(
            &f,
            &[&db, all, "--num=2000", "--reads=3000", "--histogram=1"],
        );
        assert_eq!(r.code, 0, "{}", r.err);
        let out = r.out;
        for w in ["ycsb_a", "ycsb_b", "ycsb_c", "ycsb_d", "ycsb_f"] {
            let reads = field(&out, w, "reads") + field(&out, w, "readmodifywrites");
            assert!(reads > 0, "{w}");
            // Hashed keys written by ycsb_load (and ycsb_d's inserts) are
            // the keys the choosers read.
            assert_eq!(field(&out, w, "found"), reads, "{w}: {out}");
        }
        let ops = |w| {
            ["reads", "updates", "inserts", "scans", "readmodifywrites"]
                .iter()
                .map(|n| field(&out, w, n))
                .sum::<u64>()
        };
        for w in ["ycsb_a", "ycsb_b", "ycsb_c", "ycsb_d", "ycsb_e", "ycsb_f"] {
            assert_eq!(ops(w), 3000, "{w}");
        }
        assert_eq!(field(&out, "ycsb_c", "updates"), 0);
        assert!(field(&out, "ycsb_e", "scans") > 2700);
        assert!(field(&out, "ycsb_d", "inserts") > 100);
        // One histogram per operation type the workload ran.
        let e = &out[out.find("ycsb_e").unwrap()..out.find("ycsb_f").unwrap()];
        assert!(e.contains("Microseconds per scan:") && e.contains("Microseconds per insert:"));
        let f = &out[out.find("ycsb_f").unwrap()..];
        assert!(f.contains("Microseconds per readmodifywrite:"), "{f}");
    }

    #[test]
    fn bad_ycsb_flags_are_errors_naming_the_flag() {
        let f = |a: &str| {
            let args: Vec<String> = vec![a.into()];
            Flags::from_args(&args)
                .map_err(|e| e.to_string())
                .and_then(|f| YcsbFlags::from_flags(&f))
        };
        assert!(f("--ycsb_request_distribution=hotspot")
            .unwrap_err()
            .contains("ycsb_request_distribution"));
        assert!(f("--ycsb_zipfian_constant=1.5")
            .unwrap_err()
            .contains("ycsb_zipfian_constant"));
        assert!(f("--ycsb_max_scan_length=0")
            .unwrap_err()
            .contains("ycsb_max_scan_length"));
        assert!(f("--ycsb_target_ops_per_sec=-1")
            .unwrap_err()
            .contains("ycsb_target_ops_per_sec"));
        assert!(f("--ycsb_insert_order=random")
            .unwrap_err()
            .contains("ycsb_insert_order"));
        assert!(!f("--ycsb_insert_order=ordered").unwrap().hashed);
        let ok = f("--ycsb_request_distribution=uniform").unwrap();
        assert_eq!(ok.distribution, Some(Distribution::Uniform));
        assert_eq!(ok.record_size, RECORD_SIZE);
        assert_eq!(f("--value_size=100").unwrap().record_size, 100);
    }

    #[test]
    fn records_live_under_hashed_keys() {
        let (mut a, mut b) = ([0u8; 16], [0u8; 16]);
        record_key(1, true, &mut a);
        record_key(2, true, &mut b);
        assert_ne!(a, b);
        assert_eq!(&a[8..], b"00000000");
        assert_eq!(
            u64::from_be_bytes(a[..8].try_into().unwrap()),
            fnv_hash64(1)
        );
        // Ordered: the key db_bench's fills write for the same number.
        record_key(7, false, &mut a);
        assert_eq!(a.to_vec(), crate::keygen::make_key(7, 16));
    }
}
