//! The report's setup lines and skipped cells: the git commits of the rows,
//! the builds with assertions on, and the cells an engine skipped.

use crate::data::results::ResultRow;
use crate::data::skipped::{is_skipped, skipped_cores, skipped_flag};
use crate::spec::model::Plan;
use std::collections::{BTreeMap, BTreeSet};

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

/// How long the runs held the machine: the sum of every step's wall time,
/// in all and per engine (in the order engines first appear), so a reader
/// can budget a rerun. A study resumed over several sittings sums its runs,
/// not the calendar time between them; settling the host between jobs is
/// not counted; cells an engine skipped are left out. None when no row
/// took time (a stand-in bench).
pub(crate) fn machine_time_line(rows: &[ResultRow]) -> Option<String> {
    let mut per: Vec<(&str, f64)> = Vec::new();
    for r in rows.iter().filter(|r| r.wall_sec > 0.0 && !is_skipped(r)) {
        match per.iter_mut().find(|(e, _)| *e == r.engine) {
            Some((_, t)) => *t += r.wall_sec,
            None => per.push((&r.engine, r.wall_sec)),
        }
    }
    let total: f64 = per.iter().map(|(_, t)| t).sum();
    if total < 1.0 {
        return None;
    }
    let each = per
        .iter()
        .map(|(e, t)| format!("{e} {}", duration_text(*t)))
        .collect::<Vec<_>>()
        .join(", ");
    Some(format!(
        "Machine time: {} of runs ({each}), the sum of every step's wall time; settling the host between jobs is not counted.",
        duration_text(total)
    ))
}

/// Seconds as "45 s", "12 min" or "3 h 05 min".
pub(crate) fn duration_text(sec: f64) -> String {
    let s = sec.round() as u64;
    let m = (s + 30) / 60;
    if s < 60 {
        format!("{s} s")
    } else if m < 60 {
        format!("{m} min")
    } else {
        format!("{} h {:02} min", m / 60, m % 60)
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
/// (`leveldb lacks `--enable_blob_files` (...): 5 cells: a, b, ...`); then
/// one per engine that skipped cells pinned to more cores than the host
/// has, naming the cores.
pub(crate) fn skipped_lines(plan: &Plan, rows: &[ResultRow]) -> Vec<String> {
    let mut lines = flag_skip_lines(plan, rows);
    lines.extend(core_skip_lines(plan, rows));
    lines
}

/// What the "Skipped cells" list holds, for the kinds of skip in `rows`.
pub(crate) fn skipped_intro(rows: &[ResultRow]) -> &'static str {
    let cores = |r: &&ResultRow| skipped_cores(r.error.as_deref().unwrap_or("")).is_some();
    let skipped: Vec<&ResultRow> = rows.iter().filter(|r| is_skipped(r)).collect();
    match (skipped.iter().any(cores), skipped.iter().all(cores)) {
        (false, _) => "A cell that sets a flag or runs a benchmark an engine has no equivalent for is not run on that engine:",
        (true, true) => "A cell pinned to more cores than the host has is not run (its runs would get only the host's cores, and measure those under another label):",
        (true, false) => "A cell that sets a flag or runs a benchmark an engine has no equivalent for is not run on that engine, and a cell pinned to more cores than the host has is not run at all (its runs would get only the host's cores):",
    }
}

/// The lines of [`skipped_lines`] for cells skipped for the cores they pin
/// (`strata skips the 12 cells pinned to 4 or 8 cores: this host has 2.`).
fn core_skip_lines(plan: &Plan, rows: &[ResultRow]) -> Vec<String> {
    let mut groups: BTreeMap<&str, (u32, BTreeSet<u32>, BTreeSet<&str>)> = BTreeMap::new();
    for r in rows.iter().filter(|r| is_skipped(r)) {
        if let Some((need, have)) = skipped_cores(r.error.as_deref().unwrap_or("")) {
            let g = groups.entry(&r.engine).or_default();
            g.0 = have;
            g.1.insert(need);
            g.2.insert(&r.cell_id);
        }
    }
    let order = |e: &str| plan.engines.iter().position(|x| x == e);
    let mut engines: Vec<&str> = groups.keys().copied().collect();
    engines.sort_by_key(|e| order(e));
    engines
        .into_iter()
        .map(|e| {
            let (have, needs, cells) = &groups[e];
            let needs: Vec<String> = needs.iter().map(|n| n.to_string()).collect();
            let needs = match needs.split_last() {
                Some((last, [])) => last.clone(),
                Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
                None => String::new(),
            };
            let which = match cells.len() {
                1 => "the cell".to_string(),
                n => format!("the {n} cells"),
            };
            format!("{e} skips {which} pinned to {needs} cores: this host has {have}.")
        })
        .collect()
}

/// The lines of [`skipped_lines`] for flags and benchmarks engines lack.
fn flag_skip_lines(plan: &Plan, rows: &[ResultRow]) -> Vec<String> {
    let mut groups: BTreeMap<(String, String), (String, Vec<String>)> = BTreeMap::new();
    for r in rows.iter().filter(|r| is_skipped(r)) {
        let msg = r.error.as_deref().unwrap_or("");
        if skipped_cores(msg).is_some() {
            continue;
        }
        let (flag, why) = skipped_flag(msg);
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

#[cfg(test)]
mod tests {
    use super::{duration_text, machine_time_line};
    use crate::testutil::rows_of;

    #[test]
    fn durations_read_in_seconds_minutes_or_hours() {
        assert_eq!(duration_text(0.4), "0 s");
        assert_eq!(duration_text(59.0), "59 s");
        assert_eq!(duration_text(89.0), "1 min");
        assert_eq!(duration_text(91.0), "2 min");
        assert_eq!(duration_text(3599.0), "1 h 00 min");
        assert_eq!(duration_text(3.0 * 3600.0 + 5.0 * 60.0), "3 h 05 min");
    }

    #[test]
    fn machine_time_sums_each_engines_steps_in_order_of_appearance() {
        let mut rows = rows_of("rocksdb", "ops_sec", &[1.0, 1.0]);
        rows.extend(rows_of("strata", "ops_sec", &[1.0, 1.0, 1.0]));
        for (r, w) in rows.iter_mut().zip([600.0, 1200.0, 1800.0, 1800.0, 0.0]) {
            r.wall_sec = w;
        }
        // A cell an engine skipped is not a run, however long the refusal took.
        let mut skipped = rows_of("fjall", "ops_sec", &[1.0]).remove(0);
        skipped.ok = false;
        skipped.error = Some("skipped: fjall lacks a flag this cell sets: x".into());
        skipped.wall_sec = 0.2;
        rows.push(skipped);
        assert_eq!(
            machine_time_line(&rows).unwrap(),
            "Machine time: 1 h 30 min of runs (rocksdb 30 min, strata 1 h 00 min), the sum of every step's wall time; settling the host between jobs is not counted."
        );
    }

    #[test]
    fn no_machine_time_without_timed_rows() {
        let mut rows = rows_of("strata", "ops_sec", &[1.0]);
        rows[0].wall_sec = 0.0;
        assert_eq!(machine_time_line(&rows), None);
    }
}
