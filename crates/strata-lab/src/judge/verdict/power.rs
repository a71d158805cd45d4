//! How many repeats an undecided comparison would need: from the effect and
//! its standard error at the current repeats, the repeats per cell at which
//! the one-sided 95% bound would be nearer than the effect's distance from the
//! minimum effect (so that it lies wholly on one side of it).

use super::estimate::{alpha, t_quantile, Est, Side};
use super::kinds::reading::{pair_effects, pooled, sides_of};
use super::kinds::Series;

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
