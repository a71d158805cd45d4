//! Grouping result rows into series of summarised points.

use std::collections::BTreeMap;

use crate::data::results::ResultRow;
use crate::data::stats::{summarize, Summary};
use crate::spec::model::Plan;

/// One point of a series: x label and the summary over repeats.
#[derive(Clone, Debug)]
pub(crate) struct Point {
    /// X label (axis value).
    pub x: String,
    /// Summary of the metric over successful repeats.
    pub s: Option<Summary>,
}

/// Values of `metric` over successful rows matching engine, step and all `fixed` labels.
pub(crate) fn values(
    rows: &[ResultRow],
    engine: &str,
    step: &str,
    fixed: &BTreeMap<String, String>,
    metric: &str,
) -> Vec<f64> {
    matching(rows, engine, step, fixed)
        .filter_map(|r| r.metrics.get(metric).copied())
        .collect()
}

/// The successful rows of `engine` at `step` whose cell has every `fixed` label.
fn matching<'a>(
    rows: &'a [ResultRow],
    engine: &'a str,
    step: &'a str,
    fixed: &'a BTreeMap<String, String>,
) -> impl Iterator<Item = &'a ResultRow> + 'a {
    rows.iter()
        .filter(move |r| r.ok && r.engine == engine && r.step == step)
        .filter(move |r| fixed.iter().all(|(k, v)| r.cell.get(k) == Some(v)))
}

/// The repeat of each value [`values`] returns, in the same order.
pub(crate) fn value_repeats(
    rows: &[ResultRow],
    engine: &str,
    step: &str,
    fixed: &BTreeMap<String, String>,
    metric: &str,
) -> Vec<u32> {
    matching(rows, engine, step, fixed)
        .filter(|r| r.metrics.contains_key(metric))
        .map(|r| r.repeat)
        .collect()
}

/// Points of `metric` along axis `x` (in sweep order) with other axes fixed.
pub(crate) fn series(
    plan: &Plan,
    rows: &[ResultRow],
    engine: &str,
    step: &str,
    x: &str,
    fixed: &BTreeMap<String, String>,
    metric: &str,
) -> Vec<Point> {
    let Some(ax) = plan.axis(x) else {
        return Vec::new();
    };
    ax.values
        .iter()
        .map(|v| {
            let mut f = fixed.clone();
            f.insert(x.to_string(), v.label.clone());
            Point {
                x: v.label.clone(),
                s: summarize(&values(rows, engine, step, &f, metric)),
            }
        })
        .collect()
}

/// Engines present (with at least one successful row), in plan order.
pub(crate) fn engines(plan: &Plan, rows: &[ResultRow]) -> Vec<String> {
    plan.engines
        .iter()
        .filter(|e| rows.iter().any(|r| r.ok && &r.engine == *e))
        .cloned()
        .collect()
}

/// Engine versions seen, per engine.
pub(crate) fn versions(rows: &[ResultRow]) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for r in rows.iter().filter(|r| r.ok) {
        m.entry(r.engine.clone())
            .or_insert_with(|| r.engine_version.clone());
    }
    m
}
