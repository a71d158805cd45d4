//! Crash mode with `--kill-at` (RocksDB's db_crashtest "whitebox" kills):
//! each child is armed to kill itself at a named sync point of the engine
//! on its N-th hit (N random in a range that suits the point), so the
//! kills land in the windows the points name instead of wherever a random
//! moment falls.
//!
//! A child that dies of SIGKILL before its time is up died at the point:
//! the parent reopens and verifies the DB. A child that does not reach the
//! point in its time (`--kill-min-ms`..`--kill-max-ms`) is killed by the
//! parent at that moment, which counts as "not reached", and the DB is
//! left as the kill left it: the next child's open recovers it (recovery's
//! own points are reached there, with WALs to replay) and verifies it
//! before its workload starts, and the loop verifies it once more at the
//! end. A point not reached twice in a row gives its turn to the next; a
//! point never reached in 20 children drops out of the rotation.

use std::os::unix::process::ExitStatusExt;
use std::process::ExitStatus;
use std::time::Instant;

use anyhow::Result;
use strata::sync_point::SyncPoint;

use super::config::Config;
use super::crash::{wait_or_kill, CrashLoop};

/// Consecutive children that miss a point before it gives its turn.
const MISSES_PER_TURN: u32 = 2;

/// Children that miss a point never reached before it drops out of the
/// rotation: the configuration cannot reach it (`blob.finished` without
/// blob files, `wal.sync` without `--sync 1`), and its turns would take
/// the time of the others.
const GIVE_UP_AFTER: u64 = 20;

/// The largest hit a child is armed for at `p`; the hit is uniform in
/// `1..=max_hit(p)`. Points reached many times a second get a wide range,
/// so that the kill lands at various depths of the run; points reached
/// once per open (most of recovery's, CURRENT's rename) get 1.
pub(super) fn max_hit(p: SyncPoint) -> u64 {
    match p {
        SyncPoint::WalAppend => 500,
        SyncPoint::WalSync => 50,
        SyncPoint::PurgeFileDeleted => 8,
        SyncPoint::MemtableSwitch | SyncPoint::TableSynced => 4,
        SyncPoint::BlobFinished | SyncPoint::FlushManifestSynced => 3,
        SyncPoint::CompactionManifestSynced | SyncPoint::RecoveryWalReplayed => 2,
        _ => 1,
    }
}

/// What happened at one point.
#[derive(Default)]
struct Tally {
    /// Children armed at the point.
    cycles: u64,
    /// Children that died at the point.
    kills: u64,
    /// Children that ran out of time without reaching the point.
    not_reached: u64,
    /// Violations found after a kill at the point.
    violations: u64,
    /// Kills at the point in the current option set (with
    /// `--random-options`; else all of them).
    set_kills: u64,
    /// Children that ran out of time without reaching the point in the
    /// current option set.
    set_not_reached: u64,
}

/// How a child's cycle ended.
enum Ending {
    /// It killed itself at the armed point.
    AtPoint,
    /// Its time ran out; the parent killed it.
    NotReached,
    /// It exited by itself (a violation found online or on its reopen,
    /// or an error).
    Exited(ExitStatus),
}

/// How a cycle ended, from the exit status of a child that exited before
/// its time was up (`None`: the parent killed it). A child that kills
/// itself between the parent's last look and the parent's kill counts as
/// not reached: its DB is then verified by the next child's open.
fn ending(exited: Option<ExitStatus>) -> Ending {
    match exited {
        None => Ending::NotReached,
        Some(status) if status.signal() == Some(libc::SIGKILL) => Ending::AtPoint,
        Some(status) => Ending::Exited(status),
    }
}

/// The per-point lines of the report.
fn print_points(points: &[SyncPoint], tallies: &[Tally]) {
    for (p, t) in points.iter().zip(tallies) {
        println!(
            "kill-at {}: {} cycles, {} kills at the point, {} not reached, {} violations",
            p.name(),
            t.cycles,
            t.kills,
            t.not_reached,
            t.violations
        );
    }
}

impl Tally {
    /// Whether the point dropped out of the rotation: never reached in
    /// [`GIVE_UP_AFTER`] children of the current option set.
    fn given_up(&self) -> bool {
        self.set_kills == 0 && self.set_not_reached >= GIVE_UP_AFTER
    }

    /// A new option set begins (`--random-options`): a point given up
    /// under the last one may be reachable under this one.
    fn new_set(&mut self) {
        self.set_kills = 0;
        self.set_not_reached = 0;
    }
}

/// The turn after `i`: the next point still short of `--kills-per-point`
/// kills (any next point without a target) and not given up, or `None`
/// when no point is left.
fn next_turn(cfg: &Config, tallies: &[Tally], i: usize) -> Option<usize> {
    let n = tallies.len();
    (1..=n).map(|k| (i + k) % n).find(|&j| {
        let t = &tallies[j];
        !t.given_up() && (cfg.kills_per_point == 0 || t.kills < cfg.kills_per_point)
    })
}

/// Runs the whitebox crash-test loop; returns the exit code.
///
/// # Errors
/// Failure to start a child or to write the expected state.
pub fn run(cfg: &Config, args: &[String]) -> Result<i32> {
    let points = cfg.kill_points()?;
    let mut tallies: Vec<Tally> = points.iter().map(|_| Tally::default()).collect();
    let mut l = match CrashLoop::start(cfg, args)? {
        Ok(l) => l,
        Err(code) => return Ok(code),
    };
    let report = |l: &CrashLoop, tallies: &[Tally], violations: usize| {
        println!("{}", l.timed_totals(violations));
        print_points(&points, tallies);
    };
    let mut turn = next_turn(cfg, &tallies, points.len() - 1);
    let mut misses = 0u32;
    // Whether the DB was verified since the last kill.
    let mut verified = true;
    while let Some(i) = turn {
        if Instant::now() >= l.deadline {
            break;
        }
        let point = points[i];
        let hit = 1 + l.rng.below(max_hit(point));
        let extra = [
            "--kill-at".to_string(),
            point.name().to_string(),
            "--kill-hit".to_string(),
            hit.to_string(),
        ];
        let (mut child, until) = l.spawn(cfg, args, &extra)?;
        let ending = ending(wait_or_kill(&mut child, until)?);
        l.cycles += 1;
        tallies[i].cycles += 1;
        match ending {
            Ending::Exited(status) => {
                tallies[i].violations += 1;
                eprintln!(
                    "crash-test: the child aimed at {point} (hit {hit}) exited by itself with {status} in cycle {}",
                    l.cycles
                );
                report(&l, &tallies, 1);
                return Ok(l.fail_exit(cfg, status));
            }
            Ending::NotReached => {
                tallies[i].not_reached += 1;
                tallies[i].set_not_reached += 1;
                verified = false;
                misses += 1;
                if tallies[i].given_up() {
                    eprintln!(
                        "crash-test: {point} was not reached by {GIVE_UP_AFTER} children; it drops out"
                    );
                }
                if misses >= MISSES_PER_TURN || tallies[i].given_up() {
                    misses = 0;
                    turn = next_turn(cfg, &tallies, i);
                }
                continue;
            }
            Ending::AtPoint => {
                tallies[i].kills += 1;
                tallies[i].set_kills += 1;
                misses = 0;
            }
        }
        if let Err(violations) = l.verify(cfg)? {
            tallies[i].violations += violations.len() as u64;
            report(&l, &tallies, violations.len());
            eprintln!(
                "crash-test: violation after a kill at {point} (hit {hit}) in cycle {}",
                l.cycles
            );
            return Ok(l.fail(cfg, &violations));
        }
        verified = true;
        match l.kill_verified(cfg)? {
            Ok(false) => {}
            // A new option set: the points reach anew what it can reach.
            Ok(true) => tallies.iter_mut().for_each(Tally::new_set),
            Err(code) => {
                report(&l, &tallies, 1);
                return Ok(code);
            }
        }
        if l.cycles % 100 == 0 {
            eprintln!(
                "crash-test: progress: {} cycles, {} kills at points after {:.0} s",
                l.cycles,
                tallies.iter().map(|t| t.kills).sum::<u64>(),
                l.start.elapsed().as_secs_f64()
            );
        }
        turn = next_turn(cfg, &tallies, i);
    }
    if !verified {
        if let Err(violations) = l.verify(cfg)? {
            report(&l, &tallies, violations.len());
            eprintln!("crash-test: violation on the final reopen");
            return Ok(l.fail(cfg, &violations));
        }
    }
    report(&l, &tallies, 0);
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    /// A crash test's configuration with `extra` flags, unchecked.
    fn parse(extra: &[&str]) -> Config {
        let mut a = vec![
            "strata stress",
            "--db",
            "d",
            "--crash-test",
            "--duration",
            "1",
        ];
        a.extend_from_slice(extra);
        Config::try_parse_from(a).unwrap()
    }

    /// [`parse`], checked.
    fn cfg(extra: &[&str]) -> Config {
        let c = parse(extra);
        c.check().unwrap();
        c
    }

    #[test]
    fn every_point_has_a_hit_range() {
        for &p in SyncPoint::ALL {
            assert!(max_hit(p) >= 1, "{p}");
        }
    }

    #[test]
    fn turns_skip_points_that_have_their_kills() {
        let c = cfg(&["--kill-at", "random-point", "--kills-per-point", "2"]);
        let mut t: Vec<Tally> = (0..4).map(|_| Tally::default()).collect();
        assert_eq!(next_turn(&c, &t, 3), Some(0));
        t[1].kills = 2;
        assert_eq!(next_turn(&c, &t, 0), Some(2));
        for x in &mut t {
            x.kills = 2;
        }
        assert_eq!(next_turn(&c, &t, 0), None);
        // Without a target, turns go round for ever.
        let c = cfg(&["--kill-at", "random-point"]);
        assert_eq!(next_turn(&c, &t, 3), Some(0));
    }

    /// Regression: with `--kills-per-point`, a point the configuration
    /// cannot reach (`blob.finished` without blob files) took every turn
    /// once the others had their kills, until `--duration` ended.
    #[test]
    fn a_point_never_reached_drops_out_of_the_rotation() {
        let c = cfg(&["--kill-at", "random-point", "--kills-per-point", "2"]);
        let mut t: Vec<Tally> = (0..3).map(|_| Tally::default()).collect();
        t[0].kills = 2;
        t[2].kills = 2;
        t[1].set_not_reached = GIVE_UP_AFTER - 1;
        assert_eq!(next_turn(&c, &t, 0), Some(1));
        t[1].set_not_reached = GIVE_UP_AFTER;
        assert_eq!(next_turn(&c, &t, 0), None);
        // A new option set may reach it.
        t[1].new_set();
        assert_eq!(next_turn(&c, &t, 0), Some(1));
        // A point reached once stays, however often it is missed.
        t[1].set_kills = 1;
        t[1].set_not_reached = 10 * GIVE_UP_AFTER;
        assert_eq!(next_turn(&c, &t, 0), Some(1));
        let c = cfg(&["--kill-at", "random-point"]);
        t[1].set_kills = 0;
        assert_eq!(next_turn(&c, &t, 1), Some(2));
    }

    #[test]
    fn bad_point_names_list_the_valid_ones() {
        let e = parse(&["--kill-at", "wal.apend"])
            .check()
            .unwrap_err()
            .to_string();
        assert!(e.contains("wal.apend"), "{e}");
        assert!(
            e.contains("random-point") && e.contains("wal.append"),
            "{e}"
        );
        assert!(e.contains("recovery.edit_logged"), "{e}");
        let c = Config::try_parse_from(["strata stress", "--db", "d", "--kill-at", "wal.sync"])
            .unwrap();
        assert!(c.check().unwrap_err().to_string().contains("--crash-test"));
    }
}
