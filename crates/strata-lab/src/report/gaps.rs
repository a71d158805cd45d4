//! Why a chart lacks a value: the guards withheld it, the engine skipped
//! the cell, its runs failed, or there is none. The chart draws the reason
//! on the value's stub.

use std::collections::BTreeMap;

use crate::data::results::ResultRow;
use crate::data::skipped::{is_skipped, skipped_cores, skipped_flag};
use crate::judge::guards::na_reason;
use crate::report::chart::NO_DATA;

/// The label of the stub drawn where `engine` has no value of `metric` in
/// `step` for the cell labelled `fixed`: "n/a: " and the guards' reason,
/// "skipped: ENGINE lacks --FLAG", "skipped: needs N cores, host has M",
/// "failed: ..." or "no data" (with the
/// metric the engine does not report, where its runs succeeded).
pub(crate) fn gap_label(
    rows: &[ResultRow],
    engine: &str,
    step: &str,
    fixed: &BTreeMap<String, String>,
    metric: &str,
) -> String {
    if let Some(why) = na_reason(rows, engine, step, fixed, metric) {
        return format!("n/a: {why}");
    }
    let cell: Vec<&ResultRow> = rows
        .iter()
        .filter(|r| r.engine == engine && r.step == step)
        .filter(|r| fixed.iter().all(|(k, v)| r.cell.get(k) == Some(v)))
        .collect();
    if let Some(r) = cell.iter().find(|r| is_skipped(r)) {
        let msg = r.error.as_deref().unwrap_or("");
        if let Some((need, have)) = skipped_cores(msg) {
            return format!("skipped: needs {need} cores, host has {have}");
        }
        let (flag, _) = skipped_flag(msg);
        let what = if flag.is_empty() {
            "a flag this cell sets".to_string()
        } else {
            flag.replace('`', "")
        };
        return format!("skipped: {engine} lacks {what}");
    }
    if !cell.is_empty() && cell.iter().all(|r| !r.ok) {
        return "failed: every run of the cell failed".into();
    }
    if cell.iter().any(|r| r.ok) {
        return format!("{NO_DATA}: {engine} reports no {metric}");
    }
    NO_DATA.into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::results::sample_row;

    fn fixed() -> BTreeMap<String, String> {
        BTreeMap::from([("v".to_string(), "1".to_string())])
    }

    #[test]
    fn a_gap_names_the_guard_the_skip_or_nothing() {
        let mut r = sample_row();
        r.cell = fixed();
        r.step = "s".into();
        r.engine = "strata".into();
        r.metrics.clear();
        r.na.insert("p50".into(), "below 1 us".into());
        let mut skipped = r.clone();
        skipped.engine = "leveldb".into();
        skipped.ok = false;
        skipped.error = Some("skipped: leveldb lacks a flag this cell sets: ERROR: Not supported: flag '--enable_blob_files' (enable_blob_files=true) is not supported by LevelDB: LevelDB has no blob files".into());
        let mut pinned = skipped.clone();
        pinned.engine = "fjall".into();
        pinned.error = Some(crate::data::skipped::cores_skip(4, 2));
        let rows = [r, skipped, pinned];
        assert_eq!(
            gap_label(&rows, "strata", "s", &fixed(), "p50"),
            "n/a: below 1 us"
        );
        assert_eq!(
            gap_label(&rows, "fjall", "s", &fixed(), "p50"),
            "skipped: needs 4 cores, host has 2"
        );
        assert_eq!(
            gap_label(&rows, "leveldb", "s", &fixed(), "p50"),
            "skipped: leveldb lacks --enable_blob_files"
        );
        assert_eq!(
            gap_label(&rows, "strata", "s", &fixed(), "p99"),
            "no data: strata reports no p99"
        );
        assert_eq!(gap_label(&rows, "rocksdb", "s", &fixed(), "p50"), "no data");
    }
}
