//! Gaussian process regression on the unit-cube encoding.
//!
//! The outputs are standardised (mean 0, standard deviation 1; a scale of 1
//! when every output is equal) and modelled with a zero mean and a Matérn
//! 5/2 kernel: one length scale per group of input coordinates (a group is
//! one option, so a Choice option's one-hot block shares a length scale), a
//! signal variance, and a noise variance added on the diagonal, since
//! repeated runs of one configuration differ. The hyperparameters maximise
//! the log marginal likelihood plus weak log-normal priors on the length
//! scales ([`LENGTH_PRIOR`]) and the signal variance ([`SIGNAL_PRIOR`]),
//! which steady the fit of a handful of observations, within
//! [`LENGTH_BOUNDS`], [`SIGNAL_BOUNDS`] and [`NOISE_BOUNDS`] (the noise
//! variance kept at least [`MIN_NOISE_RATIO`] of the signal variance). The
//! search is seeded random draws followed by coordinate ascent from the
//! best of them, in log space. A classifier's labels take a noise variance
//! fixed as a share of the signal's instead ([`Noise::Ratio`]).

use std::ops::Range;

use anyhow::{bail, Result};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::linalg::{cholesky, solve_lower, solve_upper_t};

/// Bounds of each length scale, in unit-cube distance.
pub(crate) const LENGTH_BOUNDS: (f64, f64) = (0.05, 5.0);
/// Bounds of the signal variance, on the standardised scale.
pub(crate) const SIGNAL_BOUNDS: (f64, f64) = (0.05, 20.0);
/// Bounds of the noise variance, on the standardised scale.
pub(crate) const NOISE_BOUNDS: (f64, f64) = (1e-6, 2.0);
/// The noise variance is never below this share of the signal variance.
pub(crate) const MIN_NOISE_RATIO: f64 = 1e-4;
/// Median and standard deviation (in log units) of the weak log-normal
/// prior on each length scale, which keeps a handful of observations from
/// being fitted with wiggles (very short length scales) or ignored options
/// (very long ones).
pub(crate) const LENGTH_PRIOR: (f64, f64) = (0.5, 1.0);
/// Median and standard deviation (in log units) of the weak log-normal
/// prior on the signal variance (standardised outputs vary by about 1).
pub(crate) const SIGNAL_PRIOR: (f64, f64) = (1.0, 1.0);
/// Added to the diagonal for numerical safety.
const JITTER: f64 = 1e-9;
/// Random hyperparameter draws before the coordinate ascent, plus this many
/// per length scale.
const RANDOM_DRAWS: usize = 32;
const RANDOM_DRAWS_PER_LENGTH: usize = 8;
/// Best draws the coordinate ascent starts from.
const ASCENT_STARTS: usize = 3;
/// Step sizes of the coordinate ascent, in log units, largest first.
const ASCENT_STEPS: [f64; 5] = [1.0, 0.5, 0.25, 0.12, 0.06];

/// Kernel hyperparameters, on the standardised scale.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Hyper {
    /// One length scale per input group.
    pub lengths: Vec<f64>,
    /// Variance of the latent function.
    pub signal_var: f64,
    /// Variance of one observation around the latent function.
    pub noise_var: f64,
}

/// How the noise variance is chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Noise {
    /// Fitted with the other hyperparameters (run-to-run spread).
    Fitted,
    /// This share of the signal variance (labels that are nearly exact).
    Ratio(f64),
}

impl Hyper {
    /// From log-space coordinates `[ln l_1, .., ln l_p, ln signal, ln noise]`
    /// (the last ignored unless the noise is fitted).
    fn from_log(theta: &[f64], noise: Noise) -> Hyper {
        let p = theta.len() - 2;
        let signal_var = theta[p].exp();
        let noise_var = match noise {
            Noise::Fitted => theta[p + 1].exp().max(MIN_NOISE_RATIO * signal_var),
            Noise::Ratio(r) => r * signal_var,
        };
        Hyper {
            lengths: theta[..p].iter().map(|t| t.exp()).collect(),
            signal_var,
            noise_var,
        }
    }
}

/// Matérn 5/2 correlation at squared scaled distance `r2`.
fn matern52(r2: f64) -> f64 {
    let s = (5.0 * r2).sqrt();
    (1.0 + s + s * s / 3.0) * (-s).exp()
}

/// Squared distance between `a` and `b` within each group.
fn group_sq_dists(a: &[f64], b: &[f64], groups: &[Range<usize>]) -> Vec<f64> {
    groups
        .iter()
        .map(|g| {
            a[g.clone()]
                .iter()
                .zip(&b[g.clone()])
                .map(|(u, v)| (u - v) * (u - v))
                .sum()
        })
        .collect()
}

/// The pairwise squared distances of the training inputs, per group
/// (`d[g][i * n + j]`), computed once for the hyperparameter search.
struct Distances {
    n: usize,
    d: Vec<Vec<f64>>,
}

impl Distances {
    fn new(x: &[Vec<f64>], groups: &[Range<usize>]) -> Distances {
        let n = x.len();
        let mut d = vec![vec![0.0; n * n]; groups.len()];
        for i in 0..n {
            for j in 0..i {
                for (g, v) in group_sq_dists(&x[i], &x[j], groups).into_iter().enumerate() {
                    d[g][i * n + j] = v;
                    d[g][j * n + i] = v;
                }
            }
        }
        Distances { n, d }
    }

    /// The covariance matrix of the observations under `h`, the
    /// observations from `exact_from` on taken as noise-free (their noise
    /// at the floor, [`MIN_NOISE_RATIO`] of the signal).
    fn covariance(&self, h: &Hyper, exact_from: usize) -> Vec<f64> {
        let n = self.n;
        let inv: Vec<f64> = h.lengths.iter().map(|l| 1.0 / (l * l)).collect();
        let mut k = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..i {
                let r2: f64 = self.d.iter().zip(&inv).map(|(d, w)| d[i * n + j] * w).sum();
                let v = h.signal_var * matern52(r2);
                k[i * n + j] = v;
                k[j * n + i] = v;
            }
            let noise = if i < exact_from {
                h.noise_var
            } else {
                MIN_NOISE_RATIO * h.signal_var
            };
            k[i * n + i] = h.signal_var + noise + JITTER;
        }
        k
    }
}

/// The log density of the priors at `theta` (log-space hyperparameters:
/// the length scales, the signal, the noise), up to a constant. The noise
/// has none: within its bounds the likelihood alone decides it.
fn log_prior(theta: &[f64]) -> f64 {
    let log_normal = |t: f64, (median, sd): (f64, f64)| -0.5 * ((t - f64::ln(median)) / sd).powi(2);
    let p = theta.len() - 2;
    theta[..p]
        .iter()
        .map(|&t| log_normal(t, LENGTH_PRIOR))
        .sum::<f64>()
        + log_normal(theta[p], SIGNAL_PRIOR)
}

/// A Cholesky factor of the covariance (observations from `exact_from` on
/// noise-free), `alpha = K⁻¹ y`, and the log marginal likelihood of `y`;
/// None if the covariance is not positive definite.
fn factor(
    dist: &Distances,
    y: &[f64],
    h: &Hyper,
    exact_from: usize,
) -> Option<(Vec<f64>, Vec<f64>, f64)> {
    let n = dist.n;
    let mut l = dist.covariance(h, exact_from);
    if !cholesky(&mut l, n) {
        return None;
    }
    let alpha = solve_upper_t(&l, n, &solve_lower(&l, n, y));
    let fit: f64 = y.iter().zip(&alpha).map(|(a, b)| a * b).sum();
    let log_det: f64 = (0..n).map(|i| l[i * n + i].ln()).sum();
    let lml = -0.5 * fit - log_det - 0.5 * n as f64 * (2.0 * std::f64::consts::PI).ln();
    lml.is_finite().then_some((l, alpha, lml))
}

/// What a process is conditioned on: the observations, their outputs
/// standardised, and the hyperparameters.
#[derive(Clone, Debug)]
struct Conditioning {
    /// The coordinates of each input group (an option: one coordinate, or
    /// a choice's one-hot block).
    groups: Vec<Range<usize>>,
    /// The inputs, in the unit cube.
    x: Vec<Vec<f64>>,
    /// Standardised outputs.
    y: Vec<f64>,
    /// The mean and standard deviation the outputs were standardised by.
    y_mean: f64,
    y_sd: f64,
    /// Length scales, signal and noise variance, on the standardised scale.
    hyper: Hyper,
    /// Observations from this one on are noise-free (believed, not run).
    exact_from: usize,
}

impl Conditioning {
    /// The process conditioned so; `None` when the covariance of the
    /// observations is singular.
    fn factor(self) -> Option<Gp> {
        let dist = Distances::new(&self.x, &self.groups);
        let (chol, alpha, _) = factor(&dist, &self.y, &self.hyper, self.exact_from)?;
        Some(Gp {
            on: self,
            chol,
            alpha,
        })
    }
}

/// A Gaussian process conditioned on observations.
#[derive(Clone, Debug)]
pub(crate) struct Gp {
    on: Conditioning,
    chol: Vec<f64>,
    alpha: Vec<f64>,
}

impl Gp {
    /// Fits a process to outputs `y` at inputs `x` (each of the same
    /// length, the coordinates of `groups`), choosing the hyperparameters
    /// as the module describes; `seed` seeds their random search.
    pub fn fit(
        x: Vec<Vec<f64>>,
        y: &[f64],
        groups: Vec<Range<usize>>,
        noise: Noise,
        seed: u64,
    ) -> Result<Gp> {
        let n = x.len();
        if n == 0 {
            bail!("no observation to fit");
        }
        if y.len() != n {
            bail!("{} inputs but {} outputs", n, y.len());
        }
        let dims = groups.last().map_or(0, |g| g.end);
        if x.iter().any(|v| v.len() != dims) {
            bail!("an input does not have {dims} coordinates");
        }
        if y.iter().any(|v| !v.is_finite()) {
            bail!("an output is not a finite number");
        }
        let y_mean = y.iter().sum::<f64>() / n as f64;
        let var = y.iter().map(|v| (v - y_mean) * (v - y_mean)).sum::<f64>() / n as f64;
        let y_sd = if var > 0.0 { var.sqrt() } else { 1.0 };
        let ys: Vec<f64> = y.iter().map(|v| (v - y_mean) / y_sd).collect();
        let dist = Distances::new(&x, &groups);

        let p = groups.len();
        let mut lo = vec![LENGTH_BOUNDS.0.ln(); p];
        let mut hi = vec![LENGTH_BOUNDS.1.ln(); p];
        lo.extend([SIGNAL_BOUNDS.0.ln(), NOISE_BOUNDS.0.ln()]);
        hi.extend([SIGNAL_BOUNDS.1.ln(), NOISE_BOUNDS.1.ln()]);
        if noise != Noise::Fitted {
            hi[p + 1] = lo[p + 1];
        }
        let score = |theta: &[f64]| {
            factor(&dist, &ys, &Hyper::from_log(theta, noise), n)
                .map_or(f64::NEG_INFINITY, |f| f.2 + log_prior(theta))
        };

        let mut rng = StdRng::seed_from_u64(seed);
        let mut default = vec![0.3f64.ln(); p];
        default.extend([0.0, 0.1f64.ln()]);
        let mut draws = vec![(score(&default), default)];
        for _ in 0..RANDOM_DRAWS + RANDOM_DRAWS_PER_LENGTH * p {
            let theta: Vec<f64> = lo
                .iter()
                .zip(&hi)
                .map(|(a, b)| rng.gen_range(*a..=*b))
                .collect();
            draws.push((score(&theta), theta));
        }
        draws.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut best = draws[0].clone();
        for (s0, t0) in draws.into_iter().take(ASCENT_STARTS) {
            let (mut s, mut theta) = (s0, t0);
            for step in ASCENT_STEPS {
                let mut moved = true;
                while moved {
                    moved = false;
                    for j in (0..theta.len()).filter(|&j| lo[j] < hi[j]) {
                        for dir in [1.0, -1.0] {
                            let mut t = theta.clone();
                            t[j] = (t[j] + dir * step).clamp(lo[j], hi[j]);
                            let v = score(&t);
                            if v > s + 1e-9 {
                                (s, theta) = (v, t);
                                moved = true;
                                break;
                            }
                        }
                    }
                }
            }
            if s > best.0 {
                best = (s, theta);
            }
        }
        Conditioning {
            groups,
            x,
            y: ys,
            y_mean,
            y_sd,
            hyper: Hyper::from_log(&best.1, noise),
            exact_from: n,
        }
        .factor()
        .ok_or_else(|| anyhow::anyhow!("the covariance of the observations is singular"))
    }

    /// This process also conditioned on noise-free values `ys` at `xs`,
    /// with the same hyperparameters and standardisation. Where each value
    /// is the posterior mean at its point (a "kriging believer"), the mean
    /// stays as it was everywhere and the uncertainty at those points goes.
    pub fn condition(&self, xs: &[Vec<f64>], ys: &[f64]) -> Option<Gp> {
        let mut on = self.on.clone();
        on.x.extend(xs.iter().cloned());
        on.y.extend(ys.iter().map(|v| (v - on.y_mean) / on.y_sd));
        on.factor()
    }

    /// Posterior mean and standard deviation of the latent (noise-free)
    /// function at `x`, on the outputs' scale.
    pub fn predict(&self, x: &[f64]) -> (f64, f64) {
        let on = &self.on;
        let n = on.x.len();
        let inv: Vec<f64> = on.hyper.lengths.iter().map(|l| 1.0 / (l * l)).collect();
        let k: Vec<f64> =
            on.x.iter()
                .map(|xi| {
                    let r2: f64 = group_sq_dists(x, xi, &on.groups)
                        .iter()
                        .zip(&inv)
                        .map(|(d, w)| d * w)
                        .sum();
                    on.hyper.signal_var * matern52(r2)
                })
                .collect();
        let mean: f64 = k.iter().zip(&self.alpha).map(|(a, b)| a * b).sum();
        let v = solve_lower(&self.chol, n, &k);
        let var = (on.hyper.signal_var - v.iter().map(|a| a * a).sum::<f64>()).max(0.0);
        (on.y_mean + on.y_sd * mean, on.y_sd * var.sqrt())
    }

    /// The noise standard deviation on the outputs' scale.
    pub fn noise_sd(&self) -> f64 {
        self.on.y_sd * self.on.hyper.noise_var.sqrt()
    }

    /// The hyperparameters, on the standardised scale.
    #[cfg(test)]
    pub fn hyper(&self) -> &Hyper {
        &self.on.hyper
    }
}

#[cfg(test)]
mod tests {
    use super::super::normal;
    use super::*;

    /// One input coordinate, in one group.
    fn one_group() -> Vec<Range<usize>> {
        std::iter::once(0..1).collect()
    }

    fn one_d(xs: &[f64], f: impl Fn(f64) -> f64) -> (Vec<Vec<f64>>, Vec<f64>) {
        (
            xs.iter().map(|&x| vec![x]).collect(),
            xs.iter().map(|&x| f(x)).collect(),
        )
    }

    #[test]
    fn matern_is_one_at_zero_and_falls() {
        assert_eq!(matern52(0.0), 1.0);
        assert!(matern52(0.01) < 1.0 && matern52(0.01) > matern52(0.1));
        assert!(matern52(100.0) < 1e-6);
    }

    #[test]
    fn fits_a_smooth_function_and_predicts_between_points() {
        let f = |x: f64| (2.0 * std::f64::consts::PI * x).sin() + 0.5 * x;
        let xs: Vec<f64> = (0..9).map(|i| i as f64 / 8.0).collect();
        let (x, y) = one_d(&xs, f);
        let gp = Gp::fit(x, &y, one_group(), Noise::Fitted, 1).unwrap();
        for i in 0..8 {
            let t = (i as f64 + 0.5) / 8.0;
            let (m, s) = gp.predict(&[t]);
            assert!((m - f(t)).abs() < 0.05, "at {t}: {m} vs {}", f(t));
            assert!(s < 0.1, "at {t}: sd {s}");
        }
        // At a training point the mean is the value and the sd small.
        let (m, s) = gp.predict(&[0.25]);
        assert!((m - f(0.25)).abs() < 0.01 && s < 0.02, "{m} {s}");
        // Far outside the data the sd grows back towards the signal's.
        let (_, far) = gp.predict(&[3.0]);
        assert!(far > 0.3, "{far}");
    }

    #[test]
    fn recovers_the_noise_of_repeats_of_a_constant() {
        let mut rng = StdRng::seed_from_u64(7);
        for sd in [0.02, 0.1, 0.5] {
            let mut x = Vec::new();
            let mut y = Vec::new();
            for i in 0..6 {
                for _ in 0..4 {
                    x.push(vec![i as f64 / 5.0]);
                    y.push(11.0 + sd * normal(&mut rng));
                }
            }
            let gp = Gp::fit(x, &y, one_group(), Noise::Fitted, 3).unwrap();
            let got = gp.noise_sd();
            assert!(got > sd / 2.0 && got < sd * 2.0, "noise {sd}: fitted {got}");
            let (m, _) = gp.predict(&[0.5]);
            assert!((m - 11.0).abs() < sd, "noise {sd}: mean {m}");
        }
    }

    #[test]
    fn separates_signal_from_noise() {
        // A linear trend of 1 over the range with noise 0.05: the noise is
        // not taken for signal and the trend is not taken for noise.
        let mut rng = StdRng::seed_from_u64(11);
        let mut x = Vec::new();
        let mut y = Vec::new();
        for i in 0..10 {
            for _ in 0..2 {
                let t = i as f64 / 9.0;
                x.push(vec![t]);
                y.push(t + 0.05 * normal(&mut rng));
            }
        }
        let gp = Gp::fit(x, &y, one_group(), Noise::Fitted, 5).unwrap();
        let noise = gp.noise_sd();
        assert!(noise > 0.025 && noise < 0.1, "{noise}");
        let (lo, _) = gp.predict(&[0.1]);
        let (hi, _) = gp.predict(&[0.9]);
        assert!((hi - lo - 0.8).abs() < 0.1, "{lo} {hi}");
    }

    #[test]
    fn a_long_length_scale_for_an_input_that_does_not_matter() {
        let mut rng = StdRng::seed_from_u64(2);
        let mut x = Vec::new();
        let mut y = Vec::new();
        for _ in 0..30 {
            let a: f64 = rng.gen();
            let b: f64 = rng.gen();
            x.push(vec![a, b]);
            y.push((3.0 * a).sin());
        }
        let gp = Gp::fit(x, &y, vec![0..1, 1..2], Noise::Fitted, 1).unwrap();
        let h = gp.hyper();
        assert!(h.lengths[1] > 2.0 * h.lengths[0], "{h:?}");
    }

    #[test]
    fn conditioning_on_the_mean_keeps_the_mean_and_shrinks_the_sd() {
        let (x, y) = one_d(&[0.0, 0.3, 0.9], |x| x * x);
        let gp = Gp::fit(x, &y, one_group(), Noise::Fitted, 1).unwrap();
        let (m, s) = gp.predict(&[0.6]);
        let gp2 = gp.condition(&[vec![0.6]], &[m]).unwrap();
        let (m2, s2) = gp2.predict(&[0.6]);
        assert!((m2 - m).abs() < 1e-6, "{m} {m2}");
        assert!(s2 < s * 0.5, "{s} {s2}");
        let (a, _) = gp.predict(&[0.1]);
        let (b, _) = gp2.predict(&[0.1]);
        assert!((a - b).abs() < 1e-6);
    }

    #[test]
    fn refuses_empty_or_broken_input() {
        assert!(Gp::fit(vec![], &[], one_group(), Noise::Fitted, 1).is_err());
        assert!(Gp::fit(vec![vec![0.0]], &[f64::NAN], one_group(), Noise::Fitted, 1).is_err());
        assert!(Gp::fit(vec![vec![0.0, 1.0]], &[1.0], one_group(), Noise::Fitted, 1).is_err());
        // One observation, or all equal, still fits.
        let gp = Gp::fit(vec![vec![0.5]], &[3.0], one_group(), Noise::Fitted, 1).unwrap();
        assert!((gp.predict(&[0.5]).0 - 3.0).abs() < 1e-6);
    }
}
