//! The index of a results folder: one row per study directory in it
//! (study, scale, repeats, engines that ran, when, which commit) and each
//! engine's verdict summary, written as `index.md` beside the studies.

use std::fmt::Write;
use std::path::{Path, PathBuf};

use crate::data::aggregate::engines;
use crate::report::study::load_study;
use crate::report::verdicts::summaries;
use crate::run::layout::{study_dirs, Meta};

/// A UTC date (`YYYY-MM-DD`) from seconds since 1970.
pub(crate) fn utc_date(unix: u64) -> String {
    // Civil date from days (Howard Hinnant's algorithm).
    let z = (unix / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

/// A UTC date and minute (`YYYY-MM-DD HH:MM`) from seconds since 1970.
pub(crate) fn utc_minute(unix: u64) -> String {
    let m = unix % 86_400 / 60;
    format!("{} {:02}:{:02}", utc_date(unix), m / 60, m % 60)
}

/// When the runs of `rows` started: `first to last` (UTC), or `None`
/// when no row records its start.
pub(crate) fn run_span(rows: &[crate::data::results::ResultRow]) -> Option<String> {
    let (lo, hi) = rows
        .iter()
        .map(|r| r.started_unix)
        .filter(|t| *t > 0)
        .fold((u64::MAX, 0), |(lo, hi), t| (lo.min(t), hi.max(t)));
    if lo == u64::MAX {
        return None;
    }
    let (a, b) = (utc_minute(lo), utc_minute(hi));
    Some(if a == b {
        format!("{a} UTC")
    } else if a[..10] == b[..10] {
        format!("{a} to {} UTC", &b[11..])
    } else {
        format!("{a} to {b} UTC")
    })
}

/// The command that writes a study's folder again into `out`: the study
/// argument and options of the run's own command line (`meta.command`),
/// with the output root set to `out` and an external db_bench's path left
/// for the user to fill in (`bundled` for LevelDB's db_bench built with
/// the binary); from the run's facts when no command line was
/// recorded.
pub(crate) fn regenerate_command(meta: &Meta, out: &str) -> String {
    let words: Vec<&str> = meta.command.split_whitespace().collect();
    let study = words
        .iter()
        .position(|w| *w == "run")
        .and_then(|i| words.get(i + 1))
        .map_or(meta.study.as_str(), |w| *w);
    let mut cmd = format!(
        "strata lab run {study} --scale {} --repeats {} --engines {}",
        meta.scale,
        meta.repeats,
        meta.engines_requested.join(",")
    );
    if let Some(max) = meta
        .schedule
        .iter()
        .max()
        .filter(|_| meta.schedule.len() > 1)
    {
        let _ = write!(cmd, " --until-decided --max-repeats {max}");
        if let Some(b) = words
            .iter()
            .position(|w| *w == "--budget")
            .and_then(|i| words.get(i + 1))
        {
            let _ = write!(cmd, " --budget {b}");
        }
    }
    for (k, v) in &meta.set {
        let _ = write!(cmd, " --set {k}={v}");
    }
    for o in &meta.only {
        let _ = write!(cmd, " --only {o}");
    }
    for e in meta.engines_run.iter().filter(|e| e.external) {
        // LevelDB's db_bench built with the binary is named as it was
        // asked for; any other is a path for the user to fill in.
        let bench = if e.how.contains("`--leveldb-bench bundled`") {
            "bundled".to_string()
        } else {
            e.engine.to_uppercase() + "_DB_BENCH"
        };
        let _ = write!(cmd, " --{}-bench {bench}", e.engine);
    }
    let _ = write!(cmd, " --out {out}");
    cmd
}

/// Writes `DIR/index.md` for the study directories under `dir`; its path.
pub(crate) fn write_index(dir: &Path) -> anyhow::Result<PathBuf> {
    let dirs: Vec<PathBuf> = study_dirs(dir)
        .into_iter()
        .filter(|d| d.parent() == Some(dir))
        .collect();
    if dirs.is_empty() {
        anyhow::bail!(
            "{}: no study directories (with meta.json) in it",
            dir.display()
        );
    }
    let mut table = String::from(
        "| study | scale | repeats | engines | date (UTC) | commit | folder |\n|---|---|---|---|---|---|---|\n",
    );
    let mut verdicts = String::new();
    for d in &dirs {
        let (plan, rows, meta) = load_study(d)?;
        let name = d
            .file_name()
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        let ran = engines(&plan, &rows).join(", ");
        let (lo, hi) = rows
            .iter()
            .map(|r| r.started_unix)
            .filter(|t| *t > 0)
            .fold((u64::MAX, 0), |(lo, hi), t| (lo.min(t), hi.max(t)));
        let date = match (lo, hi) {
            (u64::MAX, _) => "unknown".to_string(),
            (a, b) if utc_date(a) == utc_date(b) => utc_date(a),
            (a, b) => format!("{} to {}", utc_date(a), utc_date(b)),
        };
        let mut commits: Vec<String> = rows
            .iter()
            .map(|r| {
                let c = r.git_commit.clone().unwrap_or_else(|| "unknown".into());
                c.chars().take(12).collect()
            })
            .collect();
        commits.sort();
        commits.dedup();
        let _ = writeln!(
            table,
            "| {} | {} | {} | {} | {date} | {} | [{name}]({name}/report.md) |",
            plan.loaded.spec.name,
            plan.scale,
            match meta.schedule.as_slice() {
                [first, .., last] => format!("{first} to {last} (adaptive)"),
                _ => plan.repeats.to_string(),
            },
            if ran.is_empty() { "none".into() } else { ran },
            commits.join(", "),
        );
        let _ = writeln!(
            verdicts,
            "\n### {} ({}, `{}` scale)\n",
            plan.loaded.spec.title, name, plan.scale
        );
        let _ = writeln!(
            verdicts,
            "Regenerate: `{}`\n",
            regenerate_command(&meta, &dir.display().to_string())
        );
        // Verdicts read as the report reads them (adaptive repeats: 5% over the looks).
        let (answer, lines) = crate::judge::verdict::estimate::with_looks(meta.looks(), || {
            (
                crate::report::answer::summary(&plan, &rows),
                summaries(&plan, &rows),
            )
        });
        if let Some(a) = answer {
            let _ = writeln!(verdicts, "**Answer.** {a}\n");
        }
        if lines.is_empty() {
            let _ = writeln!(verdicts, "No published claims to judge.");
        }
        for l in lines {
            let _ = writeln!(verdicts, "- {l}");
        }
    }
    let text = format!(
        "# Results\n\nOne folder per study run: its report (`report.md`, and `report.html` with the charts inline), the charts, `results.csv` (the main metrics of every run) and `results.jsonl` (every figure of every run; `results.jsonl.gz` where stored compressed), from which `strata lab report FOLDER` writes the report again. Each study below names the command that runs it again into this folder. Written by `strata lab index`.\n\n{table}\n## Verdicts on the published claims\n{verdicts}"
    );
    let out = dir.join("index.md");
    std::fs::write(&out, text)?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::{regenerate_command, utc_date, utc_minute};
    use crate::run::engines::EngineCmd;
    use crate::run::layout::Meta;

    #[test]
    fn the_regenerate_command_keeps_the_study_and_options_and_sets_the_output() {
        let engine = |e: &str, external: bool| EngineCmd {
            engine: e.into(),
            prefix: vec![],
            how: String::new(),
            external,
            leveldb: None,
        };
        let meta = Meta {
            study: "ycsb".into(),
            scale: "full".into(),
            repeats: 3,
            engines_requested: vec!["strata".into(), "leveldb".into()],
            engines_run: vec![engine("strata", false), engine("leveldb", true)],
            notes: vec![],
            set: vec![("value_size".into(), "4096".into())],
            only: vec!["keys=default".into()],
            command: "/x/strata lab run sweeps/ycsb.toml --scale full --out /tmp/r".into(),
            ..Meta::default()
        };
        assert_eq!(
            regenerate_command(&meta, "docs/results"),
            "strata lab run sweeps/ycsb.toml --scale full --repeats 3 --engines strata,leveldb \
             --set value_size=4096 --only keys=default --leveldb-bench LEVELDB_DB_BENCH --out docs/results"
        );
        let old = Meta {
            command: String::new(),
            ..meta
        };
        assert!(regenerate_command(&old, "r").starts_with("strata lab run ycsb --scale full"));
        // LevelDB's db_bench built with the binary: named as asked for.
        let mut bundled = old.clone();
        bundled.engines_run[1].how =
            "LevelDB's own db_bench built with this binary (`--leveldb-bench bundled`: ...) `/t/db_bench`, LevelDB 1.22".into();
        assert!(regenerate_command(&bundled, "r").ends_with(" --leveldb-bench bundled --out r"));
        // Adaptive repeats: the flags that ran them.
        let adaptive = Meta {
            schedule: vec![10, 20],
            command: "/x/strata lab run bloom --scale full --until-decided --max-repeats 20 --budget 85 --out /tmp/r".into(),
            engines_run: vec![engine("strata", false)],
            engines_requested: vec!["strata".into()],
            set: vec![],
            only: vec![],
            ..old
        };
        assert_eq!(
            regenerate_command(&adaptive, "r"),
            "strata lab run bloom --scale full --repeats 3 --engines strata --until-decided --max-repeats 20 --budget 85 --out r"
        );
    }

    #[test]
    fn dates_are_civil_utc_dates() {
        assert_eq!(utc_date(0), "1970-01-01");
        assert_eq!(utc_date(951_782_400), "2000-02-29");
        assert_eq!(utc_date(1_795_709_480), "2026-11-26");
        assert_eq!(utc_minute(1_795_709_480), "2026-11-26 16:11");
        assert_eq!(utc_date(1_798_761_599), "2026-12-31");
    }
}
