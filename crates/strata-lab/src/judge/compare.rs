//! `lab compare`: the same study from two runs, flagging only changes that a
//! significance test on the repeats supports and that exceed a minimum delta.

use std::collections::BTreeSet;
use std::path::Path;

use crate::data::metrics::{self, View};
use crate::data::results::ResultRow;
use crate::data::stats::{mann_whitney_p, summarize, welch_p};

/// One compared (engine, cell, step, metric).
#[derive(Clone, Debug)]
pub(crate) struct Delta {
    /// Engine.
    pub engine: String,
    /// Cell id.
    pub cell: String,
    /// Step.
    pub step: String,
    /// Metric.
    pub metric: String,
    /// Mean in A.
    pub a: f64,
    /// Mean in B.
    pub b: f64,
    /// Relative change (b - a) / a.
    pub delta: f64,
    /// p-value.
    pub p: f64,
    /// Test used.
    pub test: &'static str,
    /// Flagged as a real change.
    pub flagged: bool,
}

fn vals(rows: &[ResultRow], e: &str, c: &str, s: &str, m: &str) -> Vec<f64> {
    rows.iter()
        .filter(|r| r.ok && r.engine == e && r.cell_id == c && r.step == s)
        .filter_map(|r| r.metrics.get(m).copied())
        .collect()
}

/// Refuses two result sets that are not runs of one study (no study name
/// in common), so that `lab compare` never prints an empty comparison.
pub(crate) fn check_same_study(
    a: &[ResultRow],
    b: &[ResultRow],
    da: &Path,
    db: &Path,
) -> anyhow::Result<()> {
    let names =
        |rows: &[ResultRow]| -> BTreeSet<String> { rows.iter().map(|r| r.study.clone()).collect() };
    let (sa, sb) = (names(a), names(b));
    if sa.is_disjoint(&sb) {
        let list = |s: &BTreeSet<String>| s.iter().cloned().collect::<Vec<_>>().join(", ");
        anyhow::bail!(
            "{} holds study `{}` and {} study `{}`: compare takes two runs of the same study",
            da.display(),
            list(&sa),
            db.display(),
            list(&sb)
        );
    }
    Ok(())
}

/// Compares two sets of rows. Mann-Whitney U when both sides have at least 4
/// repeats, Welch's t test otherwise; flagged when p < alpha and |delta| >= min_delta.
pub(crate) fn compare(a: &[ResultRow], b: &[ResultRow], alpha: f64, min_delta: f64) -> Vec<Delta> {
    let keys: BTreeSet<(String, String, String)> = a
        .iter()
        .filter(|r| r.ok)
        .map(|r| (r.engine.clone(), r.cell_id.clone(), r.step.clone()))
        .collect();
    let mut out = Vec::new();
    for (e, c, s) in keys {
        for m in metrics::names(View::Compare) {
            let (va, vb) = (vals(a, &e, &c, &s, m), vals(b, &e, &c, &s, m));
            let (Some(sa), Some(sb)) = (summarize(&va), summarize(&vb)) else {
                continue;
            };
            let (p, test) = if va.len() >= 4 && vb.len() >= 4 {
                (mann_whitney_p(&va, &vb), "mann-whitney")
            } else {
                (welch_p(&va, &vb), "welch")
            };
            let delta = if sa.mean != 0.0 {
                (sb.mean - sa.mean) / sa.mean.abs()
            } else if sb.mean == 0.0 {
                0.0
            } else {
                f64::INFINITY
            };
            out.push(Delta {
                engine: e.clone(),
                cell: c.clone(),
                step: s.clone(),
                metric: m.to_string(),
                a: sa.mean,
                b: sb.mean,
                delta,
                p,
                test,
                flagged: p < alpha && delta.abs() >= min_delta,
            });
        }
    }
    out
}

/// Markdown table of the comparison (flagged rows first, then a count).
pub(crate) fn render(deltas: &[Delta], a: &Path, b: &Path) -> String {
    let mut o = format!("# Compare\n\nA: {}\nB: {}\n\n", a.display(), b.display());
    let flagged: Vec<&Delta> = deltas.iter().filter(|d| d.flagged).collect();
    o.push_str(&format!(
        "{} of {} comparisons changed significantly.\n\n",
        flagged.len(),
        deltas.len()
    ));
    o.push_str("| engine | cell | step | metric | A | B | delta | p | test | flagged |\n|---|---|---|---|---|---|---|---|---|---|\n");
    let mut sorted: Vec<&Delta> = deltas.iter().collect();
    sorted.sort_by_key(|d| !d.flagged);
    for d in sorted {
        o.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {:+.1}% | {:.3} | {} | {} |\n",
            d.engine,
            d.cell,
            d.step,
            d.metric,
            metrics::show(&d.metric, d.a),
            metrics::show(&d.metric, d.b),
            d.delta * 100.0,
            d.p,
            d.test,
            if d.flagged { "yes" } else { "" }
        ));
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::results::sample_row;

    fn rows(ops: &[f64]) -> Vec<ResultRow> {
        ops.iter()
            .enumerate()
            .map(|(i, v)| {
                let mut r = sample_row();
                r.repeat = i as u32;
                r.metrics.insert("ops_sec".into(), *v);
                r
            })
            .collect()
    }

    /// Two different studies once compared to an empty table, exit 0.
    #[test]
    fn different_studies_are_refused() {
        let a = rows(&[1000.0, 1010.0]);
        let mut b = a.clone();
        for r in &mut b {
            r.study = "other".into();
        }
        let e = check_same_study(&a, &b, Path::new("A"), Path::new("B"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("compare takes two runs of the same study"),
            "{e}"
        );
        assert!(check_same_study(&a, &a, Path::new("A"), Path::new("A")).is_ok());
    }

    #[test]
    fn self_comparison_flags_nothing() {
        let a = rows(&[1000.0, 1130.0, 980.0, 1050.0, 1010.0]);
        let d = compare(&a, &a, 0.05, 0.05);
        assert!(!d.is_empty());
        assert!(d.iter().all(|x| !x.flagged));
    }

    #[test]
    fn clear_change_is_flagged_and_noise_is_not() {
        let a = rows(&[1000.0, 1010.0, 990.0, 1005.0, 995.0]);
        let b = rows(&[1500.0, 1510.0, 1490.0, 1505.0, 1495.0]);
        let d = compare(&a, &b, 0.05, 0.05);
        assert!(d
            .iter()
            .any(|x| x.metric == "ops_sec" && x.flagged && x.test == "mann-whitney"));
        // Overlapping noisy samples with a 13% swing in one pair: not flagged.
        let c = rows(&[1000.0, 1130.0, 990.0, 1050.0, 1010.0]);
        let e = rows(&[1020.0, 985.0, 1100.0, 1000.0, 1040.0]);
        assert!(compare(&c, &e, 0.05, 0.05).iter().all(|x| !x.flagged));
    }
}
