//! Statements computed from a study's data, in words with their numbers:
//! along an ordered axis "blob rises above inline between 2 KB and 4 KB" and
//! "best ..."; along an unordered one (variant labels) "bloom64 is higher
//! by more than 5% at fillseq (bloom64/none 1.10 [1.05, 1.16])", only where
//! the repeats show it, as the verdicts read them; noisy cells, engine
//! ratios, the composite-score recommendation. Each chart's statements are
//! made per facet, prefixed with the facet's values.

use std::collections::BTreeMap;

use crate::data::aggregate::{engines, series, values};
use crate::data::format::fmt_num;
use crate::data::metrics::higher_is_better;
use crate::data::results::ResultRow;
use crate::data::stats::summarize;
use crate::judge::facet::{facet_prefix, facets, used_axes};
use crate::judge::findings::crossover;
use crate::spec::model::Plan;
use crate::spec::study::Chart;

/// A series label with its axis name for scalar axes (see `ResolvedAxis::tag`).
pub(crate) fn tag(plan: &Plan, axis: Option<&str>, label: &str) -> String {
    match axis.and_then(|a| plan.axis(a)) {
        Some(a) => a.tag(label),
        None => label.to_string(),
    }
}

/// Statements computed from the data, with numbers. A chart's statements
/// are made per facet (each combination of the axes it neither draws along
/// nor as series; see [`crate::judge::facet`]), each prefixed with the facet's
/// values.
pub(crate) fn computed_findings(plan: &Plan, rows: &[ResultRow]) -> Vec<String> {
    let engs = engines(plan, rows);
    let mut out = Vec::new();
    let disp = |a: &str, l: &str| {
        plan.axis(a)
            .map(|x| x.display(l))
            .unwrap_or_else(|| l.to_string())
    };
    // A trade-off chart's statement is its table of engines at equal x
    // (`judge::tradeoff`); read along its `x` axis it would repeat an ordinary
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
        for facet in facets(plan, &used_axes(&c.x, c.series.as_deref())) {
            let pre = facet_prefix(plan, &facet);
            out.extend(
                chart_statements(plan, rows, &engs, c, &facet)
                    .into_iter()
                    .map(|s| format!("{pre}{s}")),
            );
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

/// Where `b` differs from `a` beyond the minimum effect, by the same
/// one-sided bounds as the verdicts: "b is higher by more than 5% at x1
/// (b/a 1.20 [1.10, 1.31]); a at x2 (...); within 5% at x3; the repeats
/// cannot tell at x4 (...)".
fn beyond_noise(
    xs: &[String],
    a: &[Vec<f64>],
    b: &[Vec<f64>],
    la: &str,
    lb: &str,
    disp: &dyn Fn(&str) -> String,
) -> String {
    use crate::judge::verdict::estimate::Side;
    use crate::judge::verdict::kinds::reading::{iv, pair_effects, pct, rel, sides_of};
    let m = crate::judge::verdict::DEFAULT_MIN_EFFECT;
    let (scale, eff) = pair_effects(a, b, None);
    let (_, sides) = sides_of(&scale, &eff, m);
    let at = |want: Side, figures: bool| -> Vec<String> {
        xs.iter()
            .zip(eff.iter().zip(&sides))
            .filter(|(_, (e, s))| e.is_some() && **s == want)
            .map(|(x, (e, _))| match (figures, e) {
                (true, Some(e)) => {
                    format!("{} ({} {})", disp(x), rel(&scale, la, lb), iv(&scale, e))
                }
                _ => disp(x),
            })
            .collect()
    };
    let mut parts = Vec::new();
    let p = pct(m);
    let up = at(Side::With, true);
    let down = at(Side::Against, true);
    if !up.is_empty() {
        parts.push(format!(
            "{lb} is higher by more than {p} at {}",
            and_list(&up)
        ));
    }
    if !down.is_empty() {
        let lead = if parts.is_empty() {
            format!("{la} is higher by more than {p} at")
        } else {
            format!("{la} at")
        };
        parts.push(format!("{lead} {}", and_list(&down)));
    }
    let null = at(Side::Null, false);
    if !null.is_empty() {
        parts.push(format!("within {p} at {}", and_list(&null)));
    }
    let unclear = at(Side::Unclear, true);
    if !unclear.is_empty() {
        parts.push(format!(
            "the repeats cannot tell a difference of {p} at {}",
            and_list(&unclear)
        ));
    }
    if parts.is_empty() {
        return "no point with data in both".into();
    }
    parts.join("; ")
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The statements of chart `c` (not a trade-off chart) in one facet: the
/// chart's other axes fixed to `facet`'s labels. Along an ordered `x` axis
/// they speak of where one series rises above another and where each is
/// best; along an unordered one (variant labels) only of which series is
/// higher at which labels, and of each label's rank.
fn chart_statements(
    plan: &Plan,
    rows: &[ResultRow],
    engs: &[String],
    c: &Chart,
    facet: &BTreeMap<String, String>,
) -> Vec<String> {
    let mut out = Vec::new();
    let disp = |a: &str, l: &str| {
        plan.axis(a)
            .map(|x| x.display(l))
            .unwrap_or_else(|| l.to_string())
    };
    let ordered = plan.axis(&c.x).is_some_and(|a| a.ordered);
    let m = &c.metrics[0];
    let labels: Vec<String> = match c.series.as_deref().and_then(|s| plan.axis(s)) {
        Some(a) => a.values.iter().map(|v| v.label.clone()).collect(),
        None => vec![String::new()],
    };
    let mut per_engine_means: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut noisy: Vec<String> = Vec::new();
    for e in engs {
        let mut means: Vec<Vec<Option<f64>>> = Vec::new();
        let mut xs: Vec<String> = Vec::new();
        for lab in &labels {
            let mut fixed = facet.clone();
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
            if valid.len() >= 2 && higher_is_better(m) {
                let who = if lab.is_empty() {
                    e.clone()
                } else {
                    format!("{e}, {}", tag(plan, c.series.as_deref(), lab))
                };
                let best = valid.iter().cloned().max_by(|a, b| a.1.total_cmp(&b.1));
                let worst = valid.iter().cloned().min_by(|a, b| a.1.total_cmp(&b.1));
                if let (Some(b), Some(w)) = (best, worst) {
                    let below = if b.1 > 0.0 {
                        (1.0 - w.1 / b.1) * 100.0
                    } else {
                        0.0
                    };
                    if ordered {
                        out.push(format!(
                            "{who}, {}: best {m} at {} = {} ({}); lowest at {} ({}), {below:.0}% below the best.",
                            c.step,
                            c.x,
                            disp(&c.x, &xs[b.0]),
                            fmt_num(b.1),
                            disp(&c.x, &xs[w.0]),
                            fmt_num(w.1),
                        ));
                    }
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
            if !ordered {
                // Along variant labels: only differences the repeats show
                // beyond the minimum effect, each with its interval, so that
                // no statement reads as a verdict the data cannot bear.
                let sample = |lab: &str, x: &str| {
                    let mut f = facet.clone();
                    if let Some(sa) = &c.series {
                        f.insert(sa.clone(), lab.to_string());
                    }
                    f.insert(c.x.clone(), x.to_string());
                    values(rows, e, &c.step, &f, m)
                };
                let sa: Vec<Vec<f64>> = xs.iter().map(|x| sample(&labels[0], x)).collect();
                let sb: Vec<Vec<f64>> = xs.iter().map(|x| sample(&labels[1], x)).collect();
                out.push(format!(
                    "{e}, {} ({m}): {}.",
                    c.title,
                    beyond_noise(&xs, &sa, &sb, la, lb, &|x| disp(&c.x, x))
                ));
                continue;
            }
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
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::results::sample_row;

    const SPEC: &str = include_str!("../../testdata/studies/unit-statements.toml");

    /// Three rows (repeats 1% apart) per cell of `plan` with `ops_sec =
    /// f(cell labels)`.
    fn rows(plan: &Plan, f: impl Fn(&BTreeMap<String, String>) -> f64) -> Vec<ResultRow> {
        let mut out = Vec::new();
        for c in &plan.cells {
            for (i, j) in [0.0, 0.01, -0.01].iter().enumerate() {
                let mut r = sample_row();
                r.engine = "strata".into();
                r.step = "fill".into();
                r.repeat = i as u32;
                r.cell = c.labels.clone();
                r.cell_id = c.id.clone();
                r.metrics.insert("ops_sec".into(), f(&c.labels) * (1.0 + j));
                out.push(r);
            }
        }
        out
    }

    fn statements(spec: &str, f: impl Fn(&BTreeMap<String, String>) -> f64) -> Vec<String> {
        let plan = crate::testutil::plan(spec, "quick");
        computed_findings(&plan, &rows(&plan, f))
    }

    /// bloom64 ahead at fillseq, none at fillrandom: a "crossover" only if
    /// fillseq came before fillrandom in some order.
    fn crossing(l: &BTreeMap<String, String>) -> f64 {
        match (l["bloom"].as_str(), l["fill"].as_str()) {
            ("none", "fillseq") => 100.0,
            ("none", _) => 200.0,
            _ => 150.0,
        }
    }

    #[test]
    fn unordered_axis_says_which_series_is_higher_where() {
        let s = statements(SPEC, crossing);
        let all = s.join("\n");
        for trend in ["rises above", "crossover", "between", "best ops_sec at"] {
            assert!(!all.contains(trend), "`{trend}` in {all}");
        }
        assert!(
            s.contains(&"strata, Fill (ops_sec): bloom64 is higher by more than 5% at fillseq (bloom64/none 1.500 [1.474, 1.526]); none at fillrandom (bloom64/none 0.750 [0.737, 0.763]).".to_string()),
            "{all}"
        );
        // The workloads of the axis are not ranked against each other.
        assert!(!all.contains("best first"), "{all}");
        // Within the minimum effect, or too noisy to tell, is said as such.
        let s = statements(SPEC, |l| {
            if l["bloom"] == "bloom64" {
                101.0
            } else {
                100.0
            }
        });
        assert!(
            s.iter()
                .any(|x| x
                    .starts_with("strata, Fill (ops_sec): within 5% at fillseq and fillrandom")),
            "{s:?}"
        );
        // Ahead everywhere: both labels named, no count of "points".
        let s = statements(SPEC, |l| {
            if l["bloom"] == "bloom64" {
                crossing(l) * 2.0
            } else {
                crossing(l)
            }
        });
        assert!(
            s.iter().any(|x| x.starts_with("strata, Fill (ops_sec): bloom64 is higher by more than 5% at fillseq (bloom64/none 3.000 [")),
            "{s:?}"
        );
    }

    #[test]
    fn ordered_axis_keeps_the_trend_wording() {
        let spec = SPEC.replacen("name = \"fill\"\n", "name = \"fill\"\nordered = true\n", 1);
        let s = statements(&spec, crossing);
        assert!(
            s.contains(&"strata, Fill (ops_sec): none rises above bloom64 between fillseq and fillrandom (bloom64/none ratio 0.75 to 1.50).".to_string()),
            "{s:?}"
        );
        assert!(
            s.contains(&"strata, none, fill: best ops_sec at fill = fillrandom (200); lowest at fillseq (100), 50% below the best.".to_string()),
            "{s:?}"
        );
    }

    /// A third axis becomes a facet: each value gets its own statements,
    /// prefixed with it, computed from its own cells only.
    #[test]
    fn statements_are_made_per_facet() {
        let spec = SPEC.replace(
            "[[step]]",
            "[[axis]]\nname = \"value_size\"\nunit = \"bytes\"\nvalues = [1024, 4096]\n[[step]]",
        );
        let s = statements(&spec, |l| {
            let v = crossing(l);
            // At 4 KB none is ahead everywhere.
            if l["value_size"] == "4096" && l["bloom"] == "none" {
                v * 5.0
            } else {
                v
            }
        });
        let all = s.join("\n");
        assert!(
            s.iter().any(|x| x.starts_with("value_size=1 KB: strata, Fill (ops_sec): bloom64 is higher by more than 5% at fillseq")),
            "{all}"
        );
        assert!(
            s.iter().any(|x| x.starts_with("value_size=4 KB: strata, Fill (ops_sec): none is higher by more than 5% at fillseq (bloom64/none 0.300 [")),
            "{all}"
        );
        assert!(s.iter().all(|x| x.starts_with("value_size=")), "{all}");
    }
}
