//! Running a tuning: the loop that asks the policy for the next runs,
//! logs them, runs them as study jobs and reads their outcomes; the same
//! steps one round at a time for `lab plan` (rounds spread over machines),
//! and one logged run by index for the lines it prints.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::data::results::{self, ResultRow, RUN_FILE};
use crate::run::engines::{resolve_engines, EngineCmd};
use crate::run::host::{git_commit, host_info};
use crate::run::layout::{merge, run_dir};
use crate::run::options::RunOptions;
use crate::run::process::shell_join;
use crate::run::runner::run_job;
use crate::spec::model::{expand_with, Plan};
use crate::tune::objective::{evaluate, Outcome};
use crate::tune::policy::{next, Next, BASELINE_ID};
use crate::tune::search::{Config, Space};
use crate::tune::spec::LoadedTune;
use crate::tune::trials::{self, Phase, Trial};

/// The options of `lab tune` beyond the output root and bench commands.
#[derive(Clone, Debug)]
pub(crate) struct TuneOptions {
    /// Scale.
    pub scale: String,
    /// Engines (default: the file's).
    pub engines: Option<Vec<String>>,
    /// Runs the search may spend per engine (default: the file's `budget`).
    pub budget: Option<usize>,
    /// End the search at the first run boundary after this many minutes.
    pub budget_minutes: Option<f64>,
    /// Configurations proposed per round.
    pub batch: usize,
    /// Seed (default: the file's).
    pub seed: Option<u64>,
    /// `--set` overrides of the fixed flags.
    pub set: Vec<(String, String)>,
    /// Per-step time limit in seconds.
    pub timeout: Option<u64>,
    /// Running one planned trial (`--run-index`), not the whole tuning.
    pub single: bool,
    /// Run a reference grid instead of the search: the baseline, then
    /// every configuration with each numeric option at this many levels.
    pub grid: Option<usize>,
    /// A reference grid's directory the report compares the winner with.
    pub reference: Option<PathBuf>,
}

/// Facts about a tuning directory, kept in `tune.json`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct TuneMeta {
    /// Tuning name.
    pub tune: String,
    /// Scale.
    pub scale: String,
    /// Engines that ran and how.
    pub engines_run: Vec<EngineCmd>,
    /// Notes for the report.
    pub notes: Vec<String>,
    /// Run budget of the search per engine.
    pub budget: usize,
    /// Seed.
    pub seed: u64,
    /// `--set` overrides.
    pub set: Vec<(String, String)>,
    /// The command line.
    pub command: String,
    /// Levels of a reference grid (this directory holds a grid, not a search).
    #[serde(default)]
    pub grid: Option<usize>,
    /// The reference grid the report compares the winner with.
    #[serde(default)]
    pub reference: Option<PathBuf>,
}

/// The tuning directory under `out` (`-grid` for a reference grid).
pub(crate) fn tune_dir(out: &Path, tune: &LoadedTune, o: &TuneOptions) -> PathBuf {
    let grid = if o.grid.is_some() { "-grid" } else { "" };
    out.join(format!("tune-{}-{}{grid}", tune.spec.name, o.scale))
}

/// The reference grid's trials not logged yet: the baseline first, then
/// every grid configuration once.
pub(crate) fn grid_trials(
    tune: &LoadedTune,
    space: &Space,
    engine: &str,
    levels: usize,
    log: &[Trial],
) -> Vec<Trial> {
    let own: Vec<&Trial> = log.iter().filter(|t| t.engine == engine).collect();
    let mut configs = vec![tune.baseline()];
    for c in space.grid(levels) {
        if !configs.contains(&c) {
            configs.push(c);
        }
    }
    let mut out = Vec::new();
    for (i, c) in configs.into_iter().enumerate() {
        if own.iter().any(|t| t.config == c) {
            continue;
        }
        out.push(Trial {
            index: log.len() + out.len(),
            engine: engine.to_string(),
            id: format!("t{i:03}"),
            phase: Phase::Search,
            repeat: 0,
            config: c,
            why: if i == 0 {
                "baseline".into()
            } else {
                "grid".into()
            },
        });
    }
    out
}

/// The feasible cells of `engine` in the tuning directory `dir` (a
/// reference grid) with their objective as shown, best first.
pub(crate) fn grid_cells(
    dir: &Path,
    tune: &LoadedTune,
    engine: &str,
    higher: bool,
) -> anyhow::Result<Vec<(Trial, f64)>> {
    let log = trials::read(dir)?;
    let mut cells: Vec<(Trial, f64)> = outcomes(dir, tune, &log, engine)
        .into_iter()
        .filter_map(|(t, o)| {
            let o = o?;
            (o.feasible).then_some(())?;
            Some((t, o.shown?))
        })
        .collect();
    cells.sort_by(|a, b| {
        let o = a.1.total_cmp(&b.1);
        if higher {
            o.reverse()
        } else {
            o
        }
    });
    Ok(cells)
}

/// Whether the tuning's objective is better higher (a score always is).
pub(crate) fn higher_is_better(tune: &LoadedTune) -> bool {
    tune.spec
        .objective
        .get_ref()
        .metric
        .as_deref()
        .and_then(crate::tune::spec::higher_better)
        .unwrap_or(true)
}

/// The best cell of `engine` in the reference grid `o.reference` names
/// (none without a reference or without a feasible cell).
pub(crate) fn reference_best(
    tune: &LoadedTune,
    o: &TuneOptions,
    engine: &str,
) -> anyhow::Result<Option<Config>> {
    let Some(dir) = &o.reference else {
        return Ok(None);
    };
    let cells = grid_cells(dir, tune, engine, higher_is_better(tune))?;
    Ok(cells.into_iter().next().map(|(t, _)| t.config))
}

/// The tuning file with the command line's overrides applied.
pub(crate) fn effective(tune: &LoadedTune, o: &TuneOptions) -> LoadedTune {
    let mut t = tune.clone();
    if let Some(b) = o.budget {
        t.spec.budget = b;
    }
    if let Some(s) = o.seed {
        t.spec.seed = s;
    }
    if let Some(e) = &o.engines {
        t.spec.engines = e.clone();
    }
    t
}

/// The study plan the runs are jobs of (its cells are the trials').
pub(crate) fn plan_of(tune: &LoadedTune, o: &TuneOptions) -> anyhow::Result<Plan> {
    let mut p = expand_with(
        &tune.as_study(),
        &o.scale,
        Some(1),
        Some(tune.spec.engines.clone()),
        &o.set,
    )?;
    p.timeout = o.timeout.map(std::time::Duration::from_secs);
    Ok(p)
}

/// A trial's result rows, if it ran: its run file, or, in a directory
/// kept without its runs (docs/results), its rows of the merged results.
pub(crate) fn rows_of(dir: &Path, t: &Trial) -> Option<Vec<ResultRow>> {
    let job = t.job();
    let f = run_dir(dir, &job).join(RUN_FILE);
    if let Ok(rows) = results::read_jsonl(&f) {
        return Some(rows);
    }
    if dir.join("runs").exists() {
        return None;
    }
    let rows: Vec<ResultRow> = results::load_dir(dir)
        .ok()?
        .into_iter()
        .filter(|r| r.engine == job.engine && r.cell_id == job.cell.id && r.repeat == job.repeat)
        .collect();
    (!rows.is_empty()).then_some(rows)
}

/// `engine`'s trials in order, each with its outcome (`None`: not run).
pub(crate) fn outcomes(
    dir: &Path,
    tune: &LoadedTune,
    log: &[Trial],
    engine: &str,
) -> Vec<(Trial, Option<Outcome>)> {
    let own: Vec<&Trial> = log.iter().filter(|t| t.engine == engine).collect();
    let base_rows = own
        .iter()
        .find(|t| t.id == BASELINE_ID && t.phase == Phase::Search)
        .and_then(|t| rows_of(dir, t));
    own.iter()
        .map(|t| {
            let o = rows_of(dir, t).map(|r| evaluate(&tune.spec, &r, base_rows.as_deref()));
            ((*t).clone(), o)
        })
        .collect()
}

fn write_meta(
    dir: &Path,
    tune: &LoadedTune,
    o: &TuneOptions,
    engines: &[EngineCmd],
    notes: &[String],
) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)?;
    let m = TuneMeta {
        tune: tune.spec.name.clone(),
        scale: o.scale.clone(),
        engines_run: engines.to_vec(),
        notes: notes.to_vec(),
        budget: tune.spec.budget,
        seed: tune.spec.seed,
        set: o.set.clone(),
        command: shell_join(&std::env::args().collect::<Vec<_>>()),
        grid: o.grid,
        reference: o
            .reference
            .as_ref()
            .map(|r| std::path::absolute(r).unwrap_or_else(|_| r.clone())),
    };
    std::fs::write(dir.join("tune.json"), serde_json::to_string_pretty(&m)?)?;
    std::fs::write(dir.join("tune.toml"), &tune.text)?;
    Ok(())
}

/// Reads `tune.json`.
pub(crate) fn read_meta(dir: &Path) -> anyhow::Result<TuneMeta> {
    let p = dir.join("tune.json");
    let t = std::fs::read_to_string(&p).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
    serde_json::from_str(&t).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))
}

struct Ctx {
    dir: PathBuf,
    tune: LoadedTune,
    space: Space,
    plan: Plan,
    engines: Vec<EngineCmd>,
}

fn context(
    tune: &LoadedTune,
    o: &TuneOptions,
    ro: &RunOptions,
    probe: bool,
) -> anyhow::Result<Ctx> {
    let tune = effective(tune, o);
    let dir = tune_dir(&ro.out, &tune, o);
    let plan = plan_of(&tune, o)?;
    let space = tune.space()?;
    std::fs::create_dir_all(&dir)?;
    let (engines, notes) = if probe {
        resolve_engines(&tune.spec.engines, ro, &dir)
    } else {
        (Vec::new(), Vec::new())
    };
    if probe {
        if engines.is_empty() {
            anyhow::bail!("no engine available: {}", notes.join(" "));
        }
        for n in &notes {
            eprintln!("note: {n}");
        }
        // A worker running one planned trial keeps the facts of the first
        // worker that probed the engines.
        let known = read_meta(&dir).is_ok_and(|m| !m.engines_run.is_empty());
        if !known || !o.single {
            write_meta(&dir, &tune, o, &engines, &notes)?;
        }
    }
    Ok(Ctx {
        dir,
        tune,
        space,
        plan,
        engines,
    })
}

fn run_trial(c: &Ctx, t: &Trial) -> anyhow::Result<()> {
    let eng = c
        .engines
        .iter()
        .find(|e| e.engine == t.engine)
        .ok_or_else(|| "engine unavailable".to_string());
    let host = host_info(&c.dir);
    let rows = run_job(&c.plan, &t.job(), eng, &c.dir, &host, &git_commit())?;
    let o = evaluate(&c.tune.spec, &rows, None);
    eprintln!(
        "[{}] {} {} ({}): {}",
        t.index,
        t.engine,
        t.id,
        t.why,
        match (&o.why, o.shown) {
            (Some(w), _) if o.value.is_none() => w.clone(),
            (_, Some(v)) => format!("{v:.4}"),
            _ => "-".into(),
        }
    );
    Ok(())
}

/// Runs a whole tuning (resuming from the log when one exists); returns
/// the tuning directory.
pub(crate) fn run(tune: &LoadedTune, o: &TuneOptions, ro: &RunOptions) -> anyhow::Result<PathBuf> {
    let c = context(tune, o, ro, true)?;
    crate::run::process::check_disk(&c.dir, c.plan.max_disk_need())?;
    let started = Instant::now();
    if let Some(levels) = o.grid {
        for e in c.engines.iter().map(|e| e.engine.clone()) {
            let log = trials::read(&c.dir)?;
            let new = grid_trials(&c.tune, &c.space, &e, levels, &log);
            trials::append(&c.dir, &new)?;
            let log = trials::read(&c.dir)?;
            for (t, o) in outcomes(&c.dir, &c.tune, &log, &e) {
                if o.is_none() {
                    run_trial(&c, &t)?;
                }
            }
        }
        merge(&c.dir)?;
        return Ok(c.dir);
    }
    for e in c.engines.iter().map(|e| e.engine.clone()) {
        let mut tune_now = c.tune.clone();
        loop {
            let log = trials::read(&c.dir)?;
            let done = outcomes(&c.dir, &tune_now, &log, &e);
            if let Some(m) = o.budget_minutes {
                let searched = done
                    .iter()
                    .filter(|(t, _)| t.phase == Phase::Search)
                    .count();
                if started.elapsed().as_secs_f64() > m * 60.0 && searched < tune_now.spec.budget {
                    eprintln!("note: --budget-minutes {m} reached after {searched} search runs");
                    tune_now.spec.budget = searched.max(1);
                }
            }
            let reference = reference_best(&tune_now, o, &e)?;
            match next(
                &tune_now,
                &c.space,
                &e,
                &done,
                o.batch,
                log.len(),
                reference.as_ref(),
            ) {
                Next::Done => break,
                Next::Wait(pending) => {
                    for t in &pending {
                        run_trial(&c, t)?;
                    }
                }
                Next::Run(new) => {
                    trials::append(&c.dir, &new)?;
                    for t in &new {
                        run_trial(&c, t)?;
                    }
                }
            }
        }
    }
    merge(&c.dir)?;
    Ok(c.dir)
}

/// Plans the next round: logs the new trials (or finds the ones still
/// without results) and returns one command line per trial to run.
/// Empty: the tuning is complete.
pub(crate) fn plan_round(
    tune: &LoadedTune,
    spec_path: &Path,
    o: &TuneOptions,
    ro: &RunOptions,
    lab_cmd: &[String],
) -> anyhow::Result<Vec<String>> {
    let c = context(tune, o, ro, false)?;
    if !c.dir.join("tune.json").exists() {
        write_meta(&c.dir, &c.tune, o, &[], &[])?;
    }
    let mut lines = Vec::new();
    for e in &c.tune.spec.engines {
        let log = trials::read(&c.dir)?;
        let done = outcomes(&c.dir, &c.tune, &log, e);
        let reference = reference_best(&c.tune, o, e)?;
        let todo = match next(
            &c.tune,
            &c.space,
            e,
            &done,
            o.batch,
            log.len(),
            reference.as_ref(),
        ) {
            Next::Done => continue,
            Next::Wait(p) => p,
            Next::Run(new) => {
                trials::append(&c.dir, &new)?;
                new
            }
        };
        let spec = std::fs::canonicalize(spec_path).unwrap_or_else(|_| spec_path.to_path_buf());
        let out = std::path::absolute(&ro.out).unwrap_or_else(|_| ro.out.clone());
        for t in todo {
            let mut a = lab_cmd.to_vec();
            a.extend([
                "tune".into(),
                spec.display().to_string(),
                "--scale".into(),
                o.scale.clone(),
                "--out".into(),
                out.display().to_string(),
                "--run-index".into(),
                t.index.to_string(),
            ]);
            if let Some(b) = o.budget {
                a.extend(["--budget".into(), b.to_string()]);
            }
            if let Some(s) = o.seed {
                a.extend(["--seed".into(), s.to_string()]);
            }
            if let Some(es) = &o.engines {
                a.extend(["--engines".into(), es.join(",")]);
            }
            if let Some(t) = o.timeout {
                a.extend(["--timeout".into(), t.to_string()]);
            }
            for (k, v) in &o.set {
                a.extend(["--set".into(), format!("{k}={v}")]);
            }
            for (flag, v) in [
                ("--strata-bench", &ro.strata_bench),
                ("--rocksdb-bench", &ro.rocksdb_bench),
                ("--leveldb-bench", &ro.leveldb_bench),
            ] {
                if let Some(v) = v {
                    a.extend([flag.to_string(), v.clone()]);
                }
            }
            lines.push(shell_join(&a));
        }
    }
    Ok(lines)
}

/// Runs one logged trial (a line `plan_round` printed).
pub(crate) fn run_index(
    tune: &LoadedTune,
    o: &TuneOptions,
    ro: &RunOptions,
    index: usize,
) -> anyhow::Result<()> {
    let c = context(tune, o, ro, true)?;
    let log = trials::read(&c.dir)?;
    let t = log.get(index).ok_or_else(|| {
        anyhow::anyhow!(
            "{}: no trial {index} in the log (it has {})",
            c.dir.join(trials::TRIALS_FILE).display(),
            log.len()
        )
    })?;
    run_trial(&c, t)
}
