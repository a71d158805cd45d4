//! The search of `strata lab tune`: a noise-aware Bayesian optimiser that
//! proposes the next benchmark configurations to run.
//!
//! A [`Space`] lists the options searched and their ranges. The measured
//! configurations ([`Observation`]s, repeats included) are encoded in the
//! unit cube and modelled by a Gaussian process ([`gp`]) with a noise term,
//! so that the run-to-run spread of a benchmark is not mistaken for an
//! effect. [`propose`] picks the configurations that maximise the expected
//! improvement ([`acquire`]) over the best posterior mean of a measured
//! configuration; [`recommend`] picks the measured configuration the model
//! believes best, which is not necessarily the one with the luckiest run.
//!
//! Runs that broke a constraint or failed (`feasible == false`) are kept
//! out of the objective's model, so that a cliff at the edge of the
//! feasible region does not distort it. A separate classifier predicts the
//! chance that a configuration is feasible: a Gaussian process fitted to
//! the labels +1 (feasible) and -1 (infeasible) of every run, its latent
//! value `f` (mean `m`, standard deviation `s`) read through a probit,
//! P(feasible) = E[Φ(k f)] = Φ(k m / √(1 + k² s²)) with slope
//! k = [`FEASIBILITY_SLOPE`]. The search weighs the expected improvement by
//! that chance (raised to a power, [`acquire::FEASIBILITY_WEIGHT`]), and
//! believes each infeasible run at the objective's posterior mean so that
//! the uncertainty there does not draw it back: it steers away from the
//! infeasible runs while a constrained optimum at the edge of the feasible
//! region stays reachable. Infeasible configurations are never
//! recommended.
//!
//! Everything is deterministic for a given seed.

mod acquire;
mod gp;
mod linalg;
pub(crate) mod space;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use anyhow::{bail, Context, Result};
use rand::rngs::StdRng;
use rand::Rng;
use serde::{Deserialize, Serialize};

pub(crate) use space::{Config, Param, ParamKind, Space};

use gp::{Gp, Noise};

/// Slope of the probit that turns the classifier's latent value into a
/// chance of feasibility: 2 makes a configuration next to a feasible run
/// (latent value near +1) about 98% likely feasible, one next to an
/// infeasible run about 2%.
pub(crate) const FEASIBILITY_SLOPE: f64 = 2.0;

/// The classifier's noise variance as a share of its signal variance:
/// labels are taken as nearly exact (a configuration that failed once and
/// passed once sits at 0).
pub(crate) const LABEL_NOISE_RATIO: f64 = 0.01;

/// Seed of the hyperparameter search of [`Fitted::fit`].
const FIT_SEED: u64 = 0x5eed_0f67;

/// A measured configuration. `value` is the objective with higher better,
/// on the scale the optimiser models (the caller passes e.g. ln(ops/sec),
/// or -ln(latency)); repeats of one configuration arrive as several
/// observations with the same config. `feasible == false`: the run broke a
/// constraint (or failed); the optimiser steers away from it, and its
/// `value` is not used.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Observation {
    /// The configuration run.
    pub config: Config,
    /// The objective, higher better.
    pub value: f64,
    /// Whether the run met every constraint.
    pub feasible: bool,
}

/// A configuration measured at least once feasibly, as the model sees it.
#[derive(Clone, Debug)]
struct Measured {
    /// The configuration as first observed.
    given: Config,
    /// Its encoding.
    x: Vec<f64>,
    /// Whether one of its runs was infeasible too.
    ever_infeasible: bool,
}

/// The model's view after fitting: for reports and for choosing the winner.
/// It wraps the Gaussian process of the objective, fitted to the feasible
/// observations, and the feasibility classifier, fitted to all of them.
#[derive(Clone, Debug)]
pub(crate) struct Fitted {
    space: Space,
    /// The objective, fitted to the feasible runs.
    gp: Gp,
    /// The labels of every run, when one was infeasible.
    feasibility: Option<Gp>,
    /// The encodings of the infeasible runs.
    infeasible: Vec<Vec<f64>>,
    /// The distinct configurations with a feasible run, in order of first
    /// observation.
    measured: Vec<Measured>,
}

impl Fitted {
    /// Fits the models to `obs` (the objective's to the feasible ones, the
    /// classifier to all, when one is infeasible): errors if the space is
    /// malformed, there is no feasible observation, an observation's
    /// configuration is not in the space (naming the option), or a
    /// feasible value is not a finite number.
    pub fn fit(space: &Space, obs: &[Observation]) -> Result<Fitted> {
        space.validate()?;
        let mut xs = Vec::with_capacity(obs.len());
        for (i, o) in obs.iter().enumerate() {
            match space.encode(&o.config) {
                Some(x) => xs.push(x),
                None => {
                    space
                        .check(&o.config)
                        .with_context(|| format!("observation {}", i + 1))?;
                    bail!("observation {} is not in the search space", i + 1);
                }
            }
            if o.feasible && !o.value.is_finite() {
                bail!("observation {}: the value {} is not finite", i + 1, o.value);
            }
        }
        let (fx, fy): (Vec<Vec<f64>>, Vec<f64>) = obs
            .iter()
            .zip(&xs)
            .filter(|(o, _)| o.feasible)
            .map(|(o, x)| (x.clone(), o.value))
            .unzip();
        if fy.is_empty() {
            bail!("no feasible observation to fit the model to");
        }

        let mut index: BTreeMap<Config, usize> = BTreeMap::new();
        let mut measured: Vec<Measured> = Vec::new();
        for (o, x) in obs.iter().zip(&xs).filter(|(o, _)| o.feasible) {
            let key = space.decode(x);
            index.entry(key).or_insert_with(|| {
                measured.push(Measured {
                    given: o.config.clone(),
                    x: x.clone(),
                    ever_infeasible: false,
                });
                measured.len() - 1
            });
        }
        for (_, x) in obs.iter().zip(&xs).filter(|(o, _)| !o.feasible) {
            if let Some(&i) = index.get(&space.decode(x)) {
                measured[i].ever_infeasible = true;
            }
        }
        let gp = Gp::fit(fx, &fy, space.groups(), Noise::Fitted, FIT_SEED)?;
        let infeasible: Vec<Vec<f64>> = obs
            .iter()
            .zip(&xs)
            .filter(|(o, _)| !o.feasible)
            .map(|(_, x)| x.clone())
            .collect();
        let feasibility = if obs.iter().any(|o| !o.feasible) {
            let labels: Vec<f64> = obs
                .iter()
                .map(|o| if o.feasible { 1.0 } else { -1.0 })
                .collect();
            Some(Gp::fit(
                xs,
                &labels,
                space.groups(),
                Noise::Ratio(LABEL_NOISE_RATIO),
                FIT_SEED,
            )?)
        } else {
            None
        };
        Ok(Fitted {
            space: space.clone(),
            gp,
            feasibility,
            infeasible,
            measured,
        })
    }

    /// Posterior mean and standard deviation of the objective at a config
    /// (noise-free latent value, as the feasible runs inform it); NaN for a
    /// config not in the space.
    pub fn predict(&self, c: &Config) -> (f64, f64) {
        match self.space.encode(c) {
            Some(x) => self.gp.predict(&x),
            None => (f64::NAN, f64::NAN),
        }
    }

    /// The chance that a config is feasible (1 when no run was infeasible);
    /// NaN for a config not in the space.
    #[cfg(test)]
    pub fn feasibility(&self, c: &Config) -> f64 {
        match self.space.encode(c) {
            Some(x) => self.feasibility_at(&x),
            None => f64::NAN,
        }
    }

    /// [`Fitted::feasibility`] at an encoded point.
    fn feasibility_at(&self, x: &[f64]) -> f64 {
        match &self.feasibility {
            Some(g) => {
                let (m, s) = g.predict(x);
                let k = FEASIBILITY_SLOPE;
                acquire::normal_cdf(k * m / (1.0 + k * k * s * s).sqrt())
            }
            None => 1.0,
        }
    }

    /// Each parameter's estimated effect: the range of the posterior mean
    /// over that parameter's values (every choice; 21 evenly spaced levels
    /// of a number, on its scale) with the others held at `at` (the
    /// caller passes the best observed configuration), one number per
    /// param in the space's order, on the same scale as `value`. NaN when
    /// `at` is not in the space.
    pub fn effects(&self, at: &Config) -> Vec<(String, f64)> {
        let units = self.space.to_units(at);
        self.space
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let Some(units) = &units else {
                    return (p.name.clone(), f64::NAN);
                };
                let levels: Vec<f64> = match &p.kind {
                    ParamKind::Choice(cs) => (0..cs.len())
                        .map(|j| (j as f64 + 0.5) / cs.len() as f64)
                        .collect(),
                    _ => (0..=20).map(|j| j as f64 / 20.0).collect(),
                };
                let means: Vec<f64> = levels
                    .into_iter()
                    .map(|u| {
                        let mut v = units.clone();
                        v[i] = u;
                        self.predict(&self.space.config_at(&v)).0
                    })
                    .collect();
                let lo = means.iter().copied().fold(f64::INFINITY, f64::min);
                let hi = means.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                (p.name.clone(), hi - lo)
            })
            .collect()
    }

    /// The fitted noise standard deviation (run-to-run spread on the value
    /// scale).
    pub fn noise_sd(&self) -> f64 {
        self.gp.noise_sd()
    }

    /// The measured configuration with the highest posterior mean among
    /// those with a feasible run, preferring those that never had an
    /// infeasible one; with that mean.
    pub fn best(&self) -> Option<(Config, f64)> {
        let mut best: Option<(bool, f64, &Measured)> = None;
        for m in &self.measured {
            let mean = self.gp.predict(&m.x).0;
            let clean = !m.ever_infeasible;
            if best.is_none_or(|(bc, bm, _)| (clean, mean) > (bc, bm)) {
                best = Some((clean, mean, m));
            }
        }
        best.map(|(_, mean, m)| (m.given.clone(), mean))
    }

    /// The objective's model as the search uses it: also conditioned on
    /// each infeasible run, at the posterior mean there. A run that broke
    /// a constraint says nothing of the objective, so the mean stays as the
    /// feasible runs make it, but the search learns nothing more by going
    /// back there: the uncertainty that would draw it goes.
    fn believer(&self) -> Gp {
        if self.infeasible.is_empty() {
            return self.gp.clone();
        }
        let means: Vec<f64> = self
            .infeasible
            .iter()
            .map(|x| self.gp.predict(x).0)
            .collect();
        self.gp
            .condition(&self.infeasible, &means)
            .unwrap_or_else(|| self.gp.clone())
    }

    /// The highest posterior mean of a configuration with a feasible run:
    /// the level the expected improvement is measured from.
    fn incumbent(&self) -> f64 {
        self.measured
            .iter()
            .map(|m| self.gp.predict(&m.x).0)
            .fold(f64::NEG_INFINITY, f64::max)
    }

    /// The unit coordinates of the `k` measured configurations with the
    /// highest posterior means.
    fn top_units(&self, k: usize) -> Vec<Vec<f64>> {
        let mut ranked: Vec<(f64, &Measured)> = self
            .measured
            .iter()
            .map(|m| (self.gp.predict(&m.x).0, m))
            .collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
        ranked
            .into_iter()
            .take(k)
            .filter_map(|(_, m)| self.space.to_units(&m.given))
            .collect()
    }
}

/// The next `batch` configurations to run: maximisers of expected
/// improvement over the best posterior mean among observed configs (so a
/// lucky single run does not anchor the search), never a configuration
/// already observed (after decode) unless the space is exhausted, distinct
/// from each other while the space allows (a batch is built by the
/// "kriging believer": each pick is added to the model at its posterior
/// mean before the next). With fewer than 2 feasible observations, it
/// falls back to [`Space::initial_design`] points not yet observed.
/// Observations outside the space, and feasible ones whose value is not
/// finite, are left out; a malformed space gets no proposal.
pub(crate) fn propose(space: &Space, obs: &[Observation], batch: usize, seed: u64) -> Vec<Config> {
    acquire::propose(space, obs, batch, seed)
}

/// The configuration to recommend: the observed configuration with the
/// highest posterior mean (not the highest single noisy value), among
/// feasible ones (those with a feasible run, preferring those that never
/// had an infeasible one). None without a feasible observation in the
/// space. Should the model not fit, the highest mean of the runs decides.
pub(crate) fn recommend(space: &Space, obs: &[Observation]) -> Option<Config> {
    let usable = usable(space, obs);
    if !usable.iter().any(|o| o.feasible) {
        return None;
    }
    if let Ok(f) = Fitted::fit(space, &usable) {
        return f.best().map(|(c, _)| c);
    }
    let mut sums: BTreeMap<Config, (f64, usize, &Config)> = BTreeMap::new();
    for o in usable.iter().filter(|o| o.feasible) {
        let key = space.normalise(&o.config)?;
        let e = sums.entry(key).or_insert((0.0, 0, &o.config));
        e.0 += o.value;
        e.1 += 1;
    }
    sums.values()
        .max_by(|a, b| (a.0 / a.1 as f64).total_cmp(&(b.0 / b.1 as f64)))
        .map(|(_, _, c)| (*c).clone())
}

/// The observations the model can use: in the space, and with a finite
/// value when feasible.
fn usable(space: &Space, obs: &[Observation]) -> Vec<Observation> {
    obs.iter()
        .filter(|o| space.encode(&o.config).is_some() && (!o.feasible || o.value.is_finite()))
        .cloned()
        .collect()
}

/// A standard normal draw (Box-Muller).
fn normal(rng: &mut StdRng) -> f64 {
    let u1: f64 = rng.gen_range(f64::MIN_POSITIVE..1.0);
    let u2: f64 = rng.gen();
    (-2.0 * u1.ln()).sqrt() * (2.0 * std::f64::consts::PI * u2).cos()
}

/// The distinct configurations of `obs` that are in the space, normalised.
fn observed_set(space: &Space, obs: &[Observation]) -> BTreeSet<Config> {
    obs.iter()
        .filter_map(|o| space.normalise(&o.config))
        .collect()
}
