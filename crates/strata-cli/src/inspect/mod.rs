//! `strata inspect`: read-only views of a DB's files, what RocksDB users get
//! from `sst_dump` and `ldb` (see `docs/inspect.md`).
//!
//! Nothing here takes the DB's LOCK or writes a file, so every subcommand
//! works while another process has the DB open.
//!
//! Exit codes: 0 success; 1 damage found (a `Corruption` error, or `verify`
//! finding any corrupt file); 2 bad usage or any other error (missing file,
//! not a DB, I/O error).

mod db;
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
    about = "Read-only dumps of Strata DB files: SST, WAL, MANIFEST, DB shape, checksum verification",
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
            eprintln!("strata inspect: {e:#}");
            Ok(exit_code_for(&e))
        }
    }
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
        Cmd::Db { dir, hex, json } => db::show(&dir, BytesFmt::from_hex_flag(hex), json, out)?,
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
