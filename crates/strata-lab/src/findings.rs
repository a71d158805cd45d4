//! Published findings checked against this run (verdicts), and statements
//! computed from the data.

use std::collections::BTreeMap;

use crate::aggregate::{fmt_num, series, Point};
use crate::model::Plan;
use crate::results::ResultRow;
use crate::spec::{Finding, FindingKind};

/// Outcome of checking a published finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The data shows the same effect.
    Reproduced,
    /// The data does not show the effect.
    NotReproduced,
    /// The data shows the opposite effect.
    Reversed,
    /// Not enough successful runs.
    NoData,
}

impl Verdict {
    /// Word used in reports.
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Reproduced => "reproduced",
            Verdict::NotReproduced => "not reproduced",
            Verdict::Reversed => "reversed",
            Verdict::NoData => "no data",
        }
    }
}

/// A verdict for one engine, with our figures in words.
#[derive(Clone, Debug)]
pub struct Checked {
    /// Engine.
    pub engine: String,
    /// Verdict.
    pub verdict: Verdict,
    /// Our figures.
    pub ours: String,
}

fn means(p: &[Point]) -> Vec<Option<f64>> {
    p.iter().map(|p| p.s.map(|s| s.mean)).collect()
}

/// Index `i` of a clean crossover: `b - a` is <= 0 at every point before `i`
/// (at least one) and > 0 at `i` and every point after it. Missing points are skipped.
pub fn crossover(a: &[Option<f64>], b: &[Option<f64>]) -> Option<usize> {
    let d: Vec<(usize, f64)> = a
        .iter()
        .zip(b)
        .enumerate()
        .filter_map(|(i, (x, y))| Some((i, (*y)? - (*x)?)))
        .collect();
    let first_pos = d.iter().position(|(_, v)| *v > 0.0)?;
    if first_pos == 0 || d[first_pos..].iter().any(|(_, v)| *v <= 0.0) {
        return None;
    }
    Some(d[first_pos].0)
}

/// Whether the two series of a pair finding differ significantly (Welch's t
/// test on the pooled per-point ratios to the first series' mean, p < 0.05).
fn significant(
    plan: &Plan,
    rows: &[ResultRow],
    f: &Finding,
    engine: &str,
    fixed: &BTreeMap<String, String>,
) -> bool {
    let Some(sa) = &f.series_axis else {
        return false;
    };
    let along = f.along.clone().unwrap_or_default();
    let Some(ax) = plan.axis(&along) else {
        return false;
    };
    let (mut xa, mut xb) = (Vec::new(), Vec::new());
    for v in &ax.values {
        if fixed.get(&along).is_some_and(|only| only != &v.label) {
            continue;
        }
        let mut fa = fixed.clone();
        fa.insert(along.clone(), v.label.clone());
        let mut fb = fa.clone();
        fa.insert(sa.clone(), f.series[0].clone());
        fb.insert(sa.clone(), f.series[1].clone());
        let a = crate::aggregate::values(rows, engine, &f.step, &fa, &f.metric);
        let b = crate::aggregate::values(rows, engine, &f.step, &fb, &f.metric);
        let m = a.iter().sum::<f64>() / a.len().max(1) as f64;
        if m == 0.0 || a.is_empty() || b.is_empty() {
            continue;
        }
        xa.extend(a.iter().map(|x| x / m));
        xb.extend(b.iter().map(|x| x / m));
    }
    crate::stats::welch_p(&xa, &xb) < 0.05
}

/// Checks one finding for one engine.
pub fn check(plan: &Plan, rows: &[ResultRow], f: &Finding, engine: &str) -> Checked {
    let mut f = f.clone();
    f.along = f.along.clone().or_else(|| f.series_axis.clone());
    let f = &f;
    let along = f.along.clone().unwrap_or_default();
    let tagged = |axis: &str, l: &str| {
        plan.axis(axis)
            .map(|a| a.tag(l))
            .unwrap_or_else(|| l.to_string())
    };
    let disp = |axis: &str, l: &str| {
        plan.axis(axis)
            .map(|a| a.display(l))
            .unwrap_or_else(|| l.to_string())
    };
    let restrict_to = f.where_.get(&along).cloned();
    fn keep(p: Vec<Point>, only: &Option<String>) -> Vec<Point> {
        match only {
            Some(x) => p.into_iter().filter(|q| &q.x == x).collect(),
            None => p,
        }
    }
    let restrict = |p: Vec<Point>| keep(p, &restrict_to);
    let mut fixed: BTreeMap<String, String> = f.where_.clone();
    let pair = |fixed: &mut BTreeMap<String, String>, lab: &str| -> Vec<Point> {
        if let Some(sa) = &f.series_axis {
            fixed.insert(sa.clone(), lab.to_string());
        }
        restrict(series(
            plan, rows, engine, &f.step, &along, fixed, &f.metric,
        ))
    };
    let done = |verdict: Verdict, ours: String| Checked {
        engine: engine.to_string(),
        verdict,
        ours,
    };
    let fig = |pts: &[Point]| -> String {
        pts.iter()
            .filter_map(|p| {
                p.s.map(|s| format!("{} {}", tagged(&along, &p.x), fmt_num(s.mean)))
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    match f.kind {
        FindingKind::Crossover | FindingKind::Ordering | FindingKind::Ratio => {
            let (la, lb) = (f.series[0].as_str(), f.series[1].as_str());
            let pa = pair(&mut fixed.clone(), la);
            let pb = pair(&mut fixed, lb);
            let (ma, mb) = (means(&pa), means(&pb));
            let both: Vec<(f64, f64)> = ma
                .iter()
                .zip(&mb)
                .filter_map(|(a, b)| Some(((*a)?, (*b)?)))
                .collect();
            if both.is_empty() {
                return done(Verdict::NoData, "no successful runs".into());
            }
            let figs = format!("{} {}: {}; {}: {}", f.metric, la, fig(&pa), lb, fig(&pb));
            match f.kind {
                FindingKind::Crossover => {
                    let cx = crossover(&ma, &mb);
                    let rev = crossover(&mb, &ma);
                    match cx {
                        Some(i) => {
                            let lo = pa
                                .get(i.saturating_sub(1))
                                .map(|p| disp(&along, &p.x))
                                .unwrap_or_default();
                            let hi = pa.get(i).map(|p| disp(&along, &p.x)).unwrap_or_default();
                            let in_range = f.between.is_empty()
                                || plan.axis(&along).is_some_and(|ax| {
                                    let pos = |l: &str| ax.values.iter().position(|v| v.label == l);
                                    match (pos(&f.between[0]), pos(&f.between[1])) {
                                        (Some(a), Some(b)) => i >= a && i <= b.max(a + 1),
                                        _ => true,
                                    }
                                });
                            let v = if in_range {
                                Verdict::Reproduced
                            } else {
                                Verdict::NotReproduced
                            };
                            done(
                                v,
                                format!("{lb} overtakes {la} between {lo} and {hi}. {figs}"),
                            )
                        }
                        None if rev.is_some() => done(
                            Verdict::Reversed,
                            format!("{la} overtakes {lb} instead. {figs}"),
                        ),
                        None => {
                            let above = both.iter().filter(|(a, b)| b > a).count();
                            let who = if above == both.len() {
                                format!("{lb} is ahead everywhere")
                            } else if above == 0 {
                                format!("{la} is ahead everywhere")
                            } else {
                                format!(
                                    "{lb} ahead at {above} of {} points without a clean crossover",
                                    both.len()
                                )
                            };
                            done(
                                Verdict::NotReproduced,
                                format!("no crossover: {who}. {figs}"),
                            )
                        }
                    }
                }
                FindingKind::Ordering => {
                    let wins = both.iter().filter(|(a, b)| a > b).count();
                    // Significance of the a-vs-b difference over all points' repeats.
                    let sig = significant(plan, rows, f, engine, &fixed);
                    let noise = if sig {
                        ""
                    } else {
                        " The difference is within run-to-run noise (Welch p >= 0.05 or too few repeats)."
                    };
                    let v = if wins == both.len() && sig {
                        Verdict::Reproduced
                    } else if wins == 0 && sig {
                        Verdict::Reversed
                    } else {
                        Verdict::NotReproduced
                    };
                    done(
                        v,
                        format!(
                            "{la} above {lb} at {wins} of {} points.{noise} {figs}",
                            both.len()
                        ),
                    )
                }
                _ => {
                    let r = both
                        .iter()
                        .map(|(a, b)| if *a != 0.0 { b / a } else { f64::NAN })
                        .filter(|x| x.is_finite())
                        .collect::<Vec<_>>();
                    if r.is_empty() {
                        return done(Verdict::NoData, format!("{la} is zero everywhere. {figs}"));
                    }
                    let avg = r.iter().sum::<f64>() / r.len() as f64;
                    let (lo, hi) = (f.range[0], f.range[1]);
                    let sig = significant(plan, rows, f, engine, &fixed);
                    let v = if avg >= lo && avg <= hi {
                        Verdict::Reproduced
                    } else if sig && ((hi < 1.0 && avg > 1.0) || (lo > 1.0 && avg < 1.0)) {
                        Verdict::Reversed
                    } else {
                        Verdict::NotReproduced
                    };
                    done(
                        v,
                        format!(
                            "{lb}/{la} ratio averages {:.2} (expected {lo}-{hi}). {figs}",
                            avg
                        ),
                    )
                }
            }
        }
        FindingKind::Argmax => {
            let pts = series(plan, rows, engine, &f.step, &along, &fixed, &f.metric);
            let best = pts
                .iter()
                .filter_map(|p| p.s.map(|s| (p.x.clone(), s.mean)))
                .max_by(|a, b| {
                    if f.minimize {
                        b.1.total_cmp(&a.1)
                    } else {
                        a.1.total_cmp(&b.1)
                    }
                });
            let Some((bx, bv)) = best else {
                return done(Verdict::NoData, "no successful runs".into());
            };
            let pos = pts.iter().position(|p| p.x == bx).unwrap_or(0);
            let interior = pos > 0 && pos + 1 < pts.len();
            let hit = f.expected.contains(&bx)
                || (f.expected.iter().any(|e| e == "interior") && interior);
            let v = if hit {
                Verdict::Reproduced
            } else {
                Verdict::NotReproduced
            };
            let word = if f.minimize { "lowest" } else { "best" };
            done(
                v,
                format!(
                    "{word} {} at {} = {} ({}: {})",
                    f.metric,
                    disp(&along, &bx),
                    fmt_num(bv),
                    f.metric,
                    fig(&pts)
                ),
            )
        }
        FindingKind::Parity | FindingKind::Bound => done(Verdict::NoData, "not judged yet".into()),
        FindingKind::Monotonic => {
            let pts = series(plan, rows, engine, &f.step, &along, &fixed, &f.metric);
            let m: Vec<f64> = means(&pts).into_iter().flatten().collect();
            if m.len() < 2 {
                return done(Verdict::NoData, "fewer than two points".into());
            }
            let up = m.windows(2).filter(|w| w[1] > w[0]).count();
            let down = m.windows(2).filter(|w| w[1] < w[0]).count();
            let want_up = f.direction.as_deref() == Some("increasing");
            let (with, against) = if want_up { (up, down) } else { (down, up) };
            // A trend, not strict monotonicity: most steps and the two ends agree.
            let (first, last) = (m[0], m[m.len() - 1]);
            let ends_with = if want_up { last > first } else { last < first };
            let ends_against = if want_up { last < first } else { last > first };
            let v = if with > against && ends_with {
                Verdict::Reproduced
            } else if against > with && ends_against {
                Verdict::Reversed
            } else {
                Verdict::NotReproduced
            };
            done(
                v,
                format!(
                    "{} steps in the expected direction, {} against: {}",
                    with,
                    against,
                    fig(&pts)
                ),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::expand;
    use crate::results::{sample_row, ResultRow};
    use crate::spec::parse;

    const SPEC: &str = r#"name = "t"
title = "t"
question = "q"
engines = ["rocksdb"]
[[axis]]
name = "x"
values = [1, 2, 3]
[[axis]]
name = "s"
[[axis.variant]]
label = "a"
[[axis.variant]]
label = "b"
[[step]]
benchmarks = "fillrandom"
[scales.quick]
"#;

    /// Rows with `ops_sec` = f(x, series) + repeat jitter.
    fn rows(f: impl Fn(f64, &str) -> f64, jitter: &[f64]) -> Vec<ResultRow> {
        let mut out = Vec::new();
        for x in ["1", "2", "3"] {
            for s in ["a", "b"] {
                for j in jitter {
                    let mut r = sample_row();
                    r.step = "fillrandom".into();
                    r.cell = [
                        ("x".to_string(), x.to_string()),
                        ("s".to_string(), s.to_string()),
                    ]
                    .into_iter()
                    .collect();
                    r.cell_id = format!("x={x},s={s}");
                    r.metrics
                        .insert("ops_sec".into(), f(x.parse().unwrap_or(0.0), s) + j);
                    out.push(r);
                }
            }
        }
        out
    }

    fn finding(kind: &str, extra: &str) -> Finding {
        let text = format!("{SPEC}[[finding]]\nid = \"f\"\nclaim = \"c\"\npublished = \"p\"\nkind = \"{kind}\"\nmetric = \"ops_sec\"\nstep = \"fillrandom\"\nalong = \"x\"\n{extra}\n");
        let l = parse(&text, std::path::Path::new("t.toml")).unwrap();
        l.spec.findings[0].get_ref().clone()
    }

    fn verdict(f: &Finding, rows: &[ResultRow]) -> Verdict {
        let l = parse(SPEC, std::path::Path::new("t.toml")).unwrap();
        let plan = expand(&l, "quick", None, None).unwrap();
        check(&plan, rows, f, "rocksdb").verdict
    }

    #[test]
    fn ordering_needs_significance_for_a_verdict() {
        let f = finding("ordering", "series_axis = \"s\"\nseries = [\"a\", \"b\"]");
        let clear = rows(
            |_, s| if s == "a" { 200.0 } else { 100.0 },
            &[0.0, 1.0, 2.0],
        );
        assert_eq!(verdict(&f, &clear), Verdict::Reproduced);
        let opposite = rows(
            |_, s| if s == "a" { 100.0 } else { 200.0 },
            &[0.0, 1.0, 2.0],
        );
        assert_eq!(verdict(&f, &opposite), Verdict::Reversed);
        // a is ahead by 1% with 30% noise: within noise, so not reproduced.
        let noisy = rows(
            |_, s| if s == "a" { 101.0 } else { 100.0 },
            &[-30.0, 0.0, 30.0],
        );
        assert_eq!(verdict(&f, &noisy), Verdict::NotReproduced);
    }

    #[test]
    fn ratio_and_monotonic_and_argmax() {
        let r = rows(
            |x, s| if s == "a" { 100.0 * x } else { 50.0 * x },
            &[0.0, 0.5, 1.0],
        );
        let f = finding(
            "ratio",
            "series_axis = \"s\"\nseries = [\"a\", \"b\"]\nrange = [0.4, 0.6]",
        );
        assert_eq!(verdict(&f, &r), Verdict::Reproduced);
        let f = finding(
            "ratio",
            "series_axis = \"s\"\nseries = [\"a\", \"b\"]\nrange = [1.5, 3.0]",
        );
        assert_eq!(verdict(&f, &r), Verdict::Reversed);
        let f = finding(
            "monotonic",
            "direction = \"increasing\"\nwhere = { s = \"a\" }",
        );
        assert_eq!(verdict(&f, &r), Verdict::Reproduced);
        let f = finding(
            "monotonic",
            "direction = \"decreasing\"\nwhere = { s = \"a\" }",
        );
        assert_eq!(verdict(&f, &r), Verdict::Reversed);
        let f = finding("argmax", "expected = [\"3\"]\nwhere = { s = \"b\" }");
        assert_eq!(verdict(&f, &r), Verdict::Reproduced);
        let f = finding("argmax", "expected = [\"interior\"]\nwhere = { s = \"b\" }");
        assert_eq!(verdict(&f, &r), Verdict::NotReproduced);
        assert_eq!(verdict(&f, &[]), Verdict::NoData);
    }

    #[test]
    fn crossover_index() {
        let a = [Some(10.0), Some(10.0), Some(10.0)];
        let b = [Some(5.0), Some(9.0), Some(20.0)];
        assert_eq!(crossover(&a, &b), Some(2));
        assert_eq!(crossover(&b, &a), None);
        assert_eq!(crossover(&a, &a.map(|x| x.map(|v| v + 1.0))), None);
        // Crossing back and forth is not a crossover.
        let zig = [Some(5.0), Some(11.0), Some(9.0), Some(12.0)];
        assert_eq!(
            crossover(
                &a[..]
                    .iter()
                    .chain(&[Some(10.0)])
                    .copied()
                    .collect::<Vec<_>>(),
                &zig
            ),
            None
        );
    }
}
