//! Statements computed from a study's data, in words with their numbers
//! ("blob rises above inline between 2 KB and 4 KB", "best ...", noisy cells,
//! engine ratios, the composite-score recommendation).

use std::collections::BTreeMap;

use crate::aggregate::{engines, fmt_num, series, values};
use crate::findings::crossover;
use crate::model::Plan;
use crate::report::other_fixed;
use crate::results::ResultRow;
use crate::stats::summarize;

/// Metrics where higher is better (for "best" statements).
const HIGHER_BETTER: &[&str] = &["ops_sec", "mb_sec", "score", "found_pct"];

/// A series label with its axis name for scalar axes (see `ResolvedAxis::tag`).
pub fn tag(plan: &Plan, axis: Option<&str>, label: &str) -> String {
    match axis.and_then(|a| plan.axis(a)) {
        Some(a) => a.tag(label),
        None => label.to_string(),
    }
}

/// Statements computed from the data, with numbers.
pub fn computed_findings(plan: &Plan, rows: &[ResultRow]) -> Vec<String> {
    let engs = engines(plan, rows);
    let mut out = Vec::new();
    let disp = |a: &str, l: &str| {
        plan.axis(a)
            .map(|x| x.display(l))
            .unwrap_or_else(|| l.to_string())
    };
    // A trade-off chart's statement is its table of engines at equal x
    // (tradeoff.rs); read along its `x` axis it would repeat an ordinary
    // chart's, and compare engines at equal knob settings, which is what
    // it exists to avoid.
    for c in plan
        .loaded
        .spec
        .charts
        .iter()
        .map(|c| c.get_ref())
        .filter(|c| c.x_metric.is_none())
    {
        let m = &c.metrics[0];
        let labels: Vec<String> = match c.series.as_deref().and_then(|s| plan.axis(s)) {
            Some(a) => a.values.iter().map(|v| v.label.clone()).collect(),
            None => vec![String::new()],
        };
        let base = other_fixed(plan, &c.x, c.series.as_deref());
        let mut per_engine_means: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        let mut noisy: Vec<String> = Vec::new();
        for e in &engs {
            let mut means: Vec<Vec<Option<f64>>> = Vec::new();
            let mut xs: Vec<String> = Vec::new();
            for lab in &labels {
                let mut fixed = base.clone();
                if let Some(s) = &c.series {
                    fixed.insert(s.clone(), lab.clone());
                }
                let pts = series(plan, rows, e, &c.step, &c.x, &fixed, m);
                xs = pts.iter().map(|p| p.x.clone()).collect();
                let mv: Vec<Option<f64>> = pts.iter().map(|p| p.s.map(|s| s.mean)).collect();
                per_engine_means
                    .entry(e.clone())
                    .or_default()
                    .extend(mv.iter().flatten());
                let valid: Vec<(usize, f64)> = mv
                    .iter()
                    .enumerate()
                    .filter_map(|(i, v)| v.map(|v| (i, v)))
                    .collect();
                if valid.len() >= 2 && HIGHER_BETTER.contains(&m.as_str()) {
                    let best = valid.iter().cloned().max_by(|a, b| a.1.total_cmp(&b.1));
                    let worst = valid.iter().cloned().min_by(|a, b| a.1.total_cmp(&b.1));
                    if let (Some(b), Some(w)) = (best, worst) {
                        let who = if lab.is_empty() {
                            e.clone()
                        } else {
                            format!("{e}, {}", tag(plan, c.series.as_deref(), lab))
                        };
                        out.push(format!(
                            "{who}, {}: best {m} at {} = {} ({}); lowest at {} ({}), {:.0}% below the best.",
                            c.step,
                            c.x,
                            disp(&c.x, &xs[b.0]),
                            fmt_num(b.1),
                            disp(&c.x, &xs[w.0]),
                            fmt_num(w.1),
                            if b.1 > 0.0 { (1.0 - w.1 / b.1) * 100.0 } else { 0.0 }
                        ));
                    }
                }
                for p in &pts {
                    if let Some(s) = p.s {
                        if s.n > 1 && s.mean > 0.0 && s.stddev / s.mean > 0.10 {
                            let who = if lab.is_empty() {
                                format!("{e} {}", disp(&c.x, &p.x))
                            } else {
                                format!(
                                    "{e} {} {}",
                                    tag(plan, c.series.as_deref(), lab),
                                    disp(&c.x, &p.x)
                                )
                            };
                            noisy.push(format!("{who} {:.0}%", s.stddev / s.mean * 100.0));
                        }
                    }
                }
                means.push(mv);
            }
            if means.len() == 2 {
                let (a, b) = (&means[0], &means[1]);
                let pairs: Vec<(usize, f64, f64)> = a
                    .iter()
                    .zip(b)
                    .enumerate()
                    .filter_map(|(i, (x, y))| Some((i, (*x)?, (*y)?)))
                    .collect();
                if pairs.is_empty() {
                    continue;
                }
                let (la, lb) = (
                    &tag(plan, c.series.as_deref(), &labels[0]),
                    &tag(plan, c.series.as_deref(), &labels[1]),
                );
                let ratios: Vec<f64> = pairs
                    .iter()
                    .filter(|p| p.1 != 0.0)
                    .map(|p| p.2 / p.1)
                    .collect();
                let rng = if ratios.is_empty() {
                    String::new()
                } else {
                    let lo = ratios.iter().cloned().fold(f64::MAX, f64::min);
                    let hi = ratios.iter().cloned().fold(f64::MIN, f64::max);
                    format!(" ({lb}/{la} ratio {lo:.2} to {hi:.2})")
                };
                let ahead = |want_b: bool| -> String {
                    pairs
                        .iter()
                        .filter(|p| (p.2 > p.1) == want_b)
                        .map(|p| disp(&c.x, &xs[p.0]))
                        .collect::<Vec<_>>()
                        .join(", ")
                };
                let s = match (crossover(a, b), crossover(b, a)) {
                    (Some(i), _) => format!(
                        "{e}, {} ({m}): {lb} rises above {la} between {} and {} ({la} {} vs {lb} {} at {}){rng}.",
                        c.title,
                        disp(&c.x, &xs[i.saturating_sub(1)]),
                        disp(&c.x, &xs[i]),
                        fmt_num(a[i].unwrap_or(f64::NAN)),
                        fmt_num(b[i].unwrap_or(f64::NAN)),
                        disp(&c.x, &xs[i])
                    ),
                    (None, Some(i)) => format!(
                        "{e}, {} ({m}): {la} rises above {lb} between {} and {}{rng}.",
                        c.title,
                        disp(&c.x, &xs[i.saturating_sub(1)]),
                        disp(&c.x, &xs[i])
                    ),
                    _ => {
                        let above = pairs.iter().filter(|p| p.2 > p.1).count();
                        if above == 0 || above == pairs.len() {
                            format!("{e}, {} ({m}): {lb} {} {la} at all {} points{rng}.", c.title, if above > 0 { "is above" } else { "stays below" }, pairs.len())
                        } else {
                            format!("{e}, {} ({m}): no clean crossover; {lb} is higher at {} and {la} at {}{rng}.", c.title, ahead(true), ahead(false))
                        }
                    }
                };
                out.push(s);
            }
        }
        if !noisy.is_empty() {
            out.push(format!(
                "{} ({m}): noisy cells, coefficient of variation over repeats above 10%: {}.",
                c.title,
                noisy.join(", ")
            ));
        }
        if engs.len() == 2 {
            let a = per_engine_means
                .get(&engs[0])
                .map(|v| v.iter().sum::<f64>() / v.len().max(1) as f64);
            let b = per_engine_means
                .get(&engs[1])
                .map(|v| v.iter().sum::<f64>() / v.len().max(1) as f64);
            if let (Some(a), Some(b)) = (a, b) {
                if b > 0.0 {
                    out.push(format!(
                        "{}: {} averages {} vs {} {} ({:.2}x).",
                        c.title,
                        engs[0],
                        fmt_num(a),
                        engs[1],
                        fmt_num(b),
                        a / b
                    ));
                }
            }
        }
    }
    if let Some(sc) = plan.loaded.spec.score.as_ref().map(|s| s.get_ref()) {
        for e in &engs {
            let best = plan
                .cells
                .iter()
                .filter_map(|c| {
                    summarize(&values(rows, e, &sc.step, &c.labels, "score")).map(|s| (c, s.mean))
                })
                .max_by(|a, b| a.1.total_cmp(&b.1));
            if let Some((c, s)) = best {
                let cell: Vec<String> = c
                    .labels
                    .iter()
                    .map(|(k, v)| format!("{k} = {}", disp(k, v)))
                    .collect();
                let w: Vec<String> = sc
                    .weights
                    .iter()
                    .map(|(k, v)| format!("{k} {:.0}%", v * 100.0))
                    .collect();
                out.push(format!(
                    "Recommendation for {e}: {} (composite score {:.1} of 100; weights {}).",
                    cell.join(", "),
                    s,
                    w.join(", ")
                ));
            }
        }
    }
    out
}
