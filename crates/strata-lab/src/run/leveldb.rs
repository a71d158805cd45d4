//! LevelDB's own db_bench: which one (`--leveldb-bench`, `bundled` for the
//! one built with this binary), the flags it takes for the study's (its own
//! names, booleans as 0/1, the flags it lacks left out or refused), and
//! the `LOG:` line its DB's info LOG gives a step.

use serde::{Deserialize, Serialize};
use std::path::Path;

/// `--leveldb-bench VALUE`: a command as given, or `bundled`: the path of
/// LevelDB's db_bench that the cargo feature `leveldb-db-bench` built from
/// the sources `--engine=leveldb` runs; an error when this binary was built
/// without it (or the file is gone).
pub(crate) fn parse_leveldb_bench(value: &str) -> Result<String, String> {
    if value != "bundled" {
        return Ok(value.to_string());
    }
    match strata_bench::engine::LEVELDB_DB_BENCH {
        Some(p) if Path::new(p).is_file() => Ok(p.to_string()),
        Some(p) => Err(format!(
            "`bundled`: LevelDB's db_bench built with this binary is gone ({p}); rebuild with \
             `cargo build --release -p strata-cli --features leveldb-db-bench`"
        )),
        None => Err(
            "`bundled`: this strata binary was built without LevelDB's db_bench; build it with \
             `cargo build --release -p strata-cli --features leveldb-db-bench`"
                .to_string(),
        ),
    }
}

/// What a LevelDB db_bench binary takes, found by running it: LevelDB
/// 1.23 (the release Debian ships) has no `--compression` flag and
/// compresses with Snappy whenever it was built with it; later sources
/// have `--compression=0/1`.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub(crate) struct LevelDbBenchCaps {
    /// It takes `--compression=0/1`.
    pub compression_flag: bool,
    /// It was built with Snappy (its header does not warn "Snappy
    /// compression is not enabled").
    pub snappy: bool,
}

/// A step's flags as LevelDB's own db_bench takes them: the flags it has
/// under the same name, `--target_file_size_base` as `--max_file_size`,
/// booleans as 0/1, and `--compression_type` none/snappy as
/// `--compression=0/1` where the binary has that flag; without it (LevelDB
/// 1.23) the type the binary uses anyway (Snappy when built with it, else
/// none) is accepted and the other one skips the cell. `--seed` and
/// `--statistics` are not passed (it has neither: it seeds its generator
/// with 301 and keeps no statistics; the run's notes say so). An option
/// LevelDB lacks but whose given value is what LevelDB does anyway (its
/// fixed 10 MB level 1, say) is accepted and not passed; any other flag is
/// an error naming it: the cell is skipped.
pub(crate) fn leveldb_db_bench_flags(
    flags: &std::collections::BTreeMap<String, String>,
    caps: LevelDbBenchCaps,
) -> Result<std::collections::BTreeMap<String, String>, String> {
    use strata_bench::engine::leveldb_map::fixed_equivalent;
    const SAME: &[&str] = &[
        "benchmarks",
        "num",
        "reads",
        "threads",
        "value_size",
        "write_buffer_size",
        "block_size",
        "cache_size",
        "bloom_bits",
        "open_files",
        "histogram",
        "use_existing_db",
        "compression_ratio",
        "db",
    ];
    let bool01 = |v: &str| match v {
        "true" => "1".to_string(),
        "false" => "0".to_string(),
        v => v.to_string(),
    };
    let mut out = std::collections::BTreeMap::new();
    for (k, v) in flags {
        match k.as_str() {
            "seed" | "statistics" => {}
            // Its keys are 16 bytes (`%016d`); `--key_prefix` only adds to them.
            "key_size" if v == "16" => {}
            "histogram" | "use_existing_db" => {
                out.insert(k.clone(), bool01(v));
            }
            k2 if SAME.contains(&k2) => {
                out.insert(k.clone(), v.clone());
            }
            "target_file_size_base" => {
                out.insert("max_file_size".into(), v.clone());
            }
            "compression_type" => {
                let snappy = match v.to_ascii_lowercase().as_str() {
                    "none" => false,
                    "snappy" => true,
                    _ => {
                        return Err(format!(
                            "skipped: LevelDB's db_bench has no --compression_type={v} (snappy or none only)"
                        ))
                    }
                };
                if caps.compression_flag {
                    out.insert("compression".into(), if snappy { "1" } else { "0" }.into());
                } else if snappy != caps.snappy {
                    let uses = if caps.snappy {
                        "Snappy"
                    } else {
                        "none (built without Snappy)"
                    };
                    return Err(format!(
                        "skipped: this LevelDB db_bench has no --compression flag and always compresses with {uses}, so --compression_type={v} cannot be set"
                    ));
                }
            }
            k2 if fixed_equivalent(k2, v) => {}
            _ => {
                return Err(format!(
                    "skipped: LevelDB's db_bench has no --{k} (set to {v})"
                ))
            }
        }
    }
    Ok(out)
}

/// LevelDB's own db_bench prints its `leveldb.stats` table but not the
/// flush and compaction bytes W-Amp needs; those are in the DB's info LOG,
/// read right after the step (the next open moves it to LOG.old). The
/// table is followed by the `LOG:` line `strata bench --engine=leveldb`
/// prints, from the same LOG parser, so both paths read alike. A step
/// without the table (no `stats` benchmark) is left as it is.
pub(crate) fn with_leveldb_log_line(stdout: &str, db: &Path) -> String {
    use strata_bench::dbbench_text::leveldb::log_line;
    use strata_bench::engine::leveldb_map::parse_log;
    let table = stdout.contains("Level  Files Size(MB) Time(sec) Read(MB) Write(MB)");
    match std::fs::read_to_string(db.join("LOG")) {
        Ok(log) if table => format!("{stdout}\n{}\n", log_line(&parse_log(&log))),
        _ => stdout.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::parse_leveldb_bench;

    #[test]
    fn leveldb_bench_is_a_command_or_the_bundled_build() {
        assert_eq!(
            parse_leveldb_bench("/opt/leveldb/db_bench").unwrap(),
            "/opt/leveldb/db_bench"
        );
        match strata_bench::engine::LEVELDB_DB_BENCH {
            // Built with the `leveldb-db-bench` feature: its path.
            Some(p) => assert_eq!(parse_leveldb_bench("bundled").unwrap(), p),
            // Without it: an error saying how to build it, not a silent
            // fallback to `strata bench --engine=leveldb`.
            None => {
                let e = parse_leveldb_bench("bundled").unwrap_err();
                assert!(e.contains("--features leveldb-db-bench"), "{e}");
            }
        }
    }
}
