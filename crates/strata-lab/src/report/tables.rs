//! The results tables: per step, a row per cell and engine with each
//! shown metric's figure over the repeats, and the reasons of its n/a cells.

use crate::data::metrics::{self, View};
use crate::data::results::ResultRow;
use crate::data::skipped::is_skipped;
use crate::data::stats::summarize;
use crate::report::doc::Block;
use crate::spec::model::Plan;

/// One cell of the results table: `mean ± ci95` from 3 repeats on (a
/// Student t interval), `mean (min–max)` below that, the value alone for one
/// repeat, `n/a` when the guards withheld every repeat's figure, and
/// "(k of n n/a)" after the figure when they withheld some.
fn table_cell(metric: &str, vals: &[f64], withheld: usize) -> String {
    let fmt_num = |v: f64| metrics::show(metric, v);
    let figure = match summarize(vals) {
        Some(s) if s.n >= 3 => format!("{} ± {}", fmt_num(s.mean), fmt_num(s.ci95)),
        Some(s) if s.n == 2 => format!(
            "{} ({}–{})",
            fmt_num(s.mean),
            fmt_num(s.min),
            fmt_num(s.max)
        ),
        Some(s) => fmt_num(s.mean),
        None if withheld > 0 => return "n/a".into(),
        None => return "-".into(),
    };
    if withheld > 0 {
        format!("{figure} ({withheld} of {} n/a)", vals.len() + withheld)
    } else {
        figure
    }
}

/// The results table of one step and the deduplicated reasons of its n/a
/// cells (`metric: reason`).
pub(crate) fn metric_table(
    plan: &Plan,
    rows: &[ResultRow],
    step: &str,
    asserts: &[String],
) -> (Block, Vec<String>) {
    let in_step = |r: &&ResultRow| r.ok && r.step == step;
    let cols: Vec<&str> = metrics::names(View::Table)
        .into_iter()
        .filter(|m| {
            rows.iter()
                .filter(in_step)
                .any(|r| r.metrics.contains_key(*m) || r.na.contains_key(*m))
        })
        // The benchmark's seconds only where the rates are withheld.
        .filter(|m| {
            *m != "bench_sec"
                || rows
                    .iter()
                    .filter(in_step)
                    .any(|r| r.na.contains_key("ops_sec"))
        })
        .collect();
    let mut header: Vec<String> = plan.axes.iter().map(|a| a.name.clone()).collect();
    header.push("engine".into());
    header.push("ok/runs".into());
    header.extend(cols.iter().map(|c| c.to_string()));
    let mut out = Vec::new();
    let mut reasons: Vec<String> = Vec::new();
    for c in &plan.cells {
        for e in &plan.engines {
            let all = rows
                .iter()
                .filter(|r| r.step == step && &r.engine == e && r.cell_id == c.id)
                .filter(|r| !is_skipped(r))
                .count();
            if all == 0 {
                continue;
            }
            let ok: Vec<&ResultRow> = rows
                .iter()
                .filter(|r| r.ok && r.step == step && &r.engine == e && r.cell_id == c.id)
                .collect();
            let mut row: Vec<String> = plan
                .axes
                .iter()
                .map(|a| a.display(c.labels.get(&a.name).map(String::as_str).unwrap_or("")))
                .collect();
            row.push(if asserts.contains(e) {
                format!("{e} †")
            } else {
                e.clone()
            });
            row.push(format!("{}/{all}", ok.len()));
            for m in &cols {
                let vals: Vec<f64> = ok
                    .iter()
                    .filter_map(|r| r.metrics.get(*m).copied())
                    .collect();
                let withheld = ok.iter().filter(|r| r.na.contains_key(*m)).count();
                if withheld > 0 {
                    if let Some(why) = crate::judge::guards::na_reason(rows, e, step, &c.labels, m)
                    {
                        for w in why.split("; ") {
                            let line = format!("{m}: {w}");
                            if !reasons.contains(&line) {
                                reasons.push(line);
                            }
                        }
                    }
                }
                row.push(table_cell(m, &vals, withheld));
            }
            out.push(row);
        }
    }
    (Block::Table(header, out), reasons)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_cells_by_repeats_and_guards() {
        assert_eq!(table_cell("waf", &[1.0, 2.0, 3.0], 0), "2.00 ± 2.48");
        // Two repeats: a t interval (12.7 x sd / sqrt 2) would be wider than the mean.
        assert_eq!(table_cell("waf", &[10.0, 30.0], 0), "20.00 (10.00–30.00)");
        assert_eq!(table_cell("waf", &[7.0], 0), "7.00");
        assert_eq!(table_cell("waf", &[], 2), "n/a");
        assert_eq!(table_cell("waf", &[], 0), "-");
        assert_eq!(table_cell("waf", &[4.0], 1), "4.00 (1 of 2 n/a)");
        assert_eq!(
            table_cell("waf", &[4.0, 6.0, 8.0], 1),
            "6.00 ± 4.97 (1 of 4 n/a)"
        );
    }
}
