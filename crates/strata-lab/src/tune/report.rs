//! The tuning's report (`report.md`), its convergence charts and the
//! chosen configurations as files: per engine, every run with why it ran,
//! the convergence, each option's estimated effect, the winner against the
//! baseline with the confirmation's interval, and the winner as a RocksDB
//! OPTIONS file and a Strata option string.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::tune::chart::{self, Point};
use crate::tune::confirm::{confirm, Confirmation};
use crate::tune::driver::{
    grid_cells, higher_is_better, outcomes, plan_of, read_meta, TuneOptions,
};
use crate::tune::export;
use crate::tune::objective::{label, Outcome};
use crate::tune::policy::{observations, winner, BASELINE_ID};
use crate::tune::search::{Config, Fitted};
use crate::tune::spec::{parse, LoadedTune};
use crate::tune::trials::{self, Phase, Trial};

/// What the report says of one engine, for tests and for `lab.md`'s figures.
#[derive(Clone, Debug)]
pub(crate) struct EngineSummary {
    /// Engine.
    pub engine: String,
    /// Search runs done.
    pub search_runs: usize,
    /// The winner's configuration, if a feasible one ran.
    pub winner: Option<Config>,
    /// The best single search run's objective as shown.
    pub best_shown: Option<f64>,
    /// The confirmation, when it ran.
    pub confirmation: Option<Confirmation>,
    /// The winner's confirmation runs' geometric mean, as shown.
    pub winner_mean: Option<f64>,
}

fn fmt(v: f64) -> String {
    if v.abs() >= 1000.0 {
        format!("{v:.0}")
    } else if v.abs() >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.3}")
    }
}

/// The options of `c` that differ from `base`, as `name=value` (or `baseline`).
fn changes(c: &Config, base: &Config) -> String {
    let v: Vec<String> = c
        .iter()
        .filter(|(k, v)| base.get(*k) != Some(*v))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    if v.is_empty() {
        "(baseline)".into()
    } else {
        v.join(", ")
    }
}

fn outcome_text(o: &Option<Outcome>) -> (String, String) {
    match o {
        None => ("not run".into(), String::new()),
        Some(o) => (
            o.shown.map(fmt).unwrap_or_else(|| "-".into()),
            if o.feasible {
                "yes".into()
            } else {
                format!("no: {}", o.why.clone().unwrap_or_default())
            },
        ),
    }
}

impl EngineSummary {
    /// One line for the terminal: the winner and what the confirmation says.
    pub(crate) fn line(&self) -> String {
        let win = match &self.winner {
            Some(w) => w
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" "),
            None => "no feasible configuration".into(),
        };
        let best = self.best_shown.map(fmt).unwrap_or_else(|| "-".into());
        let conf = match &self.confirmation {
            Some(c) => match c.interval {
                Some((lo, hi)) => format!(
                    "; {:.2}x the baseline (95% interval {lo:.2}-{hi:.2}), {}",
                    c.gain,
                    c.verdict.word()
                ),
                None => format!("; {:.2}x the baseline, {}", c.gain, c.verdict.word()),
            },
            None => String::new(),
        };
        format!(
            "{}: {} runs, best run {best}; winner {win}{conf}",
            self.engine, self.search_runs
        )
    }
}

/// Writes the report of a tuning directory; returns `report.md`'s path.
pub(crate) fn write(dir: &Path) -> anyhow::Result<(PathBuf, Vec<EngineSummary>)> {
    let tune = parse(
        &std::fs::read_to_string(dir.join("tune.toml"))
            .map_err(|e| anyhow::anyhow!("{}: {e}", dir.join("tune.toml").display()))?,
        &dir.join("tune.toml"),
    )?;
    let meta = read_meta(dir)?;
    let mut tune = tune;
    tune.spec.budget = meta.budget;
    tune.spec.seed = meta.seed;
    let log = trials::read(dir)?;
    let space = tune.space()?;
    let base = tune.baseline();
    let o = tune.spec.objective.get_ref();
    let higher = higher_is_better(&tune);
    let mut md = String::new();
    let _ = writeln!(md, "# Tuning: {}\n", tune.spec.title);
    let _ = writeln!(md, "Workload: {}\n", tune.spec.workload);
    let _ = writeln!(
        md,
        "- scale `{}`; search budget {} runs per engine; seed {}; confirmation {} runs each of the baseline and the winner, alternating",
        meta.scale, meta.budget, meta.seed, tune.spec.confirm_repeats
    );
    let _ = writeln!(
        md,
        "- objective: {} ({})",
        label(&tune.spec),
        if higher {
            "higher is better"
        } else {
            "lower is better"
        }
    );
    for c in &tune.spec.constraints {
        let c = c.get_ref();
        let _ = writeln!(
            md,
            "- constraint: {} of `{}`{}{}",
            c.metric,
            c.step.as_deref().unwrap_or(&o.step),
            c.min.map(|v| format!(" >= {v}")).unwrap_or_default(),
            c.max.map(|v| format!(" <= {v}")).unwrap_or_default()
        );
    }
    let _ = writeln!(
        md,
        "- searched: {}",
        tune.spec
            .params
            .iter()
            .map(|p| {
                let p = p.get_ref();
                if p.choices.is_empty() {
                    format!(
                        "{} {}..{}{}",
                        p.name,
                        p.min.as_ref().map(|v| v.to_string()).unwrap_or_default(),
                        p.max.as_ref().map(|v| v.to_string()).unwrap_or_default(),
                        if p.log { " (log)" } else { "" }
                    )
                } else {
                    format!(
                        "{} in {{{}}}",
                        p.name,
                        p.choices
                            .iter()
                            .map(|v| v.to_string())
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }
            })
            .collect::<Vec<_>>()
            .join("; ")
    );
    let _ = writeln!(md, "- baseline: {}", changes(&base, &Config::new()));
    for e in &meta.engines_run {
        let _ = writeln!(md, "- {} ran through {}", e.engine, e.how);
    }
    for n in &meta.notes {
        let _ = writeln!(md, "- note: {n}");
    }
    let _ = writeln!(md, "- command: `{}`\n", meta.command);
    let engines: Vec<String> = {
        let mut v: Vec<String> = Vec::new();
        for t in &log {
            if !v.contains(&t.engine) {
                v.push(t.engine.clone());
            }
        }
        v
    };
    let mut summaries = Vec::new();
    for e in &engines {
        if meta.grid.is_some() {
            summaries.push(grid_section(dir, &tune, e, higher, &mut md)?);
        } else {
            let s = engine_section(dir, &tune, &meta.scale, e, &space, higher, &mut md)?;
            if let Some(r) = &meta.reference {
                // A relative reference is the grid's place beside this directory.
                let at = if r.is_relative() {
                    dir.join(r)
                } else {
                    r.clone()
                };
                reference_section(dir, &at, r, &tune, e, &s, higher, &mut md)?;
            }
            summaries.push(s);
        }
    }
    let path = dir.join("report.md");
    std::fs::write(&path, md)?;
    Ok((path, summaries))
}

#[allow(clippy::too_many_arguments)]
fn engine_section(
    dir: &Path,
    tune: &LoadedTune,
    scale: &str,
    engine: &str,
    space: &crate::tune::search::Space,
    higher: bool,
    md: &mut String,
) -> anyhow::Result<EngineSummary> {
    let log = trials::read(dir)?;
    let done = outcomes(dir, tune, &log, engine);
    let base = tune.baseline();
    let _ = writeln!(md, "## {engine}\n");
    let _ = writeln!(
        md,
        "| run | config | why | options | objective | feasible |"
    );
    let _ = writeln!(md, "|---|---|---|---|---|---|");
    let search: Vec<&(Trial, Option<Outcome>)> = done
        .iter()
        .filter(|(t, _)| t.phase == Phase::Search)
        .collect();
    for (i, (t, o)) in search.iter().enumerate() {
        let (v, f) = outcome_text(o);
        let _ = writeln!(
            md,
            "| {} | {} | {} | {} | {v} | {f} |",
            i + 1,
            t.id,
            t.why,
            changes(&t.config, &base)
        );
    }
    let points: Vec<Point> = search
        .iter()
        .filter_map(|(_, o)| {
            let o = o.as_ref()?;
            Some(Point {
                shown: o.shown.unwrap_or(f64::NAN),
                feasible: o.feasible && o.value.is_some(),
            })
        })
        .collect();
    let stem = dir.join(format!("convergence-{engine}"));
    let y = label(&tune.spec);
    chart::render(
        &stem,
        &format!("{engine}: convergence"),
        &y,
        &points,
        higher,
    )?;
    let _ = writeln!(
        md,
        "\n![convergence](convergence-{engine}.svg)\n\nEach search run's objective in run order; the line is the best feasible run so far.\n"
    );
    let best_shown = chart::best_so_far(&points, higher)
        .last()
        .copied()
        .flatten();
    let win = confirm_winner(&done).or_else(|| winner(space, &done));
    let obs = observations(&done);
    if let Some(w) = &win {
        let _ = writeln!(md, "Winner: {}\n", changes(w, &base));
        if let Ok(f) = Fitted::fit(space, &obs) {
            let (m, sd) = f.predict(w);
            let (bm, _) = f.predict(&base);
            let _ = writeln!(
                md,
                "The model's estimate of the winner over the baseline: {:.2}x ({:.2}-{:.2}x at one posterior standard deviation); run-to-run spread {:.1}%.\n",
                (m - bm).exp(),
                (m - bm - sd).exp(),
                (m - bm + sd).exp(),
                (f.noise_sd().exp() - 1.0) * 100.0
            );
            let _ = writeln!(md, "| option | estimated effect |\n|---|---|");
            for (name, eff) in f.effects(w) {
                let _ = writeln!(
                    md,
                    "| {name} | {:.2}x between its worst and best value, the others at the winner's |",
                    eff.exp()
                );
            }
            md.push('\n');
        }
    } else {
        let _ = writeln!(md, "No feasible configuration ran.\n");
    }
    let pick = |id_is_base: bool| -> Vec<f64> {
        done.iter()
            .filter(|(t, _)| t.phase == Phase::Confirm && (t.id == BASELINE_ID) == id_is_base)
            .filter_map(|(_, o)| o.as_ref()?.value)
            .collect()
    };
    let confirmation = confirm(&pick(true), &pick(false));
    let wins = pick(false);
    let single_lower = tune.spec.objective.get_ref().metric.is_some() && !higher;
    let winner_mean = (!wins.is_empty()).then(|| {
        let m = wins.iter().sum::<f64>() / wins.len() as f64;
        if single_lower {
            (-m).exp()
        } else {
            m.exp()
        }
    });
    match (&confirmation, &win) {
        (Some(c), Some(_)) => {
            let (lo, hi) = c
                .interval
                .map(|(a, b)| (format!("{a:.2}"), format!("{b:.2}")))
                .unwrap_or(("?".into(), "?".into()));
            let _ = writeln!(
                md,
                "Confirmation ({} runs of the baseline, {} of the winner, alternating): the winner is **{:.2}x** the baseline (95% interval {lo}-{hi}): **{}**.\n",
                c.runs.0,
                c.runs.1,
                c.gain,
                c.verdict.word()
            );
        }
        (None, Some(w)) if *w == base => {
            let _ = writeln!(md, "The baseline is the winner: nothing to confirm.\n");
        }
        _ => {
            let _ = writeln!(md, "No confirmation ran.\n");
        }
    }
    if let Some(w) = &win {
        let plan = plan_of(
            tune,
            &TuneOptions {
                scale: scale.to_string(),
                engines: Some(vec![engine.to_string()]),
                budget: None,
                budget_minutes: None,
                batch: 1,
                seed: None,
                set: read_meta(dir).map(|m| m.set).unwrap_or_default(),
                timeout: None,
                single: false,
                grid: None,
                reference: None,
            },
        )?;
        let steps = plan.steps();
        let idx = steps
            .iter()
            .position(|s| s.label() == tune.spec.objective.get_ref().step)
            .unwrap_or(0);
        let cell = crate::spec::model::Cell {
            id: String::new(),
            labels: BTreeMap::new(),
            flags: w.clone(),
            cpus: None,
        };
        let flags = plan.step_flags(&cell, idx);
        match export::settings(&flags) {
            Ok(s) => {
                let ini = export::rocksdb_options_file(
                    &s,
                    &[
                        format!(
                            "The winner of tuning `{}` on {engine}: {}",
                            tune.spec.name,
                            changes(w, &base)
                        ),
                        "Every option its runs used (db_bench's defaults for the rest).".into(),
                    ],
                );
                std::fs::write(dir.join(format!("winner-{engine}.ini")), ini)?;
                let _ = writeln!(
                    md,
                    "- RocksDB OPTIONS file: [winner-{engine}.ini](winner-{engine}.ini)"
                );
                match export::strata_string(&s) {
                    Ok(text) => {
                        std::fs::write(
                            dir.join(format!("winner-{engine}.options")),
                            format!("{text}\n"),
                        )?;
                        let _ = writeln!(md, "- Strata options (`Options::from_str`): `{text}`\n");
                    }
                    Err(e) => {
                        let _ = writeln!(md, "- Strata options: {e}\n");
                    }
                }
            }
            Err(e) => {
                let _ = writeln!(md, "- the winner's options could not be derived: {e}\n");
            }
        }
    }
    Ok(EngineSummary {
        engine: engine.to_string(),
        search_runs: search.len(),
        winner: win,
        best_shown,
        confirmation,
        winner_mean,
    })
}

/// A reference grid's section: its best cells and the baseline.
fn grid_section(
    dir: &Path,
    tune: &LoadedTune,
    engine: &str,
    higher: bool,
    md: &mut String,
) -> anyhow::Result<EngineSummary> {
    let base = tune.baseline();
    let cells = grid_cells(dir, tune, engine, higher)?;
    let log = trials::read(dir)?;
    let total = log.iter().filter(|t| t.engine == engine).count();
    let _ = writeln!(
        md,
        "## {engine}: reference grid
"
    );
    let _ = writeln!(
        md,
        "{} configurations (the baseline and the grid), each run once; {} feasible. The best ten and the baseline:
",
        total,
        cells.len()
    );
    let _ = writeln!(
        md,
        "| rank | config | options | objective |
|---|---|---|---|"
    );
    for (i, (t, v)) in cells.iter().enumerate() {
        if i < 10 || t.id == BASELINE_ID {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} |",
                i + 1,
                t.id,
                changes(&t.config, &base),
                fmt(*v)
            );
        }
    }
    md.push('\n');
    Ok(EngineSummary {
        engine: engine.to_string(),
        search_runs: total,
        winner: cells.first().map(|(t, _)| t.config.clone()),
        best_shown: cells.first().map(|(_, v)| *v),
        confirmation: None,
        winner_mean: None,
    })
}

/// The winner against a reference grid: the grid's best cell, the
/// winner's confirmed mean as a share of it, the grid's value at the cell
/// nearest the winner, and the head-to-head runs of the winner and the
/// grid's best cell (the fair comparison: a grid's best single run is the
/// luckiest of many).
#[allow(clippy::too_many_arguments)]
fn reference_section(
    dir: &Path,
    grid_dir: &Path,
    shown: &Path,
    tune: &LoadedTune,
    engine: &str,
    s: &EngineSummary,
    higher: bool,
    md: &mut String,
) -> anyhow::Result<()> {
    let cells = grid_cells(grid_dir, tune, engine, higher)?;
    let Some((best_t, best)) = cells.first() else {
        let _ = writeln!(
            md,
            "The reference grid {} has no feasible cell of {engine}.\n",
            shown.display()
        );
        return Ok(());
    };
    let base = tune.baseline();
    let _ = writeln!(
        md,
        "Against the reference grid ({} cells, `{}`): its best cell is {} at {}.",
        cells.len(),
        shown.display(),
        changes(&best_t.config, &base),
        fmt(*best)
    );
    let share = |v: f64| if higher { v / best } else { best / v };
    if let Some(w) = &s.winner {
        let space = tune.space()?;
        let near = space.to_units(w).and_then(|u| {
            cells
                .iter()
                .filter_map(|(t, v)| {
                    let c = space.to_units(&t.config)?;
                    let d: f64 = c.iter().zip(&u).map(|(a, b)| (a - b).powi(2)).sum();
                    Some((d, t, *v))
                })
                .min_by(|a, b| a.0.total_cmp(&b.0))
        });
        if let Some((_, t, v)) = near {
            let _ = writeln!(
                md,
                "The grid cell nearest the winner ({}) measured {}: {:.1}% of the grid's best.",
                changes(&t.config, &base),
                fmt(v),
                share(v) * 100.0
            );
        }
    }
    if let Some(m) = s.winner_mean {
        let _ = writeln!(
            md,
            "The winner's confirmation runs average {}: {:.1}% of the grid's best.",
            fmt(m),
            share(m) * 100.0
        );
    }
    let log = trials::read(dir)?;
    let done = outcomes(dir, tune, &log, engine);
    let head: Vec<&(Trial, Option<Outcome>)> = done
        .iter()
        .filter(|(t, _)| t.phase == Phase::Reference)
        .collect();
    let runs = |c: &Config| -> Vec<f64> {
        head.iter()
            .filter(|(t, _)| &t.config == c)
            .filter_map(|(_, o)| o.as_ref()?.value)
            .collect()
    };
    let winner = head.first().map(|(t, _)| t.config.clone());
    if let Some(h) = winner.and_then(|w| confirm(&runs(&best_t.config), &runs(&w))) {
        let (lo, hi) = h
            .interval
            .map(|(a, b)| (format!("{:.1}", a * 100.0), format!("{:.1}", b * 100.0)))
            .unwrap_or(("?".into(), "?".into()));
        let _ = writeln!(
            md,
            "Head to head ({} runs of the grid's best cell, {} of the winner, alternating): the winner runs at **{:.1}%** of the grid's best cell (95% interval {lo}-{hi}%): **{}**.",
            h.runs.0,
            h.runs.1,
            h.gain * 100.0,
            if h.gain >= 0.95 {
                "within 5%"
            } else {
                "more than 5% below"
            }
        );
    }
    md.push('\n');
    Ok(())
}

/// The winner the confirmation ran, if it did.
fn confirm_winner(done: &[(Trial, Option<Outcome>)]) -> Option<Config> {
    done.iter()
        .find(|(t, _)| t.phase == Phase::Confirm && t.id != BASELINE_ID)
        .map(|(t, _)| t.config.clone())
}
