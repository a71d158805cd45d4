//! Every option set to extreme values (zero, one, negative, huge,
//! non-finite, empty, a word): each is either refused by `Options::set` or
//! `validate` with an error, or opens a DB that takes writes, a flush, a
//! full compaction, reads, a scan and a reopen. Never a panic, never a hang
//! (a case running over a minute aborts the test naming the case).
//!
//! `STRATA_EXTREME_VALUES=all` tries the long list of values (minutes in a
//! release build); the default is a short list.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use strata::{Db, Options, ReadOptions};

const SHORT: &[&str] = &[
    "0",
    "1",
    "-1",
    "3",
    "18446744073709551615",
    "nan",
    "",
    "abc",
];

const LONG: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "7",
    "100",
    "1000000000000",
    "18446744073709551615",
    "9223372036854775807",
    "0.0",
    "0.5",
    "1.5",
    "1e9",
    "nan",
    "inf",
    "-inf",
    "true",
    "false",
    "",
    "abc",
    "kNoCompression",
    "kZSTD",
    "kCompactionStyleUniversal",
    "kCompactionStyleFIFO",
    "kCompactionStyleNone",
    "{allow_compaction=true}",
    "{max_table_files_size=1}",
];

/// Options whose extreme values are valid and only make the DB slow or
/// point it elsewhere: a rate limit of a few bytes a second, other
/// directories.
fn skipped(name: &str, value: &str) -> bool {
    (name == "rate_limiter_bytes_per_sec" && value.len() < 4)
        || ["db_log_dir", "wal_dir", "db_paths"].contains(&name)
}

fn base() -> Options {
    Options::default()
        .create_if_missing(true)
        .write_buffer_size(64 * 1024)
        .target_file_size_base(64 * 1024)
        .max_bytes_for_level_base(256 * 1024)
}

fn exercise(dir: &std::path::Path, o: Options) -> strata::Result<()> {
    let db = Db::open(dir, o.clone())?;
    for i in 0..600u32 {
        let k = format!("k{:05}", (i * 7919) % 600);
        db.put(
            k.as_bytes(),
            vec![b'a' + (i % 26) as u8; 50 + (i as usize % 300)],
        )?;
        if i % 100 == 0 {
            db.delete(format!("k{:05}", i / 2).as_bytes())?;
        }
    }
    db.flush()?;
    db.compact_range(None, None)?;
    for i in 0..600u32 {
        db.get(format!("k{i:05}").as_bytes())?;
    }
    let mut it = db.iter_opt(&ReadOptions::default());
    it.seek_to_first();
    while it.valid() {
        it.advance();
    }
    it.status()?;
    drop(it);
    drop(db);
    let db = Db::open(dir, o)?;
    db.get(b"k00001")?;
    Ok(())
}

#[test]
fn extreme_option_values_are_refused_or_work() {
    let values = if std::env::var("STRATA_EXTREME_VALUES").as_deref() == Ok("all") {
        LONG
    } else {
        SHORT
    };
    let names: Vec<&'static str> = base().to_pairs().into_iter().map(|(k, _)| k).collect();
    assert!(names.len() > 50, "{}", names.len());
    let current = Arc::new(Mutex::new((String::new(), Instant::now())));
    let done = Arc::new(AtomicBool::new(false));
    let watchdog = {
        let (current, done) = (current.clone(), done.clone());
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                let (case, since) = current.lock().unwrap().clone();
                if since.elapsed() > Duration::from_secs(60) {
                    eprintln!("extreme_options: {case} has run for over a minute (a hang)");
                    std::process::abort();
                }
            }
        })
    };
    let (mut opened, mut refused) = (0, 0);
    let mut failures = Vec::new();
    for name in &names {
        for v in values {
            if skipped(name, v) {
                continue;
            }
            let mut o = base();
            if o.set(name, v).is_err() || o.validate().is_err() {
                refused += 1;
                continue;
            }
            let case = format!("{name}={v}");
            *current.lock().unwrap() = (case.clone(), Instant::now());
            // On disk: the cases include O_DIRECT, which tmpfs refused
            // before Linux 6.6.
            let dir = strata_testkit::disk_tempdir();
            let path = dir.path().join("db");
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| exercise(&path, o))) {
                Ok(Ok(())) => opened += 1,
                // Options that refuse this exercise by design.
                Ok(Err(e))
                    if (name.contains("create_if_missing") || name.contains("error_if_exists")) =>
                {
                    let _ = e;
                }
                Ok(Err(e)) => failures.push(format!("{case}: error {e}")),
                Err(_) => failures.push(format!("{case}: panic")),
            }
        }
    }
    done.store(true, Ordering::Relaxed);
    watchdog.join().unwrap();
    println!("{opened} cases opened and worked, {refused} refused");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(opened > 50 && refused > 50, "{opened} {refused}");
}
