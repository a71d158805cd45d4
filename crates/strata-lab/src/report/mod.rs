//! `lab report`: Markdown + HTML per study, charts, computed findings and
//! verdicts on the published findings.

pub(crate) mod chart;
pub(crate) mod doc;
pub(crate) mod tradeoff;
pub(crate) mod verdicts;
pub(crate) mod versus;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::data::aggregate::{engines, series, values, versions};
use crate::data::derive::score_against;
use crate::data::metrics::{self, View};
use crate::data::results::ResultRow;
use crate::data::skipped::{is_skipped, skipped_flag};
use crate::data::stats::summarize;
use crate::judge::facet::{facet_title, facets, used_axes};
use crate::judge::findings::crossover;
use crate::judge::statements::{computed_findings, tag};
use crate::report::chart::{render_panels, ChartData, Line};
use crate::report::doc::{html, markdown, Block};
use crate::run::runner::read_meta;
use crate::run::runner::study_dirs;
use crate::spec::model::{expand_with, Plan};
use crate::spec::study::Chart;

/// Loads the plan (from the study's `study.toml` copy) and rows of a study directory.
pub(crate) fn load_study(
    sdir: &Path,
) -> anyhow::Result<(Plan, Vec<ResultRow>, crate::run::runner::Meta)> {
    let meta = read_meta(sdir)?;
    let spec = crate::spec::load(&sdir.join("study.toml"))?;
    let mut plan = expand_with(
        &spec,
        &meta.scale,
        Some(meta.repeats),
        Some(meta.engines_requested.clone()),
        &meta.set,
    )?;
    plan.select_cells(&meta.only)?;
    let mut rows = crate::data::results::load_dir(sdir)?;
    crate::judge::guards::apply(&mut rows);
    add_scores(&plan, &mut rows);
    Ok((plan, rows, meta))
}

/// Adds the composite `score` metric (if the study defines one) to rows of
/// its step: each row's own metrics normalised against the best cell mean
/// (see [`score_against`]), so that repeats differ as their metrics do. A
/// row missing a weighted metric gets no score; when the guards withheld
/// that metric, the score is n/a with its reason.
pub(crate) fn add_scores(plan: &Plan, rows: &mut [ResultRow]) {
    let Some(sc) = plan.loaded.spec.score.as_ref().map(|s| s.get_ref().clone()) else {
        return;
    };
    for e in engines(plan, rows) {
        let cells: Vec<BTreeMap<String, f64>> = plan
            .cells
            .iter()
            .map(|c| {
                sc.weights
                    .keys()
                    .filter_map(|m| {
                        let v = values(rows, &e, &sc.step, &c.labels, m);
                        summarize(&v).map(|s| (m.clone(), s.mean))
                    })
                    .collect()
            })
            .collect();
        for r in rows
            .iter_mut()
            .filter(|r| r.ok && r.engine == e && r.step == sc.step)
        {
            match score_against(&r.metrics, &cells, &sc.weights, &sc.higher_is_better) {
                Some(v) => {
                    r.metrics.insert("score".into(), v);
                }
                None => {
                    let why = sc
                        .weights
                        .keys()
                        .find_map(|m| r.na.get(m).map(|why| format!("{m} is n/a: {why}")));
                    if let Some(why) = why {
                        r.na.insert("score".into(), why);
                    }
                }
            }
        }
    }
}

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
/// lines with the axes other than `x` and `series` fixed to `facet`.
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
        let mut first_two: Vec<Vec<Option<f64>>> = Vec::new();
        for lab in &labels {
            for m in &c.metrics {
                let mut fixed = facet.clone();
                if let Some(s) = &c.series {
                    fixed.insert(s.clone(), lab.clone());
                }
                let pts = series(plan, rows, e, &c.step, &c.x, &fixed, m);
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
                    first_two.push(p.iter().map(|q| q.map(|x| x.0)).collect());
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

/// "Git commit: X." or, for pooled runs of several commits, each with its
/// row count, so that a mixed report says so.
fn git_commits_line(rows: &[ResultRow]) -> String {
    let mut counts: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    for r in rows {
        let c = r.git_commit.clone().unwrap_or_else(|| "unknown".into());
        *counts.entry(c).or_default() += 1;
    }
    match counts.len() {
        0 => "Git commit: unknown.".into(),
        1 => format!(
            "Git commit: {}.",
            counts.keys().next().unwrap_or(&String::new())
        ),
        _ => format!(
            "Git commits (pooled runs): {}.",
            counts
                .iter()
                .map(|(c, n)| format!("{c} ({n} rows)"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

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

/// One line per engine and flag it lacks: the cells skipped for it and why
/// (`leveldb lacks `--enable_blob_files` (...): 5 cells: a, b, ...`).
fn skipped_lines(plan: &Plan, rows: &[ResultRow]) -> Vec<String> {
    let mut groups: BTreeMap<(String, String), (String, Vec<String>)> = BTreeMap::new();
    for r in rows.iter().filter(|r| is_skipped(r)) {
        let (flag, why) = skipped_flag(r.error.as_deref().unwrap_or(""));
        let g = groups
            .entry((r.engine.clone(), flag))
            .or_insert_with(|| (why, Vec::new()));
        if !g.1.contains(&r.cell_id) {
            g.1.push(r.cell_id.clone());
        }
    }
    let order = |e: &str| plan.engines.iter().position(|x| x == e);
    let mut keys: Vec<&(String, String)> = groups.keys().collect();
    keys.sort_by_key(|(e, f)| (order(e), f.clone()));
    keys.into_iter()
        .map(|k| {
            let (why, cells) = &groups[k];
            let flag = if k.1.is_empty() {
                "a flag these cells set".to_string()
            } else {
                format!("`--{}`", k.1)
            };
            let why = if why.is_empty() {
                String::new()
            } else {
                format!(": {why}")
            };
            format!("{} lacks {flag} ({}){why}.", k.0, cells_text(plan, cells))
        })
        .collect()
}

/// The skipped cells in a few words: "the 5 cells with layout=blob" when
/// they are exactly the cells of one axis value, else their ids.
fn cells_text(plan: &Plan, cells: &[String]) -> String {
    let n = cells.len();
    for a in &plan.axes {
        for v in &a.values {
            let with: Vec<&String> = plan
                .cells
                .iter()
                .filter(|c| c.labels.get(&a.name) == Some(&v.label))
                .map(|c| &c.id)
                .collect();
            if with.len() == n && with.iter().all(|id| cells.contains(id)) {
                let which = if n == 1 {
                    "the cell".to_string()
                } else {
                    format!("all {n} cells")
                };
                return format!("{which} with {}={}", a.name, v.label);
            }
        }
    }
    format!(
        "{n} {}: {}",
        if n == 1 { "cell" } else { "cells" },
        cells.join("; ")
    )
}

/// Engines whose build has assertions on (from the probe's version or the
/// rows' engine versions): their speed figures are not comparable.
fn assertion_builds(meta: &crate::run::runner::Meta, rows: &[ResultRow]) -> Vec<String> {
    let on = |v: &str| {
        v.to_ascii_lowercase().contains("assertions enabled")
            || v.contains("Assertions are enabled")
    };
    let mut out: Vec<String> = Vec::new();
    for (e, v) in meta
        .engines_run
        .iter()
        .map(|c| (&c.engine, &c.how))
        .chain(rows.iter().map(|r| (&r.engine, &r.engine_version)))
    {
        if on(v) && !out.contains(e) {
            out.push(e.clone());
        }
    }
    out
}

/// The results table of one step and the deduplicated reasons of its n/a
/// cells (`metric: reason`).
fn metric_table(
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

/// Builds the report blocks of a study directory, drawing its charts.
pub(crate) fn build(sdir: &Path) -> anyhow::Result<(String, Vec<Block>)> {
    let (plan, rows, meta) = load_study(sdir)?;
    let s = &plan.loaded.spec;
    let mut b = vec![
        Block::H(1, format!("{} ({} scale)", s.title, plan.scale)),
        Block::P(format!("Question: {}", s.question)),
    ];
    b.extend(crate::report::verdicts::section(
        &plan,
        &rows,
        &meta.engines_requested,
    ));
    let vers = versions(&rows);
    let host = rows.first().map(|r| r.host.clone()).unwrap_or_default();
    let mut setup = vec![
        format!(
            "Scale `{}`, {} repeats per cell, {} cells, steps: {}.",
            plan.scale,
            plan.repeats,
            plan.cells.len(),
            plan.steps()
                .iter()
                .map(|st| format!("`{}`", st.benchmarks))
                .collect::<Vec<_>>()
                .join(" then ")
        ),
        format!(
            "Host: {} cores ({}), {:.1} GB memory, kernel {}, output on {}.",
            host.cores,
            host.cpu_model,
            host.mem_bytes as f64 / 1e9,
            host.kernel,
            host.fs_type
        ),
        git_commits_line(&rows),
    ];
    for e in &meta.engines_requested {
        match vers.get(e) {
            Some(v) => setup.push(format!("Engine {e}: {v}.")),
            // RocksDB's line is the sentence below.
            None if e == "rocksdb" => {}
            None => setup.push(format!("Engine {e}: not measured.")),
        }
    }
    if !vers.contains_key("rocksdb") {
        setup.push(if vers.keys().any(|e| e != "strata") {
            "RocksDB was not measured in this run.".into()
        } else {
            "RocksDB was not measured in this run: the figures below are Strata's alone.".into()
        });
    }
    setup.extend(meta.notes.iter().cloned());
    b.push(Block::H(2, "Setup".into()));
    b.push(Block::List(setup));
    b.push(Block::P("WAF = (WAL + flush + compaction + blob bytes written) / user bytes written (tickers rocksdb.wal.bytes, rocksdb.flush.write.bytes, rocksdb.compact.write.bytes, rocksdb.blobdb.blob.file.bytes.written over rocksdb.bytes.written, blob bytes counted once since RocksDB's flush and compaction tickers already include blob files); wamp = RocksDB's Sum-row W-Amp (flush + compaction writes over flushed bytes, no WAL). cpu_pct = (user + sys CPU of the bench process) / wall / cores. Error bars show min-max over repeats. Table cells show mean ± 95% CI (Student t) from 3 repeats on, and mean (min–max) with 2 repeats, where a t interval would be wider than the data. A figure whose denominator is too small (W-Amp or WAF over less than 4 MiB, or less than 5% of the tree the step left), a latency percentile at or below 1 us (the histograms' first bucket) and the rates of a one-operation benchmark such as compact (its time is bench_sec) print n/a, with the reason under the table.".into()));
    let charts = draw_charts(&plan, &rows, sdir)?;
    b.push(Block::H(2, "Charts".into()));
    let mut comp = computed_findings(&plan, &rows);
    let mut seen = std::collections::BTreeSet::new();
    comp.retain(|s| seen.insert(s.clone()));
    if s.dashboard {
        let recs: Vec<String> = comp
            .iter()
            .filter(|c| c.starts_with("Recommendation"))
            .cloned()
            .collect();
        // A faceted chart's panels become separate dashboard charts, each
        // titled with the chart's title and its facet.
        let data: Vec<ChartData> = charts
            .iter()
            .flat_map(|(_, title, _, panels)| {
                let faceted = panels.len() > 1;
                panels.iter().cloned().map(move |mut p| {
                    if faceted {
                        p.title = format!("{title}: {}", p.title);
                    }
                    p
                })
            })
            .collect();
        crate::report::chart::render_dashboard(
            &data,
            "Recommendation",
            &recs,
            &sdir.join("charts").join("dashboard"),
        )?;
        b.push(Block::Chart(
            "dashboard".into(),
            format!("{}: dashboard", s.title),
        ));
    }
    for (id, title, _, _) in &charts {
        b.push(Block::Chart(id.clone(), title.clone()));
        if let Some(c) = s
            .charts
            .iter()
            .map(|c| c.get_ref())
            .find(|c| &c.id == id && c.x_metric.is_some())
        {
            b.extend(crate::report::tradeoff::blocks(&plan, &rows, c));
        }
    }
    b.push(Block::H(2, "What this run shows".into()));
    b.push(if comp.is_empty() {
        Block::P("No successful runs to draw conclusions from.".into())
    } else {
        Block::List(comp)
    });
    b.extend(crate::report::versus::section(&plan, &rows));
    b.push(Block::H(2, "Results".into()));
    let asserts = assertion_builds(&meta, &rows);
    for st in plan.steps() {
        b.push(Block::H(3, format!("Step `{}`", st.label())));
        if !asserts.is_empty() {
            b.push(Block::P(format!(
                "† {} ran a build with assertions enabled: its speed figures (ops_sec, mb_sec, latencies, CPU) are not comparable with release builds.",
                asserts.join(", ")
            )));
        }
        let (table, reasons) = metric_table(&plan, &rows, &st.label(), &asserts);
        b.push(table);
        if !reasons.is_empty() {
            b.push(Block::P("n/a: the guards withheld these figures:".into()));
            b.push(Block::List(reasons));
        }
    }
    let skipped = skipped_lines(&plan, &rows);
    if !skipped.is_empty() {
        b.push(Block::H(2, "Skipped cells".into()));
        b.push(Block::P(
            "A cell that sets a flag an engine has no equivalent for is not run on that engine:"
                .into(),
        ));
        b.push(Block::List(skipped));
    }
    let failed: Vec<String> = rows
        .iter()
        .filter(|r| !r.ok && !is_skipped(r))
        .map(|r| {
            format!(
                "{} {} repeat {} step {}: {}",
                r.engine,
                r.cell_id,
                r.repeat + 1,
                r.step,
                r.error.clone().unwrap_or_default()
            )
        })
        .collect();
    if !failed.is_empty() {
        b.push(Block::H(2, "Failed runs".into()));
        b.push(Block::List(failed));
    }
    Ok((s.title.clone(), b))
}

/// Writes `report.md` and `report.html` into each study directory under `dir`.
pub(crate) fn report(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let dirs = study_dirs(dir);
    if dirs.is_empty() {
        anyhow::bail!("{}: no study results (no meta.json)", dir.display());
    }
    let mut out = Vec::new();
    for d in dirs {
        let (title, blocks) = build(&d)?;
        std::fs::write(d.join("report.md"), markdown(&blocks))?;
        std::fs::write(d.join("report.html"), html(&title, &blocks, &d))?;
        out.push(d.join("report.html"));
    }
    Ok(out)
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
