//! The report's opening section: how many published claims each engine
//! reproduced, did not reproduce, reversed or left inconclusive, the scale
//! caveat in one sentence, then one row per claim and engine.

use std::collections::{BTreeMap, BTreeSet};

use crate::data::aggregate::engines;
use crate::data::results::ResultRow;
use crate::judge::findings::{
    cores_in, cores_text, facet_without_data, judge, no_data_in, published_cores,
};
use crate::judge::verdict::power::needed_in;
use crate::judge::verdict::{Judgement, Verdict, DEFAULT_MIN_EFFECT};
use crate::report::doc::Block;
use crate::spec::model::Plan;
use crate::spec::study::Finding;

const ORDER: [Verdict; 7] = [
    Verdict::Reproduced,
    Verdict::LargerThanPublished,
    Verdict::DirectionOnly,
    Verdict::NotReproduced,
    Verdict::Reversed,
    Verdict::Inconclusive,
    Verdict::NotTestable,
];

/// Verdicts counted per engine (indexed by `Verdict as usize`).
const KINDS: usize = Verdict::NoData as usize + 1;

/// The scale caveat: what the verdicts of a run at `scale` can say.
pub(crate) fn scale_caveat(plan: &Plan, rows: &[ResultRow]) -> String {
    let repeats = repeats_text(plan.repeats, rows);
    if plan.scale == "full" {
        format!(
            "At the `full` scale, the published sizes, with {repeats} per cell, on this host rather than the studies' hardware."
        )
    } else {
        format!(
            "At the `{}` scale rather than the `full` one (the published setup), with {repeats} per cell: an effect that needs the published size or more repeats may not show, and \"inconclusive\" means the repeats cannot tell, not that the claim is false.",
            plan.scale
        )
    }
}

/// "10 repeats", or "10 to 20 repeats (more where a claim was undecided)"
/// when adaptive rounds gave some cells more: the distinct repeats of each
/// engine's cell, fewest and most.
fn repeats_text(planned: u32, rows: &[ResultRow]) -> String {
    let mut per_cell: BTreeMap<(&str, &str), BTreeSet<u32>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.ok) {
        per_cell
            .entry((r.engine.as_str(), r.cell_id.as_str()))
            .or_default()
            .insert(r.repeat);
    }
    let counts = per_cell.values().map(BTreeSet::len);
    match (counts.clone().min(), counts.max()) {
        (Some(lo), Some(hi)) if lo < hi => {
            format!("{lo} to {hi} repeats (more where a claim was undecided after the first {lo})")
        }
        _ => format!("{planned} repeats"),
    }
}

/// The findings of the study that apply at the plan's scale.
pub(crate) fn applicable(plan: &Plan) -> Vec<&Finding> {
    plan.loaded
        .spec
        .findings
        .iter()
        .map(|f| f.get_ref())
        .filter(|f| f.scales.is_empty() || f.scales.contains(&plan.scale))
        .collect()
}

/// The findings scoped to other scales that ask for more cores than this
/// run's host has, with the cores each needs: the published multi-core
/// claims of a run on a small host. They are listed as not testable here,
/// not left out, so the report says what it could not test and why.
fn beyond_host<'a>(plan: &'a Plan, rows: &[ResultRow]) -> Vec<(&'a Finding, u32, u32)> {
    let host = rows.iter().map(|r| r.host.cores).max().unwrap_or(0);
    if host == 0 {
        return Vec::new();
    }
    plan.loaded
        .spec
        .findings
        .iter()
        .map(|f| f.get_ref())
        .filter(|f| !(f.scales.is_empty() || f.scales.contains(&plan.scale)))
        .filter_map(|f| published_cores(plan, f).map(|n| (f, n, host)))
        .filter(|(_, n, host)| n > host)
        .collect()
}

/// Every claim the report lists for `engine`, in the study's order of
/// scales: those judged at this scale, then those that need more cores.
pub(crate) fn judged<'a>(
    plan: &'a Plan,
    rows: &[ResultRow],
    engine: &str,
) -> Vec<(&'a Finding, Judgement)> {
    let mut out: Vec<(&Finding, Judgement)> = applicable(plan)
        .into_iter()
        .map(|f| (f, judge(plan, rows, f, engine)))
        .collect();
    for (f, need, host) in beyond_host(plan, rows) {
        let scales = f
            .scales
            .iter()
            .map(|s| format!("`{s}`"))
            .collect::<Vec<_>>()
            .join(", ");
        out.push((
            f,
            Judgement::new(
                Verdict::NotTestable,
                format!(
                    "judged at the {scales} scale, which {}",
                    cores_text(need, host)
                ),
            ),
        ));
    }
    out
}

/// Why an engine that was asked for has no result rows to judge: the
/// distinct reasons its steps were skipped, or that it did not run.
fn not_judged(engine: &str, rows: &[ResultRow]) -> String {
    let mut reasons: Vec<String> = rows
        .iter()
        .filter(|r| r.engine == engine && !r.ok)
        .filter_map(|r| r.error.as_deref())
        .filter_map(|e| e.strip_prefix("skipped: "))
        .map(String::from)
        .collect();
    reasons.sort();
    reasons.dedup();
    if reasons.is_empty() {
        return format!("{engine}: not measured in this run, so not judged.");
    }
    let n = reasons.len();
    let shown: Vec<String> = reasons.into_iter().take(3).collect();
    format!(
        "{engine}: every cell skipped, so not judged ({}{}).",
        shown.join("; "),
        if n > 3 {
            format!("; {} more reasons", n - 3)
        } else {
            String::new()
        }
    )
}

/// `engine: 1 reproduced, 0 not reproduced, ... of N claims.`, the
/// undecided claims with the repeats per cell each would need and the
/// untestable ones with why. `all` is every claim listed for the engine;
/// one restated on a second metric is not counted again.
fn summary_line(engine: &str, all: &[(&Finding, Judgement)]) -> String {
    let counted: Vec<&(&Finding, Judgement)> = all
        .iter()
        .filter(|(f, _)| f.same_claim_as.is_none())
        .collect();
    let mut counts = [0usize; KINDS];
    for (_, j) in &counted {
        counts[j.verdict as usize] += 1;
    }
    let of = |v: Verdict| -> Vec<(&Finding, &Judgement)> {
        counted
            .iter()
            .filter(|(_, j)| j.verdict == v)
            .map(|(f, j)| (*f, j))
            .collect()
    };
    // The two rarer outcomes are named only when some claim has them.
    let mut parts: Vec<String> = ORDER
        .iter()
        .filter(|v| {
            !matches!(
                v,
                Verdict::LargerThanPublished | Verdict::DirectionOnly | Verdict::NotTestable
            ) || counts[**v as usize] > 0
        })
        .map(|v| {
            let n = counts[*v as usize];
            let detail = match v {
                Verdict::Inconclusive if n > 0 => format!(" ({})", undecided_detail(&of(*v))),
                Verdict::NotTestable if n > 0 => format!(" ({})", untestable_detail(&of(*v))),
                _ => String::new(),
            };
            format!("{n} {}{detail}", v.word())
        })
        .collect();
    if counts[Verdict::NoData as usize] > 0 {
        let nodata: Vec<(&str, &Judgement)> = of(Verdict::NoData)
            .into_iter()
            .map(|(f, j)| (f.id.as_str(), j))
            .collect();
        parts.push(format!(
            "{} without data ({})",
            counts[Verdict::NoData as usize],
            grouped(no_data_groups(engine, &nodata))
        ));
    }
    let n = counted.len();
    format!(
        "{engine}: {} of {n} {}.",
        parts.join(", "),
        if n == 1 { "claim" } else { "claims" }
    )
}

/// The repeats per cell that would decide each undecided claim:
/// "repeats per cell that would decide them: `a` about 20, `b` more than
/// 1000, `c` no estimate".
fn undecided_detail(undecided: &[(&Finding, &Judgement)]) -> String {
    let each: Vec<String> = undecided
        .iter()
        .map(|(f, j)| {
            let n = match needed_in(&j.text) {
                Some(n) if n.too_close => {
                    format!("more than {}", crate::judge::verdict::power::MAX_REPEATS)
                }
                Some(n) => format!("about {}", n.about.unwrap_or_default()),
                // Too few repeats for an estimate: at least the fewest a
                // verdict is decided from.
                None if j.text.contains("no verdict is decided from fewer than") => {
                    format!("at least {}", crate::judge::verdict::estimate::MIN_REPEATS)
                }
                // Held across facets, one of which has no data: more
                // repeats cannot decide it.
                None if facet_without_data(&j.text) => "none: a facet has no data".into(),
                None => "no estimate".into(),
            };
            format!("`{}` {n}", f.id)
        })
        .collect();
    let whom = if undecided.len() == 1 { "it" } else { "them" };
    format!(
        "repeats per cell that would decide {whom}: {}",
        each.join(", ")
    )
}

/// Why the untestable claims are: the cores they need beside the host's
/// ("needs 4 to 12 cores; this host has 2"), and any other reason's first
/// clause; with the claims' ids when there is more than one reason.
fn untestable_detail(untestable: &[(&Finding, &Judgement)]) -> String {
    let mut groups: Vec<(String, Vec<&str>)> = Vec::new();
    let cores: Vec<(u32, u32)> = untestable
        .iter()
        .filter_map(|(_, j)| cores_in(&j.text))
        .collect();
    if let (Some(lo), Some(hi), Some(host)) = (
        cores.iter().map(|c| c.0).min(),
        cores.iter().map(|c| c.0).max(),
        cores.iter().map(|c| c.1).max(),
    ) {
        let need = if lo == hi {
            lo.to_string()
        } else {
            format!("{lo} to {hi}")
        };
        let ids = untestable
            .iter()
            .filter(|(_, j)| cores_in(&j.text).is_some())
            .map(|(f, _)| f.id.as_str())
            .collect();
        groups.push((format!("needs {need} cores; this host has {host}"), ids));
    }
    for (f, j) in untestable
        .iter()
        .filter(|(_, j)| cores_in(&j.text).is_none())
    {
        let why = j
            .text
            .split("; ")
            .next()
            .unwrap_or(&j.text)
            .trim_end_matches('.');
        add_to_group(&mut groups, why.to_string(), &f.id);
    }
    grouped(groups)
}

/// Why the claims without data have none ("it lacks `--enable_blob_files`",
/// "its runs do not report cpu_us_op"), each reason with the claims it
/// covers, in the order first met; "no reason given" where a verdict
/// names none.
pub(crate) fn no_data_groups<'a>(
    engine: &str,
    nodata: &[(&'a str, &Judgement)],
) -> Vec<(String, Vec<&'a str>)> {
    let mut groups: Vec<(String, Vec<&'a str>)> = Vec::new();
    for (id, j) in nodata {
        let why = no_data_in(engine, &j.text).unwrap_or_else(|| "no reason given".into());
        add_to_group(&mut groups, why, id);
    }
    groups
}

/// Adds claim `id` to the group of reason `why`, or a new group after the
/// others.
fn add_to_group<'a>(groups: &mut Vec<(String, Vec<&'a str>)>, why: String, id: &'a str) {
    match groups.iter_mut().find(|g| g.0 == why) {
        Some(g) => g.1.push(id),
        None => groups.push((why, vec![id])),
    }
}

/// Reasons with the claims each covers: the reason alone when there is
/// one, else [`with_ids`].
fn grouped(mut groups: Vec<(String, Vec<&str>)>) -> String {
    if groups.len() == 1 {
        return groups.remove(0).0;
    }
    with_ids(&groups)
}

/// Every reason after the claims it covers: "`a`, `b`: why; `c`: other why".
pub(crate) fn with_ids(groups: &[(String, Vec<&str>)]) -> String {
    groups
        .iter()
        .map(|(why, ids)| {
            let ids: Vec<String> = ids.iter().map(|i| format!("`{i}`")).collect();
            format!("{}: {why}", ids.join(", "))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// One summary line per engine that ran (none when the study states no
/// claims): what the index of a results folder lists.
pub(crate) fn summaries(plan: &Plan, rows: &[ResultRow]) -> Vec<String> {
    if applicable(plan).is_empty() && beyond_host(plan, rows).is_empty() {
        return Vec::new();
    }
    engines(plan, rows)
        .iter()
        .map(|e| summary_line(e, &judged(plan, rows, e)))
        .collect()
}

/// The verdicts section: a summary line per engine that ran, one line per
/// requested engine that did not, the caveat, and the table.
pub(crate) fn section(plan: &Plan, rows: &[ResultRow], requested: &[String]) -> Vec<Block> {
    let ran = engines(plan, rows);
    let mut out = vec![Block::H(2, "Verdicts on the published claims".into())];
    if applicable(plan).is_empty() && beyond_host(plan, rows).is_empty() {
        out.push(Block::P(
            "This study states no published claims to check.".into(),
        ));
        return out;
    }
    let mut table = Vec::new();
    let mut summary = Vec::new();
    for e in &ran {
        let all = judged(plan, rows, e);
        for (f, j) in &all {
            // A claim judged on a second metric is shown, counted once.
            let verdict = match &f.same_claim_as {
                None => j.verdict.word().to_string(),
                Some(id) => format!("{} (counted as `{id}`)", j.verdict.word()),
            };
            table.push(vec![
                f.id.clone(),
                f.claim.clone(),
                f.published.clone(),
                e.clone(),
                verdict,
                j.text.clone(),
            ]);
        }
        summary.push(summary_line(e, &all));
    }
    for e in requested.iter().filter(|e| !ran.contains(e)) {
        summary.push(not_judged(e, rows));
    }
    out.push(Block::List(summary));
    out.push(Block::P(scale_caveat(plan, rows)));
    out.push(Block::P(format!(
        "Each verdict reads the one-sided 95% t-bounds of its effects (together a 90% interval, the figures in brackets) over the repeats against a minimum effect of {}% (unless a claim sets its own): reproduced when the claimed effect clears it, reversed when the opposite effect does, direction reproduced when only the claimed direction is clear (one-sided 0.5%) and its size is not settled, not reproduced when the data shows the claim does not hold, inconclusive when the bounds cannot tell (with about how many repeats would), not testable here when the run cannot exercise the claim. The method and its measured error rates are in docs/lab.md, \"Verdicts\".",
        DEFAULT_MIN_EFFECT * 100.0
    )));
    if !table.is_empty() {
        out.push(Block::Table(
            [
                "id",
                "published claim",
                "published figures",
                "engine",
                "verdict",
                "this run (90% intervals: one-sided 95% bounds)",
            ]
            .map(String::from)
            .to_vec(),
            table,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::results::sample_row;

    #[test]
    fn an_engines_line_says_what_would_decide_each_undecided_claim_and_why_others_are_untestable() {
        let plan = crate::report::claims::fixture::plan(crate::report::claims::fixture::GAP);
        let base = plan.loaded.spec.findings[0].get_ref().clone();
        let f = |id: &str| Finding {
            id: id.into(),
            ..base.clone()
        };
        let (a, b, c, d, e, g) = (f("a"), f("b"), f("c"), f("d"), f("e"), f("g"));
        let j = |v: Verdict, t: &str| Judgement::new(v, t);
        let all = vec![
            (&a, j(Verdict::Reproduced, "clear")),
            (
                &b,
                j(
                    Verdict::Inconclusive,
                    &format!(
                        "unclear. x; {}",
                        crate::judge::verdict::power::needs_text(40)
                    ),
                ),
            ),
            (
                &c,
                j(
                    Verdict::Inconclusive,
                    "judged at each of 2 facets. [p] reproduced: x [q] no data: y",
                ),
            ),
            (
                &d,
                j(
                    Verdict::NotTestable,
                    &crate::judge::findings::cores_text(4, 2),
                ),
            ),
            (
                &e,
                j(
                    Verdict::NotTestable,
                    &crate::judge::findings::cores_text(12, 2),
                ),
            ),
            (
                &g,
                j(
                    Verdict::Inconclusive,
                    "unclear (a cell has 2 repeats: no verdict is decided from fewer than 3)",
                ),
            ),
        ];
        assert_eq!(
            summary_line("strata", &all),
            "strata: 1 reproduced, 0 not reproduced, 0 reversed, 3 inconclusive (repeats per cell that would decide them: `b` about 40, `c` none: a facet has no data, `g` at least 3), 2 not testable here (needs 4 to 12 cores; this host has 2) of 6 claims."
        );
        // Two reasons: each with its claims.
        let h = f("h");
        let mut two = all.clone();
        two.push((
            &h,
            j(
                Verdict::NotTestable,
                "needs stall_sec at least 1 (a stall); this run gave 0 at 3 of its 3 points",
            ),
        ));
        assert!(
            summary_line("strata", &two).contains("3 not testable here (`d`, `e`: needs 4 to 12 cores; this host has 2; `h`: needs stall_sec at least 1 (a stall))"),
            "{}",
            summary_line("strata", &two)
        );
        // Claims without data say why: the flags the engine lacks, the
        // metric its runs do not report.
        let (k, l) = (f("k"), f("l"));
        let mut none = all.clone();
        none.push((
            &k,
            j(
                Verdict::NoData,
                "published 0.9 \u{b7} measured n/a; strata did not run these cells: it lacks `--x` (see \"Skipped cells\")",
            ),
        ));
        none.push((
            &l,
            j(Verdict::NoData, "strata's runs do not report cpu_us_op"),
        ));
        assert!(
            summary_line("strata", &none).ends_with(", 2 without data (`k`: it lacks `--x`; `l`: its runs do not report cpu_us_op) of 8 claims."),
            "{}",
            summary_line("strata", &none)
        );
    }

    /// Adaptive rounds that gave some cells more repeats are said as a
    /// range; the same count everywhere as the planned one.
    #[test]
    fn the_caveat_counts_the_repeats_each_cell_got() {
        let row = |cell: &str, repeat: u32| ResultRow {
            cell_id: cell.into(),
            repeat,
            ..sample_row()
        };
        let even: Vec<ResultRow> = (0..3).flat_map(|r| [row("a", r), row("b", r)]).collect();
        assert_eq!(repeats_text(3, &even), "3 repeats");
        let mut more = even.clone();
        more.extend((3..6).map(|r| row("b", r)));
        assert_eq!(
            repeats_text(3, &more),
            "3 to 6 repeats (more where a claim was undecided after the first 3)"
        );
    }
}
