//! Fixtures shared by the crate's unit tests: a study text read into a
//! plan, and result rows of one engine and metric.

use std::path::Path;

use crate::data::results::{sample_row, ResultRow};
use crate::spec::model::{expand, Cell, Plan};

/// The plan of study `text` at `scale` with the study's repeats and engines.
pub(crate) fn plan(text: &str, scale: &str) -> Plan {
    let l = crate::spec::parse(text, Path::new("t.toml")).unwrap_or_else(|e| panic!("{e}"));
    expand(&l, scale, None, None).unwrap()
}

/// Strata's row of the `fill` step in `cell`, repeat `repeat`, with
/// `ops_sec` set to `ops_sec`.
pub(crate) fn fill_row(cell: &Cell, repeat: usize, ops_sec: f64) -> ResultRow {
    let mut r = sample_row();
    r.engine = "strata".into();
    r.step = "fill".into();
    r.repeat = repeat as u32;
    r.cell = cell.labels.clone();
    r.cell_id = cell.id.clone();
    r.metrics.insert("ops_sec".into(), ops_sec);
    r
}

/// One row per repeat of `engine` (the sample row's cell and step), with
/// `metric` set to each value.
pub(crate) fn rows_of(engine: &str, metric: &str, values: &[f64]) -> Vec<ResultRow> {
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

/// Asserts that each `(from, to, want)` edit of `base` (its first `from`
/// replaced by `to`) is refused by `parse` with an error containing `want`.
pub(crate) fn assert_refused<T>(
    base: &str,
    cases: &[(&str, &str, &str)],
    parse: impl Fn(&str) -> anyhow::Result<T>,
) {
    for (from, to, want) in cases {
        let text = base.replacen(from, to, 1);
        assert_ne!(text, base, "{from}");
        let e = parse(&text).map(|_| ()).unwrap_err().to_string();
        assert!(e.contains(want), "{from} -> {to}: {e}");
    }
}

/// The `.toml` files of a folder of the repository (`tunes`,
/// `studies/capacity`), sorted; panics when there are none.
pub(crate) fn shipped(folder: &str) -> Vec<std::path::PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(folder);
    let mut v: Vec<std::path::PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    assert!(!v.is_empty(), "no files in {}", root.display());
    v
}
