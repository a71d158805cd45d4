//! The report's "Strata against <engine>" sections, one per other engine
//! that ran beside Strata: per step and cell, the ratio of the two engines'
//! medians and, with enough repeats, whether the test supports a
//! difference ([`crate::judge::versus`]).

use std::collections::BTreeMap;

use crate::data::metrics::{self, judged, Metric, View};
use crate::data::results::ResultRow;
use crate::judge::guards::na_reason;
use crate::judge::versus::{versus_with, Versus, ALPHA, MIN_REPEATS};
use crate::report::doc::Block;
use crate::spec::model::Plan;

/// The other engines Strata is compared with: (name, display name, initial).
pub(crate) const OTHERS: &[(&str, &str, &str)] = &[
    ("rocksdb", "RocksDB", "R"),
    ("leveldb", "LevelDB", "L"),
    ("fjall", "fjall", "F"),
];

/// One section per other engine that ran beside Strata; empty when none did.
pub(crate) fn section(plan: &Plan, rows: &[ResultRow]) -> Vec<Block> {
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
    let compared = metrics::in_view(View::Versus(0));
    let mut tally: BTreeMap<(&str, String), [usize; 4]> = BTreeMap::new();
    for st in plan.steps() {
        let step = st.label();
        let metrics: Vec<&Metric> = compared
            .iter()
            .copied()
            .filter(|m| {
                rows.iter().any(|r| {
                    r.ok && r.step == step
                        && (r.metrics.contains_key(m.name) || r.na.contains_key(m.name))
                })
            })
            .collect();
        let mut withheld: Vec<String> = Vec::new();
        let mut header: Vec<String> = plan.axes.iter().map(|a| a.name.clone()).collect();
        header.push(format!("repeats S/{initial}"));
        header.extend(metrics.iter().map(|m| format!("{} S/{initial}", m.label)));
        let mut table = Vec::new();
        for c in &plan.cells {
            let vs: Vec<Option<Versus>> = metrics
                .iter()
                .map(|m| versus_with(rows, other, &step, &c.labels, m.name))
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
            for (metric, v) in metrics.iter().zip(&vs) {
                let m = metric.name;
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
    let lines: Vec<String> = compared
        .iter()
        .flat_map(|metric| {
            let (m, title) = (metric.name, metric.label);
            plan.steps()
                .into_iter()
                .filter_map(|st| {
                    let step = st.label();
                    let t = tally.get(&(m, step.clone()))?;
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
    use crate::data::results::sample_row;
    use crate::testutil::rows_of;

    #[test]
    fn one_section_per_other_engine_that_ran() {
        let spec = crate::spec::parse(
            "name = \"t\"\ntitle = \"T\"\nquestion = \"Q\"\nengines = [\"strata\", \"leveldb\", \"fjall\"]\n\
             [flags]\nnum = 1\n[[axis]]\nname = \"value_size\"\nvalues = [100]\n\
             [[step]]\nbenchmarks = \"fillrandom\"\n[scales.quick]\nflags = { num = 1 }\n",
            std::path::Path::new("t.toml"),
        )
        .unwrap();
        let plan = crate::spec::model::expand(&spec, "quick", Some(1), None).unwrap();
        let mut r = rows_of("strata", "waf", &[1.0]);
        r.extend(rows_of("leveldb", "waf", &[2.0]));
        let titles = |b: &[Block]| -> Vec<String> {
            b.iter()
                .filter_map(|b| match b {
                    Block::H(2, t) => Some(t.clone()),
                    _ => None,
                })
                .collect()
        };
        assert_eq!(titles(&section(&plan, &r)), ["Strata against LevelDB"]);
        r.extend(rows_of("fjall", "waf", &[1.0]));
        r.extend(rows_of("rocksdb", "waf", &[1.0]));
        assert_eq!(
            titles(&section(&plan, &r)),
            [
                "Strata against RocksDB",
                "Strata against LevelDB",
                "Strata against fjall"
            ]
        );
        let v = versus_with(&r, "leveldb", "fillrandom", &sample_row().cell, "waf").unwrap();
        assert_eq!(v.ratio, 0.5);
    }

    #[test]
    fn a_withheld_metric_prints_n_a_with_its_reason() {
        let mut r = rows_of("strata", "p99", &[0.5, 0.6]);
        r.extend(rows_of("rocksdb", "p99", &[3.0, 4.0]));
        for x in &mut r {
            x.metrics.insert("operations".into(), 100.0);
        }
        crate::judge::guards::apply(&mut r);
        assert!(versus_with(&r, "rocksdb", "fillrandom", &sample_row().cell, "p99").is_none());
        let spec = "name = \"t\"\ntitle = \"t\"\nquestion = \"q\"\n[[axis]]\nname = \"value_size\"\nvalues = [100]\n[[step]]\nbenchmarks = \"fillrandom\"\n[scales.quick]\n";
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("t.toml");
        std::fs::write(&path, spec).unwrap();
        let plan =
            crate::spec::model::expand(&crate::spec::load(&path).unwrap(), "quick", None, None)
                .unwrap();
        let text = crate::report::doc::markdown(&section(&plan, &r));
        assert!(text.contains("| 100 | 2/2 | 1.0000 | n/a |"), "{text}");
        assert!(
            text.contains("- p99: below 1 us, the histogram's resolution"),
            "{text}"
        );
    }
}
