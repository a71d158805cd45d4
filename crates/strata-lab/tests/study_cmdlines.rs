//! The studies' own command lines (crates/strata-bench/testdata/study-cmdlines.txt)
//! parse alike on Debian's db_bench 7.8.3 and on `strata bench`: captured
//! stdout/stderr of both (testdata/study-cmdlines/N.{db_bench,strata}.*, the
//! command in N.cmd; made by crates/strata-bench/scripts/study_cmdlines.sh)
//! must give the same field set (`strata_bench::dbbench_text::field_set`).

use std::collections::BTreeSet;

use strata_bench::dbbench_text::{field_set, parse_output, BenchOutput};

fn read(name: &str) -> String {
    let p = format!(
        "{}/testdata/study-cmdlines/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

fn parsed(n: u32, engine: &str) -> BenchOutput {
    parse_output(
        &read(&format!("{n}.{engine}.stdout")),
        &read(&format!("{n}.{engine}.stderr")),
    )
}

/// Fields one side has and the other lacks, as `-x` (missing from Strata) and `+x` (extra).
fn diff(reference: &BTreeSet<String>, other: &BTreeSet<String>) -> Vec<String> {
    let mut d: Vec<String> = reference
        .difference(other)
        .map(|f| format!("-{f}"))
        .collect();
    d.extend(other.difference(reference).map(|f| format!("+{f}")));
    d
}

fn assert_alike(n: u32, must_have: &[&str]) {
    let cmd = read(&format!("{n}.cmd"));
    let d = parsed(n, "db_bench");
    let s = parsed(n, "strata");
    assert_eq!(d.engine_version.as_deref(), Some("RocksDB 7.8.3"), "{cmd}");
    assert_eq!(s.engine_version.as_deref(), Some("Strata 0.1.0"), "{cmd}");
    let (fd, fs) = (field_set(&d), field_set(&s));
    for f in must_have {
        assert!(fd.contains(*f), "db_bench output of `{cmd}` lacks {f}");
    }
    let mismatch = diff(&fd, &fs);
    assert!(
        mismatch.is_empty(),
        "`{cmd}` parses differently on Strata: {mismatch:?}"
    );
    let names = |o: &BenchOutput| o.benches.iter().map(|b| b.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&d), names(&s), "{cmd}");
}

#[test]
fn blob_read_mix_parses_alike() {
    assert_alike(
        4,
        &[
            "bench:readrandomwriterandom.found",
            "bench:readrandomwriterandom.reads",
            "hist:readrandomwriterandom/read.p99",
            "hist:readrandomwriterandom/write.p99",
            "stathist:rocksdb.db.get.micros",
            "stathist:rocksdb.blobdb.blob.file.write.micros",
            "ticker:rocksdb.blobdb.blob.file.bytes.written",
            "compaction:W-Amp",
        ],
    );
}

#[test]
fn bloom_fillseq_without_statistics_parses_alike() {
    assert_alike(6, &["bench:fillseq.mb_sec", "bench:fillseq.micros_op"]);
}

#[test]
fn small_write_buffer_fill_parses_alike() {
    assert_alike(
        7,
        &[
            "hist:fillrandom/write.p999",
            "ticker:rocksdb.stall.micros",
            "ticker:rocksdb.compact.read.bytes",
            "stathist:rocksdb.compaction.times.cpu_micros",
            "compaction:Comp(sec)",
            "stall:cumulative",
        ],
    );
}

#[test]
fn no_wal_leveled_fill_parses_alike() {
    assert_alike(11, &["ticker:rocksdb.wal.bytes", "compaction:W-Amp"]);
}

/// The comparison is not vacuous: Strata output that lost a histogram line,
/// a ticker or a compaction-table column no longer parses alike.
#[test]
fn a_changed_output_is_a_mismatch() {
    let d = field_set(&parsed(7, "db_bench"));
    let s = read("7.strata.stdout");
    for (what, changed) in [
        (
            "Percentiles line",
            s.lines()
                .filter(|l| !l.starts_with("Percentiles:"))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        (
            "stall ticker",
            s.lines()
                .filter(|l| !l.starts_with("rocksdb.stall.micros"))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        ("W-Amp column", s.replace("W-Amp", "WAmp")),
        ("result line", s.replace("fillrandom   :", "fillrandom:")),
    ] {
        let f = field_set(&parse_output(&changed, ""));
        assert!(
            !diff(&d, &f).is_empty(),
            "dropping the {what} went unnoticed"
        );
    }
}
