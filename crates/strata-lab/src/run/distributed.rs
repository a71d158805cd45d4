//! `lab plan` (job list for GNU parallel / Slurm / Kubernetes), `lab run-one`
//! (one job by index) and `lab collect` (merge result directories).

use std::path::{Path, PathBuf};

use crate::run::engines::resolve_engines;
use crate::run::host::{git_commit, host_info};
use crate::run::layout::{merge, read_meta, study_dir, study_dirs, write_meta, Meta};
use crate::run::options::RunOptions;
use crate::run::process::shell_join;
use crate::run::runner::run_job;
use crate::spec::model::Plan;

/// One shell command per job.
pub(crate) fn plan_lines(
    plan: &Plan,
    spec_path: &Path,
    opts: &RunOptions,
    lab_cmd: &[String],
) -> Vec<String> {
    let spec = std::fs::canonicalize(spec_path).unwrap_or_else(|_| spec_path.to_path_buf());
    let out = std::path::absolute(&opts.out).unwrap_or_else(|_| opts.out.clone());
    plan.jobs
        .iter()
        .map(|j| {
            let mut a = lab_cmd.to_vec();
            a.extend([
                "run-one".into(),
                spec.display().to_string(),
                "--scale".into(),
                plan.scale.clone(),
            ]);
            a.extend([
                "--index".into(),
                j.index.to_string(),
                "--out".into(),
                out.display().to_string(),
            ]);
            a.extend([
                "--repeats".into(),
                plan.repeats.to_string(),
                "--engines".into(),
                plan.engines.join(","),
            ]);
            if let Some(t) = plan.timeout {
                a.extend(["--timeout".into(), t.as_secs().to_string()]);
            }
            for (k, v) in &plan.set {
                a.extend(["--set".into(), format!("{k}={v}")]);
            }
            for f in &plan.only {
                a.extend(["--only".into(), f.clone()]);
            }
            if let Some(s) = &opts.strata_bench {
                a.extend(["--strata-bench".into(), s.clone()]);
            }
            if let Some(s) = &opts.rocksdb_bench {
                a.extend(["--rocksdb-bench".into(), s.clone()]);
            }
            if let Some(s) = &opts.leveldb_bench {
                a.extend(["--leveldb-bench".into(), s.clone()]);
            }
            shell_join(&a)
        })
        .collect()
}

/// Runs job `index` of the plan, writing its own result file.
pub(crate) fn run_one(plan: &Plan, index: usize, opts: &RunOptions) -> anyhow::Result<PathBuf> {
    let job = plan.jobs.get(index).ok_or_else(|| {
        anyhow::anyhow!("job index {index} out of range (0..{})", plan.jobs.len())
    })?;
    let sdir = study_dir(&opts.out, plan);
    std::fs::create_dir_all(&sdir)?;
    let (engines, notes) = resolve_engines(std::slice::from_ref(&job.engine), opts, &sdir);
    if !sdir.join("meta.json").exists() {
        let meta = Meta::of(plan, engines.clone(), notes.clone());
        let tmp = sdir.join(format!(".meta-{index}"));
        std::fs::create_dir_all(&tmp)?;
        write_meta(&tmp, plan, &meta)?;
        for f in ["meta.json", "study.toml"] {
            std::fs::rename(tmp.join(f), sdir.join(f))?;
        }
        let _ = std::fs::remove_dir_all(&tmp);
    }
    let eng = engines.first().ok_or_else(|| notes.join(" "));
    run_job(plan, job, eng, &sdir, &host_info(&sdir), &git_commit())?;
    Ok(sdir)
}

fn copy_dir(from: &Path, to: &Path) -> anyhow::Result<()> {
    std::fs::create_dir_all(to)?;
    for e in std::fs::read_dir(from)? {
        let e = e?;
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()))?;
        } else {
            std::fs::copy(&p, to.join(e.file_name()))?;
        }
    }
    Ok(())
}

/// Copies the run directories of `from` (a study's `runs`) into `to`.
/// A run whose directory name is already there is skipped when its
/// `result.jsonl` is identical (the same part collected twice). When it
/// differs, it is another run of the same engine, cell and repeat: with
/// `pool` it becomes the next free repeat of that engine and cell (its
/// rows renumbered), so that separate runs of one study pool their
/// repeats; without, collecting it is an error naming the run, since one of
/// the two would be lost. Returns the largest repeat count of any engine
/// and cell in `to`.
fn copy_runs(from: &Path, to: &Path, pool: bool) -> anyhow::Result<usize> {
    std::fs::create_dir_all(to)?;
    let mut names: Vec<_> = std::fs::read_dir(from)?
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in names {
        let src = from.join(&name);
        let dst = to.join(&name);
        if !dst.exists() {
            copy_dir(&src, &dst)?;
            continue;
        }
        let rows = |d: &Path| std::fs::read(d.join("result.jsonl")).unwrap_or_default();
        if rows(&src) == rows(&dst) {
            continue;
        }
        let Some((prefix, _)) = name.rsplit_once("__r") else {
            anyhow::bail!(
                "run directory {} is not named ENGINE__CELL__rN",
                src.display()
            );
        };
        if !pool {
            anyhow::bail!(
                "run {name} is in two of the collected directories with different results ({} and {}); pass --pool to keep both as separate repeats",
                src.display(),
                dst.display()
            );
        }
        let next = repeats_of(to, prefix);
        let renamed = to.join(format!("{prefix}__r{next}"));
        copy_dir(&src, &renamed)?;
        renumber(&renamed.join("result.jsonl"), next)?;
    }
    let mut prefixes: Vec<String> = std::fs::read_dir(to)?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.rsplit_once("__r").map(|(p, _)| p.to_string())
        })
        .collect();
    prefixes.sort();
    prefixes.dedup();
    Ok(prefixes
        .iter()
        .map(|p| repeats_of(to, p))
        .max()
        .unwrap_or(0))
}

/// One more than the highest repeat number among `dir`'s runs named
/// `{prefix}__rN` (0 if none).
fn repeats_of(dir: &Path, prefix: &str) -> usize {
    std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            let (p, r) = n.rsplit_once("__r")?;
            (p == prefix).then(|| r.parse::<usize>().ok()).flatten()
        })
        .map(|r| r + 1)
        .max()
        .unwrap_or(0)
}

/// Sets the `repeat` of every row of a run's `result.jsonl`.
fn renumber(path: &Path, repeat: usize) -> anyhow::Result<()> {
    let text = std::fs::read_to_string(path)?;
    let mut out = String::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let mut v: serde_json::Value = serde_json::from_str(line)
            .map_err(|e| anyhow::anyhow!("{}: not a result row: {e}", path.display()))?;
        v["repeat"] = serde_json::json!(repeat);
        out.push_str(&serde_json::to_string(&v)?);
        out.push('\n');
    }
    std::fs::write(path, out)?;
    Ok(())
}

/// Merges the study directories found under `dirs` into `out`; returns the
/// merged directories (`lab collect` then reports on each).
/// With `pool`, runs that collide (separate runs of the same study) are
/// kept as extra repeats; see [`copy_runs`].
pub(crate) fn collect(dirs: &[PathBuf], out: &Path, pool: bool) -> anyhow::Result<Vec<PathBuf>> {
    let mut merged = Vec::new();
    for d in dirs {
        let found = study_dirs(d);
        if found.is_empty() {
            anyhow::bail!(
                "{}: no study results to collect (no directory with meta.json at or under it)",
                d.display()
            );
        }
        for sd in found {
            let name = sd.file_name().map(|n| n.to_os_string()).unwrap_or_default();
            let target = out.join(&name);
            std::fs::create_dir_all(target.join("runs"))?;
            let meta = read_meta(&sd)?;
            let mut m = read_meta(&target).unwrap_or_else(|_| Meta {
                engines_run: Vec::new(),
                notes: Vec::new(),
                ..meta.clone()
            });
            for e in meta.engines_run {
                if !m.engines_run.contains(&e) {
                    m.engines_run.push(e);
                }
            }
            for n in meta.notes {
                if !m.notes.contains(&n) {
                    m.notes.push(n);
                }
            }
            // Cells: the union of what the parts ran (no filter = every cell).
            if meta.only.is_empty() {
                m.only.clear();
            } else if !m.only.is_empty() {
                for f in meta.only {
                    if !m.only.contains(&f) {
                        m.only.push(f);
                    }
                }
            }
            if sd.join("runs").exists()
                && std::fs::canonicalize(&sd)? != std::fs::canonicalize(&target)?
            {
                let most = copy_runs(&sd.join("runs"), &target.join("runs"), pool)?;
                m.repeats = m.repeats.max(u32::try_from(most).unwrap_or(u32::MAX));
            }
            std::fs::write(target.join("meta.json"), serde_json::to_string_pretty(&m)?)?;
            std::fs::copy(sd.join("study.toml"), target.join("study.toml"))?;
            if !merged.contains(&target) {
                merged.push(target);
            }
        }
    }
    for t in &merged {
        merge(t)?;
    }
    Ok(merged)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run directory with one result row of the given repeat and figure.
    fn run(dir: &Path, name: &str, repeat: usize, ops: u64) {
        let d = dir.join(name);
        std::fs::create_dir_all(&d).unwrap();
        let row = serde_json::json!({"engine": "strata", "repeat": repeat, "ops_sec": ops});
        std::fs::write(d.join("result.jsonl"), format!("{row}\n")).unwrap();
        std::fs::write(d.join("step0.stdout"), "out").unwrap();
    }

    fn repeat_of(dir: &Path) -> u64 {
        let text = std::fs::read_to_string(dir.join("result.jsonl")).unwrap();
        let v: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
        v["repeat"].as_u64().unwrap()
    }

    /// A missing or empty directory once merged nothing and exited 0.
    #[test]
    fn collecting_a_directory_without_results_is_an_error() {
        let t = tempfile::tempdir().unwrap();
        let out = t.path().join("out");
        for d in [t.path().join("missing"), t.path().to_path_buf()] {
            let e = collect(std::slice::from_ref(&d), &out, false)
                .unwrap_err()
                .to_string();
            assert!(e.contains("no study results to collect"), "{e}");
        }
    }

    #[test]
    fn colliding_runs_are_refused_or_pooled_as_new_repeats() {
        let t = tempfile::tempdir().unwrap();
        let (a, b, out) = (t.path().join("a"), t.path().join("b"), t.path().join("out"));
        for r in 0..2 {
            run(&a, &format!("strata__x_1__r{r}"), r, 100 + r as u64);
            run(&b, &format!("strata__x_1__r{r}"), r, 200 + r as u64);
        }
        run(&b, "strata__x_2__r0", 0, 300);
        assert_eq!(copy_runs(&a, &out, false).unwrap(), 2);
        // The same part again: identical, skipped.
        assert_eq!(copy_runs(&a, &out, false).unwrap(), 2);
        // Another run of the same cells: refused without --pool, naming it.
        let e = copy_runs(&b, &out, false).unwrap_err().to_string();
        assert!(e.contains("strata__x_1__r0") && e.contains("--pool"), "{e}");
        // With --pool its repeats become 2 and 3; the new cell keeps r0.
        let out = t.path().join("pooled");
        copy_runs(&a, &out, true).unwrap();
        assert_eq!(copy_runs(&b, &out, true).unwrap(), 4);
        for (name, repeat) in [
            ("strata__x_1__r0", 0),
            ("strata__x_1__r1", 1),
            ("strata__x_1__r2", 2),
            ("strata__x_1__r3", 3),
            ("strata__x_2__r0", 0),
        ] {
            assert_eq!(repeat_of(&out.join(name)), repeat, "{name}");
        }
        assert!(out.join("strata__x_1__r3/step0.stdout").exists());
    }
}
