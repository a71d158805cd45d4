//! `strata bench --engine=leveldb` and `--engine=fjall` through the binary:
//! db_bench's output lines, the environment header naming both the engine
//! and the build of the harness.

use std::process::Command;

const STRATA: &str = env!("CARGO_BIN_EXE_strata");

fn bench(engine: &str) -> (i32, String, String) {
    let dir = strata_testkit::tempdir();
    let o = Command::new(STRATA)
        .args([
            "bench",
            &format!("--engine={engine}"),
            "--benchmarks=fillseq,readrandom",
            "--num=1000",
            "--seed=1",
            &format!("--db={}", dir.path().join("db").display()),
        ])
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn check(engine: &str, name: &str) {
    let (code, out, err) = bench(engine);
    assert_eq!(code, 0, "{err}\n{out}");
    assert!(err.starts_with(&format!("{name}:    version ")), "{err}");
    assert!(err.contains("\nStrata:    version 0.1.0 (git "), "{err}");
    assert!(
        out.contains("\nCompression: the engine's default (see its options line)\n"),
        "{out}"
    );
    assert!(err.contains(&format!("{name} options: ")), "{err}");
    let lines: Vec<&str> = out.lines().filter(|l| l.contains(" micros/op ")).collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert!(lines[0].starts_with("fillseq      :"), "{out}");
    assert!(
        lines[0].contains(" ops/sec ") && lines[0].contains(" 1000 operations;"),
        "{out}"
    );
    assert!(lines[1].starts_with("readrandom   :"), "{out}");
    assert!(lines[1].ends_with("(1000 of 1000 found)"), "{out}");
}

#[test]
fn leveldb_runs_fillseq_and_readrandom() {
    check("leveldb", "LevelDB");
}

#[test]
fn fjall_runs_fillseq_and_readrandom() {
    check("fjall", "fjall");
}

/// fjall always checks block checksums: asking it not to is refused,
/// naming the flag and the engine, rather than run with checks on.
#[test]
fn fjall_refuses_reads_without_checksums() {
    let dir = strata_testkit::tempdir();
    let o = Command::new(STRATA)
        .args([
            "bench",
            "--engine=fjall",
            "--benchmarks=fillseq,readrandom",
            "--num=100",
            "--verify_checksum=false",
            &format!("--db={}", dir.path().join("db").display()),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("flag '--verify_checksum' (verify_checksum=false) is not supported by fjall"),
        "{err}"
    );
}

/// LevelDB's reads skip block checksums by default (its ReadOptions, which
/// its own db_bench uses): without `--verify_checksum` the in-process
/// engine reads the same way, and says so; given, the flag wins. Checking
/// every block made in-process Gets 0.73x of LevelDB's own db_bench.
#[test]
fn leveldb_reads_without_checksums_unless_asked() {
    let (code, out, err) = bench("leveldb");
    assert_eq!(code, 0, "{err}\n{out}");
    assert!(
        err.contains("LevelDB: reads do not verify block checksums (the engine's default; --verify_checksum not given)"),
        "{err}"
    );
    let dir = strata_testkit::tempdir();
    let o = Command::new(STRATA)
        .args([
            "bench",
            "--engine=leveldb",
            "--benchmarks=fillseq,readrandom",
            "--num=100",
            "--verify_checksum=true",
            &format!("--db={}", dir.path().join("db").display()),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(!err.contains("block checksums"), "{err}");
}
