//! The report's "Strata against <engine>" sections, one per other engine
//! that ran (RocksDB, LevelDB, fjall): per step and cell, the
//! ratio of the two engines' medians and whether the repeats support a
//! difference (two-sided Mann-Whitney U test).
//!
//! On a noisy machine a ratio of medians of three repeats says little: a
//! compaction that ends just before or just after a flush moves one run's WAF
//! by 30%. The test asks whether the two engines' repeats are drawn from the
//! same distribution; below 4 repeats per engine it cannot reach p < 0.05 at
//! all, so the table then shows ratios only and says so.

use std::collections::BTreeMap;

use crate::aggregate::values;
use crate::doc::Block;
use crate::guards::na_reason;
use crate::model::Plan;
use crate::results::ResultRow;
use crate::stats::mann_whitney_p;

/// Metrics compared, with their column titles.
pub const METRICS: &[(&str, &str)] = &[
    ("ops_sec", "ops/sec"),
    ("waf", "WAF"),
    ("wamp_exact", "W-Amp"),
    ("l0_files_per_merge", "L0 files/merge"),
    ("l0_files_mean", "mean L0 files"),
    ("p99", "p99"),
];

/// Whether a higher value of `metric` is better (throughput) or worse
/// (amplification, latency).
pub fn higher_is_better(metric: &str) -> bool {
    matches!(metric, "ops_sec" | "mb_sec")
}

/// Whether a difference in `metric` is good or bad for Strata. The L0
/// files each L0 merge took and L0's mean file count (joblog.rs) are
/// neither: they explain WAF (more files per merge, fewer merges, less
/// rewriting, more files for a lookup to check meanwhile) rather than
/// grading the engine, so they are marked higher or lower.
pub fn judged(metric: &str) -> bool {
    !matches!(metric, "l0_files_per_merge" | "l0_files_mean")
}

/// Repeats each engine needs before the test is run.
pub const MIN_REPEATS: usize = 4;

/// Significance level.
pub const ALPHA: f64 = 0.05;

/// The outcome for one (step, cell, metric).
#[derive(Clone, Debug, PartialEq)]
pub struct Versus {
    /// Strata's median / RocksDB's median.
    pub ratio: f64,
    /// Two-sided p-value, when both engines have [`MIN_REPEATS`] repeats.
    pub p: Option<f64>,
    /// Repeats (Strata, RocksDB).
    pub n: (usize, usize),
}

impl Versus {
    /// `Some(true)`: Strata significantly higher; `Some(false)`: lower;
    /// `None`: no difference shown (or not tested).
    pub fn direction(&self) -> Option<bool> {
        match self.p {
            Some(p) if p < ALPHA && self.ratio != 1.0 => Some(self.ratio > 1.0),
            _ => None,
        }
    }

    /// `Some(true)` when Strata is significantly better on `metric`,
    /// `Some(false)` when significantly worse.
    pub fn better(&self, metric: &str) -> Option<bool> {
        if !judged(metric) {
            return None;
        }
        self.direction().map(|up| up == higher_is_better(metric))
    }

    fn cell_text(&self, metric: &str) -> String {
        // Four decimals where three would print a shifted distribution as 1.000.
        let r = if (self.ratio - 1.0).abs() < 0.0005 {
            format!("{:.4}", self.ratio)
        } else {
            format!("{:.3}", self.ratio)
        };
        let p = |p: f64| {
            if p < 0.001 {
                "p < 0.001".to_string()
            } else {
                format!("p {p:.3}")
            }
        };
        if !judged(metric) {
            return match (self.p, self.direction()) {
                (None, _) => r,
                (Some(x), Some(true)) => format!("{r} higher ({})", p(x)),
                (Some(x), Some(false)) => format!("{r} lower ({})", p(x)),
                (Some(x), None) => format!("{r} ({})", p(x)),
            };
        }
        match (self.p, self.better(metric)) {
            (None, _) => r,
            (Some(x), Some(true)) => format!("{r} better ({})", p(x)),
            (Some(x), Some(false)) => format!("{r} worse ({})", p(x)),
            (Some(x), None) => format!("{r} ({})", p(x)),
        }
    }
}

fn median(xs: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// Compares Strata's and RocksDB's repeats of one step-cell on `metric`;
/// `None` when either engine has no value or RocksDB's median is 0.
pub fn versus(
    rows: &[ResultRow],
    step: &str,
    labels: &BTreeMap<String, String>,
    metric: &str,
) -> Option<Versus> {
    versus_with(rows, "rocksdb", step, labels, metric)
}

/// [`versus`] against engine `other`.
pub fn versus_with(
    rows: &[ResultRow],
    other: &str,
    step: &str,
    labels: &BTreeMap<String, String>,
    metric: &str,
) -> Option<Versus> {
    let s = values(rows, "strata", step, labels, metric);
    let r = values(rows, other, step, labels, metric);
    let (ms, mr) = (median(&s)?, median(&r)?);
    if mr == 0.0 {
        return None;
    }
    let tested = s.len() >= MIN_REPEATS && r.len() >= MIN_REPEATS;
    Some(Versus {
        ratio: ms / mr,
        p: tested.then(|| mann_whitney_p(&s, &r)),
        n: (s.len(), r.len()),
    })
}

/// The other engines Strata is compared with: (name, display name, initial).
pub const OTHERS: &[(&str, &str, &str)] = &[
    ("rocksdb", "RocksDB", "R"),
    ("leveldb", "LevelDB", "L"),
    ("fjall", "fjall", "F"),
];

/// One section per other engine that ran beside Strata; empty when none did.
pub fn section(plan: &Plan, rows: &[ResultRow]) -> Vec<Block> {
    OTHERS
        .iter()
        .flat_map(|o| section_against(plan, rows, *o))
        .collect()
}

/// The section comparing Strata with `other`; empty when the run lacks
/// either engine.
fn section_against(
    plan: &Plan,
    rows: &[ResultRow],
    (other, name, initial): (&str, &str, &str),
) -> Vec<Block> {
    let has = |e: &str| rows.iter().any(|r| r.ok && r.engine == e);
    if !has("strata") || !has(other) {
        return Vec::new();
    }
    let mut b = vec![
        Block::H(2, format!("Strata against {name}")),
        Block::P(format!(
            "Each entry is Strata's median over its repeats divided by {name}'s, for the same flags. \
             With at least {MIN_REPEATS} repeats per engine it is followed by the two-sided Mann-Whitney U \
             p-value, and marked better or worse (for Strata: higher throughput, lower WAF, W-Amp and latency \
             are better) when p < {ALPHA}: the repeats then support a difference, where an unmarked ratio \
             is within what the two engines' own run-to-run spread explains. L0 files/merge (from the LOG's \
             events: the L0 files each compaction that read L0 took, averaged over the step) is marked \
             higher or lower, not better or worse: it is why WAF differs, not a grade. More files per merge \
             means fewer merges of the same data, and less rewriting of the level below. Mean L0 files \
             (L0's file count after each job, averaged over time) is the other side of that trade, also \
             marked higher or lower: the files a point lookup may have to check in L0."
        )),
    ];
    let mut tally: BTreeMap<(&str, String), [usize; 4]> = BTreeMap::new();
    for st in plan.steps() {
        let step = st.label();
        let metrics: Vec<&(&str, &str)> = METRICS
            .iter()
            .filter(|(m, _)| {
                rows.iter().any(|r| {
                    r.ok && r.step == step && (r.metrics.contains_key(*m) || r.na.contains_key(*m))
                })
            })
            .collect();
        let mut withheld: Vec<String> = Vec::new();
        let mut header: Vec<String> = plan.axes.iter().map(|a| a.name.clone()).collect();
        header.push(format!("repeats S/{initial}"));
        header.extend(metrics.iter().map(|(_, t)| format!("{t} S/{initial}")));
        let mut table = Vec::new();
        for c in &plan.cells {
            let vs: Vec<Option<Versus>> = metrics
                .iter()
                .map(|(m, _)| versus_with(rows, other, &step, &c.labels, m))
                .collect();
            let Some(n) = vs.iter().flatten().map(|v| v.n).next() else {
                continue;
            };
            let mut row: Vec<String> = plan
                .axes
                .iter()
                .map(|a| a.display(c.labels.get(&a.name).map(String::as_str).unwrap_or("")))
                .collect();
            row.push(format!("{}/{}", n.0, n.1));
            for ((m, _), v) in metrics.iter().zip(&vs) {
                let na: Vec<String> = ["strata", "rocksdb"]
                    .iter()
                    .filter_map(|e| na_reason(rows, e, &step, &c.labels, m))
                    .collect();
                for why in na
                    .iter()
                    .filter(|_| v.is_none())
                    .flat_map(|w| w.split("; "))
                {
                    let line = format!("{m}: {why}");
                    if !withheld.contains(&line) {
                        withheld.push(line);
                    }
                }
                row.push(match v {
                    Some(v) => v.cell_text(m),
                    None if !na.is_empty() => "n/a".into(),
                    None => "-".into(),
                });
                if let Some(v) = v {
                    let t = tally.entry((m, step.clone())).or_default();
                    let verdict = if judged(m) {
                        v.better(m)
                    } else {
                        v.direction()
                    };
                    match (v.p, verdict) {
                        (None, _) => t[3] += 1,
                        (_, Some(true)) => t[0] += 1,
                        (_, Some(false)) => t[1] += 1,
                        (_, None) => t[2] += 1,
                    }
                }
            }
            table.push(row);
        }
        if table.is_empty() {
            continue;
        }
        b.push(Block::H(3, format!("Step `{step}`")));
        b.push(Block::Table(header, table));
        if !withheld.is_empty() {
            b.push(Block::P(
                "n/a: the guards withheld these figures of either engine:".into(),
            ));
            b.push(Block::List(withheld));
        }
    }
    let lines: Vec<String> = METRICS
        .iter()
        .flat_map(|(m, title)| {
            plan.steps()
                .into_iter()
                .filter_map(|st| {
                    let step = st.label();
                    let t = tally.get(&(*m, step.clone()))?;
                    Some(if t[3] > 0 && t[..3].iter().sum::<usize>() == 0 {
                        format!(
                            "{title}, step `{step}`: {} cells, too few repeats to test (needs {MIN_REPEATS} per engine); ratios only.",
                            t[3]
                        )
                    } else {
                        let (up, down) = if judged(m) {
                            ("better", "worse")
                        } else {
                            ("higher", "lower")
                        };
                        format!(
                            "{title}, step `{step}`: Strata {up} in {}, {down} in {}, no difference shown in {}{}.",
                            t[0],
                            t[1],
                            t[2],
                            if t[3] > 0 {
                                format!(", not tested in {}", t[3])
                            } else {
                                String::new()
                            }
                        )
                    })
                })
                .collect::<Vec<_>>()
        })
        .collect();
    if tally.values().all(|t| t[..3].iter().sum::<usize>() == 0) {
        b.insert(
            2,
            Block::P(format!(
                "Too few repeats to test (the test needs {MIN_REPEATS} per engine): ratios only."
            )),
        );
    } else if !lines.is_empty() {
        b.insert(2, Block::List(lines));
    }
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::sample_row;

    /// One row per repeat of `engine`, with `metric` set to each value.
    fn rows_of(engine: &str, metric: &str, values: &[f64]) -> Vec<ResultRow> {
        values
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let mut r = sample_row();
                r.engine = engine.into();
                r.repeat = i as u32;
                r.metrics.insert(metric.into(), *v);
                r
            })
            .collect()
    }

    fn rows(engine: &str, waf: &[f64]) -> Vec<ResultRow> {
        rows_of(engine, "waf", waf)
    }

    fn labels() -> BTreeMap<String, String> {
        sample_row().cell
    }

    #[test]
    fn one_section_per_other_engine_that_ran() {
        let spec = crate::spec::parse(
            "name = \"t\"\ntitle = \"T\"\nquestion = \"Q\"\nengines = [\"strata\", \"leveldb\", \"fjall\"]\n\
             [flags]\nnum = 1\n[[axis]]\nname = \"value_size\"\nvalues = [100]\n\
             [[step]]\nbenchmarks = \"fillrandom\"\n[scales.quick]\nflags = { num = 1 }\n",
            std::path::Path::new("t.toml"),
        )
        .unwrap();
        let plan = crate::model::expand(&spec, "quick", Some(1), None).unwrap();
        let mut r = rows("strata", &[1.0]);
        r.extend(rows("leveldb", &[2.0]));
        let titles = |b: &[Block]| -> Vec<String> {
            b.iter()
                .filter_map(|b| match b {
                    Block::H(2, t) => Some(t.clone()),
                    _ => None,
                })
                .collect()
        };
        assert_eq!(titles(&section(&plan, &r)), ["Strata against LevelDB"]);
        r.extend(rows("fjall", &[1.0]));
        r.extend(rows("rocksdb", &[1.0]));
        assert_eq!(
            titles(&section(&plan, &r)),
            [
                "Strata against RocksDB",
                "Strata against LevelDB",
                "Strata against fjall"
            ]
        );
        let v = versus_with(&r, "leveldb", "fillrandom", &labels(), "waf").unwrap();
        assert_eq!(v.ratio, 0.5);
    }

    #[test]
    fn separated_repeats_are_a_difference_and_overlapping_ones_are_not() {
        let mut r = rows("strata", &[1.40, 1.41, 1.39, 1.42, 1.40]);
        r.extend(rows("rocksdb", &[1.04, 1.03, 1.05, 1.04, 1.06]));
        let v = versus(&r, "fillrandom", &labels(), "waf").unwrap();
        assert_eq!(v.n, (5, 5));
        assert!((v.ratio - 1.40 / 1.04).abs() < 1e-12);
        assert_eq!(v.direction(), Some(true));
        assert_eq!(v.better("waf"), Some(false));
        assert_eq!(v.better("ops_sec"), Some(true));
        let text = v.cell_text("waf");
        assert!(text.starts_with("1.346 worse (p "), "{text}");
        assert!(v.cell_text("ops_sec").contains("better"));
        // Two-valued on both engines: a ratio of medians of 1.3, no difference shown.
        let mut r = rows("strata", &[1.70, 1.38, 1.70, 1.39, 1.71]);
        r.extend(rows("rocksdb", &[1.38, 1.70, 1.37, 1.69, 1.38]));
        let v = versus(&r, "fillrandom", &labels(), "waf").unwrap();
        assert!(v.ratio > 1.2);
        assert_eq!(v.direction(), None);
        // Strata lower.
        let mut r = rows("strata", &[0.9, 0.91, 0.92, 0.9]);
        r.extend(rows("rocksdb", &[1.0, 1.01, 1.02, 1.0]));
        let v = versus(&r, "fillrandom", &labels(), "waf").unwrap();
        assert_eq!(v.direction(), Some(false));
    }

    #[test]
    fn l0_files_per_merge_is_higher_or_lower_never_better_or_worse() {
        let mk = |engine: &str, xs: &[f64]| rows_of(engine, "l0_files_per_merge", xs);
        let mut r = mk("strata", &[4.0, 4.1, 4.0, 4.2, 4.0]);
        r.extend(mk("rocksdb", &[5.5, 5.6, 5.4, 5.5, 5.7]));
        let v = versus(&r, "fillrandom", &labels(), "l0_files_per_merge").unwrap();
        assert_eq!(v.direction(), Some(false));
        assert_eq!(v.better("l0_files_per_merge"), None);
        let text = v.cell_text("l0_files_per_merge");
        assert!(text.contains(" lower (p "), "{text}");
        assert!(!text.contains("worse") && !text.contains("better"));
    }

    #[test]
    fn three_repeats_give_a_ratio_without_a_test() {
        let mut r = rows("strata", &[2.0, 2.1, 2.2]);
        r.extend(rows("rocksdb", &[1.0, 1.1, 1.2]));
        let v = versus(&r, "fillrandom", &labels(), "waf").unwrap();
        assert_eq!(v.p, None);
        assert_eq!(v.direction(), None);
        assert_eq!(v.cell_text("waf"), format!("{:.3}", 2.1 / 1.1));
        assert!(versus(&r, "fillrandom", &labels(), "ops_sec_missing").is_none());
        assert!(versus(&rows("strata", &[1.0]), "fillrandom", &labels(), "waf").is_none());
    }

    #[test]
    fn a_withheld_metric_prints_n_a_with_its_reason() {
        let mut r = rows_of("strata", "p99", &[0.5, 0.6]);
        r.extend(rows_of("rocksdb", "p99", &[3.0, 4.0]));
        for x in &mut r {
            x.metrics.insert("operations".into(), 100.0);
        }
        crate::guards::apply(&mut r);
        assert!(versus(&r, "fillrandom", &labels(), "p99").is_none());
        let spec = "name = \"t\"\ntitle = \"t\"\nquestion = \"q\"\n[[axis]]\nname = \"value_size\"\nvalues = [100]\n[[step]]\nbenchmarks = \"fillrandom\"\n[scales.quick]\n";
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("t.toml");
        std::fs::write(&path, spec).unwrap();
        let plan =
            crate::model::expand(&crate::spec::load(&path).unwrap(), "quick", None, None).unwrap();
        let text = crate::doc::markdown(&section(&plan, &r));
        assert!(text.contains("| 100 | 2/2 | 1.0000 | n/a |"), "{text}");
        assert!(
            text.contains("- p99: below 1 us, the histogram's resolution"),
            "{text}"
        );
    }

    #[test]
    fn median_of_odd_and_even_samples() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }
}
