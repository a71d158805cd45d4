//! "What this run shows": the statements computed from the data, each under
//! the published claim it bears on (the same step, metric and series) and
//! the rest under "Other statements"; a screen of them first, claims
//! first, and the rest collapsed.

use crate::judge::statements::Statement;
use crate::report::doc::Block;
use crate::report::verdicts::applicable;
use crate::spec::model::Plan;

/// How many statements the section shows before the collapsed rest: about
/// a screen.
pub(crate) const SHOWN: usize = 12;

/// The section's blocks.
pub(crate) fn section(plan: &Plan, statements: Vec<Statement>) -> Vec<Block> {
    let mut out = vec![Block::H(2, "What this run shows".into())];
    if statements.is_empty() {
        out.push(Block::P(
            "No successful runs to draw conclusions from.".into(),
        ));
        return out;
    }
    let groups = grouped(plan, statements);
    let claims = groups.iter().filter(|(t, _)| t.is_some()).count();
    out.push(Block::P(format!(
        "A statement comparing two series or the points of a line says only what the repeats show against a minimum effect of 5%, with 90% intervals, as the verdicts read them. {}",
        if claims > 0 {
            "Statements about a published claim's metric, step and series come first, under the claim; the others follow."
        } else {
            "No statement is about a published claim's metric, step and series."
        }
    )));
    let mut left = SHOWN;
    let mut rest: Vec<(Option<String>, Vec<String>)> = Vec::new();
    for (title, mut texts) in groups {
        let later = texts.split_off(left.min(texts.len()));
        left -= texts.len();
        if !texts.is_empty() {
            out.push(Block::H(3, heading(&title)));
            out.push(Block::List(texts));
        }
        if !later.is_empty() {
            rest.push((title, later));
        }
    }
    if !rest.is_empty() {
        let n: usize = rest.iter().map(|(_, t)| t.len()).sum();
        let mut inner = Vec::new();
        for (title, texts) in rest {
            inner.push(Block::H(3, heading(&title)));
            inner.push(Block::List(texts));
        }
        out.push(Block::Details(
            format!(
                "More: {n} further statement{}",
                if n == 1 { "" } else { "s" }
            ),
            inner,
        ));
    }
    out
}

fn heading(title: &Option<String>) -> String {
    title.clone().unwrap_or_else(|| "Other statements".into())
}

/// The statements by the claim they bear on, in the study's order of
/// claims (a claim restated on another metric with `same_claim_as` gathers
/// under the claim it restates), then those bearing on none (`None`).
fn grouped(plan: &Plan, statements: Vec<Statement>) -> Vec<(Option<String>, Vec<String>)> {
    let findings = applicable(plan);
    let claim_of = |id: &str| {
        findings
            .iter()
            .find(|f| f.id == id)
            .map(|f| format!("{} ({})", f.claim, f.id))
            .unwrap_or_else(|| id.to_string())
    };
    let mut groups: Vec<(Option<String>, Vec<String>)> = Vec::new();
    let mut push = |key: Option<String>, text: String| match groups.iter_mut().find(|g| g.0 == key)
    {
        Some(g) => g.1.push(text),
        None => groups.push((key, vec![text])),
    };
    let mut other = Vec::new();
    // Claims in the study's order: a pass per finding.
    let mut placed = vec![false; statements.len()];
    for f in &findings {
        let id = f.same_claim_as.as_deref().unwrap_or(&f.id);
        for (i, s) in statements.iter().enumerate() {
            if !placed[i] && s.about.as_ref().is_some_and(|a| a.bears_on(f)) {
                placed[i] = true;
                push(Some(claim_of(id)), s.text.clone());
            }
        }
    }
    for (i, s) in statements.into_iter().enumerate() {
        if !placed[i] {
            other.push(s.text);
        }
    }
    // A restated claim's statements join its own group, which may come later.
    groups.sort_by_key(|(k, _)| {
        findings
            .iter()
            .position(|f| k.as_deref() == Some(claim_of(&f.id).as_str()))
            .unwrap_or(usize::MAX)
    });
    if !other.is_empty() {
        groups.push((None, other));
    }
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::statements::About;
    use crate::report::claims::fixture::{plan, GAP};
    use crate::report::doc::markdown;

    fn about(step: &str, metric: &str, fill: Option<&str>) -> Option<About> {
        Some(About {
            step: step.into(),
            metric: metric.into(),
            x: "fill".into(),
            series: Some("bloom".into()),
            facet: fill
                .map(|f| [("fill".to_string(), f.to_string())].into())
                .unwrap_or_default(),
            line: None,
        })
    }

    #[test]
    fn statements_go_under_the_claim_they_bear_on_and_a_screen_is_shown() {
        let plan = plan(GAP);
        let mut st = vec![Statement {
            text: "Recommendation for strata: x.".into(),
            about: None,
        }];
        for i in 0..15 {
            st.push(Statement {
                text: format!("other metric {i}."),
                about: about("fill", "p99", None),
            });
        }
        st.push(Statement {
            text: "ops at fill.".into(),
            about: about("fill", "ops_sec", None),
        });
        // A facet the claim does not look at: not about it.
        st.push(Statement {
            text: "ops elsewhere.".into(),
            about: about("fill", "ops_sec", Some("fillrandom")),
        });
        let b = section(&plan, st);
        let md = markdown(&b);
        let claim = md.find("### No filter writes faster. (gap)\n\n- ops at fill.\n");
        let other = md.find("### Other statements\n\n- Recommendation for strata: x.\n");
        assert!(claim.is_some() && other.is_some() && claim < other, "{md}");
        // 12 shown: the claim's one, then 11 others; the rest collapsed.
        let more = md.find("<details><summary>More: 6 further statements</summary>\n\n### Other statements\n\n- other metric 10.\n").unwrap_or_else(|| panic!("{md}"));
        assert!(md[..more].contains("- other metric 9.\n"), "{md}");
        assert!(md[more..].contains("- ops elsewhere.\n"), "{md}");
        assert!(md.trim_end().ends_with("</details>"), "{md}");
    }
}
