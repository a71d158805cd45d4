//! db_bench's `mixgraph` generators (RocksDB's `tools/db_bench_tool.cc`,
//! `MixGraph` and its helpers), the model of Facebook's social-graph
//! traffic from Cao et al., FAST 2020:
//!
//! * which key: uniform by default; with `--key_dist_a/b` a power
//!   distribution `F(x) = a x^b` whose inverse seeds a generator that picks
//!   the key (so hot keys are scattered); with `--keyrange_dist_a/b/c/d`
//!   the key space is cut into `--keyrange_num` ranges whose hotness
//!   follows `a e^(b x) + c e^(d x)`, shuffled, and the key is then placed
//!   in its range by the power distribution;
//! * which query: Get / Put / Seek by `--mix_get_ratio` / `--mix_put_ratio`
//!   / `--mix_seek_ratio` ([`QueryDecider`]);
//! * value sizes and scan lengths: generalized Pareto inversions
//!   (`--value_theta/k/sigma`, `--iter_theta/k/sigma`);
//! * the rate: `--sine_a/b/c/d` shape `A sin(B t + C) + D` ops/s.
//!
//! Integer conversions follow db_bench's; where its C++ would take a
//! negative remainder of a signed cast, the remainder here is taken of the
//! unsigned value, so keys always fall in `[0, num)`.

use crate::rng::Random64;

/// The inverse CDF of the generalized Pareto distribution (db_bench's
/// `ParetoCdfInversion`), rounded up.
pub fn pareto_cdf_inversion(u: f64, theta: f64, k: f64, sigma: f64) -> i64 {
    let r = if k == 0.0 {
        theta - sigma * u.ln()
    } else {
        theta + sigma * (u.powf(-k) - 1.0) / k
    };
    r.ceil() as i64
}

/// The inverse of the power CDF `F(x) = a x^b` (db_bench's
/// `PowerCdfInversion`), rounded up.
pub fn power_cdf_inversion(u: f64, a: f64, b: f64) -> i64 {
    (u / a).powf(1.0 / b).ceil() as i64
}

/// `A sin(B x + C) + D`: the target rate `x` seconds into the run.
pub fn sine_rate(x: f64, a: f64, b: f64, c: f64, d: f64) -> f64 {
    a * (b * x + c).sin() + d
}

/// The query types of mixgraph, in the order of their ratios.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Query {
    /// A point read.
    Get,
    /// A write.
    Put,
    /// A seek followed by a scan.
    Seek,
}

/// Picks a query type from a random number in proportion to the ratios
/// (db_bench's `QueryDecider`): the ratios become cumulative slots out of
/// about 1000.
#[derive(Clone, Debug)]
pub struct QueryDecider {
    bounds: Vec<i64>,
    range: i64,
}

impl QueryDecider {
    /// From the Get, Put and Seek ratios (any scale; at least one > 0).
    pub fn new(get: f64, put: f64, seek: f64) -> Result<Self, String> {
        let ratios = [get, put, seek];
        let sum: f64 = ratios.iter().sum();
        if ratios.iter().any(|r| *r < 0.0 || !r.is_finite()) || sum <= 0.0 {
            return Err(format!(
                "mixgraph needs non-negative --mix_get_ratio, --mix_put_ratio and --mix_seek_ratio with a positive sum (got {get}, {put}, {seek})"
            ));
        }
        let mut range = 0i64;
        let bounds = ratios
            .iter()
            .map(|r| {
                range += (1000.0 * (r / sum)).ceil() as i64;
                range
            })
            .collect();
        Ok(Self { bounds, range })
    }

    /// The query for random number `rand`.
    pub fn pick(&self, rand: i64) -> Query {
        let pos = rand.unsigned_abs() % self.range as u64;
        let i = self
            .bounds
            .iter()
            .position(|b| (pos as i64) < *b)
            .unwrap_or(0);
        [Query::Get, Query::Put, Query::Seek][i]
    }
}

/// One key range: where its slots start, how many it has (its hotness).
#[derive(Clone, Copy, Debug, PartialEq)]
struct KeyRange {
    start: i64,
    access: i64,
}

/// Key ranges whose hotness follows a two-term exponential (db_bench's
/// `GenerateTwoTermExpKeys`).
#[derive(Clone, Debug)]
pub struct TwoTermExpKeys {
    ranges: Vec<KeyRange>,
    rand_max: i64,
    range_size: i64,
}

impl TwoTermExpKeys {
    /// Cuts `total_keys` into `keyrange_num` ranges with hotness
    /// `a e^(b x) + c e^(d x)` for x = the range's number, counted down
    /// from `keyrange_num`, and shuffles them with a generator seeded by
    /// the total number of slots, as db_bench does.
    pub fn new(
        total_keys: i64,
        keyrange_num: i64,
        (a, b, c, d): (f64, f64, f64, f64),
    ) -> Result<Self, String> {
        let n = keyrange_num.max(1);
        let range_size = total_keys / n;
        if range_size == 0 {
            return Err(format!(
                "--keyrange_num={keyrange_num} leaves no key in a range of --num={total_keys}"
            ));
        }
        let mut amplify = 0i64;
        let mut start = 0i64;
        let mut ranges = Vec::with_capacity(n as usize);
        for x in (1..=n).rev() {
            let mut p = a * (b * x as f64).exp() + c * (d * x as f64).exp();
            if p < 1e-16 {
                p = 0.0;
            }
            if amplify == 0 && p > 0.0 {
                amplify = (1.0 / p).floor() as i64 + 1;
            }
            let access = if p > 0.0 {
                (amplify as f64 * p).floor() as i64
            } else {
                0
            };
            ranges.push(KeyRange { start, access });
            start += access;
        }
        let rand_max = start;
        if rand_max <= 0 {
            return Err(format!(
                "--keyrange_dist_a/b/c/d = {a}/{b}/{c}/{d} give every key range zero hotness"
            ));
        }
        let mut shuffle = Random64::new(rand_max as u64);
        for i in 0..n as usize {
            let pos = (shuffle.next_u64() % n as u64) as usize;
            ranges.swap(i, pos);
        }
        let mut offset = 0;
        for r in &mut ranges {
            r.start = offset;
            offset += r.access;
        }
        Ok(Self {
            ranges,
            rand_max,
            range_size,
        })
    }

    /// The range a random number falls in (db_bench's binary search).
    fn range_of(&self, ini_rand: i64) -> usize {
        let slot = ini_rand.rem_euclid(self.rand_max);
        let (mut lo, mut hi) = (0usize, self.ranges.len());
        while lo + 1 < hi {
            let mid = lo + (hi - lo) / 2;
            if slot < self.ranges[mid].start {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        lo
    }

    /// The key for random number `ini_rand` (db_bench's `DistGetKeyID`):
    /// its range, then the offset in it, uniform or by the power
    /// distribution `key_dist_a x^key_dist_b` seeding a generator.
    pub fn key(&self, ini_rand: i64, key_dist_a: f64, key_dist_b: f64) -> i64 {
        let id = self.range_of(ini_rand) as i64;
        let off = if key_dist_a == 0.0 || key_dist_b == 0.0 {
            ini_rand.rem_euclid(self.range_size)
        } else {
            let u = ini_rand.rem_euclid(self.range_size) as f64 / self.range_size as f64;
            let seed = power_cdf_inversion(u, key_dist_a, key_dist_b);
            (Random64::new(seed as u64).next_u64() % self.range_size as u64) as i64
        };
        self.range_size * id + off
    }

    /// Each range's share of the draws.
    pub fn shares(&self) -> Vec<f64> {
        self.ranges
            .iter()
            .map(|r| r.access as f64 / self.rand_max as f64)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::super::fit::{chi_square_fits, counts};
    use super::super::next_unit;
    use super::*;

    #[test]
    fn pareto_inversion_follows_its_cdf() {
        // X = theta + sigma (u^-k - 1) / k has survival function
        // S(x) = (1 + k (x - theta) / sigma)^(-1/k) for x >= theta; the
        // rounding up puts X in (m - 1, m] at m.
        let (theta, k, sigma): (f64, f64, f64) = (0.0, 0.2615, 25.45);
        let surv = |x: f64| {
            if x <= theta {
                1.0
            } else {
                (1.0 + k * (x - theta) / sigma).powf(-1.0 / k)
            }
        };
        let mut rng = Random64::new(5);
        let max = 200usize;
        let c = counts(max + 1, 100_000, || {
            let u = next_unit(&mut rng).max(f64::MIN_POSITIVE);
            (pareto_cdf_inversion(u, theta, k, sigma).max(0) as usize).min(max)
        });
        let mut p: Vec<f64> = (0..=max)
            .map(|m| surv(m as f64 - 1.0) - surv(m as f64))
            .collect();
        p[max] = surv(max as f64 - 1.0);
        chi_square_fits(&c, &p).unwrap();
        // k = 0 is the exponential: mean theta + sigma, plus about half a
        // unit from rounding up.
        let mut rng = Random64::new(6);
        let n = 100_000;
        let mean = (0..n)
            .map(|_| {
                let u = next_unit(&mut rng).max(f64::MIN_POSITIVE);
                pareto_cdf_inversion(u, 0.0, 0.0, 10.0) as f64
            })
            .sum::<f64>()
            / n as f64;
        assert!((mean - 10.5).abs() < 0.3, "{mean}");
    }

    #[test]
    fn power_inversion_follows_its_cdf() {
        // F(x) = a x^b over [0, (1/a)^(1/b)]: P(seed <= s) = a s^b.
        let (a, b): (f64, f64) = (0.002312, 0.3467);
        let top = (1.0 / a).powf(1.0 / b).ceil() as usize;
        let mut rng = Random64::new(9);
        let draws = 100_000;
        let cells = 40usize;
        let width = top.div_ceil(cells);
        let c = counts(cells, draws, || {
            let s = power_cdf_inversion(next_unit(&mut rng), a, b) as usize;
            (s.saturating_sub(1) / width).min(cells - 1)
        });
        let cdf = |s: f64| (a * s.powf(b)).min(1.0);
        let p: Vec<f64> = (0..cells)
            .map(|i| {
                let hi = if i == cells - 1 {
                    f64::INFINITY
                } else {
                    ((i + 1) * width) as f64
                };
                let lo = (i * width) as f64;
                (if hi.is_finite() { cdf(hi) } else { 1.0 }) - cdf(lo)
            })
            .collect();
        chi_square_fits(&c, &p).unwrap();
    }

    #[test]
    fn query_decider_splits_by_the_ratios() {
        let q = QueryDecider::new(0.83, 0.14, 0.03).unwrap();
        let mut rng = Random64::new(2);
        let draws = 100_000;
        let c = counts(3, draws, || q.pick(rng.next_u64() as i64) as usize);
        // Slots: ceil(830), ceil(140), ceil(30) of 1000.
        chi_square_fits(&c, &[0.83, 0.14, 0.03]).unwrap();
        assert_eq!(
            QueryDecider::new(1.0, 0.0, 0.0).unwrap().pick(-7),
            Query::Get
        );
        assert!(QueryDecider::new(0.0, 0.0, 0.0).is_err());
        assert!(QueryDecider::new(-1.0, 2.0, 0.0).is_err());
    }

    #[test]
    fn key_ranges_are_as_hot_as_the_two_term_exponential_says() {
        // RocksDB's published fit for its social-graph traces.
        let dist = (14.18, -2.917, 0.0164, -0.08082);
        let n = 30;
        let g = TwoTermExpKeys::new(300_000, n, dist).unwrap();
        let mut rng = Random64::new(4);
        let draws = 200_000;
        let c = counts(n as usize, draws, || {
            let k = g.key((rng.next_u64() >> 1) as i64, 0.0, 0.0);
            assert!((0..300_000).contains(&k));
            (k / 10_000) as usize
        });
        chi_square_fits(&c, &g.shares()).unwrap();
        // The shares follow the formula up to the integer slots: the
        // hottest range (x = 1) has e^(-2.917 * 1) * 14.18 + ... of the mass.
        let f = |x: f64| dist.0 * (dist.1 * x).exp() + dist.2 * (dist.3 * x).exp();
        let total: f64 = (1..=n).map(|x| f(x as f64)).sum();
        let mut shares = g.shares();
        shares.sort_by(|a, b| b.partial_cmp(a).unwrap());
        // db_bench gives the coldest range one slot and the others whole
        // multiples of its hotness, so shares are the formula's up to that
        // rounding.
        let want = f(1.0) / total;
        assert!(
            (shares[0] - want).abs() / want < 0.05,
            "{} vs {want}",
            shares[0]
        );
        // The same parameters shuffle the same way.
        let again = TwoTermExpKeys::new(300_000, n, dist).unwrap();
        assert_eq!(again.shares(), g.shares());
        assert!(TwoTermExpKeys::new(300_000, n, (0.0, 0.0, 0.0, 0.0)).is_err());
        assert!(TwoTermExpKeys::new(10, 30, dist).is_err());
    }

    #[test]
    fn sine_rate_is_a_shifted_sine() {
        assert_eq!(sine_rate(0.0, 1.0, 1.0, 0.0, 1.0), 1.0);
        let peak = sine_rate(std::f64::consts::FRAC_PI_2, 100.0, 1.0, 0.0, 500.0);
        assert!((peak - 600.0).abs() < 1e-9);
    }
}
