//! The report's setup lines and skipped cells: the git commits of the rows,
//! the builds with assertions on, and the cells an engine skipped.

use crate::data::results::ResultRow;
use crate::data::skipped::{is_skipped, skipped_flag};
use crate::spec::model::Plan;
use std::collections::BTreeMap;

/// "Git commit: X." or, for pooled runs of several commits, each with its
/// row count, so that a mixed report says so.
pub(crate) fn git_commits_line(rows: &[ResultRow]) -> String {
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

/// How the repeats were kept independent and the jobs apart: the seed of
/// each repeat, the job order and the settle step between jobs.
pub(crate) fn hygiene_line(rows: &[ResultRow], meta: &crate::run::layout::Meta) -> String {
    // The seeds as the runs' command lines passed them.
    let mut seeds: BTreeMap<u32, std::collections::BTreeSet<u64>> = BTreeMap::new();
    for r in rows {
        if let Some(s) = r
            .command
            .split_whitespace()
            .find_map(|w| w.strip_prefix("--seed="))
            .and_then(|s| s.parse::<u64>().ok())
        {
            seeds.entry(r.repeat).or_default().insert(s);
        }
    }
    let all: std::collections::BTreeSet<u64> = seeds.values().flatten().copied().collect();
    let seeds = match (seeds.len(), all.len()) {
        (0, _) => "No seed was passed: each engine's default applies".to_string(),
        (1, _) => format!(
            "The repeat ran with seed {}",
            all.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
        ),
        (n, 1) => format!(
            "All {n} repeats ran with seed {}: they drew the same keys, so they are not independent",
            all.iter().next().copied().unwrap_or(0)
        ),
        (n, _) => format!(
            "Each of the {n} repeats drew its own keys (seeds {}; the engines of a repeat share its seed)",
            all.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
        ),
    };
    let order = match meta.order_seed {
        Some(s) => format!("jobs ran repeat by repeat, in an order shuffled within each repeat (order seed {s}, `--order-seed {s}` replays it)"),
        None => "jobs ran in plan order".to_string(),
    };
    let settle = if meta.settle.is_empty() {
        "no settle step recorded".to_string()
    } else {
        format!("between jobs: {}", meta.settle)
    };
    format!("{seeds}; {order}; {settle}.")
}

/// Where each job's effective options are kept, and the options whose
/// values differ between Strata and each other engine that kept a file, as
/// their first jobs opened (at most 15 named); nothing when no job kept one
/// (a study directory without its run directories, as docs/results keeps).
pub(crate) fn effective_options_lines(
    sdir: &std::path::Path,
    meta: &crate::run::layout::Meta,
) -> Vec<String> {
    use crate::run::effective::{differing, first_of};
    let ran: Vec<&str> = meta.engines_run.iter().map(|e| e.engine.as_str()).collect();
    let kept: Vec<(&str, BTreeMap<String, String>)> = ran
        .iter()
        .filter_map(|e| first_of(sdir, e).map(|o| (*e, o)))
        .collect();
    if kept.is_empty() {
        return Vec::new();
    }
    let names = |v: &[&str]| v.join(", ");
    let with: Vec<&str> = kept.iter().map(|(e, _)| *e).collect();
    let without: Vec<&str> = ran.iter().copied().filter(|e| !with.contains(e)).collect();
    let mut out = vec![format!(
        "The options each job's engine opened with are kept as `runs/<job>/OPTIONS` ({}){}.",
        names(&with),
        if without.is_empty() {
            String::new()
        } else {
            format!("; {} write none", names(&without))
        }
    )];
    let Some((base, bo)) = kept.iter().find(|(e, _)| *e == "strata").or(kept.first()) else {
        return out;
    };
    for (e, o) in kept.iter().filter(|(e, _)| e != base) {
        let d = differing(bo, o);
        if d.is_empty() {
            continue;
        }
        const SHOWN: usize = 15;
        let listed: Vec<String> = d
            .iter()
            .take(SHOWN)
            .map(|(k, a, b)| format!("`{k}` {a} vs {b}"))
            .collect();
        out.push(format!(
            "Options both engines have, set differently ({base} vs {e}, as their first jobs opened): {}{}.",
            listed.join(", "),
            if d.len() > SHOWN {
                format!(", and {} more", d.len() - SHOWN)
            } else {
                String::new()
            }
        ));
    }
    out
}

/// Engines whose build has assertions on (from the probe's version or the
/// rows' engine versions): their speed figures are not comparable.
pub(crate) fn assertion_builds(meta: &crate::run::layout::Meta, rows: &[ResultRow]) -> Vec<String> {
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

/// One line per engine and flag it lacks: the cells skipped for it and why
/// (`leveldb lacks `--enable_blob_files` (...): 5 cells: a, b, ...`).
pub(crate) fn skipped_lines(plan: &Plan, rows: &[ResultRow]) -> Vec<String> {
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
                k.1.clone()
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
