//! How `strata` answers a new user: the overview for `strata`, `--help`,
//! `-h` and `help`; each subcommand's help opening with what it does; an
//! unknown subcommand or option named, with the nearest known one.

use std::process::{Command, Output};

const STRATA: &str = env!("CARGO_BIN_EXE_strata");

fn strata(args: &[&str]) -> Output {
    Command::new(STRATA)
        .args(args)
        .env("RUST_BACKTRACE", "1")
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The first line of the overview.
const OVERVIEW: &str = "strata: the tools of the Strata LSM-tree storage engine";

fn assert_is_overview(text: &str) {
    assert!(text.starts_with(OVERVIEW), "{text}");
    for sub in ["bench", "lab", "inspect", "stress", "completions", "help"] {
        assert!(text.contains(&format!("\n  {sub} ")), "{sub}: {text}");
    }
    assert!(
        text.contains("\n  strata lab run bloom --scale quick --engines strata,leveldb,fjall\n"),
        "{text}"
    );
    assert!(text.contains("\n  cargo test --workspace\n"), "{text}");
    for doc in ["README", "strata-bench", "lab", "inspect", "stress"] {
        assert!(text.contains(&format!("docs/{doc}.md")), "{doc}: {text}");
    }
}

#[test]
fn help_prints_the_overview_and_exits_0() {
    for args in [&["--help"][..], &["-h"], &["help"], &["help", "help"]] {
        let o = strata(args);
        assert_eq!(o.status.code(), Some(0), "{args:?}");
        assert_is_overview(&text(&o.stdout));
        assert!(o.stderr.is_empty(), "{args:?}: {}", text(&o.stderr));
    }
}

#[test]
fn no_subcommand_prints_the_overview_to_stderr_and_exits_2() {
    let o = strata(&[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    assert_is_overview(&text(&o.stderr));
}

#[test]
fn help_subcommand_is_the_subcommands_own_help() {
    for (sub, first_line) in [
        ("lab", "Run tuning studies end to end and report on them"),
        ("inspect", "Read-only dumps of Strata DB files"),
        ("stress", "Randomized multi-threaded load on a DB"),
        (
            "bench",
            "strata bench: db_bench-compatible benchmark: runs db_bench",
        ),
        ("completions", "Print a shell completion script for strata"),
    ] {
        for args in [vec!["help", sub], vec![sub, "--help"]] {
            let o = strata(&args);
            let out = text(&o.stdout);
            assert_eq!(o.status.code(), Some(0), "{args:?}: {}", text(&o.stderr));
            assert!(out.starts_with(first_line), "{args:?}: {out}");
        }
    }
    // A subcommand's subcommand, as `strata lab run --help`.
    let o = strata(&["help", "lab", "run"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(text(&o.stdout).starts_with("Run a study and write its report"));
}

#[test]
fn stress_help_no_longer_opens_with_the_crate_description() {
    let out = text(&strata(&["stress", "--help"]).stdout);
    assert!(!out.contains("The strata command"), "{out}");
}

#[test]
fn unknown_subcommand_names_the_closest_and_exits_2() {
    for (args, first_line) in [
        (
            &["lba"][..],
            "error: unknown subcommand `lba`; did you mean `lab`?",
        ),
        (
            &["stres", "--db", "x"],
            "error: unknown subcommand `stres`; did you mean `stress`?",
        ),
        (
            &["help", "benhc"],
            "error: unknown subcommand `benhc`; did you mean `bench`?",
        ),
        (&["bogus"], "error: unknown subcommand `bogus`"),
        (
            &["--verison"],
            "error: unknown option `--verison`; did you mean `--version`?",
        ),
    ] {
        let o = strata(args);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}");
        assert_eq!(err.lines().next(), Some(first_line), "{args:?}: {err}");
        assert!(err.contains(OVERVIEW), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn extra_arguments_are_refused_not_ignored() {
    for (args, first_line) in [
        (
            &["help", "bench", "x"][..],
            "error: `strata help bench` takes no further arguments (got `x`)",
        ),
        (
            &["--version", "x"],
            "error: --version takes no arguments (got `x`)",
        ),
    ] {
        let o = strata(args);
        let err = text(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err.lines().next(), Some(first_line), "{args:?}: {err}");
    }
    let o = strata(&["help", "lab", "bogus"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("bogus"));
}

#[test]
fn version_still_works() {
    let o = strata(&["--version"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(text(&o.stdout).starts_with("strata "));
}
