//! What each claim line links to: the chart its metric is drawn in, and
//! `claims/<id>.csv` beside the report, the rows its verdicts read.

use std::path::Path;

use crate::data::aggregate::engines;
use crate::data::results::{write_csv, ResultRow};
use crate::judge::findings::rows_read;
use crate::report::verdicts::applicable;
use crate::spec::model::Plan;
use crate::spec::study::Finding;

/// The folder beside the report that holds each claim's rows.
pub(crate) const DIR: &str = "claims";

/// The file stem of a finding's rows: its id, with any character other
/// than a letter, a digit, `-`, `_` or `.` as `_`.
fn stem(f: &Finding) -> String {
    f.id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `claims/<id>.csv`, relative to the report.
pub(crate) fn csv_path(f: &Finding) -> String {
    format!("{DIR}/{}.csv", stem(f))
}

/// The chart (of those drawn, by id) that draws the finding's metric at
/// its step: the one along the finding's `along` axis with its series
/// axis if there is one, else the closest (along the same axis, then with
/// the same series), a chart along an axis before a trade-off chart.
pub(crate) fn chart_of(plan: &Plan, f: &Finding, drawn: &[String]) -> Option<String> {
    plan.loaded
        .spec
        .charts
        .iter()
        .map(|c| c.get_ref())
        .filter(|c| drawn.contains(&c.id))
        .filter(|c| c.step == f.step && c.metrics.contains(&f.metric))
        .max_by_key(|c| {
            let along = f.along.is_some() && f.along.as_ref() == Some(&c.x);
            let series = f.series_axis.is_some() && f.series_axis == c.series;
            // Among equals, the study's first.
            (
                along,
                series,
                c.x_metric.is_none(),
                std::cmp::Reverse(
                    plan.loaded
                        .spec
                        .charts
                        .iter()
                        .position(|d| d.get_ref().id == c.id),
                ),
            )
        })
        .map(|c| c.id.clone())
}

/// Writes `claims/<id>.csv` under `sdir` for each finding judged at this
/// scale: the header of `results.csv` and the rows of `raw` (the study's
/// rows as stored, before the guards withhold any figure) its verdicts
/// read on the engines that ran. Files of earlier reports in the folder
/// are replaced.
pub(crate) fn write(sdir: &Path, plan: &Plan, raw: &[ResultRow]) -> anyhow::Result<()> {
    let dir = sdir.join(DIR);
    if dir.is_dir() {
        for e in std::fs::read_dir(&dir)?.flatten() {
            if e.path().extension().is_some_and(|x| x == "csv") {
                std::fs::remove_file(e.path())?;
            }
        }
    }
    let findings = applicable(plan);
    if findings.is_empty() {
        return Ok(());
    }
    std::fs::create_dir_all(&dir)?;
    let ran = engines(plan, raw);
    for f in findings {
        let rows: Vec<ResultRow> = rows_read(plan, raw, f, &ran).into_iter().cloned().collect();
        write_csv(&sdir.join(csv_path(f)), &rows)?;
    }
    Ok(())
}

/// A study with one published ratio on a charted metric, and its rows:
/// what the tests of the claim lines read.
#[cfg(test)]
pub(crate) mod fixture {
    use crate::data::results::{sample_row, ResultRow};
    use crate::spec::model::Plan;

    const SPEC: &str = include_str!("../../testdata/studies/unit-statements.toml");

    /// The ratio claim `gap`: none over bloom64 at fillseq, published 1.042.
    pub(crate) const GAP: &str = "[[finding]]\nid = \"gap\"\nclaim = \"No filter writes faster.\"\npublished = \"180.24 MB/s without vs 172.92 MB/s with (1.042x)\"\nkind = \"ratio\"\nmetric = \"ops_sec\"\nstep = \"fill\"\nwhere = { fill = \"fillseq\" }\nseries_axis = \"bloom\"\nseries = [\"bloom64\", \"none\"]\nrange = [1.02, 1.08]\npublished_ratio = 1.042\n";

    /// The plan of the study with `findings` appended.
    pub(crate) fn plan(findings: &str) -> Plan {
        crate::testutil::plan(&format!("{SPEC}{findings}"), "quick")
    }

    /// Three repeats (1% apart) of strata per cell, none 4% above bloom64;
    /// a failed repeat at (none, fillseq) and a rocksdb row, which no
    /// claim reads (rocksdb is not among the study's engines).
    pub(crate) fn rows(plan: &Plan) -> Vec<ResultRow> {
        let mut out = Vec::new();
        for c in &plan.cells {
            let base = if c.labels["bloom"] == "none" {
                104.0
            } else {
                100.0
            };
            for (i, j) in [0.0, 0.01, -0.01, 0.0].iter().enumerate() {
                let mut r = sample_row();
                r.engine = "strata".into();
                r.step = "fill".into();
                r.repeat = i as u32;
                r.cell = c.labels.clone();
                r.cell_id = c.id.clone();
                r.metrics.insert("ops_sec".into(), base * (1.0 + j));
                if i == 3 {
                    r.ok = false;
                    r.error = Some("exit 1".into());
                }
                out.push(r.clone());
                if i == 0 {
                    r.engine = "rocksdb".into();
                    out.push(r);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::fixture::{plan, rows, GAP};
    use super::*;

    #[test]
    fn a_claims_csv_holds_the_rows_its_verdicts_read() {
        let d = tempfile::tempdir().unwrap();
        let plan = plan(GAP);
        let all = rows(&plan);
        // A file of an earlier report is replaced.
        std::fs::create_dir_all(d.path().join(DIR)).unwrap();
        std::fs::write(d.path().join("claims/gone.csv"), "x\n").unwrap();
        write(d.path(), &plan, &all).unwrap();
        assert!(!d.path().join("claims/gone.csv").exists());
        let mut r = csv::Reader::from_path(d.path().join("claims/gap.csv")).unwrap();
        let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
        // The header of results.csv.
        let whole = d.path().join("results.csv");
        write_csv(&whole, &all).unwrap();
        let want: Vec<String> = csv::Reader::from_path(&whole)
            .unwrap()
            .headers()
            .unwrap()
            .iter()
            .map(String::from)
            .collect();
        assert_eq!(header, want);
        let col = |n: &str| header.iter().position(|h| h == n).unwrap();
        let got: Vec<(String, String, String, String)> = r
            .records()
            .map(|rec| {
                let rec = rec.unwrap();
                (
                    rec[col("engine")].to_string(),
                    rec[col("cell_id")].to_string(),
                    rec[col("repeat")].to_string(),
                    rec[col("ok")].to_string(),
                )
            })
            .collect();
        // Both series at fillseq, three successful repeats each, strata
        // only: not fillrandom, not the failed repeat, not rocksdb.
        let mut want: Vec<(String, String, String, String)> = Vec::new();
        for b in ["none", "bloom64"] {
            for i in 0..3 {
                want.push((
                    "strata".into(),
                    format!("bloom={b},fill=fillseq"),
                    i.to_string(),
                    "true".into(),
                ));
            }
        }
        let (mut got, mut want) = (got, want);
        got.sort();
        want.sort();
        assert_eq!(got, want);
    }

    #[test]
    fn a_claim_links_the_chart_of_its_metric() {
        let plan = plan(GAP);
        let f = plan.loaded.spec.findings[0].get_ref();
        assert_eq!(chart_of(&plan, f, &["c".into()]), Some("c".into()));
        // A chart not drawn, or of another metric, is not linked.
        assert_eq!(chart_of(&plan, f, &[]), None);
        let mut g = f.clone();
        g.metric = "p99".into();
        assert_eq!(chart_of(&plan, &g, &["c".into()]), None);
        assert_eq!(csv_path(f), "claims/gap.csv");
    }
}
