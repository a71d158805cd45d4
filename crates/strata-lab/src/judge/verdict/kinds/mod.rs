//! The decision of each kind of claim, from the repeats at each point.
//!
//! Inputs are samples per point along an axis (an empty sample: no data at
//! that point). Two series `a` and `b` are compared through the effect of
//! `b` relative to `a` at each point (`b / a` on the log scale); one series
//! through its means. Each function returns the verdict and the figures
//! behind it (estimates with 90% intervals: one-sided 95% bounds).

mod best;
mod bound;
mod pair;
pub(crate) mod reading;
pub(crate) mod trend;

pub(crate) use best::{argmax, argmax_with_share, Best};
pub(crate) use bound::bound;
pub(crate) use pair::{crossing_between, crossing_point, crossover, ordering, parity, ratio};
pub(crate) use reading::{Pair, Repeats, Series};
pub(crate) use trend::monotonic;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::verdict::Verdict;
    use Verdict::*;

    fn xs(n: usize) -> Vec<String> {
        (1..=n).map(|i| format!("x{i}")).collect()
    }

    /// `n` repeats around `m` with relative spread `cv` (deterministic).
    fn rep(m: f64, cv: f64, n: usize) -> Vec<f64> {
        let j = [-1.0, 0.0, 1.0, -0.5, 0.5, -0.8, 0.8, -0.2, 0.2, 0.0];
        (0..n).map(|i| m * (1.0 + cv * j[i % j.len()])).collect()
    }

    fn series(ms: &[f64], cv: f64, n: usize) -> Vec<Vec<f64>> {
        ms.iter().map(|m| rep(*m, cv, n)).collect()
    }

    /// `a` against `b` at the points `x`, with a minimum effect of 5%.
    fn pair<'a>(x: &'a [String], a: &'a Series, b: &'a Series) -> Pair<'a> {
        Pair {
            xs: x,
            la: "a",
            lb: "b",
            a,
            b,
            repeats: None,
            min_effect: 0.05,
        }
    }

    /// The best point of `y` at the points `x` is one of `expected`.
    fn best<'a>(x: &'a [String], y: &'a Series, expected: &'a [usize], maximize: bool) -> Best<'a> {
        Best {
            xs: x,
            what: "m",
            y,
            expected,
            maximize,
            min_effect: 0.05,
        }
    }

    #[test]
    fn ordering_all_four_verdicts() {
        let x = xs(3);
        let hi = series(&[200.0, 200.0, 200.0], 0.02, 3);
        let lo = series(&[100.0, 100.0, 100.0], 0.02, 3);
        let same = series(&[100.0, 100.0, 100.0], 0.01, 5);
        let wide = series(&[110.0, 110.0, 110.0], 0.6, 3);
        let v = |a: &Series, b: &Series| ordering(&pair(&x, a, b)).verdict;
        assert_eq!(v(&hi, &lo), Reproduced);
        assert_eq!(v(&lo, &hi), Reversed);
        assert_eq!(v(&same, &same), NotReproduced);
        assert_eq!(v(&wide, &lo), Inconclusive);
        assert_eq!(v(&[], &[]), NoData);
        // One repeat per cell: no interval, never a verdict either way.
        let one = series(&[200.0, 200.0, 200.0], 0.0, 1);
        assert_eq!(v(&one, &lo), Inconclusive);
    }

    /// An effect whose direction is clear but whose size straddles the
    /// minimum effect (ordering) or the published range (ratio): the
    /// direction is reproduced, the size is said not to be settled.
    #[test]
    fn a_clear_direction_with_an_unsettled_size() {
        let x = xs(2);
        let a = series(&[104.5, 104.5], 0.01, 5);
        let b = series(&[100.0, 100.0], 0.01, 5);
        let j = ordering(&pair(&x, &a, &b));
        assert_eq!(j.verdict, DirectionOnly, "{}", j.text);
        assert!(
            j.text
                .starts_with("a above b over the points (one-sided 0.5%), but the intervals at"),
            "{}",
            j.text
        );
        assert!(j.text.contains("the size is not settled"), "{}", j.text);
        // b/a about 1.045 against a published 1.04-1.08 with spread: the
        // interval reaches below 1.04, yet clears 1.
        let b2 = series(&[104.5, 104.5], 0.03, 5);
        let j = ratio(&pair(&x, &b, &b2), (1.04, 1.08));
        assert_eq!(j.verdict, DirectionOnly, "{}", j.text);
        // Noise that hides even the direction: inconclusive.
        let wide = series(&[104.5, 104.5], 0.3, 3);
        assert_eq!(ordering(&pair(&x, &wide, &b)).verdict, Inconclusive);
    }

    /// Samples paired by repeat: a drift that moves both series together
    /// cancels, so a 10% effect that the unpaired reading cannot tell
    /// from the drift is reproduced; with no drift the reading is the
    /// unpaired one.
    #[test]
    fn pairing_by_repeat_removes_a_shared_drift() {
        let x = xs(1);
        let drift = [1.0, 1.3, 0.8, 1.15, 0.9];
        let a = vec![drift.iter().map(|d| 100.0 * d).collect::<Vec<f64>>()];
        let b = vec![drift
            .iter()
            .zip([1.0, -1.0, 0.5, -0.5, 0.0])
            .map(|(d, j)| 110.0 * d * (1.0 + 0.005 * j))
            .collect::<Vec<f64>>()];
        let ids = vec![(0..5).collect::<Vec<u32>>()];
        let mut p = pair(&x, &a, &b);
        assert_eq!(ratio(&p, (1.05, 1.2)).verdict, Inconclusive);
        p.repeats = Some((&ids, &ids));
        let j = ratio(&p, (1.05, 1.2));
        assert_eq!(j.verdict, Reproduced, "{}", j.text);
        // Repeats in another order: paired by id, not by position.
        let rev: Vec<Vec<u32>> = vec![(0..5).rev().collect()];
        let b_rev: Vec<Vec<f64>> = vec![b[0].iter().rev().copied().collect()];
        let p = Pair {
            b: &b_rev,
            repeats: Some((&ids, &rev)),
            ..pair(&x, &a, &b)
        };
        assert_eq!(ratio(&p, (1.05, 1.2)).verdict, Reproduced);
    }

    #[test]
    fn crossover_window_and_reversal() {
        let x = xs(4);
        let a = series(&[100.0, 100.0, 100.0, 100.0], 0.01, 3);
        let b = series(&[60.0, 99.0, 150.0, 200.0], 0.01, 3);
        let v = |a: &Series, b: &Series, w| crossover(&pair(&x, a, b), w).verdict;
        let j = crossover(&pair(&x, &a, &b), None);
        assert_eq!(j.verdict, Verdict::Reproduced, "{}", j.text);
        assert!(
            j.text.starts_with("b overtakes a between x2 and x3"),
            "{}",
            j.text
        );
        assert_eq!(v(&a, &b, Some((1, 3))), Reproduced);
        assert_eq!(v(&a, &b, Some((2, 3))), NotReproduced);
        assert_eq!(v(&a, &b, Some((0, 1))), NotReproduced);
        assert_eq!(v(&b, &a, None), Reversed);
        // Identical series: no crossover either way.
        assert_eq!(v(&a, &a, None), NotReproduced);
        // Above everywhere: not a crossover.
        let up = series(&[150.0, 150.0, 150.0, 150.0], 0.01, 3);
        assert_eq!(v(&a, &up, None), NotReproduced);
        // Before the crossing, b's lead is unclear: where it crosses cannot be told.
        let fuzzy = vec![
            rep(104.0, 0.3, 3),
            rep(104.0, 0.3, 3),
            rep(150.0, 0.01, 3),
            rep(150.0, 0.01, 3),
        ];
        assert_eq!(v(&a, &fuzzy, None), Inconclusive);
    }

    #[test]
    fn ratio_needs_its_interval_inside_the_range() {
        let x = xs(2);
        let a = series(&[100.0, 100.0], 0.01, 5);
        let b = series(&[300.0, 300.0], 0.01, 5);
        let v = |a: &Series, b: &Series, r| ratio(&pair(&x, a, b), r).verdict;
        assert_eq!(v(&a, &b, (2.0, 10.0)), Reproduced);
        assert_eq!(v(&a, &b, (5.0, 10.0)), NotReproduced);
        // The claimed way, beyond the published range: larger than published.
        assert_eq!(v(&a, &b, (1.5, 2.0)), LargerThanPublished);
        assert_eq!(v(&b, &a, (0.5, 0.8)), LargerThanPublished);
        // A range straddling 1 has no direction to be larger in.
        assert_eq!(v(&a, &b, (0.9, 1.1)), NotReproduced);
        assert_eq!(v(&b, &a, (2.0, 10.0)), Reversed);
        let noisy = series(&[300.0, 300.0], 0.9, 2);
        assert_eq!(v(&a, &noisy, (2.0, 10.0)), Inconclusive);
        // Within noise of 1 against a claim of 1.02-1.08: neither reproduced nor reversed.
        let same = series(&[100.0, 100.0], 0.01, 5);
        let j = ratio(&pair(&x, &a, &same), (1.02, 1.08));
        assert!(
            matches!(j.verdict, Verdict::NotReproduced | Verdict::Inconclusive),
            "{j:?}"
        );
        let zero = series(&[0.0, 0.0], 0.0, 3);
        assert_eq!(v(&zero, &b, (2.0, 10.0)), Inconclusive);
    }

    #[test]
    fn points_without_anything_to_compare_are_left_out() {
        // No compaction at the first point (both 0): the ratio is read
        // where it is defined, and the point is named.
        let x = xs(3);
        let a = vec![rep(0.0, 0.0, 3), rep(10.0, 0.02, 3), rep(20.0, 0.02, 3)];
        let b = vec![rep(0.0, 0.0, 3), rep(2.0, 0.02, 3), rep(4.0, 0.02, 3)];
        let j = ratio(&pair(&x, &a, &b), (0.1, 0.4));
        assert_eq!(j.verdict, Verdict::Reproduced, "{}", j.text);
        assert!(
            j.text.contains("(left out: x1, where a value is 0)"),
            "{}",
            j.text
        );
        let j = ordering(&pair(&x, &a, &b));
        assert_eq!(j.verdict, Verdict::Reproduced, "{}", j.text);
        assert!(j.text.contains("(left out: x1, both 0)"), "{}", j.text);
        // With a 0 beside a positive value the difference is relative to
        // the point's larger mean: 2 against 0 is a 100% difference, not a
        // small one next to another point's 20.
        let b0 = vec![rep(0.0, 0.0, 3), rep(0.0, 0.0, 3), rep(4.0, 0.02, 3)];
        let j = ordering(&pair(&x, &a, &b0));
        assert_eq!(j.verdict, Verdict::Reproduced, "{}", j.text);
        assert!(j.text.contains("x2 +100.0%"), "{}", j.text);
        let zero = vec![rep(0.0, 0.0, 3); 3];
        assert_eq!(ordering(&pair(&x, &zero, &zero)).verdict, Inconclusive);
        assert_eq!(
            ratio(&pair(&x, &zero, &zero), (0.1, 0.4)).verdict,
            Inconclusive
        );
    }

    #[test]
    fn parity_is_an_equivalence() {
        let x = xs(2);
        let a = series(&[100.0, 100.0], 0.01, 5);
        let near = series(&[101.0, 99.0], 0.01, 5);
        let far = series(&[130.0, 99.0], 0.01, 5);
        let wide = series(&[100.0, 100.0], 0.5, 3);
        let v = |b: &Series| parity(&pair(&x, &a, b)).verdict;
        assert_eq!(v(&near), Reproduced);
        assert_eq!(v(&far), NotReproduced);
        assert_eq!(v(&wide), Inconclusive);
    }

    #[test]
    fn monotonic_needs_the_trend_beyond_noise() {
        let x = xs(3);
        let up = series(&[100.0, 150.0, 200.0], 0.02, 3);
        assert_eq!(
            monotonic(&x, "m", None, &up, true, 0.05).verdict,
            Reproduced
        );
        assert_eq!(monotonic(&x, "m", None, &up, false, 0.05).verdict, Reversed);
        // 70.1 -> 70.5 -> 72.5 with 1% noise: a 3% rise is not a trend of 5%.
        let flat = series(&[70.1, 70.5, 72.5], 0.01, 3);
        let j = monotonic(&x, "m", None, &flat, true, 0.05);
        assert!(
            matches!(j.verdict, Verdict::NotReproduced | Verdict::Inconclusive),
            "{j:?}"
        );
        // Up overall but down by more than 5% in one step: not monotonic.
        let zig = series(&[100.0, 200.0, 150.0, 300.0], 0.01, 3);
        assert_eq!(
            monotonic(&xs(4), "m", None, &zig, true, 0.05).verdict,
            NotReproduced
        );
        // A step then a plateau (p999 1,274 -> 32, 30, 29, 31) is not a
        // fall across the sweep.
        let step = series(&[1274.0, 32.0, 31.0, 31.5, 31.2], 0.01, 5);
        let j = monotonic(&xs(5), "m", None, &step, false, 0.05);
        assert_eq!(j.verdict, NotReproduced, "{}", j.text);
        assert!(j.text.contains("flat (within 5%) from x2 on"), "{}", j.text);
        // Two steps, both down: a fall.
        let two = series(&[1274.0, 320.0, 30.0], 0.01, 5);
        assert_eq!(
            monotonic(&x, "m", None, &two, false, 0.05).verdict,
            Reproduced
        );
        // Zeros: linear scale (stall time falling to 0).
        let stall = series(&[7.0, 0.0, 0.0], 0.05, 3);
        assert_eq!(
            monotonic(&x, "m", None, &stall, false, 0.05).verdict,
            Reproduced
        );
        // A ratio's trend: b/a rises from 1 to 2.
        let a = series(&[100.0, 100.0, 100.0], 0.01, 3);
        let b = series(&[100.0, 150.0, 200.0], 0.01, 3);
        assert_eq!(
            monotonic(&x, "m", Some(&a), &b, true, 0.05).verdict,
            Reproduced
        );
    }

    #[test]
    fn argmax_with_its_lead_and_bootstrap_share() {
        let x = xs(4);
        let peak5 = series(&[100.0, 150.0, 120.0, 90.0], 0.02, 5);
        let j = argmax(&best(&x, &peak5, &[1], true));
        assert_eq!(j.verdict, Verdict::Reproduced, "{}", j.text);
        assert!(
            j.text.contains("in 100% of 1000 bootstrap resamples"),
            "{}",
            j.text
        );
        // Below 5 repeats no bootstrap share is given.
        let peak = series(&[100.0, 150.0, 120.0, 90.0], 0.02, 3);
        let j = argmax(&best(&x, &peak, &[1], true));
        assert_eq!(j.verdict, Verdict::Reproduced, "{}", j.text);
        assert!(!j.text.contains("bootstrap"), "{}", j.text);
        assert_eq!(argmax(&best(&x, &peak, &[2], true)).verdict, NotReproduced);
        assert_eq!(argmax(&best(&x, &peak, &[3], false)).verdict, Reproduced);
        // Interior (positions 1 and 2) against the ends.
        assert_eq!(argmax(&best(&x, &peak, &[1, 2], true)).verdict, Reproduced);
        // A tie with a point outside the expected set: not shown best.
        let tie = series(&[100.0, 150.0, 149.0, 90.0], 0.01, 3);
        assert_eq!(argmax(&best(&x, &tie, &[1], true)).verdict, NotReproduced);
        let wide = series(&[100.0, 115.0, 100.0, 100.0], 0.3, 3);
        assert_eq!(argmax(&best(&x, &wide, &[1], true)).verdict, Inconclusive);
    }

    #[test]
    fn bound_on_every_point() {
        let x = xs(3);
        let zero = series(&[0.0, 0.0, 0.0], 0.0, 3);
        assert_eq!(
            bound(&x, "stall", &zero, Some(0.1), None).verdict,
            Reproduced
        );
        let some = series(&[0.0, 2.0, 0.0], 0.05, 3);
        assert_eq!(
            bound(&x, "stall", &some, Some(0.1), None).verdict,
            NotReproduced
        );
        let wide = series(&[0.05, 0.05, 0.05], 0.9, 3);
        assert_eq!(
            bound(&x, "stall", &wide, Some(0.1), None).verdict,
            Inconclusive
        );
        assert_eq!(
            bound(&x, "stall", &some, None, Some(1.0)).verdict,
            NotReproduced
        );
    }
}
