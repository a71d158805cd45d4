//! Published findings checked against a run: the study's data gathered per
//! point, facet and series, judged by the verdict model ([`crate::judge::verdict`]).
//!
//! A finding compares points along its `along` axis (or one point), fixes
//! the axes named in `where`, and holds across every other axis: it is
//! judged at each combination of their values (a facet) and the verdicts
//! are combined ([`crate::judge::verdict::combine`]).

use std::collections::BTreeMap;

use crate::data::aggregate::{value_repeats, values};
use crate::data::format::fmt_num;
use crate::data::results::ResultRow;
use crate::judge::verdict::estimate::{Est, MIN_REPEATS};
use crate::judge::verdict::{kinds, power, Judgement, Pooled, Verdict, DEFAULT_MIN_EFFECT};
use crate::spec::model::Plan;
use crate::spec::study::{Finding, FindingKind};

/// Index `i` of a clean crossover of `b` over `a` that the repeats show:
/// read as the `crossover` verdict reads one (b not above a beyond the
/// minimum effect before, above it from `i` to the last point), `None`
/// where there is none or the intervals cannot pin it. Charts use it to
/// place their crossover marker, so that a marker never shows a crossing
/// the verdicts would not.
pub(crate) fn crossover(a: &[Vec<f64>], b: &[Vec<f64>]) -> Option<usize> {
    kinds::crossing_point(a, b, DEFAULT_MIN_EFFECT)
}

/// The axes a finding holds across: neither `along`, nor its series axis,
/// nor fixed by `where`.
pub(crate) fn across_axes(plan: &Plan, f: &Finding) -> Vec<String> {
    plan.axes
        .iter()
        .map(|a| a.name.clone())
        .filter(|n| {
            Some(n) != f.along.as_ref()
                && Some(n) != f.series_axis.as_ref()
                && !f.where_.contains_key(n)
        })
        .collect()
}

/// The labels of `along` the finding compares, in sweep order: restricted
/// by `at` and by `where` on the along axis itself.
fn points(plan: &Plan, f: &Finding) -> Vec<String> {
    let Some(al) = &f.along else {
        return vec![String::new()];
    };
    let Some(ax) = plan.axis(al) else {
        return Vec::new();
    };
    ax.values
        .iter()
        .map(|v| v.label.clone())
        .filter(|l| f.at.is_empty() || f.at.contains(l))
        .filter(|l| f.where_.get(al).is_none_or(|w| w == l))
        .collect()
}

/// `axis=label` words for a set of fixed labels (display form).
fn describe(plan: &Plan, fixed: &BTreeMap<String, String>) -> String {
    fixed
        .iter()
        .map(|(k, v)| plan.axis(k).map(|a| a.tag(v)).unwrap_or_else(|| v.clone()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The largest core count among `cpus` labels.
fn max_cores<'a>(labels: impl IntoIterator<Item = &'a String>) -> Option<u32> {
    labels
        .into_iter()
        .filter_map(|l| l.parse::<u32>().ok())
        .max()
}

/// Cores a finding's cells ask for (largest `cpus` label among them).
fn cores_needed(plan: &Plan, f: &Finding, xs: &[String]) -> Option<u32> {
    let cpus = plan.axis("cpus")?;
    let labels: Vec<&String> = if f.along.as_deref() == Some("cpus") {
        xs.iter().collect()
    } else if let Some(l) = f.where_.get("cpus") {
        vec![l]
    } else {
        cpus.values.iter().map(|v| &v.label).collect()
    };
    max_cores(labels)
}

/// Why a claim about `need` cores is not testable on a host of `host`.
pub(crate) fn cores_text(need: u32, host: u32) -> String {
    format!(
        "needs {need} cores; this host has {host}: testable on a host with {need} cores or more"
    )
}

/// The cores a verdict's text says the claim needs and the host has, as
/// [`cores_text`] writes them.
pub(crate) fn cores_in(text: &str) -> Option<(u32, u32)> {
    let (_, rest) = text.split_once("needs ")?;
    let (need, rest) = rest.split_once(" cores; this host has ")?;
    let host: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((need.parse().ok()?, host.parse().ok()?))
}

/// Whether a claim judged across facets has a facet without data, as the
/// facet text of [`judge`] writes it ("[at] no data: ..."): more repeats
/// of the other facets cannot decide such a claim.
pub(crate) fn facet_without_data(text: &str) -> bool {
    text.contains(&format!("] {}: ", Verdict::NoData.word()))
}

/// Why an engine has no data for a claim, in one clause without the
/// engine's name, read from a no-data verdict's text as [`judge`] writes
/// it: "it lacks `--enable_blob_files`", "its runs do not report cpu_us_op",
/// "W-Amp is n/a here: ...". `None` when the text gives no reason.
pub(crate) fn no_data_in(engine: &str, text: &str) -> Option<String> {
    let text = text.trim_end_matches('.');
    let after = |marker: &str| text.find(marker).map(|i| &text[i + marker.len()..]);
    if let Some(rest) = after(&format!("{engine} did not run these cells: ")) {
        return Some(
            rest.trim_end_matches(" (see \"Skipped cells\")")
                .to_string(),
        );
    }
    if let Some(rest) = after(&format!("{engine}'s runs ")) {
        return Some(format!("its runs {rest}"));
    }
    if let Some(i) = text.find("no successful runs ") {
        return Some(text[i..].to_string());
    }
    let n_a = text.find(" is n/a here: ")?;
    let head = &text[..n_a];
    let start = [head.rfind("; "), head.rfind(": ")]
        .into_iter()
        .flatten()
        .max()
        .map_or(0, |i| i + 2);
    Some(text[start..].to_string())
}

/// Cores a finding asks for in the study as published (its unscaled
/// `cpus` axis): the largest `cpus` label it is along or fixed at. `None`
/// when the finding does not name cores.
pub(crate) fn published_cores(plan: &Plan, f: &Finding) -> Option<u32> {
    let axis = plan
        .loaded
        .spec
        .axes
        .iter()
        .map(|a| a.get_ref())
        .find(|a| a.name == "cpus")?;
    let labels: Vec<String> = if f.along.as_deref() == Some("cpus") {
        let all: Vec<String> = if axis.variants.is_empty() {
            axis.values.iter().map(|v| v.to_string()).collect()
        } else {
            axis.variants.iter().map(|v| v.label.clone()).collect()
        };
        all.into_iter()
            .filter(|l| f.at.is_empty() || f.at.contains(l))
            .collect()
    } else {
        f.where_.get("cpus").cloned().into_iter().collect()
    };
    max_cores(&labels)
}

/// The judgement of one finding for one engine, over every facet.
pub(crate) fn judge(plan: &Plan, rows: &[ResultRow], f: &Finding, engine: &str) -> Judgement {
    let xs = points(plan, f);
    if xs.is_empty() {
        return Judgement::new(
            Verdict::NoData,
            "none of the finding's points is in this run",
        );
    }
    // A claim about more cores than the host has cannot be judged here:
    // the pinned runs get no more cores than exist.
    let host_cores = rows
        .iter()
        .filter(|r| r.engine == engine)
        .map(|r| r.host.cores)
        .max()
        .unwrap_or(0);
    if let Some(need) = cores_needed(plan, f, &xs) {
        if host_cores > 0 && need > host_cores {
            return Judgement::new(Verdict::NotTestable, cores_text(need, host_cores));
        }
    }
    if let Some(why) = unmet_need(rows, f, engine, &xs) {
        return Judgement::new(Verdict::NotTestable, why);
    }
    let across = across_axes(plan, f);
    let used: Vec<&str> = plan
        .axes
        .iter()
        .map(|a| a.name.as_str())
        .filter(|n| !across.iter().any(|x| x == n))
        .collect();
    let facets = crate::judge::facet::facets(plan, &used);
    let mut parts: Vec<(String, Judgement)> = Vec::new();
    for facet in &facets {
        let mut fixed = f.where_.clone();
        fixed.extend(facet.clone());
        if let Some(al) = &f.along {
            fixed.remove(al);
        }
        parts.push((
            describe(plan, facet),
            judge_at(plan, rows, f, engine, &fixed, &xs),
        ));
    }
    // One facet, or every facet judged alike for the same reason (no data,
    // a skipped flag): one sentence.
    if parts.len() == 1 {
        return parts.remove(0).1;
    }
    if parts.iter().all(|p| p.1 == parts[0].1) {
        let n = parts.len();
        let j = parts.remove(0).1;
        return Judgement::new(
            j.verdict,
            format!("alike at each of {n} facets: {}", j.text),
        );
    }
    let verdict =
        crate::judge::verdict::combine(&parts.iter().map(|p| p.1.verdict).collect::<Vec<_>>());
    let text = parts
        .iter()
        .map(|(at, j)| format!("[{at}] {}: {}", j.verdict.word(), j.text))
        .collect::<Vec<_>>()
        .join(" ");
    let mut j = Judgement::new(
        verdict,
        format!("judged at each of {} facets. {text}", parts.len()),
    );
    j.pooled = pooled_over_facets(&parts);
    j
}

/// The pooled ratio over every facet (the mean of the facets' log ratios,
/// each facet weighing alike), when each facet has one under one name.
fn pooled_over_facets(parts: &[(String, Judgement)]) -> Option<Pooled> {
    let all: Vec<&Pooled> = parts
        .iter()
        .map(|(_, j)| j.pooled.as_ref())
        .collect::<Option<_>>()?;
    let first = all.first()?;
    if all.iter().any(|p| p.label != first.label) {
        return None;
    }
    let w = 1.0 / all.len() as f64;
    let terms: Vec<(f64, Est)> = all.iter().map(|p| (w, p.est)).collect();
    Some(Pooled {
        label: first.label.clone(),
        est: Est::combine(&terms),
    })
}

/// The name of the ratio a finding's verdict reads, as its figures write
/// it: `a/b` for `ordering` (how far a is above b), `b/a` for `ratio` and
/// `parity`; `None` for the other kinds. A published ratio
/// (`published_ratio`) is given in this orientation.
pub(crate) fn ratio_label(plan: &Plan, f: &Finding) -> Option<String> {
    let tag = |l: &str| crate::judge::statements::tag(plan, f.series_axis.as_deref(), l);
    let [a, b] = f.series.as_slice() else {
        return None;
    };
    match f.kind {
        FindingKind::Ordering => Some(format!("{}/{}", tag(a), tag(b))),
        FindingKind::Ratio | FindingKind::Parity => Some(format!("{}/{}", tag(b), tag(a))),
        _ => None,
    }
}

/// Every row a finding's judgements read: the successful runs of the
/// engines in `engines` at the finding's step, in the cells it compares
/// (its points along `along`, its two series, its `where` labels, and
/// every value of the axes it holds across).
pub(crate) fn rows_read<'a>(
    plan: &Plan,
    rows: &'a [ResultRow],
    f: &Finding,
    engines: &[String],
) -> Vec<&'a ResultRow> {
    let xs = points(plan, f);
    rows.iter()
        .filter(|r| r.ok && engines.iter().any(|e| in_finding(r, f, e, &xs)))
        .collect()
}

/// The first of the finding's preconditions ([`Need`]) that some point it
/// compares does not meet on `engine`, in words with the measured value;
/// `None` when every need is met, or cannot be checked (no cell reports
/// the metric). A point meets a need when one of its series' cells does
/// (a smaller multiplier that makes the tree one level deeper acts).
fn unmet_need(rows: &[ResultRow], f: &Finding, engine: &str, xs: &[String]) -> Option<String> {
    let in_finding = |r: &ResultRow| r.ok && in_finding(r, f, engine, xs);
    for n in &f.needs {
        let mut per_cell: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        for r in rows.iter().filter(|r| in_finding(r)) {
            if let Some(v) = r.metrics.get(&n.metric) {
                per_cell.entry(r.cell_id.as_str()).or_default().push(*v);
            }
        }
        let means: Vec<(&str, f64)> = per_cell
            .iter()
            .map(|(c, v)| (*c, v.iter().sum::<f64>() / v.len() as f64))
            .collect();
        let fails =
            |m: f64| n.at_least.is_some_and(|lo| m < lo) || n.at_most.is_some_and(|hi| m > hi);
        // Cells grouped by point: every label but the series axis.
        let point_of = |cell: &str| -> String {
            let Some(r) = rows.iter().find(|r| r.cell_id == cell) else {
                return cell.to_string();
            };
            r.cell
                .iter()
                .filter(|(k, _)| Some(*k) != f.series_axis.as_ref())
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(",")
        };
        let mut points: BTreeMap<String, Vec<f64>> = BTreeMap::new();
        for (c, m) in &means {
            points.entry(point_of(c)).or_default().push(*m);
        }
        let unmet: Vec<&Vec<f64>> = points
            .values()
            .filter(|ms| ms.iter().all(|m| fails(*m)))
            .collect();
        if unmet.is_empty() {
            continue;
        }
        let bad: Vec<f64> = unmet.iter().flat_map(|ms| ms.iter().copied()).collect();
        let want = match (n.at_least, n.at_most) {
            (Some(lo), Some(hi)) => format!("between {} and {}", plain(lo), plain(hi)),
            (Some(lo), None) => format!("at least {}", plain(lo)),
            (None, Some(hi)) => format!("at most {}", plain(hi)),
            (None, None) => continue,
        };
        let (lo, hi) = bad
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), m| {
                (a.min(*m), b.max(*m))
            });
        let measured = if lo == hi {
            plain(lo)
        } else {
            format!("{} to {}", plain(lo), plain(hi))
        };
        return Some(format!(
            "needs {} {want} ({}); this run gave {measured} at {} of its {} points",
            n.metric,
            n.because,
            unmet.len(),
            points.len()
        ));
    }
    None
}

/// Whether a row is of a cell the finding compares on `engine` (its step,
/// its `where`, a point of `xs` along its axis, one of its series).
fn in_finding(r: &ResultRow, f: &Finding, engine: &str, xs: &[String]) -> bool {
    r.engine == engine
        && r.step == f.step
        && f.where_.iter().all(|(k, v)| r.cell.get(k) == Some(v))
        && f.along
            .as_ref()
            .is_none_or(|al| r.cell.get(al).is_some_and(|l| xs.contains(l)))
        && match &f.series_axis {
            Some(sa) if !f.series.is_empty() => {
                r.cell.get(sa).is_some_and(|l| f.series.contains(l))
            }
            _ => true,
        }
}

/// The ids of the cells a finding compares on `engine`, from the rows
/// that ran them: where more repeats would bear on it.
pub(crate) fn cells_of(
    plan: &Plan,
    rows: &[ResultRow],
    f: &Finding,
    engine: &str,
) -> std::collections::BTreeSet<String> {
    let xs = points(plan, f);
    rows.iter()
        .filter(|r| in_finding(r, f, engine, &xs))
        .map(|r| r.cell_id.clone())
        .collect()
}

/// A whole number as one (`3`), anything else as the tables write it.
fn plain(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        fmt_num(v)
    }
}

/// The flags `engine` lacks that made the runner skip cells matching
/// `fixed` (`--enable_blob_files`), or `None` when none was skipped.
fn skipped_flags(
    rows: &[ResultRow],
    engine: &str,
    fixed: &BTreeMap<String, String>,
) -> Option<String> {
    let mut flags: Vec<String> = rows
        .iter()
        .filter(|r| r.engine == engine && crate::data::skipped::is_skipped(r))
        .filter(|r| fixed.iter().all(|(k, v)| r.cell.get(k) == Some(v)))
        .map(|r| crate::data::skipped::skipped_flag(r.error.as_deref().unwrap_or("")).0)
        .filter(|f| !f.is_empty())
        .collect();
    flags.sort();
    flags.dedup();
    (!flags.is_empty()).then(|| flags.join(", "))
}

/// Judges a finding at one facet (`fixed`: every axis but `along` and the series axis).
fn judge_at(
    plan: &Plan,
    rows: &[ResultRow],
    f: &Finding,
    engine: &str,
    fixed: &BTreeMap<String, String>,
    xs: &[String],
) -> Judgement {
    let cell_at = |x: &String, series: Option<&str>| {
        let mut fx = fixed.clone();
        if let Some(al) = &f.along {
            fx.insert(al.clone(), x.clone());
        }
        if let (Some(sa), Some(l)) = (&f.series_axis, series) {
            fx.insert(sa.clone(), l.to_string());
        }
        fx
    };
    let sample = |series: Option<&str>| -> Vec<Vec<f64>> {
        xs.iter()
            .map(|x| values(rows, engine, &f.step, &cell_at(x, series), &f.metric))
            .collect()
    };
    let repeats = |series: Option<&str>| -> Vec<Vec<u32>> {
        xs.iter()
            .map(|x| value_repeats(rows, engine, &f.step, &cell_at(x, series), &f.metric))
            .collect()
    };
    let shown: Vec<String> = match &f.along {
        Some(al) => xs
            .iter()
            .map(|x| {
                plan.axis(al)
                    .map(|a| a.display(x))
                    .unwrap_or_else(|| x.clone())
            })
            .collect(),
        None => vec![if fixed.is_empty() {
            "the one point".to_string()
        } else {
            describe(plan, fixed)
        }],
    };
    let tag = |l: &str| match &f.series_axis {
        Some(sa) => plan
            .axis(sa)
            .map(|a| a.tag(l))
            .unwrap_or_else(|| l.to_string()),
        None => l.to_string(),
    };
    let e = f.min_effect.unwrap_or(DEFAULT_MIN_EFFECT);
    let pos = |l: &str| xs.iter().position(|x| x == l);
    // The points an `argmax` claim expects the best at.
    let expected_points = || -> Vec<usize> {
        if f.expected.iter().any(|x| x == "interior") {
            (1..xs.len().saturating_sub(1)).collect()
        } else {
            f.expected.iter().filter_map(|l| pos(l)).collect()
        }
    };
    let mut j = match f.kind {
        FindingKind::Crossover
        | FindingKind::Ordering
        | FindingKind::Ratio
        | FindingKind::Parity => {
            let (la, lb) = (tag(&f.series[0]), tag(&f.series[1]));
            let a = sample(Some(&f.series[0]));
            let b = sample(Some(&f.series[1]));
            let (ra, rb) = (repeats(Some(&f.series[0])), repeats(Some(&f.series[1])));
            let p = kinds::Pair {
                xs: &shown,
                la: &la,
                lb: &lb,
                a: &a,
                b: &b,
                repeats: Some((&ra, &rb)),
                min_effect: e,
            };
            match f.kind {
                FindingKind::Crossover => {
                    let window = match f.between.as_slice() {
                        [w0, w1] => Some((pos(w0).unwrap_or(0), pos(w1).unwrap_or(xs.len() - 1))),
                        _ => None,
                    };
                    kinds::crossover(&p, window)
                }
                FindingKind::Ordering => kinds::ordering(&p),
                FindingKind::Ratio => kinds::ratio(&p, (f.range[0], f.range[1])),
                _ => kinds::parity(&p),
            }
        }
        FindingKind::Monotonic => {
            let up = f.direction.as_deref() == Some("increasing");
            if f.series.len() == 2 {
                let a = sample(Some(&f.series[0]));
                let b = sample(Some(&f.series[1]));
                let what = format!("{} {}/{}", f.metric, tag(&f.series[1]), tag(&f.series[0]));
                kinds::monotonic(&shown, &what, Some(&a), &b, up, e)
            } else {
                kinds::monotonic(&shown, &f.metric, None, &sample(None), up, e)
            }
        }
        FindingKind::Argmax => {
            let expected = expected_points();
            kinds::argmax(&kinds::Best {
                xs: &shown,
                what: &f.metric,
                y: &sample(None),
                expected: &expected,
                maximize: !f.minimize,
                min_effect: e,
            })
        }
        FindingKind::Bound => kinds::bound(&shown, &f.metric, &sample(None), f.max, f.min),
    };
    if matches!(j.verdict, Verdict::Inconclusive | Verdict::DirectionOnly) {
        let series: Vec<Option<&str>> = if f.series.is_empty() {
            vec![None]
        } else {
            f.series.iter().map(|s| Some(s.as_str())).collect()
        };
        let fewest = series
            .iter()
            .flat_map(|s| sample(*s))
            .map(|v| v.len())
            .filter(|n| *n > 0)
            .min();
        let enough = fewest.is_some_and(|n| n >= MIN_REPEATS);
        let pair = f.series.len() == 2;
        let needed = match f.kind {
            _ if !enough => None,
            FindingKind::Crossover | FindingKind::Ordering | FindingKind::Parity if pair => {
                power::pair_repeats_needed(
                    &sample(Some(&f.series[0])),
                    &sample(Some(&f.series[1])),
                    e,
                )
            }
            FindingKind::Ratio if pair && f.range.len() == 2 => power::ratio_repeats_needed(
                &sample(Some(&f.series[0])),
                &sample(Some(&f.series[1])),
                (f.range[0], f.range[1]),
            ),
            FindingKind::Monotonic if pair => power::trend_repeats_needed(
                Some(&sample(Some(&f.series[0]))),
                &sample(Some(&f.series[1])),
                e,
            ),
            FindingKind::Monotonic => power::trend_repeats_needed(None, &sample(None), e),
            FindingKind::Argmax => {
                power::best_repeats_needed(&sample(None), &expected_points(), !f.minimize, e)
            }
            FindingKind::Bound => power::bound_repeats_needed(&sample(None), f.max, f.min),
            _ => None,
        };
        if let Some(k) = needed {
            j.text = format!("{}; {}", j.text.trim_end_matches('.'), power::needs_text(k));
        }
        if let Some(n) = fewest.filter(|n| *n < MIN_REPEATS) {
            j.text = format!(
                "{} (a cell has {n} repeat{}: no verdict is decided from fewer than {MIN_REPEATS})",
                j.text.trim_end_matches('.'),
                if n == 1 { "" } else { "s" }
            );
        }
    }
    if j.verdict == Verdict::NoData {
        j.text = match crate::judge::guards::na_reason(rows, engine, &f.step, fixed, &f.metric) {
            Some(why) => format!("{} is n/a here: {why}", f.metric),
            None => match skipped_flags(rows, engine, fixed) {
                Some(flags) => format!(
                    "{engine} did not run these cells: it lacks {flags} (see \"Skipped cells\")"
                ),
                None if rows
                    .iter()
                    .any(|r| r.ok && r.engine == engine && r.step == f.step) =>
                {
                    format!("{engine}'s runs do not report {}", f.metric)
                }
                None => format!("no successful runs measured {}", f.metric),
            },
        };
    }
    j
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::results::{sample_row, ResultRow};
    use crate::spec::parse;

    const SPEC: &str = include_str!("../../testdata/studies/unit-findings.toml");

    /// Rows with `ops_sec` = f(x, series, z) x (1 + jitter) per repeat.
    fn rows(f: impl Fn(f64, &str, &str) -> f64, jitter: &[f64]) -> Vec<ResultRow> {
        let mut out = Vec::new();
        for x in ["1", "2", "3"] {
            for s in ["a", "b"] {
                for z in ["10", "20"] {
                    for (i, j) in jitter.iter().enumerate() {
                        let mut r = sample_row();
                        r.step = "fillrandom".into();
                        r.repeat = i as u32;
                        r.cell = [("x", x), ("s", s), ("z", z)]
                            .into_iter()
                            .map(|(k, v)| (k.to_string(), v.to_string()))
                            .collect();
                        r.cell_id = format!("x={x},s={s},z={z}");
                        r.metrics.insert(
                            "ops_sec".into(),
                            f(x.parse().unwrap_or(0.0), s, z) * (1.0 + j),
                        );
                        out.push(r);
                    }
                }
            }
        }
        out
    }

    fn finding(kind: &str, extra: &str) -> Finding {
        let text = format!("{SPEC}[[finding]]\nid = \"f\"\nclaim = \"c\"\npublished = \"p\"\nkind = \"{kind}\"\nmetric = \"ops_sec\"\nstep = \"fillrandom\"\n{extra}\n");
        let l = parse(&text, std::path::Path::new("t.toml")).unwrap_or_else(|e| panic!("{e}"));
        l.spec.findings[0].get_ref().clone()
    }

    fn judged(f: &Finding, rows: &[ResultRow]) -> Judgement {
        let plan = crate::testutil::plan(SPEC, "quick");
        judge(&plan, rows, f, "rocksdb")
    }

    const J3: &[f64] = &[0.0, 0.01, -0.01];

    #[test]
    fn pair_findings_both_ways() {
        let f = finding(
            "ordering",
            "along = \"x\"\nseries_axis = \"s\"\nseries = [\"a\", \"b\"]",
        );
        let r = rows(|_, s, _| if s == "a" { 200.0 } else { 100.0 }, J3);
        assert_eq!(judged(&f, &r).verdict, Verdict::Reproduced);
        let r = rows(|_, s, _| if s == "a" { 100.0 } else { 200.0 }, J3);
        assert_eq!(judged(&f, &r).verdict, Verdict::Reversed);
        // a is ahead by 1% with 30% noise: inconclusive, never a verdict.
        let r = rows(
            |_, s, _| if s == "a" { 101.0 } else { 100.0 },
            &[-0.3, 0.0, 0.3],
        );
        assert_eq!(judged(&f, &r).verdict, Verdict::Inconclusive);
    }

    #[test]
    fn a_finding_holds_across_unfixed_axes() {
        let f = finding(
            "ordering",
            "along = \"x\"\nseries_axis = \"s\"\nseries = [\"a\", \"b\"]",
        );
        // a above b only at z = 10: not across z.
        let r = rows(
            |_, s, z| if s == "a" && z == "10" { 200.0 } else { 100.0 },
            J3,
        );
        let j = judged(&f, &r);
        assert_eq!(j.verdict, Verdict::NotReproduced, "{}", j.text);
        assert!(
            j.text
                .starts_with("judged at each of 2 facets. [z=10] reproduced:"),
            "{}",
            j.text
        );
        // Fixed to z = 10 it holds.
        let f = finding(
            "ordering",
            "along = \"x\"\nseries_axis = \"s\"\nseries = [\"a\", \"b\"]\nwhere = { z = \"10\" }",
        );
        assert_eq!(judged(&f, &r).verdict, Verdict::Reproduced);
    }

    #[test]
    fn one_point_ratio_monotonic_argmax() {
        let r = rows(|x, s, _| if s == "a" { 100.0 * x } else { 50.0 * x }, J3);
        let f = finding(
            "ratio",
            "series_axis = \"s\"\nseries = [\"a\", \"b\"]\nwhere = { x = \"2\", z = \"10\" }\nrange = [0.4, 0.6]",
        );
        let j = judged(&f, &r);
        assert_eq!(j.verdict, Verdict::Reproduced, "{}", j.text);
        assert!(j.text.contains("(one point)"), "{}", j.text);
        let f = finding(
            "monotonic",
            "along = \"x\"\ndirection = \"increasing\"\nwhere = { s = \"a\", z = \"20\" }",
        );
        assert_eq!(judged(&f, &r).verdict, Verdict::Reproduced);
        let f = finding(
            "argmax",
            "along = \"x\"\nexpected = [\"3\"]\nwhere = { s = \"b\", z = \"20\" }",
        );
        assert_eq!(judged(&f, &r).verdict, Verdict::Reproduced);
        let f = finding(
            "argmax",
            "along = \"x\"\nexpected = [\"interior\"]\nwhere = { s = \"b\", z = \"20\" }",
        );
        assert_eq!(judged(&f, &r).verdict, Verdict::NotReproduced);
        assert_eq!(judged(&f, &[]).verdict, Verdict::NoData);
    }

    #[test]
    fn a_metric_the_engine_does_not_report_says_so() {
        let r = rows(|_, _, _| 100.0, J3);
        let mut f = finding("argmax", "along = \"x\"\nexpected = [\"2\"]");
        f.metric = "flush_micros_per_flush".into();
        let j = judged(&f, &r);
        assert_eq!(j.verdict, Verdict::NoData);
        assert_eq!(
            j.text,
            "alike at each of 4 facets: rocksdb's runs do not report flush_micros_per_flush"
        );
        assert!(judged(&f, &[])
            .text
            .ends_with(": no successful runs measured flush_micros_per_flush"));
        assert_eq!(
            no_data_in("rocksdb", &j.text).as_deref(),
            Some("its runs do not report flush_micros_per_flush")
        );
        assert_eq!(
            no_data_in("rocksdb", &judged(&f, &[]).text).as_deref(),
            Some("no successful runs measured flush_micros_per_flush")
        );
    }

    #[test]
    fn no_data_reasons_read_back_without_the_engine() {
        let skipped = "published blob/inline 0.918 \u{b7} measured n/a; leveldb did not run \
                       these cells: it lacks `--enable_blob_files` (see \"Skipped cells\")";
        assert_eq!(
            no_data_in("leveldb", skipped).as_deref(),
            Some("it lacks `--enable_blob_files`")
        );
        assert_eq!(
            no_data_in("strata", "w_amp is n/a here: too few bytes written").as_deref(),
            Some("w_amp is n/a here: too few bytes written")
        );
        assert_eq!(
            no_data_in("strata", "x; w_amp is n/a here: a; b").as_deref(),
            Some("w_amp is n/a here: a; b")
        );
        assert_eq!(no_data_in("strata", "within 25% at every point"), None);
    }

    #[test]
    fn at_restricts_the_points() {
        // b/a falls from x=2 to x=3 only.
        let r = rows(
            |x, s, _| {
                if s == "a" {
                    100.0
                } else if x < 3.0 {
                    200.0
                } else {
                    150.0
                }
            },
            J3,
        );
        let f = finding(
            "monotonic",
            "along = \"x\"\nat = [\"2\", \"3\"]\nseries_axis = \"s\"\nseries = [\"a\", \"b\"]\ndirection = \"decreasing\"",
        );
        let j = judged(&f, &r);
        assert_eq!(j.verdict, Verdict::Reproduced, "{}", j.text);
    }

    #[test]
    fn a_claim_the_run_cannot_exercise_is_not_testable_not_failed() {
        // b at half a: a ratio of 0.5, but the tree never reached L3.
        let mut r = rows(|_, s, _| if s == "a" { 100.0 } else { 50.0 }, J3);
        for row in &mut r {
            let deep = if row.cell.get("x").map(String::as_str) == Some("3") {
                3.0
            } else {
                2.0
            };
            row.metrics.insert("deepest_level_end".into(), deep);
        }
        let need = "needs = [{ metric = \"deepest_level_end\", at_least = 3, because = \"the multiplier acts from L3\" }]";
        let f = finding(
            "ratio",
            &format!("along = \"x\"\nseries_axis = \"s\"\nseries = [\"a\", \"b\"]\nrange = [0.4, 0.6]\n{need}"),
        );
        let j = judged(&f, &r);
        assert_eq!(j.verdict, Verdict::NotTestable, "{}", j.text);
        assert_eq!(
            j.text,
            "needs deepest_level_end at least 3 (the multiplier acts from L3); this run gave 2 at 4 of its 6 points"
        );
        // Where every cell meets it, the claim is judged as usual.
        let f = finding(
            "ratio",
            &format!("along = \"x\"\nat = [\"3\"]\nseries_axis = \"s\"\nseries = [\"a\", \"b\"]\nrange = [0.4, 0.6]\n{need}"),
        );
        assert_eq!(judged(&f, &r).verdict, Verdict::Reproduced);
        // One series reaching L3 at every point (a smaller multiplier that
        // deepens the tree): the parameter acts, the claim is judged.
        let mut deeper = r.clone();
        for row in &mut deeper {
            if row.cell.get("s").map(String::as_str) == Some("b") {
                row.metrics.insert("deepest_level_end".into(), 3.0);
            }
        }
        let f = finding(
            "ratio",
            &format!("along = \"x\"\nseries_axis = \"s\"\nseries = [\"a\", \"b\"]\nrange = [0.4, 0.6]\n{need}"),
        );
        assert_eq!(judged(&f, &deeper).verdict, Verdict::Reproduced);
        // A metric no run reports cannot be checked: judged as usual.
        let f = finding(
            "ratio",
            "along = \"x\"\nseries_axis = \"s\"\nseries = [\"a\", \"b\"]\nrange = [0.4, 0.6]\nneeds = [{ metric = \"nothing\", at_least = 1, because = \"-\" }]",
        );
        assert_eq!(judged(&f, &r).verdict, Verdict::Reproduced);
    }

    #[test]
    fn crossover_index() {
        let rep = |m: f64| vec![m * 0.99, m, m * 1.01];
        let a = vec![rep(10.0), rep(10.0), rep(10.0)];
        let b = vec![rep(5.0), rep(9.0), rep(20.0)];
        assert_eq!(crossover(&a, &b), Some(2));
        assert_eq!(crossover(&b, &a), None);
        // 10% above at the last point by the means, but inside the noise:
        // no marker (a means-only rule drew one).
        let wide = |m: f64| vec![m * 0.6, m, m * 1.4];
        let c = vec![wide(9.0), wide(9.5), wide(11.0)];
        assert_eq!(crossover(&a, &c), None);
        // A gap at a point is skipped.
        let g = vec![rep(5.0), Vec::new(), rep(20.0)];
        assert_eq!(crossover(&a, &g), Some(2));
    }
}
