//! `strata bench`: a db_bench-compatible benchmark.
//!
//! It takes RocksDB `db_bench` command lines as they are (flag names, syntax
//! and defaults of db_bench 7.8.3), runs them on Strata, or through the same
//! harness on LevelDB (`--engine=leveldb`, through LevelDB's C API, where
//! `strata-leveldb-sys` linked one), on fjall (`--engine=fjall`) or, with
//! the cargo feature `rocksdb`, on RocksDB (`--engine=rocksdb`), and prints
//! what db_bench prints. `--json_report=PATH` adds a machine-readable record
//! of the run. See docs/strata-bench.md.
//!
//! Entry point for the `strata` binary: [`run_cli`].

#![warn(missing_docs)]

pub mod build_info;
pub mod dbbench_text;
pub mod dbdir;
pub mod distributions;
pub mod engine;
pub mod flags;
pub mod header;
pub mod intervals;
pub mod json_report;
pub mod keygen;
pub mod mixgraph;
pub mod options_map;
pub mod pacer;
pub mod progress;
pub mod report_csv;
pub mod rng;
pub mod runner;
pub mod sampler;
pub mod stats;
pub mod sysinfo;
pub mod valuegen;
pub mod workloads;
pub mod ycsb;

#[cfg(test)]
mod e2e_tests;
#[cfg(test)]
mod interval_tests;

use std::io::Write;

use engine::EngineFactory;
use flags::Flags;

/// Runs `strata bench` with `args` = everything after `strata bench`
/// (db_bench-style flags). Prints to stdout/stderr as db_bench does and
/// returns the process exit code (0 on success, 1 on any error, which has
/// then been printed to stderr).
pub fn run_cli(args: Vec<String>) -> anyhow::Result<i32> {
    // The engine is chosen before the run; flag errors are reported by
    // `run_with` with the full db_bench wording, so parse failures here just
    // fall back to the default engine.
    let engine = flags::parse_args(&args)
        .map(|v| v.raw("engine").to_string())
        .unwrap_or_else(|_| "strata".to_string());
    let factory = match engine::factory_for(&engine) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("ERROR: {e:#}");
            return Ok(1);
        }
    };
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    run_with(
        &args,
        factory.as_ref(),
        &mut stdout.lock(),
        &mut stderr.lock(),
    )
}

/// `--help` text: every flag with its type, default and help.
pub fn help_text() -> String {
    let mut s = String::from(
        "strata bench: db_bench-compatible benchmark: runs db_bench command lines (its flags, \
         benchmarks and output) on Strata, LevelDB, fjall or RocksDB (--engine). See docs/strata-bench.md.\n\
         Usage: strata bench [--flag=value ...]\n\n\
         Flags (db_bench 7.8.3 names and defaults; [strata] marks extensions):\n",
    );
    for f in flags::table::FLAGS {
        s.push_str(&format!(
            "    -{} ({}) type: {} default: \"{}\"\n",
            f.name,
            f.help,
            f.kind.gflags_name(),
            f.default
        ));
    }
    s
}

/// [`run_cli`] with an explicit engine and output streams (for tests and
/// embedders).
pub fn run_with(
    args: &[String],
    factory: &dyn EngineFactory,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> anyhow::Result<i32> {
    if args
        .iter()
        .any(|a| matches!(a.as_str(), "--help" | "-help" | "-h" | "--helpfull"))
    {
        out.write_all(help_text().as_bytes())?;
        return Ok(0);
    }
    let mut flags = match Flags::from_args(args) {
        Ok(f) => f,
        Err(e) => {
            writeln!(err, "{e}")?;
            return Ok(1);
        }
    };
    let started = std::time::SystemTime::now();
    let started_unix = started
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let wall = std::time::Instant::now();
    let seed = if flags.seed == 0 {
        let micros = started
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |d| d.as_micros() as u64);
        writeln!(out, "Set seed to {micros} because --seed was 0")?;
        micros
    } else {
        flags.seed
    };
    err.write_all(header::environment(factory.name(), &factory.version()).as_bytes())?;
    if factory.name() != "Strata" {
        // The harness that ran the other engine, and the build it is.
        writeln!(
            err,
            "Strata:    version {} ({})",
            env!("CARGO_PKG_VERSION"),
            build_info::describe()
        )?;
    }
    if factory.keeps_own_defaults() && !flags.values.was_given("verify_checksum") {
        flags.verify_checksum = factory.verify_checksums_default();
        writeln!(
            err,
            "{}: reads {} block checksums (the engine's default; --verify_checksum not given)",
            factory.name(),
            if flags.verify_checksum {
                "verify"
            } else {
                "do not verify"
            }
        )?;
    }
    let mut head = header::header(&flags);
    if factory.keeps_own_defaults() && !flags.values.was_given("compression_type") {
        // db_bench's default (snappy) is not what such an engine runs.
        head = head.replace(
            &format!("Compression: {}\n", flags.compression.header_name()),
            "Compression: the engine's default (see its options line)\n",
        );
    }
    out.write_all(head.as_bytes())?;
    let json_path = flags.json_report.clone();
    let mut runner = runner::Runner::new(flags.clone(), factory, seed);
    if let Err(e) = runner.run(out) {
        out.flush()?;
        writeln!(err, "{e:#}")?;
        return Ok(1);
    }
    if !json_path.is_empty() {
        let report = build_report(
            args,
            &flags,
            factory,
            &runner,
            seed,
            started_unix,
            wall.elapsed().as_secs_f64(),
        );
        let text = serde_json::to_string_pretty(&report)?;
        if let Err(e) = std::fs::write(&json_path, text + "\n") {
            writeln!(err, "ERROR: cannot write --json_report={json_path}: {e}")?;
            return Ok(1);
        }
    }
    out.flush()?;
    Ok(0)
}

fn build_report(
    args: &[String],
    flags: &Flags,
    factory: &dyn EngineFactory,
    runner: &runner::Runner<'_>,
    seed: u64,
    started_unix: u64,
    wall_seconds: f64,
) -> json_report::Report {
    let db = runner.db();
    let statistics = db
        .and_then(|d| d.statistics_dump())
        .map(|t| dbbench_text::parse_statistics(&t));
    let db_stats = db
        .and_then(|d| d.property("rocksdb.stats"))
        .map(|t| dbbench_text::parse_db_stats(&t));
    let rows = db_stats
        .as_ref()
        .map(|s| s.levels.clone())
        .unwrap_or_default();
    json_report::Report {
        schema: json_report::SCHEMA,
        schema_version: json_report::SCHEMA_VERSION,
        engine: factory.name().to_string(),
        engine_version: factory.version(),
        command_line: args.to_vec(),
        flags: flags
            .values
            .all()
            .iter()
            .map(|(k, v)| ((*k).to_string(), v.clone()))
            .collect(),
        seed,
        db_path: runner.db_path().display().to_string(),
        started_at_unix: started_unix,
        wall_seconds,
        benchmarks: runner
            .results
            .iter()
            .map(json_report::benchmark_report)
            .collect(),
        write_amplification: json_report::write_amp(statistics.as_ref(), &rows),
        stall_micros: statistics
            .as_ref()
            .and_then(|s| s.tickers.get("rocksdb.stall.micros").copied()),
        stall_percent: db_stats.as_ref().and_then(|s| s.cumulative_stall_percent),
        statistics,
        compaction_stats: rows,
        process: sysinfo::process_usage(),
        disk: dbdir::disk_usage(runner.db_path()),
    }
}
