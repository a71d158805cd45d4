//! Crash mode: start a child in normal mode, SIGKILL it at a random
//! moment, reopen and verify in the parent, repeat until the duration ends.
//! With `--kill-at`, children die at named sync points instead
//! (`whitebox.rs`).

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::config::Config;
use super::value::{mix64, Rng};
use super::{open_and_verify, report_violations};

/// The child's arguments: the parent's, minus the crash-mode flags and the
/// seed, plus `--child`, an unbounded duration and a fresh seed.
pub(super) fn child_args(args: &[String], seed: u64) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len() + 6);
    let mut skip_next = false;
    for a in args {
        if skip_next {
            skip_next = false;
            continue;
        }
        let name = a.split('=').next().unwrap_or(a);
        match name {
            "--crash-test" | "--child" => {}
            "--duration" | "--seed" | "--ops" | "--kill-min-ms" | "--kill-max-ms" | "--kill-at"
            | "--kill-hit" | "--kills-per-point" => {
                skip_next = !a.contains('=');
            }
            _ => out.push(a.clone()),
        }
    }
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

/// Runs the crash-test loop; returns the exit code.
///
/// # Errors
/// Failure to start a child or to write the expected state.
pub fn run(cfg: &Config, args: &[String]) -> Result<i32> {
    if cfg.kill_at.is_some() {
        return super::whitebox::run(cfg, args);
    }
    let start = Instant::now();
    let deadline = start + Duration::from_secs(cfg.duration);
    let seed = cfg.effective_seed();
    let mut rng = Rng::new(seed);
    let exe = std::env::current_exe().context("locating the strata binary")?;
    let (mut cycles, mut ops, mut keys) = (0u64, 0u64, 0u64);

    // Verify (or initialise) the expected state before the first child.
    match open_and_verify(cfg, false)? {
        Ok(v) => keys += v.outcome.as_ref().map_or(0, |o| o.keys_verified),
        Err(violations) => return Ok(report_violations(cfg, &violations)),
    }
    while Instant::now() < deadline {
        let mut child = spawn_child(&exe, args, mix64(seed ^ cycles), &[])?;
        let kill_at = kill_time(cfg, &mut rng, deadline);
        let mut exited = None;
        while Instant::now() < kill_at {
            if let Some(status) = child.try_wait()? {
                exited = Some(status);
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        if let Some(status) = exited {
            eprintln!("crash-test: the child exited by itself with {status} in cycle {cycles}");
            println!(
                "crash-test: {cycles} cycles, {ops} operations, {keys} keys verified, 1 violations"
            );
            return Ok(report_violations(
                cfg,
                &[format!(
                    "child exited with {status} (see its messages above)"
                )],
            ));
        }
        child.kill().context("killing the child")?; // SIGKILL
        child.wait()?;
        cycles += 1;
        match open_and_verify(cfg, false)? {
            Ok(v) => {
                if let Some(o) = &v.outcome {
                    keys += o.keys_verified;
                    ops += o.acked_ops;
                }
                if cycles % 100 == 0 {
                    eprintln!(
                        "crash-test: progress: {cycles} cycles, {ops} operations, {keys} keys verified after {:.0} s",
                        start.elapsed().as_secs_f64()
                    );
                }
            }
            Err(violations) => {
                println!(
                    "crash-test: {cycles} cycles, {ops} operations, {keys} keys verified, {} violations",
                    violations.len()
                );
                eprintln!("crash-test: violation after kill cycle {cycles}");
                return Ok(report_violations(cfg, &violations));
            }
        }
    }
    println!(
        "crash-test: {cycles} cycles, {ops} operations, {keys} keys verified, 0 violations ({:.0} s)",
        start.elapsed().as_secs_f64()
    );
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
