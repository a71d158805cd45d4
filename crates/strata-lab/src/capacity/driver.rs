//! Running a capacity search: per engine and configuration, the
//! closed-loop probe, then the runs the search asks for, each logged, run
//! as a study job with the mix paced and sampled, and judged.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::capacity::samples::read_mix;
use crate::capacity::search::{self, Next, Obs, Params};
use crate::capacity::slo::{failed_run, judge, Judgement};
use crate::capacity::spec::{Config, LoadedCapacity};
use crate::capacity::trials::{self, Trial, JUDGEMENT_FILE, MIX_FILE};
use crate::data::results::HostInfo;
use crate::run::engines::{resolve_engines, EngineCmd};
use crate::run::host::{git_commit, host_info};
use crate::run::hygiene::Settle;
use crate::run::layout::merge;
use crate::run::options::RunOptions;
use crate::run::process::shell_join;
use crate::run::runner::run_job;
use crate::spec::model::{expand_with, Plan};

/// The options of `lab capacity` beyond the output root and bench commands.
#[derive(Clone, Debug, Default)]
pub(crate) struct CapacityOptions {
    /// Scale.
    pub scale: String,
    /// Engines (default: the file's).
    pub engines: Option<Vec<String>>,
    /// Configurations searched (default: the file's).
    pub configs: Option<Vec<String>>,
    /// `--set` overrides of the fixed flags.
    pub set: Vec<(String, String)>,
    /// Per-step time limit in seconds.
    pub timeout: Option<u64>,
}

/// Facts about a capacity directory, kept in `capacity.json`.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct CapacityMeta {
    /// The capacity file's name.
    pub capacity: String,
    /// Scale.
    pub scale: String,
    /// Engines that ran and how.
    pub engines_run: Vec<EngineCmd>,
    /// Notes for the report.
    pub notes: Vec<String>,
    /// `--set` overrides.
    pub set: Vec<(String, String)>,
    /// The command line.
    pub command: String,
}

/// The capacity directory under `out`.
pub(crate) fn capacity_dir(out: &Path, c: &LoadedCapacity, scale: &str) -> PathBuf {
    out.join(format!("capacity-{}-{scale}", c.spec.name))
}

/// Reads `capacity.json`.
pub(crate) fn read_meta(dir: &Path) -> anyhow::Result<CapacityMeta> {
    let p = dir.join("capacity.json");
    let t = std::fs::read_to_string(&p).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))?;
    serde_json::from_str(&t).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))
}

/// The plan the runs are jobs of (the file as a study without axes).
pub(crate) fn plan_of(c: &LoadedCapacity, o: &CapacityOptions) -> anyhow::Result<Plan> {
    let engines = o.engines.clone().unwrap_or_else(|| c.spec.engines.clone());
    let mut p = expand_with(&c.as_study(), &o.scale, Some(1), Some(engines), &o.set)?;
    p.timeout = o.timeout.map(std::time::Duration::from_secs);
    Ok(p)
}

/// The live data of a configuration: num x (key_size + value_size) of its
/// mix's flags (db_bench's defaults 16 and 100 when unset).
pub(crate) fn live_bytes(plan: &Plan, flags: &BTreeMap<String, String>) -> f64 {
    let mut f = plan.fixed.clone();
    f.extend(flags.clone());
    let get = |k: &str, d: f64| f.get(k).and_then(|v| v.parse::<f64>().ok()).unwrap_or(d);
    get("num", 1_000_000.0) * (get("key_size", 16.0) + get("value_size", 100.0))
}

/// The plan with the mix step (the last) paced at `rate` (closed loop
/// without one), sampled every second for `seconds`, and reporting JSON
/// to `report` and db_bench's per-second CSV beside it (not in the
/// working directory, where db_bench's default `report.csv` would go).
fn paced(plan: &Plan, rate: Option<f64>, seconds: u64, report: &Path) -> Plan {
    let mut p = plan.clone();
    if let Some(step) = p.loaded.spec.steps.last_mut() {
        let f = &mut step.get_mut().flags;
        let mut set = |k: &str, v: toml::Value| {
            f.insert(k.to_string(), v);
        };
        set("report_interval_seconds", toml::Value::Integer(1));
        set("duration", toml::Value::Integer(seconds as i64));
        set(
            "json_report",
            toml::Value::String(report.display().to_string()),
        );
        set(
            "report_file",
            toml::Value::String(report.with_extension("csv").display().to_string()),
        );
        if let Some(r) = rate {
            set("target_ops_per_sec", toml::Value::Float(r));
        }
    }
    p
}

struct Ctx {
    dir: PathBuf,
    cap: LoadedCapacity,
    plan: Plan,
    engines: Vec<EngineCmd>,
    host: HostInfo,
    git: Option<String>,
    warmup: u64,
    seconds: u64,
    settle: Settle,
}

/// Runs one logged trial and writes its judgement.
fn run_trial(c: &Ctx, t: &Trial, config: &Config) -> anyhow::Result<Judgement> {
    let job = t.job(&config.flags);
    let rdir = t.dir(&c.dir);
    let report = std::path::absolute(rdir.join(MIX_FILE))?;
    let plan = paced(&c.plan, t.rate, c.seconds, &report);
    let eng = c
        .engines
        .iter()
        .find(|e| e.engine == t.engine)
        .ok_or_else(|| "engine unavailable".to_string());
    // Each run starts from a settled host: the previous run (a closed-loop
    // probe writes gigabytes) leaves dirty pages whose writeback would
    // otherwise land in this run's judged window as pauses.
    if let Some(w) = c.settle.run() {
        eprintln!("note: {w}");
    }
    let rows = run_job(&plan, &job, eng, &c.dir, &c.host, &c.git)?;
    let j = match rows.iter().find(|r| !r.ok) {
        Some(r) => failed_run(format!(
            "step {} failed: {}",
            r.step,
            r.error.clone().unwrap_or_default()
        )),
        None => match read_mix(&report) {
            Ok(b) => judge(
                &b,
                &c.cap.spec.slo,
                c.warmup as f64,
                live_bytes(&c.plan, &config.flags),
            ),
            Err(e) => failed_run(format!("no JSON report of the mix: {e}")),
        },
    };
    std::fs::write(rdir.join(JUDGEMENT_FILE), serde_json::to_string_pretty(&j)?)?;
    let rate = t
        .rate
        .map(|r| format!("{r} ops/s"))
        .unwrap_or_else(|| "closed loop".into());
    let what = if t.rate.is_none() {
        format!("{:.0} ops/s", j.window_ops_per_sec)
    } else if j.pass {
        "pass".into()
    } else {
        let b: Vec<&str> = j.breaches.iter().map(|b| b.what.as_str()).collect();
        format!("fail: {}", b.join("; "))
    };
    eprintln!(
        "[{}] {} {} at {rate} ({}): {what}",
        t.index, t.engine, t.config, t.why
    );
    Ok(j)
}

/// The closed-loop probe's rate of `engine`/`config`: its window's mean
/// throughput (`None`: the probe has not run or measured nothing).
pub(crate) fn probe_rate(dir: &Path, log: &[Trial], engine: &str, config: &str) -> Option<f64> {
    log.iter()
        .find(|t| t.engine == engine && t.config == config && t.rate.is_none())
        .and_then(|t| t.judgement(dir))
        .map(|j| j.window_ops_per_sec)
        .filter(|r| *r > 0.0)
}

/// The paced runs of `engine`/`config` that ran, as the search reads them.
pub(crate) fn observations(dir: &Path, log: &[Trial], engine: &str, config: &str) -> Vec<Obs> {
    log.iter()
        .filter(|t| t.engine == engine && t.config == config)
        .filter_map(|t| {
            Some(Obs {
                rate: t.rate?,
                pass: t.judgement(dir)?.pass,
            })
        })
        .collect()
}

fn log_trial(
    dir: &Path,
    engine: &str,
    config: &str,
    rate: Option<f64>,
    why: String,
) -> anyhow::Result<Trial> {
    let log = trials::read(dir)?;
    let repeat = log
        .iter()
        .filter(|t| t.engine == engine && t.config == config && t.rate == rate)
        .count() as u32;
    let t = Trial {
        index: log.len(),
        engine: engine.to_string(),
        config: config.to_string(),
        rate,
        repeat,
        why,
    };
    trials::append(dir, &t)?;
    Ok(t)
}

/// Runs the next run of one engine and configuration's search; false
/// when its search is done.
fn step_one(c: &Ctx, engine: &str, config: &Config) -> anyhow::Result<bool> {
    let params = Params::from(&c.cap.spec.search);
    {
        let log = trials::read(&c.dir)?;
        // A logged run without a judgement (an interrupted search) runs first.
        if let Some(t) = log.iter().find(|t| {
            t.engine == engine && t.config == config.name && t.judgement(&c.dir).is_none()
        }) {
            run_trial(c, t, config)?;
            return Ok(true);
        }
        if !log
            .iter()
            .any(|t| t.engine == engine && t.config == config.name && t.rate.is_none())
        {
            let t = log_trial(
                &c.dir,
                engine,
                &config.name,
                None,
                "closed-loop probe".into(),
            )?;
            run_trial(c, &t, config)?;
            return Ok(true);
        }
        let Some(probe) = probe_rate(&c.dir, &log, engine, &config.name) else {
            eprintln!(
                "note: {engine} {}: the closed-loop probe measured nothing; no search",
                config.name
            );
            return Ok(false);
        };
        match search::next(
            probe,
            &observations(&c.dir, &log, engine, &config.name),
            &params,
        ) {
            Next::Done => Ok(false),
            Next::Run { rate, why } => {
                let t = log_trial(&c.dir, engine, &config.name, Some(rate), why)?;
                run_trial(c, &t, config)?;
                Ok(true)
            }
        }
    }
}

/// The configurations `o` selects from the file's, in the file's order;
/// an unknown name is an error naming it.
pub(crate) fn selected_configs(
    cap: &LoadedCapacity,
    o: &CapacityOptions,
) -> anyhow::Result<Vec<Config>> {
    let all = cap.configs();
    let Some(names) = &o.configs else {
        return Ok(all);
    };
    for n in names {
        if !all.iter().any(|c| &c.name == n) {
            let known: Vec<&str> = all.iter().map(|c| c.name.as_str()).collect();
            anyhow::bail!(
                "--configs: no configuration `{n}` in {} (it has: {})",
                cap.spec.name,
                known.join(", ")
            );
        }
    }
    Ok(all
        .into_iter()
        .filter(|c| names.contains(&c.name))
        .collect())
}

/// Runs the whole search (resuming from the log when one exists); returns
/// the capacity directory.
pub(crate) fn run(
    cap: &LoadedCapacity,
    o: &CapacityOptions,
    ro: &RunOptions,
) -> anyhow::Result<PathBuf> {
    let plan = plan_of(cap, o)?;
    let configs = selected_configs(cap, o)?;
    let w = cap
        .spec
        .window
        .get(&o.scale)
        .ok_or_else(|| anyhow::anyhow!("no `[window.{}]`", o.scale))?;
    let dir = capacity_dir(&ro.out, cap, &o.scale);
    std::fs::create_dir_all(&dir)?;
    crate::run::process::check_disk(&dir, plan.max_disk_need())?;
    let (engines, notes) = resolve_engines(&plan.engines, ro, &dir);
    if engines.is_empty() {
        anyhow::bail!("no engine available: {}", notes.join(" "));
    }
    for n in &notes {
        eprintln!("note: {n}");
    }
    let settle = Settle::available(ro.settle);
    let mut notes = notes;
    notes.push(format!("Settling the host: {}.", settle.describe()));
    let meta = CapacityMeta {
        capacity: cap.spec.name.clone(),
        scale: o.scale.clone(),
        engines_run: engines.clone(),
        notes,
        set: o.set.clone(),
        command: shell_join(&std::env::args().collect::<Vec<_>>()),
    };
    std::fs::write(
        dir.join("capacity.json"),
        serde_json::to_string_pretty(&meta)?,
    )?;
    std::fs::write(dir.join("capacity.toml"), &cap.text)?;
    let c = Ctx {
        host: host_info(&dir),
        git: git_commit(),
        dir,
        cap: cap.clone(),
        plan,
        engines,
        warmup: w.warmup_seconds,
        seconds: w.warmup_seconds + w.window_seconds,
        settle,
    };
    // The engines' searches advance in turn, one run each, so that a
    // drift of the machine over the hours a search takes falls on every
    // engine alike rather than on whichever ran last.
    let mut open: Vec<(String, Config)> = configs
        .iter()
        .flat_map(|config| c.engines.iter().map(|e| (e.engine.clone(), config.clone())))
        .collect();
    while !open.is_empty() {
        let mut still = Vec::new();
        for (e, config) in open {
            if step_one(&c, &e, &config)? {
                still.push((e, config));
            }
        }
        open = still;
    }
    merge(&c.dir)?;
    Ok(c.dir)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capacity::spec::{parse, tests::SPEC};

    #[test]
    fn the_mix_alone_is_paced_sampled_and_reported() {
        let c = parse(SPEC, Path::new("c.toml")).unwrap();
        let o = CapacityOptions {
            scale: "quick".into(),
            ..CapacityOptions::default()
        };
        let plan = plan_of(&c, &o).unwrap();
        let p = paced(&plan, Some(1500.0), 6, Path::new("/r/mix.json"));
        let t = Trial {
            index: 3,
            engine: "strata".into(),
            config: "small".into(),
            rate: Some(1500.0),
            repeat: 0,
            why: "bisect".into(),
        };
        let job = t.job(&c.configs()[0].flags);
        let load = p.job_step_flags(&job, 0);
        let mix = p.job_step_flags(&job, 1);
        assert!(!load.contains_key("target_ops_per_sec"), "{load:?}");
        assert!(!load.contains_key("json_report"), "{load:?}");
        assert_eq!(mix["target_ops_per_sec"], "1500");
        assert_eq!(mix["report_interval_seconds"], "1");
        assert_eq!(mix["duration"], "6");
        assert_eq!(mix["json_report"], "/r/mix.json");
        assert_eq!(mix["report_file"], "/r/mix.csv");
        assert_eq!(mix["write_buffer_size"], "1048576");
        assert_eq!(live_bytes(&plan, &c.configs()[0].flags), 1000.0 * 116.0);
        let probe = paced(&plan, None, 6, Path::new("/r/mix.json"));
        assert!(!probe
            .job_step_flags(&job, 1)
            .contains_key("target_ops_per_sec"));
    }

    #[test]
    fn configs_select_in_file_order_and_an_unknown_name_is_named() {
        let c = parse(SPEC, Path::new("c.toml")).unwrap();
        let pick = |names: Option<Vec<&str>>| {
            let o = CapacityOptions {
                configs: names.map(|n| n.into_iter().map(String::from).collect()),
                ..CapacityOptions::default()
            };
            selected_configs(&c, &o).map(|v| v.into_iter().map(|c| c.name).collect::<Vec<_>>())
        };
        assert_eq!(pick(None).unwrap(), ["small", "large"]);
        assert_eq!(
            pick(Some(vec!["large", "small"])).unwrap(),
            ["small", "large"]
        );
        assert_eq!(pick(Some(vec!["large"])).unwrap(), ["large"]);
        let e = pick(Some(vec!["huge"])).unwrap_err().to_string();
        assert!(e.contains("`huge`") && e.contains("small, large"), "{e}");
    }
}
