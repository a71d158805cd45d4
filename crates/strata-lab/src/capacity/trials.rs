//! The decision log of a capacity search: every run planned, in order, in
//! `trials.jsonl` (which engine and configuration, which rate, why), and
//! each run's judgement in its run directory (`judgement.json`, beside the
//! bench's `mix.json`), so a search resumes from the files alone.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::capacity::slo::Judgement;
use crate::run::layout::run_dir;
use crate::spec::model::{Cell, Job};

/// The log's file name in a capacity directory.
pub(crate) const TRIALS_FILE: &str = "trials.jsonl";
/// A run's judgement, in its run directory.
pub(crate) const JUDGEMENT_FILE: &str = "judgement.json";
/// The bench's JSON report of the mix, in its run directory.
pub(crate) const MIX_FILE: &str = "mix.json";

/// One planned run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Trial {
    /// Position in the log (the run's job index).
    pub index: usize,
    /// Engine.
    pub engine: String,
    /// Configuration name.
    pub config: String,
    /// Target rate (ops/s); `None`: the closed-loop probe.
    pub rate: Option<f64>,
    /// Repeat number at this rate (0-based).
    pub repeat: u32,
    /// Why it runs.
    pub why: String,
}

impl Trial {
    /// The run as a study job: a cell named after the configuration and
    /// the rate, whose flags are the configuration's.
    pub(crate) fn job(&self, flags: &std::collections::BTreeMap<String, String>) -> Job {
        let rate = self
            .rate
            .map(|r| format!("{r}"))
            .unwrap_or_else(|| "closed".into());
        let labels = [
            ("config".to_string(), self.config.clone()),
            ("rate".to_string(), rate.clone()),
        ]
        .into();
        Job {
            index: self.index,
            cell: Cell {
                id: format!("config={},rate={rate}", self.config),
                labels,
                flags: flags.clone(),
                cpus: None,
            },
            engine: self.engine.clone(),
            repeat: self.repeat,
        }
    }

    /// The run's directory under the capacity directory `dir`.
    pub(crate) fn dir(&self, dir: &Path) -> PathBuf {
        run_dir(dir, &self.job(&Default::default()))
    }

    /// The run's judgement, if it ran.
    pub(crate) fn judgement(&self, dir: &Path) -> Option<Judgement> {
        let t = std::fs::read_to_string(self.dir(dir).join(JUDGEMENT_FILE)).ok()?;
        serde_json::from_str(&t).ok()
    }
}

/// Reads the log (empty when the file does not exist).
pub(crate) fn read(dir: &Path) -> anyhow::Result<Vec<Trial>> {
    crate::tune::trials::read_log(&dir.join(TRIALS_FILE), |t: &Trial| t.index)
}

/// Appends a trial to the log.
pub(crate) fn append(dir: &Path, t: &Trial) -> anyhow::Result<()> {
    crate::tune::trials::append_log(&dir.join(TRIALS_FILE), std::slice::from_ref(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trial_is_a_job_named_after_its_config_and_rate() {
        let d = tempfile::tempdir().unwrap();
        let mut t = Trial {
            index: 0,
            engine: "strata".into(),
            config: "wb32m".into(),
            rate: None,
            repeat: 0,
            why: "probe".into(),
        };
        append(d.path(), &t).unwrap();
        t.index = 1;
        t.rate = Some(12300.0);
        t.repeat = 2;
        append(d.path(), &t).unwrap();
        let back = read(d.path()).unwrap();
        assert_eq!(back[1], t);
        assert_eq!(
            back[0].job(&Default::default()).key(),
            "strata__config_wb32m_rate_closed__r0"
        );
        assert_eq!(
            t.job(&Default::default()).key(),
            "strata__config_wb32m_rate_12300__r2"
        );
        assert!(t.judgement(d.path()).is_none());
    }
}
