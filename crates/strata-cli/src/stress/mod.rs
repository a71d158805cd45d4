//! `strata stress`: a db_stress-style tool with a crash-test loop
//! (db_crashtest.py) built in. See `docs/stress.md`.

mod checkpoint;
mod codec;
mod config;
mod crash;
mod draw;
mod expected;
mod randomized;
mod value;
mod verify;
mod whitebox;
mod worker;

use std::sync::atomic::Ordering;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::Parser;
use strata::{ColumnFamily, Db};

pub use config::Config;
use expected::KeyState;
use verify::Durability;

/// Runs `strata stress ARGS`; returns the exit code: 0 no violation, 1 a
/// violation (printed, DB and expected state kept), 2 an error that is not
/// a finding (bad flags, options the engine refuses, I/O errors outside
/// the DB under test), printed to stderr.
///
/// # Errors
/// Only if the usage message cannot be printed.
pub fn run(args: Vec<String>) -> Result<i32> {
    let cfg = match Config::try_parse_from(
        std::iter::once("strata stress".to_string()).chain(args.iter().cloned()),
    ) {
        Ok(c) => c,
        Err(e) => {
            let code = i32::from(e.use_stderr());
            e.print()?;
            return Ok(code * 2);
        }
    };
    let result = cfg.check().and_then(|()| {
        if cfg.crash_test {
            crash::run(&cfg, &args)
        } else {
            run_normal(&cfg)
        }
    });
    match result {
        Ok(code) => Ok(code),
        // Not a finding: bad flags, options the engine refuses, I/O errors
        // outside the DB under test.
        Err(e) => {
            eprintln!("strata stress: error: {e:#}");
            Ok(2)
        }
    }
}

/// Reports a violation with the paths kept for inspection; returns exit 1.
fn report_violations(cfg: &Config, violations: &[String]) -> i32 {
    for v in violations.iter().take(20) {
        eprintln!("VIOLATION: {v}");
    }
    if violations.len() > 20 {
        eprintln!("... and {} more", violations.len() - 20);
    }
    eprintln!(
        "kept for inspection: db {} expected state {}",
        cfg.db.display(),
        expected::dir_for(&cfg.db).display()
    );
    1
}

/// Result of [`open_and_verify`].
pub(crate) struct Verified {
    db: Db,
    /// Handles of the column families, "default" first.
    families: Vec<ColumnFamily>,
    /// The key states of each family.
    base: Vec<Vec<KeyState>>,
    outcome: Option<verify::Outcome>,
}

/// With several column families: the DB must list exactly the run's
/// families, except that one whose drop began but was not acknowledged
/// may be missing (dropped, not created again). The violations, if any.
fn check_listed_families(cfg: &Config, log: &[expected::Record]) -> Result<Vec<String>> {
    let names = cfg.family_names();
    if names.len() == 1 || !cfg.db.join("CURRENT").exists() {
        return Ok(Vec::new());
    }
    let listed = match Db::list_column_families(&cfg.db, &cfg.db_options()?) {
        Ok(l) => l,
        Err(e) => return Ok(vec![format!("listing the column families failed: {e}")]),
    };
    let pending = verify::drops_pending(log, names.len());
    let mut violations = Vec::new();
    for (f, name) in names.iter().enumerate() {
        if !listed.contains(name) && !pending[f] {
            violations.push(format!(
                "column family {name} is missing after the reopen (the DB lists {listed:?})"
            ));
        }
    }
    for name in &listed {
        if !names.contains(name) {
            violations.push(format!(
                "the DB lists column family {name}, which the run never created"
            ));
        }
    }
    Ok(violations)
}

/// Opens the DB, verifies it against the expected state on disk (unless
/// `skip_if_clean` and the log is empty) and, when clean, makes what was
/// found the new baseline.
fn open_and_verify(
    cfg: &Config,
    skip_if_clean: bool,
) -> Result<std::result::Result<Verified, Vec<String>>> {
    let dir = expected::dir_for(&cfg.db);
    let opts = cfg.db_options()?;
    let names = cfg.family_names();
    let existing = expected::read_baseline(&dir, cfg.keys, names.len())?;
    let log = expected::read_log(&dir)?;
    let listed = check_listed_families(cfg, &log)?;
    if !listed.is_empty() {
        return Ok(Err(listed));
    }
    let opened = if names.len() == 1 {
        Db::open(&cfg.db, opts)
    } else {
        let fam_opts = (1..names.len())
            .map(|f| cfg.family_options(f))
            .collect::<Result<Vec<_>>>()?;
        Db::open_cf(&cfg.db, opts, names[1..].iter().cloned().zip(fam_opts))
    };
    let db = match opened {
        Ok(db) => db,
        // Options the engine refuses are a usage error, not a finding.
        Err(e @ (strata::Error::InvalidArgument(_) | strata::Error::NotSupported(_))) => {
            anyhow::bail!("opening {}: {e}", cfg.db.display())
        }
        Err(e) => return Ok(Err(vec![format!("reopening the DB failed: {e}")])),
    };
    let families = names
        .iter()
        .map(|n| {
            db.column_family(n)
                .with_context(|| format!("column family {n} is not open"))
        })
        .collect::<Result<Vec<_>>>()?;
    let fresh = existing.is_none();
    let base =
        existing.unwrap_or_else(|| vec![vec![KeyState::default(); cfg.keys as usize]; names.len()]);
    if skip_if_clean && !fresh && log.is_empty() {
        return Ok(Ok(Verified {
            db,
            families,
            base,
            outcome: None,
        }));
    }
    let dur = Durability {
        acked_durable: cfg.acked_durable(),
        cross_family_atomic: cfg.disable_wal == 0,
    };
    let out = verify::verify_families(&db, &families, &names, &base, &log, dur, &cfg.codecs()?)?;
    if !out.violations.is_empty() {
        return Ok(Err(out.violations));
    }
    expected::write_baseline(&dir, &out.next).context("writing the expected state")?;
    Ok(Ok(Verified {
        db,
        families,
        base: out.next.clone(),
        outcome: Some(out),
    }))
}

fn run_normal(cfg: &Config) -> Result<i32> {
    let started = std::time::Instant::now();
    // A crash-test child aimed at a sync point arms it before the DB opens,
    // so that recovery's points count too.
    #[cfg(feature = "sync-points")]
    if cfg.child {
        if let Some(&point) = cfg.kill_points()?.first() {
            strata::sync_point::arm_kill(point, cfg.kill_hit);
        }
    }
    checkpoint::remove_all(&cfg.db)?;
    let v = match open_and_verify(cfg, cfg.child)? {
        Ok(v) => v,
        Err(violations) => return Ok(report_violations(cfg, &violations)),
    };
    let pre = v.outcome.as_ref().map_or(0, |o| o.keys_verified);
    let dir = expected::dir_for(&cfg.db);
    let log = expected::LogWriter::open(&dir)?;
    let shared = Arc::new(worker::Shared::new(
        v.db,
        v.families,
        cfg.clone(),
        cfg.codecs()?,
        log,
        &v.base,
    ));
    let seed = cfg.effective_seed();
    let handles: Vec<_> = (0..cfg.threads)
        .map(|t| {
            let s = shared.clone();
            std::thread::spawn(move || s.worker(value::mix64(seed ^ (t as u64 + 1))))
        })
        .collect();
    for h in handles {
        if h.join().is_err() {
            shared
                .failure
                .lock()
                .get_or_insert_with(|| "a worker panicked".into());
        }
    }
    if let Some(f) = shared.failure.lock().clone() {
        return Ok(report_violations(cfg, &[f]));
    }
    shared.flush()?;
    let c = &shared.counters;
    let family_counts = if cfg.column_families > 1 {
        format!(
            ", {} writes to several families, {} families dropped and created again",
            c.cross_family.load(Ordering::Relaxed),
            c.drops.load(Ordering::Relaxed)
        )
    } else {
        String::new()
    };
    let merges = match (
        c.merges.load(Ordering::Relaxed),
        c.range_deletes.load(Ordering::Relaxed),
    ) {
        (0, 0) => String::new(),
        (m, r) => format!(", {m} merges, {r} range deletions"),
    };
    let merges = match c.checkpoints.load(Ordering::Relaxed) {
        0 => merges,
        n => format!("{merges}, {n} checkpoints verified"),
    };
    let counts = format!(
        "{} operations ({} puts, {} deletes, {} batches, {} gets, {} scans, {} snapshots taken, {} snapshot reads, {} flushes{merges}{family_counts}) in {:.1} s, {} reads verified",
        c.total(),
        c.puts.load(Ordering::Relaxed),
        c.deletes.load(Ordering::Relaxed),
        c.batches.load(Ordering::Relaxed),
        c.gets.load(Ordering::Relaxed),
        c.scans.load(Ordering::Relaxed),
        c.snapshots_taken.load(Ordering::Relaxed),
        c.snapshot_reads.load(Ordering::Relaxed),
        c.flushes.load(Ordering::Relaxed),
        started.elapsed().as_secs_f64(),
        c.verified.load(Ordering::Relaxed),
    );
    let Ok(shared) = Arc::try_unwrap(shared) else {
        anyhow::bail!("worker threads still hold the DB");
    };
    drop(shared);
    // Final check: reopen and verify everything against the log.
    let end = match open_and_verify(cfg, false)? {
        Ok(v) => v,
        Err(violations) => return Ok(report_violations(cfg, &violations)),
    };
    let post = end.outcome.as_ref().map_or(0, |o| o.keys_verified);
    drop(end);
    checkpoint::remove_all(&cfg.db)?;
    println!(
        "stress: {counts}, {} keys verified on reopen, 0 violations",
        pre + post
    );
    Ok(0)
}
