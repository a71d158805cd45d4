//! The report's opening section: how many published claims each engine
//! reproduced, did not reproduce, reversed or left inconclusive, the scale
//! caveat in one sentence, then one row per claim and engine.

use crate::data::aggregate::engines;
use crate::data::results::ResultRow;
use crate::judge::findings::judge;
use crate::judge::verdict::{Verdict, DEFAULT_MIN_EFFECT};
use crate::report::doc::Block;
use crate::spec::model::Plan;

const ORDER: [Verdict; 4] = [
    Verdict::Reproduced,
    Verdict::NotReproduced,
    Verdict::Reversed,
    Verdict::Inconclusive,
];

/// The scale caveat: what the verdicts of a run at `scale` can say.
pub(crate) fn scale_caveat(plan: &Plan) -> String {
    let repeats = plan.repeats;
    if plan.scale == "full" {
        format!(
            "At the `full` scale, the published sizes, with {repeats} repeats per cell, on this host rather than the studies' hardware."
        )
    } else {
        format!(
            "At the `{}` scale rather than the `full` one (the published setup), with {repeats} repeats per cell: an effect that needs the published size or more repeats may not show, and \"inconclusive\" means the repeats cannot tell, not that the claim is false.",
            plan.scale
        )
    }
}

/// The findings of the study that apply at the plan's scale.
fn applicable(plan: &Plan) -> Vec<&crate::spec::study::Finding> {
    plan.loaded
        .spec
        .findings
        .iter()
        .map(|f| f.get_ref())
        .filter(|f| f.scales.is_empty() || f.scales.contains(&plan.scale))
        .collect()
}

/// `engine: 1 reproduced, 0 not reproduced, ... of N claims.`
fn summary_line(engine: &str, counts: &[usize; 5], claims: usize) -> String {
    let mut parts: Vec<String> = ORDER
        .iter()
        .map(|v| format!("{} {}", counts[*v as usize], v.word()))
        .collect();
    if counts[Verdict::NoData as usize] > 0 {
        parts.push(format!("{} without data", counts[Verdict::NoData as usize]));
    }
    format!("{engine}: {} of {claims} claims.", parts.join(", "))
}

/// One summary line per engine that ran (none when the study states no
/// claims): what the index of a results folder lists.
pub(crate) fn summaries(plan: &Plan, rows: &[ResultRow]) -> Vec<String> {
    let findings = applicable(plan);
    if findings.is_empty() {
        return Vec::new();
    }
    engines(plan, rows)
        .iter()
        .map(|e| {
            let mut counts = [0usize; 5];
            for f in &findings {
                counts[judge(plan, rows, f, e).verdict as usize] += 1;
            }
            summary_line(e, &counts, findings.len())
        })
        .collect()
}

/// The verdicts section: a summary line per engine that ran, one line per
/// requested engine that did not, the caveat, and the table.
pub(crate) fn section(plan: &Plan, rows: &[ResultRow], requested: &[String]) -> Vec<Block> {
    let ran = engines(plan, rows);
    let findings = applicable(plan);
    let mut out = vec![Block::H(2, "Verdicts on the published claims".into())];
    if findings.is_empty() {
        out.push(Block::P(
            "This study states no published claims to check.".into(),
        ));
        return out;
    }
    let mut table = Vec::new();
    let mut summary = Vec::new();
    for e in &ran {
        let mut counts = [0usize; 5];
        for f in &findings {
            let j = judge(plan, rows, f, e);
            counts[j.verdict as usize] += 1;
            table.push(vec![
                f.id.clone(),
                f.claim.clone(),
                f.published.clone(),
                e.clone(),
                j.verdict.word().to_string(),
                j.text,
            ]);
        }
        summary.push(summary_line(e, &counts, findings.len()));
    }
    for e in requested.iter().filter(|e| !ran.contains(e)) {
        summary.push(format!("{e}: not measured in this run, so not judged."));
    }
    out.push(Block::List(summary));
    out.push(Block::P(scale_caveat(plan)));
    out.push(Block::P(format!(
        "Each verdict reads 95% t-intervals over the repeats against a minimum effect of {}% (unless a claim sets its own): reproduced when the claimed effect clears it, reversed when the opposite effect does, not reproduced when the data shows the claim does not hold, inconclusive when the intervals cannot tell. The method and its measured error rates are in docs/lab.md, \"Verdicts\".",
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
                "this run (95% intervals)",
            ]
            .map(String::from)
            .to_vec(),
            table,
        ));
    }
    out
}
