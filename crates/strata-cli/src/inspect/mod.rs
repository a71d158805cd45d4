//! `strata inspect`: read-only views of a DB's files, what RocksDB users get
//! from `sst_dump` and `ldb` (see `docs/inspect.md`).
//!
//! Nothing here takes the DB's LOCK or writes a file, so every subcommand
//! works while another process has the DB open.
//!
//! Exit codes: 0 success; 1 damage found (a `Corruption` error, or `verify`
//! finding any corrupt file); 2 bad usage or any other error (missing file,
//! not a DB, I/O error).

mod blob;
mod db;
mod events;
mod format;
mod manifest;
mod shape;
mod sst;
mod verify;
mod wal;

use std::io::Write;
use std::path::PathBuf;

use clap::{Parser, Subcommand};
use strata::WalRecoveryMode;

use format::BytesFmt;

/// Exit code for damage found.
const EXIT_CORRUPT: i32 = 1;
/// Exit code for usage and other errors.
const EXIT_ERROR: i32 = 2;

#[derive(Debug, Parser)]
#[command(
    name = "strata inspect",
    about = "Read-only dumps of Strata DB files: SST, WAL, MANIFEST, blob, DB shape, LOG job timeline, checksum verification",
    after_help = "Exit status: 0 OK, 1 corruption found, 2 usage or other error."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Debug, Subcommand)]
enum Cmd {
    /// Dump a table file: properties, index entries and optionally entries.
    Sst {
        /// The `.sst` file.
        file: PathBuf,
        /// Also print every entry (key, sequence, type, value).
        #[arg(long)]
        entries: bool,
        /// Print at most N index entries and N entries.
        #[arg(long, value_name = "N")]
        limit: Option<usize>,
        /// Print keys and values as hex instead of escaped text.
        #[arg(long)]
        hex: bool,
        /// Print at most N bytes of each value.
        #[arg(long, value_name = "N")]
        max_value: Option<usize>,
    },
    /// Dump a blob file: header, every record (key, value size, offset), footer.
    Blob {
        /// The `.blob` file.
        file: PathBuf,
        /// Only the header and footer summary, not every record.
        #[arg(long)]
        summary: bool,
        /// Print at most N bytes of each value.
        #[arg(long, value_name = "N", default_value_t = 32)]
        max_value: usize,
    },
    /// Dump a write-ahead log: each record's batch, and dropped regions.
    Wal {
        /// The `.log` file.
        file: PathBuf,
        /// Recovery mode applied to damage (RocksDB's names or 0..3).
        #[arg(long, default_value = "kPointInTimeRecovery", value_parser = parse_mode)]
        mode: WalRecoveryMode,
        /// Print keys as hex instead of escaped text.
        #[arg(long)]
        hex: bool,
    },
    /// Dump a MANIFEST: every version edit with its offset.
    Manifest {
        /// The `MANIFEST-NNNNNN` file.
        file: PathBuf,
    },
    /// Show a DB's shape: files per level, key ranges, WALs, options.
    Db {
        /// The DB directory.
        dir: PathBuf,
        /// Print keys as hex instead of escaped text.
        #[arg(long)]
        hex: bool,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// The flush and compaction jobs of a LOG (Strata's or RocksDB's), from
    /// its EVENT_LOG_v1 lines: one line per job, then totals, the L0 files
    /// each L0 compaction took, and W-Amp.
    Events {
        /// The `LOG` file (or a `LOG.old.*`).
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Verify every checksum of every file the DB references.
    Verify {
        /// The DB directory.
        dir: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

fn parse_mode(s: &str) -> Result<WalRecoveryMode, String> {
    s.parse().map_err(|e: strata::Error| e.to_string())
}

/// Runs `strata inspect` with `args` (the words after `inspect`), printing
/// to stdout and errors to stderr; returns the process exit code.
///
/// # Errors
/// None in practice: every failure is printed and mapped to an exit code.
pub fn run(args: Vec<String>) -> anyhow::Result<i32> {
    let argv = std::iter::once("strata inspect".to_string()).chain(args);
    let cli = match Cli::try_parse_from(argv) {
        Ok(c) => c,
        Err(e) => {
            let code = e.exit_code();
            let _ = e.print();
            return Ok(code);
        }
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let result = execute(cli.cmd, &mut out).and_then(|code| {
        out.flush()?;
        Ok(code)
    });
    match result {
        Ok(code) => Ok(code),
        Err(e) if is_broken_pipe(&e) => Ok(0),
        Err(e) => {
            let _ = out.flush();
            drop(out);
            eprintln!("strata inspect: {e}");
            Ok(exit_code_for(&e))
        }
    }
}

/// The clap description of `strata inspect`'s subcommands and options, as
/// [`run`] parses them (for shell completions).
pub fn command() -> clap::Command {
    <Cli as clap::CommandFactory>::command()
}

/// Runs one subcommand, writing to `out`.
fn execute(cmd: Cmd, out: &mut dyn Write) -> anyhow::Result<i32> {
    match cmd {
        Cmd::Sst {
            file,
            entries,
            limit,
            hex,
            max_value,
        } => {
            let args = sst::SstArgs {
                entries,
                limit,
                fmt: BytesFmt::from_hex_flag(hex),
                max_value,
            };
            sst::dump(&file, &args, out)?;
        }
        Cmd::Wal { file, mode, hex } => wal::dump(&file, mode, BytesFmt::from_hex_flag(hex), out)?,
        Cmd::Manifest { file } => manifest::dump(&file, out)?,
        Cmd::Blob {
            file,
            summary,
            max_value,
        } => blob::dump(&file, !summary, max_value, out)?,
        Cmd::Db { dir, hex, json } => db::show(&dir, BytesFmt::from_hex_flag(hex), json, out)?,
        Cmd::Events { file, json } => {
            let t = events::read(&file)?;
            if json {
                events::write_json(&t, out)?;
            } else {
                events::write_text(&t, out)?;
            }
        }
        Cmd::Verify { dir, json } => {
            let rep = verify::verify(&dir)?;
            verify::write_report(&dir, &rep, json, out)?;
            if rep.corrupt() > 0 {
                return Ok(EXIT_CORRUPT);
            }
        }
    }
    Ok(0)
}

/// 1 when the error is the engine's `Corruption`, else 2.
fn exit_code_for(e: &anyhow::Error) -> i32 {
    let corrupt = e.chain().any(|c| {
        c.downcast_ref::<strata::Error>()
            .is_some_and(strata::Error::is_corruption)
    });
    if corrupt {
        EXIT_CORRUPT
    } else {
        EXIT_ERROR
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// A small DB for the unit tests: one flushed table holding `a`..`e` and a
/// WAL holding a put of `w` and a delete of `x`. Closed on return.
#[cfg(test)]
pub(crate) fn small_db(dir: &std::path::Path) {
    let db = strata::Db::open(dir, strata::Options::default()).unwrap();
    for k in ["a", "b", "c", "d", "e"] {
        db.put(k.as_bytes(), b"value").unwrap();
    }
    db.delete(b"c").unwrap();
    db.flush().unwrap();
    db.put(b"w", b"in the wal").unwrap();
    db.delete(b"x").unwrap();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn corruption_exits_1_other_errors_2() {
        let c = anyhow::Error::from(strata::Error::corruption("f", 3, "bad"));
        assert_eq!(exit_code_for(&c), EXIT_CORRUPT);
        let c = c.context("while reading");
        assert_eq!(exit_code_for(&c), EXIT_CORRUPT);
        let io = anyhow::Error::from(strata::Error::io(
            "read f",
            std::io::Error::from(std::io::ErrorKind::NotFound),
        ));
        assert_eq!(exit_code_for(&io), EXIT_ERROR);
        assert_eq!(exit_code_for(&anyhow::anyhow!("x")), EXIT_ERROR);
        let pipe = anyhow::Error::from(std::io::Error::from(std::io::ErrorKind::BrokenPipe));
        assert!(is_broken_pipe(&pipe));
        assert!(!is_broken_pipe(&io));
    }

    #[test]
    fn bad_usage_is_exit_2() {
        assert_eq!(run(vec!["sst".into()]).unwrap(), 2);
        assert_eq!(run(vec!["bogus".into()]).unwrap(), 2);
        assert_eq!(
            run(vec![
                "wal".into(),
                "f".into(),
                "--mode".into(),
                "kNope".into()
            ])
            .unwrap(),
            2
        );
    }

    #[test]
    fn modes_parse_by_name_and_number() {
        assert_eq!(
            parse_mode("kAbsoluteConsistency").unwrap(),
            WalRecoveryMode::AbsoluteConsistency
        );
        assert_eq!(
            parse_mode("3").unwrap(),
            WalRecoveryMode::SkipAnyCorruptedRecords
        );
        assert!(parse_mode("x")
            .unwrap_err()
            .contains("kPointInTimeRecovery"));
    }

    #[test]
    fn verify_subcommand_exit_codes() {
        let dir = tempfile::tempdir().unwrap();
        small_db(dir.path());
        let mut out = Vec::new();
        let cmd = Cmd::Verify {
            dir: dir.path().to_path_buf(),
            json: false,
        };
        assert_eq!(execute(cmd, &mut out).unwrap(), 0);
        let opts = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.to_string_lossy().contains("OPTIONS-"))
            .unwrap();
        std::fs::write(&opts, b"garbage").unwrap();
        let cmd = Cmd::Verify {
            dir: dir.path().to_path_buf(),
            json: false,
        };
        assert_eq!(execute(cmd, &mut out).unwrap(), EXIT_CORRUPT);
    }
}
