//! `lab plan` (job list for GNU parallel / Slurm / Kubernetes), `lab run-one`
//! (one job by index) and `lab collect` (merge result directories).

use std::path::{Path, PathBuf};

use crate::host::{git_commit, host_info};
use crate::model::Plan;
use crate::runner::{
    merge, read_meta, resolve_engines, run_job, shell_join, study_dir, write_meta, Meta, RunOptions,
};

/// One shell command per job.
pub fn plan_lines(
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
            shell_join(&a)
        })
        .collect()
}

/// Runs job `index` of the plan, writing its own result file.
pub fn run_one(plan: &Plan, index: usize, opts: &RunOptions) -> anyhow::Result<PathBuf> {
    let job = plan.jobs.get(index).ok_or_else(|| {
        anyhow::anyhow!("job index {index} out of range (0..{})", plan.jobs.len())
    })?;
    let sdir = study_dir(&opts.out, plan);
    std::fs::create_dir_all(&sdir)?;
    let (engines, notes) = resolve_engines(std::slice::from_ref(&job.engine), opts, &sdir);
    if !sdir.join("meta.json").exists() {
        let meta = Meta {
            study: plan.loaded.spec.name.clone(),
            scale: plan.scale.clone(),
            repeats: plan.repeats,
            engines_requested: plan.engines.clone(),
            engines_run: engines.clone(),
            notes: notes.clone(),
            set: plan.set.clone(),
            only: plan.only.clone(),
        };
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

/// Merges the study directories found under `dirs` into `out` and reports.
pub fn collect(dirs: &[PathBuf], out: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut merged = Vec::new();
    for d in dirs {
        for sd in crate::report::study_dirs(d) {
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
            std::fs::write(target.join("meta.json"), serde_json::to_string_pretty(&m)?)?;
            std::fs::copy(sd.join("study.toml"), target.join("study.toml"))?;
            if sd.join("runs").exists()
                && std::fs::canonicalize(&sd)? != std::fs::canonicalize(&target)?
            {
                copy_dir(&sd.join("runs"), &target.join("runs"))?;
            }
            if !merged.contains(&target) {
                merged.push(target);
            }
        }
    }
    for t in &merged {
        merge(t)?;
        crate::report::report(t)?;
    }
    Ok(merged)
}
