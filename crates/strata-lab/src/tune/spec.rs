//! The tuning file's schema (TOML) and its checks: the workload (steps and
//! fixed flags, as in a study), the options searched and their ranges, the
//! objective, the constraints, the budget and the starting configurations.
//!
//! The schema is documented in `docs/lab.md` ("Tuning").

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use crate::spec::study::{flag_value, line_of, FlagMap, LoadedSpec, Scale, Step};
use crate::tune::search::{Config, Param, ParamKind, Space};

/// A whole tuning file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TuneSpec {
    /// Short name (used in directory names), e.g. `fill_read`.
    pub name: String,
    /// Human title.
    pub title: String,
    /// What the workload stands for.
    pub workload: String,
    /// Engines tuned (each searched on its own).
    #[serde(default = "default_engines")]
    pub engines: Vec<String>,
    /// Disk space factor: need = num x (key_size + value_size) x factor.
    #[serde(default = "default_disk_factor")]
    pub disk_factor: f64,
    /// Runs the search may spend per engine (the baseline and the starting
    /// configurations included; the confirmation is extra).
    #[serde(default = "default_budget")]
    pub budget: usize,
    /// Space-filling configurations run after the baseline and the starting
    /// configurations, before the model proposes (default: options + 1,
    /// at most a third of the budget).
    #[serde(default)]
    pub initial: Option<usize>,
    /// Runs of the baseline and of the winner each in the confirmation.
    #[serde(default = "default_confirm")]
    pub confirm_repeats: u32,
    /// Seed of the search (space-filling design and proposals).
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Flags passed to every run.
    #[serde(default)]
    pub flags: FlagMap,
    /// Benchmark steps run in order on a fresh DB for each run.
    #[serde(rename = "step")]
    pub steps: Vec<Spanned<Step>>,
    /// Named scales (`quick`, `full`).
    pub scales: BTreeMap<String, Spanned<Scale>>,
    /// What is optimised.
    pub objective: Spanned<Objective>,
    /// Limits a configuration must keep.
    #[serde(default, rename = "constraint")]
    pub constraints: Vec<Spanned<Constraint>>,
    /// The options searched.
    #[serde(rename = "param")]
    pub params: Vec<Spanned<ParamSpec>>,
    /// Configurations tried first (what the studies found), each over the baseline.
    #[serde(default, rename = "start")]
    pub starts: Vec<Spanned<Start>>,
}

fn default_engines() -> Vec<String> {
    vec!["strata".into()]
}
fn default_disk_factor() -> f64 {
    3.0
}
fn default_budget() -> usize {
    15
}
fn default_confirm() -> u32 {
    3
}
fn default_seed() -> u64 {
    1
}

/// The objective: one metric of one step, or a weighted score of several.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Objective {
    /// Step whose metrics count.
    pub step: String,
    /// The metric maximised (or minimised when lower is better, by the
    /// metric registry's direction).
    #[serde(default)]
    pub metric: Option<String>,
    /// A composite score instead: metric -> weight. Each metric counts as
    /// the log of its ratio to the baseline's (better = positive), so the
    /// score is a weighted geometric mean of the ratios.
    #[serde(default)]
    pub weights: BTreeMap<String, f64>,
}

/// Metrics every run has beside the registry's (`strata lab metrics`):
/// the process's own figures and the end-of-run disk use.
const RUN_METRICS: &[&str] = &[
    "max_rss_mb",
    "disk_mb_end",
    "wall_sec",
    "user_sec",
    "sys_sec",
];

/// Whether runs carry a metric of this name: a registered one, a run
/// figure, a per-operation latency (`read_p99`) or a ticker (`rocksdb.*`).
pub(crate) fn known_metric(m: &str) -> bool {
    crate::data::metrics::get(m).is_some()
        || RUN_METRICS.contains(&m)
        || m.starts_with("rocksdb.")
        || latency(m)
}

/// A per-operation latency percentile (`read_p99`, `update_p50`).
fn latency(m: &str) -> bool {
    ["_p50", "_p99", "_p999"]
        .iter()
        .any(|s| m.strip_suffix(s).is_some_and(|op| !op.is_empty()))
}

/// Whether a higher value of an objective's metric is better: the
/// registry's direction; latencies and run figures are lower-is-better.
/// `None` for a metric without a direction.
pub(crate) fn higher_better(m: &str) -> Option<bool> {
    use crate::data::metrics::Better;
    match crate::data::metrics::get(m) {
        Some(x) => match x.better {
            Better::Higher => Some(true),
            Better::Lower => Some(false),
            Better::Neither => None,
        },
        None if latency(m) || RUN_METRICS.contains(&m) => Some(false),
        None => None,
    }
}

/// A limit on one metric of a run.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Constraint {
    /// The metric (`max_rss_mb`, `waf`, `p99`, ...).
    pub metric: String,
    /// The step (default: the objective's).
    #[serde(default)]
    pub step: Option<String>,
    /// Largest value allowed.
    #[serde(default)]
    pub max: Option<f64>,
    /// Smallest value allowed.
    #[serde(default)]
    pub min: Option<f64>,
}

/// One searched option: a range (`min`, `max`, optional `log`) or `choices`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParamSpec {
    /// The flag (`write_buffer_size`).
    pub name: String,
    /// Smallest value.
    #[serde(default)]
    pub min: Option<toml::Value>,
    /// Largest value.
    #[serde(default)]
    pub max: Option<toml::Value>,
    /// Search on a log scale (sizes and counts spanning decades).
    #[serde(default)]
    pub log: bool,
    /// The values to choose from (instead of a range).
    #[serde(default)]
    pub choices: Vec<toml::Value>,
    /// The baseline's value: the engine's own default unless the workload
    /// says otherwise.
    pub default: toml::Value,
}

/// A configuration tried early, over the baseline.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Start {
    /// Where it comes from (a study's finding).
    pub note: String,
    /// The options it sets.
    pub flags: FlagMap,
}

/// A loaded tuning file.
#[derive(Clone, Debug)]
pub struct LoadedTune {
    /// The spec.
    pub spec: TuneSpec,
    /// Its path.
    pub path: PathBuf,
    /// Its text.
    pub text: String,
}

/// Whether a TOML text is a tuning file (it has `[[param]]` and `[objective]`).
pub(crate) fn is_tune_text(text: &str) -> bool {
    toml::from_str::<toml::Table>(text)
        .is_ok_and(|t| t.contains_key("param") && t.contains_key("objective"))
}

/// Resolves a tuning argument: a path, or a name under `tunes/`.
pub(crate) fn resolve_path(arg: &str) -> PathBuf {
    crate::spec::resolve_in(arg, "tunes")
}

/// Reads and checks a tuning file.
pub(crate) fn load(path: &Path) -> anyhow::Result<LoadedTune> {
    parse(&crate::spec::read_text(path, "tuning file")?, path)
}

/// Parses and checks tuning text; errors name `file:line` and the field.
pub(crate) fn parse(text: &str, path: &Path) -> anyhow::Result<LoadedTune> {
    let spec: TuneSpec = crate::spec::from_toml(text, path)?;
    let t = LoadedTune {
        spec,
        path: path.to_path_buf(),
        text: text.to_string(),
    };
    t.check()?;
    Ok(t)
}

fn num(v: &toml::Value) -> Option<f64> {
    match v {
        toml::Value::Integer(i) => Some(*i as f64),
        toml::Value::Float(f) => Some(*f),
        _ => None,
    }
}

impl LoadedTune {
    fn at(&self, span: std::ops::Range<usize>, msg: String) -> anyhow::Error {
        anyhow::anyhow!(
            "{}:{}: {msg}",
            self.path.display(),
            line_of(&self.text, span.start)
        )
    }

    /// The searched space.
    pub(crate) fn space(&self) -> anyhow::Result<Space> {
        let mut params = Vec::new();
        for p in &self.spec.params {
            let span = p.span();
            let p = p.get_ref();
            let kind = if !p.choices.is_empty() {
                if p.min.is_some() || p.max.is_some() || p.log {
                    return Err(self.at(
                        span,
                        format!(
                            "param `{}`: give `choices` or `min`/`max`, not both",
                            p.name
                        ),
                    ));
                }
                let cs: Vec<String> = p.choices.iter().filter_map(flag_value).collect();
                if cs.len() != p.choices.len() || cs.len() < 2 {
                    return Err(self.at(
                        span,
                        format!(
                            "param `{}`: `choices` needs two or more plain values",
                            p.name
                        ),
                    ));
                }
                ParamKind::Choice(cs)
            } else {
                let (Some(lo), Some(hi)) = (p.min.as_ref(), p.max.as_ref()) else {
                    return Err(self.at(
                        span,
                        format!("param `{}`: needs `min` and `max`, or `choices`", p.name),
                    ));
                };
                let ints =
                    matches!(lo, toml::Value::Integer(_)) && matches!(hi, toml::Value::Integer(_));
                let (Some(a), Some(b)) = (num(lo), num(hi)) else {
                    return Err(self.at(
                        span,
                        format!("param `{}`: `min` and `max` must be numbers", p.name),
                    ));
                };
                if !a.is_finite() || !b.is_finite() {
                    return Err(self.at(
                        span,
                        format!(
                            "param `{}`: `min` and `max` must be finite numbers (got {a} and {b})",
                            p.name
                        ),
                    ));
                }
                if a >= b || (p.log && a <= 0.0) {
                    return Err(self.at(
                        span,
                        format!(
                            "param `{}`: needs min < max{}",
                            p.name,
                            if p.log {
                                " and min > 0 on a log scale"
                            } else {
                                ""
                            }
                        ),
                    ));
                }
                if ints {
                    ParamKind::Int {
                        min: a as i64,
                        max: b as i64,
                        log: p.log,
                    }
                } else {
                    ParamKind::Float {
                        min: a,
                        max: b,
                        log: p.log,
                    }
                }
            };
            if params.iter().any(|q: &Param| q.name == p.name) {
                return Err(self.at(span, format!("param `{}` is listed twice", p.name)));
            }
            params.push(Param {
                name: p.name.clone(),
                kind,
            });
        }
        Ok(Space { params })
    }

    /// The baseline: every param at its `default`.
    pub(crate) fn baseline(&self) -> Config {
        self.spec
            .params
            .iter()
            .filter_map(|p| {
                let p = p.get_ref();
                Some((p.name.clone(), flag_value(&p.default)?))
            })
            .collect()
    }

    /// The starting configurations, each the baseline with its flags set.
    pub(crate) fn starts(&self) -> Vec<(String, Config)> {
        self.spec
            .starts
            .iter()
            .map(|s| {
                let s = s.get_ref();
                let mut c = self.baseline();
                for (k, v) in &s.flags {
                    if let Some(v) = flag_value(v) {
                        c.insert(k.clone(), v);
                    }
                }
                (s.note.clone(), c)
            })
            .collect()
    }

    /// Space-filling runs before the model proposes.
    pub(crate) fn initial(&self) -> usize {
        self.spec
            .initial
            .unwrap_or_else(|| (self.spec.params.len() + 1).min(self.spec.budget / 3))
    }

    /// The workload as a study with no axes, so that the study runner runs
    /// each configuration as a cell.
    pub(crate) fn as_study(&self) -> LoadedSpec {
        crate::spec::study::workload_study!(self)
    }

    /// Every check a tuning file must pass, with `file:line` in errors.
    fn check(&self) -> anyhow::Result<()> {
        let s = &self.spec;
        let space = self.space()?;
        if s.params.is_empty() {
            anyhow::bail!("{}: no `[[param]]` to search", self.path.display());
        }
        for e in &s.engines {
            if !crate::spec::validate::ENGINES.contains(&e.as_str()) {
                anyhow::bail!(
                    "{}: unknown engine `{e}` (known: {})",
                    self.path.display(),
                    crate::spec::validate::ENGINES.join(", ")
                );
            }
        }
        if s.budget < 3 {
            anyhow::bail!(
                "{}: `budget` must be at least 3 runs (got {})",
                self.path.display(),
                s.budget
            );
        }
        if s.confirm_repeats < 2 {
            anyhow::bail!(
                "{}: `confirm_repeats` must be at least 2 (an interval needs two runs of each)",
                self.path.display()
            );
        }
        let steps: Vec<String> = s.steps.iter().map(|st| st.get_ref().label()).collect();
        let o = s.objective.get_ref();
        let ospan = s.objective.span();
        if !steps.contains(&o.step) {
            return Err(self.at(
                ospan,
                format!(
                    "objective: no step `{}` (steps: {})",
                    o.step,
                    steps.join(", ")
                ),
            ));
        }
        match (&o.metric, o.weights.is_empty()) {
            (Some(_), false) | (None, true) => {
                return Err(self.at(
                    ospan,
                    "objective: give `metric` or `weights`, one of them".into(),
                ))
            }
            _ => {}
        }
        let metrics: Vec<&String> = o.metric.iter().chain(o.weights.keys()).collect();
        for m in metrics {
            if !known_metric(m) {
                return Err(self.at(ospan, format!("objective: unknown metric `{m}`")));
            }
            if higher_better(m).is_none() {
                return Err(self.at(
                    ospan,
                    format!("objective: `{m}` is neither better higher nor lower"),
                ));
            }
        }
        if o.weights.values().any(|w| w.is_nan() || *w <= 0.0) {
            return Err(self.at(ospan, "objective: weights must be positive".into()));
        }
        for c in &s.constraints {
            let span = c.span();
            let c = c.get_ref();
            if !known_metric(&c.metric) {
                return Err(self.at(span, format!("constraint: unknown metric `{}`", c.metric)));
            }
            if c.max.is_none() && c.min.is_none() {
                return Err(self.at(
                    span,
                    format!("constraint on `{}`: give `max` or `min`", c.metric),
                ));
            }
            if let Some(st) = &c.step {
                if !steps.contains(st) {
                    return Err(self.at(span, format!("constraint: no step `{st}`")));
                }
            }
        }
        let base = self.baseline();
        space
            .check(&base)
            .map_err(|e| anyhow::anyhow!("{}: a param's `default`: {e}", self.path.display()))?;
        for (i, (note, c)) in self.starts().iter().enumerate() {
            let span = s.starts[i].span();
            if let Some(k) = s.starts[i]
                .get_ref()
                .flags
                .keys()
                .find(|k| !s.params.iter().any(|p| &p.get_ref().name == *k))
            {
                return Err(self.at(
                    span,
                    format!("start `{note}`: `{k}` is not a searched param"),
                ));
            }
            space
                .check(c)
                .map_err(|e| self.at(span, format!("start `{note}`: {e}")))?;
        }
        for (name, _) in base.iter() {
            if s.flags.contains_key(name) {
                anyhow::bail!(
                    "{}: `{name}` is both a fixed flag and a searched param",
                    self.path.display()
                );
            }
        }
        if s.scales.is_empty() {
            anyhow::bail!("{}: no `[scales.NAME]`", self.path.display());
        }
        Ok(())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) const TUNE: &str = r#"
name = "t"
title = "T"
workload = "fill then read"
budget = 8
[flags]
num = 1000
[[step]]
name = "load"
benchmarks = "fillrandom"
[[step]]
name = "run"
benchmarks = "readrandom"
[scales.quick]
[objective]
step = "run"
metric = "ops_sec"
[[constraint]]
metric = "max_rss_mb"
max = 512
[[param]]
name = "write_buffer_size"
min = 1048576
max = 268435456
log = true
default = 67108864
[[param]]
name = "compaction_style"
choices = [0, 1]
default = 0
[[start]]
note = "study 3's sweet spot"
flags = { write_buffer_size = 33554432 }
"#;

    fn parse_str(t: &str) -> anyhow::Result<LoadedTune> {
        parse(t, Path::new("t.toml"))
    }

    #[test]
    fn reads_params_baseline_and_starts() {
        let t = parse_str(TUNE).unwrap();
        let sp = t.space().unwrap();
        assert_eq!(sp.params.len(), 2);
        assert!(matches!(
            sp.params[0].kind,
            ParamKind::Int {
                min: 1048576,
                max: 268435456,
                log: true
            }
        ));
        assert_eq!(t.baseline()["write_buffer_size"], "67108864");
        assert_eq!(t.baseline()["compaction_style"], "0");
        let s = t.starts();
        assert_eq!(s[0].1["write_buffer_size"], "33554432");
        assert_eq!(s[0].1["compaction_style"], "0");
        assert_eq!(t.initial(), 2);
        assert!(is_tune_text(TUNE));
        assert!(!is_tune_text("name = \"x\""));
        let study = t.as_study();
        assert_eq!(study.spec.steps.len(), 2);
        assert!(study.spec.axes.is_empty());
    }

    /// Every shipped tuning file loads, and its baseline, starts and grid
    /// corners are flags `strata bench` takes.
    #[test]
    fn the_shipped_tuning_files_load_and_their_configurations_are_valid_flags() {
        let files = crate::testutil::shipped("tunes");
        for p in &files {
            let t = load(p).unwrap_or_else(|e| panic!("{e}"));
            let space = t.space().unwrap();
            let mut configs = vec![t.baseline()];
            configs.extend(t.starts().into_iter().map(|(_, c)| c));
            configs.extend(space.grid(2));
            for scale in t.spec.scales.keys() {
                let plan = crate::spec::model::expand(&t.as_study(), scale, None, None).unwrap();
                for c in &configs {
                    let mut flags = plan.fixed.clone();
                    flags.extend(c.clone());
                    crate::tune::export::settings(&flags)
                        .unwrap_or_else(|e| panic!("{}: {c:?}: {e}", p.display()));
                }
            }
        }
        assert!(files.len() >= 3, "{files:?}");
    }

    #[test]
    fn bad_files_are_refused_with_the_reason() {
        let cases = [
            (
                "metric = \"ops_sec\"",
                "metric = \"speed\"",
                "unknown metric `speed`",
            ),
            (
                "step = \"run\"\nmetric",
                "step = \"go\"\nmetric",
                "no step `go`",
            ),
            ("default = 67108864", "default = 1", "write_buffer_size"),
            ("choices = [0, 1]", "choices = [0]", "two or more"),
            ("budget = 8", "budget = 2", "at least 3"),
            ("max = 512", "", "give `max` or `min`"),
            (
                "flags = { write_buffer_size",
                "flags = { block_size",
                "not a searched param",
            ),
            (
                "[flags]\n",
                "[flags]\nwrite_buffer_size = 5\n",
                "both a fixed flag",
            ),
            ("log = true", "log = true\nfoo = 1", "unknown field"),
        ];
        crate::testutil::assert_refused(TUNE, &cases, parse_str);
    }

    /// A range bound of `nan` passed the `min < max` check (every
    /// comparison with NaN is false) and panicked when the search clamped
    /// a value into the range; `inf` made an unbounded range.
    #[test]
    fn a_nan_or_infinite_param_bound_is_refused() {
        for (from, to) in [
            ("min = 1048576", "min = nan"),
            ("max = 268435456", "max = nan"),
            ("max = 268435456", "max = inf"),
            ("min = 1048576", "min = -inf\nlog = false"),
        ] {
            let text = TUNE.replacen(from, to, 1).replacen("log = true\n", "", 1);
            assert_ne!(text, TUNE, "{from}");
            let e = parse_str(&text).map(|_| ()).unwrap_err().to_string();
            assert!(e.contains("must be finite numbers"), "{to}: {e}");
        }
    }
}
