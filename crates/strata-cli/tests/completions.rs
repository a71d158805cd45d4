//! `strata completions SHELL`: a completion script covering the
//! subcommands, their subcommands and options, and bench's db_bench flags.

use std::process::{Command, Output};

const STRATA: &str = env!("CARGO_BIN_EXE_strata");

fn strata(args: &[&str]) -> Output {
    Command::new(STRATA).args(args).output().unwrap()
}

#[test]
fn each_shell_gets_a_script_naming_the_subcommands_and_their_options() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let o = strata(&["completions", shell]);
        let script = String::from_utf8_lossy(&o.stdout);
        assert_eq!(
            o.status.code(),
            Some(0),
            "{shell}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        for word in [
            "lab",
            "run-one", // a lab subcommand
            "inspect",
            "manifest", // an inspect subcommand
            "stress",
            "crash-test", // a stress option
            "bench",
            "write_buffer_size", // a db_bench flag
            "completions",
        ] {
            assert!(script.contains(word), "{shell} script lacks `{word}`");
        }
    }
}

#[test]
fn bash_script_is_valid_bash() {
    let o = strata(&["completions", "bash"]);
    assert_eq!(o.status.code(), Some(0));
    let dir = strata_testkit::tempdir();
    let path = dir.path().join("strata.bash");
    std::fs::write(&path, &o.stdout).unwrap();
    let Ok(check) = Command::new("bash").arg("-n").arg(&path).output() else {
        return; // no bash on this machine
    };
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}

#[test]
fn unknown_shell_is_a_clear_error() {
    let o = strata(&["completions", "tcsh"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(o.stdout.is_empty());
    assert!(
        err.starts_with("error: invalid value 'tcsh' for '<SHELL>'"),
        "{err}"
    );
    assert!(err.contains("bash, elvish, fish, powershell, zsh"), "{err}");
}

#[test]
fn missing_shell_is_a_usage_error() {
    let o = strata(&["completions"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("<SHELL>"), "{err}");
}
