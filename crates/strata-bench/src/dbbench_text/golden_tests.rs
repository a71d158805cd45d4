//! Golden tests: real outputs under `testdata/`, each parsed and its parsed
//! views (the whole output's, and the `stats` text's) compared to
//! `testdata/golden/<name>.parsed`. After a deliberate
//! change to what the readers read, regenerate the golden files with
//! `STRATA_UPDATE_GOLDEN=1 cargo test -p strata-bench golden`.

use std::path::Path;

use super::{parse_db_stats, parse_output};

/// The captured outputs: (stdout, stderr) under `testdata/`.
const OUTPUTS: &[(&str, Option<&str>)] = &[
    ("fillrandom_7.8.3.stdout", Some("fillrandom_7.8.3.stderr")),
    (
        "fillrandom_compact_7.8.3.stdout",
        Some("fillrandom_compact_7.8.3.stderr"),
    ),
    ("blob_fill_7.8.3.stdout", Some("blob_fill_7.8.3.stderr")),
    (
        "readrandomwriterandom_7.8.3.stdout",
        Some("readrandomwriterandom_7.8.3.stderr"),
    ),
    (
        "leveldb_fillrandom_1.23.stdout",
        Some("leveldb_fillrandom_1.23.stderr"),
    ),
    (
        "rocksdb-7.8.3/all-benchmarks-histogram-statistics.stdout",
        Some("rocksdb-7.8.3/all-benchmarks-histogram-statistics.stderr"),
    ),
    (
        "rocksdb-7.8.3/threads-readwhilewriting-fillsync.stdout",
        None,
    ),
    ("rocksdb-7.8.3/stats-benchmark.txt", None),
    ("stats/db_bench_7.8.3_stalls.txt", None),
    ("stats/db_bench_7.8.3_large.txt", None),
];

fn testdata() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/testdata"))
}

fn read(name: &str) -> String {
    let p = testdata().join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn golden_parsed_views() {
    let update = std::env::var_os("STRATA_UPDATE_GOLDEN").is_some();
    let mut differ = Vec::new();
    for (stdout, stderr) in OUTPUTS {
        let text = read(stdout);
        let o = parse_output(&text, &stderr.map(read).unwrap_or_default());
        assert!(
            !o.benches.is_empty() || !o.compaction_sum.is_empty(),
            "{stdout}: nothing parsed"
        );
        let got = format!("{o:#?}\n{:#?}\n", parse_db_stats(&text));
        let golden = testdata()
            .join("golden")
            .join(format!("{}.parsed", stdout.replace('/', "_")));
        if update {
            std::fs::create_dir_all(golden.parent().unwrap()).unwrap();
            std::fs::write(&golden, &got).unwrap();
        }
        let want = std::fs::read_to_string(&golden).unwrap_or_default();
        if got != want {
            differ.push(golden.display().to_string());
        }
    }
    assert!(
        differ.is_empty(),
        "parsed views differ from (regenerate with STRATA_UPDATE_GOLDEN=1): {differ:?}"
    );
}
