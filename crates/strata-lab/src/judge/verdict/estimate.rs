//! Estimates with their uncertainty: a value on an effect scale, its
//! variance and degrees of freedom, combined linearly with the
//! Welch-Satterthwaite approximation, and read as a 95% t-interval.
//!
//! Every verdict is built from these: the mean of a cell's repeats, the
//! difference of two cells, a pooled effect over points or a slope are all
//! linear combinations of per-cell means, each with its own sample variance.

use crate::data::stats::inc_beta;

/// A value with its sampling variance and degrees of freedom.
///
/// `var` is NaN when it cannot be estimated (a cell with one repeat): no
/// interval can be given then. `var == 0` (identical repeats) gives a
/// zero-width interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Est {
    /// The estimate.
    pub value: f64,
    /// Its variance (NaN: unknown).
    pub var: f64,
    /// Degrees of freedom of `var` (infinite when `var` is exact).
    pub df: f64,
}

impl Est {
    /// The mean of `xs` with its variance (s² / n) and n - 1 degrees of freedom.
    pub fn mean(xs: &[f64]) -> Option<Est> {
        if xs.is_empty() {
            return None;
        }
        let n = xs.len() as f64;
        let m = xs.iter().sum::<f64>() / n;
        if xs.len() < 2 {
            return Some(Est {
                value: m,
                var: f64::NAN,
                df: 0.0,
            });
        }
        let s2 = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0);
        Some(Est {
            value: m,
            var: s2 / n,
            df: if s2 == 0.0 { f64::INFINITY } else { n - 1.0 },
        })
    }

    /// `Σ cᵢ·eᵢ`, with variance `Σ cᵢ²·varᵢ` and Welch-Satterthwaite degrees
    /// of freedom `(Σ cᵢ²varᵢ)² / Σ (cᵢ²varᵢ)² / dfᵢ`.
    pub fn combine(terms: &[(f64, Est)]) -> Est {
        let value = terms.iter().map(|(c, e)| c * e.value).sum();
        let parts: Vec<(f64, f64)> = terms
            .iter()
            .filter(|(c, _)| *c != 0.0)
            .map(|(c, e)| (c * c * e.var, e.df))
            .collect();
        if parts.iter().any(|(v, _)| v.is_nan()) {
            return Est {
                value,
                var: f64::NAN,
                df: 0.0,
            };
        }
        let var: f64 = parts.iter().map(|(v, _)| v).sum();
        let denom: f64 = parts
            .iter()
            .filter(|(v, _)| *v > 0.0)
            .map(|(v, df)| v * v / df)
            .sum();
        let df = if var == 0.0 || denom == 0.0 {
            f64::INFINITY
        } else {
            var * var / denom
        };
        Est { value, var, df }
    }

    /// `b - a`.
    pub fn diff(a: &Est, b: &Est) -> Est {
        Est::combine(&[(-1.0, *a), (1.0, *b)])
    }

    /// The two-sided 95% t-interval, or `None` when the variance is unknown.
    pub fn interval(&self) -> Option<(f64, f64)> {
        self.interval_at(0.05)
    }

    /// The one-sided 95% bounds, below and above (together the two-sided
    /// 90% t-interval): what verdicts read, so that a claimed direction is
    /// a one-sided test at 5% and "within the minimum effect" is the two
    /// one-sided tests of equivalence at 5%. `None` when the variance is
    /// unknown.
    pub fn bounds(&self) -> Option<(f64, f64)> {
        self.interval_at(2.0 * alpha())
    }

    /// The one-sided bounds a direction reading uses: each at
    /// [`alpha`] x [`DIRECTION_SHARE`] (0.5% with one look).
    pub fn direction_bounds(&self) -> Option<(f64, f64)> {
        self.interval_at(2.0 * direction_level())
    }

    /// The two-sided t-interval at level 1 - `p`.
    fn interval_at(&self, p: f64) -> Option<(f64, f64)> {
        if self.var.is_nan() || self.df <= 0.0 {
            return None;
        }
        let h = t_quantile(self.df, p) * self.var.sqrt();
        Some((self.value - h, self.value + h))
    }
}

/// The error rate of each one-sided reading of an effect: above the
/// minimum effect, below it, or (both bounds) within it.
pub(crate) const ALPHA: f64 = 0.05;

thread_local! {
    /// How many times the claims of the study being judged are looked at
    /// (adaptive repeats judge after each round): each look spends
    /// `ALPHA / looks` (Bonferroni), so the claim's error rate over all its
    /// looks stays at most `ALPHA`.
    static LOOKS: std::cell::Cell<u32> = const { std::cell::Cell::new(1) };
}

/// The one-sided error rate each reading spends now: [`ALPHA`] over the
/// looks set by [`with_looks`].
pub(crate) fn alpha() -> f64 {
    ALPHA / f64::from(LOOKS.with(|l| l.get()).max(1))
}

/// Runs `f` with verdicts read at `ALPHA / looks` (a study with adaptive
/// repeats, judged after each of `looks` planned rounds).
pub(crate) fn with_looks<T>(looks: u32, f: impl FnOnce() -> T) -> T {
    struct Restore(u32);
    impl Drop for Restore {
        fn drop(&mut self) {
            LOOKS.with(|l| l.set(self.0));
        }
    }
    let _restore = Restore(LOOKS.with(|l| l.replace(looks.max(1))));
    f()
}

/// The share of [`alpha`] a direction reading (is the effect on the
/// claimed side of none at all?) spends: a direction is settled far more
/// easily than a size against the minimum effect, so it is read at the
/// stricter one-sided 0.5%, and two identical configurations rarely show
/// one (the blocked reading's choice of the narrower bounds raises the
/// measured rate to about twice that: `lab simulate`).
pub(crate) const DIRECTION_SHARE: f64 = 0.1;

/// The one-sided error rate a direction reading spends now.
pub(crate) fn direction_level() -> f64 {
    alpha() * DIRECTION_SHARE
}

/// Whether `e` lies on the positive side of 0 (`up`) or the negative side
/// by its direction bounds ([`Est::direction_bounds`]).
pub(crate) fn direction_clear(e: &Est, up: bool) -> bool {
    match e.direction_bounds() {
        Some((lo, _)) if up => lo > 0.0,
        Some((_, hi)) => hi < 0.0,
        None => false,
    }
}

/// Fewest repeats a cell needs for an interval that can decide a verdict.
/// With two, the sample variance has one degree of freedom and a metric
/// that takes one of two values by timing looks exact half the time.
pub(crate) const MIN_REPEATS: usize = 3;

/// Relative resolution assumed for a metric none of whose cells shows any
/// spread (deterministic counts): its standard deviation is floored at
/// this share of each cell's mean (an absolute 0.01 on the log scale).
pub(crate) const RESOLUTION: f64 = 0.01;

/// The means of the cells of one comparison (values already on the effect
/// scale; `log` says whether that scale is the log one), with the rules
/// that keep identical or too few repeats from deciding a verdict:
///
/// - a cell with fewer than [`MIN_REPEATS`] repeats has no interval;
/// - a cell whose repeats are identical borrows the pooled within-cell
///   variance (and its degrees of freedom) of the comparison's cells that
///   do show spread, so it never gets a zero-width interval;
/// - when no cell shows spread, the metric is taken as resolved to
///   [`RESOLUTION`] of its value (its variance floored at that, with n - 1
///   degrees of freedom).
pub(crate) fn floored_means(cells: &[Vec<f64>], log: bool) -> Vec<Option<Est>> {
    let stats: Vec<Option<(usize, f64, f64)>> = cells
        .iter()
        .map(|xs| {
            if xs.is_empty() {
                return None;
            }
            let n = xs.len() as f64;
            let m = xs.iter().sum::<f64>() / n;
            let s2 = if xs.len() < 2 {
                f64::NAN
            } else {
                xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0)
            };
            // Repeats equal but for floating-point rounding are identical.
            let s2 = if s2 <= 1e-18 * m * m { 0.0 } else { s2 };
            Some((xs.len(), m, s2))
        })
        .collect();
    let (ss, dfs) = stats
        .iter()
        .flatten()
        .filter(|(n, _, s2)| *n >= 2 && *s2 > 0.0)
        .fold((0.0, 0.0), |(ss, df), (n, _, s2)| {
            (ss + (*n as f64 - 1.0) * s2, df + (*n as f64 - 1.0))
        });
    let pooled = (dfs > 0.0).then(|| (ss / dfs, dfs));
    stats
        .iter()
        .map(|st| {
            let (n, m, s2) = (*st)?;
            if n < MIN_REPEATS {
                return Some(Est {
                    value: m,
                    var: f64::NAN,
                    df: 0.0,
                });
            }
            let nf = n as f64;
            let (s2, df) = if s2 > 0.0 {
                (s2, nf - 1.0)
            } else if let Some((p, pdf)) = pooled {
                (p, pdf)
            } else {
                let sd = if log {
                    RESOLUTION
                } else {
                    RESOLUTION * m.abs()
                };
                (sd * sd, nf - 1.0)
            };
            Some(Est {
                value: m,
                var: s2 / nf,
                df: if s2 == 0.0 { f64::INFINITY } else { df },
            })
        })
        .collect()
}

/// The difference `b - a` of two cells read with the repeat as a block:
/// the mean of the per-repeat differences over the repeats both cells ran,
/// with variance `s_d² / n` and `n - 1` degrees of freedom. A drift of the
/// host that moves every cell of a repeat together cancels in each
/// difference. `None` with fewer than [`MIN_REPEATS`] common repeats, or
/// when the differences are identical (no spread to estimate: the unpaired
/// estimate, with its floors, stays).
pub(crate) fn paired_diff(a: &[f64], ia: &[u32], b: &[f64], ib: &[u32]) -> Option<Est> {
    let d: Vec<f64> = ib
        .iter()
        .zip(b)
        .filter_map(|(r, y)| ia.iter().position(|q| q == r).map(|k| y - a[k]))
        .collect();
    if d.len() < MIN_REPEATS {
        return None;
    }
    let e = Est::mean(&d)?;
    let scale = d.iter().map(|x| x.abs()).fold(0.0, f64::max).max(1e-300);
    (e.var > 1e-18 * scale * scale).then_some(e)
}

/// The blocked reading's rule: the paired estimate where its one-sided
/// bounds are narrower than the unpaired (Welch) estimate's, else the
/// unpaired one. Pairing gains where repeats of different cells move
/// together (positive within-repeat correlation) and costs degrees of
/// freedom (n - 1 instead of about 2n - 2) where they do not; so it never
/// widens an interval. `lab simulate` measures the false-verdict rate of
/// the rule with and without a shared drift per repeat.
pub(crate) fn narrower(unpaired: Est, paired: Option<Est>) -> Est {
    let half = |e: &Est| e.bounds().map(|(lo, hi)| hi - lo);
    match (paired, half(&unpaired)) {
        (Some(p), Some(hu)) if half(&p).is_some_and(|hp| hp < hu) => p,
        _ => unpaired,
    }
}

/// The quantile `t` of Student's t with `df` degrees of freedom that
/// leaves `p` in both tails together (`P(|T| > t) = p`); the normal
/// quantile for infinite df.
pub(crate) fn t_quantile(df: f64, p: f64) -> f64 {
    let tail = |t: f64| -> f64 {
        if df.is_finite() {
            // P(|T| > t) = I_{df/(df+t²)}(df/2, 1/2).
            inc_beta(df / 2.0, 0.5, df / (df + t * t))
        } else {
            crate::data::stats::erfc(t / std::f64::consts::SQRT_2)
        }
    };
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while tail(hi) > p && hi < 1e9 {
        hi *= 2.0;
    }
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if tail(mid) > p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// The scale effects are measured on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Scale {
    /// Natural log of the values: differences are log ratios, and a minimum
    /// effect `e` is `ln(1 + e)` either way. Used when every value is positive.
    Log,
    /// Values divided by a reference (the largest point mean in absolute
    /// value): differences are fractions of it. Used when some value is 0
    /// or negative (stall time), where a ratio is undefined.
    Linear(f64),
    /// Two series compared where some value is 0: at each point, the
    /// difference as a fraction of that point's larger mean.
    Relative,
}

impl Scale {
    /// Log when every value of every sample is positive, else linear
    /// relative to the largest absolute sample mean (1 when all are 0).
    pub fn choose(samples: &[&[f64]]) -> Scale {
        if samples.iter().all(|s| s.iter().all(|x| *x > 0.0)) {
            return Scale::Log;
        }
        let r = samples
            .iter()
            .filter(|s| !s.is_empty())
            .map(|s| (s.iter().sum::<f64>() / s.len() as f64).abs())
            .fold(0.0, f64::max);
        Scale::Linear(if r > 0.0 { r } else { 1.0 })
    }

    /// A value on this scale.
    pub fn map(&self, x: f64) -> f64 {
        match self {
            Scale::Log => x.ln(),
            Scale::Linear(r) => x / r,
            Scale::Relative => x,
        }
    }

    /// The means of a comparison's cells on this scale, by the rules of
    /// [`floored_means`].
    pub fn means(&self, cells: &[Vec<f64>]) -> Vec<Option<Est>> {
        let mapped: Vec<Vec<f64>> = cells
            .iter()
            .map(|xs| xs.iter().map(|x| self.map(*x)).collect())
            .collect();
        floored_means(&mapped, *self == Scale::Log)
    }

    /// A minimum relative effect as a distance on this scale.
    pub fn threshold(&self, min_effect: f64) -> f64 {
        match self {
            Scale::Log => min_effect.ln_1p(),
            Scale::Linear(_) | Scale::Relative => min_effect,
        }
    }

    /// A difference on this scale in words: a ratio (`1.23`) on the log
    /// scale, a signed difference in the metric's units on the linear one,
    /// a signed share of the larger mean (`+35.0%`) on the relative one.
    pub fn diff_text(&self, d: f64) -> String {
        match self {
            Scale::Log if d.exp() >= 1000.0 => crate::data::format::fmt_num(d.exp()),
            Scale::Log => format!("{:.3}", d.exp()),
            Scale::Linear(r) => crate::data::format::fmt_num(d * r),
            Scale::Relative => format!("{:+.1}%", d * 100.0),
        }
    }
}

/// Where an interval lies against a minimum effect `t` (on the same scale).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    /// Entirely above `+t`: an effect in the claimed direction.
    With,
    /// Entirely below `-t`: an effect in the other direction.
    Against,
    /// Entirely within `[-t, t]`: no effect as large as `t`.
    Null,
    /// Straddles a boundary, or has no interval: the data cannot tell.
    Unclear,
}

/// Classifies `e` against the minimum effect `t` by its one-sided 95%
/// bounds ([`Est::bounds`]).
pub(crate) fn side(e: &Est, t: f64) -> Side {
    match e.bounds() {
        None => Side::Unclear,
        Some((lo, _)) if lo > t => Side::With,
        Some((_, hi)) if hi < -t => Side::Against,
        Some((lo, hi)) if lo >= -t && hi <= t => Side::Null,
        Some(_) => Side::Unclear,
    }
}

/// `e` with its sign flipped (an effect read in the other direction).
pub(crate) fn neg(e: &Est) -> Est {
    Est {
        value: -e.value,
        ..*e
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn t_quantiles_match_tables() {
        for (df, t) in [
            (1.0, 12.706),
            (2.0, 4.303),
            (4.0, 2.776),
            (10.0, 2.228),
            (30.0, 2.042),
        ] {
            assert!(
                (t_quantile(df, 0.05) - t).abs() < 2e-3,
                "df {df}: {}",
                t_quantile(df, 0.05)
            );
        }
        assert!((t_quantile(f64::INFINITY, 0.05) - 1.96).abs() < 1e-3);
        // One-sided 95% (two-sided 90%): 2.920 at 2 df, 1.812 at 10, 1.645 at infinity.
        for (df, t) in [(2.0, 2.920), (10.0, 1.812), (f64::INFINITY, 1.645)] {
            assert!(
                (t_quantile(df, 0.10) - t).abs() < 2e-3,
                "df {df}: {}",
                t_quantile(df, 0.10)
            );
        }
        // Fractional df lies between its neighbours.
        assert!(
            t_quantile(2.5, 0.05) < t_quantile(2.0, 0.05)
                && t_quantile(2.5, 0.05) > t_quantile(3.0, 0.05)
        );
    }

    #[test]
    fn mean_and_difference() {
        let a = Est::mean(&[1.0, 2.0, 3.0]).unwrap();
        assert_eq!(a.value, 2.0);
        assert!((a.var - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(a.df, 2.0);
        let b = Est::mean(&[3.0, 4.0, 5.0]).unwrap();
        let d = Est::diff(&a, &b);
        assert_eq!(d.value, 2.0);
        // Equal variances and sizes: Satterthwaite gives n1 + n2 - 2.
        assert!((d.df - 4.0).abs() < 1e-9, "{}", d.df);
        let (lo, hi) = d.interval().unwrap();
        assert!((hi - lo) / 2.0 - 2.776 * (2.0f64 / 3.0).sqrt() < 1e-3);
        // One repeat: no interval.
        let one = Est::mean(&[5.0]).unwrap();
        assert!(Est::diff(&a, &one).interval().is_none());
        // Identical repeats: a zero-width interval.
        let z = Est::mean(&[2.0, 2.0]).unwrap();
        assert_eq!(z.interval(), Some((2.0, 2.0)));
    }

    #[test]
    fn sides() {
        let t = 0.05f64.ln_1p();
        let at = |v: f64, sd: f64| Est {
            value: v,
            var: sd * sd,
            df: f64::INFINITY,
        };
        assert_eq!(side(&at(0.2, 0.01), t), Side::With);
        assert_eq!(side(&at(-0.2, 0.01), t), Side::Against);
        assert_eq!(side(&at(0.0, 0.01), t), Side::Null);
        assert_eq!(side(&at(0.05, 0.02), t), Side::Unclear);
        assert_eq!(side(&at(0.0, 0.5), t), Side::Unclear);
    }

    #[test]
    fn scale_choice() {
        assert_eq!(Scale::choose(&[&[1.0, 2.0], &[3.0]]), Scale::Log);
        assert_eq!(Scale::choose(&[&[0.0, 2.0], &[-4.0]]), Scale::Linear(4.0));
        assert_eq!(Scale::choose(&[&[0.0, 0.0]]), Scale::Linear(1.0));
        assert!((Scale::Log.threshold(0.05) - 1.05f64.ln()).abs() < 1e-12);
    }
}
