//! `lab report`: a study directory's report, Markdown and HTML, built from
//! its sections (setup, verdicts, results tables, statements, charts,
//! trade-offs, engine comparisons).

pub(crate) mod answer;
pub(crate) mod chart;
pub(crate) mod claims;
pub(crate) mod doc;
mod figures;
mod gaps;
pub(crate) mod index;
mod setup;
mod shows;
mod study;
mod tables;
pub(crate) mod tradeoff;
pub(crate) mod verdicts;
pub(crate) mod versus;

use std::path::{Path, PathBuf};

use crate::data::aggregate::versions;
use crate::data::skipped::is_skipped;
use crate::judge::statements::computed_findings;
use crate::report::chart::ChartData;
use crate::report::doc::{html, markdown, Block};
use crate::run::layout::study_dirs;
use figures::draw_charts;
use setup::{assertion_builds, git_commits_line, skipped_intro, skipped_lines};
use study::load_study;
use tables::metric_table;

/// Builds the report blocks of a study directory, drawing its charts;
/// verdicts are read at 5% over the looks the run took (adaptive repeats).
pub(crate) fn build(sdir: &Path) -> anyhow::Result<(String, Vec<Block>)> {
    let (plan, rows, meta) = load_study(sdir)?;
    crate::judge::verdict::estimate::with_looks(meta.looks(), || {
        build_loaded(sdir, plan, rows, meta)
    })
}

fn build_loaded(
    sdir: &Path,
    plan: crate::spec::model::Plan,
    rows: Vec<crate::data::results::ResultRow>,
    meta: crate::run::layout::Meta,
) -> anyhow::Result<(String, Vec<Block>)> {
    let s = &plan.loaded.spec;
    let mut b = vec![
        Block::H(1, format!("{} ({} scale)", s.title, plan.scale)),
        Block::P(format!("Question: {}", s.question)),
    ];
    // The charts are drawn first: the claim lines link them.
    let charts = draw_charts(&plan, &rows, sdir)?;
    let drawn: Vec<String> = charts.iter().map(|c| c.0.clone()).collect();
    claims::write(sdir, &plan, &crate::data::results::load_dir(sdir)?)?;
    b.extend(answer::section(&plan, &rows, &drawn));
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
    if let Some(span) = crate::report::index::run_span(&rows) {
        setup.push(format!("Runs started {span}."));
    }
    setup.extend(setup::machine_time_line(&rows));
    setup.push(setup::hygiene_line(&rows, &meta));
    if meta.schedule.len() > 1 {
        setup.push(format!(
            "Adaptive repeats (`--until-decided`): claims were judged at {} repeats per cell, and only the cells of claims still undecided got the next round; each verdict reads its bounds at 5% / {} (one share per look), so each false verdict stays at most 5% over all the looks.",
            meta.schedule
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            meta.schedule.len()
        ));
    }
    // `strata bench --engine=rocksdb` exists only in a binary built with
    // the feature; the other engines are in every build.
    let in_process_rocksdb = meta
        .engines_run
        .iter()
        .any(|e| e.engine == "rocksdb" && !e.external);
    // A `strata` binary names its build ("git <sha>, <profile>,
    // assertions ..."); a stand-in bench does not.
    let built: Vec<&str> = meta
        .engines_run
        .iter()
        .filter(|e| !e.external && e.how.contains(", assertions "))
        .map(|e| e.how.as_str())
        .collect();
    let release = built.iter().any(|h| h.contains("release ("));
    if !built.is_empty() {
        setup.push(format!(
            "The `strata` binary was built with `cargo build{} -p strata-cli{}`.",
            if release { " --release" } else { "" },
            if in_process_rocksdb {
                " --features rocksdb"
            } else {
                ""
            }
        ));
    }
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
    setup.extend(setup::effective_options_lines(sdir, &meta));
    if !meta.command.is_empty() {
        setup.push(format!("Command: `{}`.", meta.command));
    }
    setup.extend(meta.notes.iter().cloned());
    b.push(Block::H(2, "Setup".into()));
    b.push(Block::List(setup));
    b.push(Block::P("WAF = (WAL + flush + compaction + blob bytes written) / user bytes written (tickers rocksdb.wal.bytes, rocksdb.flush.write.bytes, rocksdb.compact.write.bytes, rocksdb.blobdb.blob.file.bytes.written over rocksdb.bytes.written, blob bytes counted once since RocksDB's flush and compaction tickers already include blob files); wamp = RocksDB's Sum-row W-Amp (flush + compaction writes over flushed bytes, no WAL). cpu_pct = (user + sys CPU of the bench process) / wall / cores. Error bars show min-max over repeats. Table cells show mean ± 95% CI (Student t) from 3 repeats on, and mean (min–max) with 2 repeats, where a t interval would be wider than the data. A figure whose denominator is too small (W-Amp or WAF over less than 4 MiB, or less than 5% of the tree the step left), a latency percentile at or below 1 us (the histograms' first bucket) and the rates of a one-operation benchmark such as compact (its time is bench_sec) print n/a, with the reason under the table.".into()));
    b.push(Block::H(2, "Charts".into()));
    let mut comp = computed_findings(&plan, &rows);
    let mut seen = std::collections::BTreeSet::new();
    comp.retain(|s| seen.insert(s.text.clone()));
    if s.dashboard {
        let recs: Vec<String> = comp
            .iter()
            .filter(|c| c.about.is_none())
            .map(|c| c.text.clone())
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
    b.extend(shows::section(&plan, comp));
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
        b.push(Block::P(skipped_intro(&rows).into()));
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
