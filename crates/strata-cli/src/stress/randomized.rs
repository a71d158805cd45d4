//! Crash mode with `--random-options` (the mechanism; the drawing is
//! `draw.rs`): which option set and reopen the next child runs, a fresh DB
//! for each new set, and the lines that reproduce a run.

use std::collections::HashSet;
use std::path::Path;

use anyhow::{Context as _, Result};
use clap::Parser;

use super::config::Config;
use super::draw::{self, OptionSet};
use super::{checkpoint, expected};

/// Flags of the parent only (without a value), which no child gets.
pub(super) const PARENT_SWITCHES: &[&str] = &["--crash-test", "--child", "--random-options"];

/// Flags of the parent only (with a value), which no child gets.
pub(super) const PARENT_FLAGS: &[&str] = &[
    "--duration",
    "--seed",
    "--ops",
    "--kill-min-ms",
    "--kill-max-ms",
    "--kill-at",
    "--kill-hit",
    "--kills-per-point",
    "--kills-per-set",
];

/// `args` without the `switches` and without the `flags` and their values
/// (`--flag value` or `--flag=value`).
pub(super) fn strip(args: &[String], switches: &[&str], flags: &[&str]) -> Vec<String> {
    let mut out = Vec::with_capacity(args.len());
    let mut skip_next = false;
    for a in args {
        if skip_next {
            skip_next = false;
            continue;
        }
        let name = a.split('=').next().unwrap_or(a);
        if switches.contains(&name) {
            continue;
        }
        if flags.contains(&name) {
            skip_next = !a.contains('=');
            continue;
        }
        out.push(a.clone());
    }
    out
}

/// Whether the file system of `dir` (created if missing) opens files
/// with O_DIRECT (tmpfs does not).
fn direct_io_works(dir: &Path) -> bool {
    use std::os::unix::fs::OpenOptionsExt;
    if std::fs::create_dir_all(dir).is_err() {
        return false;
    }
    let probe = dir.join("direct-io-probe");
    let ok = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_DIRECT)
        .open(&probe)
        .is_ok();
    let _ = std::fs::remove_file(&probe);
    ok
}

/// Removes the DB, its expected state and its checkpoints, for a new
/// option set.
fn fresh_db(db: &Path) -> Result<()> {
    for dir in [
        db.to_path_buf(),
        expected::dir_for(db),
        checkpoint::dir_for(db),
    ] {
        match std::fs::remove_dir_all(&dir) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(e).with_context(|| format!("removing {}", dir.display())),
        }
    }
    Ok(())
}

/// The option sets of a `--random-options` run and where it stands.
pub(super) struct Sets {
    ctx: draw::Context,
    /// The command line without `--random-options` and the flags drawn.
    base: Vec<String>,
    /// The current option set.
    set: OptionSet,
    /// Kills per set (`--kills-per-set`).
    per_set: u64,
    /// Option sets started.
    pub(super) started: u64,
    /// Verified kills of the current set.
    kills_in_set: u64,
    /// Children started on the current set (the next one's reopen number).
    reopens: u64,
    /// The option texts of the sets started, to count the distinct ones.
    distinct: HashSet<String>,
    /// The configuration and command line of the last child started.
    pub(super) child: (Config, Vec<String>),
}

impl Sets {
    /// The first option set, drawn from `seed`, on a fresh DB; prints the
    /// line that reproduces the run.
    pub(super) fn start(cfg: &Config, args: &[String], seed: u64) -> Result<Sets> {
        fresh_db(&cfg.db)?;
        let ctx = draw::Context {
            direct_io: direct_io_works(&cfg.db),
        };
        let mut switches = PARENT_SWITCHES.to_vec();
        switches.retain(|s| *s != "--crash-test");
        let base = strip(
            args,
            &switches,
            &[draw::DRAWN_FLAGS, &draw::MIX_FLAGS].concat(),
        );
        let base = strip(&base, &[], &["--seed", "--kills-per-set"]);
        println!(
            "crash-test: reproduce with: strata stress --random-options --seed {seed} --kills-per-set {} {}",
            cfg.kills_per_set,
            base.join(" ")
        );
        let mut s = Sets {
            ctx,
            base,
            set: draw::draw(seed, ctx),
            per_set: cfg.kills_per_set,
            started: 0,
            kills_in_set: 0,
            reopens: 0,
            distinct: HashSet::new(),
            child: (cfg.clone(), Vec::new()),
        };
        s.begin_set()?;
        Ok(s)
    }

    /// Counts and announces the current set; sets up its first child.
    fn begin_set(&mut self) -> Result<()> {
        self.started += 1;
        self.kills_in_set = 0;
        self.reopens = 0;
        self.distinct.insert(self.set.args().join(" "));
        println!(
            "crash-test: option set {} (seed {}): {}",
            self.started,
            self.set.seed,
            quoted(&self.set.args())
        );
        self.child = self.reopen_config()?;
        Ok(())
    }

    /// The configuration and command line of reopen `self.reopens`.
    fn reopen_config(&self) -> Result<(Config, Vec<String>)> {
        let r = draw::reopen(&self.set, self.reopens, self.ctx);
        let mut args = self.base.clone();
        args.extend(r.args());
        let cfg = Config::try_parse_from(
            std::iter::once("strata stress".to_string()).chain(args.iter().cloned()),
        )
        .with_context(|| format!("the drawn flags do not parse: {}", quoted(&args)))?;
        cfg.check()
            .with_context(|| format!("the drawn flags are refused: {}", quoted(&args)))?;
        Ok((cfg, args))
    }

    /// The configuration and command line of the next child.
    pub(super) fn next_child(&mut self) -> Result<(Config, Vec<String>)> {
        self.child = self.reopen_config()?;
        self.reopens += 1;
        Ok(self.child.clone())
    }

    /// Counts a kill whose DB verified; after `--kills-per-set` of them
    /// draws the next set on a fresh DB and returns true.
    pub(super) fn kill_verified(&mut self) -> Result<bool> {
        self.kills_in_set += 1;
        if self.kills_in_set < self.per_set {
            return Ok(false);
        }
        self.set = draw::draw(draw::next_seed(self.set.seed), self.ctx);
        fresh_db(&self.child.0.db)?;
        self.begin_set()?;
        Ok(true)
    }

    /// The summary line.
    pub(super) fn summary(&self) -> String {
        format!(
            "random-options: {} option sets ({} distinct)",
            self.started,
            self.distinct.len()
        )
    }

    /// The lines that reproduce a failure of the last child.
    pub(super) fn print_failure(&self) {
        eprintln!(
            "crash-test: failed in option set {} (seed {}), reopen {}; to run this set first: \
             strata stress --random-options --seed {} --kills-per-set {} {}",
            self.started,
            self.set.seed,
            self.reopens.saturating_sub(1),
            self.set.seed,
            self.per_set,
            self.base.join(" ")
        );
        eprintln!(
            "crash-test: the failing child's flags: {}",
            quoted(&self.child.1)
        );
    }
}

/// `args` as a shell would take them back (values with `;` or spaces in
/// single quotes).
fn quoted(args: &[String]) -> String {
    args.iter()
        .map(|a| {
            if a.is_empty() || a.contains([';', ' ', '{', '}']) {
                format!("'{a}'")
            } else {
                a.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn strip_drops_switches_and_flags_with_their_values() {
        let a = strings(&[
            "--db",
            "d",
            "--random-options",
            "--threads",
            "4",
            "--sync=1",
            "--keys",
            "9",
        ]);
        assert_eq!(
            strip(&a, &["--random-options"], &["--threads", "--sync"]),
            strings(&["--db", "d", "--keys", "9"])
        );
    }

    /// Every drawn set's flags make a configuration `strata stress`
    /// accepts, with the families' options where `open_and_verify` and
    /// the workers look for them.
    #[test]
    fn drawn_flags_parse_and_pass_the_checks() {
        let mut seed = 3;
        for _ in 0..200 {
            let set = draw::draw(seed, draw::Context { direct_io: true });
            let mut args: Vec<String> = "strata stress|--db|d|--crash-test|--duration|1"
                .split('|')
                .map(String::from)
                .collect();
            args.extend(set.args());
            let cfg = Config::try_parse_from(&args).unwrap();
            cfg.check().unwrap();
            assert_eq!(cfg.column_families, set.column_families());
            for f in 0..set.column_families() {
                let o = cfg.family_options(f).unwrap();
                assert_eq!(
                    o.compaction_style.name(),
                    set.families[f]["compaction_style"],
                    "seed {seed} family {f}"
                );
            }
            seed = draw::next_seed(seed);
        }
    }
}
