//! LevelDB's own db_bench as the `db-bench` feature builds it: it runs, is
//! LevelDB 1.22 built without assertions, and has no Snappy (so
//! `compression_type=none` holds on it).

#[cfg(feature = "db-bench")]
#[test]
fn db_bench_runs_as_a_release_build_without_snappy() {
    let exe = strata_leveldb_sys::DB_BENCH.expect("the db-bench feature sets DB_BENCH");
    let dir = std::env::temp_dir().join(format!("strata-leveldb-db-bench-{}", std::process::id()));
    let out = std::process::Command::new(exe)
        .arg("--benchmarks=fillseq,readrandom")
        .arg("--num=1000")
        .arg(format!("--db={}", dir.display()))
        .output()
        .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stderr.contains("LevelDB:    version 1.22"), "{stderr}");
    assert!(!stdout.contains("Assertions are enabled"), "{stdout}");
    assert!(
        stdout.contains("Snappy compression is not enabled"),
        "{stdout}"
    );
    assert!(stdout.contains("readrandom   :"), "{stdout}");
}

#[test]
fn the_build_is_named() {
    match strata_leveldb_sys::KIND {
        "bundled" => assert!(
            strata_leveldb_sys::BUILD.contains("-DNDEBUG, assertions disabled, Snappy 1.1.7"),
            "{}",
            strata_leveldb_sys::BUILD
        ),
        "system" => assert!(strata_leveldb_sys::SYSTEM_LIB.is_some()),
        kind => assert_eq!(kind, "none"),
    }
}
