//! The study file's schema (TOML): the types a study deserialises into,
//! and the small helpers reading them (flag values, line numbers).
//!
//! The schema is documented in `docs/lab.md`.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;
use toml::Spanned;

/// A flag value as written in TOML (integer, float, boolean or string).
pub type FlagMap = BTreeMap<String, toml::Value>;

/// A whole study file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StudySpec {
    /// Short name (used in directory names), e.g. `blob`.
    pub name: String,
    /// Human title.
    pub title: String,
    /// The question the study answers.
    pub question: String,
    /// Default number of repeats per cell.
    #[serde(default = "default_repeats")]
    pub repeats: u32,
    /// Engines to run (`strata`, `rocksdb`).
    #[serde(default = "default_engines")]
    pub engines: Vec<String>,
    /// Disk space factor: need = num x (key_size + value_size) x factor.
    #[serde(default = "default_disk_factor")]
    pub disk_factor: f64,
    /// Flags passed to every run.
    #[serde(default)]
    pub flags: FlagMap,
    /// Swept axes (one or more).
    #[serde(default, rename = "axis")]
    pub axes: Vec<Spanned<Axis>>,
    /// Benchmark steps run in order on the same DB for each cell.
    #[serde(rename = "step")]
    pub steps: Vec<Spanned<Step>>,
    /// Named scales (`quick`, `full`).
    pub scales: BTreeMap<String, Spanned<Scale>>,
    /// Charts drawn by the report.
    #[serde(default, rename = "chart")]
    pub charts: Vec<Spanned<Chart>>,
    /// Published findings to check.
    #[serde(default, rename = "finding")]
    pub findings: Vec<Spanned<Finding>>,
    /// Optional composite score.
    #[serde(default)]
    pub score: Option<Spanned<Score>>,
    /// Also draw all charts as one 3x3 dashboard with the recommendation.
    #[serde(default)]
    pub dashboard: bool,
}

fn default_repeats() -> u32 {
    3
}
fn default_engines() -> Vec<String> {
    vec!["strata".into(), "rocksdb".into()]
}
fn default_disk_factor() -> f64 {
    3.0
}

/// A swept axis: either a flag with scalar `values`, or named `variant`s each
/// setting several flags. The axis name `cpus` pins each run to N cores.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Axis {
    /// Axis name (also the flag name unless `flag` is given).
    pub name: String,
    /// Flag set by this axis (default: `name`).
    #[serde(default)]
    pub flag: Option<String>,
    /// Scalar values of the flag.
    #[serde(default)]
    pub values: Vec<toml::Value>,
    /// Named variants (mutually exclusive with `values`).
    #[serde(default, rename = "variant")]
    pub variants: Vec<Variant>,
    /// Display unit: `bytes` formats values as KB/MB.
    #[serde(default)]
    pub unit: Option<String>,
    /// Whether the values have an order (default: numeric `values` are
    /// ordered, variant labels are not). Only an ordered axis gets line
    /// charts, "rises above ... between" statements, and crossover,
    /// monotonic or `interior` findings along it.
    #[serde(default)]
    pub ordered: Option<bool>,
}

impl Axis {
    /// Whether the axis's values have an order: `ordered` when given, else
    /// true for scalar `values` and false for variants.
    pub fn is_ordered(&self) -> bool {
        self.ordered.unwrap_or(self.variants.is_empty())
    }
}

/// One named variant of an axis.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Variant {
    /// Label shown in reports.
    pub label: String,
    /// Flags this variant sets.
    #[serde(default)]
    pub flags: FlagMap,
}

/// One benchmark step of a cell.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Step name used in findings/charts (default: first benchmark).
    #[serde(default)]
    pub name: Option<String>,
    /// `--benchmarks` value, e.g. `fillrandom,stats`.
    pub benchmarks: String,
    /// Extra flags for this step.
    #[serde(default)]
    pub flags: FlagMap,
}

impl Step {
    /// The step's name: explicit, or its first benchmark.
    pub fn label(&self) -> String {
        self.name.clone().unwrap_or_else(|| {
            self.benchmarks
                .split(',')
                .next()
                .unwrap_or_default()
                .to_string()
        })
    }
}

/// A named scale: flag overrides, repeats, optional axis value overrides.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scale {
    /// Flags overriding the study's fixed flags (e.g. `num`).
    #[serde(default)]
    pub flags: FlagMap,
    /// Repeats at this scale.
    #[serde(default)]
    pub repeats: Option<u32>,
    /// Replacement value lists per axis name (scalar axes only).
    #[serde(default)]
    pub axis_values: BTreeMap<String, Vec<toml::Value>>,
    /// Flag overrides per variant label, applied over the variant's own flags
    /// (e.g. level sizes scaled down with the data).
    #[serde(default)]
    pub variant_flags: BTreeMap<String, FlagMap>,
    /// Free-text note on expected duration.
    #[serde(default)]
    pub note: Option<String>,
}

/// A chart: one metric (or several) of one step along an axis. The study's
/// other axes (neither `x` nor `series`) make facets: one panel per
/// combination of their values, in one image.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Chart {
    /// File stem.
    pub id: String,
    /// Title.
    pub title: String,
    /// Step name.
    pub step: String,
    /// Metrics on the y axis.
    pub metrics: Vec<String>,
    /// Axis on x.
    pub x: String,
    /// Axis whose values make separate series (optional).
    #[serde(default)]
    pub series: Option<String>,
    /// Logarithmic y axis.
    #[serde(default)]
    pub log_y: bool,
    /// Plot each series relative to its maximum (percent).
    #[serde(default)]
    pub relative: bool,
    /// Mark where the second series overtakes the first (along an ordered
    /// `x` axis only).
    #[serde(default)]
    pub mark_crossover: bool,
    /// A trade-off chart: this metric on the x axis instead of the `x`
    /// axis's values, `metrics` (exactly one) on y, one curve per engine
    /// (and `series` value) through the `x` axis's values, and a table
    /// comparing the engines at equal x under it (`judge::tradeoff`).
    #[serde(default)]
    pub x_metric: Option<String>,
}

/// Kinds of machine-checkable published findings.
#[derive(Clone, Debug, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// `series[1]` overtakes `series[0]` along `along` (optionally `between`).
    Crossover,
    /// `series[0]` > `series[1]` at every point along `along`.
    Ordering,
    /// `series[1] / series[0]` within `range` (averaged over points).
    Ratio,
    /// The best value along `along` is one of `expected` (`interior`: not
    /// at either end, i.e. an inverted U).
    Argmax,
    /// The metric moves monotonically along `along` in `direction` (with
    /// `series`, the ratio `series[1] / series[0]` does).
    Monotonic,
    /// `series[1]` and `series[0]` are equal within `min_effect` at every point.
    Parity,
    /// The metric stays at or below `max` (or at or above `min`) at every point.
    Bound,
}

/// A published finding to check against this run's data.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    /// Identifier.
    pub id: String,
    /// The published claim, in words.
    pub claim: String,
    /// The published figures supporting it.
    pub published: String,
    /// What to check.
    pub kind: FindingKind,
    /// Metric name.
    pub metric: String,
    /// Step name.
    pub step: String,
    /// Axis along which points are compared; absent: one point (every
    /// other axis fixed by `where` or held across).
    #[serde(default)]
    pub along: Option<String>,
    /// Only these labels of `along` (empty: all of them).
    #[serde(default)]
    pub at: Vec<String>,
    /// Series axis name and the two labels compared.
    #[serde(default)]
    pub series_axis: Option<String>,
    /// The two series labels (`[a, b]`).
    #[serde(default)]
    pub series: Vec<String>,
    /// Fix other axes to these labels.
    #[serde(default, rename = "where")]
    pub where_: BTreeMap<String, String>,
    /// Crossover expected between these two x labels.
    #[serde(default)]
    pub between: Vec<String>,
    /// Ratio range `[lo, hi]`.
    #[serde(default)]
    pub range: Vec<f64>,
    /// The published value of the ratio the verdict reads, in its
    /// orientation (`ordering`: a/b; `ratio` and `parity`: b/a), pooled
    /// over the same points (a geometric mean): set beside the measured
    /// ratio in the report.
    #[serde(default)]
    pub published_ratio: Option<f64>,
    /// Argmax expected labels.
    #[serde(default)]
    pub expected: Vec<String>,
    /// `increasing` or `decreasing`.
    #[serde(default)]
    pub direction: Option<String>,
    /// Argmax of the minimum instead (for lower-is-better metrics).
    #[serde(default)]
    pub minimize: bool,
    /// Scales the finding is checked at (empty: all).
    #[serde(default)]
    pub scales: Vec<String>,
    /// Smallest relative difference that counts as an effect (default
    /// `judge::verdict::DEFAULT_MIN_EFFECT`): below it no difference is
    /// claimed; for `parity`, the tolerance.
    #[serde(default)]
    pub min_effect: Option<f64>,
    /// `bound`: the largest value the claim allows.
    #[serde(default)]
    pub max: Option<f64>,
    /// `bound`: the smallest value the claim allows.
    #[serde(default)]
    pub min: Option<f64>,
    /// The id of an earlier finding that states the same published claim,
    /// judged here on another metric (WAF with and without the WAL): both
    /// rows are shown, the claim is counted once (as the earlier one).
    #[serde(default)]
    pub same_claim_as: Option<String>,
    /// What a run must do for the claim to be testable at all (levels the
    /// tree reaches, compactions run): checked on the finding's cells;
    /// where one fails the verdict is "not testable here", with the reason.
    #[serde(default)]
    pub needs: Vec<Need>,
}

/// A precondition of a finding: a metric of the step, at every cell the
/// finding compares, at least (or at most) a value.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Need {
    /// The metric checked (of the finding's step).
    pub metric: String,
    /// Its smallest mean over a cell's repeats that makes the claim testable.
    #[serde(default)]
    pub at_least: Option<f64>,
    /// Its largest mean that does.
    #[serde(default)]
    pub at_most: Option<f64>,
    /// Why, in words: what the claim needs the run to do ("the multiplier
    /// sets the size of L2 and below: the tree must reach L2").
    pub because: String,
}

/// Composite score: weighted normalised metrics (study 3).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Score {
    /// Step whose metrics are scored.
    pub step: String,
    /// Metric weights (sum 1).
    pub weights: BTreeMap<String, f64>,
    /// Metrics where higher is better (others: lower is better).
    #[serde(default)]
    pub higher_is_better: Vec<String>,
}

/// A loaded spec with the file it came from (for error messages).
#[derive(Clone, Debug)]
pub struct LoadedSpec {
    /// The spec.
    pub spec: StudySpec,
    /// Its path.
    pub path: PathBuf,
    /// Its text.
    pub text: String,
}

/// A workload file (a tuning or a capacity file: `self` has `spec` with
/// `name`, `title`, `workload`, `engines`, `disk_factor`, `flags`, `steps`
/// and `scales`, and `path` and `text`) as a study with no axes, one
/// repeat and nothing to judge, so that the study runner runs each of its
/// configurations as a cell.
macro_rules! workload_study {
    ($l:expr) => {{
        let l = $l;
        let s = &l.spec;
        $crate::spec::study::LoadedSpec {
            spec: $crate::spec::study::StudySpec {
                name: s.name.clone(),
                title: s.title.clone(),
                question: s.workload.clone(),
                repeats: 1,
                engines: s.engines.clone(),
                disk_factor: s.disk_factor,
                flags: s.flags.clone(),
                axes: Vec::new(),
                steps: s.steps.clone(),
                scales: s.scales.clone(),
                charts: Vec::new(),
                findings: Vec::new(),
                score: None,
                dashboard: false,
            },
            path: l.path.clone(),
            text: l.text.clone(),
        }
    }};
}
pub(crate) use workload_study;

/// 1-based line of a byte offset.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset.min(text.len()))
        .map(|s| s.matches('\n').count() + 1)
        .unwrap_or(1)
}

/// Renders a flag value as a db_bench argument value.
pub(crate) fn flag_value(v: &toml::Value) -> Option<String> {
    match v {
        toml::Value::String(s) => Some(s.clone()),
        toml::Value::Integer(i) => Some(i.to_string()),
        toml::Value::Float(f) => Some(f.to_string()),
        toml::Value::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}
