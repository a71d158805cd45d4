//! Adaptive repeats (`lab run --until-decided`): after the study's repeats,
//! the cells of claims still undecided get more repeats, round by round,
//! at the counts of [`schedule`] (3, 6, 12, 20), until every claim is
//! decided, the repeats reach `--max-repeats`, or the run's `--budget`
//! runs out. Every verdict of such a run is read at 5% over the number of
//! planned looks (Bonferroni), so that judging after each round keeps each
//! false verdict at most 5% (`judge::verdict::sim` measures it).

use crate::judge::verdict::power::needed_in;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::time::{Duration, Instant};

use crate::data::results::{HostInfo, ResultRow};
use crate::judge::findings::{cells_of, facet_without_data, judge};
use crate::judge::verdict::estimate::with_looks;
use crate::judge::verdict::power::schedule;
use crate::judge::verdict::{Judgement, Verdict};
use crate::run::engines::EngineCmd;
use crate::run::hygiene::{execution_order, Settle};
use crate::run::layout::merge;
use crate::run::runner::run_job;
use crate::spec::model::{Job, Plan};

/// What `--until-decided` asks for.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Adaptive {
    /// The most repeats any cell gets.
    pub max_repeats: u32,
    /// Wall time after which no new round starts (from the run's start).
    pub budget: Option<Duration>,
}

/// The repeat counts at which claims are judged, from the plan's repeats.
pub(crate) fn plan_schedule(plan: &Plan, a: &Adaptive) -> Vec<u32> {
    schedule(plan.repeats as usize, a.max_repeats as usize)
        .into_iter()
        .map(|n| n as u32)
        .collect()
}

/// Whether more repeats, up to `max_repeats` per cell, could decide a
/// claim judged `j`: only an inconclusive or direction-only verdict asks,
/// and not when its text says the repeats that would decide it are more
/// than twice `max_repeats` (at the cap its interval would still be about
/// 1.4 times wider than the distance it must clear; the factor two leaves
/// room for the uncertainty of a noise measured from a few repeats) or
/// more than a thousand, nor when a facet without data keeps it undecided
/// whatever the repeats.
pub(crate) fn asks_for_repeats(j: &Judgement, max_repeats: u32) -> bool {
    if !matches!(j.verdict, Verdict::Inconclusive | Verdict::DirectionOnly) {
        return false;
    }
    match needed_in(&j.text) {
        Some(n) if n.too_close => false,
        Some(n) => n
            .about
            .is_none_or(|about| about <= 2 * max_repeats as usize),
        None => !facet_without_data(&j.text),
    }
}

/// The cells (engine, cell id) whose claims are still undecided after the
/// rows so far, judged at the schedule's looks: a claim on an engine that
/// [`asks_for_repeats`] asks for more repeats of every cell it compares.
pub(crate) fn undecided_cells(
    plan: &Plan,
    rows: &[ResultRow],
    engines: &[String],
    looks: u32,
    max_repeats: u32,
) -> BTreeSet<(String, String)> {
    with_looks(looks, || {
        let mut out = BTreeSet::new();
        for e in engines {
            for f in crate::report::verdicts::applicable(plan)
                .into_iter()
                .filter(|f| f.same_claim_as.is_none())
            {
                if !asks_for_repeats(&judge(plan, rows, f, e), max_repeats) {
                    continue;
                }
                for c in cells_of(plan, rows, f, e) {
                    out.insert((e.clone(), c));
                }
            }
        }
        out
    })
}

/// Runs the rounds after the plan's repeats; returns the schedule used.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_rounds(
    plan: &Plan,
    a: &Adaptive,
    engines: &[EngineCmd],
    sdir: &Path,
    host: &HostInfo,
    git: &Option<String>,
    settle: Settle,
    order_seed: u64,
    started: Instant,
) -> anyhow::Result<Vec<u32>> {
    let sched = plan_schedule(plan, a);
    let looks = sched.len() as u32;
    let names: Vec<String> = engines.iter().map(|e| e.engine.clone()).collect();
    for &target in sched.iter().skip(1) {
        if a.budget.is_some_and(|b| started.elapsed() >= b) {
            eprintln!("until-decided: the budget is spent; no round to {target} repeats");
            break;
        }
        let rows = merge(sdir)?;
        let mut rows_g = rows.clone();
        crate::judge::guards::apply(&mut rows_g);
        let wanted = undecided_cells(plan, &rows_g, &names, looks, a.max_repeats);
        if wanted.is_empty() {
            eprintln!(
                "until-decided: no claim is left that {} repeats per cell could decide \
                 (the report gives each undecided claim the repeats it would need)",
                a.max_repeats
            );
            break;
        }
        // Repeats each wanted cell has so far.
        let mut have: BTreeMap<(String, String), u32> = BTreeMap::new();
        for r in &rows {
            let k = (r.engine.clone(), r.cell_id.clone());
            let e = have.entry(k).or_insert(0);
            *e = (*e).max(r.repeat + 1);
        }
        let mut jobs: Vec<Job> = Vec::new();
        for (e, c) in &wanted {
            let Some(cell) = plan.cells.iter().find(|x| &x.id == c) else {
                continue;
            };
            let from = have.get(&(e.clone(), c.clone())).copied().unwrap_or(0);
            for r in from..target {
                jobs.push(Job {
                    index: plan.jobs.len() + jobs.len(),
                    cell: cell.clone(),
                    engine: e.clone(),
                    repeat: r,
                });
            }
        }
        eprintln!(
            "until-decided: {} cells of undecided claims to {target} repeats ({} runs)",
            wanted.len(),
            jobs.len()
        );
        let refs: Vec<&Job> = jobs.iter().collect();
        for job in execution_order(&refs, order_seed ^ u64::from(target)) {
            if let Some(w) = settle.run() {
                eprintln!("warning: {w}");
            }
            let eng = engines
                .iter()
                .find(|x| x.engine == job.engine)
                .ok_or_else(|| "engine unavailable".to_string());
            run_job(plan, job, eng, sdir, host, git)?;
        }
    }
    merge(sdir)?;
    Ok(sched)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::verdict::power::needs_text;

    fn j(v: Verdict, text: &str) -> Judgement {
        Judgement::new(v, text)
    }

    #[test]
    fn only_claims_the_cap_could_decide_ask_for_repeats() {
        let near = format!("unclear; {}", needs_text(30));
        let far = format!("unclear; {}", needs_text(41));
        assert!(asks_for_repeats(&j(Verdict::Inconclusive, &near), 20));
        assert!(asks_for_repeats(&j(Verdict::DirectionOnly, &near), 20));
        // Beyond twice the cap: the cap's repeats would rarely decide it.
        assert!(!asks_for_repeats(&j(Verdict::Inconclusive, &far), 20));
        assert!(asks_for_repeats(&j(Verdict::Inconclusive, &far), 21));
        let never = format!("unclear; {}", needs_text(5000));
        assert!(!asks_for_repeats(&j(Verdict::Inconclusive, &never), 20));
        // Decided claims ask for none; an undecided one without an
        // estimate asks, unless a facet without data holds it.
        assert!(!asks_for_repeats(&j(Verdict::Reproduced, &near), 20));
        assert!(asks_for_repeats(&j(Verdict::Inconclusive, "unclear"), 20));
        assert!(!asks_for_repeats(
            &j(
                Verdict::Inconclusive,
                "judged at each of 2 facets. [p] reproduced: x [q] no data: y"
            ),
            20
        ));
    }
}
