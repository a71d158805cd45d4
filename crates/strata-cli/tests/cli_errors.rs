//! How the `strata` binary fails: one `error:` line for a bad argument, and
//! a quiet end when its output pipe closes.

use std::process::{Command, Stdio};

const STRATA: &str = env!("CARGO_BIN_EXE_strata");

fn study() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../studies/wal_compaction.toml"
    )
    .to_string()
}

#[test]
fn bad_argument_is_one_error_line_without_backtrace() {
    let o = Command::new(STRATA)
        .args(["lab", "plan", &study(), "--only", "compaction=lev"])
        .env("RUST_BACKTRACE", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.starts_with("error: --only compaction=lev: axis `compaction` has no value `lev`"),
        "{stderr}"
    );
    assert!(!stderr.contains("backtrace"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[test]
fn closed_stdout_pipe_is_not_a_panic() {
    // `strata lab plan ... | head -1`: far more output than a pipe buffers,
    // and the reader gone before any of it is read.
    let mut child = Command::new(STRATA)
        .args([
            "lab",
            "plan",
            &study(),
            "--scale",
            "full",
            "--repeats",
            "500",
        ])
        .env("RUST_BACKTRACE", "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let o = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
}
