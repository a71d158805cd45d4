//! Running a study: one job (all steps on a fresh DB, each step's row),
//! and the whole sweep with progress and resume.

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::data::derive::{metrics, Accounting};
use crate::data::results::HostInfo;
use crate::data::results::{self, ResultRow, RUN_FILE, SCHEMA_VERSION};
use crate::data::skipped::cores_skip;
use crate::run::engines::{resolve_engines, EngineCmd};
use crate::run::host::{git_commit, host_info};
use crate::run::hygiene::{execution_order, fresh_order_seed, Settle};
use crate::run::layout::{job_done, merge, run_dir, study_dir, write_meta, Meta};
use crate::run::leveldb::{leveldb_db_bench_flags, with_leveldb_log_line};
use crate::run::options::RunOptions;
use crate::run::process::shell_join;
use crate::spec::model::{step_command, Job, Plan};
use strata_bench::dbbench_text::parse_output;

/// Runs every step of one job on a fresh DB and writes its result file.
pub(crate) fn run_job(
    plan: &Plan,
    job: &Job,
    engine: Result<&EngineCmd, String>,
    sdir: &Path,
    host: &HostInfo,
    git: &Option<String>,
) -> anyhow::Result<Vec<ResultRow>> {
    let rdir = run_dir(sdir, job);
    let _ = std::fs::remove_dir_all(&rdir);
    std::fs::create_dir_all(&rdir)?;
    let db = rdir.join("db");
    let need = plan.disk_need(&job.cell);
    // A cell pinned to more cores than the host has would run on the
    // host's cores under another label: skipped, naming both.
    let short_of_cores = job
        .cell
        .cpus
        .filter(|n| *n > host.cores)
        .map(|n| cores_skip(n, host.cores));
    let mut fatal: Option<String> = match &engine {
        Err(e) => Some(e.clone()),
        Ok(_) => short_of_cores.or_else(|| {
            crate::run::process::check_disk(&rdir, need)
                .err()
                .map(|e| e.to_string())
        }),
    };
    let cores = job.cell.cpus.unwrap_or(host.cores).min(host.cores.max(1));
    let mut rows = Vec::new();
    for (i, step) in plan.steps().iter().enumerate() {
        let mut flags = plan.job_step_flags(job, i);
        if let Ok(e) = &engine {
            if let (true, Some(caps)) = (e.external, e.leveldb) {
                match leveldb_db_bench_flags(&flags, caps) {
                    Ok(f) => flags = f,
                    Err(m) => {
                        fatal.get_or_insert(m);
                    }
                }
            }
        }
        let prefix = engine
            .as_ref()
            .map(|e| e.prefix.clone())
            .unwrap_or_default();
        let argv = step_command(&prefix, &flags, &db);
        let started_unix = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        let mut row = ResultRow {
            schema_version: SCHEMA_VERSION,
            study: plan.loaded.spec.name.clone(),
            scale: plan.scale.clone(),
            engine: job.engine.clone(),
            engine_version: String::new(),
            engine_command: engine.as_ref().map(|e| e.how.clone()).unwrap_or_default(),
            cell_id: job.cell.id.clone(),
            cell: job.cell.labels.clone(),
            cpus: job.cell.cpus,
            repeat: job.repeat,
            job_index: job.index,
            step: step.label(),
            step_index: i,
            command: shell_join(&argv),
            exit_code: -1,
            ok: false,
            error: fatal.clone(),
            wall_sec: 0.0,
            user_sec: 0.0,
            sys_sec: 0.0,
            max_rss_kb: 0,
            started_unix,
            git_commit: git.clone(),
            host: host.clone(),
            metrics: Default::default(),
            na: Default::default(),
        };
        if fatal.is_none() {
            std::fs::write(
                rdir.join(format!("step{i}.cmd")),
                format!("{}\n", row.command),
            )?;
            let o = crate::run::process::run_with_timeout(
                &argv,
                job.cell.cpus,
                &rdir.join(format!("step{i}")),
                plan.timeout,
            );
            let external_leveldb = engine.as_ref().is_ok_and(|e| e.leveldb.is_some());
            let parsed = if external_leveldb {
                parse_output(&with_leveldb_log_line(&o.stdout, &db), &o.stderr)
            } else {
                parse_output(&o.stdout, &o.stderr)
            };
            row.engine_version = parsed
                .engine_version
                .clone()
                .unwrap_or_else(|| "unknown".into());
            row.exit_code = o.exit_code;
            row.wall_sec = o.wall_sec;
            row.user_sec = o.user_sec;
            row.sys_sec = o.sys_sec;
            row.max_rss_kb = o.max_rss_kb;
            let acc = Accounting {
                wall_sec: o.wall_sec,
                user_sec: o.user_sec,
                sys_sec: o.sys_sec,
                max_rss_kb: o.max_rss_kb,
                cores,
            };
            row.metrics = metrics(&parsed, &acc);
            row.metrics.extend(crate::run::joblog::collect(
                &db,
                &rdir.join(format!("step{i}.events")),
            ));
            if let Some(bytes) = dir_bytes(&db) {
                row.metrics.insert("disk_mb_end".into(), bytes as f64 / 1e6);
            }
            // LevelDB's own db_bench names a benchmark it lacks and goes
            // on with the next one, exit code 0: the step ran something
            // else than the cell says, so it is skipped like a flag.
            let unknown = unknown_benchmark(&o.stderr);
            row.ok = o.exit_code == 0 && parsed.primary().is_some() && unknown.is_none();
            if !row.ok {
                let last = o
                    .stderr
                    .lines()
                    .rev()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("");
                // `strata bench` refuses a flag an engine has no
                // equivalent for, naming both: the cell is skipped for it.
                let msg = if let Some(u) = unknown {
                    format!(
                        "skipped: {} lacks a benchmark this cell runs: {u}",
                        job.engine
                    )
                } else if last.contains("is not supported by") {
                    let what = if last.contains("benchmark '") {
                        "a benchmark this cell runs"
                    } else {
                        "a flag this cell sets"
                    };
                    format!("skipped: {} lacks {what}: {}", job.engine, last.trim())
                } else {
                    format!(
                        "exit code {}; no result line parsed; stderr: {}",
                        o.exit_code,
                        last.trim()
                    )
                };
                row.error = Some(msg.clone());
                fatal = Some(format!("step {} failed: {msg}", step.label()));
            }
        }
        rows.push(row);
    }
    // What the engine opened with, kept before the DB goes.
    crate::run::effective::keep(&db, &rdir)?;
    let _ = std::fs::remove_dir_all(&db);
    results::write_jsonl(&rdir.join(RUN_FILE), &rows)?;
    Ok(rows)
}

/// Runs the whole study; returns the study directory.
pub(crate) fn run_study(plan: &Plan, opts: &RunOptions) -> anyhow::Result<PathBuf> {
    let started = std::time::Instant::now();
    let sdir = study_dir(&opts.out, plan);
    std::fs::create_dir_all(&sdir)?;
    let need = plan.max_disk_need();
    crate::run::process::check_disk(&sdir, need)?;
    let (engines, mut notes) = resolve_engines(&plan.engines, opts, &sdir);
    if engines.is_empty() {
        anyhow::bail!("no engine available: {}", notes.join(" "));
    }
    let missing: Vec<&String> = plan
        .engines
        .iter()
        .filter(|e| !engines.iter().any(|c| &c.engine == *e))
        .collect();
    if !missing.is_empty() && !opts.allow_missing_engines {
        let why: Vec<String> = notes
            .iter()
            .filter(|n| {
                missing
                    .iter()
                    .any(|e| n.starts_with(&format!("{e} was requested")))
            })
            .map(|n| n.replace("; the study ran without it.", "."))
            .collect();
        let how: Vec<String> = missing.iter().map(|e| how_to_get(e)).collect();
        anyhow::bail!(
            "requested engine{} {} cannot run: {} {} Or leave it out of --engines, or pass --allow-missing-engines to run without it (the report then says so).",
            if missing.len() == 1 { "" } else { "s" },
            missing
                .iter()
                .map(|e| format!("`{e}`"))
                .collect::<Vec<_>>()
                .join(", "),
            why.join(" "),
            how.join(" ")
        );
    }
    for n in notes.iter().filter(|n| n.contains(" was requested but ")) {
        eprintln!("note: {n}");
    }
    for e in &engines {
        notes.push(format!("{} ran through {}.", e.engine, e.how));
    }
    let settle = Settle::available(opts.settle);
    let order_seed = opts.order_seed.unwrap_or_else(fresh_order_seed);
    let mut meta = Meta::of(plan, engines.clone(), notes);
    meta.order_seed = Some(order_seed);
    meta.settle = settle.describe().to_string();
    write_meta(&sdir, plan, &meta)?;
    let host = host_info(&sdir);
    let git = git_commit();
    let jobs: Vec<&Job> = plan
        .jobs
        .iter()
        .filter(|j| engines.iter().any(|e| e.engine == j.engine))
        .collect();
    let jobs = execution_order(&jobs, order_seed);
    let bar = indicatif::ProgressBar::new(jobs.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} runs, ETA {eta} | {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let mut ran = 0usize;
    for job in jobs {
        if opts.resume && job_done(&sdir, job) {
            bar.inc(1);
            continue;
        }
        if opts.max_jobs.is_some_and(|m| ran >= m) {
            bar.abandon_with_message("stopped early");
            return Ok(sdir);
        }
        let msg = format!("{} {} repeat {}", job.engine, job.cell.id, job.repeat + 1);
        if bar.is_hidden() {
            // No terminal (CI, GNU parallel logs): one line per run instead of a bar.
            eprintln!(
                "[{}/{}] {msg}",
                bar.position() + 1,
                bar.length().unwrap_or(0)
            );
        }
        bar.set_message(msg);
        let eng = engines
            .iter()
            .find(|e| e.engine == job.engine)
            .ok_or_else(|| "engine unavailable".to_string());
        if let Some(w) = settle.run() {
            bar.println(format!("warning: {w}"));
        }
        let rows = run_job(plan, job, eng, &sdir, &host, &git)?;
        if let Some(r) = rows.iter().find(|r| !r.ok) {
            bar.println(format!(
                "run failed ({} {}): {}",
                job.engine,
                job.cell.id,
                r.error.clone().unwrap_or_default()
            ));
        }
        ran += 1;
        bar.inc(1);
    }
    bar.finish_with_message("done");
    merge(&sdir)?;
    if let Some(a) = &opts.adaptive {
        let sched = crate::run::adaptive::run_rounds(
            plan, a, &engines, &sdir, &host, &git, settle, order_seed, started,
        )?;
        meta.schedule = sched;
        write_meta(&sdir, plan, &meta)?;
    }
    Ok(sdir)
}

/// The `unknown benchmark 'x'` a bench printed (LevelDB's db_bench does so
/// for a benchmark it lacks and runs the rest), without the progress text
/// before it on the same line.
fn unknown_benchmark(stderr: &str) -> Option<&str> {
    const SAYS: &str = "unknown benchmark '";
    let rest = &stderr[stderr.find(SAYS)?..];
    let end = rest[SAYS.len()..]
        .find('\'')
        .map_or(rest.len(), |j| SAYS.len() + j + 1);
    Some(&rest[..end])
}

/// How to get an engine's bench, for the error that names a missing one.
fn how_to_get(engine: &str) -> String {
    match engine {
        "rocksdb" => "For RocksDB: build `strata` with `cargo build --release --features rocksdb`, or give a release db_bench with --rocksdb-bench PATH.".into(),
        "leveldb" => "For LevelDB: `strata bench --engine=leveldb` needs the LevelDB built into `strata` (see docs/strata-bench.md), or give LevelDB's db_bench with --leveldb-bench PATH.".into(),
        e => format!("For {e}: check that `strata bench --engine={e}` runs."),
    }
}

/// Bytes of every file under `dir` (recursively); `None` if `dir` cannot
/// be read (the engine left no directory).
fn dir_bytes(dir: &Path) -> Option<u64> {
    let mut total = 0u64;
    for e in std::fs::read_dir(dir).ok()?.flatten() {
        let Ok(meta) = e.metadata() else { continue };
        if meta.is_dir() {
            total += dir_bytes(&e.path()).unwrap_or(0);
        } else {
            total += meta.len();
        }
    }
    Some(total)
}

#[cfg(test)]
mod tests {
    #[test]
    fn disk_use_counts_every_file_below_the_db() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("000001.sst"), [0u8; 1000]).unwrap();
        std::fs::create_dir(d.path().join("tables")).unwrap();
        std::fs::write(d.path().join("tables").join("7"), [0u8; 234]).unwrap();
        assert_eq!(super::dir_bytes(d.path()), Some(1234));
        assert_eq!(super::dir_bytes(&d.path().join("missing")), None);
    }

    use super::*;
    use crate::run::engines::probe;
    use crate::run::leveldb::LevelDbBenchCaps;
    use crate::spec::parse;

    const SPEC: &str = include_str!("../../testdata/studies/unit-runner.toml");

    /// A fake bench: `sh -c SCRIPT` ignores the appended flags ($0, $1, ...).
    fn fake(script: &str) -> EngineCmd {
        EngineCmd {
            engine: "strata".into(),
            prefix: vec!["sh".into(), "-c".into(), script.into()],
            how: "fake".into(),
            external: false,
            leveldb: None,
        }
    }

    #[test]
    fn failed_step_is_recorded_and_later_steps_skipped() {
        let d = tempfile::tempdir().unwrap();
        let plan = crate::testutil::plan(SPEC, "quick");
        let host = host_info(d.path());
        let bad = fake("echo boom >&2; exit 3");
        let rows = run_job(&plan, &plan.jobs[0], Ok(&bad), d.path(), &host, &None).unwrap();
        assert_eq!(rows.len(), 2);
        assert!(!rows[0].ok && rows[0].exit_code == 3);
        assert!(rows[0].error.as_deref().unwrap_or("").contains("boom"));
        assert!(
            !rows[1].ok && rows[1].exit_code == -1,
            "second step must not run"
        );
        assert!(
            job_done(d.path(), &plan.jobs[0]),
            "a failed job still writes its result file"
        );
    }

    #[test]
    fn leveldb_db_bench_gets_its_own_flag_names() {
        let f = |kv: &[(&str, &str)]| -> std::collections::BTreeMap<String, String> {
            kv.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let caps = LevelDbBenchCaps {
            compression_flag: true,
            snappy: true,
        };
        let t = leveldb_db_bench_flags(
            &f(&[
                ("benchmarks", "fillrandom,stats"),
                ("num", "1000"),
                ("target_file_size_base", "4194304"),
                ("compression_type", "none"),
                ("histogram", "true"),
                ("seed", "1"),
                ("statistics", "1"),
            ]),
            caps,
        )
        .unwrap();
        assert_eq!(
            t,
            f(&[
                ("benchmarks", "fillrandom,stats"),
                ("num", "1000"),
                ("max_file_size", "4194304"),
                ("compression", "0"),
                ("histogram", "1"),
            ])
        );
        let e = leveldb_db_bench_flags(&f(&[("max_bytes_for_level_base", "1")]), caps).unwrap_err();
        assert!(e.contains("--max_bytes_for_level_base"), "{e}");
        let e = leveldb_db_bench_flags(&f(&[("compression_type", "lz4")]), caps).unwrap_err();
        assert!(e.contains("lz4"), "{e}");
        // In a job: a flag it lacks skips the cell before anything runs.
        let d = tempfile::tempdir().unwrap();
        let l = parse(SPEC, Path::new("fake.toml")).unwrap();
        let set = [("max_bytes_for_level_base".to_string(), "1".to_string())];
        let plan = crate::spec::model::expand_with(&l, "quick", None, None, &set).unwrap();
        let mut ext = fake("echo 'fillseq      :       2.000 micros/op;'");
        ext.engine = "leveldb".into();
        ext.external = true;
        ext.leveldb = Some(caps);
        let rows = run_job(
            &plan,
            &plan.jobs[0],
            Ok(&ext),
            d.path(),
            &host_info(d.path()),
            &None,
        )
        .unwrap();
        assert!(rows.iter().all(|r| !r.ok && r.exit_code == -1), "{rows:?}");
        assert!(rows[0]
            .error
            .as_deref()
            .unwrap_or("")
            .starts_with("skipped: LevelDB's db_bench has no --max_bytes_for_level_base"));
    }

    #[test]
    fn leveldb_db_bench_takes_a_level_size_it_has_fixed() {
        // The quick scales set LevelDB's own fixed 10 MB level 1: every
        // cell was skipped on an external db_bench before.
        let f = |kv: &[(&str, &str)]| -> std::collections::BTreeMap<String, String> {
            kv.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let caps = LevelDbBenchCaps::default();
        let t = leveldb_db_bench_flags(
            &f(&[("max_bytes_for_level_base", "10485760"), ("num", "10")]),
            caps,
        )
        .unwrap();
        assert_eq!(t, f(&[("num", "10")]));
        let e = leveldb_db_bench_flags(&f(&[("max_bytes_for_level_base", "20971520")]), caps)
            .unwrap_err();
        assert!(
            e.contains("--max_bytes_for_level_base (set to 20971520)"),
            "{e}"
        );
    }

    #[test]
    fn leveldb_db_bench_takes_its_own_16_byte_keys() {
        // The studies set key_size=16: every LevelDB cell of the blob and
        // write buffer studies was skipped for it on an external db_bench.
        let f = |kv: &[(&str, &str)]| -> std::collections::BTreeMap<String, String> {
            kv.iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        };
        let caps = LevelDbBenchCaps::default();
        let t = leveldb_db_bench_flags(&f(&[("key_size", "16"), ("num", "10")]), caps).unwrap();
        assert_eq!(t, f(&[("num", "10")]));
        let e = leveldb_db_bench_flags(&f(&[("key_size", "24")]), caps).unwrap_err();
        assert!(e.contains("--key_size (set to 24)"), "{e}");
    }

    #[test]
    fn leveldb_1_23_db_bench_compresses_as_it_was_built() {
        let f = |v: &str| {
            std::collections::BTreeMap::from([("compression_type".to_string(), v.to_string())])
        };
        // No --compression flag, built without Snappy: none is what it does.
        let plain = LevelDbBenchCaps {
            compression_flag: false,
            snappy: false,
        };
        assert!(leveldb_db_bench_flags(&f("none"), plain)
            .unwrap()
            .is_empty());
        let e = leveldb_db_bench_flags(&f("snappy"), plain).unwrap_err();
        assert!(
            e.contains("no --compression flag") && e.contains("built without Snappy"),
            "{e}"
        );
        // Built with Snappy: snappy is accepted, none cannot be set.
        let snappy = LevelDbBenchCaps {
            compression_flag: false,
            snappy: true,
        };
        assert!(leveldb_db_bench_flags(&f("snappy"), snappy)
            .unwrap()
            .is_empty());
        let e = leveldb_db_bench_flags(&f("none"), snappy).unwrap_err();
        assert!(e.contains("always compresses with Snappy"), "{e}");
    }

    #[test]
    fn leveldb_db_bench_w_amp_and_flush_time_come_from_its_log() {
        // Output and info LOG of LevelDB 1.23's db_bench (fillrandom,
        // readrandom, stats; 20,000 x 2,000-byte values, 1 MiB buffers).
        let data = |n: &str| {
            let p = format!(
                "{}/../strata-bench/testdata/{n}",
                env!("CARGO_MANIFEST_DIR")
            );
            std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
        };
        let stdout = data("leveldb_fillrandom_1.23.stdout");
        let stderr = data("leveldb_fillrandom_1.23.stderr");
        let d = tempfile::tempdir().unwrap();
        // Without a LOG the output is left as it is: no W-Amp.
        assert_eq!(with_leveldb_log_line(&stdout, d.path()), stdout);
        std::fs::write(d.path().join("LOG"), data("leveldb_fillrandom_1.23.LOG")).unwrap();
        let o = parse_output(&with_leveldb_log_line(&stdout, d.path()), &stderr);
        assert_eq!(o.engine_version.as_deref(), Some("LevelDB 1.23"));
        let sum = &o.compaction_sum;
        // The table's Write(MB) column sums to 136 (37 + 76 + 23, each
        // rounded); the LOG's flush + compaction bytes must agree.
        let log =
            strata_bench::engine::leveldb_map::parse_log(&data("leveldb_fillrandom_1.23.LOG"));
        let log_mb = (log.flush_bytes + log.compaction_bytes) as f64 / 1048576.0;
        assert!((log_mb - 136.0).abs() <= 1.5, "{log_mb}");
        assert!((sum["Write(GB)"] * 1024.0 - 136.0).abs() < 1e-9);
        let w = sum["W-Amp"];
        assert!(
            (w - log_mb * 1048576.0 / log.flush_bytes as f64).abs() < 0.006,
            "{w}"
        );
        assert!(w > 1.5, "fillrandom compacts: {w}");
        let m = crate::data::derive::metrics(&o, &crate::data::derive::Accounting::default());
        assert_eq!(m["wamp"], w);
        let per_flush = log.flush_micros as f64 / log.flushes as f64;
        // The LOG line prints seconds to the millisecond.
        let slack = 500.0 / log.flushes as f64 + 1e-6;
        assert!(
            (m["flush_micros_per_flush"] - per_flush).abs() <= slack,
            "{m:?}"
        );
        // A step without the stats table (a read step) gets no LOG line.
        let read = "readrandom   :       3.535 micros/op; (12674 of 20000 found)\n";
        assert_eq!(with_leveldb_log_line(read, d.path()), read);
    }

    #[test]
    fn a_flag_the_engine_lacks_skips_the_cell_saying_why() {
        let d = tempfile::tempdir().unwrap();
        let plan = crate::testutil::plan(SPEC, "quick");
        let host = host_info(d.path());
        let lacks = fake(
            "echo \"ERROR: Not supported: flag '--value_size' (value_size=200) is not supported by LevelDB: x\" >&2; exit 1",
        );
        let rows = run_job(&plan, &plan.jobs[0], Ok(&lacks), d.path(), &host, &None).unwrap();
        let e = rows[0].error.as_deref().unwrap_or("");
        assert!(
            e.starts_with("skipped: strata lacks a flag this cell sets: ERROR: Not supported: flag '--value_size'"),
            "{e}"
        );
    }

    #[test]
    fn a_benchmark_leveldbs_db_bench_lacks_skips_the_cell_naming_it() {
        let d = tempfile::tempdir().unwrap();
        let plan = crate::testutil::plan(SPEC, "quick");
        let host = host_info(d.path());
        // It runs the benchmarks it knows, names the one it lacks after the
        // progress text (carriage returns, no newline), and exits 0.
        let lacks = fake(
            "echo 'fillseq      :       2.000 micros/op 500000 ops/sec 0.001 seconds 10 operations;    1.0 MB/s'; printf '... finished 100 ops\\r... finished 200 ops\\runknown benchmark '\\''waitforcompaction'\\''\\n' >&2; exit 0",
        );
        let rows = run_job(&plan, &plan.jobs[0], Ok(&lacks), d.path(), &host, &None).unwrap();
        let e = rows[0].error.as_deref().unwrap_or("");
        assert!(!rows[0].ok);
        assert_eq!(
            e,
            "skipped: strata lacks a benchmark this cell runs: unknown benchmark 'waitforcompaction'"
        );
        assert!(crate::data::skipped::is_skipped(&rows[0]));
        assert_eq!(
            crate::data::skipped::skipped_flag(e).0,
            "the benchmark `waitforcompaction`"
        );
    }

    #[test]
    fn a_cell_pinned_to_more_cores_than_the_host_has_is_skipped_naming_both() {
        let d = tempfile::tempdir().unwrap();
        let plan = crate::testutil::plan(SPEC, "quick");
        let mut host = host_info(d.path());
        host.cores = 2;
        let ran = d.path().join("ran");
        let bench = fake(&format!("touch {}; exit 1", ran.display()));
        let mut job = plan.jobs[0].clone();
        job.cell.cpus = Some(4);
        let rows = run_job(&plan, &job, Ok(&bench), d.path(), &host, &None).unwrap();
        assert!(!ran.exists(), "the bench did not run");
        assert!(rows.iter().all(|r| !r.ok
            && r.error.as_deref() == Some("skipped: the cell pins 4 cores; this host has 2")));
        assert!(rows.iter().all(crate::data::skipped::is_skipped));
        // Pinned to no more cores than the host has, it runs.
        job.cell.cpus = Some(1);
        run_job(&plan, &job, Ok(&bench), d.path(), &host, &None).unwrap();
        assert!(ran.exists());
    }

    #[test]
    fn successful_fake_bench_gives_metrics_and_command() {
        let d = tempfile::tempdir().unwrap();
        let plan = crate::testutil::plan(SPEC, "quick");
        let host = host_info(d.path());
        let ok = fake("echo 'Strata:     version 9.9'; echo 'fillseq      :       2.000 micros/op 500000 ops/sec 0.001 seconds 10 operations;    1.0 MB/s'");
        let rows = run_job(
            &plan,
            &plan.jobs[1],
            Ok(&ok),
            d.path(),
            &host,
            &Some("abc".into()),
        )
        .unwrap();
        assert!(rows.iter().all(|r| r.ok));
        assert_eq!(rows[0].engine_version, "Strata 9.9");
        assert_eq!(rows[0].metrics["ops_sec"], 500000.0);
        assert!(
            rows[0].command.contains("--value_size=200") && rows[0].command.contains("--num=10")
        );
        assert!(rows[1].command.contains("--use_existing_db=1"));
        assert_eq!(rows[1].git_commit.as_deref(), Some("abc"));
        assert!(
            !run_dir(d.path(), &plan.jobs[1]).join("db").exists(),
            "DB removed after the job"
        );
    }

    #[test]
    fn unavailable_engine_is_recorded() {
        let d = tempfile::tempdir().unwrap();
        let plan = crate::testutil::plan(SPEC, "quick");
        let rows = run_job(
            &plan,
            &plan.jobs[0],
            Err("no bench".into()),
            d.path(),
            &host_info(d.path()),
            &None,
        )
        .unwrap();
        assert!(rows
            .iter()
            .all(|r| !r.ok && r.error.as_deref() == Some("no bench")));
    }

    #[test]
    fn probe_rejects_non_bench() {
        let d = tempfile::tempdir().unwrap();
        assert!(probe(&["false".to_string()], d.path()).is_err());
        let ok = probe(
            &[
                "sh".into(),
                "-c".into(),
                "echo 'fillseq : 1.0 micros/op 1 ops/sec 1 seconds 1 operations;'".into(),
            ],
            d.path(),
        );
        assert_eq!(ok.as_deref(), Ok("unknown version"));
    }
}
