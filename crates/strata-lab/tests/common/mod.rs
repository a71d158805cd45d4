//! Fixtures shared by the lab's integration tests: the study files under
//! `testdata/studies/`, the fake db_bench (`tests/fake_db_bench.sh`), the
//! `strata-lab` binary, and the files a run leaves.
//!
//! Each test file uses some of these, so the rest is dead code there.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use strata_lab::data::results::ResultRow;

/// The `strata-lab` binary built for the tests.
pub const LAB: &str = env!("CARGO_BIN_EXE_strata-lab");

/// The crate's directory.
pub fn crate_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The text of `testdata/studies/{name}.toml`.
pub fn study(name: &str) -> String {
    read(&crate_dir().join(format!("testdata/studies/{name}.toml")))
}

/// Writes `text` as `{name}.toml` in a new temporary directory; returns the
/// directory (kept alive by the caller) and the file.
pub fn study_in_temp(name: &str, text: &str) -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let spec = d.path().join(format!("{name}.toml"));
    std::fs::write(&spec, text).unwrap();
    (d, spec)
}

/// The fake db_bench as a bench command (`--strata-bench` and the like).
pub fn fake_bench() -> String {
    format!(
        "sh {}",
        crate_dir().join("tests/fake_db_bench.sh").display()
    )
}

/// The arguments `CMD SPEC --out OUT --strata-bench BENCH` and then `extra`
/// (a search command on a fake bench).
pub fn search_args(cmd: &str, spec: &Path, out: &Path, bench: &str, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        cmd,
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--strata-bench",
        bench,
    ]
    .map(String::from)
    .to_vec();
    args.extend(extra.iter().map(|s| s.to_string()));
    args
}

/// Runs `strata-lab args`; returns its output whether it fails or not.
pub fn lab_output(args: &[&str]) -> Output {
    Command::new(LAB)
        .args(args)
        .output()
        .expect("run strata-lab")
}

/// Runs `strata-lab args`, panicking with its output when it fails.
pub fn lab(args: &[&str]) -> Output {
    let o = lab_output(args);
    if !o.status.success() {
        panic!(
            "strata-lab {args:?} failed\nstdout: {}\nstderr: {}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    }
    o
}

/// `lab run spec --out out --strata-bench bench`, then `extra`.
pub fn run_with(spec: &Path, out: &Path, bench: &str, extra: &[&str]) -> Output {
    let mut args = vec![
        "run",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--strata-bench",
        bench,
        // The settle step (sync, drop the page cache) matters for real
        // benchmarks, not for the fake bench's fixed figures.
        "--no-settle",
    ];
    args.extend(extra);
    lab(&args)
}

/// [`run_with`] the fake bench as Strata's; returns the study's output
/// directory (`out/{name}-quick`).
pub fn run_fake(spec: &Path, out: &Path, extra: &[&str]) -> PathBuf {
    run_with(spec, out, &fake_bench(), extra);
    let name = spec.file_stem().unwrap().to_str().unwrap();
    out.join(format!("{name}-quick"))
}

/// Asserts that `text` contains `part`, showing `text` when it does not.
pub fn assert_contains(text: &str, part: &str) {
    assert!(text.contains(part), "{part:?} not in:\n{text}");
}

/// A file's text, panicking with its path.
pub fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The rows of a `results.jsonl`.
pub fn rows(path: &Path) -> Vec<ResultRow> {
    strata_lab::data::results::read_jsonl(path).unwrap()
}

/// Asserts that `path` is a PNG file.
pub fn assert_png(path: &Path) {
    let png = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{}", path.display());
}

/// The text nodes of an SVG file, trimmed (parsing it checks it is valid).
pub fn svg_texts(path: &Path) -> Vec<String> {
    let svg = read(path);
    let doc = roxmltree::Document::parse(&svg).expect("valid SVG");
    doc.descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text())
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect()
}

/// Compares `got` with the golden file `testdata/golden/{name}`; with
/// `STRATA_UPDATE_GOLDEN` set, writes `got` there first.
pub fn assert_golden(name: &str, got: &str) {
    let golden = crate_dir().join("testdata/golden").join(name);
    if std::env::var_os("STRATA_UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, got).unwrap();
    }
    let want = std::fs::read_to_string(&golden)
        .expect("golden file (regenerate with STRATA_UPDATE_GOLDEN=1)");
    assert_eq!(got, want, "differs from {}", golden.display());
}

/// The tiny study's stored rows (`testdata/report/tiny-quick`) copied into
/// a new temporary study directory, its report written by `lab report`;
/// returns the temporary directory (kept alive by the caller) and the
/// study directory.
pub fn tiny_report() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let sdir = d.path().join("tiny-quick");
    std::fs::create_dir(&sdir).unwrap();
    let stored = crate_dir().join("testdata/report/tiny-quick");
    for f in ["meta.json", "study.toml", "results.jsonl"] {
        std::fs::copy(stored.join(f), sdir.join(f)).unwrap();
    }
    lab(&["report", sdir.to_str().unwrap()]);
    (d, sdir)
}
