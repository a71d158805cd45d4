//! A study directory loaded for its report: the plan from its copy of the
//! study file, the rows with the guards applied, and the composite scores.

use crate::data::aggregate::{engines, values};
use crate::data::results::ResultRow;
use crate::data::score::score_against;
use crate::data::stats::summarize;
use crate::run::layout::read_meta;
use crate::spec::model::{expand_with, Plan};
use std::collections::BTreeMap;
use std::path::Path;

/// Loads the plan (from the study's `study.toml` copy) and rows of a study directory.
pub(crate) fn load_study(
    sdir: &Path,
) -> anyhow::Result<(Plan, Vec<ResultRow>, crate::run::layout::Meta)> {
    let meta = read_meta(sdir)?;
    let spec = crate::spec::load(&sdir.join("study.toml"))?;
    let mut plan = expand_with(
        &spec,
        &meta.scale,
        Some(meta.repeats),
        Some(meta.engines_requested.clone()),
        &meta.set,
    )?;
    plan.select_cells(&meta.only)?;
    let mut rows = crate::data::results::load_dir(sdir)?;
    crate::judge::guards::apply(&mut rows);
    add_scores(&plan, &mut rows);
    Ok((plan, rows, meta))
}

/// Adds the composite `score` metric (if the study defines one) to rows of
/// its step: each row's own metrics normalised against the best cell mean
/// (see [`score_against`]), so that repeats differ as their metrics do. A
/// row missing a weighted metric gets no score; when the guards withheld
/// that metric, the score is n/a with its reason.
pub(crate) fn add_scores(plan: &Plan, rows: &mut [ResultRow]) {
    let Some(sc) = plan.loaded.spec.score.as_ref().map(|s| s.get_ref().clone()) else {
        return;
    };
    for e in engines(plan, rows) {
        let cells: Vec<BTreeMap<String, f64>> = plan
            .cells
            .iter()
            .map(|c| {
                sc.weights
                    .keys()
                    .filter_map(|m| {
                        let v = values(rows, &e, &sc.step, &c.labels, m);
                        summarize(&v).map(|s| (m.clone(), s.mean))
                    })
                    .collect()
            })
            .collect();
        for r in rows
            .iter_mut()
            .filter(|r| r.ok && r.engine == e && r.step == sc.step)
        {
            match score_against(&r.metrics, &cells, &sc.weights, &sc.higher_is_better) {
                Some(v) => {
                    r.metrics.insert("score".into(), v);
                }
                None => {
                    let why = sc
                        .weights
                        .keys()
                        .find_map(|m| r.na.get(m).map(|why| format!("{m} is n/a: {why}")));
                    if let Some(why) = why {
                        r.na.insert("score".into(), why);
                    }
                }
            }
        }
    }
}
