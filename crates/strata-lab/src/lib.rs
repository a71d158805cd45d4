//! `strata lab`: runs tuning studies (sweeps of db_bench-compatible benchmark
//! runs) end to end, on Strata, RocksDB, LevelDB and fjall side by side, and
//! reports on them; and tunes a workload's options on an engine (`tune`).
//!
//! Entry point: [`run_cli`] (the arguments after `strata lab`), with the
//! subcommands `run`, `plan`, `run-one`, `collect`, `report`, `index`,
//! `compare`, `check`, `tune`, `capacity`, `parse`, `parity`, `metrics` and
//! `simulate`.
//! See `docs/lab.md`.
//!
//! The modules are grouped by stage, each using only the stages before it:
//! [`spec`] (the study file and its plan), [`data`] (result rows and the
//! figures in them), `run` (executing a plan), `judge` (what the rows say),
//! `report` (Markdown, HTML and charts), `tune` (the search of a workload's
//! options, run and judged as study jobs), `capacity` (the search for the
//! highest rate meeting a latency, stall and space objective, run as study
//! jobs), and `cli` on top. db_bench's
//! text output is read by `strata_bench::dbbench_text`.

#![warn(missing_docs)]

pub(crate) mod capacity;
pub(crate) mod cli;
pub mod data;
pub(crate) mod judge;
#[cfg(test)]
mod mutated_inputs;
pub(crate) mod report;
pub(crate) mod run;
pub mod spec;
#[cfg(test)]
mod testutil;
pub(crate) mod tune;

use std::path::PathBuf;

use clap::{CommandFactory, Parser};

/// Runs `strata lab` with `args` (what follows `strata lab`, e.g.
/// `["run", "blob", "--scale", "quick"]`); returns the exit code.
pub fn run_cli(args: Vec<String>) -> anyhow::Result<i32> {
    let argv = std::iter::once("strata lab".to_string()).chain(args);
    match cli::Cli::try_parse_from(argv) {
        Ok(c) => cli::execute(c),
        Err(e) => {
            let code = if e.use_stderr() { 2 } else { 0 };
            let _ = e.print();
            Ok(code)
        }
    }
}

/// The clap description of `strata lab`'s subcommands and options, as
/// [`run_cli`] parses them (for shell completions).
pub fn command() -> clap::Command {
    cli::Cli::command()
}

/// The command that runs Strata's benchmark: this executable with `bench`
/// as its first argument (override with `--strata-bench CMD`).
pub(crate) fn default_bench_command() -> Vec<String> {
    let exe = std::env::current_exe()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|_| "strata".into());
    vec![exe, "bench".into()]
}

/// The first executable named `name` on `PATH`.
pub fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}
