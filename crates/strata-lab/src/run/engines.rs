//! The engines a study runs on: how each is run (a bench command prefix),
//! probed with a tiny run before the study, and dropped with a note when it
//! does not answer.

use crate::run::leveldb::LevelDbBenchCaps;
use crate::run::options::RunOptions;
use serde::{Deserialize, Serialize};
use std::path::Path;
use strata_bench::dbbench_text::parse_output;

/// How an engine is run: command prefix before the db_bench flags.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub(crate) struct EngineCmd {
    /// Engine name.
    pub engine: String,
    /// Command prefix (program and leading arguments).
    pub prefix: Vec<String>,
    /// How it was found (for the report).
    pub how: String,
    /// An external db_bench (`--rocksdb-bench`, `--leveldb-bench`), not
    /// `strata bench`.
    #[serde(default)]
    pub external: bool,
    /// For an external LevelDB db_bench: what the binary takes, probed.
    #[serde(default)]
    pub leveldb: Option<LevelDbBenchCaps>,
}

/// Runs a tiny fillseq with `prefix` and `extra` flags in a scratch DB.
fn tiny_run(
    prefix: &[String],
    scratch: &Path,
    extra: &[&str],
) -> Result<(Vec<String>, crate::run::process::ProcessOutcome), String> {
    // Unique per process and command: plan jobs may probe concurrently.
    let tag: u64 = prefix
        .iter()
        .flat_map(|a| a.bytes())
        .fold(1469598103934665603u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(1099511628211)
        });
    let dir = scratch.join(format!(".probe-{}-{tag:x}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let mut argv = prefix.to_vec();
    argv.extend(["--benchmarks=fillseq", "--num=10"].map(String::from));
    argv.extend(extra.iter().map(|a| a.to_string()));
    argv.push(format!("--db={}", dir.join("db").display()));
    let o = crate::run::process::run(&argv, None, &dir.join("probe"));
    let _ = std::fs::remove_dir_all(&dir);
    Ok((argv, o))
}

/// What an external LevelDB db_bench takes (see [`LevelDbBenchCaps`]):
/// whether it runs with `--compression=0`, and whether its header warns
/// that Snappy is not compiled in.
pub(crate) fn probe_leveldb_caps(prefix: &[String], scratch: &Path) -> LevelDbBenchCaps {
    let ok = |r: &Result<(Vec<String>, crate::run::process::ProcessOutcome), String>| {
        r.as_ref().is_ok_and(|(_, o)| o.exit_code == 0)
    };
    let compression_flag = ok(&tiny_run(prefix, scratch, &["--compression=0"]));
    let plain = tiny_run(prefix, scratch, &[]);
    LevelDbBenchCaps {
        compression_flag,
        snappy: plain.is_ok_and(|(_, o)| !o.stdout.contains("Snappy compression is not enabled")),
    }
}

/// Whether `prefix` runs a tiny db_bench-compatible benchmark successfully.
pub(crate) fn probe(prefix: &[String], scratch: &Path) -> Result<String, String> {
    let (argv, o) = tiny_run(prefix, scratch, &[])?;
    let parsed = parse_output(&o.stdout, &o.stderr);
    if o.exit_code == 0 && parsed.primary().is_some() {
        let ver = parsed
            .engine_version
            .unwrap_or_else(|| "unknown version".into());
        // LevelDB's and RocksDB's db_bench warn on stdout when built with
        // assertions on.
        if o.stdout.contains("Assertions are enabled") {
            return Ok(format!("{ver} (Assertions are enabled)"));
        }
        Ok(ver)
    } else {
        Err(format!(
            "`{}` exited {}: {}",
            argv.join(" "),
            o.exit_code,
            o.stderr.lines().last().unwrap_or("")
        ))
    }
}

/// Splits a command given on the command line into words.
pub(crate) fn words(cmd: &str) -> Vec<String> {
    cmd.split_whitespace().map(String::from).collect()
}

/// Resolves the engines of a plan to commands, probing each; unavailable
/// engines are dropped with a note.
pub(crate) fn resolve_engines(
    engines: &[String],
    opts: &RunOptions,
    scratch: &Path,
) -> (Vec<EngineCmd>, Vec<String>) {
    let strata = opts
        .strata_bench
        .as_deref()
        .map(words)
        .unwrap_or_else(crate::default_bench_command);
    let mut out = Vec::new();
    let mut notes = Vec::new();
    for e in engines {
        // An external db_bench first when one is given, then `strata
        // bench --engine=<e>`.
        let external = match e.as_str() {
            "rocksdb" => opts.rocksdb_bench.as_ref(),
            "leveldb" => opts.leveldb_bench.as_ref(),
            _ => None,
        };
        let candidates: Vec<(Vec<String>, String)> = match e.as_str() {
            "strata" => vec![(
                strata.clone(),
                format!("strata bench (`{}`)", strata.join(" ")),
            )],
            _ => {
                let mut c = Vec::new();
                if let Some(p) = external {
                    let how = if e == "leveldb"
                        && strata_bench::engine::LEVELDB_DB_BENCH == Some(p.as_str())
                    {
                        format!(
                            "LevelDB's own db_bench built with this binary (`--leveldb-bench bundled`: \
                             the sources of `--engine=leveldb`, release, without Snappy) `{p}`"
                        )
                    } else {
                        format!("external db_bench `{p}`")
                    };
                    c.push((words(p), how));
                }
                let mut s = strata.clone();
                s.push(format!("--engine={e}"));
                c.push((s.clone(), format!("`{}`", s.join(" "))));
                c
            }
        };
        let mut why = Vec::new();
        let mut found = false;
        for (prefix, how) in candidates {
            match probe(&prefix, scratch) {
                Ok(ver) => {
                    if ver.contains("assertions enabled") || ver.contains("Assertions are enabled")
                    {
                        notes.push(format!(
                            "{e} ran a build with assertions enabled ({ver}): its speed figures are not comparable with release builds."
                        ));
                    }
                    let external = external.is_some_and(|p| words(p) == prefix);
                    let leveldb =
                        (external && e == "leveldb").then(|| probe_leveldb_caps(&prefix, scratch));
                    if let Some(caps) = leveldb {
                        let compression =
                            match (caps.compression_flag, caps.snappy) {
                                (true, _) => "it takes --compression=0/1".to_string(),
                                (false, s) => {
                                    format!(
                                "it has no --compression flag and always compresses with {}",
                                if s { "Snappy" } else { "none (built without Snappy)" }
                            )
                                }
                            };
                        notes.push(format!(
                            "{e} ran LevelDB's own db_bench: --seed and --statistics are not passed to it (it seeds its key generator with 301 and keeps no statistics), so its keys are not the other engines' keys; {compression}; W-Amp and flush times come from its info LOG."
                        ));
                    }
                    out.push(EngineCmd {
                        engine: e.clone(),
                        prefix,
                        how: format!("{how}, {ver}"),
                        external,
                        leveldb,
                    });
                    found = true;
                    break;
                }
                Err(w) => why.push(w),
            }
        }
        if !found {
            notes.push(format!(
                "{e} was requested but no bench for it is available ({}); the study ran without it.",
                why.join("; ")
            ));
        }
    }
    (out, notes)
}
