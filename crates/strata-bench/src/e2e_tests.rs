//! End-to-end runs of the whole harness against the in-memory test double.

use crate::dbbench_text::{parse_output, BenchOutput, ResultLine};
use crate::engine::memory::MemoryFactory;
use crate::engine::strata_adapter::StrataFactory;
use crate::engine::EngineFactory;
use crate::run_with;

const ALL: &str = "fillseq,fillrandom,overwrite,fillsync,readrandom,readseq,readreverse,readmissing,seekrandom,deleterandom,readrandomwriterandom,readwhilewriting,updaterandom,compact,flush,waitforcompaction,stats,levelstats";

/// Strata with buffers small enough that a few thousand keys flush, and
/// without compression.
const SMALL_STRATA: &str = "--write_buffer_size=65536 --compression_type=none";

/// A finished `strata bench` run: exit code, stdout, stderr.
pub(crate) struct Run {
    pub(crate) code: i32,
    pub(crate) out: String,
    pub(crate) err: String,
}

/// The whole number right after `label` in `text` (`reads:` in
/// `( reads:12 ...)`); panics naming the label when there is none.
pub(crate) fn number_after(text: &str, label: &str) -> u64 {
    let at = text
        .find(label)
        .unwrap_or_else(|| panic!("no {label} in {text}"))
        + label.len();
    text[at..]
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no number after {label} in {text}"))
}

/// A fresh temporary directory and the `--db=` flag of a database in it.
pub(crate) fn temp_db() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let db = format!("--db={}", dir.path().join("db").display());
    (dir, db)
}

/// The JSON report at `path`.
fn read_json(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Runs `strata bench` with `args` on `factory`'s engine.
pub(crate) fn run(factory: &dyn EngineFactory, args: &[&str]) -> Run {
    let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    let mut out = Vec::new();
    let mut err = Vec::new();
    let code = run_with(&args, factory, &mut out, &mut err).unwrap();
    Run {
        code,
        out: String::from_utf8(out).unwrap(),
        err: String::from_utf8(err).unwrap(),
    }
}

/// Runs `strata bench` on `factory` with the flags `paths` (each whole: a
/// path may hold a space) and then the space-separated flags of `flags`.
fn run_on(factory: &dyn EngineFactory, paths: &[&str], flags: &str) -> Run {
    let args: Vec<&str> = paths
        .iter()
        .copied()
        .chain(flags.split_whitespace())
        .collect();
    run(factory, &args)
}

/// [`run_on`], and the parsed output (panics on a non-zero exit).
fn run_parsed(factory: &dyn EngineFactory, paths: &[&str], flags: &str) -> BenchOutput {
    let r = run_on(factory, paths, flags);
    assert_eq!(r.code, 0, "stderr: {}\nstdout: {}", r.err, r.out);
    parse_output(&r.out, "")
}

/// Runs every benchmark of [`ALL`] on `factory` (3000 keys, two threads,
/// histograms, the flags `extra`) with a JSON report (panics on a non-zero
/// exit). Returns the run and the report.
fn run_every_benchmark(factory: &dyn EngineFactory, extra: &str) -> (Run, serde_json::Value) {
    let (dir, db) = temp_db();
    let json = dir.path().join("report.json");
    let r = run_on(
        factory,
        &[&db, &format!("--json_report={}", json.display())],
        &format!("--benchmarks={ALL} --num=3000 --seed=7 --histogram=1 --threads=2 {extra}"),
    );
    assert_eq!(r.code, 0, "stderr: {}\nstdout: {}", r.err, r.out);
    let report = read_json(&json);
    (r, report)
}

/// The result line of benchmark `name` in `p`.
fn bench<'a>(p: &'a BenchOutput, name: &str) -> &'a ResultLine {
    p.benches
        .iter()
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("no {name} result line"))
}

/// Panics unless `r` failed with exit code 1 and an error that holds every
/// one of `needles`.
fn assert_refused(r: &Run, needles: &[&str]) {
    assert_eq!(r.code, 1, "stdout: {}", r.out);
    for needle in needles {
        assert!(r.err.contains(needle), "no {needle:?} in: {}", r.err);
    }
}

#[test]
fn every_benchmark_runs_and_parses_like_rocksdb_output() {
    let (r, v) = run_every_benchmark(&MemoryFactory::default(), "--statistics=true");
    assert!(
        r.err.starts_with("Memory:    version 0.0.0\nDate:       "),
        "{}",
        r.err
    );
    let p = parse_output(&r.out, "");
    let names: Vec<&str> = p.benches.iter().map(|b| b.name.as_str()).collect();
    let expected: Vec<&str> = ALL
        .split(',')
        .filter(|n| !["flush", "waitforcompaction", "stats", "levelstats"].contains(n))
        .collect();
    assert_eq!(names, expected, "output:\n{}", r.out);
    let by = |n: &str| bench(&p, n);
    assert_eq!(
        by("fillseq").operations,
        Some(6000),
        "each thread writes --num"
    );
    assert_eq!(by("readseq").message, "");
    assert!(
        by("readrandom").message.ends_with("of 3000 found)"),
        "{}",
        by("readrandom").message
    );
    assert_eq!(by("readmissing").message, "(0 of 3000 found)");
    assert_eq!(by("fillsync").message, "(3 ops)");
    assert!(by("updaterandom")
        .message
        .starts_with("( updates:3000 found:"));
    assert!(by("readrandomwriterandom")
        .message
        .starts_with("( reads:2700 writes:300 total:3000 found:"));
    assert_eq!(
        by("readwhilewriting").operations,
        Some(6000),
        "writer excluded from the merge"
    );
    assert_eq!(by("compact").operations, Some(1));
    assert_eq!(p.histogram_ops("readrandomwriterandom").len(), 2);
    assert_eq!(p.histogram_ops("seekrandom")[0], "seek");
    assert_eq!(p.histogram_ops("deleterandom")[0], "delete");
    assert_eq!(p.histogram_ops("updaterandom")[0], "update");
    assert!(r.out.contains("flush memtable\n"));
    assert!(r.out.contains("): started\n") && r.out.contains("): finished\n"));
    assert!(r.out.contains("\nLevel Files Size(MB)\n"));
    assert_eq!(
        p.compaction_sum.get("W-Amp"),
        Some(&1.9),
        "stats benchmark output parsed"
    );
    assert_eq!(p.tickers["rocksdb.bytes.written"], 100);

    assert_eq!(v["schema"], "strata-bench-report");
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["seed"], 7);
    let benches = v["benchmarks"].as_array().unwrap();
    assert_eq!(benches.len(), expected.len());
    let rr = benches.iter().find(|b| b["name"] == "readrandom").unwrap();
    assert_eq!(rr["ops"], 6000);
    assert!(
        rr["latency"]["read"]["p99_9_us"].as_f64().unwrap()
            >= rr["latency"]["read"]["p50_us"].as_f64().unwrap()
    );
    assert_eq!(v["write_amplification"]["end_to_end"], 2.0);
    assert_eq!(v["write_amplification"]["compaction_stats_w_amp"], 1.9);
    assert_eq!(v["stall_micros"], 7);
    assert!(v["process"]["peak_rss_bytes"].as_u64().unwrap() > 0);
    assert!(v["disk"]["total_bytes"].is_u64());
    assert_eq!(v["flags"]["num"], "3000");
}

/// The same `--seed` gives the same key sequences (and a different seed
/// different ones), so runs are reproducible.
#[test]
fn same_seed_same_keys() {
    let found = |seed: &str| {
        let (_dir, db) = temp_db();
        let p = run_parsed(
            &MemoryFactory::default(),
            &[&db],
            &format!("--benchmarks=fillrandom,overwrite,readrandom,readseq --num=2000 {seed}"),
        );
        let rr = bench(&p, "readrandom").message.clone();
        (rr, bench(&p, "readseq").operations.unwrap_or(0))
    };
    let a = found("--seed=42");
    assert_eq!(a, found("--seed=42"));
    assert_ne!(a, found("--seed=43"));
    // Two random fills of 2000 over 2000 keys cover about 1 - e^-2 = 86%.
    assert!((1650..1800).contains(&a.1), "{a:?}");
}

#[test]
fn output_lines_have_db_bench_shape() {
    let (_dir, db) = temp_db();
    let r = run_on(
        &MemoryFactory::default(),
        &[&db],
        "--benchmarks=fillseq,readmissing,deleterandom --num=100 --seed=1",
    );
    let capture =
        include_str!("../testdata/rocksdb-7.8.3/all-benchmarks-histogram-statistics.stdout");
    // Same text skeleton once the numbers are masked.
    let mask = |s: &str| -> Vec<String> {
        s.lines()
            .filter(|l| l.contains("micros/op"))
            .map(|l| {
                let mut m = String::new();
                for c in l.chars() {
                    let c = if c.is_ascii_digit() { '9' } else { c };
                    if !(c == '9' && m.ends_with('9')) {
                        m.push(c);
                    }
                }
                m
            })
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .collect()
    };
    let ours = mask(&r.out);
    let theirs = mask(capture);
    for line in &ours {
        let name = line.split(' ').next().unwrap();
        let twin = theirs
            .iter()
            .find(|t| t.starts_with(&format!("{name} ")))
            .unwrap();
        assert_eq!(line, twin);
    }
    assert!(
        r.out.contains("(0 of 100 found)\n\n"),
        "message keeps db_bench's newline"
    );
    assert!(r.out.contains("DB path: ["));
    assert!(!r.out.contains("Set seed"));
}

#[test]
fn unknown_benchmark_and_flags() {
    let f = MemoryFactory::default();
    let (_dir, db) = temp_db();
    let r = run_on(&f, &[&db], "--benchmarks=bogus --seed=1");
    assert_eq!(r.code, 1);
    let golden = include_str!("../testdata/rocksdb-7.8.3/error-unknown-benchmark.stderr");
    assert!(r.err.ends_with(golden), "{}", r.err);
    let r = run(&f, &["--foo=1"]);
    assert_eq!(r.code, 1);
    assert_eq!(
        r.err,
        include_str!("../testdata/rocksdb-7.8.3/error-unknown-flag.stderr")
    );
    assert!(r.out.is_empty());
}

#[test]
fn sync_with_disable_wal_is_rejected_like_db_bench() {
    let f = MemoryFactory::default();
    let (_dir, db) = temp_db();
    let flags = "--num=10 --sync=1 --disable_wal=1 --seed=1";
    let r = run_on(&f, &[&db], &format!("--benchmarks=fillrandom {flags}"));
    assert_eq!(r.code, 1);
    let golden = include_str!("../testdata/rocksdb-7.8.3/error-sync-disable-wal.stderr");
    assert!(r.err.ends_with(golden), "{}", r.err);
    let r = run_on(&f, &[&db], &format!("--benchmarks=readrandom {flags}"));
    assert_eq!(r.code, 0, "reads do not write: {}", r.err);
}

#[test]
fn unsupported_feature_flag_names_the_flag() {
    let f = MemoryFactory {
        unsupported: vec!["compaction_style"],
        ..Default::default()
    };
    let (_dir, db) = temp_db();
    let flags = "--benchmarks=fillseq --num=10 --seed=1";
    let r = run_on(&f, &[&db], &format!("{flags} --compaction_style=1"));
    assert_refused(
        &r,
        &["flag '--compaction_style'", "kCompactionStyleUniversal"],
    );
    let r = run_on(&f, &[&db], &format!("{flags} --compaction_style=0"));
    assert_eq!(r.code, 0, "{}", r.err);
}

#[test]
fn use_existing_db_skips_fills_and_keeps_data() {
    let f = MemoryFactory::default();
    let (_dir, db) = temp_db();
    run_parsed(&f, &[&db], "--benchmarks=fillseq --num=50 --seed=1");
    let r = run_on(
        &f,
        &[&db],
        "--benchmarks=fillrandom,readrandom --num=50 --use_existing_db=1 --seed=1",
    );
    assert_eq!(r.code, 0, "{}", r.err);
    assert!(
        r.out
            .contains("fillrandom   : skipped (--use_existing_db is true)\n"),
        "{}",
        r.out
    );
    assert!(r.out.contains("(50 of 50 found)"), "{}", r.out);
    let r = run_on(&f, &[&db], "--benchmarks=readrandom --num=50 --seed=1");
    assert!(
        r.out.contains("(0 of 50 found)"),
        "without use_existing_db the DB starts empty: {}",
        r.out
    );
}

/// A mistyped `--db` with `--use_existing_db=1` once read a new, empty DB
/// and reported "(0 of N found)"; db_bench refuses it (create_if_missing
/// is false).
#[test]
fn use_existing_db_without_a_database_is_an_error() {
    let (_dir, db) = temp_db();
    let r = run_on(
        &StrataFactory,
        &[&db],
        "--benchmarks=readrandom --num=50 --use_existing_db=1",
    );
    assert_ne!(r.code, 0, "{}", r.out);
    assert!(
        r.err
            .contains("--use_existing_db is true but there is no database at"),
        "{}",
        r.err
    );
    assert!(!r.out.contains("found)"), "{}", r.out);
}

#[test]
fn duration_bounds_random_benchmarks() {
    let (_dir, db) = temp_db();
    let start = std::time::Instant::now();
    let p = run_parsed(
        &MemoryFactory::default(),
        &[&db],
        "--benchmarks=fillseq,readrandom --num=100 --duration=1 --seed=1",
    );
    assert!(start.elapsed().as_secs_f64() >= 1.0);
    assert_eq!(
        p.benches[0].operations,
        Some(100),
        "fillseq ignores --duration"
    );
    assert!(
        p.benches[1].operations > Some(100),
        "readrandom ran for a second"
    );
}

#[test]
fn seed_zero_prints_the_seed() {
    let (_dir, db) = temp_db();
    let r = run_on(
        &MemoryFactory::default(),
        &[&db],
        "--benchmarks=fillseq --num=10",
    );
    assert!(r.out.starts_with("Set seed to "), "{}", r.out);
    assert!(r
        .out
        .lines()
        .next()
        .unwrap()
        .ends_with(" because --seed was 0"));
}

/// Every benchmark on the real Strata engine at a tiny size, with small
/// buffers so flushes and compactions happen.
#[test]
fn every_benchmark_on_strata() {
    let (Run { out, err, .. }, v) = run_every_benchmark(
        &StrataFactory,
        &format!(
            "--statistics=1 --target_file_size_base=65536 \
             --max_bytes_for_level_base=262144 {SMALL_STRATA}"
        ),
    );
    assert!(err.starts_with("Strata:    version "), "{err}");
    let p = parse_output(&out, "");
    assert_eq!(p.benches.len(), 14, "{out}");
    assert_eq!(bench(&p, "readmissing").message, "(0 of 3000 found)");
    // After fillsync (fresh DB over num/1000 keys), readrandom finds few.
    assert!(bench(&p, "readrandom").message.ends_with("of 3000 found)"));
    assert!(bench(&p, "readseq").operations >= Some(1));
    assert!(out.contains("** Compaction Stats [default] **"), "{out}");
    assert!(out.contains("STATISTICS:\n"), "{out}");
    assert!(v["disk"]["total_bytes"].as_u64().unwrap() > 0);
    assert!(!v["compaction_stats"].as_array().unwrap().is_empty());
    assert!(v["statistics"]["tickers"].as_object().unwrap().len() > 10);
}

#[test]
fn strata_fill_then_read_finds_everything() {
    let (_dir, db) = temp_db();
    let p = run_parsed(
        &StrataFactory,
        &[&db],
        "--benchmarks=fillseq,readrandom,readreverse,seekrandom --num=2000 --seed=3 \
         --write_buffer_size=65536",
    );
    assert_eq!(p.benches[1].message, "(2000 of 2000 found)");
    assert_eq!(p.benches[2].operations, Some(2000));
    assert_eq!(p.benches[3].message, "(2000 of 2000 found)");
}

#[test]
fn strata_rejects_unbuilt_feature_flag() {
    let (_dir, db) = temp_db();
    let r = run_on(
        &StrataFactory,
        &[&db],
        "--benchmarks=fillseq --num=10 --seed=1 --compaction_pri=4",
    );
    assert_refused(&r, &["flag '--compaction_pri'", "Not supported"]);
}

/// Study 1's blob configuration on Strata: the JSON report splits bytes on
/// disk by kind and reports both write amplifications and stall time.
#[test]
fn strata_blob_run_reports_disk_by_kind() {
    let (dir, db) = temp_db();
    let json = dir.path().join("r.json");
    run_parsed(
        &StrataFactory,
        &[&db, &format!("--json_report={}", json.display())],
        "--benchmarks=fillrandom,readrandomwriterandom --readwritepercent=95 --num=2000 \
         --value_size=1024 --enable_blob_files=true --min_blob_size=0 \
         --write_buffer_size=65536 --statistics=1 --seed=1",
    );
    let v = read_json(&json);
    let disk = &v["disk"];
    assert!(disk["blob_bytes"].as_u64().unwrap() > 1_000_000, "{disk}");
    assert!(
        disk["sst_bytes"].as_u64().unwrap() < disk["blob_bytes"].as_u64().unwrap(),
        "{disk}"
    );
    assert_eq!(
        disk["total_bytes"].as_u64().unwrap(),
        ["wal_bytes", "sst_bytes", "blob_bytes", "other_bytes"]
            .iter()
            .map(|k| disk[k].as_u64().unwrap())
            .sum::<u64>()
    );
    assert!(v["write_amplification"]["end_to_end"].as_f64().unwrap() > 1.0);
    assert!(v["stall_micros"].is_u64());
}

/// `--batch_size` groups db_bench's writes and deletes into batches counted
/// as that many operations (as `Duration::Done(entries_per_batch_)` does:
/// whole batches only), fillbatch writes 1000 per batch, and
/// multireadrandom reads `--batch_size` keys per MultiGet, random or strided.
fn check_batches_and_multiget(factory: &dyn EngineFactory, extra: &str) {
    let (_dir, db) = temp_db();
    let p = run_parsed(
        factory,
        &[&db],
        &format!(
            "--benchmarks=fillbatch,multireadrandom --num=2500 --reads=95 --batch_size=10 \
             --seed=5 {extra}"
        ),
    );
    assert_eq!(p.benches[0].name, "fillbatch");
    assert_eq!(
        p.benches[0].operations,
        Some(2000),
        "two whole batches of 1000"
    );
    // 9 MultiGets of 10 (the 10th would pass --reads=95); keys < 2500, of
    // which 0..2000 exist.
    let m = &p.benches[1];
    assert_eq!(m.operations, Some(90));
    assert!(m.message.ends_with(" of 90 found)"), "{}", m.message);

    // Strided MultiGets near the end of the key range start early enough
    // to stay in it: keys 0, 200, ..., 1800 all exist.
    let p = run_parsed(
        factory,
        &[&db],
        &format!(
            "--benchmarks=multireadrandom --use_existing_db=1 --num=2000 --reads=50 \
             --batch_size=10 --multiread_stride=200 --seed=5 {extra}"
        ),
    );
    assert_eq!(p.benches[0].message, "(50 of 50 found)");

    // fillrandom in batches of 7 over --num=100: 14 batches, 98 puts.
    let (_dir2, db2) = temp_db();
    let p = run_parsed(
        factory,
        &[&db2],
        &format!("--benchmarks=fillrandom,deleterandom --num=100 --batch_size=7 --seed=5 {extra}"),
    );
    assert_eq!(p.benches[0].operations, Some(98));
    assert_eq!(p.benches[1].operations, Some(98));
}

/// deleteseq deletes keys 0, 1, 2, ... in order (`--deletes` of them, in
/// batches of `--batch_size`): the keys after them are all that readseq
/// finds.
fn check_deleteseq(factory: &dyn EngineFactory, extra: &str) {
    for batch in ["--batch_size=1", "--batch_size=8"] {
        let (_dir, db) = temp_db();
        let p = run_parsed(
            factory,
            &[&db],
            &format!(
                "--benchmarks=fillseq,deleteseq,readseq,readrandom --num=100 --deletes=40 \
                 --seed=3 --histogram=1 {batch} {extra}"
            ),
        );
        assert_eq!(p.benches[1].name, "deleteseq");
        assert_eq!(p.benches[1].operations, Some(40), "{batch}");
        assert_eq!(p.histogram_ops("deleteseq"), ["delete"]);
        // fillseq writes whole batches too: 96 keys in batches of 8.
        let filled = p.benches[0].operations.unwrap();
        assert_eq!(p.benches[2].operations, Some(filled - 40), "{batch}");
        let found: u64 = p.benches[3]
            .message
            .trim_start_matches('(')
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            found < 100,
            "{batch}: deleted keys still found: {}",
            p.benches[3].message
        );
    }
}

#[test]
fn deleteseq_deletes_the_first_keys() {
    check_deleteseq(&MemoryFactory::default(), "");
}

#[test]
fn deleteseq_deletes_the_first_keys_on_strata() {
    check_deleteseq(&StrataFactory, SMALL_STRATA);
}

#[test]
fn batch_size_and_multireadrandom() {
    check_batches_and_multiget(&MemoryFactory::default(), "");
}

#[test]
fn batch_size_and_multireadrandom_on_strata() {
    check_batches_and_multiget(&StrataFactory, SMALL_STRATA);
}

/// Every benchmark but multireadrandom (neither has a MultiGet) on the two
/// engines that keep their own defaults: same output lines, the `stats`
/// benchmark's table, and a given flag the engine lacks refused naming the
/// flag and the engine.
fn every_benchmark_on(factory: &dyn EngineFactory, engine: &str) {
    let (Run { out, err, .. }, v) = run_every_benchmark(factory, SMALL_STRATA);
    assert!(
        err.starts_with(&format!("{}:    version ", factory.name())),
        "{err}"
    );
    assert!(err.contains("\nStrata:    version "), "{err}");
    assert!(
        out.contains("\nCompression: NoCompression\n"),
        "given: {out}"
    );
    let p = parse_output(&out, "");
    assert_eq!(p.benches.len(), 14, "{out}");
    assert_eq!(bench(&p, "readmissing").message, "(0 of 3000 found)");
    assert!(bench(&p, "readrandom").message.ends_with("of 3000 found)"));
    assert!(p.histogram_ops("readrandom").len() == 1, "{out}");
    assert!(bench(&p, "readseq").operations >= Some(1));
    assert!(!out.contains("STATISTICS:"), "{out}");
    assert_eq!(v["engine"], factory.name());
    assert!(v["statistics"].is_null(), "absent, not zero");
    assert!(v["stall_micros"].is_null(), "absent, not zero");
    if engine == "LevelDB" {
        // leveldb.stats and the LOG's bytes: rows and RocksDB's W-Amp.
        let rows = v["compaction_stats"].as_array().unwrap();
        assert_eq!(rows.last().unwrap()["level"], "Sum", "{rows:?}");
        let w = v["write_amplification"]["compaction_stats_w_amp"].as_f64();
        assert!(w.is_some_and(|w| w >= 1.0), "{v}");
        assert!(out.contains("\nLOG: "), "{out}");
    } else {
        assert!(v["write_amplification"]["compaction_stats_w_amp"].is_null());
    }
    assert!(v["benchmarks"][0]["latency"].as_object().is_some());

    // A flag the engine has no equivalent for.
    let (_dir, db) = temp_db();
    let r = run_on(
        factory,
        &[&db],
        "--benchmarks=fillseq --num=10 --max_bytes_for_level_base=1048576",
    );
    assert_refused(&r, &["flag '--max_bytes_for_level_base'", engine]);
}

#[cfg(strata_leveldb)]
#[test]
fn every_benchmark_on_leveldb() {
    every_benchmark_on(&crate::engine::leveldb_adapter::LevelDbFactory, "LevelDB");
}

#[test]
fn every_benchmark_on_fjall() {
    every_benchmark_on(&crate::engine::fjall_adapter::FjallFactory, "fjall");
}

/// db_bench's mergerandom and readrandommergerandom on Strata with
/// `--merge_operator=uint64add` and 8-byte operands: db_bench's messages,
/// a `merge` histogram, every get of a merged key a hit of 8 bytes.
#[test]
fn mergerandom_and_readrandommergerandom_on_strata() {
    let (_dir, db) = temp_db();
    let p = run_parsed(
        &StrataFactory,
        &[&db],
        &format!(
            "--benchmarks=mergerandom,readrandommergerandom,readrandom \
             --merge_operator=uint64add --value_size=8 --num=3000 --merge_keys=50 \
             --mergereadpercent=40 --seed=11 --histogram=1 {SMALL_STRATA}"
        ),
    );
    assert_eq!(bench(&p, "mergerandom").message, "( updates:3000)");
    assert_eq!(bench(&p, "mergerandom").operations, Some(3000));
    assert_eq!(p.histogram_ops("mergerandom"), ["merge"]);
    let m = &bench(&p, "readrandommergerandom").message;
    let (reads, merges) = (number_after(m, "reads:"), number_after(m, "merges:"));
    assert_eq!(reads + merges, 3000, "{m}");
    assert!((900..1500).contains(&merges), "40% merges: {m}");
    assert_eq!(number_after(m, "total:"), 3000, "{m}");
    assert_eq!(
        number_after(m, "hits:"),
        reads,
        "every merged key is found: {m}"
    );
    assert_eq!(number_after(m, "maxlength:"), 8, "{m}");
    let mut ops = p.histogram_ops("readrandommergerandom");
    ops.sort();
    assert_eq!(ops, ["merge", "read"]);
    // Keys 0..50 hold counters; readrandom over --num finds them.
    assert!(bench(&p, "readrandom").message.ends_with("of 3000 found)"));
}

/// db_bench's range tombstones on Strata: a fill of every key, then
/// `overwrite` with a DeleteRange of 50 keys after every 100th write, at
/// most 5: some deleted keys stay deleted, so readseq finds fewer keys; with
/// `--expand_range_tombstones` the same writes as point deletes leave the
/// same keys.
#[test]
fn range_tombstones_in_a_write_benchmark_on_strata() {
    let mut found = Vec::new();
    for expand in ["false", "true"] {
        let (_dir, db) = temp_db();
        let flags = "--num=1000 --compression_type=none";
        run_parsed(
            &StrataFactory,
            &[&db],
            &format!("--benchmarks=fillseq {flags}"),
        );
        let p = run_parsed(
            &StrataFactory,
            &[&db],
            &format!(
                "--use_existing_db=1 --benchmarks=overwrite,readseq --seed=7 \
                 --writes_per_range_tombstone=100 --range_tombstone_width=50 \
                 --max_num_range_tombstones=5 --expand_range_tombstones={expand} {flags}"
            ),
        );
        assert_eq!(bench(&p, "overwrite").operations, Some(1000));
        let n = bench(&p, "readseq").operations.unwrap();
        assert!((750..1000).contains(&n), "{n} keys left");
        found.push(n);
    }
    assert_eq!(
        found[0], found[1],
        "ranges and expanded ranges delete alike"
    );
}

/// Without `--merge_operator` the first merge fails as in db_bench
/// ("merge error: Not supported: ..."); an operator Strata does not build
/// is refused naming the flag.
#[test]
fn mergerandom_needs_a_built_merge_operator_on_strata() {
    for (flag, needles) in [
        ("", ["merge error: Not supported", "merge operator"]),
        (
            "--merge_operator=bytesxor",
            ["flag '--merge_operator'", "'bytesxor'"],
        ),
    ] {
        let (_dir, db) = temp_db();
        let r = run_on(
            &StrataFactory,
            &[&db],
            &format!("--benchmarks=mergerandom --num=10 {flag}"),
        );
        assert_refused(&r, &needles);
    }
}

/// LevelDB and fjall have no merge operator: the flag and the benchmarks
/// are refused naming them and the engine.
fn merges_refused_on(factory: &dyn EngineFactory, engine: &str) {
    let (_dir, db) = temp_db();
    let r = run_on(
        factory,
        &[&db],
        "--benchmarks=fillseq --num=10 --merge_operator=uint64add",
    );
    assert_refused(&r, &["flag '--merge_operator'", engine]);
    for name in ["mergerandom", "readrandommergerandom"] {
        let (_dir, db) = temp_db();
        let r = run_on(factory, &[&db], &format!("--benchmarks={name} --num=10"));
        let named = format!("benchmark '{name}'");
        assert_refused(&r, &[&named, "no merge operator"]);
    }
}

#[cfg(strata_leveldb)]
#[test]
fn merges_refused_on_leveldb() {
    merges_refused_on(&crate::engine::leveldb_adapter::LevelDbFactory, "LevelDB");
}

#[test]
fn merges_refused_on_fjall() {
    merges_refused_on(&crate::engine::fjall_adapter::FjallFactory, "fjall");
}

/// `--report_interval_seconds` and `--target_ops_per_sec` on Strata: a
/// paced fill and a paced YCSB mix each report their intervals in the JSON
/// report (client figures and Strata's own), and `--report_file` holds
/// db_bench's CSV of the last benchmark.
#[test]
fn strata_intervals_in_the_json_report_and_the_csv() {
    let (dir, db) = temp_db();
    let json = dir.path().join("r.json");
    let csv = dir.path().join("report.csv");
    run_parsed(
        &StrataFactory,
        &[
            &db,
            &format!("--json_report={}", json.display()),
            &format!("--report_file={}", csv.display()),
        ],
        &format!(
            "--benchmarks=fillrandom,ycsb_a --num=3000 --reads=3000 --seed=1 \
             --ycsb_insert_order=ordered --value_size=100 --statistics=1 \
             --report_interval_seconds=1 --target_ops_per_sec=2000 {SMALL_STRATA}"
        ),
    );
    let v = read_json(&json);
    for b in v["benchmarks"].as_array().unwrap() {
        let name = b["name"].as_str().unwrap();
        assert_eq!(b["target_ops_per_sec"].as_f64(), Some(2000.0), "{name}");
        let iv = b["intervals"].as_array().unwrap();
        assert!(iv.len() >= 2, "{name}: {iv:?}");
        let t: Vec<f64> = iv.iter().map(|i| i["t_end_s"].as_f64().unwrap()).collect();
        assert!(t.windows(2).all(|w| w[0] < w[1]), "{name}: {t:?}");
        let ops: u64 = iv.iter().map(|i| i["ops"].as_u64().unwrap()).sum();
        assert_eq!(ops, b["ops"].as_u64().unwrap(), "{name}");
        for i in iv {
            assert!(i["disk_bytes"].as_u64().unwrap() > 0, "{name}: {i}");
            assert!(i["rss_bytes"].as_u64().unwrap() > 0, "{name}: {i}");
            assert!(
                i["rss_file_bytes"].as_u64().unwrap() < i["rss_bytes"].as_u64().unwrap(),
                "{name}: {i}"
            );
            assert!(i["l0_files"].is_u64(), "{name}: {i}");
            assert!(i["pending_compaction_bytes"].is_u64(), "{name}: {i}");
            assert!(i["stall_micros"].is_u64(), "{name}: {i}");
        }
        let peak = iv.iter().map(|i| i["disk_bytes"].as_u64().unwrap()).max();
        assert!(b["peak_disk_bytes"].as_u64() >= peak, "{name}");
        assert!(b["peak_rss_bytes"].as_u64().unwrap() > 0, "{name}");
        let own = b["peak_own_memory_bytes"].as_u64().unwrap();
        assert!(
            own > 0 && own <= b["peak_rss_bytes"].as_u64().unwrap(),
            "{name}"
        );
        assert!(b["behind_schedule_ms"].is_f64(), "{name}");
    }
    let ycsb = &v["benchmarks"][1];
    assert!(
        ycsb["intervals"][0]["latency"]["read"]["p99_us"]
            .as_f64()
            .unwrap()
            > 0.0
    );
    assert!(
        ycsb["intervals"][0]["latency"]["update"]["count"]
            .as_u64()
            .unwrap()
            > 0
    );
    // The CSV is the last benchmark's: its full intervals, as db_bench rounds
    // and counts them.
    let text = std::fs::read_to_string(&csv).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("secs_elapsed,interval_qps"));
    let rows: Vec<&str> = lines.collect();
    let iv = ycsb["intervals"].as_array().unwrap();
    assert!(!rows.is_empty() && rows.len() <= iv.len(), "{text}");
    for (k, (row, i)) in rows.iter().zip(iv).enumerate() {
        assert_eq!(*row, format!("{},{}", k + 1, i["ops"]), "{text}");
    }
}
