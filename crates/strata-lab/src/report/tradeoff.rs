//! A trade-off chart (`[[chart]]` with `x_metric`) in the report: its
//! curves drawn as an x-y chart, and the tables comparing engines at equal
//! x on their frontiers ([`crate::judge::tradeoff`]).

use std::collections::BTreeMap;

use crate::data::aggregate::engines;
use crate::data::format::fmt_num;
use crate::data::metrics::higher_is_better;
use crate::data::results::ResultRow;
use crate::judge::facet::{facet_prefix, facets, used_axes};
use crate::judge::statements::tag;
use crate::judge::tradeoff::{at_equal_x, curves, AtEqualX};
use crate::report::chart::{ChartData, Line, NO_DATA};
use crate::report::doc::Block;
use crate::report::gaps::gap_label;
use crate::spec::model::Plan;
use crate::spec::study::Chart;

/// The chart to draw for trade-off chart `c` in one facet: one line per
/// curve, each point at (mean x, mean y) with min-max bars both ways,
/// labelled with its `x` axis value; a missing point's reason goes to the
/// chart's notes.
pub(crate) fn chart_data(
    plan: &Plan,
    rows: &[ResultRow],
    c: &Chart,
    facet: &BTreeMap<String, String>,
) -> ChartData {
    let xa = plan.axis(&c.x);
    let labels: Vec<String> = xa
        .map(|a| a.values.iter().map(|v| a.display(&v.label)).collect())
        .unwrap_or_default();
    let order: Vec<String> = xa
        .map(|a| a.values.iter().map(|v| v.label.clone()).collect())
        .unwrap_or_default();
    let lines = curves(plan, rows, c, facet)
        .into_iter()
        .map(|cv| {
            let at = |l: &str| cv.points.iter().find(|p| p.label == l);
            let mut name = vec![cv.engine.clone()];
            if !cv.series.is_empty() {
                name.push(tag(plan, c.series.as_deref(), &cv.series));
            }
            // Why a point is missing: its metric's reason, else its x
            // metric's.
            let gap = |l: &str| {
                let mut at = facet.clone();
                if let Some(sa) = &c.series {
                    at.insert(sa.clone(), cv.series.clone());
                }
                at.insert(c.x.clone(), l.to_string());
                let metrics = c.metrics.iter().take(1).chain(c.x_metric.iter());
                let labels: Vec<String> = metrics
                    .map(|m| gap_label(rows, &cv.engine, &c.step, &at, m))
                    .collect();
                labels
                    .iter()
                    .find(|g| g.as_str() != NO_DATA)
                    .or(labels.first())
                    .cloned()
            };
            Line {
                name: name.join(" "),
                gaps: order
                    .iter()
                    .map(|l| if at(l).is_some() { None } else { gap(l) })
                    .collect(),
                points: order
                    .iter()
                    .map(|l| at(l).map(|p| (p.y.mean, p.y.min, p.y.max)))
                    .collect(),
                xs: order
                    .iter()
                    .map(|l| at(l).map(|p| (p.x.mean, p.x.min, p.x.max)))
                    .collect(),
            }
        })
        .collect();
    let y = c.metrics.first().cloned().unwrap_or_default();
    ChartData {
        title: c.title.clone(),
        x_desc: format!(
            "{} (points labelled by {})",
            c.x_metric.clone().unwrap_or_default(),
            c.x
        ),
        y_desc: if c.log_y { format!("{y} (log)") } else { y },
        x_labels: labels,
        lines,
        log_y: c.log_y,
        markers: Vec::new(),
        bars: false,
        xy: true,
    }
}

/// The report blocks under trade-off chart `c`: per facet (see
/// [`crate::judge::facet::facets`]; each paragraph then starts with the facet's
/// values), the plan's first engine against each other engine present, on
/// their frontiers: every point of each engine with the other's y at equal
/// x, the ratio first / other, and the geometric mean of the ratios.
pub(crate) fn blocks(plan: &Plan, rows: &[ResultRow], c: &Chart) -> Vec<Block> {
    let mut out = Vec::new();
    for f in facets(plan, &used_axes(&c.x, c.series.as_deref())) {
        let pre = facet_prefix(plan, &f);
        out.extend(
            facet_blocks(plan, rows, c, &f)
                .into_iter()
                .map(|b| match b {
                    Block::P(t) => Block::P(format!("{pre}{t}")),
                    other => other,
                }),
        );
    }
    out
}

/// [`blocks`] in one facet.
fn facet_blocks(
    plan: &Plan,
    rows: &[ResultRow],
    c: &Chart,
    facet: &BTreeMap<String, String>,
) -> Vec<Block> {
    let (Some(xm), Some(ym)) = (c.x_metric.as_deref(), c.metrics.first()) else {
        return Vec::new();
    };
    let (xh, yh) = (higher_is_better(xm), higher_is_better(ym));
    let cv = curves(plan, rows, c, facet);
    let engs = engines(plan, rows);
    let Some(first) = engs.first() else {
        return Vec::new();
    };
    let show = |l: &str| {
        plan.axis(&c.x)
            .map(|a| a.tag(l))
            .unwrap_or_else(|| l.to_string())
    };
    let list = |labels: &[String]| {
        labels
            .iter()
            .map(|l| show(l))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut out = Vec::new();
    for other in engs.iter().skip(1) {
        let mut cmp = at_equal_x(&cv, first, other, xh, yh);
        cmp.extend(at_equal_x(&cv, other, first, xh, yh));
        cmp.sort_by(|a, b| a.series.cmp(&b.series).then(a.x.total_cmp(&b.x)));
        let mut header = Vec::new();
        if let Some(s) = &c.series {
            header.push(s.clone());
        }
        header.extend([
            "point".to_string(),
            xm.to_string(),
            format!("{first} {ym}"),
            format!("{other} {ym}"),
            format!("{first} / {other}"),
        ]);
        let mut table = Vec::new();
        let mut ratios = Vec::new();
        for r in &cmp {
            let mut row = Vec::new();
            if c.series.is_some() {
                row.push(r.series.clone());
            }
            let mine = &r.engine == first;
            let (f, o) = if mine {
                (Some(r.y), r.other_y)
            } else {
                (r.other_y, Some(r.y))
            };
            let ratio = match (f, o) {
                (Some(f), Some(o)) if o > 0.0 => Some(f / o),
                _ => None,
            };
            if let Some(q) = ratio {
                ratios.push(q);
            }
            let read = |v: Option<f64>| match (v, &r.dominated_by) {
                (Some(v), _) => format!("{}*", fmt_num(v)),
                (None, Some(_)) => "-".into(),
                (None, None) => "outside its frontier".into(),
            };
            let (fs, os) = if mine {
                (fmt_num(r.y), read(r.other_y))
            } else {
                (read(r.other_y), fmt_num(r.y))
            };
            row.extend([
                format!("{} {}", r.engine, show(&r.label)),
                fmt_num(r.x),
                fs,
                os,
                match (&r.dominated_by, ratio) {
                    (Some(d), _) => format!("dominated by its own {}", show(d)),
                    (None, Some(q)) => format!("{q:.3}"),
                    (None, None) if !r.beaten_by.is_empty() => format!(
                        "dominated by {} {}",
                        r.other(first, other),
                        list(&r.beaten_by)
                    ),
                    (None, None) if !r.beats.is_empty() => {
                        format!("dominates {} {}", r.other(first, other), list(&r.beats))
                    }
                    (None, None) => "-".into(),
                },
            ]);
            table.push(row);
        }
        let better = if yh { "higher" } else { "lower" };
        out.push(Block::P(format!(
            "{first} against {other} at equal {xm}: each engine's points, with the other engine's {ym} at the same {xm} (marked *) read off its frontier, linearly between its points and not beyond them. The frontier leaves out a point its own curve dominates (another setting as good or better in both metrics). For {ym}, {better} is better."
        )));
        out.push(Block::Table(header, table));
        if !ratios.is_empty() {
            let g = (ratios.iter().map(|q| q.ln()).sum::<f64>() / ratios.len() as f64).exp();
            let good = ratios
                .iter()
                .filter(|q| if yh { **q >= 1.0 } else { **q <= 1.0 })
                .count();
            out.push(Block::P(format!(
                "Geometric mean of {first} / {other} at equal {xm}: {g:.3} over {} points; {first} as good or better at {good} of them.",
                ratios.len()
            )));
        } else {
            out.push(Block::P(format!(
                "The two engines' frontiers share no range of {xm}: no comparison at equal {xm}."
            )));
        }
        let beaten = |e: &str| {
            let pts: Vec<&AtEqualX> = cmp
                .iter()
                .filter(|r| r.engine == e && r.dominated_by.is_none())
                .collect();
            (
                pts.iter().filter(|r| !r.beaten_by.is_empty()).count(),
                pts.len(),
            )
        };
        let ((fb, fnum), (ob, on)) = (beaten(first), beaten(other));
        out.push(Block::P(format!(
            "Across engines: {ob} of {other}'s {on} frontier points are dominated by a {first} point (as good or better in both {xm} and {ym}); {fb} of {first}'s {fnum} by a {other} point."
        )));
    }
    out
}
