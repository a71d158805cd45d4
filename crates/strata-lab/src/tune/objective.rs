//! What one run scores: its objective on the model's scale (log of the
//! metric, signed so that higher is better) and whether it kept the
//! constraints. Pure functions of the run's result rows.

use crate::data::results::ResultRow;
use crate::tune::spec::{higher_better, TuneSpec};

fn higher_is_better(m: &str) -> bool {
    higher_better(m).unwrap_or(true)
}

/// One run's outcome.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Outcome {
    /// The objective on the model's scale (higher is better): `ln(metric)`,
    /// `-ln(metric)` for a lower-is-better metric, or the weighted mean of
    /// the metrics' log ratios to the baseline. `None` when the run failed
    /// or lacks a metric.
    pub value: Option<f64>,
    /// The objective as users read it: the metric itself, or the score's
    /// ratio to the baseline (`exp(value)`).
    pub shown: Option<f64>,
    /// The run kept every constraint (and did not fail).
    pub feasible: bool,
    /// Why it is infeasible, or which value was missing.
    pub why: Option<String>,
}

fn metric_of(rows: &[ResultRow], step: &str, metric: &str) -> Result<f64, String> {
    let row = rows
        .iter()
        .find(|r| r.step == step)
        .ok_or_else(|| format!("no `{step}` step"))?;
    if !row.ok {
        return Err(format!(
            "step `{step}` failed: {}",
            row.error.clone().unwrap_or_default()
        ));
    }
    row.metrics
        .get(metric)
        .copied()
        .filter(|v| v.is_finite())
        .ok_or_else(|| format!("step `{step}` has no `{metric}`"))
}

/// `ln(v)` signed by the metric's direction; `None` for v <= 0.
fn signed_log(metric: &str, v: f64) -> Option<f64> {
    (v > 0.0).then(|| {
        if higher_is_better(metric) {
            v.ln()
        } else {
            -v.ln()
        }
    })
}

/// Scores one run. `baseline` is the baseline's first run (needed by a
/// weighted objective; `None` before it ran).
pub(crate) fn evaluate(
    spec: &TuneSpec,
    rows: &[ResultRow],
    baseline: Option<&[ResultRow]>,
) -> Outcome {
    let o = spec.objective.get_ref();
    let failed = |why: String| Outcome {
        value: None,
        shown: None,
        feasible: false,
        why: Some(why),
    };
    let (value, shown) = if let Some(m) = &o.metric {
        let v = match metric_of(rows, &o.step, m) {
            Ok(v) => v,
            Err(e) => return failed(e),
        };
        match signed_log(m, v) {
            Some(l) => (l, v),
            None => return failed(format!("`{m}` is {v}: not positive")),
        }
    } else {
        let Some(base) = baseline else {
            return failed("no baseline run to score against".into());
        };
        let mut sum = 0.0;
        let mut wsum = 0.0;
        for (m, w) in &o.weights {
            let v = match metric_of(rows, &o.step, m) {
                Ok(v) => v,
                Err(e) => return failed(e),
            };
            let b = match metric_of(base, &o.step, m) {
                Ok(b) => b,
                Err(e) => return failed(format!("baseline: {e}")),
            };
            // A metric at zero in both (no stalls) is even; one at zero is
            // floored at a thousandth of the other.
            let (v, b) = match (v > 0.0, b > 0.0) {
                (true, true) => (v, b),
                (false, false) => (1.0, 1.0),
                (true, false) => (v, v * 1e-3),
                (false, true) => (b * 1e-3, b),
            };
            let r = (v / b).ln();
            sum += w * if higher_is_better(m) { r } else { -r };
            wsum += w;
        }
        let s = sum / wsum;
        (s, s.exp())
    };
    for c in &spec.constraints {
        let c = c.get_ref();
        let step = c.step.as_deref().unwrap_or(&o.step);
        let v = match metric_of(rows, step, &c.metric) {
            Ok(v) => v,
            Err(e) => {
                return Outcome {
                    value: Some(value),
                    shown: Some(shown),
                    feasible: false,
                    why: Some(format!("constraint on `{}`: {e}", c.metric)),
                }
            }
        };
        let broke = c.max.is_some_and(|m| v > m) || c.min.is_some_and(|m| v < m);
        if broke {
            let limit = match (c.min, c.max) {
                (Some(lo), Some(hi)) => format!("{lo}..{hi}"),
                (None, Some(hi)) => format!("<= {hi}"),
                (Some(lo), None) => format!(">= {lo}"),
                (None, None) => String::new(),
            };
            return Outcome {
                value: Some(value),
                shown: Some(shown),
                feasible: false,
                why: Some(format!("{} = {v:.4} (limit {limit})", c.metric)),
            };
        }
    }
    Outcome {
        value: Some(value),
        shown: Some(shown),
        feasible: true,
        why: None,
    }
}

/// How the objective reads in a report: the metric's name, or `score`.
pub(crate) fn label(spec: &TuneSpec) -> String {
    let o = spec.objective.get_ref();
    match &o.metric {
        Some(m) => format!("{m} of `{}`", o.step),
        None => format!(
            "score of `{}` (x baseline; weights {})",
            o.step,
            o.weights
                .iter()
                .map(|(m, w)| format!("{m} {w}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::results::sample_row;
    use crate::tune::spec::parse;
    use std::path::Path;

    fn rows(step: &str, kv: &[(&str, f64)]) -> Vec<ResultRow> {
        let mut r = sample_row();
        r.step = step.into();
        r.ok = true;
        r.metrics = kv.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        vec![r]
    }

    fn spec(objective: &str) -> TuneSpec {
        let t = crate::tune::spec::tests::TUNE.replacen(
            "step = \"run\"\nmetric = \"ops_sec\"",
            objective,
            1,
        );
        parse(&t, Path::new("t.toml")).unwrap().spec
    }

    #[test]
    fn a_metric_is_logged_and_signed_by_direction() {
        let s = spec("step = \"run\"\nmetric = \"ops_sec\"");
        let o = evaluate(
            &s,
            &rows("run", &[("ops_sec", 1000.0), ("max_rss_mb", 10.0)]),
            None,
        );
        assert!(o.feasible);
        assert!((o.value.unwrap() - 1000f64.ln()).abs() < 1e-12);
        assert_eq!(o.shown, Some(1000.0));
        let s = spec("step = \"run\"\nmetric = \"p99\"");
        let o = evaluate(
            &s,
            &rows("run", &[("p99", 20.0), ("max_rss_mb", 10.0)]),
            None,
        );
        assert!((o.value.unwrap() + 20f64.ln()).abs() < 1e-12);
    }

    #[test]
    fn constraints_and_failures_make_a_run_infeasible() {
        let s = spec("step = \"run\"\nmetric = \"ops_sec\"");
        let o = evaluate(
            &s,
            &rows("run", &[("ops_sec", 1000.0), ("max_rss_mb", 900.0)]),
            None,
        );
        assert!(!o.feasible && o.value.is_some());
        assert!(o.why.unwrap().contains("max_rss_mb"));
        let mut r = rows("run", &[("ops_sec", 1000.0)]);
        r[0].ok = false;
        r[0].error = Some("boom".into());
        let o = evaluate(&s, &r, None);
        assert!(!o.feasible && o.value.is_none() && o.why.unwrap().contains("boom"));
        let o = evaluate(&s, &rows("load", &[("ops_sec", 1.0)]), None);
        assert!(o.why.unwrap().contains("no `run` step"));
    }

    #[test]
    fn a_weighted_score_is_a_geometric_mean_of_ratios_to_the_baseline() {
        let s = spec("step = \"run\"\nweights = { ops_sec = 0.5, p99 = 0.5 }");
        let base = rows(
            "run",
            &[("ops_sec", 100.0), ("p99", 10.0), ("max_rss_mb", 1.0)],
        );
        // Twice the throughput at twice the P99: even.
        let r = rows(
            "run",
            &[("ops_sec", 200.0), ("p99", 20.0), ("max_rss_mb", 1.0)],
        );
        let o = evaluate(&s, &r, Some(&base));
        assert!(o.value.unwrap().abs() < 1e-12, "{o:?}");
        // Twice the throughput at the same P99: sqrt(2).
        let r = rows(
            "run",
            &[("ops_sec", 200.0), ("p99", 10.0), ("max_rss_mb", 1.0)],
        );
        let o = evaluate(&s, &r, Some(&base));
        assert!((o.shown.unwrap() - 2f64.sqrt()).abs() < 1e-12, "{o:?}");
        assert!(evaluate(&s, &r, None).why.unwrap().contains("baseline"));
    }
}
