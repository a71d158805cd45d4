//! `strata lab capacity` end to end on a bench whose latency, stalls, disk
//! and memory are known functions of the target rate
//! (`tests/fake_capacity_bench.sh`): each shipped capacity file runs at its
//! quick scale, the search finds the fake's known answer within its
//! tolerance and names the limit that binds, the report draws the last
//! passing and the first failing rate, and a search resumes from its log.

mod common;

use std::path::{Path, PathBuf};

use common::{
    assert_contains, assert_golden, assert_png, crate_dir, lab, lab_output, read, search_args,
    svg_texts,
};

fn bench() -> String {
    format!(
        "sh {}",
        crate_dir().join("tests/fake_capacity_bench.sh").display()
    )
}

fn shipped(name: &str) -> PathBuf {
    crate_dir().join(format!("../../studies/capacity/{name}.toml"))
}

/// Runs `lab capacity SPEC --out OUT` on the fake with `extra`; returns stdout.
fn capacity(spec: &Path, out: &Path, extra: &[&str]) -> String {
    let args = search_args("capacity", spec, out, &bench(), extra);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    String::from_utf8(lab(&args).stdout).unwrap()
}

/// The answer line of `engine / config` in the command's output.
fn line<'a>(stdout: &'a str, who: &str) -> &'a str {
    stdout
        .lines()
        .find(|l| l.starts_with(&format!("{who}:")))
        .unwrap_or_else(|| panic!("no line for {who} in:\n{stdout}"))
}

/// The interval `[lo, hi)` a bracketed answer line gives.
fn interval(l: &str) -> (f64, f64) {
    let s = l
        .split("interval [")
        .nth(1)
        .unwrap_or_else(|| panic!("{l}"));
    let (lo, rest) = s.split_once(", ").unwrap();
    let hi = rest.split(')').next().unwrap();
    (lo.parse().unwrap(), hi.parse().unwrap())
}

/// The answer brackets the fake's threshold (within its +-2% noise and
/// the search's 5% tolerance) and names the limit that binds.
fn assert_found(stdout: &str, who: &str, threshold: f64, binds: &str) {
    let l = line(stdout, who);
    let (lo, hi) = interval(l);
    assert!(lo <= threshold * 1.02 && hi >= threshold * 0.98, "{l}");
    assert!(hi / lo <= 1.06, "{l}");
    assert_contains(l, &format!("; {binds} ("));
}

/// The fake's capacity factor of a write buffer of `w` bytes.
fn buffer_factor(w: f64) -> f64 {
    let x = (w.log2() - 25.0) / 2.0;
    0.6 + 0.4 * (-x * x / 2.0).exp()
}

#[test]
fn ycsb_a_finds_each_engines_rate_and_what_binds_and_draws_the_boundary() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let stdout = capacity(&shipped("ycsb_a_1kb"), &out, &[]);
    // Strata: P99 = 200 us / (1 - rho) reaches 5 ms at rho 0.96 of 40000.
    assert_found(&stdout, "strata / default", 38400.0, "latency");
    // RocksDB: 150 ms of stall per second above rho 0.75 of 30000.
    assert_found(&stdout, "rocksdb / default", 22500.0, "stall");
    let dir = out.join("capacity-ycsb_a_1kb-quick");
    let md = read(&dir.join("report.md"));
    assert_contains(&md, "## Answer\n\n- strata / default: sustains ");
    assert_contains(&md, "| engine | config | sustainable ops/s |");
    assert_contains(&md, "| 0 | closed loop | closed-loop probe |");
    // Each run starts from a settled host, and the report says how.
    assert_contains(&md, "Settling the host: sync");
    for e in ["strata", "rocksdb"] {
        for s in ["ops", "p99", "stall", "l0", "pending", "disk", "rss"] {
            let stem = dir.join("charts").join(format!("{e}-default-{s}"));
            assert_png(&stem.with_extension("png"));
            let texts = svg_texts(&stem.with_extension("svg"));
            let has = |p: &str| texts.iter().any(|t| t.starts_with(p));
            assert!(
                has("last pass at ") && has("first fail at "),
                "{e} {s}: {texts:?}"
            );
            assert!(has("end of the warm-up"), "{e} {s}");
            assert_eq!(
                has("limit of the objective"),
                s == "p99" || s == "stall",
                "{e} {s}: a limit line is drawn and named where the objective has one"
            );
        }
    }
    let html = read(&dir.join("report.html"));
    assert_contains(&html, "<svg");
    assert!(dir.join("trials.jsonl").exists() && dir.join("results.jsonl").exists());

    // The search resumes from its log: nothing left to run.
    let before = read(&dir.join("trials.jsonl"));
    let args = search_args("capacity", &shipped("ycsb_a_1kb"), &out, &bench(), &[]);
    let again = lab_output(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(!again.status.success());
    assert_contains(
        &String::from_utf8_lossy(&again.stderr),
        "--resume continues it",
    );
    let resumed = capacity(&shipped("ycsb_a_1kb"), &out, &["--resume"]);
    assert_eq!(read(&dir.join("trials.jsonl")), before);
    assert_eq!(
        line(&resumed, "strata / default"),
        line(&stdout, "strata / default")
    );
    // `lab report` rewrites the same report from the directory.
    lab(&["report", dir.to_str().unwrap()]);
    assert_eq!(read(&dir.join("report.md")), md);
}

#[test]
fn the_universal_overwrite_spec_is_bound_by_space() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    // One configuration first: the report names the other as not searched.
    let first = capacity(
        &shipped("overwrite_universal"),
        &out,
        &["--configs", "amp200"],
    );
    assert!(!first.contains("amp50"), "{first}");
    let md = read(&out.join("capacity-overwrite_universal-quick/report.md"));
    assert!(
        md.contains("Not searched: amp50 (add with `--configs amp50 --resume`)."),
        "{md}"
    );
    // The other added to the same search.
    let stdout = capacity(
        &shipped("overwrite_universal"),
        &out,
        &["--configs", "amp50", "--resume"],
    );
    let md = read(&out.join("capacity-overwrite_universal-quick/report.md"));
    assert!(!md.contains("Not searched"), "{md}");
    // Disk = live x (1.1 + 1.5 rho) reaches 2x at rho 0.6; the quick
    // scale's 1 MiB write buffer scales the fake's capacity.
    let f = buffer_factor(1048576.0);
    for c in ["amp200", "amp50"] {
        assert_found(
            &stdout,
            &format!("strata / {c}"),
            0.6 * 40000.0 * f,
            "space",
        );
        assert_found(
            &stdout,
            &format!("rocksdb / {c}"),
            0.6 * 30000.0 * f,
            "space",
        );
    }
}

#[test]
fn study_3s_buffers_meet_its_limits_or_are_bound_by_memory() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let stdout = capacity(
        &shipped("write_buffer"),
        &out,
        &["--engines", "strata", "--no-settle"],
    );
    // Without settling, the report says a run may pay for the last one's
    // writeback.
    let md = read(&out.join("capacity-write_buffer-quick/report.md"));
    assert!(md.contains("Settling the host: none (--no-settle)"), "{md}");
    // P99 = 200 us / (1 - rho) reaches 2 ms at rho 0.9; the fake's
    // capacity peaks at 32 MiB buffers.
    assert_found(&stdout, "strata / wb32m", 36000.0, "latency");
    assert_found(
        &stdout,
        "strata / wb8m",
        0.9 * 40000.0 * buffer_factor(8388608.0),
        "latency",
    );
    // 512 MiB x 3 buffers + 40 MB passes 1 GB at any rate.
    let l = line(&stdout, "strata / wb512m");
    assert_contains(l, "sustains less than");
    assert_contains(l, "; memory (peak memory");
    let dir = out.join("capacity-write_buffer-quick/charts");
    let texts = svg_texts(&dir.join("strata-wb512m-rss.svg"));
    assert!(
        texts.iter().any(|t| t == "limit of the objective"),
        "{texts:?}"
    );
    assert!(
        texts.iter().any(|t| t == "first fail at 1300 ops/s"),
        "{texts:?}"
    );
}

/// The report of a fixed search, byte for byte: the first screen's answer
/// lines, the side-by-side table, the decision logs and the method.
/// Regenerate with `STRATA_UPDATE_GOLDEN=1` after an intended change.
#[test]
fn the_report_matches_its_golden_copy() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    capacity(&shipped("ycsb_a_1kb"), &out, &[]);
    let md = read(&out.join("capacity-ycsb_a_1kb-quick/report.md"));
    // The runs' facts name this machine's paths: the golden copy stops
    // before them.
    let md = md.split("## Runs").next().unwrap();
    assert_golden("capacity.md", md);
}
