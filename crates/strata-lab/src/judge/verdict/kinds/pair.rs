//! The kinds that compare two series point by point: `ordering`,
//! `crossover`, `ratio` and `parity`.

use super::reading::{
    all_zero, iv, labels_where, no_data, pair_effects, pct, per_point, pooled, read_pair, rel,
    sides_of, unclear_at, Pair, Repeats, Series,
};
use crate::judge::verdict::estimate::{direction_clear, direction_level, side, Est, Side};
use crate::judge::verdict::{Judgement, Verdict};

/// Claim: `a` is above `b` at every point. Reproduced when every point's
/// interval of `a/b` clears the minimum effect upwards; reversed when the
/// pooled effect clears it downwards and no point goes the claimed way.
pub(crate) fn ordering(p: &Pair) -> Judgement {
    let Pair {
        la, lb, min_effect, ..
    } = *p;
    let (scale, eff) = pair_effects(p.b, p.a, p.repeats.map(|(ra, rb)| (rb, ra)));
    let Some(all) = pooled(&eff) else {
        let zero = all_zero(p.xs, p.a, p.b);
        if zero.is_empty() {
            return no_data();
        }
        return Judgement::new(
            Verdict::Inconclusive,
            format!("both are 0 at {}: nothing to compare", zero.join(", ")),
        );
    };
    // Only points with something to compare count; the rest are named.
    let left_out = left_out_note(p.xs, p.a, p.b, &eff);
    let present: Vec<usize> = (0..eff.len()).filter(|i| eff[*i].is_some()).collect();
    let xs: Vec<String> = present.iter().map(|i| p.xs[*i].clone()).collect();
    let eff: Vec<Option<Est>> = present.iter().map(|i| eff[*i]).collect();
    let xs = xs.as_slice();
    let (t, sides) = sides_of(&scale, &eff, min_effect);
    let ps = side(&all, t);
    let n = eff.len();
    let figs = if n == 1 {
        format!("{} {}", rel(&scale, lb, la), per_point(xs, &scale, &eff))
    } else {
        format!(
            "{} {} pooled over {n} points; {}",
            rel(&scale, lb, la),
            iv(&scale, &all),
            per_point(xs, &scale, &eff)
        )
    };
    let m = pct(min_effect);
    let has = |s: Side| sides.contains(&s);
    let (v, why) = if sides.iter().all(|s| *s == Side::With) {
        (
            Verdict::Reproduced,
            format!("{la} above {lb} by more than {m} at every point"),
        )
    } else if ps == Side::Against && !has(Side::With) {
        (
            Verdict::Reversed,
            format!("{lb} above {la} by more than {m} overall"),
        )
    } else if has(Side::Null) || has(Side::Against) || ps == Side::Null {
        let mut parts = Vec::new();
        let null = labels_where(xs, &sides, &[Side::Null]);
        if !null.is_empty() {
            parts.push(format!("within {m} at {}", null.join(", ")));
        }
        let against = labels_where(xs, &sides, &[Side::Against]);
        if !against.is_empty() {
            parts.push(format!("{lb} above {la} at {}", against.join(", ")));
        }
        if parts.is_empty() {
            parts.push(format!("within {m} overall"));
        }
        (Verdict::NotReproduced, parts.join("; "))
    } else if direction_clear(&all, true) && !has(Side::Against) {
        let (_, why) = unclear_at(
            &labels_where(xs, &sides, &[Side::Unclear]),
            &format!("do not clear {m} either way"),
        );
        (
            Verdict::DirectionOnly,
            format!(
                "{la} above {lb} over the points (one-sided {}), but {why}: the size is not settled",
                pct(direction_level())
            ),
        )
    } else {
        unclear_at(
            &labels_where(xs, &sides, &[Side::Unclear]),
            &format!("do not clear {m} either way"),
        )
    };
    Judgement::new(v, format!("{why}{left_out}. {figs}")).with_pooled(
        rel(&scale, lb, la),
        &scale,
        &all,
    )
}

/// " (left out: 1 KB, both 0; 2 KB, no data)" for points `eff` has no
/// effect at, or "" when there are none.
fn left_out_note(xs: &[String], a: &Series, b: &Series, eff: &[Option<Est>]) -> String {
    let zero = all_zero(xs, a, b);
    let parts: Vec<String> = xs
        .iter()
        .zip(eff)
        .filter(|(_, e)| e.is_none())
        .map(|(x, _)| {
            if zero.contains(x) {
                format!("{x}, both 0")
            } else {
                format!("{x}, no data")
            }
        })
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(" (left out: {})", parts.join("; "))
    }
}

/// Where `b` overtakes `a` by a clean crossover that the repeats show (as
/// [`crossover`] reads one): the index of the first point from which b is
/// above a by more than `min_effect`, skipping points without data; `None`
/// where there is no such crossover or it cannot be pinned.
pub(crate) fn crossing_point(a: &Series, b: &Series, min_effect: f64) -> Option<usize> {
    crossing_between(a, b, min_effect).map(|(_, c)| c)
}

/// [`crossing_point`] with the last point before it where `b` is not
/// above: `(p, c)`, indices into the series.
pub(crate) fn crossing_between(a: &Series, b: &Series, min_effect: f64) -> Option<(usize, usize)> {
    let (scale, eff) = pair_effects(a, b, None);
    let (_, sides) = sides_of(&scale, &eff, min_effect);
    let present: Vec<usize> = (0..eff.len()).filter(|i| eff[*i].is_some()).collect();
    let sd: Vec<Side> = present.iter().map(|i| sides[*i]).collect();
    clean_crossover(&sd)
        .ok()
        .map(|(p, c)| (present[p], present[c]))
}

/// A clean crossover of `sides` (b - a per point): a suffix of points where
/// b is above (from `c`, with `0 < c`), and before it a last point `p` where
/// b is not above (within the minimum effect or below), with no point at or
/// before `p` where b is above. `Err` says why there is none.
fn clean_crossover(sides: &[Side]) -> Result<(usize, usize), &'static str> {
    let k = sides.len();
    let c = (0..=k)
        .rev()
        .take_while(|&i| i == k || sides[i] == Side::With)
        .last()
        .unwrap_or(k);
    if c == k {
        return Err("not above at the last point");
    }
    if c == 0 {
        return Err("above at every point");
    }
    let Some(p) = (0..c)
        .rev()
        .find(|&i| matches!(sides[i], Side::Null | Side::Against))
    else {
        return Err("possibly above already before");
    };
    if sides[..p].contains(&Side::With) {
        return Err("above at an earlier point too");
    }
    Ok((p, c))
}

fn flip(s: Side) -> Side {
    match s {
        Side::With => Side::Against,
        Side::Against => Side::With,
        o => o,
    }
}

/// Claim: `b` overtakes `a` along an ordered axis, between the points of
/// `window` (positions, inclusive) when given. Reproduced when a clean
/// crossover (b not above a, then above from some point to the end, each
/// beyond the minimum effect) lies within the window; reversed when `a`
/// overtakes `b` that way instead.
pub(crate) fn crossover(p: &Pair, window: Option<(usize, usize)>) -> Judgement {
    let Pair {
        xs,
        la,
        lb,
        min_effect,
        ..
    } = *p;
    let Some((sides, figs)) = read_pair(p) else {
        return no_data();
    };
    let m = pct(min_effect);
    let between = |p: usize, c: usize| format!("between {} and {}", xs[p], xs[c]);
    let (v, why) = match clean_crossover(&sides) {
        Ok((p, c)) => match window {
            Some((w0, w1)) if w0 <= p && c <= w1 => (
                Verdict::Reproduced,
                format!("{lb} overtakes {la} {} (by more than {m})", between(p, c)),
            ),
            Some((w0, w1)) if c <= w0 || p >= w1 => (
                Verdict::NotReproduced,
                format!(
                    "{lb} overtakes {la} {}, outside the claimed {}",
                    between(p, c),
                    between(w0, w1)
                ),
            ),
            Some((w0, w1)) => (
                Verdict::Inconclusive,
                format!(
                    "{lb} overtakes {la} somewhere {}, not pinned within the claimed {}",
                    between(p, c),
                    between(w0, w1)
                ),
            ),
            None => (
                Verdict::Reproduced,
                format!("{lb} overtakes {la} {} (by more than {m})", between(p, c)),
            ),
        },
        Err(why) => {
            let flipped: Vec<Side> = sides.iter().map(|s| flip(*s)).collect();
            if let Ok((p, c)) = clean_crossover(&flipped) {
                (
                    Verdict::Reversed,
                    format!("{la} overtakes {lb} {} instead", between(p, c)),
                )
            } else if matches!(sides.last(), Some(Side::Null | Side::Against))
                || why == "above at every point"
                || why == "above at an earlier point too"
            {
                let what = match why {
                    "above at every point" => format!("{lb} is above {la} at every point"),
                    "above at an earlier point too" => {
                        format!("{lb} is above {la} before the crossing too")
                    }
                    _ => format!("{lb} is not above {la} at {}", xs[xs.len() - 1]),
                };
                (Verdict::NotReproduced, format!("no crossover: {what}"))
            } else {
                let unclear = labels_where(xs, &sides, &[Side::Unclear]);
                unclear_at(&unclear, &format!("do not clear {m} either way"))
            }
        }
    };
    Judgement::new(v, format!("{why}. {figs}"))
}

/// Claim: `b / a`, pooled over the points (a geometric mean), lies in
/// `range`. Reproduced when its interval lies within the range; larger
/// than published when the range is on one side of 1 and the interval lies
/// beyond the range's far end; not reproduced when it lies outside it
/// otherwise; reversed when the range is on one side of 1 and the interval
/// clears the minimum effect on the other.
pub(crate) fn ratio(p: &Pair, range: (f64, f64)) -> Judgement {
    let Pair {
        la, lb, min_effect, ..
    } = *p;
    let (xs, a, b) = (p.xs, p.a, p.b);
    // A ratio needs positive values: points with a 0 are left out.
    let positive = |s: &Vec<f64>| !s.is_empty() && s.iter().all(|v| *v > 0.0);
    let keep: Vec<usize> = (0..xs.len().min(a.len()).min(b.len()))
        .filter(|i| positive(&a[*i]) && positive(&b[*i]))
        .collect();
    let dropped: Vec<String> = (0..xs.len())
        .filter(|i| {
            !keep.contains(i)
                && a.get(*i).is_some_and(|s| !s.is_empty())
                && b.get(*i).is_some_and(|s| !s.is_empty())
        })
        .map(|i| xs[i].clone())
        .collect();
    let pick = |s: &Series| -> Vec<Vec<f64>> { keep.iter().map(|i| s[*i].clone()).collect() };
    let pick_r = |s: &Repeats| -> Vec<Vec<u32>> {
        keep.iter()
            .map(|i| s.get(*i).cloned().unwrap_or_default())
            .collect()
    };
    let kx: Vec<String> = keep.iter().map(|i| xs[*i].clone()).collect();
    let (a, b, xs) = (pick(a), pick(b), kx.as_slice());
    let ids = p.repeats.map(|(ra, rb)| (pick_r(ra), pick_r(rb)));
    let (scale, eff) = pair_effects(
        &a,
        &b,
        ids.as_ref().map(|(ra, rb)| (ra.as_slice(), rb.as_slice())),
    );
    let Some(all) = pooled(&eff) else {
        if dropped.is_empty() {
            return no_data();
        }
        return Judgement::new(
            Verdict::Inconclusive,
            format!(
                "a value is 0 at {}, so {lb}/{la} is undefined there and nowhere else measured",
                dropped.join(", ")
            ),
        );
    };
    let left_out = if dropped.is_empty() {
        String::new()
    } else {
        format!(" (left out: {}, where a value is 0)", dropped.join(", "))
    };
    let (lo, hi) = range;
    let r = all.value.exp();
    let n = eff.iter().flatten().count();
    let figs = format!(
        "{lb}/{la} {} ({}); {}",
        iv(&scale, &all),
        if n > 1 {
            format!("geometric mean over {n} points")
        } else {
            "one point".into()
        },
        if n > 1 {
            per_point(xs, &scale, &eff)
        } else {
            String::new()
        }
    );
    let figs = figs.trim_end_matches("; ").to_string();
    let claim = format!("expected {lo}-{hi}");
    let t = scale.threshold(min_effect);
    let s = side(&all, t);
    let (v, why) = match all.bounds() {
        None => (
            Verdict::Inconclusive,
            format!("{lb}/{la} {:.3} ({claim}) has no interval", r),
        ),
        Some((l, h)) => {
            let (l, h) = (l.exp(), h.exp());
            if lo <= l && h <= hi {
                (Verdict::Reproduced, format!("within the {claim}"))
            } else if (lo >= 1.0 && s == Side::Against) || (hi <= 1.0 && s == Side::With) {
                (
                    Verdict::Reversed,
                    format!(
                        "{lb} is {} {la} by more than {} ({claim})",
                        if s == Side::With { "above" } else { "below" },
                        pct(min_effect)
                    ),
                )
            } else if (hi <= 1.0 && h < lo) || (lo >= 1.0 && l > hi) {
                (
                    Verdict::LargerThanPublished,
                    format!("the effect goes the claimed way and is larger than the {claim}"),
                )
            } else if h < lo || l > hi {
                (Verdict::NotReproduced, format!("outside the {claim}"))
            } else if (lo >= 1.0 && direction_clear(&all, true))
                || (hi <= 1.0 && direction_clear(&all, false))
            {
                // The direction alone is settled where the size is not.
                (
                    Verdict::DirectionOnly,
                    format!(
                        "{lb} {} {la} (one-sided {}), but the interval reaches outside the {claim}: the size is not settled",
                        if lo >= 1.0 { "above" } else { "below" },
                        pct(direction_level())
                    ),
                )
            } else {
                (
                    Verdict::Inconclusive,
                    format!("the interval reaches outside the {claim}"),
                )
            }
        }
    };
    Judgement::new(v, format!("{why}{left_out}. {figs}")).with_pooled(
        format!("{lb}/{la}"),
        &scale,
        &all,
    )
}

/// Claim: `a` and `b` are equal within the minimum effect at every point.
pub(crate) fn parity(p: &Pair) -> Judgement {
    let Pair { xs, min_effect, .. } = *p;
    let Some((sides, figs)) = read_pair(p) else {
        return no_data();
    };
    let m = pct(min_effect);
    let off = labels_where(xs, &sides, &[Side::With, Side::Against]);
    let (v, why) = if sides.iter().all(|s| *s == Side::Null) {
        (Verdict::Reproduced, format!("within {m} at every point"))
    } else if !off.is_empty() {
        (
            Verdict::NotReproduced,
            format!("apart by more than {m} at {}", off.join(", ")),
        )
    } else {
        unclear_at(
            &labels_where(xs, &sides, &[Side::Unclear]),
            &format!("are wider than {m} either way"),
        )
    };
    let j = Judgement::new(v, format!("{why}. {figs}"));
    let (scale, eff) = pair_effects(p.a, p.b, p.repeats);
    match pooled(&eff) {
        Some(all) => j.with_pooled(rel(&scale, p.la, p.lb), &scale, &all),
        None => j,
    }
}
