//! The decision of each kind of claim, from the repeats at each point.
//!
//! Inputs are samples per point along an axis (an empty sample: no data at
//! that point). Two series `a` and `b` are compared through the effect of
//! `b` relative to `a` at each point (`b / a` on the log scale); one series
//! through its means. Each function returns the verdict and the figures
//! behind it (estimates with 95% intervals).

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::estimate::{neg, side, Est, Scale, Side};
use super::{Judgement, Verdict};
use crate::data::format::fmt_num;

/// Samples of one series at each point (empty: no data there).
pub(crate) type Series = [Vec<f64>];

/// Bootstrap resamples drawn for `argmax`'s share of best picks.
pub(crate) const BOOTSTRAP: usize = 1000;

/// `0.05` -> `5%`, `0.025` -> `2.5%`.
pub(crate) fn pct(e: f64) -> String {
    let p = e * 100.0;
    if (p - p.round()).abs() < 1e-9 {
        format!("{p:.0}%")
    } else {
        format!("{p:.1}%")
    }
}

/// `v [lo, hi]` on `scale`, or `v (no interval: ...)`.
fn iv(scale: &Scale, e: &Est) -> String {
    match e.interval() {
        Some((lo, hi)) => format!(
            "{} [{}, {}]",
            scale.diff_text(e.value),
            scale.diff_text(lo),
            scale.diff_text(hi)
        ),
        None => format!(
            "{} (no interval: a cell with one repeat)",
            scale.diff_text(e.value)
        ),
    }
}

/// `b/a` on the log scale, `b - a` on the others.
fn rel(scale: &Scale, a: &str, b: &str) -> String {
    match scale {
        Scale::Log => format!("{b}/{a}"),
        Scale::Linear(_) => format!("{b} - {a}"),
        Scale::Relative => format!("{b} - {a} (share of the larger)"),
    }
}

/// `b - a` per point: on the log scale (a log ratio) when every value is
/// positive, else on the relative scale, where each point is measured
/// against its own larger mean, so that a small point's difference is not
/// read against a large point's level. A point where both series are all
/// 0 has nothing to compare (`None`), as has a point without data.
fn pair_effects(a: &Series, b: &Series) -> (Scale, Vec<Option<Est>>) {
    let all: Vec<&[f64]> = a.iter().chain(b).map(|s| s.as_slice()).collect();
    if Scale::choose(&all) == Scale::Log {
        let eff = a
            .iter()
            .zip(b)
            .map(|(x, y)| Some(Est::diff(&Scale::Log.mean(x)?, &Scale::Log.mean(y)?)))
            .collect();
        return (Scale::Log, eff);
    }
    let eff = a
        .iter()
        .zip(b)
        .map(|(x, y)| {
            let (mx, my) = (Est::mean(x)?, Est::mean(y)?);
            let r = mx.value.abs().max(my.value.abs());
            if r == 0.0 {
                return None;
            }
            let l = Scale::Linear(r);
            Some(Est::diff(&l.mean(x)?, &l.mean(y)?))
        })
        .collect();
    (Scale::Relative, eff)
}

/// Labels of points with data in both series but nothing to compare (all 0).
fn all_zero(xs: &[String], a: &Series, b: &Series) -> Vec<String> {
    xs.iter()
        .zip(a.iter().zip(b))
        .filter(|(_, (x, y))| {
            !x.is_empty() && !y.is_empty() && x.iter().chain(y.iter()).all(|v| *v == 0.0)
        })
        .map(|(l, _)| l.clone())
        .collect()
}

/// The minimum effect on `scale`, and each point's reading against it (a
/// point without data is unclear).
fn sides_of(scale: &Scale, eff: &[Option<Est>], min_effect: f64) -> (f64, Vec<Side>) {
    let t = scale.threshold(min_effect);
    let sides = eff
        .iter()
        .map(|e| e.map_or(Side::Unclear, |e| side(&e, t)))
        .collect();
    (t, sides)
}

/// The mean of the present estimates.
fn pooled(es: &[Option<Est>]) -> Option<Est> {
    let present: Vec<Est> = es.iter().flatten().copied().collect();
    if present.is_empty() {
        return None;
    }
    let w = 1.0 / present.len() as f64;
    Some(Est::combine(
        &present.iter().map(|e| (w, *e)).collect::<Vec<_>>(),
    ))
}

/// "1 KB 1.02 [0.98, 1.06], 2 KB ..." for the present points.
fn per_point(xs: &[String], scale: &Scale, es: &[Option<Est>]) -> String {
    xs.iter()
        .zip(es)
        .map(|(x, e)| match e {
            Some(e) => format!("{x} {}", iv(scale, e)),
            None => format!("{x} no data"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn labels_where(xs: &[String], sides: &[Side], want: &[Side]) -> Vec<String> {
    xs.iter()
        .zip(sides)
        .filter(|(_, s)| want.contains(s))
        .map(|(x, _)| x.clone())
        .collect()
}

/// What crossover and parity read first: the side of the minimum effect
/// each point's difference of `b` from `a` lies on, and the figures line;
/// `None` when no point has data.
fn read_pair(
    xs: &[String],
    la: &str,
    lb: &str,
    a: &Series,
    b: &Series,
    min_effect: f64,
) -> Option<(Vec<Side>, String)> {
    let (scale, eff) = pair_effects(a, b);
    if eff.iter().all(Option::is_none) {
        return None;
    }
    let (_, sides) = sides_of(&scale, &eff, min_effect);
    let figs = format!("{}: {}", rel(&scale, la, lb), per_point(xs, &scale, &eff));
    Some((sides, figs))
}

/// The inconclusive outcome: the intervals at `labels` are `what` (do not
/// clear the effect, reach across a bound).
fn unclear_at(labels: &[String], what: &str) -> (Verdict, String) {
    (
        Verdict::Inconclusive,
        format!("the intervals at {} {what}", labels.join(", ")),
    )
}

fn no_data() -> Judgement {
    Judgement::new(Verdict::NoData, "no successful runs")
}

/// Claim: `a` is above `b` at every point. Reproduced when every point's
/// interval of `a/b` clears the minimum effect upwards; reversed when the
/// pooled effect clears it downwards and no point goes the claimed way.
pub(crate) fn ordering(
    xs: &[String],
    la: &str,
    lb: &str,
    a: &Series,
    b: &Series,
    min_effect: f64,
) -> Judgement {
    let (scale, eff) = pair_effects(b, a);
    let Some(all) = pooled(&eff) else {
        let zero = all_zero(xs, a, b);
        if zero.is_empty() {
            return no_data();
        }
        return Judgement::new(
            Verdict::Inconclusive,
            format!("both are 0 at {}: nothing to compare", zero.join(", ")),
        );
    };
    // Only points with something to compare count; the rest are named.
    let left_out = left_out_note(xs, a, b, &eff);
    let present: Vec<usize> = (0..eff.len()).filter(|i| eff[*i].is_some()).collect();
    let xs: Vec<String> = present.iter().map(|i| xs[*i].clone()).collect();
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
    } else {
        unclear_at(
            &labels_where(xs, &sides, &[Side::Unclear]),
            &format!("do not clear {m} either way"),
        )
    };
    Judgement::new(v, format!("{why}{left_out}. {figs}"))
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
pub(crate) fn crossover(
    xs: &[String],
    la: &str,
    lb: &str,
    a: &Series,
    b: &Series,
    window: Option<(usize, usize)>,
    min_effect: f64,
) -> Judgement {
    let Some((sides, figs)) = read_pair(xs, la, lb, a, b, min_effect) else {
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
/// `range`. Reproduced when its interval lies within the range; not
/// reproduced when it lies outside it; reversed when the range is on one
/// side of 1 and the interval clears the minimum effect on the other.
pub(crate) fn ratio(
    xs: &[String],
    la: &str,
    lb: &str,
    a: &Series,
    b: &Series,
    range: (f64, f64),
    min_effect: f64,
) -> Judgement {
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
    let kx: Vec<String> = keep.iter().map(|i| xs[*i].clone()).collect();
    let (a, b, xs) = (pick(a), pick(b), kx.as_slice());
    let (scale, eff) = pair_effects(&a, &b);
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
    let (v, why) = match all.interval() {
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
            } else if h < lo || l > hi {
                (Verdict::NotReproduced, format!("outside the {claim}"))
            } else {
                (
                    Verdict::Inconclusive,
                    format!("the interval reaches outside the {claim}"),
                )
            }
        }
    };
    Judgement::new(v, format!("{why}{left_out}. {figs}"))
}

/// Claim: `a` and `b` are equal within the minimum effect at every point.
pub(crate) fn parity(
    xs: &[String],
    la: &str,
    lb: &str,
    a: &Series,
    b: &Series,
    min_effect: f64,
) -> Judgement {
    let Some((sides, figs)) = read_pair(xs, la, lb, a, b, min_effect) else {
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
    Judgement::new(v, format!("{why}. {figs}"))
}

/// Claim: the metric (with `base`, the ratio `y / base`) rises
/// (`increasing`) or falls along an ordered axis. The overall change is the
/// least-squares line through the point estimates over the sweep positions,
/// read from first to last point; reproduced when it clears the minimum
/// effect in the claimed direction and no single step clears it the other
/// way; reversed when the change clears it the other way and no step goes
/// the claimed way.
pub(crate) fn monotonic(
    xs: &[String],
    what: &str,
    base: Option<&Series>,
    y: &Series,
    increasing: bool,
    min_effect: f64,
) -> Judgement {
    let (scale, ests): (Scale, Vec<Option<Est>>) = match base {
        Some(a) => pair_effects(a, y),
        None => {
            let all: Vec<&[f64]> = y.iter().map(|s| s.as_slice()).collect();
            let scale = Scale::choose(&all);
            (scale, y.iter().map(|s| scale.mean(s)).collect())
        }
    };
    let present: Vec<(f64, Est)> = ests
        .iter()
        .enumerate()
        .filter_map(|(i, e)| e.map(|e| (i as f64, e)))
        .collect();
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
    let xbar = present.iter().map(|p| p.0).sum::<f64>() / present.len() as f64;
    let sxx: f64 = present.iter().map(|p| (p.0 - xbar).powi(2)).sum();
    let span = present[present.len() - 1].0 - present[0].0;
    let overall = Est::combine(
        &present
            .iter()
            .map(|(x, e)| ((x - xbar) / sxx * span, *e))
            .collect::<Vec<_>>(),
    );
    let signed = |e: &Est| if increasing { *e } else { neg(e) };
    let t = scale.threshold(min_effect);
    let os = side(&signed(&overall), t);
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

/// Claim: the best point (largest with `maximize`, else smallest) is one of
/// `expected` (positions). Reproduced when the best point is expected and
/// beats every other point by more than the minimum effect; not reproduced
/// when another point is as good (within it) or better; inconclusive when
/// the intervals cannot tell. The text gives the bootstrap share of
/// resamples whose best point is expected.
pub(crate) fn argmax(
    xs: &[String],
    what: &str,
    y: &Series,
    expected: &[usize],
    maximize: bool,
    min_effect: f64,
) -> Judgement {
    let share = bootstrap_share(y, expected, maximize);
    argmax_with_share(xs, what, y, expected, maximize, min_effect, Some(share))
}

/// [`argmax`] with the bootstrap share given (`None`: not computed, as in
/// the simulation, where it would cost most of the time).
pub(crate) fn argmax_with_share(
    xs: &[String],
    what: &str,
    y: &Series,
    expected: &[usize],
    maximize: bool,
    min_effect: f64,
    share: Option<f64>,
) -> Judgement {
    let all: Vec<&[f64]> = y.iter().map(|s| s.as_slice()).collect();
    let scale = Scale::choose(&all);
    let ests: Vec<Option<Est>> = y.iter().map(|s| scale.mean(s)).collect();
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

/// Claim: the metric's mean is at most `max` (and/or at least `min`) at
/// every point. Reproduced when every point's 95% interval lies within the
/// bound; not reproduced when some point's interval lies beyond it.
pub(crate) fn bound(
    xs: &[String],
    what: &str,
    y: &Series,
    max: Option<f64>,
    min: Option<f64>,
) -> Judgement {
    let ests: Vec<Option<Est>> = y.iter().map(|s| Est::mean(s)).collect();
    if ests.iter().all(Option::is_none) {
        return no_data();
    }
    let mut inside = true;
    let mut beyond = Vec::new();
    let mut unclear = Vec::new();
    for (x, e) in xs.iter().zip(&ests) {
        let Some(e) = e else { continue };
        // One repeat, or a spread that cannot be estimated: only the value.
        let (lo, hi) = e.interval().unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
        let out = max.is_some_and(|m| lo > m) || min.is_some_and(|m| hi < m);
        let ok = max.is_none_or(|m| hi <= m) && min.is_none_or(|m| lo >= m);
        if out {
            beyond.push(x.clone());
        } else if !ok {
            unclear.push(x.clone());
        }
        inside &= ok;
    }
    let limit = match (min, max) {
        (Some(a), Some(b)) => format!("between {} and {}", fmt_num(a), fmt_num(b)),
        (None, Some(b)) => format!("at most {}", fmt_num(b)),
        (Some(a), None) => format!("at least {}", fmt_num(a)),
        (None, None) => "unbounded".into(),
    };
    let figs = format!(
        "{what}: {}",
        xs.iter()
            .zip(&ests)
            .map(
                |(x, e)| match e.and_then(|e| e.interval().map(|i| (e, i))) {
                    Some((e, (lo, hi))) => format!(
                        "{x} {} [{}, {}]",
                        fmt_num(e.value),
                        fmt_num(lo),
                        fmt_num(hi)
                    ),
                    None => match e {
                        Some(e) => format!("{x} {} (one repeat)", fmt_num(e.value)),
                        None => format!("{x} no data"),
                    },
                }
            )
            .collect::<Vec<_>>()
            .join(", ")
    );
    let (v, why) = if !beyond.is_empty() {
        (
            Verdict::NotReproduced,
            format!("{what} is not {limit} at {}", beyond.join(", ")),
        )
    } else if inside {
        (
            Verdict::Reproduced,
            format!("{what} is {limit} at every point"),
        )
    } else {
        unclear_at(&unclear, &format!("reach across the bound ({limit})"))
    };
    Judgement::new(v, format!("{why}. {figs}"))
}

#[cfg(test)]
mod tests {
    use super::*;
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

    #[test]
    fn ordering_all_four_verdicts() {
        let x = xs(3);
        let hi = series(&[200.0, 200.0, 200.0], 0.02, 3);
        let lo = series(&[100.0, 100.0, 100.0], 0.02, 3);
        let same = series(&[100.0, 100.0, 100.0], 0.01, 5);
        let wide = series(&[110.0, 110.0, 110.0], 0.6, 3);
        let v = |a: &Series, b: &Series| ordering(&x, "a", "b", a, b, 0.05).verdict;
        assert_eq!(v(&hi, &lo), Reproduced);
        assert_eq!(v(&lo, &hi), Reversed);
        assert_eq!(v(&same, &same), NotReproduced);
        assert_eq!(v(&wide, &lo), Inconclusive);
        assert_eq!(v(&[], &[]), NoData);
        // One repeat per cell: no interval, never a verdict either way.
        let one = series(&[200.0, 200.0, 200.0], 0.0, 1);
        assert_eq!(v(&one, &lo), Inconclusive);
    }

    #[test]
    fn crossover_window_and_reversal() {
        let x = xs(4);
        let a = series(&[100.0, 100.0, 100.0, 100.0], 0.01, 3);
        let b = series(&[60.0, 99.0, 150.0, 200.0], 0.01, 3);
        let v = |a: &Series, b: &Series, w| crossover(&x, "a", "b", a, b, w, 0.05).verdict;
        let j = crossover(&x, "a", "b", &a, &b, None, 0.05);
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
        let v = |a: &Series, b: &Series, r| ratio(&x, "a", "b", a, b, r, 0.05).verdict;
        assert_eq!(v(&a, &b, (2.0, 10.0)), Reproduced);
        assert_eq!(v(&a, &b, (5.0, 10.0)), NotReproduced);
        assert_eq!(v(&b, &a, (2.0, 10.0)), Reversed);
        let noisy = series(&[300.0, 300.0], 0.9, 2);
        assert_eq!(v(&a, &noisy, (2.0, 10.0)), Inconclusive);
        // Within noise of 1 against a claim of 1.02-1.08: neither reproduced nor reversed.
        let same = series(&[100.0, 100.0], 0.01, 5);
        let j = ratio(&x, "a", "b", &a, &same, (1.02, 1.08), 0.05);
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
        let j = ratio(&x, "a", "b", &a, &b, (0.1, 0.4), 0.05);
        assert_eq!(j.verdict, Verdict::Reproduced, "{}", j.text);
        assert!(
            j.text.contains("(left out: x1, where a value is 0)"),
            "{}",
            j.text
        );
        let j = ordering(&x, "a", "b", &a, &b, 0.05);
        assert_eq!(j.verdict, Verdict::Reproduced, "{}", j.text);
        assert!(j.text.contains("(left out: x1, both 0)"), "{}", j.text);
        // With a 0 beside a positive value the difference is relative to
        // the point's larger mean: 2 against 0 is a 100% difference, not a
        // small one next to another point's 20.
        let b0 = vec![rep(0.0, 0.0, 3), rep(0.0, 0.0, 3), rep(4.0, 0.02, 3)];
        let j = ordering(&x, "a", "b", &a, &b0, 0.05);
        assert_eq!(j.verdict, Verdict::Reproduced, "{}", j.text);
        assert!(j.text.contains("x2 +100.0%"), "{}", j.text);
        let zero = vec![rep(0.0, 0.0, 3); 3];
        assert_eq!(
            ordering(&x, "a", "b", &zero, &zero, 0.05).verdict,
            Inconclusive
        );
        assert_eq!(
            ratio(&x, "a", "b", &zero, &zero, (0.1, 0.4), 0.05).verdict,
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
        let v = |b: &Series| parity(&x, "a", "b", &a, b, 0.05).verdict;
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
        let peak = series(&[100.0, 150.0, 120.0, 90.0], 0.02, 3);
        let j = argmax(&x, "m", &peak, &[1], true, 0.05);
        assert_eq!(j.verdict, Verdict::Reproduced, "{}", j.text);
        assert!(
            j.text.contains("in 100% of 1000 bootstrap resamples"),
            "{}",
            j.text
        );
        assert_eq!(
            argmax(&x, "m", &peak, &[2], true, 0.05).verdict,
            NotReproduced
        );
        assert_eq!(
            argmax(&x, "m", &peak, &[3], false, 0.05).verdict,
            Reproduced
        );
        // Interior (positions 1 and 2) against the ends.
        assert_eq!(
            argmax(&x, "m", &peak, &[1, 2], true, 0.05).verdict,
            Reproduced
        );
        // A tie with a point outside the expected set: not shown best.
        let tie = series(&[100.0, 150.0, 149.0, 90.0], 0.01, 3);
        assert_eq!(
            argmax(&x, "m", &tie, &[1], true, 0.05).verdict,
            NotReproduced
        );
        let wide = series(&[100.0, 115.0, 100.0, 100.0], 0.3, 3);
        assert_eq!(
            argmax(&x, "m", &wide, &[1], true, 0.05).verdict,
            Inconclusive
        );
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
