//! Bad study and tuning files: every shipped file under `studies/` and
//! `tunes/`, mutated many ways (lines deleted, duplicated, swapped or cut
//! short, values replaced by zero, negative, huge, non-finite, empty or
//! wrongly typed ones), must give either a plan or an error naming the
//! file, never a panic. Each mutant goes through what `lab run`, `lab plan`
//! and `lab tune` do before the first benchmark runs: parse and check, then
//! expand at every scale (step flags, command lines, disk needs) and, for a
//! tuning file, build the space, the baseline, the starts, the initial
//! design, a grid and a first proposal.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::spec::model::{expand_with, step_command};
use crate::tune::search::propose;

/// Replacement values: each is valid TOML in a value position.
const VALUES: &[&str] = &[
    "0",
    "-1",
    "1",
    "2",
    "-9223372036854775808",
    "9223372036854775807",
    "1e308",
    "-1e308",
    "nan",
    "inf",
    "-inf",
    "0.0",
    "-0.5",
    "\"\"",
    "\"0\"",
    "\"-1\"",
    "\"a;b=c\"",
    "\"=\"",
    "\"{\"",
    "\"nan\"",
    "\"..\"",
    "\"/\"",
    "\"fillrandom,fillrandom\"",
    "[]",
    "[0]",
    "[\"\"]",
    "[1, 1]",
    "{}",
    "true",
    "false",
];

/// One mutant of `text`.
fn mutate(text: &str, rng: &mut StdRng) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let rounds = 1 + rng.gen_range(0..3);
    for _ in 0..rounds {
        if lines.is_empty() {
            break;
        }
        let i = rng.gen_range(0..lines.len());
        match rng.gen_range(0..6) {
            0 => {
                lines.remove(i);
            }
            1 => {
                let l = lines[i].clone();
                lines.insert(i, l);
            }
            2 => {
                let j = rng.gen_range(0..lines.len());
                lines.swap(i, j);
            }
            3 => {
                let l = &lines[i];
                let cut = rng.gen_range(0..l.len() + 1);
                let cut = (0..=cut)
                    .rev()
                    .find(|&c| l.is_char_boundary(c))
                    .unwrap_or(0);
                lines[i] = l[..cut].to_string();
            }
            _ => {
                // Replace the value of a `key = value` line, or one element
                // of an inline array or table.
                let l = lines[i].clone();
                let Some(eq) = l.find('=') else { continue };
                let v = VALUES[rng.gen_range(0..VALUES.len())];
                let rest = &l[eq + 1..];
                let new = if rng.gen_range(0..2) == 0 {
                    format!("{} {v}", &l[..=eq])
                } else if let Some(c) = rest.find([',', ']', '}']) {
                    let start = rest[..c].rfind(['[', ',', '=', '{']).map_or(0, |s| s + 1);
                    format!("{}{} {v}{}", &l[..=eq], &rest[..start], &rest[c..])
                } else {
                    format!("{} {v}", &l[..=eq])
                };
                lines[i] = new;
            }
        }
    }
    lines.join("\n")
}

/// A refusal: its message must name the file (then `false`, not accepted).
fn names_file(e: &anyhow::Error, path: &Path) -> bool {
    let msg = format!("{e:#}");
    assert!(
        msg.contains(&path.display().to_string()),
        "the error does not name the file: {msg}"
    );
    false
}

/// What `lab run`/`lab plan` do with a study file before running it, then
/// the judging of its findings on made-up rows.
fn plan_study(text: &str, path: &Path) -> bool {
    let loaded = match crate::spec::parse(text, path) {
        Ok(l) => l,
        Err(e) => return names_file(&e, path),
    };
    let scales: Vec<String> = loaded.spec.scales.keys().cloned().collect();
    for scale in scales {
        for repeats in [None, Some(1)] {
            let Ok(plan) = expand_with(&loaded, &scale, repeats, None, &[]) else {
                continue;
            };
            plan_commands(&plan);
            // Judging is the slow part: one accepted mutant in eight.
            if repeats.is_none() && text.len().is_multiple_of(8) {
                judge_made_up_rows(&plan, text.len() as u64);
            }
        }
    }
    true
}

/// Rows for every job and step of `plan` (at most 400 jobs) with each
/// metric the findings name set to a made-up value, some of them zero;
/// then every finding judged for every engine, and the computed statements.
fn judge_made_up_rows(plan: &crate::spec::model::Plan, seed: u64) {
    let mut rng = StdRng::seed_from_u64(seed);
    let findings: Vec<_> = plan
        .loaded
        .spec
        .findings
        .iter()
        .map(|f| f.get_ref().clone())
        .collect();
    let mut metrics: Vec<String> = findings.iter().map(|f| f.metric.clone()).collect();
    metrics.push("ops_sec".into());
    let steps = plan.steps();
    let mut rows = Vec::new();
    for job in plan.jobs.iter().take(400) {
        for (i, step) in steps.iter().enumerate() {
            let mut r = crate::data::results::sample_row();
            r.engine = job.engine.clone();
            r.repeat = job.repeat;
            r.job_index = job.index;
            r.cell_id = job.cell.id.clone();
            r.cell = job.cell.labels.clone();
            r.step = step.label();
            r.step_index = i;
            r.metrics.clear();
            for m in &metrics {
                let v = match rng.gen_range(0..10) {
                    0 => 0.0,
                    _ => (rng.gen_range(0..1_000_000) + 1) as f64 / 100.0,
                };
                r.metrics.insert(m.clone(), v);
            }
            rows.push(r);
        }
    }
    for f in &findings {
        for e in &plan.engines {
            let _ = crate::judge::findings::judge(plan, &rows, f, e);
        }
    }
    let _ = crate::judge::statements::computed_findings(plan, &rows);
}

fn plan_commands(plan: &crate::spec::model::Plan) {
    let _ = plan.max_disk_need();
    for cell in plan.cells.iter().take(64) {
        let _ = plan.disk_need(cell);
        for i in 0..plan.steps().len() {
            let flags = plan.step_flags(cell, i);
            let _ = step_command(&["strata".into(), "bench".into()], &flags, Path::new("db"));
        }
    }
    for job in plan.jobs.iter().take(64) {
        let _ = job.key();
    }
}

/// What `lab tune` does with a tuning file before the first run.
fn plan_tune(text: &str, path: &Path) -> bool {
    let tune = match crate::tune::spec::parse(text, path) {
        Ok(t) => t,
        Err(e) => return names_file(&e, path),
    };
    let space = match tune.space() {
        Ok(s) => s,
        Err(e) => return names_file(&e, path),
    };
    let base = tune.baseline();
    let _ = space.check(&base);
    let _ = tune.starts();
    let n = tune.initial().min(32);
    let _ = space.initial_design(n, 1);
    let _ = space.grid(3);
    let _ = propose(&space, &[], 2, 1);
    let study = tune.as_study();
    let scales: Vec<String> = study.spec.scales.keys().cloned().collect();
    for scale in scales {
        if let Ok(plan) = expand_with(&study, &scale, Some(1), None, &[]) {
            plan_commands(&plan);
        }
    }
    true
}

/// Parses a capacity file and plans it at each scale with the search's
/// flags on the mix; an error must name the file.
fn plan_capacity(text: &str, path: &Path) -> bool {
    let cap = match crate::capacity::spec::parse(text, path) {
        Ok(c) => c,
        Err(e) => return names_file(&e, path),
    };
    let _ = cap.configs();
    let study = cap.as_study();
    let scales: Vec<String> = study.spec.scales.keys().cloned().collect();
    for scale in scales {
        if let Ok(plan) = expand_with(&study, &scale, Some(1), None, &[]) {
            plan_commands(&plan);
            let _ = crate::capacity::driver::live_bytes(&plan, &Default::default());
        }
    }
    true
}

/// Runs `check` on `per_file` mutants of each file; a panic fails with the
/// mutant's text. `check` says whether the text was accepted; at least a
/// tenth of the mutants must be (so the planning after the parse is
/// reached), and at least a tenth refused.
fn mutants_never_panic(dir: &str, per_file: usize, check: fn(&str, &Path) -> bool) {
    let mut failures = Vec::new();
    let (mut accepted, mut total) = (0, 0);
    for path in crate::testutil::shipped(dir) {
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(check(&text, &path), "{} is refused", path.display());
        let mut rng = StdRng::seed_from_u64(text.len() as u64);
        for k in 0..per_file {
            let m = mutate(&text, &mut rng);
            let outcome = catch_unwind(AssertUnwindSafe(|| check(&m, &path)));
            if let Ok(ok) = outcome {
                accepted += usize::from(ok);
                total += 1;
            }
            if let Err(e) = outcome {
                let msg = e
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                let diff: Vec<String> = m
                    .lines()
                    .filter(|l| !text.lines().any(|o| o == *l))
                    .map(str::to_string)
                    .collect();
                failures.push(format!(
                    "{} mutant {k}: panic `{msg}`; changed lines: {diff:?}",
                    path.display()
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{dir}: {accepted} of {total} mutants accepted");
    assert!(
        accepted * 10 >= total && accepted * 10 <= total * 9,
        "{dir}: {accepted} of {total} mutants accepted"
    );
}

/// Mutants per file: `STRATA_LAB_MUTANTS`, default 200 (a longer run:
/// `STRATA_LAB_MUTANTS=5000 cargo test -p strata-lab --release mutated`).
fn per_file() -> usize {
    std::env::var("STRATA_LAB_MUTANTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200)
}

#[test]
fn mutated_study_files_plan_or_fail_cleanly() {
    mutants_never_panic("studies", per_file(), plan_study);
}

#[test]
fn mutated_tuning_files_plan_or_fail_cleanly() {
    mutants_never_panic("tunes", per_file(), plan_tune);
}

#[test]
fn mutated_capacity_files_plan_or_fail_cleanly() {
    mutants_never_panic("studies/capacity", per_file(), plan_capacity);
}

#[test]
fn mutations_change_the_text() {
    let text = "a = 1\nb = [1, 2]\n[t]\nc = \"x\"\n";
    let mut rng = StdRng::seed_from_u64(7);
    let changed = (0..100).filter(|_| mutate(text, &mut rng) != text).count();
    assert!(changed > 80, "{changed}");
}
