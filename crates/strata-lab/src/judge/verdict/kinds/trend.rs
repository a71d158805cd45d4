//! `monotonic`: a series (or its ratio to a base) rises or falls along an
//! ordered axis.

use super::reading::{iv, pair_effects, pct, per_point, Series};
use crate::data::format::fmt_num;
use crate::judge::verdict::estimate::{neg, side, Est, Scale, Side};
use crate::judge::verdict::{Judgement, Verdict};

/// Claim: the metric (with `base`, the ratio `y / base`) rises
/// (`increasing`) or falls along an ordered axis. The overall change is the
/// least-squares line through the point estimates over the sweep positions,
/// read from first to last point; reproduced when it clears the minimum
/// effect in the claimed direction, no single step clears it the other
/// way, and the sweep without its first or without its last point is not
/// flat (a step then a plateau is not a trend); reversed when the change clears it the other way and no step goes
/// the claimed way.
pub(crate) fn monotonic(
    xs: &[String],
    what: &str,
    base: Option<&Series>,
    y: &Series,
    increasing: bool,
    min_effect: f64,
) -> Judgement {
    let (scale, ests) = points(base, y);
    let present = present(&ests);
    if present.len() < 2 {
        return Judgement::new(
            if present.is_empty() {
                Verdict::NoData
            } else {
                Verdict::Inconclusive
            },
            "fewer than two points with data",
        );
    }
    let overall = fitted_change(&present);
    let signed = |e: &Est| if increasing { *e } else { neg(e) };
    let t = scale.threshold(min_effect);
    let os = side(&signed(&overall), t);
    // Where the sweep is flat without its first (or last) point, the whole
    // change is one step at an end: a step then a plateau, not a trend.
    let k = present.len();
    let plateau = if k >= 3 {
        let after_first = side(&signed(&fitted_change(&present[1..])), t);
        let before_last = side(&signed(&fitted_change(&present[..k - 1])), t);
        if after_first == Side::Null {
            Some(format!(
                "flat (within {}) from {} on",
                pct(min_effect),
                xs[present[1].0 as usize]
            ))
        } else if before_last == Side::Null {
            Some(format!(
                "flat (within {}) up to {}",
                pct(min_effect),
                xs[present[k - 2].0 as usize]
            ))
        } else {
            None
        }
    } else {
        None
    };
    let steps: Vec<(String, Side)> = present
        .windows(2)
        .map(|w| {
            let d = Est::diff(&w[0].1, &w[1].1);
            (
                format!("{} -> {}", xs[w[0].0 as usize], xs[w[1].0 as usize]),
                side(&signed(&d), t),
            )
        })
        .collect();
    let dir = if increasing { "rises" } else { "falls" };
    let unit = match (base, scale) {
        (Some(_), Scale::Log) => format!("{what} ratio"),
        _ => what.to_string(),
    };
    let change = format!(
        "fitted change {} -> {}: {}{}",
        xs[present[0].0 as usize],
        xs[present[present.len() - 1].0 as usize],
        if scale == Scale::Log { "x" } else { "" },
        iv(&scale, &overall)
    );
    let values = match scale {
        // The means of the repeats, as the results tables show them.
        Scale::Log if base.is_none() => xs
            .iter()
            .zip(y)
            .filter(|(_, s)| !s.is_empty())
            .map(|(x, s)| format!("{x} {}", fmt_num(s.iter().sum::<f64>() / s.len() as f64)))
            .collect::<Vec<_>>()
            .join(", "),
        _ => per_point(xs, &scale, &ests),
    };
    let figs = format!("{change}; {unit}: {values}");
    let m = pct(min_effect);
    let against: Vec<String> = steps
        .iter()
        .filter(|s| s.1 == Side::Against)
        .map(|s| s.0.clone())
        .collect();
    let with: Vec<String> = steps
        .iter()
        .filter(|s| s.1 == Side::With)
        .map(|s| s.0.clone())
        .collect();
    let (v, why) = match os {
        Side::With if against.is_empty() && plateau.is_some() => (
            Verdict::NotReproduced,
            format!(
                "{unit} {dir} in one step at an end of the sweep, {}",
                plateau.unwrap_or_default()
            ),
        ),
        Side::With if against.is_empty() => (
            Verdict::Reproduced,
            format!("{unit} {dir} by more than {m} overall, no step against"),
        ),
        Side::Against if with.is_empty() => (
            Verdict::Reversed,
            format!("{unit} moves the other way by more than {m}"),
        ),
        Side::With => (
            Verdict::NotReproduced,
            format!(
                "{unit} {dir} overall but not monotonically (against at {})",
                against.join(", ")
            ),
        ),
        Side::Against => (
            Verdict::NotReproduced,
            format!(
                "{unit} moves the other way overall, with steps each way ({} with the claim)",
                with.join(", ")
            ),
        ),
        Side::Null => (
            Verdict::NotReproduced,
            format!("{unit} changes by less than {m} overall"),
        ),
        Side::Unclear => (
            Verdict::Inconclusive,
            format!("the overall change's interval does not clear {m} either way"),
        ),
    };
    Judgement::new(v, format!("{why}. {figs}"))
}

/// The points a trend is read from, on their scale: `y`'s means, or with
/// `base` the effect of `y` against it.
pub(crate) fn points(base: Option<&Series>, y: &Series) -> (Scale, Vec<Option<Est>>) {
    match base {
        Some(a) => pair_effects(a, y, None),
        None => {
            let all: Vec<&[f64]> = y.iter().map(|s| s.as_slice()).collect();
            let scale = Scale::choose(&all);
            (scale, scale.means(y))
        }
    }
}

/// The points with data, each with its sweep position.
pub(crate) fn present(ests: &[Option<Est>]) -> Vec<(f64, Est)> {
    ests.iter()
        .enumerate()
        .filter_map(|(i, e)| e.map(|e| (i as f64, e)))
        .collect()
}

/// The least-squares line through the point estimates over their sweep
/// positions, read from the first point to the last.
pub(crate) fn fitted_change(present: &[(f64, Est)]) -> Est {
    let xbar = present.iter().map(|p| p.0).sum::<f64>() / present.len() as f64;
    let sxx: f64 = present.iter().map(|p| (p.0 - xbar).powi(2)).sum();
    let span = present[present.len() - 1].0 - present[0].0;
    Est::combine(
        &present
            .iter()
            .map(|(x, e)| ((x - xbar) / sxx * span, *e))
            .collect::<Vec<_>>(),
    )
}
