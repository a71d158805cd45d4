//! The versioned result-row schema and its JSON-lines / CSV files.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::data::metrics::{self, View};

/// Version of [`ResultRow`]; bump on incompatible change.
pub(crate) const SCHEMA_VERSION: u32 = 1;

/// File holding one run's rows (one per step) inside its run directory.
pub(crate) const RUN_FILE: &str = "result.jsonl";

/// One step of one run.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct ResultRow {
    /// Always [`SCHEMA_VERSION`] when written by this version.
    pub schema_version: u32,
    /// Study name.
    pub study: String,
    /// Scale name.
    pub scale: String,
    /// Engine name (`strata`, `rocksdb`).
    pub engine: String,
    /// Engine version string from the bench header (e.g. `RocksDB 7.8.3`).
    pub engine_version: String,
    /// How the engine was run (bench command prefix).
    pub engine_command: String,
    /// Cell id `axis=label,...`.
    pub cell_id: String,
    /// Axis name -> label.
    pub cell: BTreeMap<String, String>,
    /// Cores the run was pinned to.
    pub cpus: Option<u32>,
    /// Repeat number.
    pub repeat: u32,
    /// Job index in the plan.
    pub job_index: usize,
    /// Step name.
    pub step: String,
    /// Step index.
    pub step_index: usize,
    /// Full command line (shell-quoted).
    pub command: String,
    /// Exit code of the process.
    pub exit_code: i32,
    /// Whether the step succeeded and printed a result line.
    pub ok: bool,
    /// Why it failed.
    pub error: Option<String>,
    /// Wall seconds.
    pub wall_sec: f64,
    /// User CPU seconds.
    pub user_sec: f64,
    /// System CPU seconds.
    pub sys_sec: f64,
    /// Peak RSS (KB).
    pub max_rss_kb: u64,
    /// Unix time the step started.
    pub started_unix: u64,
    /// `git rev-parse HEAD` of the working directory, if any.
    pub git_commit: Option<String>,
    /// Host facts.
    pub host: HostInfo,
    /// Parsed and derived metrics.
    pub metrics: BTreeMap<String, f64>,
    /// Metrics the report's guards withheld (metric -> why), moved out of
    /// `metrics` by the judging stage's guards (`judge::guards::apply`) when a study is loaded for a
    /// report or a comparison; never written, so result files keep the
    /// raw figures.
    #[serde(skip)]
    pub na: BTreeMap<String, String>,
}

/// The machine a run happened on.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct HostInfo {
    /// Host name.
    pub hostname: String,
    /// Online cores.
    pub cores: u32,
    /// Total memory in bytes.
    pub mem_bytes: u64,
    /// Kernel release (`uname -r`).
    pub kernel: String,
    /// CPU model name.
    pub cpu_model: String,
    /// File system type of the output directory (`ext4`, `tmpfs`, ...).
    pub fs_type: String,
}

/// Writes rows as JSON lines.
pub(crate) fn write_jsonl(path: &Path, rows: &[ResultRow]) -> anyhow::Result<()> {
    let tmp = path.with_extension("tmp");
    let mut f = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
    for r in rows {
        serde_json::to_writer(&mut f, r)?;
        f.write_all(b"\n")?;
    }
    f.flush()?;
    drop(f);
    std::fs::rename(&tmp, path)?;
    Ok(())
}

/// Reads JSON lines, gzip-compressed when the name ends in `.gz` (the
/// stored results of docs/results); errors name the file and line.
pub fn read_jsonl(path: &Path) -> anyhow::Result<Vec<ResultRow>> {
    let text = read_text(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let mut rows = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let r: ResultRow = serde_json::from_str(line)
            .map_err(|e| anyhow::anyhow!("{}:{}: {e}", path.display(), i + 1))?;
        if r.schema_version != SCHEMA_VERSION {
            anyhow::bail!(
                "{}:{}: schema_version {} (this lab reads {SCHEMA_VERSION})",
                path.display(),
                i + 1,
                r.schema_version
            );
        }
        rows.push(r);
    }
    Ok(rows)
}

/// A file's text, gunzipped when its name ends in `.gz`.
fn read_text(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    if path.extension().is_some_and(|e| e == "gz") {
        let mut text = String::new();
        flate2::read::GzDecoder::new(std::fs::File::open(path)?).read_to_string(&mut text)?;
        Ok(text)
    } else {
        std::fs::read_to_string(path)
    }
}

/// Writes rows as CSV: fixed columns, then the registry's metrics (every
/// metric of a row is in `results.jsonl`).
pub(crate) fn write_csv(path: &Path, rows: &[ResultRow]) -> anyhow::Result<()> {
    write_csv_to(std::fs::File::create(path)?, rows)
}

/// Writes rows as [`write_csv`] does, to `out`.
pub(crate) fn write_csv_to<W: std::io::Write>(out: W, rows: &[ResultRow]) -> anyhow::Result<()> {
    let mut w = csv::Writer::from_writer(out);
    let mut header: Vec<String> = [
        "schema_version",
        "study",
        "scale",
        "engine",
        "engine_version",
        "cell_id",
        "repeat",
        "step",
        "exit_code",
        "ok",
        "wall_sec",
        "user_sec",
        "sys_sec",
        "max_rss_kb",
        "git_commit",
        "host",
        "cores",
        "fs_type",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    header.extend(metrics::names(View::Csv).iter().map(|s| s.to_string()));
    header.push("command".into());
    w.write_record(&header)?;
    for r in rows {
        let mut rec = vec![
            r.schema_version.to_string(),
            r.study.clone(),
            r.scale.clone(),
            r.engine.clone(),
            r.engine_version.clone(),
            r.cell_id.clone(),
            r.repeat.to_string(),
            r.step.clone(),
            r.exit_code.to_string(),
            r.ok.to_string(),
            format!("{:.3}", r.wall_sec),
            format!("{:.3}", r.user_sec),
            format!("{:.3}", r.sys_sec),
            r.max_rss_kb.to_string(),
            r.git_commit.clone().unwrap_or_default(),
            r.host.hostname.clone(),
            r.host.cores.to_string(),
            r.host.fs_type.clone(),
        ];
        for m in metrics::names(View::Csv) {
            rec.push(r.metrics.get(m).map(|v| v.to_string()).unwrap_or_default());
        }
        rec.push(r.command.clone());
        w.write_record(&rec)?;
    }
    w.flush()?;
    Ok(())
}

/// All run files under `dir/runs/*/result.jsonl`.
pub fn run_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir.join("runs"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join(RUN_FILE))
        .filter(|p| p.exists())
        .collect();
    v.sort();
    v
}

/// Loads a study directory: its run files, else its merged `results.jsonl`.
pub(crate) fn load_dir(dir: &Path) -> anyhow::Result<Vec<ResultRow>> {
    let files = run_files(dir);
    let mut rows = Vec::new();
    if files.is_empty() {
        for merged in ["results.jsonl", "results.jsonl.gz"] {
            let merged = dir.join(merged);
            if merged.exists() {
                return read_jsonl(&merged);
            }
        }
        anyhow::bail!(
            "{}: no results (no runs/*/{RUN_FILE}, results.jsonl or results.jsonl.gz)",
            dir.display()
        );
    }
    for f in files {
        rows.extend(read_jsonl(&f)?);
    }
    rows.sort_by_key(|r| (r.job_index, r.step_index));
    Ok(rows)
}

#[cfg(test)]
pub(crate) fn sample_row() -> ResultRow {
    ResultRow {
        schema_version: SCHEMA_VERSION,
        study: "t".into(),
        scale: "quick".into(),
        engine: "rocksdb".into(),
        engine_version: "RocksDB 7.8.3".into(),
        engine_command: "db_bench".into(),
        cell_id: "value_size=100".into(),
        cell: [("value_size".to_string(), "100".to_string())]
            .into_iter()
            .collect(),
        cpus: None,
        repeat: 0,
        job_index: 0,
        step: "fillrandom".into(),
        step_index: 0,
        command: "db_bench --num=1".into(),
        exit_code: 0,
        ok: true,
        error: None,
        wall_sec: 1.0,
        user_sec: 0.5,
        sys_sec: 0.1,
        max_rss_kb: 1000,
        started_unix: 0,
        git_commit: None,
        host: HostInfo::default(),
        metrics: [("ops_sec".to_string(), 1000.0)].into_iter().collect(),
        na: BTreeMap::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jsonl_round_trip_and_csv() {
        let d = tempfile::tempdir().unwrap();
        let rows = vec![sample_row(), sample_row()];
        let p = d.path().join("r.jsonl");
        write_jsonl(&p, &rows).unwrap();
        assert_eq!(read_jsonl(&p).unwrap(), rows);
        let c = d.path().join("r.csv");
        write_csv(&c, &rows).unwrap();
        let text = std::fs::read_to_string(&c).unwrap();
        assert_eq!(text.lines().count(), 3);
        assert!(text.starts_with("schema_version,study"));
    }

    #[test]
    fn a_study_folder_loads_from_gzipped_results() {
        use std::io::Write;
        let d = tempfile::tempdir().unwrap();
        let rows = vec![sample_row()];
        let plain = d.path().join("plain.jsonl");
        write_jsonl(&plain, &rows).unwrap();
        let gz = d.path().join("results.jsonl.gz");
        let mut e = flate2::write::GzEncoder::new(
            std::fs::File::create(&gz).unwrap(),
            flate2::Compression::default(),
        );
        e.write_all(&std::fs::read(&plain).unwrap()).unwrap();
        e.finish().unwrap();
        std::fs::remove_file(&plain).unwrap();
        assert_eq!(load_dir(d.path()).unwrap(), rows);
        // A corrupt archive is an error naming it, not a panic.
        std::fs::write(&gz, b"\x1f\x8b not gzip").unwrap();
        let e = load_dir(d.path()).unwrap_err().to_string();
        assert!(e.contains("results.jsonl.gz"), "{e}");
    }

    #[test]
    fn wrong_schema_or_garbage_names_line() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.jsonl");
        let mut r = sample_row();
        r.schema_version = 99;
        std::fs::write(&p, format!("{}\n", serde_json::to_string(&r).unwrap())).unwrap();
        assert!(read_jsonl(&p)
            .unwrap_err()
            .to_string()
            .contains("r.jsonl:1: schema_version 99"));
        std::fs::write(&p, "\n{garbage").unwrap();
        assert!(read_jsonl(&p)
            .unwrap_err()
            .to_string()
            .contains("r.jsonl:2:"));
    }
}
