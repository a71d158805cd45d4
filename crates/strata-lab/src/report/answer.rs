//! The report's first screen: the study's answer in a paragraph written
//! from the verdicts, then one line per published claim with the published
//! figures (and ratio, beside the measured one), links to its chart and to
//! the rows it reads, and, per engine, a verdict badge and why.

use crate::data::aggregate::engines;
use crate::data::results::ResultRow;
use crate::judge::findings::ratio_label;
use crate::judge::verdict::{Judgement, Verdict};
use crate::report::doc::{Block, ClaimLine, ClaimVerdict};
use crate::report::verdicts::{applicable, judged, no_data_groups, with_ids};
use crate::spec::model::Plan;
use crate::spec::study::Finding;

/// A claim judged on one engine: its id, words, published figures and
/// judgement.
type Judged = (String, String, String, Judgement);

/// The answer section: nothing when the study states no claims or no
/// engine ran. `charts` are the ids of the charts drawn (a claim links the
/// one its metric is drawn in); a claim judged at this scale links its rows
/// at `claims/<id>.csv` (written by [`crate::report::claims::write`]).
pub(crate) fn section(plan: &Plan, rows: &[ResultRow], charts: &[String]) -> Vec<Block> {
    let ran = engines(plan, rows);
    let per_engine: Vec<(String, Vec<(&Finding, Judgement)>)> = ran
        .iter()
        .map(|e| {
            let claims = judged(plan, rows, e)
                .into_iter()
                .filter(|(f, _)| f.same_claim_as.is_none())
                .collect();
            (e.clone(), claims)
        })
        .collect();
    let Some((_, first)) = per_engine.first() else {
        return Vec::new();
    };
    if first.is_empty() {
        return Vec::new();
    }
    let here = applicable(plan);
    let mut lines: Vec<ClaimLine> = first
        .iter()
        .map(|(f, _)| ClaimLine {
            id: f.id.clone(),
            claim: f.claim.clone(),
            published: f.published.clone(),
            published_ratio: f
                .published_ratio
                .and_then(|r| Some((ratio_label(plan, f)?, r))),
            chart: crate::report::claims::chart_of(plan, f, charts),
            rows: here
                .iter()
                .any(|g| std::ptr::eq(*g, *f))
                .then(|| crate::report::claims::csv_path(f)),
            engines: Vec::new(),
        })
        .collect();
    for (e, claims) in &per_engine {
        for (line, (_, j)) in lines.iter_mut().zip(claims) {
            line.engines.push(ClaimVerdict {
                engine: e.clone(),
                verdict: j.verdict,
                why: why(j),
                measured: j.pooled.as_ref().map(|p| p.figure()),
                measured_label: j.pooled.as_ref().map(|p| p.label.clone()),
            });
        }
    }
    let texts: Vec<(String, Vec<Judged>)> = per_engine
        .iter()
        .map(|(e, claims)| {
            let c = claims
                .iter()
                .map(|(f, j)| {
                    (
                        f.id.clone(),
                        f.claim.clone(),
                        f.published.clone(),
                        j.clone(),
                    )
                })
                .collect();
            (e.clone(), c)
        })
        .collect();
    vec![
        Block::H(2, "Answer".into()),
        Block::P(answer_text(&texts)),
        Block::Claims(lines),
    ]
}

/// The answer paragraph alone (what the results index shows per study);
/// `None` when the study states no claims or no engine ran.
pub(crate) fn summary(plan: &Plan, rows: &[ResultRow]) -> Option<String> {
    match section(plan, rows, &[]).get(1) {
        Some(Block::P(t)) => Some(t.clone()),
        _ => None,
    }
}

/// One sentence per engine: what it reproduced (by claim id), what went
/// the other way, what stays undecided and what this run could not test.
fn answer_text(per_engine: &[(String, Vec<Judged>)]) -> String {
    let mut parts = Vec::new();
    for (e, claims) in per_engine {
        let ids = |want: &[Verdict]| -> Vec<String> {
            claims
                .iter()
                .filter(|(_, _, _, j)| want.contains(&j.verdict))
                .map(|(id, _, _, _)| format!("`{id}`"))
                .collect()
        };
        let n = claims.len();
        // Verb forms for one claim or several.
        let v = |k: usize, one: &str, many: &str| {
            if k == 1 {
                one.to_string()
            } else {
                many.to_string()
            }
        };
        let held = ids(&[Verdict::Reproduced, Verdict::LargerThanPublished]);
        let failed = ids(&[Verdict::NotReproduced, Verdict::Reversed]);
        let direction = ids(&[Verdict::DirectionOnly]);
        let open = ids(&[Verdict::Inconclusive]);
        let untestable = ids(&[Verdict::NotTestable]);
        let nodata: Vec<(&str, &Judgement)> = claims
            .iter()
            .filter(|(_, _, _, j)| j.verdict == Verdict::NoData)
            .map(|(id, _, _, j)| (id.as_str(), j))
            .collect();
        let mut s = format!("On {e}, of {n} published {}, ", v(n, "claim", "claims"));
        let mut bits = Vec::new();
        if !held.is_empty() {
            let k = held.len();
            bits.push(format!(
                "{k} {} ({})",
                v(k, "holds", "hold"),
                held.join(", ")
            ));
        }
        if !failed.is_empty() {
            let k = failed.len();
            bits.push(format!(
                "{k} {} here ({})",
                v(k, "does not hold", "do not hold"),
                failed.join(", ")
            ));
        }
        if !direction.is_empty() {
            let k = direction.len();
            bits.push(format!(
                "{k} {} in direction, {} size not settled ({})",
                v(k, "holds", "hold"),
                v(k, "its", "their"),
                direction.join(", ")
            ));
        }
        if !open.is_empty() {
            let k = open.len();
            bits.push(format!(
                "{k} {} undecided at this scale and noise",
                v(k, "stays", "stay")
            ));
        }
        if !untestable.is_empty() {
            let k = untestable.len();
            bits.push(format!(
                "{k} cannot be tested on this run ({})",
                untestable.join(", ")
            ));
        }
        if !nodata.is_empty() {
            let k = nodata.len();
            match no_data_groups(e, &nodata).as_slice() {
                // Every claim, for one reason: the reason alone.
                [(why, _)] if k == n && n > 1 => bits.push(format!("none has data ({why})")),
                groups => bits.push(format!(
                    "{k} {} no data ({})",
                    v(k, "has", "have"),
                    with_ids(groups)
                )),
            }
        }
        if bits.is_empty() {
            bits.push("none was judged".into());
        }
        s.push_str(&bits.join("; "));
        s.push('.');
        parts.push(s);
    }
    parts.join(" ")
}

/// A judgement's reason in one clause, with the repeats an undecided one
/// would need: its first sentence, and the "about N repeats" phrase if any.
fn why(j: &Judgement) -> String {
    let t = j.text.as_str();
    let first = t.split(". ").next().unwrap_or(t).trim_end_matches('.');
    let needs = ["about ", "more than "]
        .iter()
        .filter_map(|p| {
            let i = t.find(&format!("; {p}"))?;
            let rest = &t[i + 2..];
            let end = rest
                .find(" at this noise")
                .map(|k| k + " at this noise".len())?;
            Some(rest[..end].to_string())
        })
        .next();
    let mut out = match needs {
        Some(n) if !first.contains(&n) => format!("{first}; {n}"),
        _ => first.to_string(),
    };
    // Too few repeats to decide: said last in the text, said here too.
    if let Some(i) = t.rfind("(a cell has ") {
        out.push_str("; ");
        out.push_str(t[i + 1..].trim_end_matches(')'));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::claims::fixture::{plan, rows, GAP};
    use crate::report::doc::{html, markdown};

    #[test]
    fn a_claim_line_sets_the_measured_ratio_beside_the_published_one() {
        let plan = plan(GAP);
        let rows = rows(&plan);
        let blocks = section(&plan, &rows, &["c".into()]);
        let md = markdown(&blocks);
        let line = md
            .lines()
            .find(|l| l.starts_with("- **No filter writes faster.**"))
            .unwrap_or_else(|| panic!("{md}"));
        // none at 104 against bloom64 at 100, in the finding's own b/a.
        assert!(
            line.contains("strata **reproduced** (published none/bloom64 1.042 · measured 1.040 ["),
            "{line}"
        );
        assert!(
            line.contains("; [chart](charts/c.svg), [rows](claims/gap.csv)):"),
            "{line}"
        );
        let h = html("t", &blocks, std::path::Path::new("/nonexistent"));
        assert!(
            h.contains("<span class=\"ratio\">published none/bloom64 1.042 · measured 1.040 ["),
            "{h}"
        );
        // The ratios and the reason are set apart.
        assert!(
            h.contains("];</span> <span class=\"why\">within the expected 1.02-1.08</span>"),
            "{h}"
        );
        assert!(
            h.contains("<a href=\"#chart-c\">chart</a>, <a href=\"claims/gap.csv\">rows</a>"),
            "{h}"
        );
        // The published ratio is named as the verdict names its ratio.
        let (_, j) = &judged(&plan, &rows, "strata")[0];
        let f = plan.loaded.spec.findings[0].get_ref();
        assert_eq!(
            j.pooled.as_ref().map(|p| p.label.clone()),
            ratio_label(&plan, f)
        );
        assert!(j.text.contains("none/bloom64 1.040 ["), "{}", j.text);
    }

    #[test]
    fn why_keeps_the_reason_and_the_repeats_needed() {
        let j = Judgement::new(
            Verdict::Inconclusive,
            "the intervals at fillseq do not clear 2% either way. bloom64/none fillseq 1.033 [0.954, 1.119]; about 40 repeats per cell would decide it at this noise",
        );
        assert_eq!(
            why(&j),
            "the intervals at fillseq do not clear 2% either way; about 40 repeats per cell would decide it at this noise"
        );
        let j = Judgement::new(
            Verdict::Reproduced,
            "within the expected 1.4-1.6. fast/inline 1.500",
        );
        assert_eq!(why(&j), "within the expected 1.4-1.6");
    }

    #[test]
    fn claims_without_data_say_why() {
        let skipped = Judgement::new(
            Verdict::NoData,
            "leveldb did not run these cells: it lacks `--x` (see \"Skipped cells\")",
        );
        let unreported = Judgement::new(Verdict::NoData, "leveldb's runs do not report cpu_us_op");
        let held = Judgement::new(Verdict::Reproduced, "clear");
        let judged =
            |id: &str, j: &Judgement| (id.to_string(), String::new(), String::new(), j.clone());
        let all = vec![(
            "leveldb".to_string(),
            vec![judged("a", &skipped), judged("b", &skipped)],
        )];
        assert_eq!(
            answer_text(&all),
            "On leveldb, of 2 published claims, none has data (it lacks `--x`)."
        );
        let some = vec![(
            "leveldb".to_string(),
            vec![
                judged("a", &held),
                judged("b", &skipped),
                judged("c", &unreported),
            ],
        )];
        assert_eq!(
            answer_text(&some),
            "On leveldb, of 3 published claims, 1 holds (`a`); 2 have no data (`b`: it lacks `--x`; `c`: its runs do not report cpu_us_op)."
        );
    }
}
