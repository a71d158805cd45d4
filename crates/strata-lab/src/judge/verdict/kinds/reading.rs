//! What every kind reads from its series: the effect of `b` against `a` at
//! each point on its scale, which side of the minimum effect its interval
//! lies on, pooled estimates, and how figures and point labels are written.

use crate::judge::verdict::estimate::{
    floored_means, narrower, paired_diff, side, Est, Scale, Side, MIN_REPEATS,
};
use crate::judge::verdict::{Judgement, Verdict};

/// Samples of one series at each point (empty: no data there).
pub(crate) type Series = [Vec<f64>];

/// The repeat each sample of a [`Series`] comes from (same shape): what
/// the blocked reading pairs samples by.
pub(crate) type Repeats = [Vec<u32>];

/// What every two-series kind is given: the point labels, the two series
/// with their labels, and the minimum effect that counts.
#[derive(Clone, Copy)]
pub(crate) struct Pair<'a> {
    pub(crate) xs: &'a [String],
    pub(crate) la: &'a str,
    pub(crate) lb: &'a str,
    pub(crate) a: &'a Series,
    pub(crate) b: &'a Series,
    /// The repeats of `a`'s and `b`'s samples, when known: each point's
    /// effect is then read paired by repeat where that is narrower
    /// ([`narrower`]).
    pub(crate) repeats: Option<(&'a Repeats, &'a Repeats)>,
    pub(crate) min_effect: f64,
}

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
pub(crate) fn iv(scale: &Scale, e: &Est) -> String {
    match e.bounds() {
        Some((lo, hi)) => format!(
            "{} [{}, {}]",
            scale.diff_text(e.value),
            scale.diff_text(lo),
            scale.diff_text(hi)
        ),
        None => format!(
            "{} (no interval: a cell with fewer than {MIN_REPEATS} repeats)",
            scale.diff_text(e.value)
        ),
    }
}

/// `b/a` on the log scale, `b - a` on the others.
pub(crate) fn rel(scale: &Scale, a: &str, b: &str) -> String {
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
pub(crate) fn pair_effects(
    a: &Series,
    b: &Series,
    repeats: Option<(&Repeats, &Repeats)>,
) -> (Scale, Vec<Option<Est>>) {
    let blocked = |i: usize, u: Est, ma: &[f64], mb: &[f64]| match repeats {
        Some((ra, rb)) => match (ra.get(i), rb.get(i)) {
            (Some(ia), Some(ib)) if ia.len() == ma.len() && ib.len() == mb.len() => {
                narrower(u, paired_diff(ma, ia, mb, ib))
            }
            _ => u,
        },
        None => u,
    };
    let all: Vec<&[f64]> = a.iter().chain(b).map(|s| s.as_slice()).collect();
    let n = a.len().min(b.len());
    if Scale::choose(&all) == Scale::Log {
        let cells: Vec<Vec<f64>> = a[..n].iter().chain(&b[..n]).cloned().collect();
        let m = Scale::Log.means(&cells);
        let logs = |s: &Vec<f64>| -> Vec<f64> { s.iter().map(|x| x.ln()).collect() };
        let eff = (0..n)
            .map(|i| {
                let u = Est::diff(&m[i]?, &m[n + i]?);
                Some(blocked(i, u, &logs(&a[i]), &logs(&b[i])))
            })
            .collect();
        return (Scale::Log, eff);
    }
    // Each point on its own scale (its larger mean); the cells' means are
    // then floored together, as on the log scale.
    let refs: Vec<Option<f64>> = (0..n)
        .map(|i| {
            let (x, y) = (&a[i], &b[i]);
            if x.is_empty() || y.is_empty() {
                return None;
            }
            let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len() as f64;
            let r = mean(x).abs().max(mean(y).abs());
            (r > 0.0).then_some(r)
        })
        .collect();
    let scaled = |s: &Series| -> Vec<Vec<f64>> {
        (0..n)
            .map(|i| match refs[i] {
                Some(r) => s[i].iter().map(|v| v / r).collect(),
                None => Vec::new(),
            })
            .collect()
    };
    let cells: Vec<Vec<f64>> = scaled(a).into_iter().chain(scaled(b)).collect();
    let m = floored_means(&cells, false);
    let eff = (0..n)
        .map(|i| {
            let u = Est::diff(&m[i]?, &m[n + i]?);
            Some(blocked(i, u, &cells[i], &cells[n + i]))
        })
        .collect();
    (Scale::Relative, eff)
}

/// Labels of points with data in both series but nothing to compare (all 0).
pub(crate) fn all_zero(xs: &[String], a: &Series, b: &Series) -> Vec<String> {
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
pub(crate) fn sides_of(scale: &Scale, eff: &[Option<Est>], min_effect: f64) -> (f64, Vec<Side>) {
    let t = scale.threshold(min_effect);
    let sides = eff
        .iter()
        .map(|e| e.map_or(Side::Unclear, |e| side(&e, t)))
        .collect();
    (t, sides)
}

/// The mean of the present estimates.
pub(crate) fn pooled(es: &[Option<Est>]) -> Option<Est> {
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
pub(crate) fn per_point(xs: &[String], scale: &Scale, es: &[Option<Est>]) -> String {
    xs.iter()
        .zip(es)
        .map(|(x, e)| match e {
            Some(e) => format!("{x} {}", iv(scale, e)),
            None => format!("{x} no data"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

pub(crate) fn labels_where(xs: &[String], sides: &[Side], want: &[Side]) -> Vec<String> {
    xs.iter()
        .zip(sides)
        .filter(|(_, s)| want.contains(s))
        .map(|(x, _)| x.clone())
        .collect()
}

/// What crossover and parity read first: the side of the minimum effect
/// each point's difference of `b` from `a` lies on, and the figures line;
/// `None` when no point has data.
pub(crate) fn read_pair(p: &Pair) -> Option<(Vec<Side>, String)> {
    let (scale, eff) = pair_effects(p.a, p.b, p.repeats);
    if eff.iter().all(Option::is_none) {
        return None;
    }
    let (_, sides) = sides_of(&scale, &eff, p.min_effect);
    let figs = format!(
        "{}: {}",
        rel(&scale, p.la, p.lb),
        per_point(p.xs, &scale, &eff)
    );
    Some((sides, figs))
}

/// The inconclusive outcome: the intervals at `labels` are `what` (do not
/// clear the effect, reach across a bound).
pub(crate) fn unclear_at(labels: &[String], what: &str) -> (Verdict, String) {
    (
        Verdict::Inconclusive,
        format!("the intervals at {} {what}", labels.join(", ")),
    )
}

pub(crate) fn no_data() -> Judgement {
    Judgement::new(Verdict::NoData, "no successful runs")
}
