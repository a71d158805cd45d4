//! What a tuning runs next: a pure function of the tuning file and the
//! trials run so far with their outcomes.
//!
//! The search spends its budget in this order: the baseline; the starting
//! configurations (what the studies found); a space-filling design; then
//! the model's proposals. Whenever the model's leader (the configuration
//! with the best posterior mean) has a single run, the next run repeats it,
//! up to a quarter of the budget, so one lucky run does not win. After the
//! budget, the winner and the baseline run `confirm_repeats` times each,
//! alternating, for the confirmation test. Measured against a reference
//! grid, the winner and the grid's best cell then run `confirm_repeats`
//! times each, alternating, so the two compare on equal terms (a grid's
//! best single run is the luckiest of many).

use crate::tune::objective::Outcome;
use crate::tune::search::{propose, recommend, Config, Observation, Space};
use crate::tune::spec::LoadedTune;
use crate::tune::trials::{Phase, Trial};

/// The id of the baseline configuration.
pub(crate) const BASELINE_ID: &str = "t000";
/// `why` of a repeat of the leader.
const WHY_REPEAT: &str = "repeat of the leader";
/// `why` of a space-filling run.
const WHY_FILL: &str = "space-filling";

/// What to do next for one engine.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Next {
    /// Run these (new) trials.
    Run(Vec<Trial>),
    /// Trials planned earlier have no results yet.
    Wait(Vec<Trial>),
    /// The search and its confirmation are complete.
    Done,
}

/// The search's observations: one per finished search run. A run without
/// a value (failed) counts as infeasible at the worst value seen.
pub(crate) fn observations(done: &[(Trial, Option<Outcome>)]) -> Vec<Observation> {
    let worst = done
        .iter()
        .filter_map(|(_, o)| o.as_ref()?.value)
        .fold(f64::INFINITY, f64::min);
    let worst = if worst.is_finite() { worst } else { 0.0 };
    done.iter()
        .filter(|(t, _)| t.phase == Phase::Search)
        .filter_map(|(t, o)| {
            let o = o.as_ref()?;
            Some(Observation {
                config: t.config.clone(),
                value: o.value.unwrap_or(worst),
                feasible: o.feasible && o.value.is_some(),
            })
        })
        .collect()
}

/// The search's winner so far: the model's recommendation among the
/// feasible configurations run.
pub(crate) fn winner(space: &Space, done: &[(Trial, Option<Outcome>)]) -> Option<Config> {
    recommend(space, &observations(done))
}

/// The next trials of `engine`, at most `batch` in the search. `done` holds
/// this engine's trials in order with their outcomes (`None`: not run
/// yet); `first_index` is the log's next index; `reference` is a reference
/// grid's best configuration, when the tuning is measured against one.
pub(crate) fn next(
    tune: &LoadedTune,
    space: &Space,
    engine: &str,
    done: &[(Trial, Option<Outcome>)],
    batch: usize,
    first_index: usize,
    reference: Option<&Config>,
) -> Next {
    let pending: Vec<Trial> = done
        .iter()
        .filter(|(_, o)| o.is_none())
        .map(|(t, _)| t.clone())
        .collect();
    if !pending.is_empty() {
        return Next::Wait(pending);
    }
    let s = &tune.spec;
    let batch = batch.max(1);
    let search: Vec<&Trial> = done
        .iter()
        .map(|(t, _)| t)
        .filter(|t| t.phase == Phase::Search)
        .collect();
    let mut ids: Vec<(Config, String)> = Vec::new();
    for t in &search {
        if !ids.iter().any(|(c, _)| c == &t.config) {
            ids.push((t.config.clone(), t.id.clone()));
        }
    }
    let mut out: Vec<Trial> = Vec::new();
    let mut add = |config: Config, phase: Phase, why: String, out: &mut Vec<Trial>| {
        let id = match ids.iter().find(|(c, _)| c == &config) {
            Some((_, id)) => id.clone(),
            None => {
                let id = format!("t{:03}", ids.len());
                ids.push((config.clone(), id.clone()));
                id
            }
        };
        out.push(Trial {
            index: first_index + out.len(),
            engine: engine.to_string(),
            id,
            phase,
            repeat: 0,
            config,
            why,
        });
    };
    let n = search.len();
    if n < s.budget {
        let room = batch.min(s.budget - n);
        let ran = |c: &Config, out: &[Trial]| {
            search.iter().any(|t| &t.config == c) || out.iter().any(|t| &t.config == c)
        };
        if n == 0 {
            add(tune.baseline(), Phase::Search, "baseline".into(), &mut out);
        }
        for (note, c) in tune.starts() {
            if out.len() < room && !ran(&c, &out) {
                add(c, Phase::Search, format!("start: {note}"), &mut out);
            }
        }
        let fills = search.iter().filter(|t| t.why == WHY_FILL).count()
            + out.iter().filter(|t| t.why == WHY_FILL).count();
        if fills < tune.initial() && out.len() < room {
            let design = space.initial_design(tune.initial(), s.seed);
            let mut left = tune.initial() - fills;
            for c in design {
                if left == 0 || out.len() >= room {
                    break;
                }
                if !ran(&c, &out) {
                    add(c, Phase::Search, WHY_FILL.into(), &mut out);
                    left -= 1;
                }
            }
        }
        if out.is_empty() {
            let obs = observations(done);
            let repeats = search.iter().filter(|t| t.why == WHY_REPEAT).count();
            if let Some(lead) = recommend(space, &obs) {
                let runs = search.iter().filter(|t| t.config == lead).count();
                if runs == 1 && repeats < s.budget / 4 {
                    add(lead, Phase::Search, WHY_REPEAT.into(), &mut out);
                }
            }
            let want = room - out.len();
            if want > 0 {
                let seed = s.seed.wrapping_mul(1_000_003).wrapping_add(n as u64);
                for c in propose(space, &obs, want, seed) {
                    add(c, Phase::Search, "model".into(), &mut out);
                }
            }
        }
        // Repeats take their repeat number from the runs before them.
        for t in out.iter_mut() {
            t.repeat = search.iter().filter(|s| s.config == t.config).count() as u32;
        }
        return if out.is_empty() {
            Next::Done
        } else {
            Next::Run(out)
        };
    }
    // The confirmation: the winner chosen when it was first planned.
    let confirm: Vec<&Trial> = done
        .iter()
        .map(|(t, _)| t)
        .filter(|t| t.phase == Phase::Confirm)
        .collect();
    let chosen = confirm
        .iter()
        .find(|t| t.id != BASELINE_ID)
        .map(|t| t.config.clone())
        .or_else(|| winner(space, done));
    let Some(best) = chosen else {
        return Next::Done;
    };
    let base = tune.baseline();
    if best == base {
        return Next::Done;
    }
    let reps = s.confirm_repeats as usize;
    let mut k = confirm.len();
    while k < 2 * reps {
        let (c, r) = if k.is_multiple_of(2) {
            (base.clone(), k / 2)
        } else {
            (best.clone(), k / 2)
        };
        add(c, Phase::Confirm, "confirmation".into(), &mut out);
        if let Some(t) = out.last_mut() {
            t.repeat = r as u32;
        }
        k += 1;
    }
    // Then the winner against the reference grid's best cell.
    if let Some(grid_best) = reference.filter(|r| out.is_empty() && **r != best) {
        let mut k = done
            .iter()
            .filter(|(t, _)| t.phase == Phase::Reference)
            .count();
        while k < 2 * reps {
            let c = if k.is_multiple_of(2) {
                best.clone()
            } else {
                grid_best.clone()
            };
            add(
                c,
                Phase::Reference,
                "against the grid's best".into(),
                &mut out,
            );
            if let Some(t) = out.last_mut() {
                t.repeat = (k / 2) as u32;
            }
            k += 1;
        }
    }
    if out.is_empty() {
        Next::Done
    } else {
        Next::Run(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tune::spec::parse;
    use std::path::Path;

    fn tune() -> LoadedTune {
        parse(crate::tune::spec::tests::TUNE, Path::new("t.toml")).unwrap()
    }

    /// A smooth objective with its peak at a 16 MiB buffer under universal compaction.
    fn score(c: &Config) -> f64 {
        let w: f64 = c["write_buffer_size"].parse().unwrap();
        let x = (w.log2() - 24.0) / 2.0;
        -x * x / 2.0
            + if c["compaction_style"] == "1" {
                0.2
            } else {
                0.0
            }
    }

    fn outcome(v: f64) -> Outcome {
        Outcome {
            value: Some(v),
            shown: Some(v.exp()),
            feasible: true,
            why: None,
        }
    }

    /// Runs the policy to the end with `score` as every run's result.
    fn drive(t: &LoadedTune, batch: usize) -> Vec<(Trial, Option<Outcome>)> {
        drive_against(t, batch, None)
    }

    /// [`drive`], measured against a reference grid's best `reference`.
    fn drive_against(
        t: &LoadedTune,
        batch: usize,
        reference: Option<&Config>,
    ) -> Vec<(Trial, Option<Outcome>)> {
        let space = t.space().unwrap();
        let mut done: Vec<(Trial, Option<Outcome>)> = Vec::new();
        for _ in 0..100 {
            match next(t, &space, "strata", &done, batch, done.len(), reference) {
                Next::Done => return done,
                Next::Wait(p) => panic!("nothing is pending here: {p:?}"),
                Next::Run(new) => {
                    assert!(new.len() <= batch.max(2 * t.spec.confirm_repeats as usize));
                    for (i, tr) in new.into_iter().enumerate() {
                        assert_eq!(tr.index, done.len(), "indexes follow the log ({i})");
                        let v = score(&tr.config);
                        done.push((tr, Some(outcome(v))));
                    }
                }
            }
        }
        panic!("the policy does not end");
    }

    #[test]
    fn against_a_reference_the_winner_and_the_grid_best_alternate_last() {
        let t = tune();
        let plain = drive(&t, 1);
        let mut grid_best = t.baseline();
        grid_best.insert("write_buffer_size".into(), "4194304".into());
        let done = drive_against(&t, 1, Some(&grid_best));
        let reps = t.spec.confirm_repeats as usize;
        assert_eq!(done.len(), plain.len() + 2 * reps);
        assert_eq!(
            &done[..plain.len()],
            &plain[..],
            "the same search and confirmation first"
        );
        let winner = plain
            .iter()
            .find(|(t, _)| t.phase == Phase::Confirm && t.id != BASELINE_ID)
            .map(|(t, _)| t.config.clone())
            .unwrap();
        assert_ne!(
            winner, grid_best,
            "this test needs a winner apart from the grid's best"
        );
        for (k, (tr, _)) in done[plain.len()..].iter().enumerate() {
            assert_eq!(tr.phase, Phase::Reference);
            assert_eq!(tr.repeat as usize, k / 2);
            let want = if k % 2 == 0 { &winner } else { &grid_best };
            assert_eq!(&tr.config, want, "{k}");
        }
        // A winner that is the grid's best has nothing to compare with.
        let same = drive_against(&t, 1, Some(&winner));
        assert_eq!(same.len(), plain.len());
    }

    #[test]
    fn the_budget_runs_in_order_then_the_confirmation_alternates() {
        let t = tune();
        let done = drive(&t, 1);
        let whys: Vec<&str> = done.iter().map(|(t, _)| t.why.as_str()).collect();
        assert_eq!(whys[0], "baseline");
        assert_eq!(done[0].0.id, BASELINE_ID);
        assert_eq!(done[0].0.config, t.baseline());
        assert_eq!(whys[1], "start: study 3's sweet spot");
        assert_eq!(&whys[2..2 + t.initial()], &[WHY_FILL; 2]);
        let search = done
            .iter()
            .filter(|(t, _)| t.phase == Phase::Search)
            .count();
        assert_eq!(search, t.spec.budget);
        assert!(whys.contains(&"model"));
        let confirm: Vec<&Trial> = done
            .iter()
            .map(|(t, _)| t)
            .filter(|t| t.phase == Phase::Confirm)
            .collect();
        assert_eq!(confirm.len(), 6);
        for (k, c) in confirm.iter().enumerate() {
            assert_eq!(c.id == BASELINE_ID, k % 2 == 0, "{confirm:?}");
            assert_eq!(c.repeat as usize, k / 2);
        }
        // The confirmed winner is the search's recommendation.
        let space = t.space().unwrap();
        let searched: Vec<(Trial, Option<Outcome>)> = done
            .iter()
            .filter(|(t, _)| t.phase == Phase::Search)
            .cloned()
            .collect();
        assert_eq!(Some(confirm[1].config.clone()), winner(&space, &searched));
        // Repeats of one configuration count up; ids stay the configuration's.
        for (tr, _) in &done {
            let same: Vec<&Trial> = done
                .iter()
                .map(|(t, _)| t)
                .filter(|t| t.config == tr.config && t.phase == tr.phase)
                .collect();
            assert!(same.iter().all(|t| t.id == tr.id));
        }
        let reps = whys.iter().filter(|w| **w == WHY_REPEAT).count();
        assert!(reps <= t.spec.budget / 4, "{reps} repeats");
    }

    #[test]
    fn batches_fill_rounds_and_pending_runs_are_waited_for() {
        let t = tune();
        let done = drive(&t, 3);
        assert_eq!(
            done.iter()
                .filter(|(t, _)| t.phase == Phase::Search)
                .count(),
            t.spec.budget
        );
        let space = t.space().unwrap();
        let first = match next(&t, &space, "strata", &[], 3, 0, None) {
            Next::Run(v) => v,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            first.len(),
            3,
            "baseline, the start and a space-filling run"
        );
        let pending: Vec<(Trial, Option<Outcome>)> = first.into_iter().map(|t| (t, None)).collect();
        assert!(matches!(
            next(&t, &space, "strata", &pending, 3, 3, None),
            Next::Wait(p) if p.len() == 3
        ));
    }

    #[test]
    fn a_failed_run_is_infeasible_at_the_worst_value() {
        let trial = |i: usize, v: Option<f64>| {
            let mut tr = Trial {
                index: i,
                engine: "strata".into(),
                id: format!("t{i:03}"),
                phase: Phase::Search,
                repeat: 0,
                config: Config::new(),
                why: "model".into(),
            };
            tr.config.insert("write_buffer_size".into(), i.to_string());
            let o = Outcome {
                value: v,
                shown: v,
                feasible: v.is_some(),
                why: None,
            };
            (tr, Some(o))
        };
        let obs = observations(&[trial(0, Some(2.0)), trial(1, None), trial(2, Some(1.0))]);
        assert_eq!(obs.len(), 3);
        assert!(!obs[1].feasible && obs[1].value == 1.0);
    }
}
