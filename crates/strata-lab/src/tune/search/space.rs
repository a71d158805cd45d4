//! The search space: each option's range, and the encoding of a
//! configuration as a point of the unit cube that the model works on.
//!
//! Two coordinate systems are used. The *encoding* ([`Space::encode`]) has
//! one coordinate per Int/Float option (in [0, 1], on a log scale when the
//! option asks for it) and one coordinate per choice of a Choice option (a
//! one-hot block); the Gaussian process works on it. The *unit coordinates*
//! ([`Space::to_units`]) have exactly one coordinate in [0, 1] per option,
//! a Choice option's choice `i` of `k` sitting in the middle of the stratum
//! `[i/k, (i+1)/k)`; the space-filling design and the random and local
//! candidates of the acquisition are drawn in them.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use anyhow::{bail, Result};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

/// A configuration: flag name -> value as the benchmark takes it
/// (`"67108864"`, `"true"`, `"0.5"`).
pub(crate) type Config = BTreeMap<String, String>;

/// Significant digits a decoded Float option keeps.
const FLOAT_DIGITS: i32 = 4;

/// Latin hypercubes drawn by [`Space::initial_design`], of which the one
/// with the largest smallest distance between two points is kept.
const DESIGN_TRIES: usize = 16;

/// One option's range.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) enum ParamKind {
    /// Integer in [min, max]; `log`: searched on a log scale (byte sizes,
    /// counts spanning decades).
    Int {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
        /// Searched on a log scale (needs `min > 0`).
        log: bool,
    },
    /// Real in [min, max].
    Float {
        /// Smallest value.
        min: f64,
        /// Largest value.
        max: f64,
        /// Searched on a log scale (needs `min > 0`).
        log: bool,
    },
    /// One of these values (e.g. compaction_style 0/1, compression
    /// none/lz4/zstd, true/false).
    Choice(Vec<String>),
}

impl ParamKind {
    /// Coordinates this option takes in the encoding.
    fn width(&self) -> usize {
        match self {
            ParamKind::Choice(cs) => cs.len(),
            _ => 1,
        }
    }

    /// The range in words, for error messages.
    fn describe(&self) -> String {
        let scale = |log: bool| if log { " (log scale)" } else { "" };
        match self {
            ParamKind::Int { min, max, log } => {
                format!("integers in [{min}, {max}]{}", scale(*log))
            }
            ParamKind::Float { min, max, log } => {
                format!("reals in [{min}, {max}]{}", scale(*log))
            }
            ParamKind::Choice(cs) => format!("one of {}", cs.join(", ")),
        }
    }

    /// The unit coordinate of `value`, or why it is not in the range.
    fn unit_of(&self, value: &str) -> std::result::Result<f64, String> {
        match self {
            ParamKind::Int { min, max, log } => {
                let v: i64 = value
                    .trim()
                    .parse()
                    .map_err(|_| format!("`{value}` is not an integer"))?;
                if v < *min || v > *max {
                    return Err(format!("{v} is outside [{min}, {max}]"));
                }
                Ok(to_unit(v as f64, *min as f64, *max as f64, *log))
            }
            ParamKind::Float { min, max, log } => {
                let v: f64 = value
                    .trim()
                    .parse()
                    .map_err(|_| format!("`{value}` is not a number"))?;
                if !v.is_finite() || v < *min || v > *max {
                    return Err(format!("{value} is outside [{min}, {max}]"));
                }
                Ok(to_unit(v, *min, *max, *log))
            }
            ParamKind::Choice(cs) => match cs.iter().position(|c| c == value) {
                Some(i) => Ok((i as f64 + 0.5) / cs.len() as f64),
                None => Err(format!(
                    "`{value}` is not one of its choices ({})",
                    cs.join(", ")
                )),
            },
        }
    }

    /// The value at unit coordinate `u` (clamped to [0, 1]): ints rounded
    /// (log ints in value space), floats to [`FLOAT_DIGITS`] significant
    /// digits, a choice by the stratum `u` falls in.
    fn value_at(&self, u: f64) -> String {
        let u = if u.is_nan() { 0.5 } else { u.clamp(0.0, 1.0) };
        match self {
            ParamKind::Int { min, max, log } => {
                let v = from_unit(u, *min as f64, *max as f64, *log).round() as i64;
                v.clamp(*min, *max).to_string()
            }
            ParamKind::Float { min, max, log } => {
                let v = round_significant(from_unit(u, *min, *max, *log), FLOAT_DIGITS);
                format_float(v.clamp(*min, *max))
            }
            ParamKind::Choice(cs) => cs[choice_index(u, cs.len())].clone(),
        }
    }

    /// Distinct values this option takes, when there are at most `limit`.
    fn values_upto(&self, limit: u128) -> Option<Vec<String>> {
        match self {
            ParamKind::Int { min, max, .. } => {
                let n = (*max as i128 - *min as i128 + 1).max(0) as u128;
                (n <= limit).then(|| (*min..=*max).map(|v| v.to_string()).collect())
            }
            ParamKind::Float { min, max, .. } => {
                (min == max && limit >= 1).then(|| vec![format_float(*min)])
            }
            ParamKind::Choice(cs) => (cs.len() as u128 <= limit).then(|| cs.clone()),
        }
    }
}

/// `v`'s place in [min, max] as a share of the range (of its logarithm
/// when `log`); 0.5 for a range of one value.
fn to_unit(v: f64, min: f64, max: f64, log: bool) -> f64 {
    let (v, min, max) = if log {
        (v.ln(), min.ln(), max.ln())
    } else {
        (v, min, max)
    };
    if max > min {
        ((v - min) / (max - min)).clamp(0.0, 1.0)
    } else {
        0.5
    }
}

/// The inverse of [`to_unit`].
fn from_unit(u: f64, min: f64, max: f64, log: bool) -> f64 {
    if log {
        (min.ln() + u * (max.ln() - min.ln())).exp()
    } else {
        min + u * (max - min)
    }
}

/// The choice whose stratum of [0, 1] holds `u`.
pub(super) fn choice_index(u: f64, k: usize) -> usize {
    ((u * k as f64).floor() as usize).min(k.saturating_sub(1))
}

/// `v` rounded to `digits` significant decimal digits.
fn round_significant(v: f64, digits: i32) -> f64 {
    if v == 0.0 || !v.is_finite() {
        return v;
    }
    let e = digits - 1 - v.abs().log10().floor() as i32;
    if e >= 0 {
        let m = 10f64.powi(e);
        (v * m).round() / m
    } else {
        let m = 10f64.powi(-e);
        (v / m).round() * m
    }
}

/// A float as a flag value: the shortest text that reads back as `v`.
fn format_float(v: f64) -> String {
    format!("{v}")
}

/// One option of the space.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Param {
    /// The benchmark flag's name.
    pub name: String,
    /// Its range.
    pub kind: ParamKind,
}

/// The options searched and their ranges.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Space {
    /// The options, in the order the encoding lays them out.
    pub params: Vec<Param>,
}

/// Shorthands for tests.
#[cfg(test)]
impl Param {
    /// An integer option from `min` to `max`.
    pub fn int(name: &str, min: i64, max: i64, log: bool) -> Param {
        Param {
            name: name.into(),
            kind: ParamKind::Int { min, max, log },
        }
    }

    /// A real option from `min` to `max`.
    pub fn float(name: &str, min: f64, max: f64, log: bool) -> Param {
        Param {
            name: name.into(),
            kind: ParamKind::Float { min, max, log },
        }
    }

    /// An option that takes one of `choices`.
    pub fn choice(name: &str, choices: &[&str]) -> Param {
        Param {
            name: name.into(),
            kind: ParamKind::Choice(choices.iter().map(|c| c.to_string()).collect()),
        }
    }
}

impl Space {
    /// A space of `params`, checked with [`Space::validate`].
    #[cfg(test)]
    pub fn new(params: Vec<Param>) -> Result<Space> {
        let s = Space { params };
        s.validate()?;
        Ok(s)
    }

    /// Checks that the space is well formed: at least one option, names
    /// distinct and not empty, `min <= max` (finite for floats), `min > 0`
    /// on a log scale, choices present and distinct.
    pub fn validate(&self) -> Result<()> {
        if self.params.is_empty() {
            bail!("the search space has no option");
        }
        let mut names = BTreeSet::new();
        for p in &self.params {
            if p.name.is_empty() {
                bail!("an option of the search space has no name");
            }
            if !names.insert(&p.name) {
                bail!("option `{}` is listed twice", p.name);
            }
            let bad = match &p.kind {
                ParamKind::Int { min, max, log } => min > max || (*log && *min <= 0),
                ParamKind::Float { min, max, log } => {
                    !min.is_finite() || !max.is_finite() || min > max || (*log && *min <= 0.0)
                }
                ParamKind::Choice(cs) => {
                    cs.is_empty() || cs.iter().collect::<BTreeSet<_>>().len() != cs.len()
                }
            };
            if bad {
                bail!(
                    "option `{}`: {} is not a valid range (min <= max, min > 0 on a log \
                     scale, choices listed once each)",
                    p.name,
                    p.kind.describe()
                );
            }
        }
        Ok(())
    }

    /// Length of the encoding ([`Space::encode`]).
    pub fn dims(&self) -> usize {
        self.params.iter().map(|p| p.kind.width()).sum()
    }

    /// Each option's coordinates in the encoding, in order.
    pub fn groups(&self) -> Vec<Range<usize>> {
        let mut at = 0;
        self.params
            .iter()
            .map(|p| {
                let r = at..at + p.kind.width();
                at = r.end;
                r
            })
            .collect()
    }

    /// Unit-cube encoding (Int/Float: [0,1], log-scaled when `log`; Choice:
    /// one-hot), None if a value is missing or outside the range / not a
    /// listed choice. Options `c` has beyond the space's are ignored.
    pub fn encode(&self, c: &Config) -> Option<Vec<f64>> {
        self.to_units(c).map(|u| self.encode_units(&u))
    }

    /// The configuration nearest a unit-cube point (ints rounded, log ints
    /// rounded in value space, floats to 4 significant digits; Choice =
    /// argmax of its one-hot block, the first on a tie).
    pub fn decode(&self, x: &[f64]) -> Config {
        let mut units = Vec::with_capacity(self.params.len());
        for (p, g) in self.params.iter().zip(self.groups()) {
            let block = &x[g];
            let u = match &p.kind {
                ParamKind::Choice(cs) => {
                    let mut best = 0;
                    for (i, v) in block.iter().enumerate() {
                        if *v > block[best] {
                            best = i;
                        }
                    }
                    (best as f64 + 0.5) / cs.len() as f64
                }
                _ => block[0],
            };
            units.push(u);
        }
        self.config_at(&units)
    }

    /// A check that a config lies in the space, with a clear error naming
    /// the option and range: every option has a value in its range, and
    /// there is no option the space does not have.
    pub fn check(&self, c: &Config) -> Result<()> {
        for p in &self.params {
            match c.get(&p.name) {
                None => bail!(
                    "option `{}` has no value (its range: {})",
                    p.name,
                    p.kind.describe()
                ),
                Some(v) => {
                    if let Err(why) = p.kind.unit_of(v) {
                        bail!(
                            "option `{}`: {why} (its range: {})",
                            p.name,
                            p.kind.describe()
                        );
                    }
                }
            }
        }
        if let Some(k) = c
            .keys()
            .find(|k| !self.params.iter().any(|p| &p.name == *k))
        {
            let names: Vec<&str> = self.params.iter().map(|p| p.name.as_str()).collect();
            bail!(
                "option `{k}` is not in the search space (its options: {})",
                names.join(", ")
            );
        }
        Ok(())
    }

    /// `n` space-filling starting points (Latin hypercube on the unit cube,
    /// decoded), seeded: each option's range is cut into `n` strata and
    /// each stratum holds one point (a Choice option's choices come up
    /// equally often, within one). Of several hypercubes drawn, the one
    /// whose closest two points are farthest apart is kept. Points can
    /// repeat only when the space has fewer than `n` configurations.
    pub fn initial_design(&self, n: usize, seed: u64) -> Vec<Config> {
        if n == 0 {
            return Vec::new();
        }
        let mut rng = StdRng::seed_from_u64(seed);
        let mut best: Option<(f64, Vec<Vec<f64>>)> = None;
        for _ in 0..DESIGN_TRIES {
            let cols: Vec<Vec<f64>> = self
                .params
                .iter()
                .map(|p| {
                    let mut strata: Vec<usize> = (0..n).collect();
                    strata.shuffle(&mut rng);
                    let choice = matches!(p.kind, ParamKind::Choice(_));
                    strata
                        .into_iter()
                        .map(|s| {
                            // A choice takes the middle of each stratum, so that
                            // the choices are balanced; a number a random place
                            // away from the stratum's edges.
                            let at = if choice { 0.5 } else { rng.gen_range(0.1..0.9) };
                            (s as f64 + at) / n as f64
                        })
                        .collect()
                })
                .collect();
            let points: Vec<Vec<f64>> = (0..n)
                .map(|i| cols.iter().map(|c| c[i]).collect())
                .collect();
            let spread = min_distance(&points);
            if best.as_ref().is_none_or(|(d, _)| spread > *d) {
                best = Some((spread, points));
            }
        }
        let (_, points) = best.expect("at least one try");
        points.iter().map(|u| self.config_at(u)).collect()
    }

    /// Every grid point when each Int/Float is cut into `levels` values
    /// (evenly in unit coordinates, so on a log scale for log options;
    /// values repeated by rounding are kept once; `levels` below 2 gives
    /// the middle of the range) and each Choice takes each of its choices.
    /// The order is stable: the first option varies slowest.
    pub fn grid(&self, levels: usize) -> Vec<Config> {
        let per_param: Vec<Vec<String>> = self
            .params
            .iter()
            .map(|p| match &p.kind {
                ParamKind::Choice(cs) => cs.clone(),
                kind => {
                    let mut seen = BTreeSet::new();
                    (0..levels.max(1))
                        .map(|i| {
                            if levels < 2 {
                                0.5
                            } else {
                                i as f64 / (levels - 1) as f64
                            }
                        })
                        .map(|u| kind.value_at(u))
                        .filter(|v| seen.insert(v.clone()))
                        .collect()
                }
            })
            .collect();
        self.product(&per_param)
    }

    /// Every configuration of the space, when it is finite with at most
    /// `limit` of them (Float options of more than one value make it
    /// infinite); in [`Space::grid`]'s order.
    pub fn all_upto(&self, limit: usize) -> Option<Vec<Config>> {
        let mut per_param = Vec::new();
        let mut total: u128 = 1;
        for p in &self.params {
            let vs = p.kind.values_upto(limit as u128)?;
            total = total.saturating_mul(vs.len() as u128);
            if total > limit as u128 {
                return None;
            }
            per_param.push(vs);
        }
        Some(self.product(&per_param))
    }

    /// The configurations taking one value of each list, the first option
    /// varying slowest.
    fn product(&self, per_param: &[Vec<String>]) -> Vec<Config> {
        let mut out = vec![Config::new()];
        for (p, vs) in self.params.iter().zip(per_param) {
            out = out
                .into_iter()
                .flat_map(|c| {
                    vs.iter().map(move |v| {
                        let mut c = c.clone();
                        c.insert(p.name.clone(), v.clone());
                        c
                    })
                })
                .collect();
        }
        out
    }

    /// One unit coordinate per option (a choice `i` of `k` at
    /// `(i + 0.5) / k`), None if a value is missing or out of range.
    pub fn to_units(&self, c: &Config) -> Option<Vec<f64>> {
        self.params
            .iter()
            .map(|p| p.kind.unit_of(c.get(&p.name)?).ok())
            .collect()
    }

    /// The configuration at unit coordinates `u` (one per option, clamped
    /// to [0, 1]).
    pub fn config_at(&self, u: &[f64]) -> Config {
        self.params
            .iter()
            .zip(u)
            .map(|(p, &u)| (p.name.clone(), p.kind.value_at(u)))
            .collect()
    }

    /// The encoding of unit coordinates.
    pub fn encode_units(&self, u: &[f64]) -> Vec<f64> {
        let mut x = Vec::with_capacity(self.dims());
        for (p, &u) in self.params.iter().zip(u) {
            match &p.kind {
                ParamKind::Choice(cs) => {
                    let i = choice_index(u, cs.len());
                    x.extend((0..cs.len()).map(|j| if j == i { 1.0 } else { 0.0 }));
                }
                _ => x.push(u),
            }
        }
        x
    }

    /// `c` as the decoder writes it (`"0.50"` becomes `"0.5"`), so that
    /// configurations can be compared; None if it is not in the space.
    /// Options beyond the space's are dropped.
    pub fn normalise(&self, c: &Config) -> Option<Config> {
        self.to_units(c).map(|u| self.config_at(&u))
    }

    /// A configuration drawn uniformly in unit coordinates.
    pub fn random_units(&self, rng: &mut StdRng) -> Vec<f64> {
        self.params.iter().map(|_| rng.gen::<f64>()).collect()
    }
}

/// The smallest Euclidean distance between two of `points`.
fn min_distance(points: &[Vec<f64>]) -> f64 {
    let mut best = f64::INFINITY;
    for (i, a) in points.iter().enumerate() {
        for b in &points[i + 1..] {
            let d: f64 = a.iter().zip(b).map(|(x, y)| (x - y) * (x - y)).sum();
            best = best.min(d);
        }
    }
    best.sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::search::tests::cfg;

    fn space() -> Space {
        Space::new(vec![
            Param::int("write_buffer_size", 1 << 20, 1 << 28, true),
            Param::float("ratio", 0.0, 2.0, false),
            Param::choice("compression", &["none", "lz4", "zstd"]),
            Param::int("levels", 1, 7, false),
        ])
        .unwrap()
    }

    #[test]
    fn encode_lays_out_units_and_one_hot_blocks() {
        let s = space();
        assert_eq!(s.dims(), 6);
        assert_eq!(s.groups(), vec![0..1, 1..2, 2..5, 5..6]);
        let x = s
            .encode(&cfg(&[
                ("write_buffer_size", "16777216"),
                ("ratio", "0.5"),
                ("compression", "lz4"),
                ("levels", "4"),
            ]))
            .unwrap();
        // 2^24 is halfway between 2^20 and 2^28 on a log scale.
        assert!((x[0] - 0.5).abs() < 1e-12, "{x:?}");
        assert!((x[1] - 0.25).abs() < 1e-12);
        assert_eq!(&x[2..5], &[0.0, 1.0, 0.0]);
        assert!((x[5] - 0.5).abs() < 1e-12);
    }

    #[test]
    fn encode_decode_round_trips() {
        let s = space();
        for c in [
            cfg(&[
                ("write_buffer_size", "67108864"),
                ("ratio", "1.375"),
                ("compression", "zstd"),
                ("levels", "7"),
            ]),
            cfg(&[
                ("write_buffer_size", "1048576"),
                ("ratio", "0"),
                ("compression", "none"),
                ("levels", "1"),
            ]),
            cfg(&[
                ("write_buffer_size", "3000001"),
                ("ratio", "2"),
                ("compression", "lz4"),
                ("levels", "2"),
            ]),
        ] {
            assert_eq!(s.decode(&s.encode(&c).unwrap()), c);
        }
        // From the cube side: decode then encode then decode is stable.
        let mut rng = StdRng::seed_from_u64(3);
        for _ in 0..200 {
            let x: Vec<f64> = (0..s.dims()).map(|_| rng.gen()).collect();
            let c = s.decode(&x);
            s.check(&c).unwrap();
            assert_eq!(s.decode(&s.encode(&c).unwrap()), c);
        }
    }

    #[test]
    fn log_ints_are_rounded_in_value_space() {
        let s = space();
        // A quarter of the way up the log range is 2^22 exactly.
        let c = s.decode(&[0.25, 0.0, 1.0, 0.0, 0.0, 0.0]);
        assert_eq!(c["write_buffer_size"], "4194304");
        assert_eq!(c["compression"], "none");
        assert_eq!(c["levels"], "1");
        // Linear ints round to the nearest value: 1 + 0.58 * 6 = 4.48.
        let c = s.decode(&[0.0, 0.0, 0.0, 0.0, 1.0, 0.58]);
        assert_eq!(c["levels"], "4");
        assert_eq!(c["compression"], "zstd");
        // Log scale: equal steps of the unit coordinate multiply the value.
        let a: f64 = s.decode(&[0.5, 0.0, 1.0, 0.0, 0.0, 0.0])["write_buffer_size"]
            .parse()
            .unwrap();
        let b: f64 = s.decode(&[0.625, 0.0, 1.0, 0.0, 0.0, 0.0])["write_buffer_size"]
            .parse()
            .unwrap();
        assert!((b / a - 2.0).abs() < 1e-6, "{a} {b}");
    }

    #[test]
    fn floats_decode_to_four_significant_digits_within_range() {
        let s = space();
        let c = s.decode(&[0.0, 0.123456, 1.0, 0.0, 0.0, 0.0]);
        assert_eq!(c["ratio"], "0.2469");
        let c = s.decode(&[0.0, 1.5, 1.0, 0.0, 0.0, 0.0]);
        assert_eq!(c["ratio"], "2");
        assert_eq!(round_significant(123456.0, 4), 123500.0);
        assert_eq!(round_significant(-0.000123456, 4), -0.0001235);
    }

    #[test]
    fn one_hot_choice_decodes_to_the_largest_coordinate() {
        let s = space();
        let c = s.decode(&[0.0, 0.0, 0.2, 0.3, 0.9, 0.0]);
        assert_eq!(c["compression"], "zstd");
        let c = s.decode(&[0.0, 0.0, 0.5, 0.5, 0.1, 0.0]);
        assert_eq!(c["compression"], "none");
    }

    #[test]
    fn check_names_the_option_and_its_range() {
        let s = space();
        let good = cfg(&[
            ("write_buffer_size", "67108864"),
            ("ratio", "1"),
            ("compression", "zstd"),
            ("levels", "3"),
        ]);
        s.check(&good).unwrap();
        let with = |k: &str, v: &str| {
            let mut c = good.clone();
            c.insert(k.into(), v.into());
            c
        };
        let e = s.check(&with("levels", "9")).unwrap_err().to_string();
        assert!(e.contains("`levels`") && e.contains("[1, 7]"), "{e}");
        assert!(s.encode(&with("levels", "9")).is_none());
        let e = s
            .check(&with("write_buffer_size", "1024"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`write_buffer_size`") && e.contains("1048576") && e.contains("log"),
            "{e}"
        );
        let e = s.check(&with("ratio", "-0.1")).unwrap_err().to_string();
        assert!(e.contains("`ratio`") && e.contains("[0, 2]"), "{e}");
        let e = s.check(&with("levels", "3.5")).unwrap_err().to_string();
        assert!(
            e.contains("`levels`") && e.contains("not an integer"),
            "{e}"
        );
        let e = s
            .check(&with("compression", "snappy"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("`compression`") && e.contains("none, lz4, zstd"),
            "{e}"
        );
        assert!(s.encode(&with("compression", "snappy")).is_none());
        let mut missing = good.clone();
        missing.remove("ratio");
        let e = s.check(&missing).unwrap_err().to_string();
        assert!(e.contains("`ratio` has no value"), "{e}");
        assert!(s.encode(&missing).is_none());
        let e = s
            .check(&with("block_size", "4096"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("`block_size` is not in the search space"), "{e}");
    }

    #[test]
    fn validate_refuses_bad_ranges() {
        let one = |kind| {
            Space::new(vec![Param {
                name: "p".into(),
                kind,
            }])
        };
        assert!(one(ParamKind::Int {
            min: 0,
            max: 10,
            log: true
        })
        .is_err());
        assert!(one(ParamKind::Float {
            min: 2.0,
            max: 1.0,
            log: false
        })
        .is_err());
        assert!(one(ParamKind::Choice(vec!["a".into(), "a".into()])).is_err());
        assert!(one(ParamKind::Choice(vec![])).is_err());
        assert!(Space::new(vec![]).is_err());
        let e = one(ParamKind::Int {
            min: 0,
            max: 10,
            log: true,
        })
        .unwrap_err()
        .to_string();
        assert!(e.contains("`p`"), "{e}");
    }

    #[test]
    fn grid_has_every_level_combination_in_a_stable_order() {
        let s = space();
        let g = s.grid(3);
        // 3 sizes x 3 ratios x 3 choices x 3 level counts.
        assert_eq!(g.len(), 81);
        assert_eq!(g, s.grid(3));
        let set: BTreeSet<&Config> = g.iter().collect();
        assert_eq!(set.len(), 81);
        assert_eq!(
            g[0],
            cfg(&[
                ("write_buffer_size", "1048576"),
                ("ratio", "0"),
                ("compression", "none"),
                ("levels", "1"),
            ])
        );
        // The last option varies fastest, the first slowest.
        assert_eq!(g[1]["levels"], "4");
        assert_eq!(g[2]["levels"], "7");
        assert_eq!(g[3]["compression"], "lz4");
        assert_eq!(g[80]["write_buffer_size"], "268435456");
        let sizes: BTreeSet<&str> = g.iter().map(|c| c["write_buffer_size"].as_str()).collect();
        assert_eq!(
            sizes,
            ["1048576", "16777216", "268435456"].into_iter().collect()
        );
        let ratios: BTreeSet<&str> = g.iter().map(|c| c["ratio"].as_str()).collect();
        assert_eq!(ratios, ["0", "1", "2"].into_iter().collect());
        // Rounding repeats are kept once: 7 levels over 1..=3 give 3 values.
        let small = Space::new(vec![Param::int("n", 1, 3, false)]).unwrap();
        assert_eq!(small.grid(7).len(), 3);
        assert_eq!(small.grid(1), vec![cfg(&[("n", "2")])]);
    }

    #[test]
    fn all_upto_enumerates_small_finite_spaces_only() {
        let s = Space::new(vec![
            Param::int("n", 1, 3, false),
            Param::choice("b", &["true", "false"]),
        ])
        .unwrap();
        let all = s.all_upto(100).unwrap();
        assert_eq!(all.len(), 6);
        assert!(s.all_upto(5).is_none());
        assert!(space().all_upto(1_000_000).is_none());
    }

    #[test]
    fn latin_hypercube_fills_each_stratum_once() {
        let s = space();
        for n in [1, 4, 7, 12] {
            let d = s.initial_design(n, 42);
            assert_eq!(d.len(), n);
            assert_eq!(d, s.initial_design(n, 42));
            let mut size_strata = vec![0; n];
            let mut ratio_strata = vec![0; n];
            let mut choices = BTreeMap::new();
            for c in &d {
                s.check(c).unwrap();
                let u = s.to_units(c).unwrap();
                size_strata[((u[0] * n as f64) as usize).min(n - 1)] += 1;
                ratio_strata[((u[1] * n as f64) as usize).min(n - 1)] += 1;
                *choices.entry(c["compression"].clone()).or_insert(0) += 1;
            }
            assert!(size_strata.iter().all(|&k| k == 1), "{n}: {size_strata:?}");
            assert!(
                ratio_strata.iter().all(|&k| k == 1),
                "{n}: {ratio_strata:?}"
            );
            let (lo, hi) = (n / 3, n.div_ceil(3));
            assert!(
                choices.values().all(|&k| k >= lo && k <= hi),
                "{n}: {choices:?}"
            );
        }
        assert_ne!(s.initial_design(6, 1), s.initial_design(6, 2));
        assert!(s.initial_design(0, 1).is_empty());
    }
}
