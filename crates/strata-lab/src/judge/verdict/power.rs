//! How many repeats an undecided comparison would need: from the effect and
//! its standard error at the current repeats, the repeats per cell at which
//! the one-sided 95% bound would be nearer than the effect's distance from the
//! minimum effect (so that it lies wholly on one side of it).

use super::estimate::{alpha, floored_means, side, t_quantile, Est, Scale, Side};
use super::kinds::reading::{pair_effects, pooled, sides_of};
use super::kinds::{trend, Series};

/// Above this many repeats per cell the answer is "too many to run".
pub(crate) const MAX_REPEATS: usize = 1000;

/// Repeats per cell at which `e` (estimated from `n` repeats per cell)
/// would have its one-sided 95% bound within `margin`, the distance of its
/// value from the nearest bound it must clear. `None` when it cannot be
/// estimated (no interval) or the value sits on the bound.
pub(crate) fn repeats_needed(e: &Est, n: usize, margin: f64) -> Option<usize> {
    if e.var.is_nan() || e.var <= 0.0 || n == 0 || margin <= 1e-9 {
        return None;
    }
    // The standard error shrinks as 1 / sqrt(n) and the degrees of freedom
    // grow with n: solve n' = n (t(df') se / margin)^2 by iteration.
    let nf = n as f64;
    let df_per_repeat = (e.df / (nf - 1.0).max(1.0)).clamp(0.5, 2.0);
    let se = e.var.sqrt();
    let mut m = nf;
    for _ in 0..20 {
        let df = (df_per_repeat * (m - 1.0)).max(1.0);
        m = nf * (t_quantile(df, 2.0 * alpha()) * se / margin).powi(2);
        if m > 1e7 {
            break;
        }
    }
    Some(m.ceil().max(nf + 1.0) as usize)
}

/// For two series compared point by point (`b` against `a`), the repeats
/// per cell that would decide every point whose interval is unclear
/// against the minimum effect: the largest over those points. `None` when
/// no point is unclear or none can be estimated.
pub(crate) fn pair_repeats_needed(a: &Series, b: &Series, min_effect: f64) -> Option<usize> {
    let (scale, eff) = pair_effects(a, b, None);
    let (t, sides) = sides_of(&scale, &eff, min_effect);
    let n = a
        .iter()
        .chain(b)
        .filter(|s| !s.is_empty())
        .map(Vec::len)
        .min()?;
    eff.iter()
        .zip(&sides)
        .filter(|(_, s)| **s == Side::Unclear)
        .filter_map(|(e, _)| {
            let e = (*e)?;
            repeats_needed(&e, n, (e.value.abs() - t).abs())
        })
        .max()
}

/// For a ratio claim (`b / a` pooled over the points, expected in
/// `range`), the repeats per cell that would put the pooled interval wholly
/// inside or wholly outside the range. Only positive values count, as in
/// the verdict.
pub(crate) fn ratio_repeats_needed(a: &Series, b: &Series, range: (f64, f64)) -> Option<usize> {
    let positive = |s: &Vec<f64>| !s.is_empty() && s.iter().all(|v| *v > 0.0);
    let keep: Vec<usize> = (0..a.len().min(b.len()))
        .filter(|i| positive(&a[*i]) && positive(&b[*i]))
        .collect();
    let pick = |s: &Series| -> Vec<Vec<f64>> { keep.iter().map(|i| s[*i].clone()).collect() };
    let (a, b) = (pick(a), pick(b));
    let n = a.iter().chain(&b).map(Vec::len).min()?;
    let (_, eff) = pair_effects(&a, &b, None);
    let all = pooled(&eff)?;
    let (lo, hi) = (range.0.ln(), range.1.ln());
    let v = all.value;
    let margin = if v < lo {
        lo - v
    } else if v > hi {
        v - hi
    } else {
        (v - lo).min(hi - v)
    };
    repeats_needed(&all, n, margin)
}

/// The fewest samples at a point with data, over every series given.
fn fewest(series: &[&Series]) -> Option<usize> {
    series
        .iter()
        .flat_map(|s| s.iter())
        .filter(|s| !s.is_empty())
        .map(Vec::len)
        .min()
}

/// For a trend (`y`, or its effect against `base`, rising or falling
/// along the points), the repeats per cell that would put the fitted
/// change's interval wholly on one side of the minimum effect.
pub(crate) fn trend_repeats_needed(
    base: Option<&Series>,
    y: &Series,
    min_effect: f64,
) -> Option<usize> {
    let (scale, ests) = trend::points(base, y);
    let present = trend::present(&ests);
    if present.len() < 2 {
        return None;
    }
    let overall = trend::fitted_change(&present);
    let t = scale.threshold(min_effect);
    let n = fewest(&[y, base.unwrap_or(&[])])?;
    repeats_needed(&overall, n, (overall.value.abs() - t).abs())
}

/// For a claim that the best point of `y` is among `expected` (highest,
/// or lowest when not `maximize`), the repeats per cell that would settle
/// every lead it rests on: the best point's over each other point when it
/// is expected, else its lead over the best expected point; the largest
/// over the leads whose interval is unclear.
pub(crate) fn best_repeats_needed(
    y: &Series,
    expected: &[usize],
    maximize: bool,
    min_effect: f64,
) -> Option<usize> {
    let all: Vec<&[f64]> = y.iter().map(|s| s.as_slice()).collect();
    let scale = Scale::choose(&all);
    let ests = scale.means(y);
    let value = |i: usize| ests[i].map(|e| if maximize { e.value } else { -e.value });
    let best_of = |cands: &mut dyn Iterator<Item = usize>| {
        cands
            .filter_map(|i| value(i).map(|v| (i, v)))
            .max_by(|a, b| a.1.total_cmp(&b.1))
            .map(|b| b.0)
    };
    let best = best_of(&mut (0..y.len()))?;
    let rivals: Vec<usize> = if expected.contains(&best) {
        (0..y.len()).filter(|j| !expected.contains(j)).collect()
    } else {
        best_of(&mut expected.iter().copied()).into_iter().collect()
    };
    let t = scale.threshold(min_effect);
    let n = fewest(&[y])?;
    rivals
        .into_iter()
        .filter_map(|j| {
            let d = Est::diff(&ests[j]?, &ests[best]?);
            (side(&d, t) == Side::Unclear)
                .then(|| repeats_needed(&d, n, (d.value.abs() - t).abs()))
                .flatten()
        })
        .max()
}

/// For a claim that `y` stays at most `max` and/or at least `min` at every
/// point, the repeats per cell that would put every point's interval
/// wholly on one side of the limit it reaches across.
pub(crate) fn bound_repeats_needed(
    y: &Series,
    max: Option<f64>,
    min: Option<f64>,
) -> Option<usize> {
    let n = fewest(&[y])?;
    floored_means(y, false)
        .into_iter()
        .flatten()
        .filter_map(|e| {
            let (lo, hi) = e.bounds()?;
            let across = |m: f64| lo < m && m < hi;
            [max, min]
                .into_iter()
                .flatten()
                .filter(|m| across(*m))
                .filter_map(|m| repeats_needed(&e, n, (e.value - m).abs()))
                .max()
        })
        .max()
}

/// The repeats per cell at which a run with adaptive repeats judges its
/// claims: from `initial`, doubling, up to `max` (3, 6, 12, 20). Few looks
/// keep the share of the error rate each look spends ([`super::estimate::with_looks`]) large.
pub(crate) fn schedule(initial: usize, max: usize) -> Vec<usize> {
    let mut out = vec![initial.max(1)];
    while let Some(&last) = out.last() {
        if last >= max {
            break;
        }
        out.push((last * 2).min(max));
    }
    out
}

/// The sentence an inconclusive verdict ends with.
pub(crate) fn needs_text(needed: usize) -> String {
    if needed > MAX_REPEATS {
        format!("more than {MAX_REPEATS} repeats per cell would be needed at this noise: the effect is too close to the minimum effect to decide here")
    } else {
        format!("about {needed} repeats per cell would decide it at this noise")
    }
}

/// The repeats per cell a verdict's text says would decide it, as
/// [`needs_text`] writes them: the largest "about N" in it, or `None` with
/// `too_close` when a part of it needs more than [`MAX_REPEATS`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Needed {
    /// The largest "about N repeats per cell" the text names.
    pub about: Option<usize>,
    /// A part of the claim needs more than [`MAX_REPEATS`].
    pub too_close: bool,
}

/// Reads [`Needed`] from a verdict's text; `None` when it names no
/// repeats (a verdict decided, or undecided for another reason).
pub(crate) fn needed_in(text: &str) -> Option<Needed> {
    const ABOUT: &str = " repeats per cell would decide it at this noise";
    let about = text
        .match_indices(ABOUT)
        .filter_map(|(i, _)| {
            let head = &text[..i];
            let number = head.trim_end_matches(|c: char| c.is_ascii_digit());
            if !number.ends_with("about ") {
                return None;
            }
            head[number.len()..].parse().ok()
        })
        .max();
    let too_close = text.contains(&format!(
        "more than {MAX_REPEATS} repeats per cell would be needed at this noise"
    ));
    (about.is_some() || too_close).then_some(Needed { about, too_close })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three repeats around each mean, `spread` apart.
    fn series(means: &[f64], spread: f64) -> Vec<Vec<f64>> {
        means
            .iter()
            .map(|m| vec![m - spread, *m, m + spread])
            .collect()
    }

    #[test]
    fn trends_best_points_and_bounds_estimate_the_repeats_they_need() {
        // A rise of about 5% overall, against a 5% minimum effect: the
        // noisier sweep needs more repeats; one point has no trend.
        let quiet = trend_repeats_needed(None, &series(&[100.0, 102.0, 104.0], 2.0), 0.05);
        let noisy = trend_repeats_needed(None, &series(&[100.0, 102.0, 104.0], 6.0), 0.05);
        assert!(
            quiet.unwrap() > 3 && noisy.unwrap() > quiet.unwrap(),
            "{quiet:?} {noisy:?}"
        );
        assert_eq!(
            trend_repeats_needed(None, &series(&[100.0], 2.0), 0.05),
            None
        );
        // The expected best (the first) leads the second by an unclear
        // margin, the third clearly: only the unclear lead asks for repeats.
        let y = series(&[110.0, 104.0, 50.0], 5.0);
        let lead = best_repeats_needed(&y, &[0], true, 0.05).unwrap();
        assert!(lead > 3, "{lead}");
        let clear = series(&[200.0, 104.0, 50.0], 1.0);
        assert_eq!(best_repeats_needed(&clear, &[0], true, 0.05), None);
        // A best point not expected: its lead over the best expected one.
        assert!(best_repeats_needed(&y, &[1], true, 0.05).is_some());
        // A mean just under its bound, its interval across it.
        let near = bound_repeats_needed(&series(&[9.5], 1.0), Some(10.0), None).unwrap();
        assert!(near > 3, "{near}");
        assert_eq!(
            bound_repeats_needed(&series(&[5.0], 1.0), Some(10.0), None),
            None
        );
    }

    #[test]
    fn the_repeats_a_verdict_names_are_read_back() {
        assert_eq!(
            needed_in(&format!("x. a/b 1.0 [0.9, 1.1]; {}", needs_text(40))),
            Some(Needed {
                about: Some(40),
                too_close: false
            })
        );
        // Across facets: the largest, and whether a facet is too close.
        let t = format!(
            "facet a: {}; facet b: {}; facet c: {}",
            needs_text(12),
            needs_text(58),
            needs_text(MAX_REPEATS + 1)
        );
        assert_eq!(
            needed_in(&t),
            Some(Needed {
                about: Some(58),
                too_close: true
            })
        );
        assert_eq!(
            needed_in(&needs_text(MAX_REPEATS + 1)),
            Some(Needed {
                about: None,
                too_close: true
            })
        );
        assert_eq!(needed_in("within the expected 1.4-1.6"), None);
    }

    #[test]
    fn repeats_grow_with_the_noise_and_shrink_with_the_margin() {
        let e = |sd: f64, df: f64| Est {
            value: 0.1,
            var: sd * sd,
            df,
        };
        // A standard error of 0.05 at 5 repeats; to bring the one-sided 95%
        // bound (t near 1.7) within 0.05 needs about 1.7^2 x 5 = 15 repeats.
        let n = repeats_needed(&e(0.05, 4.0), 5, 0.05).unwrap();
        assert!((13..=17).contains(&n), "{n}");
        // Check: at n repeats the bound is within the margin.
        let se = 0.05 * (5.0 / n as f64).sqrt();
        assert!(t_quantile(n as f64 - 1.0, 0.10) * se <= 0.0501, "{n}");
        assert!(repeats_needed(&e(0.05, 4.0), 5, 0.02).unwrap() > n);
        assert!(repeats_needed(&e(0.02, 4.0), 5, 0.05).unwrap() < n);
        assert_eq!(repeats_needed(&e(0.05, 4.0), 5, 0.0), None);
        let none = Est {
            value: 0.1,
            var: f64::NAN,
            df: 0.0,
        };
        assert_eq!(repeats_needed(&none, 2, 0.05), None);
    }

    #[test]
    fn the_adaptive_schedule_doubles_up_to_the_maximum() {
        assert_eq!(schedule(3, 20), vec![3, 6, 12, 20]);
        assert_eq!(schedule(5, 5), vec![5]);
        assert_eq!(schedule(3, 4), vec![3, 4]);
        assert_eq!(schedule(10, 3), vec![10]);
    }

    #[test]
    fn a_pair_needs_repeats_only_where_a_point_is_unclear() {
        let a = vec![vec![100.0, 90.0, 110.0], vec![100.0, 101.0, 99.0]];
        let b = vec![vec![120.0, 100.0, 140.0], vec![200.0, 202.0, 198.0]];
        let n = pair_repeats_needed(&a, &b, 0.05).expect("the first point is unclear");
        assert!(n > 3, "{n}");
        let clear = vec![b[1].clone(), b[1].clone()];
        let base = vec![a[1].clone(), a[1].clone()];
        assert_eq!(pair_repeats_needed(&base, &clear, 0.05), None);
        assert!(needs_text(5000).starts_with("more than 1000"));
        assert_eq!(
            needs_text(12),
            "about 12 repeats per cell would decide it at this noise"
        );
    }
}
