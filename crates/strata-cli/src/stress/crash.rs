//! Crash mode: start a child in normal mode, SIGKILL it at a random
//! moment, reopen and verify in the parent, repeat until the duration ends.
//! With `--kill-at`, children die at named sync points instead
//! (`whitebox.rs`).

use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::config::Config;
use super::randomized::{strip, Sets, PARENT_FLAGS, PARENT_SWITCHES};
use super::value::{mix64, Rng};
use super::{open_and_verify, report_violations};

/// The child's arguments: the parent's, minus the crash-mode flags and the
/// seed, plus `--child`, an unbounded duration and a fresh seed.
pub(super) fn child_args(args: &[String], seed: u64) -> Vec<String> {
    let mut out = strip(args, PARENT_SWITCHES, PARENT_FLAGS);
    out.extend([
        "--child".into(),
        "--duration".into(),
        "86400".into(),
        "--seed".into(),
        seed.to_string(),
    ]);
    out
}

/// Starts a child running the workload of `args` with `seed`, `extra`
/// arguments after them; its output is discarded, its messages pass through.
pub(super) fn spawn_child(
    exe: &Path,
    args: &[String],
    seed: u64,
    extra: &[String],
) -> Result<Child> {
    Command::new(exe)
        .arg("stress")
        .args(child_args(args, seed))
        .args(extra)
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .context("starting the child")
}

/// When a child started now is killed: after a random time in
/// [`--kill-min-ms`, `--kill-max-ms`], and not after `deadline`.
pub(super) fn kill_time(cfg: &Config, rng: &mut Rng, deadline: Instant) -> Instant {
    let span = cfg.kill_max_ms - cfg.kill_min_ms + 1;
    let run_for = Duration::from_millis(cfg.kill_min_ms + rng.below(span));
    (Instant::now() + run_for).min(deadline.max(Instant::now()))
}

/// What both crash-test loops (random kills here, kills at sync points in
/// `whitebox.rs`) keep: their clock, the seed and its RNG, the binary the
/// children run, and the totals they report.
pub(super) struct CrashLoop {
    /// When the loop started.
    pub(super) start: Instant,
    /// When it stops starting children (`--duration` after the start).
    pub(super) deadline: Instant,
    seed: u64,
    /// The RNG of the kill times (and of the whitebox hits).
    pub(super) rng: Rng,
    exe: PathBuf,
    /// Children killed (or ended) so far.
    pub(super) cycles: u64,
    /// Operations the children acknowledged, as the verifications found.
    pub(super) ops: u64,
    /// Keys verified.
    pub(super) keys: u64,
    /// With `--random-options`: the option sets and the current one.
    pub(super) sets: Option<Sets>,
}

impl CrashLoop {
    /// A loop starting now (with `--random-options`, on a fresh DB with the
    /// first option set), once the expected state is verified (or
    /// initialised); `Err` holds the exit code when that verification
    /// finds violations.
    pub(super) fn start(cfg: &Config, args: &[String]) -> Result<std::result::Result<Self, i32>> {
        let start = Instant::now();
        let seed = cfg.effective_seed();
        let mut l = CrashLoop {
            start,
            deadline: start + Duration::from_secs(cfg.duration),
            seed,
            rng: Rng::new(seed),
            exe: std::env::current_exe().context("locating the strata binary")?,
            cycles: 0,
            ops: 0,
            keys: 0,
            sets: None,
        };
        if cfg.random_options {
            l.sets = Some(Sets::start(cfg, args, seed)?);
        }
        // The operations acknowledged before this run are not its own.
        match open_and_verify(l.run_cfg(cfg), false)? {
            Ok(v) => l.keys += v.outcome.as_ref().map_or(0, |o| o.keys_verified),
            Err(violations) => return Ok(Err(l.fail(cfg, &violations))),
        }
        Ok(Ok(l))
    }

    /// The configuration the last child ran with: `cfg`, or with
    /// `--random-options` the drawn one.
    pub(super) fn run_cfg<'a>(&'a self, cfg: &'a Config) -> &'a Config {
        self.sets.as_ref().map_or(cfg, |s| &s.child.0)
    }

    /// Reports violations (with `--random-options`, first the lines that
    /// reproduce them); returns the exit code.
    pub(super) fn fail(&self, cfg: &Config, violations: &[String]) -> i32 {
        if let Some(s) = &self.sets {
            s.print_failure();
        }
        report_violations(self.run_cfg(cfg), violations)
    }

    /// Reports a child that exited by itself; returns the exit code.
    pub(super) fn fail_exit(&self, cfg: &Config, status: ExitStatus) -> i32 {
        self.fail(
            cfg,
            &[format!(
                "child exited with {status} (see its messages above)"
            )],
        )
    }

    /// Counts a kill whose DB verified. With `--random-options`, after
    /// `--kills-per-set` of them the next option set begins on a fresh DB
    /// (initialised here) and this returns true.
    pub(super) fn kill_verified(&mut self, cfg: &Config) -> Result<std::result::Result<bool, i32>> {
        let Some(s) = self.sets.as_mut() else {
            return Ok(Ok(false));
        };
        if !s.kill_verified()? {
            return Ok(Ok(false));
        }
        match open_and_verify(self.run_cfg(cfg), false)? {
            Ok(_) => Ok(Ok(true)),
            Err(violations) => Ok(Err(self.fail(cfg, &violations))),
        }
    }

    /// Starts the next child (seeded by the cycle count) with `extra`
    /// arguments after the workload's; returns it and when to kill it.
    pub(super) fn spawn(
        &mut self,
        cfg: &Config,
        args: &[String],
        extra: &[String],
    ) -> Result<(Child, Instant)> {
        let drawn;
        let args = match self.sets.as_mut() {
            Some(s) => {
                drawn = s.next_child()?.1;
                &drawn
            }
            None => args,
        };
        let child = spawn_child(&self.exe, args, mix64(self.seed ^ self.cycles), extra)?;
        Ok((child, kill_time(cfg, &mut self.rng, self.deadline)))
    }

    /// Reopens and verifies the DB, adding the keys it verified and the
    /// operations it found acknowledged to the totals; `Err` holds the
    /// violations.
    pub(super) fn verify(&mut self, cfg: &Config) -> Result<std::result::Result<(), Vec<String>>> {
        let v = match open_and_verify(self.run_cfg(cfg), false)? {
            Ok(v) => v,
            Err(violations) => return Ok(Err(violations)),
        };
        if let Some(o) = &v.outcome {
            self.keys += o.keys_verified;
            self.ops += o.acked_ops;
        }
        Ok(Ok(()))
    }

    /// The totals line of the report (with `--random-options`, after the
    /// line that counts the option sets).
    pub(super) fn totals(&self, violations: usize) -> String {
        let sets = self
            .sets
            .as_ref()
            .map_or(String::new(), |s| format!("{}\n", s.summary()));
        format!(
            "{sets}crash-test: {} cycles, {} operations, {} keys verified, {violations} violations",
            self.cycles, self.ops, self.keys
        )
    }

    /// [`CrashLoop::totals`] and the seconds since the start.
    pub(super) fn timed_totals(&self, violations: usize) -> String {
        format!(
            "{} ({:.0} s)",
            self.totals(violations),
            self.start.elapsed().as_secs_f64()
        )
    }
}

/// Waits until `child` exits or `until`, and kills it (SIGKILL) at
/// `until`; its exit status if it exited by itself.
pub(super) fn wait_or_kill(child: &mut Child, until: Instant) -> Result<Option<ExitStatus>> {
    while Instant::now() < until {
        if let Some(status) = child.try_wait()? {
            return Ok(Some(status));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.kill().context("killing the child")?; // SIGKILL
    child.wait()?;
    Ok(None)
}

/// Runs the crash-test loop; returns the exit code.
///
/// # Errors
/// Failure to start a child or to write the expected state.
pub fn run(cfg: &Config, args: &[String]) -> Result<i32> {
    if cfg.kill_at.is_some() {
        return super::whitebox::run(cfg, args);
    }
    let mut l = match CrashLoop::start(cfg, args)? {
        Ok(l) => l,
        Err(code) => return Ok(code),
    };
    while Instant::now() < l.deadline {
        let (mut child, kill_at) = l.spawn(cfg, args, &[])?;
        if let Some(status) = wait_or_kill(&mut child, kill_at)? {
            eprintln!(
                "crash-test: the child exited by itself with {status} in cycle {}",
                l.cycles
            );
            println!("{}", l.totals(1));
            return Ok(l.fail_exit(cfg, status));
        }
        l.cycles += 1;
        if let Err(violations) = l.verify(cfg)? {
            println!("{}", l.totals(violations.len()));
            eprintln!("crash-test: violation after kill cycle {}", l.cycles);
            return Ok(l.fail(cfg, &violations));
        }
        if let Err(code) = l.kill_verified(cfg)? {
            println!("{}", l.totals(1));
            return Ok(code);
        }
        if l.cycles % 100 == 0 {
            eprintln!(
                "crash-test: progress: {} cycles, {} operations, {} keys verified after {:.0} s",
                l.cycles,
                l.ops,
                l.keys,
                l.start.elapsed().as_secs_f64()
            );
        }
    }
    println!("{}", l.timed_totals(0));
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn child_args_drop_crash_flags() {
        let a: Vec<String> = [
            "--db",
            "d",
            "--crash-test",
            "--duration",
            "60",
            "--seed=5",
            "--kill-at",
            "random-point",
            "--kills-per-point=3",
            "--sync",
            "1",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let c = child_args(&a, 9);
        assert_eq!(
            c,
            [
                "--db",
                "d",
                "--sync",
                "1",
                "--child",
                "--duration",
                "86400",
                "--seed",
                "9"
            ]
        );
    }
}
