//! Statements computed from a study's data, in words with their numbers,
//! each saying only what the repeats show, as the verdicts read them
//! (one-sided 95% bounds against the minimum effect): "bloom64 is higher
//! by more than 5% at fillseq (bloom64/none 1.10 [1.05, 1.16])"; along an
//! ordered axis also "blob rises above inline between 2 KB and 4 KB" and,
//! where a claim asks for the best point, "best ops_sec at ..."; noisy
//! cells, engine ratios, the composite-score recommendation. Each chart's
//! statements are made per facet, prefixed with the facet's values, and
//! say what they are about ([`About`]) so that the report can set them
//! under the claims they bear on.

use std::collections::BTreeMap;

use crate::data::aggregate::{engines, series, values};
use crate::data::format::fmt_num;
use crate::data::metrics::higher_is_better;
use crate::data::results::ResultRow;
use crate::data::stats::summarize;
use crate::judge::facet::{facet_prefix, facets, used_axes};
use crate::spec::model::Plan;
use crate::spec::study::{Chart, FindingKind};

/// A series label with its axis name for scalar axes (see `ResolvedAxis::tag`).
pub(crate) fn tag(plan: &Plan, axis: Option<&str>, label: &str) -> String {
    match axis.and_then(|a| plan.axis(a)) {
        Some(a) => a.tag(label),
        None => label.to_string(),
    }
}

/// A statement with what it is about.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Statement {
    /// The statement in words, with its figures.
    pub text: String,
    /// What it reads: `None` for one about the whole study (the
    /// recommendation).
    pub about: Option<About>,
}

/// What a chart's statement reads: a metric of a step along an axis, with
/// the chart's series axis and the facet's fixed labels.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct About {
    /// The step.
    pub step: String,
    /// The metric.
    pub metric: String,
    /// The axis it runs along.
    pub x: String,
    /// The axis whose values are the series compared.
    pub series: Option<String>,
    /// The other axes, fixed to these labels.
    pub facet: BTreeMap<String, String>,
    /// The one series label it reads, for a statement about one line (its
    /// best point); `None` for one comparing the series or the engines.
    pub line: Option<String>,
}

impl About {
    /// Whether a statement about this bears on finding `f`: the same step
    /// and metric, no facet label other than one the finding fixes, and
    /// the same series: the two the finding compares (drawn as series or
    /// along the axis), or the one line the finding reads where it fixes
    /// the chart's series axis.
    pub(crate) fn bears_on(&self, f: &crate::spec::study::Finding) -> bool {
        let series = match &f.series_axis {
            Some(sa) => {
                (self.series.as_ref() == Some(sa) || &self.x == sa)
                    && self.line.as_ref().is_none_or(|l| f.series.contains(l))
            }
            None => match self.series.as_ref().and_then(|s| f.where_.get(s)) {
                Some(l) => self.line.as_ref() == Some(l),
                None => true,
            },
        };
        self.step == f.step
            && self.metric == f.metric
            && series
            && f.where_
                .iter()
                .all(|(k, v)| self.facet.get(k).is_none_or(|l| l == v))
    }
}

/// Statements computed from the data, with numbers. A chart's statements
/// are made per facet (each combination of the axes it neither draws along
/// nor as series; see [`crate::judge::facet`]), each prefixed with the facet's
/// values.
pub(crate) fn computed_findings(plan: &Plan, rows: &[ResultRow]) -> Vec<Statement> {
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
                    .map(|(s, line)| Statement {
                        text: format!("{pre}{s}"),
                        about: Some(About {
                            step: c.step.clone(),
                            metric: c.metrics[0].clone(),
                            x: c.x.clone(),
                            series: c.series.clone(),
                            facet: facet.clone(),
                            line,
                        }),
                    }),
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
                out.push(Statement {
                    text: format!(
                        "Recommendation for {e}: {} (composite score {:.1} of 100; weights {}).",
                        cell.join(", "),
                        s,
                        w.join(", ")
                    ),
                    about: None,
                });
            }
        }
    }
    out
}

/// Two lines of a chart along its x axis, as a statement compares them:
/// the points, the repeats of line `a` and of line `b` at each, the lines'
/// names, and how a point is shown.
#[derive(Clone, Copy)]
struct TwoLines<'a> {
    xs: &'a [String],
    a: &'a [Vec<f64>],
    b: &'a [Vec<f64>],
    la: &'a str,
    lb: &'a str,
    disp: &'a dyn Fn(&str) -> String,
}

/// Where `b` differs from `a` beyond the minimum effect, by the same
/// one-sided bounds as the verdicts: "b is higher by more than 5% at x1
/// (b/a 1.20 [1.10, 1.31]); a at x2 (...); within 5% at x3; the repeats
/// cannot tell at x4 (...)".
fn beyond_noise(lines: TwoLines<'_>) -> String {
    use crate::judge::verdict::estimate::Side;
    use crate::judge::verdict::kinds::reading::{iv, pair_effects, pct, rel, sides_of};
    let (xs, a, b) = (lines.xs, lines.a, lines.b);
    let (la, lb, disp) = (lines.la, lines.lb, lines.disp);
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

/// The ordered-axis statement of two series: where `b` rises above `a` (or
/// `a` above `b`) beyond the minimum effect, as the `crossover` verdict
/// reads it: from some point to the last, the one above by more than the
/// minimum effect; before it a point where it is not above, and no earlier
/// point where it is. `None` when the repeats show no such crossing.
fn crossing(lines: TwoLines<'_>) -> Option<String> {
    use crate::judge::verdict::kinds::crossing_between;
    use crate::judge::verdict::kinds::reading::{iv, pair_effects, pct, rel};
    let (xs, a, b) = (lines.xs, lines.a, lines.b);
    let (la, lb, disp) = (lines.la, lines.lb, lines.disp);
    let m = crate::judge::verdict::DEFAULT_MIN_EFFECT;
    let (scale, eff) = pair_effects(a, b, None);
    // The crossover as the verdict reads one, either way round.
    let (over, under, (p, c)) = match (crossing_between(a, b, m), crossing_between(b, a, m)) {
        (Some(pc), _) => (lb, la, pc),
        (None, Some(pc)) => (la, lb, pc),
        _ => return None,
    };
    let e = eff[c]?;
    Some(format!(
        "{over} rises above {under} by more than {} between {} and {} ({} at {} {})",
        pct(m),
        disp(&xs[p]),
        disp(&xs[c]),
        rel(&scale, la, lb),
        disp(&xs[c]),
        iv(&scale, &e)
    ))
}

/// The best and worst point of one line along an ordered axis, when the
/// best is better than the worst by more than the minimum effect (one-sided
/// 95% bounds, as the verdicts read them), with the points the repeats do
/// not tell apart from the best; `None` otherwise.
fn best_beyond_noise(
    x: &str,
    xs: &[String],
    ys: &[Vec<f64>],
    metric: &str,
    disp: &dyn Fn(&str) -> String,
) -> Option<String> {
    use crate::judge::verdict::estimate::{side, Side};
    use crate::judge::verdict::kinds::reading::{iv, pair_effects, rel, sides_of};
    let m = crate::judge::verdict::DEFAULT_MIN_EFFECT;
    let hib = higher_is_better(metric);
    let mean = |v: &Vec<f64>| v.iter().sum::<f64>() / v.len() as f64;
    let valid: Vec<usize> = (0..ys.len().min(xs.len()))
        .filter(|i| !ys[*i].is_empty())
        .collect();
    if valid.len() < 2 {
        return None;
    }
    let cmp = |i: &&usize, j: &&usize| mean(&ys[**i]).total_cmp(&mean(&ys[**j]));
    let (hi, lo) = (*valid.iter().max_by(cmp)?, *valid.iter().min_by(cmp)?);
    let (best, worst) = if hib { (hi, lo) } else { (lo, hi) };
    // Better is above on the scale for a higher-is-better metric, below otherwise.
    let better = if hib { Side::With } else { Side::Against };
    let (scale, eff) = pair_effects(&[ys[worst].clone()], &[ys[best].clone()], None);
    let e = eff.first().copied().flatten()?;
    if side(&e, scale.threshold(m)) != better {
        return None;
    }
    let others: Vec<usize> = valid.iter().copied().filter(|i| *i != best).collect();
    let a: Vec<Vec<f64>> = others.iter().map(|i| ys[*i].clone()).collect();
    let b: Vec<Vec<f64>> = vec![ys[best].clone(); others.len()];
    let (oscale, oeff) = pair_effects(&a, &b, None);
    let (_, sides) = sides_of(&oscale, &oeff, m);
    let ties: Vec<String> = others
        .iter()
        .zip(&sides)
        .filter(|(_, s)| **s != better)
        .map(|(i, _)| disp(&xs[*i]))
        .collect();
    let ties = if ties.is_empty() {
        String::new()
    } else {
        format!(
            "; the repeats do not set the best apart from {} by more than {}",
            and_list(&ties),
            crate::judge::verdict::kinds::reading::pct(m)
        )
    };
    Some(format!(
        "best {metric} at {x} = {} ({}), worst at {} ({}): {} {}{ties}",
        disp(&xs[best]),
        fmt_num(mean(&ys[best])),
        disp(&xs[worst]),
        fmt_num(mean(&ys[worst])),
        rel(&scale, &disp(&xs[worst]), &disp(&xs[best])),
        iv(&scale, &e)
    ))
}

/// The statements of chart `c` (not a trade-off chart) in one facet: the
/// chart's other axes fixed to `facet`'s labels. For two series, where one
/// is higher beyond the minimum effect, with intervals ([`beyond_noise`]),
/// and along an ordered `x` axis where one rises above the other
/// ([`crossing`]); along an ordered axis, each line's best point when a
/// claim asks for it (an `argmax` finding, or a `monotonic` one of a
/// single line, along the axis on the chart's metric): an axis's labels are
/// not otherwise ranked. Each
/// with the series label of the one line it reads, if it reads one.
fn chart_statements(
    plan: &Plan,
    rows: &[ResultRow],
    engs: &[String],
    c: &Chart,
    facet: &BTreeMap<String, String>,
) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let disp = |a: &str, l: &str| {
        plan.axis(a)
            .map(|x| x.display(l))
            .unwrap_or_else(|| l.to_string())
    };
    let shown = |l: &str| disp(&c.x, l);
    let ordered = plan.axis(&c.x).is_some_and(|a| a.ordered);
    let m = &c.metrics[0];
    let asks_best = plan
        .loaded
        .spec
        .findings
        .iter()
        .map(|f| f.get_ref())
        .any(|f| {
            (f.kind == FindingKind::Argmax
                || (f.kind == FindingKind::Monotonic && f.series.is_empty()))
                && f.along.as_deref() == Some(c.x.as_str())
                && f.step == c.step
                && &f.metric == m
        });
    let labels: Vec<String> = match c.series.as_deref().and_then(|s| plan.axis(s)) {
        Some(a) => a.values.iter().map(|v| v.label.clone()).collect(),
        None => vec![String::new()],
    };
    // Per engine, the samples of every cell of the chart, in one order.
    let mut per_engine_cells: BTreeMap<String, Vec<Vec<f64>>> = BTreeMap::new();
    let mut noisy: Vec<String> = Vec::new();
    for e in engs {
        // Per series label, the samples at each point of `x`.
        let mut samples: Vec<Vec<Vec<f64>>> = Vec::new();
        let mut xs: Vec<String> = Vec::new();
        for lab in &labels {
            let mut fixed = facet.clone();
            if let Some(s) = &c.series {
                fixed.insert(s.clone(), lab.clone());
            }
            let pts = series(plan, rows, e, &c.step, &c.x, &fixed, m);
            xs = pts.iter().map(|p| p.x.clone()).collect();
            let ys: Vec<Vec<f64>> = xs
                .iter()
                .map(|x| {
                    let mut f = fixed.clone();
                    f.insert(c.x.clone(), x.clone());
                    values(rows, e, &c.step, &f, m)
                })
                .collect();
            per_engine_cells
                .entry(e.clone())
                .or_default()
                .extend(ys.iter().cloned());
            if ordered && asks_best {
                let who = if lab.is_empty() {
                    e.clone()
                } else {
                    format!("{e}, {}", tag(plan, c.series.as_deref(), lab))
                };
                if let Some(s) = best_beyond_noise(&c.x, &xs, &ys, m, &shown) {
                    let line = (!lab.is_empty()).then(|| lab.clone());
                    out.push((format!("{who}, {}: {s}.", c.step), line));
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
            samples.push(ys);
        }
        if let [a, b] = samples.as_slice() {
            let both = a.iter().zip(b).any(|(x, y)| !x.is_empty() && !y.is_empty());
            if !both {
                continue;
            }
            let (la, lb) = (
                &tag(plan, c.series.as_deref(), &labels[0]),
                &tag(plan, c.series.as_deref(), &labels[1]),
            );
            // Only differences the repeats show beyond the minimum effect,
            // each with its interval, so that no statement reads as a
            // verdict the data cannot bear.
            let lines = TwoLines {
                xs: &xs,
                a,
                b,
                la,
                lb,
                disp: &shown,
            };
            let text = ordered
                .then(|| crossing(lines))
                .flatten()
                .unwrap_or_else(|| beyond_noise(lines));
            out.push((format!("{e}, {} ({m}): {text}.", c.title), None));
        }
    }
    if !noisy.is_empty() {
        out.push((
            format!(
                "{} ({m}): noisy cells, coefficient of variation over repeats above 10%: {}.",
                c.title,
                noisy.join(", ")
            ),
            None,
        ));
    }
    if engs.len() == 2 {
        if let (Some(a), Some(b)) = (
            per_engine_cells.get(&engs[1]),
            per_engine_cells.get(&engs[0]),
        ) {
            if let Some(text) = engines_beyond_noise(a, b, &engs[1], &engs[0]) {
                out.push((format!("{} ({m}): {text}.", c.title), None));
            }
        }
    }
    out
}

/// Two engines over every cell of a chart: `b / a` as a geometric mean
/// over the cells with its interval, said only when the interval clears
/// the minimum effect (a mean over workloads of different sizes says
/// nothing, and one within the noise reads as a verdict it is not).
fn engines_beyond_noise(a: &[Vec<f64>], b: &[Vec<f64>], la: &str, lb: &str) -> Option<String> {
    use crate::judge::verdict::estimate::{side, Scale, Side};
    use crate::judge::verdict::kinds::reading::{iv, pair_effects, pooled};
    let (scale, eff) = pair_effects(a, b, None);
    if scale != Scale::Log {
        return None;
    }
    let all = pooled(&eff)?;
    let n = eff.iter().flatten().count();
    let t = scale.threshold(crate::judge::verdict::DEFAULT_MIN_EFFECT);
    let word = match side(&all, t) {
        Side::With => "higher",
        Side::Against => "lower",
        _ => return None,
    };
    Some(format!(
        "{lb} is {word} than {la} by more than 5%: {lb}/{la} {} (geometric mean over {n} cells)",
        iv(&scale, &all)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::fill_row;

    const SPEC: &str = include_str!("../../testdata/studies/unit-statements.toml");

    /// Three rows (repeats 1% apart) per cell of `plan` with `ops_sec =
    /// f(cell labels)`.
    fn rows(plan: &Plan, f: impl Fn(&BTreeMap<String, String>) -> f64) -> Vec<ResultRow> {
        let mut out = Vec::new();
        for c in &plan.cells {
            for (i, j) in [0.0, 0.01, -0.01].iter().enumerate() {
                out.push(fill_row(c, i, f(&c.labels) * (1.0 + j)));
            }
        }
        out
    }

    fn statements(spec: &str, f: impl Fn(&BTreeMap<String, String>) -> f64) -> Vec<String> {
        let plan = crate::testutil::plan(spec, "quick");
        computed_findings(&plan, &rows(&plan, f))
            .into_iter()
            .map(|s| s.text)
            .collect()
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

    /// The fill axis made ordered, with `findings` appended.
    fn ordered(findings: &str) -> String {
        let spec = SPEC.replacen("name = \"fill\"\n", "name = \"fill\"\nordered = true\n", 1);
        format!("{spec}{findings}")
    }

    #[test]
    fn ordered_axis_says_where_one_rises_above_the_other_beyond_noise() {
        let s = statements(&ordered(""), crossing);
        let all = s.join("\n");
        assert!(
            s.iter().any(|x| x.starts_with("strata, Fill (ops_sec): none rises above bloom64 by more than 5% between fillseq and fillrandom (bloom64/none at fillrandom 0.750 [")),
            "{all}"
        );
        // Within noise: no crossing, no "above at all points", but what the
        // repeats show, as along an unordered axis.
        let s = statements(&ordered(""), |l| {
            match (l["bloom"].as_str(), l["fill"].as_str()) {
                ("none", "fillseq") => 100.0,
                ("none", _) => 103.0,
                _ => 101.0,
            }
        });
        let all = s.join("\n");
        assert!(!all.contains("rises above"), "{all}");
        assert!(
            s.iter()
                .any(|x| x
                    .starts_with("strata, Fill (ops_sec): within 5% at fillseq and fillrandom")),
            "{all}"
        );
    }

    const ARGMAX: &str = "[[finding]]\nid = \"best\"\nclaim = \"c\"\npublished = \"p\"\nkind = \"argmax\"\nmetric = \"ops_sec\"\nstep = \"fill\"\nalong = \"fill\"\nwhere = { bloom = \"none\" }\nexpected = [\"fillrandom\"]\n";

    #[test]
    fn an_axis_is_ranked_only_where_a_claim_asks_and_beyond_noise() {
        // No claim asks for the best fill: none is named; nor does a trend
        // of the ratio of two series.
        let s = statements(&ordered(""), crossing);
        assert!(!s.join("\n").contains("best ops_sec"), "{s:?}");
        let trend = "[[finding]]\nid = \"t\"\nclaim = \"c\"\npublished = \"p\"\nkind = \"monotonic\"\nmetric = \"ops_sec\"\nstep = \"fill\"\nalong = \"fill\"\nseries_axis = \"bloom\"\nseries = [\"none\", \"bloom64\"]\ndirection = \"decreasing\"\n";
        let s = statements(&ordered(trend), crossing);
        assert!(!s.join("\n").contains("best ops_sec"), "{s:?}");
        let s = statements(&ordered(ARGMAX), crossing);
        assert!(
            s.iter().any(|x| x.starts_with("strata, none, fill: best ops_sec at fill = fillrandom (200), worst at fillseq (100): fillrandom/fillseq 2.000 [")),
            "{s:?}"
        );
        // Within the minimum effect of each other: no best.
        let s = statements(&ordered(ARGMAX), |l| {
            if l["fill"] == "fillseq" {
                102.0
            } else {
                100.0
            }
        });
        assert!(!s.join("\n").contains("best ops_sec"), "{s:?}");
    }

    #[test]
    fn a_statement_says_what_it_is_about() {
        let spec = ordered(ARGMAX);
        let plan = crate::testutil::plan(&spec, "quick");
        let st = computed_findings(&plan, &rows(&plan, crossing));
        let f = plan.loaded.spec.findings[0].get_ref();
        let about = st[0].about.as_ref().unwrap();
        assert_eq!(
            (about.step.as_str(), about.metric.as_str()),
            ("fill", "ops_sec")
        );
        assert!(st[0].text.starts_with("strata, none, fill: best"), "{st:?}");
        assert_eq!(about.line.as_deref(), Some("none"));
        assert!(about.bears_on(f));
        // The claim reads the none line: the comparison of the two series
        // is not about it.
        let pair = st.iter().find(|s| s.text.contains("rises above")).unwrap();
        assert!(!pair.about.as_ref().unwrap().bears_on(f), "{pair:?}");
        let mut g = f.clone();
        g.metric = "p99".into();
        assert!(!about.bears_on(&g));
        g = f.clone();
        g.step = "other".into();
        assert!(!about.bears_on(&g));
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

    /// Two engines over a chart's cells: said only when the geometric
    /// mean of their ratio clears the minimum effect, with its interval;
    /// never an arithmetic mean over workloads of different sizes.
    #[test]
    fn engines_are_compared_only_beyond_noise() {
        let cells = |m: f64| -> Vec<Vec<f64>> {
            [1.0, 10.0, 100.0]
                .iter()
                .map(|k| vec![m * k * 0.99, m * k, m * k * 1.01])
                .collect()
        };
        let t = engines_beyond_noise(&cells(100.0), &cells(120.0), "rocksdb", "strata").unwrap();
        assert!(
            t.starts_with("strata is higher than rocksdb by more than 5%: strata/rocksdb 1.200 ["),
            "{t}"
        );
        assert!(t.ends_with("(geometric mean over 3 cells)"), "{t}");
        assert_eq!(
            engines_beyond_noise(&cells(100.0), &cells(101.0), "a", "b"),
            None
        );
    }
}
