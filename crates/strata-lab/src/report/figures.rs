//! The study's charts: one image per `[[chart]]`, a panel per facet, drawn
//! from the rows' means and ranges, with crossover markers.

use crate::data::aggregate::{engines, series, values};
use crate::data::results::ResultRow;
use crate::judge::facet::{facet_title, facets, used_axes};
use crate::judge::findings::crossover;
use crate::judge::statements::tag;
use crate::report::chart::{render_panels, ChartData, Line};
use crate::report::gaps::gap_label;
use crate::spec::model::Plan;
use crate::spec::study::Chart;
use std::collections::BTreeMap;
use std::path::Path;

/// A drawn chart: id, title, line names and its panels (one per facet; a
/// single panel, titled with the chart's title, when it has no facets).
pub(crate) type DrawnChart = (String, String, Vec<String>, Vec<ChartData>);

/// Draws the study's charts; returns (id, title, line names, panels) of each.
/// An axis that is neither a chart's `x` nor its `series` makes facets:
/// one panel per combination of their values, in one image.
pub(crate) fn draw_charts(
    plan: &Plan,
    rows: &[ResultRow],
    sdir: &Path,
) -> anyhow::Result<Vec<DrawnChart>> {
    let cdir = sdir.join("charts");
    std::fs::create_dir_all(&cdir)?;
    let mut out = Vec::new();
    for c in plan.loaded.spec.charts.iter().map(|c| c.get_ref()) {
        if plan.axis(&c.x).is_none() {
            continue;
        }
        let fs = facets(plan, &used_axes(&c.x, c.series.as_deref()));
        let panels: Vec<ChartData> = fs
            .iter()
            .map(|f| {
                let mut data = if c.x_metric.is_some() {
                    crate::report::tradeoff::chart_data(plan, rows, c, f)
                } else {
                    panel(plan, rows, c, f)
                };
                if !f.is_empty() {
                    data.title = facet_title(plan, f);
                }
                data
            })
            .collect();
        render_panels(&c.title, &panels, &cdir.join(&c.id))?;
        let names = panels
            .first()
            .map(|p| p.lines.iter().map(|l| l.name.clone()).collect())
            .unwrap_or_default();
        out.push((c.id.clone(), c.title.clone(), names, panels));
    }
    Ok(out)
}

/// One panel of chart `c` (along an axis, not a trade-off chart): its
/// lines with the axes other than `x` and `series` fixed to `facet`, and
/// why each missing value is missing.
fn panel(
    plan: &Plan,
    rows: &[ResultRow],
    c: &Chart,
    facet: &BTreeMap<String, String>,
) -> ChartData {
    let engs = engines(plan, rows);
    let xa = plan.axis(&c.x);
    let ordered = xa.is_some_and(|a| a.ordered);
    let labels: Vec<String> = match c.series.as_deref().and_then(|s| plan.axis(s)) {
        Some(a) => a.values.iter().map(|v| v.label.clone()).collect(),
        None => vec![String::new()],
    };
    let mut lines = Vec::new();
    let mut markers = Vec::new();
    for e in &engs {
        // The repeats at each point of the first two lines, for the marker.
        let mut first_two: Vec<Vec<Vec<f64>>> = Vec::new();
        for lab in &labels {
            for m in &c.metrics {
                let mut fixed = facet.clone();
                if let Some(s) = &c.series {
                    fixed.insert(s.clone(), lab.clone());
                }
                let pts = series(plan, rows, e, &c.step, &c.x, &fixed, m);
                let gaps = pts
                    .iter()
                    .map(|p| {
                        p.s.is_none().then(|| {
                            let mut at = fixed.clone();
                            at.insert(c.x.clone(), p.x.clone());
                            gap_label(rows, e, &c.step, &at, m)
                        })
                    })
                    .collect();
                let mut p: Vec<Option<(f64, f64, f64)>> = pts
                    .iter()
                    .map(|p| p.s.map(|s| (s.mean, s.min, s.max)))
                    .collect();
                if c.relative {
                    let max = p.iter().flatten().map(|x| x.0).fold(0.0, f64::max);
                    if max > 0.0 {
                        p = p
                            .into_iter()
                            .map(|q| {
                                q.map(|(a, b, d)| {
                                    (a / max * 100.0, b / max * 100.0, d / max * 100.0)
                                })
                            })
                            .collect();
                    }
                }
                if first_two.len() < 2 && m == &c.metrics[0] {
                    first_two.push(
                        pts.iter()
                            .map(|q| {
                                let mut at = fixed.clone();
                                at.insert(c.x.clone(), q.x.clone());
                                values(rows, e, &c.step, &at, m)
                            })
                            .collect(),
                    );
                }
                let mut name = vec![e.clone()];
                if !lab.is_empty() {
                    name.push(tag(plan, c.series.as_deref(), lab));
                }
                if c.metrics.len() > 1 {
                    name.push(m.clone());
                }
                lines.push(Line {
                    name: name.join(" "),
                    points: p,
                    xs: Vec::new(),
                    gaps,
                });
            }
        }
        // Validation refuses `mark_crossover` along an unordered axis;
        // the check here keeps a marker off such a chart regardless.
        if c.mark_crossover && ordered && first_two.len() == 2 {
            if let Some(i) = crossover(&first_two[0], &first_two[1]) {
                markers.push((
                    i as f64 - 0.5,
                    format!("{e}: {} > {}", labels[1], labels[0]),
                ));
            }
        }
    }
    let y_desc = if c.relative {
        format!("{} (% of max)", c.metrics.join(", "))
    } else {
        c.metrics.join(", ")
    };
    ChartData {
        title: c.title.clone(),
        x_desc: c.x.clone(),
        y_desc: if c.log_y {
            format!("{y_desc} (log)")
        } else {
            y_desc
        },
        x_labels: xa
            .map(|a| a.values.iter().map(|v| a.display(&v.label)).collect())
            .unwrap_or_default(),
        lines,
        log_y: c.log_y,
        markers,
        bars: !ordered,
        xy: false,
    }
}
