//! Expansion of a study at one scale into cells, jobs and command lines.

use std::collections::BTreeMap;
use std::path::Path;

use crate::spec::study::{flag_value, FlagMap, LoadedSpec, Step};

/// One value of an axis.
#[derive(Clone, Debug, PartialEq)]
pub struct AxisValue {
    /// Label shown in reports and cell ids.
    pub label: String,
    /// Numeric value (for ordering and KB formatting), when scalar.
    pub numeric: Option<f64>,
    /// Flags this value sets.
    pub flags: BTreeMap<String, String>,
}

/// An axis with its values resolved for a scale.
#[derive(Clone, Debug)]
pub struct ResolvedAxis {
    /// Axis name.
    pub name: String,
    /// Values in sweep order.
    pub values: Vec<AxisValue>,
    /// Values are byte sizes.
    pub bytes: bool,
    /// A scalar axis (`values`), not named variants.
    pub scalar: bool,
    /// The values have an order (numeric values by default; see `Axis::ordered`).
    pub ordered: bool,
}

impl ResolvedAxis {
    /// Human form of a label (`4096` -> `4 KB` for byte axes).
    pub fn display(&self, label: &str) -> String {
        if !self.bytes {
            return label.to_string();
        }
        match label.parse::<f64>() {
            Ok(v) => human_bytes(v),
            Err(_) => label.to_string(),
        }
    }
}

impl ResolvedAxis {
    /// Label with the axis name for scalar axes (`cpus=2`, `value_size=4 KB`);
    /// variant labels (`blob`) as they are.
    pub fn tag(&self, label: &str) -> String {
        if self.scalar {
            format!("{}={}", self.name, self.display(label))
        } else {
            label.to_string()
        }
    }
}

/// `4096` -> `4 KB`, `67108864` -> `64 MB`.
pub(crate) fn human_bytes(v: f64) -> String {
    const K: f64 = 1024.0;
    if v >= K * K * K && (v % (K * K * K)) == 0.0 {
        format!("{} GB", v / (K * K * K))
    } else if v >= K * K && (v % (K * K)) == 0.0 {
        format!("{} MB", v / (K * K))
    } else if v >= K && (v % K) == 0.0 {
        format!("{} KB", v / K)
    } else {
        format!("{v} B")
    }
}

/// One point of the sweep.
#[derive(Clone, Debug)]
pub struct Cell {
    /// `axis=label,axis=label`.
    pub id: String,
    /// Axis name -> label.
    pub labels: BTreeMap<String, String>,
    /// Flags from the axes.
    pub flags: BTreeMap<String, String>,
    /// CPU pinning (from a `cpus` axis).
    pub cpus: Option<u32>,
}

/// One run: a cell on an engine, one repeat; runs every step.
#[derive(Clone, Debug)]
pub struct Job {
    /// Index in the plan (stable for a given spec and scale).
    pub index: usize,
    /// The cell.
    pub cell: Cell,
    /// Engine name.
    pub engine: String,
    /// Repeat number (0-based).
    pub repeat: u32,
}

impl Job {
    /// Directory-safe key.
    pub fn key(&self) -> String {
        let c: String = self
            .cell
            .id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        format!("{}__{}__r{}", self.engine, c, self.repeat)
    }
}

/// A study expanded at a scale.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The spec.
    pub loaded: LoadedSpec,
    /// Scale name.
    pub scale: String,
    /// Resolved axes.
    pub axes: Vec<ResolvedAxis>,
    /// Fixed flags (study + scale).
    pub fixed: BTreeMap<String, String>,
    /// Cells in order.
    pub cells: Vec<Cell>,
    /// Repeats per cell.
    pub repeats: u32,
    /// Engines.
    pub engines: Vec<String>,
    /// Jobs in order (engine-major interleaving: repeat, cell, engine).
    pub jobs: Vec<Job>,
    /// `--set` overrides applied to the fixed flags.
    pub set: Vec<(String, String)>,
    /// Per-step time limit (`--timeout`); a step over it is killed and recorded as failed.
    pub timeout: Option<std::time::Duration>,
    /// `--only` cell filters applied (see [`Plan::select_cells`]); empty: every cell.
    pub only: Vec<String>,
}

fn strings(m: &FlagMap) -> BTreeMap<String, String> {
    m.iter()
        .filter_map(|(k, v)| flag_value(v).map(|s| (k.clone(), s)))
        .collect()
}

/// Expands a study at `scale`, with optional repeats and engine overrides.
pub fn expand(
    loaded: &LoadedSpec,
    scale: &str,
    repeats: Option<u32>,
    engines: Option<Vec<String>>,
) -> anyhow::Result<Plan> {
    expand_with(loaded, scale, repeats, engines, &[])
}

/// [`expand`] with extra `flag=value` overrides of the fixed flags (`--set`).
pub(crate) fn expand_with(
    loaded: &LoadedSpec,
    scale: &str,
    repeats: Option<u32>,
    engines: Option<Vec<String>>,
    set: &[(String, String)],
) -> anyhow::Result<Plan> {
    let s = &loaded.spec;
    let sc = s
        .scales
        .get(scale)
        .map(|x| x.get_ref().clone())
        .ok_or_else(|| {
            anyhow::anyhow!(
                "{}: no scale `{scale}` (has: {})",
                loaded.path.display(),
                s.scales.keys().cloned().collect::<Vec<_>>().join(", ")
            )
        })?;
    let mut fixed = strings(&s.flags);
    fixed.extend(strings(&sc.flags));
    fixed.extend(set.iter().cloned());
    let mut axes = Vec::new();
    for a in &s.axes {
        let a = a.get_ref();
        let flag = a.flag.clone().unwrap_or_else(|| a.name.clone());
        let values: Vec<AxisValue> = if a.variants.is_empty() {
            let vals = sc.axis_values.get(&a.name).unwrap_or(&a.values);
            vals.iter()
                .filter_map(|v| {
                    let label = flag_value(v)?;
                    let mut flags = BTreeMap::new();
                    if a.name != "cpus" {
                        flags.insert(flag.clone(), label.clone());
                    }
                    Some(AxisValue {
                        numeric: label.parse().ok(),
                        label,
                        flags,
                    })
                })
                .collect()
        } else {
            a.variants
                .iter()
                .map(|v| {
                    let mut flags = strings(&v.flags);
                    if let Some(o) = sc.variant_flags.get(&v.label) {
                        flags.extend(strings(o));
                    }
                    AxisValue {
                        label: v.label.clone(),
                        numeric: None,
                        flags,
                    }
                })
                .collect()
        };
        axes.push(ResolvedAxis {
            name: a.name.clone(),
            values,
            bytes: a.unit.as_deref() == Some("bytes"),
            scalar: a.variants.is_empty(),
            ordered: a.ordered.unwrap_or(a.variants.is_empty()),
        });
    }
    let mut cells: Vec<Cell> = vec![Cell {
        id: String::new(),
        labels: BTreeMap::new(),
        flags: BTreeMap::new(),
        cpus: None,
    }];
    for ax in &axes {
        let mut next = Vec::new();
        for c in &cells {
            for v in &ax.values {
                let mut n = c.clone();
                if !n.id.is_empty() {
                    n.id.push(',');
                }
                n.id.push_str(&format!("{}={}", ax.name, v.label));
                n.labels.insert(ax.name.clone(), v.label.clone());
                n.flags.extend(v.flags.clone());
                if ax.name == "cpus" {
                    n.cpus = v.label.parse().ok();
                }
                next.push(n);
            }
        }
        cells = next;
    }
    if repeats == Some(0) {
        anyhow::bail!("--repeats must be at least 1");
    }
    // The study's and its scales' repeats are checked when it is read.
    let repeats = repeats.or(sc.repeats).unwrap_or(s.repeats);
    let engines = engines.unwrap_or_else(|| s.engines.clone());
    let mut jobs = Vec::new();
    for r in 0..repeats {
        for c in &cells {
            for e in &engines {
                jobs.push(Job {
                    index: jobs.len(),
                    cell: c.clone(),
                    engine: e.clone(),
                    repeat: r,
                });
            }
        }
    }
    Ok(Plan {
        loaded: loaded.clone(),
        scale: scale.to_string(),
        axes,
        fixed,
        cells,
        repeats,
        engines,
        jobs,
        set: set.to_vec(),
        timeout: None,
        only: Vec::new(),
    })
}

impl Plan {
    /// The steps of the study.
    pub fn steps(&self) -> Vec<Step> {
        self.loaded
            .spec
            .steps
            .iter()
            .map(|s| s.get_ref().clone())
            .collect()
    }

    /// Flags of one step of a cell: fixed <- cell <- step, plus
    /// `use_existing_db=1` for steps after the first unless set.
    pub fn step_flags(&self, cell: &Cell, step_index: usize) -> BTreeMap<String, String> {
        let mut f = self.fixed.clone();
        f.extend(cell.flags.clone());
        if let Some(st) = self.loaded.spec.steps.get(step_index) {
            f.extend(strings(&st.get_ref().flags));
            let mut b = st.get_ref().benchmarks.clone();
            for (axis, label) in &cell.labels {
                b = b.replace(&format!("${{{axis}}}"), label);
            }
            f.insert("benchmarks".into(), b);
        }
        if step_index > 0 {
            f.entry("use_existing_db".into())
                .or_insert_with(|| "1".into());
        }
        f
    }

    /// Flags of one step of a job: [`Plan::step_flags`] of its cell, with
    /// the study's `seed` offset by the repeat index, so that each repeat
    /// draws its own keys (every engine of a repeat draws the same ones).
    pub fn job_step_flags(&self, job: &Job, step_index: usize) -> BTreeMap<String, String> {
        let mut f = self.step_flags(&job.cell, step_index);
        if let Some(seed) = repeat_seed(f.get("seed").map(String::as_str), job.repeat) {
            f.insert("seed".into(), seed.to_string());
        }
        f
    }

    /// Bytes of disk a cell needs: num x (key_size + value_size) x disk_factor.
    pub fn disk_need(&self, cell: &Cell) -> u64 {
        let f = self.step_flags(cell, 0);
        let get = |k: &str, d: f64| f.get(k).and_then(|v| v.parse::<f64>().ok()).unwrap_or(d);
        let need = get("num", 1_000_000.0)
            * (get("key_size", 16.0) + get("value_size", 100.0))
            * self.loaded.spec.disk_factor;
        need.max(0.0) as u64
    }

    /// The largest need over all cells.
    pub fn max_disk_need(&self) -> u64 {
        self.cells
            .iter()
            .map(|c| self.disk_need(c))
            .max()
            .unwrap_or(0)
    }

    /// The axis with this name.
    pub fn axis(&self, name: &str) -> Option<&ResolvedAxis> {
        self.axes.iter().find(|a| a.name == name)
    }
}

/// The seed of repeat `repeat` for a study seed: `seed + repeat`; `None`
/// when the study sets no numeric seed (the engine's default then applies).
pub(crate) fn repeat_seed(seed: Option<&str>, repeat: u32) -> Option<u64> {
    seed?
        .trim()
        .parse::<u64>()
        .ok()?
        .checked_add(u64::from(repeat))
}

/// Builds the argument list for one step: `prefix + --flag=value... + --db=DIR`.
pub(crate) fn step_command(
    prefix: &[String],
    flags: &BTreeMap<String, String>,
    db: &Path,
) -> Vec<String> {
    let mut v: Vec<String> = prefix.to_vec();
    for (k, val) in flags {
        if k == "db" {
            continue;
        }
        v.push(format!("--{k}={val}"));
    }
    v.push(format!("--db={}", db.display()));
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::parse;

    const SPEC: &str = include_str!("../../testdata/studies/unit-model.toml");

    #[test]
    fn expands_cells_jobs_and_flags() {
        let l = parse(SPEC, Path::new("t.toml")).unwrap();
        let p = expand(&l, "full", None, None).unwrap();
        // `--repeats 0` was once taken silently as one.
        let e = expand(&l, "full", Some(0), None).unwrap_err().to_string();
        assert!(e.contains("--repeats must be at least 1"), "{e}");
        assert_eq!(p.cells.len(), 4);
        assert_eq!(p.jobs.len(), 4 * 2 * 3);
        assert_eq!(p.cells[1].id, "value_size=1024,layout=blob");
        let f = p.step_flags(&p.cells[1], 1);
        assert_eq!(f.get("min_blob_size").map(String::as_str), Some("0"));
        assert_eq!(f.get("readwritepercent").map(String::as_str), Some("95"));
        assert_eq!(f.get("use_existing_db").map(String::as_str), Some("1"));
        assert_eq!(
            f.get("benchmarks").map(String::as_str),
            Some("readrandomwriterandom")
        );
        let f0 = p.step_flags(&p.cells[1], 0);
        assert!(!f0.contains_key("use_existing_db"));
        assert_eq!(
            f0.get("benchmarks").map(String::as_str),
            Some("fillrandom,blob")
        );
        // 1000 x (16 + 4096) x 2
        assert_eq!(p.disk_need(&p.cells[3]), 8_224_000);
        assert_eq!(p.axes[0].display("4096"), "4 KB");
    }

    #[test]
    fn scale_overrides_apply() {
        let l = parse(SPEC, Path::new("t.toml")).unwrap();
        let p = expand(&l, "quick", None, Some(vec!["strata".into()])).unwrap();
        assert_eq!(p.cells.len(), 2);
        assert_eq!(p.repeats, 2);
        assert_eq!(p.jobs.len(), 4);
        assert_eq!(p.fixed.get("num").map(String::as_str), Some("100"));
        let f = p.step_flags(&p.cells[1], 0);
        assert_eq!(f.get("min_blob_size").map(String::as_str), Some("64"));
        assert_eq!(f.get("enable_blob_files").map(String::as_str), Some("true"));
        assert!(expand(&l, "huge", None, None).is_err());
    }

    #[test]
    fn each_repeat_gets_its_own_seed() {
        let l = parse(SPEC, Path::new("t.toml")).unwrap();
        let p = expand_with(&l, "full", None, None, &[("seed".into(), "7".into())]).unwrap();
        let seeds: Vec<String> = p
            .jobs
            .iter()
            .filter(|j| j.cell.id == p.cells[0].id && j.engine == p.engines[0])
            .map(|j| p.job_step_flags(j, 0)["seed"].clone())
            .collect();
        assert_eq!(seeds, ["7", "8", "9"]);
        // Engines of one repeat share it.
        let r0: Vec<String> = p
            .jobs
            .iter()
            .filter(|j| j.repeat == 0 && j.cell.id == p.cells[0].id)
            .map(|j| p.job_step_flags(j, 1)["seed"].clone())
            .collect();
        assert!(r0.len() > 1 && r0.iter().all(|s| s == "7"), "{r0:?}");
        assert_eq!(repeat_seed(None, 3), None);
        assert_eq!(repeat_seed(Some("x"), 3), None);
    }

    #[test]
    fn command_line_has_db_last() {
        let mut f = BTreeMap::new();
        f.insert("num".to_string(), "5".to_string());
        let c = step_command(&["db_bench".into()], &f, Path::new("/tmp/x"));
        assert_eq!(c, vec!["db_bench", "--num=5", "--db=/tmp/x"]);
    }
}
