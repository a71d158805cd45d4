//! What each claim line links to: the chart its metric is drawn in, and
//! `claims/<id>.csv` beside the report, the rows its verdicts read.

use std::collections::BTreeSet;
use std::path::Path;

use crate::data::aggregate::engines;
use crate::data::results::{write_csv_to, ResultRow};
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

/// The columns of `results.csv` a claim's rows leave out: what ran a row
/// (the engine's version, the commit, the host, the command) and what is
/// the same on every row of the study. `results.csv` beside the report has
/// them on the same key (engine, cell id, repeat, step); left out here so
/// that a study's claims, which read many of the same rows, do not store
/// each long command line again per claim.
const RUN_COLUMNS: [&str; 9] = [
    "schema_version",
    "study",
    "scale",
    "engine_version",
    "git_commit",
    "host",
    "cores",
    "fs_type",
    "command",
];

/// Writes `claims/<id>.csv` under `sdir` for each finding judged at this
/// scale: the rows of `raw` (the study's rows as stored, before the guards
/// withhold any figure) its verdicts read on the engines that ran, as
/// `results.csv` has them when the folder has one (its lines, whichever
/// columns it was written with), else as `results.csv` would, without the
/// [`RUN_COLUMNS`]. Files of earlier reports in the folder are replaced.
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
    let results = sdir.join("results.csv");
    let (header, records) = if results.exists() {
        keyed_csv(std::fs::File::open(&results)?, &results)?
    } else {
        // As results.csv would have them.
        let mut text = Vec::new();
        write_csv_to(&mut text, raw)?;
        keyed_csv(text.as_slice(), &results)?
    };
    let kept: Vec<usize> = (0..header.len())
        .filter(|i| !RUN_COLUMNS.contains(&&header[*i]))
        .collect();
    for f in findings {
        let keys: BTreeSet<Key> = rows_read(plan, raw, f, &ran)
            .iter()
            .map(|r| {
                (
                    r.engine.clone(),
                    r.cell_id.clone(),
                    r.repeat.to_string(),
                    r.step.clone(),
                )
            })
            .collect();
        let mut w = csv::Writer::from_path(sdir.join(csv_path(f)))?;
        w.write_record(kept.iter().map(|i| &header[*i]))?;
        for (k, rec) in &records {
            if keys.contains(k) {
                w.write_record(kept.iter().map(|i| rec.get(*i).unwrap_or_default()))?;
            }
        }
        w.flush()?;
    }
    Ok(())
}

/// What identifies a row of `results.csv`: engine, cell id, repeat, step.
type Key = (String, String, String, String);

/// The header and records of `results.csv` (as read from `input`; `path`
/// names it in errors), each record with its key.
#[allow(clippy::type_complexity)]
fn keyed_csv(
    input: impl std::io::Read,
    path: &Path,
) -> anyhow::Result<(csv::StringRecord, Vec<(Key, csv::StringRecord)>)> {
    let mut r = csv::Reader::from_reader(input);
    let header = r.headers()?.clone();
    let col = |n: &str| {
        header
            .iter()
            .position(|h| h == n)
            .ok_or_else(|| anyhow::anyhow!("{}: no column `{n}`", path.display()))
    };
    let (e, c, rp, st) = (
        col("engine")?,
        col("cell_id")?,
        col("repeat")?,
        col("step")?,
    );
    let mut out = Vec::new();
    for rec in r.records() {
        let rec = rec?;
        let get = |i: usize| rec.get(i).unwrap_or_default().to_string();
        out.push(((get(e), get(c), get(rp), get(st)), rec.clone()));
    }
    Ok((header, out))
}

/// A study with one published ratio on a charted metric, and its rows:
/// what the tests of the claim lines read.
#[cfg(test)]
pub(crate) mod fixture {
    use crate::data::results::ResultRow;
    use crate::spec::model::Plan;
    use crate::testutil::fill_row;

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
                let mut r = fill_row(c, i, base * (1.0 + j));
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
        // The header of results.csv without what ran each row.
        let whole = d.path().join("results.csv");
        crate::data::results::write_csv(&whole, &all).unwrap();
        let full: Vec<String> = csv::Reader::from_path(&whole)
            .unwrap()
            .headers()
            .unwrap()
            .iter()
            .map(String::from)
            .collect();
        let want: Vec<String> = full
            .iter()
            .filter(|h| !RUN_COLUMNS.contains(&h.as_str()))
            .cloned()
            .collect();
        assert_eq!(header, want);
        assert!(full.contains(&"command".to_string()));
        assert!(!header.contains(&"command".to_string()));
        let col = |n: &str| header.iter().position(|h| h == n).unwrap();
        let full_col = |n: &str| full.iter().position(|h| h == n).unwrap();
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
        // A stored results.csv (here without its metric columns but
        // ops_sec) gives the header and the lines, its command left out.
        let text = std::fs::read_to_string(&whole).unwrap();
        let mut w = csv::Writer::from_path(&whole).unwrap();
        let mut rd = csv::Reader::from_reader(text.as_bytes());
        let keep: Vec<usize> = [
            "engine", "cell_id", "repeat", "step", "ok", "ops_sec", "command",
        ]
        .iter()
        .map(|n| full_col(n))
        .collect();
        w.write_record(keep.iter().map(|i| &full[*i])).unwrap();
        for rec in rd.records() {
            let rec = rec.unwrap();
            w.write_record(keep.iter().map(|i| &rec[*i])).unwrap();
        }
        w.flush().unwrap();
        write(d.path(), &plan, &all).unwrap();
        let lines = std::fs::read_to_string(d.path().join("claims/gap.csv")).unwrap();
        let lines: Vec<&str> = lines.lines().collect();
        assert_eq!(lines[0], "engine,cell_id,repeat,step,ok,ops_sec");
        assert_eq!(lines.len(), 7, "{lines:?}");
        assert!(
            lines.contains(&"strata,\"bloom=none,fill=fillseq\",2,fill,true,102.96"),
            "{lines:?}"
        );
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
