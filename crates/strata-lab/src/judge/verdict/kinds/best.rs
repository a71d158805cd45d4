//! `argmax`: the best point of a series, its lead over the others, and the
//! bootstrap share of resamples that pick it.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::reading::{no_data, pct, Series};
use crate::data::format::fmt_num;
use crate::judge::verdict::estimate::{neg, side, Est, Scale, Side};
use crate::judge::verdict::{Judgement, Verdict};

/// Bootstrap resamples drawn for `argmax`'s share of best picks.
pub(crate) const BOOTSTRAP: usize = 1000;

/// The share of bootstrap resamples (repeats drawn with replacement at each
/// point) whose best point (largest, or smallest with `!maximize`) is one
/// of `expected`.
pub(crate) fn bootstrap_share(y: &Series, expected: &[usize], maximize: bool) -> f64 {
    let mut rng = StdRng::seed_from_u64(0x5eed_b007);
    let mut hits = 0usize;
    for _ in 0..BOOTSTRAP {
        let mut best: Option<(usize, f64)> = None;
        for (i, s) in y.iter().enumerate().filter(|(_, s)| !s.is_empty()) {
            let m = (0..s.len())
                .map(|_| s[rng.gen_range(0..s.len())])
                .sum::<f64>()
                / s.len() as f64;
            let v = if maximize { m } else { -m };
            if best.is_none_or(|b| v > b.1) {
                best = Some((i, v));
            }
        }
        if best.is_some_and(|b| expected.contains(&b.0)) {
            hits += 1;
        }
    }
    hits as f64 / BOOTSTRAP as f64
}

/// What `argmax` is given: the point labels, the metric's name and
/// series, the expected best points (positions), whether larger is better,
/// and the minimum effect that counts.
#[derive(Clone, Copy)]
pub(crate) struct Best<'a> {
    pub(crate) xs: &'a [String],
    pub(crate) what: &'a str,
    pub(crate) y: &'a Series,
    pub(crate) expected: &'a [usize],
    pub(crate) maximize: bool,
    pub(crate) min_effect: f64,
}

/// Claim: the best point (largest with `maximize`, else smallest) is one of
/// `expected` (positions). Reproduced when the best point is expected and
/// beats every other point by more than the minimum effect; not reproduced
/// when another point is as good (within it) or better; inconclusive when
/// the intervals cannot tell. The text gives the bootstrap share of
/// resamples whose best point is expected, from [`BOOTSTRAP_MIN_REPEATS`]
/// repeats per point.
pub(crate) fn argmax(c: &Best) -> Judgement {
    let fewest = c.y.iter().filter(|s| !s.is_empty()).map(Vec::len).min();
    let share = fewest
        .is_some_and(|n| n >= BOOTSTRAP_MIN_REPEATS)
        .then(|| bootstrap_share(c.y, c.expected, c.maximize));
    argmax_with_share(c, share)
}

/// Fewest repeats per point for the bootstrap share to be shown: with
/// fewer, resampling a handful of values says little and reads as
/// certainty ("100% of resamples") beside an inconclusive verdict.
pub(crate) const BOOTSTRAP_MIN_REPEATS: usize = 5;

/// [`argmax`] with the bootstrap share given (`None`: not computed, as in
/// the simulation, where it would cost most of the time).
pub(crate) fn argmax_with_share(c: &Best, share: Option<f64>) -> Judgement {
    let Best {
        xs,
        what,
        y,
        expected,
        maximize,
        min_effect,
    } = *c;
    let all: Vec<&[f64]> = y.iter().map(|s| s.as_slice()).collect();
    let scale = Scale::choose(&all);
    let ests: Vec<Option<Est>> = scale.means(y);
    let sgn = |e: &Est| if maximize { *e } else { neg(e) };
    let best_of = |cands: &mut dyn Iterator<Item = usize>| -> Option<usize> {
        cands
            .filter_map(|i| ests[i].map(|e| (i, sgn(&e).value)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|b| b.0)
    };
    let Some(best) = best_of(&mut (0..y.len())) else {
        return no_data();
    };
    let word = if maximize { "highest" } else { "lowest" };
    let t = scale.threshold(min_effect);
    let m = pct(min_effect);
    let values = xs
        .iter()
        .zip(y)
        .filter(|(_, s)| !s.is_empty())
        .map(|(x, s)| format!("{x} {}", fmt_num(s.iter().sum::<f64>() / s.len() as f64)))
        .collect::<Vec<_>>()
        .join(", ");
    let exp_names: Vec<String> = expected.iter().map(|i| xs[*i].clone()).collect();
    let figs = match share {
        Some(share) => format!(
            "{what}: {values}; an expected point ({}) is {word} in {:.0}% of {BOOTSTRAP} bootstrap resamples",
            exp_names.join(", "),
            share * 100.0
        ),
        None => format!("{what}: {values}"),
    };
    // best vs other, in the claimed direction.
    let lead = |i: usize, j: usize| -> Side {
        match (ests[i], ests[j]) {
            (Some(a), Some(b)) => side(&sgn(&Est::diff(&b, &a)), t),
            _ => Side::Unclear,
        }
    };
    let (v, why) = if expected.contains(&best) {
        let others: Vec<usize> = (0..y.len())
            .filter(|j| !expected.contains(j) && ests[*j].is_some())
            .collect();
        let sides: Vec<(usize, Side)> = others.iter().map(|j| (*j, lead(best, *j))).collect();
        let close: Vec<String> = sides
            .iter()
            .filter(|s| matches!(s.1, Side::Null | Side::Against))
            .map(|s| xs[s.0].clone())
            .collect();
        if sides.iter().all(|s| s.1 == Side::With) {
            (
                Verdict::Reproduced,
                format!("{word} at {}, beyond {m} of every other point", xs[best]),
            )
        } else if !close.is_empty() {
            (
                Verdict::NotReproduced,
                format!(
                    "{word} at {}, but {} within {m} of it",
                    xs[best],
                    close.join(", ")
                ),
            )
        } else {
            (
                Verdict::Inconclusive,
                format!(
                    "{word} at {}, but its lead over {} does not clear {m}",
                    xs[best],
                    sides
                        .iter()
                        .filter(|s| s.1 == Side::Unclear)
                        .map(|s| xs[s.0].clone())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
        }
    } else {
        let Some(e) = best_of(&mut expected.iter().copied()) else {
            return Judgement::new(
                Verdict::NoData,
                format!("no data at the expected points. {figs}"),
            );
        };
        match lead(best, e) {
            Side::With => (
                Verdict::NotReproduced,
                format!(
                    "{word} at {}, beyond {m} of the expected {}",
                    xs[best], xs[e]
                ),
            ),
            Side::Null | Side::Against => (
                Verdict::NotReproduced,
                format!(
                    "{word} at {}, with the expected {} within {m} of it",
                    xs[best], xs[e]
                ),
            ),
            Side::Unclear => (
                Verdict::Inconclusive,
                format!(
                    "{word} at {}, but its lead over the expected {} does not clear {m}",
                    xs[best], xs[e]
                ),
            ),
        }
    };
    Judgement::new(v, format!("{why}. {figs}"))
}
