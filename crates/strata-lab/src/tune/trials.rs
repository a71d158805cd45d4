//! The trial log: every run a tuning has planned, in order, kept in
//! `trials.jsonl` beside the runs. A run's results live in its run
//! directory (as a study's do); the log says which configuration it ran and
//! why, so a tuning resumes, and its plan spreads over machines, from the
//! files alone.

use std::io::Write;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::spec::model::{Cell, Job};
use crate::tune::search::Config;

/// The log's file name in a tuning directory.
pub(crate) const TRIALS_FILE: &str = "trials.jsonl";

/// Which part of the tuning a run belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Phase {
    /// The search (counted in the budget).
    Search,
    /// The winner against the baseline, alternating (after the budget).
    Confirm,
    /// The winner against a reference grid's best cell, alternating
    /// (after the confirmation; only with a reference grid).
    Reference,
}

/// One planned run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Trial {
    /// Position in the log (the run's job index).
    pub index: usize,
    /// Engine.
    pub engine: String,
    /// The configuration's id: `t000` is the baseline, then in the order
    /// first run; a repeat keeps its configuration's id.
    pub id: String,
    /// Search or confirmation.
    pub phase: Phase,
    /// Repeat number of this configuration within its phase (0-based).
    pub repeat: u32,
    /// The searched options' values.
    pub config: Config,
    /// Why it runs: `baseline`, `start: NOTE`, `space-filling`, `model`,
    /// `repeat of the leader`, `confirmation`, `against the grid's best`.
    pub why: String,
}

impl Trial {
    /// The run as a study job: a cell named after the trial whose flags
    /// are the configuration.
    pub(crate) fn job(&self) -> Job {
        let phase = match self.phase {
            Phase::Search => "trial",
            Phase::Confirm => "confirm",
            Phase::Reference => "reference",
        };
        let mut labels = self.config.clone();
        labels.insert(phase.into(), self.id.clone());
        Job {
            index: self.index,
            cell: Cell {
                id: format!("{phase}={}", self.id),
                labels,
                flags: self.config.clone(),
                cpus: None,
            },
            engine: self.engine.clone(),
            repeat: self.repeat,
        }
    }
}

/// Reads the log (empty when the file does not exist).
pub(crate) fn read(dir: &Path) -> anyhow::Result<Vec<Trial>> {
    read_log(&dir.join(TRIALS_FILE), |t: &Trial| t.index)
}

/// Appends trials to the log (synced, so a plan handed out is on disk).
pub(crate) fn append(dir: &Path, trials: &[Trial]) -> anyhow::Result<()> {
    append_log(&dir.join(TRIALS_FILE), trials)
}

/// Reads a JSON-lines log whose entries carry their position (`index_of`),
/// refusing one out of order; empty when the file does not exist.
pub(crate) fn read_log<T: serde::de::DeserializeOwned>(
    p: &Path,
    index_of: impl Fn(&T) -> usize,
) -> anyhow::Result<Vec<T>> {
    let text = match std::fs::read_to_string(p) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(anyhow::anyhow!("{}: {e}", p.display())),
    };
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let t: T = serde_json::from_str(line)
            .map_err(|e| anyhow::anyhow!("{}:{}: {e}", p.display(), i + 1))?;
        if index_of(&t) != out.len() {
            anyhow::bail!(
                "{}:{}: trial index {} out of order (expected {})",
                p.display(),
                i + 1,
                index_of(&t),
                out.len()
            );
        }
        out.push(t);
    }
    Ok(out)
}

/// Appends entries to a JSON-lines log (synced).
pub(crate) fn append_log<T: Serialize>(p: &Path, entries: &[T]) -> anyhow::Result<()> {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(p)
        .map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
    for t in entries {
        writeln!(f, "{}", serde_json::to_string(t)?)?;
    }
    f.sync_all()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trial(index: usize, id: &str) -> Trial {
        Trial {
            index,
            engine: "strata".into(),
            id: id.into(),
            phase: Phase::Search,
            repeat: 0,
            config: [("write_buffer_size".to_string(), "1048576".to_string())].into(),
            why: "model".into(),
        }
    }

    #[test]
    fn the_log_round_trips_and_refuses_gaps() {
        let d = tempfile::tempdir().unwrap();
        assert!(read(d.path()).unwrap().is_empty());
        append(d.path(), &[trial(0, "t000"), trial(1, "t001")]).unwrap();
        append(d.path(), &[trial(2, "t002")]).unwrap();
        let back = read(d.path()).unwrap();
        assert_eq!(back.len(), 3);
        assert_eq!(back[2], trial(2, "t002"));
        let j = back[1].job();
        assert_eq!(j.cell.id, "trial=t001");
        assert_eq!(j.key(), "strata__trial_t001__r0");
        assert_eq!(j.cell.flags["write_buffer_size"], "1048576");
        append(d.path(), &[trial(5, "t005")]).unwrap();
        let e = read(d.path()).unwrap_err().to_string();
        assert!(e.contains("out of order") && e.contains(":4:"), "{e}");
    }
}
