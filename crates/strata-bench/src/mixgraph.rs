//! db_bench's `mixgraph` benchmark (`Benchmark::MixGraph` of RocksDB's
//! `tools/db_bench_tool.cc`): Gets, Puts and Seeks in the ratios of
//! `--mix_get_ratio` / `--mix_put_ratio` / `--mix_seek_ratio`, keys chosen
//! by the power and two-term-exponential models, Put sizes and scan lengths
//! by generalized Pareto distributions, and, with `--sine_mix_rate`, a
//! rate that follows `A sin(B t + C) + D` ops/s (the generators are in
//! [`crate::distributions::mixgraph`]).
//!
//! Each operation draws one random number `r = Next() % num` from the
//! thread's generator; as in db_bench it decides the key (uniform when
//! `--key_dist_a` or `--key_dist_b` is 0; else through the key ranges when
//! any `--keyrange_dist_*` is set; else the power model seeding a generator
//! that picks the key), the query type, and, through `u = r / num`, the
//! Put's value size and the Seek's scan length. db_bench's read and write
//! rate limiters are shared by its threads; here each thread paces itself
//! at its share of the rate (`rate / threads`), re-read every
//! `--sine_mix_rate_interval_milliseconds`.

use std::sync::Arc;
use std::time::{Duration as StdDuration, Instant};

use crate::distributions::mixgraph::{
    pareto_cdf_inversion, power_cdf_inversion, sine_rate, Query, QueryDecider, TwoTermExpKeys,
};
use crate::flags::Flags;
use crate::keygen::generate_key_from_int;
use crate::rng::{Random, Random64};
use crate::stats::OpType;
use crate::valuegen::ValueGenerator;
use crate::workloads::{scan_from, Duration, ThreadCtx};

/// The `mixgraph` flags, read and checked.
#[derive(Clone, Debug, PartialEq)]
pub struct MixGraphFlags {
    keyrange_dist: (f64, f64, f64, f64),
    keyrange_num: i64,
    key_dist: (f64, f64),
    value: (f64, f64, f64),
    iter: (f64, f64, f64),
    ratios: (f64, f64, f64),
    max_scan_len: i64,
    max_value_size: i64,
    sine: (f64, f64, f64, f64),
    sine_mix_rate: bool,
    sine_interval: StdDuration,
    sine_noise: f64,
}

impl MixGraphFlags {
    /// Reads the flags; an error names the flag.
    pub fn from_flags(f: &Flags) -> Result<Self, String> {
        let raw = |n: &str| f.values.raw(n).trim().to_string();
        let num = |n: &str| -> Result<f64, String> {
            raw(n)
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| format!("Invalid value '{}' for flag '{n}'", raw(n)))
        };
        let int = |n: &str| -> Result<i64, String> {
            raw(n)
                .parse::<i64>()
                .map_err(|_| format!("Invalid value '{}' for flag '{n}'", raw(n)))
        };
        let positive = |n: &str| -> Result<i64, String> {
            let v = int(n)?;
            if v < 1 {
                return Err(format!(
                    "Invalid value '{v}' for flag '{n}': must be at least 1"
                ));
            }
            Ok(v)
        };
        let sine_interval_ms = int("sine_mix_rate_interval_milliseconds")?;
        Ok(Self {
            keyrange_dist: (
                num("keyrange_dist_a")?,
                num("keyrange_dist_b")?,
                num("keyrange_dist_c")?,
                num("keyrange_dist_d")?,
            ),
            keyrange_num: int("keyrange_num")?,
            key_dist: (num("key_dist_a")?, num("key_dist_b")?),
            value: (num("value_theta")?, num("value_k")?, num("value_sigma")?),
            iter: (num("iter_theta")?, num("iter_k")?, num("iter_sigma")?),
            ratios: (
                num("mix_get_ratio")?,
                num("mix_put_ratio")?,
                num("mix_seek_ratio")?,
            ),
            max_scan_len: positive("mix_max_scan_len")?,
            max_value_size: positive("mix_max_value_size")?,
            sine: (
                num("sine_a")?,
                num("sine_b")?,
                num("sine_c")?,
                num("sine_d")?,
            ),
            sine_mix_rate: matches!(raw("sine_mix_rate").as_str(), "true" | "1" | "yes"),
            sine_interval: StdDuration::from_millis(sine_interval_ms.max(0) as u64),
            sine_noise: num("sine_mix_rate_noise")?,
        })
    }
}

/// db_bench's cap on a Put's value (1 MiB, or `--mix_max_value_size`).
const DEFAULT_VALUE_MAX: i64 = 1 << 20;

/// A Put's value size for `u` (db_bench: at least 10; above the cap, the
/// size modulo the cap).
pub fn put_value_size(u: f64, (theta, k, sigma): (f64, f64, f64), value_max: i64) -> usize {
    let v = pareto_cdf_inversion(u, theta, k, sigma);
    let v = if v < 10 {
        10
    } else if v > value_max {
        v % value_max
    } else {
        v
    };
    v as usize
}

/// Keeps a thread under a rate of operations a second (0: no limit).
struct OpRate {
    per_sec: f64,
    since: Instant,
    ops: u64,
}

impl OpRate {
    fn new(per_sec: f64) -> Self {
        Self {
            per_sec,
            since: Instant::now(),
            ops: 0,
        }
    }

    fn set(&mut self, per_sec: f64) {
        *self = Self::new(per_sec);
    }

    fn request(&mut self) {
        if self.per_sec <= 0.0 {
            return;
        }
        self.ops += 1;
        let ahead = self.ops as f64 / self.per_sec - self.since.elapsed().as_secs_f64();
        if ahead > 0.0 {
            std::thread::sleep(StdDuration::from_secs_f64(ahead));
        }
    }
}

/// db_bench's `AddNoise`: a random offset within `sine_a` times the ratio.
fn add_noise(origin: f64, ratio: f64, band: f64, rng: &mut Random) -> f64 {
    if !(0.0..=1.0).contains(&ratio) {
        return origin;
    }
    let band = band as i64;
    if band <= 0 {
        return origin;
    }
    let delta = ((rng.next_u32() as i64 % band) - band / 2) as f64 * ratio;
    if origin + delta < 0.0 {
        origin
    } else {
        origin + delta
    }
}

/// `mixgraph` on one thread.
pub fn run(ctx: &mut ThreadCtx<'_>, threads: usize) -> anyhow::Result<()> {
    let f = ctx.flags;
    let m = MixGraphFlags::from_flags(f).map_err(anyhow::Error::msg)?;
    let num = u64::try_from(f.num).unwrap_or(0).max(1);
    let (get_r, put_r, seek_r) = m.ratios;
    let query = QueryDecider::new(get_r, put_r, seek_r).map_err(anyhow::Error::msg)?;
    let sum = get_r + put_r + seek_r;
    let (read_share, write_share) = ((get_r + seek_r) / sum, put_r / sum);
    let (ka, kb, kc, kd) = m.keyrange_dist;
    let prefix = if ka != 0.0 || kb != 0.0 || kc != 0.0 || kd != 0.0 {
        Some(
            TwoTermExpKeys::new(num as i64, m.keyrange_num, m.keyrange_dist)
                .map_err(anyhow::Error::msg)?,
        )
    } else {
        None
    };
    let (key_a, key_b) = m.key_dist;
    let random_keys = key_a == 0.0 || key_b == 0.0;
    let value_max = DEFAULT_VALUE_MAX.min(m.max_value_size);
    let mut values = ValueGenerator::new(f.compression_ratio, value_max as usize);
    let mut key = vec![0u8; f.key_size];
    let mut duration = Duration::new(f.duration, f.reads_per_thread());
    let share = 1.0 / threads.max(1) as f64;
    let (mut read_rate, mut write_rate) = if m.sine_mix_rate {
        (OpRate::new(1e6 * share), OpRate::new(1e6 * share))
    } else {
        (OpRate::new(0.0), OpRate::new(0.0))
    };
    let mut noise = Random::new(301 + ctx.tid as u32);
    let start = Instant::now();
    let mut last_sine = start;
    let [mut gets, mut puts, mut seeks, mut get_found, mut seek_found] = [0u64; 5];
    let (mut bytes, mut value_total, mut scan_total) = (0u64, 0f64, 0f64);
    while !duration.done(1) {
        let ini_rand = ctx.rand.next_u64() % num;
        let u = ini_rand as f64 / num as f64;
        let key_rand = if random_keys {
            ini_rand
        } else if let Some(p) = &prefix {
            p.key(ini_rand as i64, key_a, key_b) as u64
        } else {
            let seed = power_cdf_inversion(u, key_a, key_b);
            Random64::new(seed as u64).next_u64() % num
        };
        generate_key_from_int(key_rand, &mut key);
        if m.sine_mix_rate && last_sine.elapsed() > m.sine_interval {
            last_sine = Instant::now();
            let (a, b, c, d) = m.sine;
            let rate = add_noise(
                sine_rate(start.elapsed().as_secs_f64(), a, b, c, d),
                m.sine_noise,
                a,
                &mut noise,
            );
            if rate * read_share > 0.0 {
                read_rate.set(rate * read_share * share);
            }
            if rate * write_share > 0.0 {
                write_rate.set(rate * write_share * share);
            }
        }
        match query.pick(ini_rand as i64) {
            Query::Get => {
                gets += 1;
                ctx.get_counted(&key, &mut get_found, &mut bytes)?;
                read_rate.request();
                ctx.finished(1, OpType::Read);
            }
            Query::Put => {
                puts += 1;
                let size = put_value_size(u, m.value, value_max);
                value_total += size as f64;
                let v = values.generate(size);
                ctx.db
                    .put(&key, v, ctx.wo)
                    .map_err(|e| anyhow::anyhow!("put error: {e:#}"))?;
                write_rate.request();
                ctx.finished(1, OpType::Write);
            }
            Query::Seek => {
                let db = Arc::clone(ctx.db);
                let mut it = db.iter(ctx.flags.verify_checksum)?;
                it.seek(&key)?;
                seeks += 1;
                if it.valid() && it.key() == key.as_slice() {
                    seek_found += 1;
                }
                let (theta, k, sigma) = m.iter;
                let len = pareto_cdf_inversion(u, theta, k, sigma).rem_euclid(m.max_scan_len);
                scan_total += scan_from(it.as_mut(), len as u64, &mut bytes)? as f64;
                read_rate.request();
                ctx.finished(1, OpType::Seek);
            }
        }
    }
    ctx.stats.add_bytes(bytes);
    ctx.stats.add_message(&format!(
        "( Gets:{gets} Puts:{puts} Seek:{seeks}, reads {} in {} found, avg size: {:.1} value, {:.1} scan)\n",
        get_found + seek_found,
        gets + seeks,
        value_total / puts as f64,
        scan_total / seeks as f64
    ));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_sizes_are_capped_as_db_bench_caps_them() {
        let p = (0.0, 0.2615, 25.45);
        // Small draws are raised to 10 bytes.
        assert_eq!(put_value_size(0.999_999, p, 1024), 10);
        // Huge ones wrap modulo the cap.
        let big = pareto_cdf_inversion(1e-12, p.0, p.1, p.2);
        assert!(big > 1024);
        assert_eq!(put_value_size(1e-12, p, 1024), (big % 1024) as usize);
    }

    #[test]
    fn mixgraph_runs_its_mix_on_the_memory_engine() {
        let (_dir, db) = crate::e2e_tests::temp_db();
        let f = crate::engine::memory::MemoryFactory::default();
        let r = crate::e2e_tests::run(
            &f,
            &[
                &db,
                "--benchmarks=fillseq,mixgraph",
                "--num=5000",
                "--reads=4000",
                "--histogram=1",
                "--mix_get_ratio=0.83",
                "--mix_put_ratio=0.14",
                "--mix_seek_ratio=0.03",
                "--key_dist_a=0.002312",
                "--key_dist_b=0.3467",
                "--keyrange_num=10",
                "--keyrange_dist_a=14.18",
                "--keyrange_dist_b=-2.917",
                "--keyrange_dist_c=0.0164",
                "--keyrange_dist_d=-0.08082",
            ],
        );
        assert_eq!(r.code, 0, "{}", r.err);
        let out = r.out;
        let line = out.lines().find(|l| l.starts_with("mixgraph")).unwrap();
        let count = |name: &str| crate::e2e_tests::number_after(line, name);
        let (g, p, s) = (count("Gets:"), count("Puts:"), count("Seek:"));
        assert_eq!(g + p + s, 4000, "{line}");
        // 830 / 140 / 30 slots of 1000.
        assert!((g as f64 / 4000.0 - 0.83).abs() < 0.03, "{line}");
        assert!((p as f64 / 4000.0 - 0.14).abs() < 0.03, "{line}");
        // Every key of the fill exists, and the models stay in it.
        assert!(
            line.contains(&format!("reads {} in {} found", g + s, g + s)),
            "{line}"
        );
        for h in ["read", "write", "seek"] {
            assert!(out.contains(&format!("Microseconds per {h}:")), "{out}");
        }
    }

    #[test]
    fn bad_mixgraph_flags_are_errors_naming_the_flag() {
        let check = |a: &str, flag: &str| {
            let args: Vec<String> = vec![a.into()];
            let f = Flags::from_args(&args).unwrap();
            let e = MixGraphFlags::from_flags(&f).unwrap_err();
            assert!(e.contains(flag), "{e}");
        };
        check("--mix_max_scan_len=0", "mix_max_scan_len");
        check("--mix_max_value_size=0", "mix_max_value_size");
        let args: Vec<String> = vec![];
        let f = Flags::from_args(&args).unwrap();
        let m = MixGraphFlags::from_flags(&f).unwrap();
        assert_eq!(m.value, (0.0, 0.2615, 25.45));
        assert_eq!(m.ratios, (1.0, 0.0, 0.0));
    }
}
