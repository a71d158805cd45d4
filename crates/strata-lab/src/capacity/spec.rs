//! The capacity file's schema (TOML) and its checks: the workload (steps
//! and fixed flags, as in a study; the last step is the measured mix), the
//! configurations compared, the objective, the window per scale and the
//! search's settings.
//!
//! The schema is documented in `docs/lab.md` ("Capacity").

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::spec::study::{flag_value, FlagMap, LoadedSpec, Scale, Step};

/// A whole capacity file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapacitySpec {
    /// Short name (used in directory names), e.g. `ycsb_a_1kb`.
    pub name: String,
    /// Human title.
    pub title: String,
    /// What the workload stands for.
    pub workload: String,
    /// Engines compared.
    #[serde(default = "default_engines")]
    pub engines: Vec<String>,
    /// Disk space factor: need = num x (key_size + value_size) x factor.
    #[serde(default = "default_disk_factor")]
    pub disk_factor: f64,
    /// Flags passed to every run.
    #[serde(default)]
    pub flags: FlagMap,
    /// Benchmark steps run in order on a fresh DB for each run; the last
    /// one is the mix run at the target rate and judged.
    #[serde(rename = "step")]
    pub steps: Vec<Spanned<Step>>,
    /// Named scales (`quick`, `full`).
    pub scales: BTreeMap<String, Spanned<Scale>>,
    /// The warm-up and the judged window of the mix, per scale.
    pub window: BTreeMap<String, Window>,
    /// The configurations compared (default: one, the engine's defaults).
    #[serde(default, rename = "config")]
    pub configs: Vec<ConfigSpec>,
    /// The objective every second of the window must meet.
    pub slo: Slo,
    /// The search's settings.
    #[serde(default)]
    pub search: SearchSpec,
}

fn default_engines() -> Vec<String> {
    vec!["strata".into()]
}
fn default_disk_factor() -> f64 {
    3.0
}

/// The mix's timing at one scale: it runs `warmup_seconds +
/// window_seconds` (db_bench's `--duration`), and the intervals ending
/// after the warm-up are judged.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Window {
    /// Seconds run before the judged window (not judged).
    pub warmup_seconds: u64,
    /// Seconds judged.
    pub window_seconds: u64,
}

/// One configuration compared: a name and the flags it sets.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigSpec {
    /// Short name (`wb32m`), used in run names and the report.
    pub name: String,
    /// What it stands for.
    #[serde(default)]
    pub note: String,
    /// The flags it sets over the fixed flags.
    #[serde(default)]
    pub flags: FlagMap,
}

/// The service-level objective. Every limit is optional; at least one
/// is given. Latencies count from each operation's scheduled start (the
/// bench corrects coordinated omission under a target rate).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Slo {
    /// Largest P99 (microseconds) of each judged operation kind in every
    /// one-second interval of the window.
    #[serde(default)]
    pub p99_us: Option<f64>,
    /// Largest P99.9 (microseconds), likewise.
    #[serde(default)]
    pub p999_us: Option<f64>,
    /// The operation kinds the latency limits apply to (`read`, `update`,
    /// `write`); empty: every kind the mix reports.
    #[serde(default)]
    pub ops: Vec<String>,
    /// Longest stall (ms): the larger of the longest gap between two
    /// operations of a thread and the engine's stall time, in any interval.
    #[serde(default)]
    pub max_stall_ms: Option<f64>,
    /// Largest peak disk use of the mix as a multiple of the live data
    /// (num x (key_size + value_size)).
    #[serde(default)]
    pub max_space_amp: Option<f64>,
    /// Largest peak resident memory of the bench process (MB).
    #[serde(default)]
    pub max_rss_mb: Option<f64>,
    /// How far (ms) the paced operation stream may lag its schedule, at any
    /// interval of the window and at the end, before the run counts as
    /// fallen behind.
    #[serde(default = "default_behind")]
    pub behind_ms: f64,
}

fn default_behind() -> f64 {
    1000.0
}

/// How the search brackets and refines the sustainable rate.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SearchSpec {
    /// Stop bisecting when the lowest failing rate is within this fraction
    /// above the highest passing one.
    #[serde(default = "default_tolerance")]
    pub tolerance: f64,
    /// Runs at each boundary rate; a rate passes when most of its runs do
    /// (more than half).
    #[serde(default = "default_repeats")]
    pub repeats: u32,
    /// The lowest rate tried, as a fraction of the closed-loop probe's.
    #[serde(default = "default_floor")]
    pub floor: f64,
    /// Paced runs at most per engine and configuration.
    #[serde(default = "default_max_runs")]
    pub max_runs: usize,
}

impl Default for SearchSpec {
    fn default() -> Self {
        SearchSpec {
            tolerance: default_tolerance(),
            repeats: default_repeats(),
            floor: default_floor(),
            max_runs: default_max_runs(),
        }
    }
}

fn default_tolerance() -> f64 {
    0.05
}
fn default_repeats() -> u32 {
    3
}
fn default_floor() -> f64 {
    0.05
}
fn default_max_runs() -> usize {
    30
}

/// A loaded capacity file.
#[derive(Clone, Debug)]
pub struct LoadedCapacity {
    /// The spec.
    pub spec: CapacitySpec,
    /// Its path.
    pub path: PathBuf,
    /// Its text.
    pub text: String,
}

/// Reads and checks a capacity file: a path, or a name under
/// `studies/capacity/` (e.g. `ycsb_a_1kb`).
pub(crate) fn load(arg: &str) -> anyhow::Result<LoadedCapacity> {
    let path = crate::spec::resolve_in(arg, "studies/capacity");
    parse(&crate::spec::read_text(&path, "capacity file")?, &path)
}

/// Parses and checks capacity text; errors name `file:line` and the field.
pub(crate) fn parse(text: &str, path: &Path) -> anyhow::Result<LoadedCapacity> {
    let spec: CapacitySpec = crate::spec::from_toml(text, path)?;
    let c = LoadedCapacity {
        spec,
        path: path.to_path_buf(),
        text: text.to_string(),
    };
    c.check()?;
    Ok(c)
}

/// A configuration as the runs use it: its name and its flags as strings.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Config {
    /// Name.
    pub name: String,
    /// Flags over the fixed flags.
    pub flags: BTreeMap<String, String>,
}

impl LoadedCapacity {
    /// The configurations compared (one named `default` when none is given).
    pub(crate) fn configs(&self) -> Vec<Config> {
        if self.spec.configs.is_empty() {
            return vec![Config {
                name: "default".into(),
                flags: BTreeMap::new(),
            }];
        }
        self.spec
            .configs
            .iter()
            .map(|c| Config {
                name: c.name.clone(),
                flags: c
                    .flags
                    .iter()
                    .filter_map(|(k, v)| Some((k.clone(), flag_value(v)?)))
                    .collect(),
            })
            .collect()
    }

    /// The measured step's label (the last step).
    pub(crate) fn mix_step(&self) -> String {
        self.spec
            .steps
            .last()
            .map(|s| s.get_ref().label())
            .unwrap_or_default()
    }

    /// The workload as a study with no axes, so that the study runner runs
    /// each (configuration, rate) as a cell.
    pub(crate) fn as_study(&self) -> LoadedSpec {
        crate::spec::study::workload_study!(self)
    }

    /// Every check a capacity file must pass.
    fn check(&self) -> anyhow::Result<()> {
        let s = &self.spec;
        let at = |m: String| anyhow::anyhow!("{}: {m}", self.path.display());
        for e in &s.engines {
            if !crate::spec::validate::ENGINES.contains(&e.as_str()) {
                return Err(at(format!(
                    "unknown engine `{e}` (known: {})",
                    crate::spec::validate::ENGINES.join(", ")
                )));
            }
        }
        if s.steps.is_empty() {
            return Err(at("no `[[step]]`: the last step is the measured mix".into()));
        }
        if s.scales.is_empty() {
            return Err(at("no `[scales.NAME]`".into()));
        }
        for name in s.scales.keys() {
            match s.window.get(name) {
                None => return Err(at(format!("scale `{name}` has no `[window.{name}]`"))),
                Some(w) if w.window_seconds == 0 => {
                    return Err(at(format!(
                        "window `{name}`: `window_seconds` must be positive"
                    )))
                }
                _ => {}
            }
        }
        let mut names: Vec<&str> = s.configs.iter().map(|c| c.name.as_str()).collect();
        names.sort_unstable();
        if let Some(w) = names.windows(2).find(|w| w[0] == w[1]) {
            return Err(at(format!("config `{}` is listed twice", w[0])));
        }
        if let Some(c) = s.configs.iter().find(|c| {
            c.name.is_empty()
                || !c
                    .name
                    .chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || ch == '-' || ch == '.')
        }) {
            return Err(at(format!(
                "config `{}`: a name is letters, digits, `-` and `.`",
                c.name
            )));
        }
        for (k, _) in self.configs().iter().flat_map(|c| c.flags.clone()) {
            if RUN_FLAGS.contains(&k.as_str()) {
                return Err(at(format!("`{k}` is set by the capacity search itself")));
            }
        }
        for k in s.flags.keys() {
            if RUN_FLAGS.contains(&k.as_str()) {
                return Err(at(format!("`{k}` is set by the capacity search itself")));
            }
        }
        let o = &s.slo;
        let limits = [
            o.p99_us,
            o.p999_us,
            o.max_stall_ms,
            o.max_space_amp,
            o.max_rss_mb,
        ];
        if limits.iter().all(Option::is_none) {
            return Err(at("slo: give at least one limit".into()));
        }
        if limits
            .iter()
            .flatten()
            .any(|v| !(v.is_finite() && *v > 0.0))
            || !(o.behind_ms.is_finite() && o.behind_ms >= 0.0)
        {
            return Err(at("slo: limits must be positive numbers".into()));
        }
        let q = &s.search;
        if !(q.tolerance > 0.0 && q.tolerance < 1.0) {
            return Err(at("search: `tolerance` must be within (0, 1)".into()));
        }
        if !(q.floor > 0.0 && q.floor < 1.0) {
            return Err(at("search: `floor` must be within (0, 1)".into()));
        }
        if q.repeats == 0 || q.max_runs < 2 {
            return Err(at(
                "search: `repeats` must be at least 1 and `max_runs` at least 2".into(),
            ));
        }
        Ok(())
    }
}

/// Flags the search sets on the mix step; a file may not set them.
pub(crate) const RUN_FLAGS: &[&str] = &[
    "target_ops_per_sec",
    "ycsb_target_ops_per_sec",
    "report_interval_seconds",
    "json_report",
    "report_file",
    "duration",
];

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) const SPEC: &str = r#"
name = "c"
title = "C"
workload = "load then overwrite"
engines = ["strata", "rocksdb"]
[flags]
num = 1000
value_size = 100
[[step]]
name = "load"
benchmarks = "fillrandom"
[[step]]
name = "mix"
benchmarks = "overwrite"
[scales.quick]
[window.quick]
warmup_seconds = 2
window_seconds = 4
[[config]]
name = "small"
flags = { write_buffer_size = 1048576 }
[[config]]
name = "large"
flags = { write_buffer_size = 67108864 }
[slo]
p99_us = 5000
max_stall_ms = 100
"#;

    fn parse_str(t: &str) -> anyhow::Result<LoadedCapacity> {
        parse(t, Path::new("c.toml"))
    }

    #[test]
    fn reads_configs_window_and_defaults() {
        let c = parse_str(SPEC).unwrap();
        let cs = c.configs();
        assert_eq!(cs.len(), 2);
        assert_eq!(cs[1].flags["write_buffer_size"], "67108864");
        assert_eq!(c.mix_step(), "mix");
        assert_eq!(c.spec.window["quick"].window_seconds, 4);
        assert_eq!(c.spec.search.repeats, 3);
        assert_eq!(c.spec.slo.behind_ms, 1000.0);
        let no_configs =
            SPEC.split("[[config]]").next().unwrap().to_string() + "[slo]\np99_us = 5000\n";
        assert_eq!(parse_str(&no_configs).unwrap().configs()[0].name, "default");
    }

    /// Every shipped capacity file loads, and each step of each
    /// configuration at each scale runs with flags `strata bench` takes.
    #[test]
    fn the_shipped_capacity_files_load_and_their_flags_are_valid() {
        let files = crate::testutil::shipped("studies/capacity");
        for p in &files {
            let c = load(p.to_str().unwrap()).unwrap_or_else(|e| panic!("{e}"));
            for scale in c.spec.scales.keys() {
                let plan = crate::spec::model::expand(&c.as_study(), scale, None, None).unwrap();
                for config in c.configs() {
                    let t = crate::capacity::trials::Trial {
                        index: 0,
                        engine: "strata".into(),
                        config: config.name.clone(),
                        rate: Some(1000.0),
                        repeat: 0,
                        why: String::new(),
                    };
                    let job = t.job(&config.flags);
                    for i in 0..c.spec.steps.len() {
                        crate::tune::export::settings(&plan.job_step_flags(&job, i))
                            .unwrap_or_else(|e| {
                                panic!("{}: {scale} {}: {e}", p.display(), config.name)
                            });
                    }
                }
            }
        }
        assert!(files.len() >= 3, "{files:?}");
    }

    #[test]
    fn bad_files_are_refused_with_the_reason() {
        let cases = [
            ("[window.quick]", "[window.other]", "no `[window.quick]`"),
            (
                "p99_us = 5000\nmax_stall_ms = 100",
                "",
                "at least one limit",
            ),
            ("p99_us = 5000", "p99_us = -1", "positive numbers"),
            ("name = \"large\"", "name = \"small\"", "listed twice"),
            ("name = \"large\"", "name = \"a b\"", "letters, digits"),
            (
                "value_size = 100",
                "duration = 5",
                "set by the capacity search",
            ),
            (
                "engines = [\"strata\", \"rocksdb\"]",
                "engines = [\"x\"]",
                "unknown engine",
            ),
            (
                "window_seconds = 4",
                "window_seconds = 0",
                "must be positive",
            ),
            (
                "max_stall_ms = 100",
                "max_stall_ms = 100\n[search]\ntolerance = 2",
                "tolerance",
            ),
        ];
        crate::testutil::assert_refused(SPEC, &cases, parse_str);
    }
}
