//! A study directory's files: where the study and each run go, its
//! `meta.json`, which runs are done, and the merged results.

use crate::data::results::{self, ResultRow, RUN_FILE};
use crate::run::engines::EngineCmd;
use crate::spec::model::{Job, Plan};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Facts about a study directory, kept in `meta.json`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Meta {
    /// Study name.
    pub study: String,
    /// Scale.
    pub scale: String,
    /// Repeats used.
    pub repeats: u32,
    /// Engines requested.
    pub engines_requested: Vec<String>,
    /// Engines that ran and how.
    pub engines_run: Vec<EngineCmd>,
    /// Notes for the report (e.g. RocksDB missing).
    pub notes: Vec<String>,
    /// `--set` flag overrides.
    #[serde(default)]
    pub set: Vec<(String, String)>,
    /// `--only` cell filters (empty: every cell ran).
    #[serde(default)]
    pub only: Vec<String>,
    /// The command line that ran the study (empty in older directories).
    #[serde(default)]
    pub command: String,
    /// Seed of the job order within each repeat (`None`: plan order, as
    /// in older directories and runs split across hosts).
    #[serde(default)]
    pub order_seed: Option<u64>,
    /// The settle step between jobs, in words (empty: none recorded).
    #[serde(default)]
    pub settle: String,
    /// With adaptive repeats, the repeats per cell at which the claims were
    /// judged (3, 6, 12, 20); empty: the plan's repeats, one look.
    #[serde(default)]
    pub schedule: Vec<u32>,
}

impl Meta {
    /// How many times the claims were judged: the adaptive schedule's
    /// length, or one.
    pub(crate) fn looks(&self) -> u32 {
        (self.schedule.len() as u32).max(1)
    }

    /// The facts of `plan` run by `engines_run`, with `notes`.
    pub(crate) fn of(plan: &Plan, engines_run: Vec<EngineCmd>, notes: Vec<String>) -> Meta {
        Meta {
            study: plan.loaded.spec.name.clone(),
            scale: plan.scale.clone(),
            repeats: plan.repeats,
            engines_requested: plan.engines.clone(),
            engines_run,
            notes,
            set: plan.set.clone(),
            only: plan.only.clone(),
            command: crate::run::process::shell_join(&std::env::args().collect::<Vec<_>>()),
            order_seed: None,
            settle: String::new(),
            schedule: Vec::new(),
        }
    }
}

/// Study directory for a plan under `out`.
pub(crate) fn study_dir(out: &Path, plan: &Plan) -> PathBuf {
    out.join(format!("{}-{}", plan.loaded.spec.name, plan.scale))
}

/// Run directory of a job.
pub(crate) fn run_dir(sdir: &Path, job: &Job) -> PathBuf {
    sdir.join("runs").join(job.key())
}

/// Whether a job has its result file.
pub(crate) fn job_done(sdir: &Path, job: &Job) -> bool {
    run_dir(sdir, job).join(RUN_FILE).exists()
}

/// Study directories under `dir` (itself if it has `meta.json`).
pub(crate) fn study_dirs(dir: &Path) -> Vec<PathBuf> {
    if dir.join("meta.json").exists() {
        return vec![dir.to_path_buf()];
    }
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("meta.json").exists())
        .collect();
    v.sort();
    v
}

/// Reads `meta.json` of a study directory.
pub(crate) fn read_meta(sdir: &Path) -> anyhow::Result<Meta> {
    let p = sdir.join("meta.json");
    let t = std::fs::read_to_string(&p).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
    serde_json::from_str(&t).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))
}

/// Writes `meta.json` and a copy of the spec (`study.toml`).
pub(crate) fn write_meta(sdir: &Path, plan: &Plan, meta: &Meta) -> anyhow::Result<()> {
    std::fs::create_dir_all(sdir)?;
    std::fs::write(sdir.join("meta.json"), serde_json::to_string_pretty(meta)?)?;
    std::fs::write(sdir.join("study.toml"), &plan.loaded.text)?;
    Ok(())
}

/// Merges run files into `results.jsonl` and `results.csv`.
pub(crate) fn merge(sdir: &Path) -> anyhow::Result<Vec<ResultRow>> {
    let rows = results::load_dir(sdir)?;
    results::write_jsonl(&sdir.join("results.jsonl"), &rows)?;
    results::write_csv(&sdir.join("results.csv"), &rows)?;
    Ok(rows)
}
