//! `lab report`: Markdown + HTML per study, charts, computed findings and
//! verdicts on the published findings.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::aggregate::{engines, fmt_num, series, values, versions};
use crate::chart::{render_panels, ChartData, Line};
use crate::derive::composite_scores;
use crate::doc::{html, markdown, Block};
use crate::facet::{facet_title, facets, used_axes};
use crate::findings::crossover;
use crate::model::{expand_with, Plan};
use crate::results::ResultRow;
use crate::runner::read_meta;
use crate::spec::Chart;
use crate::statements::{computed_findings, tag};
use crate::stats::summarize;

/// Loads the plan (from the study's `study.toml` copy) and rows of a study directory.
pub fn load_study(sdir: &Path) -> anyhow::Result<(Plan, Vec<ResultRow>, crate::runner::Meta)> {
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
    let mut rows = crate::results::load_dir(sdir)?;
    add_scores(&plan, &mut rows);
    Ok((plan, rows, meta))
}

/// Adds the composite `score` metric (if the study defines one) to rows of its step.
pub fn add_scores(plan: &Plan, rows: &mut [ResultRow]) {
    let Some(sc) = plan.loaded.spec.score.as_ref().map(|s| s.get_ref().clone()) else {
        return;
    };
    for e in engines(plan, rows) {
        let cells: Vec<String> = plan.cells.iter().map(|c| c.id.clone()).collect();
        let points: Vec<BTreeMap<String, f64>> = plan
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
        let scores = composite_scores(&points, &sc.weights, &sc.higher_is_better);
        for r in rows
            .iter_mut()
            .filter(|r| r.engine == e && r.step == sc.step)
        {
            if let Some(i) = cells.iter().position(|c| c == &r.cell_id) {
                if !points[i].is_empty() {
                    r.metrics.insert("score".into(), scores[i]);
                }
            }
        }
    }
}

/// A drawn chart: id, title, line names and its panels (one per facet; a
/// single panel, titled with the chart's title, when it has no facets).
pub type DrawnChart = (String, String, Vec<String>, Vec<ChartData>);

/// Draws the study's charts; returns (id, title, line names, panels) of each.
/// An axis that is neither a chart's `x` nor its `series` makes facets:
/// one panel per combination of their values, in one image.
pub fn draw_charts(
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
                    crate::tradeoff::chart_data(plan, rows, c, f)
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

fn metric_table(plan: &Plan, rows: &[ResultRow], step: &str) -> Block {
    const COLS: &[&str] = &[
        "ops_sec",
        "mb_sec",
        "p50",
        "p99",
        "p999",
        "get_p50",
        "get_p99",
        "waf",
        "wamp",
        "comp_cpu_sec",
        "stall_sec",
        "cpu_pct",
        "score",
    ];
    let cols: Vec<&str> = COLS
        .iter()
        .copied()
        .filter(|m| {
            rows.iter()
                .any(|r| r.ok && r.step == step && r.metrics.contains_key(*m))
        })
        .collect();
    let mut header: Vec<String> = plan.axes.iter().map(|a| a.name.clone()).collect();
    header.push("engine".into());
    header.push("ok/runs".into());
    header.extend(cols.iter().map(|c| c.to_string()));
    let mut out = Vec::new();
    for c in &plan.cells {
        for e in &plan.engines {
            let all = rows
                .iter()
                .filter(|r| r.step == step && &r.engine == e && r.cell_id == c.id)
                .count();
            if all == 0 {
                continue;
            }
            let ok = rows
                .iter()
                .filter(|r| r.ok && r.step == step && &r.engine == e && r.cell_id == c.id)
                .count();
            let mut row: Vec<String> = plan
                .axes
                .iter()
                .map(|a| a.display(c.labels.get(&a.name).map(String::as_str).unwrap_or("")))
                .collect();
            row.push(e.clone());
            row.push(format!("{ok}/{all}"));
            for m in &cols {
                row.push(match summarize(&values(rows, e, step, &c.labels, m)) {
                    Some(s) if s.n > 1 => format!("{} ± {}", fmt_num(s.mean), fmt_num(s.ci95)),
                    Some(s) => fmt_num(s.mean),
                    None => "-".into(),
                });
            }
            out.push(row);
        }
    }
    Block::Table(header, out)
}

/// Builds the report blocks of a study directory, drawing its charts.
pub fn build(sdir: &Path) -> anyhow::Result<(String, Vec<Block>)> {
    let (plan, rows, meta) = load_study(sdir)?;
    let s = &plan.loaded.spec;
    let mut b = vec![
        Block::H(1, format!("{} ({} scale)", s.title, plan.scale)),
        Block::P(format!("Question: {}", s.question)),
    ];
    b.extend(crate::verdicts::section(
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
            None => setup.push(format!("Engine {e}: not measured.")),
        }
    }
    if !vers.contains_key("rocksdb") {
        setup.push(
            "RocksDB was not measured in this run: the figures below are Strata's alone.".into(),
        );
    }
    setup.extend(meta.notes.iter().cloned());
    b.push(Block::H(2, "Setup".into()));
    b.push(Block::List(setup));
    b.push(Block::P("WAF = (WAL + flush + compaction + blob bytes written) / user bytes written (tickers rocksdb.wal.bytes, rocksdb.flush.write.bytes, rocksdb.compact.write.bytes, rocksdb.blobdb.blob.file.bytes.written over rocksdb.bytes.written, blob bytes counted once since RocksDB's flush and compaction tickers already include blob files); wamp = RocksDB's Sum-row W-Amp (flush + compaction writes over flushed bytes, no WAL). cpu_pct = (user + sys CPU of the bench process) / wall / cores. Error bars show min-max over repeats; table cells show mean ± 95% CI (Student t).".into()));
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
        crate::chart::render_dashboard(
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
            b.extend(crate::tradeoff::blocks(&plan, &rows, c));
        }
    }
    b.push(Block::H(2, "What this run shows".into()));
    b.push(if comp.is_empty() {
        Block::P("No successful runs to draw conclusions from.".into())
    } else {
        Block::List(comp)
    });
    b.extend(crate::versus::section(&plan, &rows));
    b.push(Block::H(2, "Results".into()));
    for st in plan.steps() {
        b.push(Block::H(3, format!("Step `{}`", st.label())));
        b.push(metric_table(&plan, &rows, &st.label()));
    }
    let failed: Vec<String> = rows
        .iter()
        .filter(|r| !r.ok)
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

/// Study directories under `dir` (itself if it has `meta.json`).
pub fn study_dirs(dir: &Path) -> Vec<PathBuf> {
    if dir.join("meta.json").exists() {
        return vec![dir.to_path_buf()];
    }
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("meta.json").exists())
        .collect();
    v.sort();
    v
}

/// Writes `report.md` and `report.html` into each study directory under `dir`.
pub fn report(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
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
