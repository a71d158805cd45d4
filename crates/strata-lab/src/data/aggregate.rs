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
    rows.iter()
        .filter(|r| r.ok && r.engine == engine && r.step == step)
        .filter(|r| fixed.iter().all(|(k, v)| r.cell.get(k) == Some(v)))
        .filter_map(|r| r.metrics.get(metric).copied())
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

/// Formats a number with sensible precision and thousands separators.
pub(crate) fn fmt_num(v: f64) -> String {
    if !v.is_finite() {
        return "n/a".into();
    }
    let a = v.abs();
    if a >= 1000.0 {
        let s = format!("{:.0}", v.abs());
        let mut out = String::new();
        for (i, c) in s.chars().enumerate() {
            if i > 0 && (s.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        if v < 0.0 {
            format!("-{out}")
        } else {
            out
        }
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else if a == 0.0 {
        "0".into()
    } else {
        format!("{v:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_numbers() {
        assert_eq!(fmt_num(1234567.4), "1,234,567");
        assert_eq!(fmt_num(12.345), "12.35");
        assert_eq!(fmt_num(0.01234), "0.012");
        assert_eq!(fmt_num(-2500.0), "-2,500");
    }
}
