//! YCSB's zipfian generators (`site.ycsb.generator.ZipfianGenerator` and
//! `ScrambledZipfianGenerator`).
//!
//! [`Zipfian`] draws item `i` of `n` with probability close to
//! `(1 / (i + 1)^theta) / zeta(n, theta)`: Gray et al.'s method, exact for
//! the two most popular items and a close approximation for the rest, as
//! YCSB does it (including its quirk of keeping the first item count in
//! `eta` when the count grows). [`ScrambledZipfian`] draws from a zipfian
//! over 10^10 items and hashes the draw into the key space, so the popular
//! keys are spread out rather than clustered at the start.

use super::next_unit;
use crate::rng::Random64;

/// YCSB's default zipfian constant.
pub const ZIPFIAN_CONSTANT: f64 = 0.99;

/// The item count of the zipfian behind [`ScrambledZipfian`].
pub const SCRAMBLED_ITEM_COUNT: u64 = 10_000_000_000;

/// `zeta(SCRAMBLED_ITEM_COUNT, 0.99)` as YCSB hard-codes it.
pub const SCRAMBLED_ZETAN: f64 = 26.469_028_201_783_02;

/// `sum_{i = from}^{to - 1} 1 / (i + 1)^theta`, summed term by term.
pub fn zeta_range(from: u64, to: u64, theta: f64) -> f64 {
    (from..to).map(|i| 1.0 / ((i + 1) as f64).powf(theta)).sum()
}

/// `zeta(n, theta) = sum_{i = 1}^{n} 1 / i^theta`: exact below a million
/// terms; above, the first thousand terms exactly and the rest by the
/// Euler-Maclaurin formula (relative error far below 1e-12), so that a
/// constant other than 0.99 over 10^10 items does not take minutes as it
/// does in YCSB.
pub fn zeta(n: u64, theta: f64) -> f64 {
    const EXACT: u64 = 1_000_000;
    if n <= EXACT {
        return zeta_range(0, n, theta);
    }
    let m = 1000u64;
    let head = zeta_range(0, m - 1, theta);
    let (mf, nf) = (m as f64, n as f64);
    let integral = if (theta - 1.0).abs() < 1e-12 {
        nf.ln() - mf.ln()
    } else {
        (nf.powf(1.0 - theta) - mf.powf(1.0 - theta)) / (1.0 - theta)
    };
    let f = |x: f64| x.powf(-theta);
    let f1 = |x: f64| -theta * x.powf(-theta - 1.0);
    let f3 = |x: f64| -theta * (theta + 1.0) * (theta + 2.0) * x.powf(-theta - 3.0);
    head + integral + (f(mf) + f(nf)) / 2.0 + (f1(nf) - f1(mf)) / 12.0 - (f3(nf) - f3(mf)) / 720.0
}

/// YCSB's `ZipfianGenerator` over `[base, base + items)`.
#[derive(Clone, Debug)]
pub struct Zipfian {
    items: u64,
    base: u64,
    theta: f64,
    zeta2theta: f64,
    alpha: f64,
    zetan: f64,
    eta: f64,
    count_for_zeta: u64,
}

impl Zipfian {
    /// A zipfian over `items` items starting at `base`; `theta` in (0, 1).
    pub fn new(base: u64, items: u64, theta: f64) -> Self {
        Self::with_zetan(base, items, theta, zeta(items, theta))
    }

    /// As [`Zipfian::new`] with `zeta(items, theta)` given.
    pub fn with_zetan(base: u64, items: u64, theta: f64, zetan: f64) -> Self {
        let zeta2theta = zeta(2, theta);
        let mut z = Self {
            items,
            base,
            theta,
            zeta2theta,
            alpha: 1.0 / (1.0 - theta),
            zetan,
            eta: 0.0,
            count_for_zeta: items,
        };
        z.eta = z.eta_for(zetan);
        z
    }

    fn eta_for(&self, zetan: f64) -> f64 {
        (1.0 - (2.0 / self.items as f64).powf(1.0 - self.theta)) / (1.0 - self.zeta2theta / zetan)
    }

    /// A draw over the first `item_count` items (YCSB's `nextLong`): a
    /// count larger than the last one extends zeta incrementally; a smaller
    /// one keeps the larger zeta, as YCSB does by default.
    pub fn next_of(&mut self, rng: &mut Random64, item_count: u64) -> u64 {
        if item_count > self.count_for_zeta {
            self.zetan += zeta_range(self.count_for_zeta, item_count, self.theta);
            self.count_for_zeta = item_count;
            self.eta = self.eta_for(self.zetan);
        }
        let u = next_unit(rng);
        let uz = u * self.zetan;
        if uz < 1.0 {
            return self.base;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return self.base + 1;
        }
        self.base + (item_count as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64
    }

    /// A draw over all the generator's items.
    pub fn next(&mut self, rng: &mut Random64) -> u64 {
        self.next_of(rng, self.items)
    }
}

/// YCSB's 64-bit FNV-1 hash of a number's eight little-endian bytes
/// (`Utils.fnvhash64`); YCSB's `Math.abs` of the signed result becomes the
/// unsigned magnitude, so the one value Java leaves negative stays in range.
pub fn fnv_hash64(mut val: u64) -> u64 {
    let mut h: u64 = 0xCBF2_9CE4_8422_2325;
    for _ in 0..8 {
        h ^= val & 0xff;
        val >>= 8;
        h = h.wrapping_mul(1_099_511_628_211);
    }
    (h as i64).unsigned_abs()
}

/// YCSB's `ScrambledZipfianGenerator` over `[min, min + items)`.
#[derive(Clone, Debug)]
pub struct ScrambledZipfian {
    min: u64,
    items: u64,
    gen: Zipfian,
}

impl ScrambledZipfian {
    /// Popular items spread over `items` keys from `min`.
    pub fn new(min: u64, items: u64, theta: f64) -> Self {
        let n = SCRAMBLED_ITEM_COUNT + 1;
        let gen = if theta == ZIPFIAN_CONSTANT {
            Zipfian::with_zetan(0, n, theta, SCRAMBLED_ZETAN)
        } else {
            Zipfian::new(0, n, theta)
        };
        Self { min, items, gen }
    }

    /// The next key.
    pub fn next(&mut self, rng: &mut Random64) -> u64 {
        self.min + fnv_hash64(self.gen.next(rng)) % self.items
    }
}

#[cfg(test)]
mod tests {
    use super::super::fit::{chi_square_fits, counts};
    use super::*;

    #[test]
    fn zeta_of_ten_billion_matches_ycsbs_constant() {
        let z = zeta(SCRAMBLED_ITEM_COUNT, ZIPFIAN_CONSTANT);
        assert!((z - SCRAMBLED_ZETAN).abs() < 1e-9, "{z}");
        // The approximation agrees with the exact sum just above the cut.
        let n = 3_000_000;
        let exact = zeta_range(0, n, 0.8);
        assert!((zeta(n, 0.8) - exact).abs() / exact < 1e-12);
    }

    /// The probability of each item under Gray et al.'s method itself:
    /// item 0 for u < 1/zeta(n), item 1 below (1 + 0.5^theta)/zeta(n), and
    /// above that item floor(n (eta u - eta + 1)^alpha), whose preimage of
    /// item r starts at v(r) = 1 + ((r/n)^(1/alpha) - 1)/eta.
    fn grays_probabilities(z: &Zipfian) -> Vec<f64> {
        let n = z.items as usize;
        let b0 = 1.0 / z.zetan;
        let b1 = (1.0 + 0.5f64.powf(z.theta)) / z.zetan;
        let v = |r: usize| 1.0 + ((r as f64 / n as f64).powf(1.0 / z.alpha) - 1.0) / z.eta;
        let mut p: Vec<f64> = (0..n)
            .map(|r| {
                let lo = v(r).max(b1);
                let hi = if r + 1 == n {
                    1.0
                } else {
                    v(r + 1).clamp(b1, 1.0)
                };
                (hi - lo).max(0.0)
            })
            .collect();
        p[0] += b0;
        p[1] += b1 - b0;
        p
    }

    #[test]
    fn zipfian_frequencies_follow_grays_method_and_the_zipf_law() {
        let n = 50;
        let mut z = Zipfian::new(0, n, ZIPFIAN_CONSTANT);
        let mut rng = Random64::new(7);
        let draws = 200_000;
        let c = counts(n as usize, draws, || z.next(&mut rng) as usize);
        let grays = grays_probabilities(&z);
        assert!((grays.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        chi_square_fits(&c, &grays).unwrap();
        // The method approximates Zipf's law: exact for the two most
        // popular items, within a few percent of the mass overall.
        let zn = zeta(n, ZIPFIAN_CONSTANT);
        let law: Vec<f64> = (0..n)
            .map(|i| 1.0 / ((i + 1) as f64).powf(ZIPFIAN_CONSTANT) / zn)
            .collect();
        assert!((grays[0] - law[0]).abs() < 1e-12);
        assert!((grays[1] - law[1]).abs() < 1e-12);
        let tv: f64 = grays
            .iter()
            .zip(&law)
            .map(|(g, l)| (g - l).abs())
            .sum::<f64>()
            / 2.0;
        assert!(tv < 0.03, "total variation {tv}");
        // A uniform key choice does not pass as zipfian.
        let mut u = Random64::new(7);
        let flat = counts(n as usize, draws, || (u.next_u64() % n) as usize);
        assert!(chi_square_fits(&flat, &grays).is_err());
    }

    #[test]
    fn a_larger_item_count_extends_zeta_incrementally() {
        let mut z = Zipfian::new(0, 100, 0.9);
        let mut rng = Random64::new(1);
        let _ = z.next_of(&mut rng, 200);
        assert!((z.zetan - zeta(200, 0.9)).abs() < 1e-9);
        for _ in 0..10_000 {
            assert!(z.next_of(&mut rng, 200) < 200);
        }
    }

    #[test]
    fn scrambled_keys_stay_in_range_and_keep_the_skew() {
        let n = 1000u64;
        let mut s = ScrambledZipfian::new(5, n, ZIPFIAN_CONSTANT);
        let mut rng = Random64::new(3);
        let draws = 100_000;
        let mut c = counts(n as usize, draws, || {
            let k = s.next(&mut rng);
            assert!((5..5 + n).contains(&k));
            (k - 5) as usize
        });
        // The hottest key is one of the two most popular items (each about
        // 4% and 2% of draws), not the first key of the range.
        c.sort_unstable_by(|a, b| b.cmp(a));
        let top = c[0] as f64 / draws as f64;
        assert!(top > 0.03 && top < 0.06, "{top}");
        assert!(c[999] < c[0] / 20);
    }

    #[test]
    fn fnv_hash64_is_ycsbs() {
        // FNV-1 of eight zero bytes, folded to a positive long.
        let mut h: u64 = 0xCBF2_9CE4_8422_2325;
        for _ in 0..8 {
            h = h.wrapping_mul(1_099_511_628_211);
        }
        assert_eq!(fnv_hash64(0), (h as i64).unsigned_abs());
        assert_ne!(fnv_hash64(1), fnv_hash64(256));
    }
}
