//! `rocksdb.stats` (the `stats` benchmark): the per-level
//! `** Compaction Stats **` table, read by column header so versions with
//! extra columns (RocksDB 10's `WPreComp(GB)`) read too, and the DB stats
//! lines `Cumulative stall:` and `Flush(GB):`. The engine writes this text
//! (`strata::stats::compaction_table`).
//!
//! [`parse_db_stats`] also reads LevelDB's and fjall's `stats` text into the
//! same rows (see [`super::leveldb`], [`super::fjall`]).

use std::collections::BTreeMap;

use serde::Serialize;

use super::number::{count, num};
use super::{fjall, leveldb};

/// One row of a compaction table, keyed by column header.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CompactionRow {
    /// Row label: `L0`, `L1`, ..., `Sum`, `Int`.
    pub level: String,
    /// Column header -> text value (`Files` is `n/m`, `Size` has a unit:
    /// `97.39 KB`).
    pub columns: BTreeMap<String, String>,
}

impl CompactionRow {
    /// A numeric column (no `K`/`M`/`G` expansion).
    pub fn num(&self, column: &str) -> Option<f64> {
        self.columns.get(column)?.parse().ok()
    }

    /// Every column as a number (`75K` expanded, `Files` `6/5` read as 6,
    /// `Size` without its unit), plus `Size(MB)`: the size in 10^6 bytes.
    pub fn numbers(&self) -> BTreeMap<String, f64> {
        let mut row = BTreeMap::new();
        for (c, v) in &self.columns {
            let (v, unit) = v.split_once(' ').unwrap_or((v, ""));
            if let Some(x) = count(v) {
                row.insert(c.clone(), x);
                if let Some(scale) = unit_to_mb(unit) {
                    row.insert("Size(MB)".into(), x * scale);
                }
            }
        }
        row
    }
}

/// The header of a per-level table: `Level Files Size Score Read(GB) ...`.
#[derive(Debug, Clone, PartialEq)]
pub struct TableHeader(Vec<String>);

impl TableHeader {
    /// The header, if `line` (trimmed) is one.
    pub fn parse(line: &str) -> Option<Self> {
        (line.starts_with("Level ") && line.contains("W-Amp"))
            .then(|| Self(line.split_whitespace().map(str::to_string).collect()))
    }

    /// A row under this header. The Size column prints as two tokens
    /// (`24.99 MB`), kept together as one cell.
    pub fn row(&self, line: &str) -> Option<CompactionRow> {
        let mut t: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        if t.len() == self.0.len() + 1 && t.get(3).and_then(|u| unit_to_mb(u)).is_some() {
            let unit = t.remove(3);
            t[2] = format!("{} {unit}", t[2]);
        }
        if t.len() != self.0.len() {
            return None;
        }
        let mut t = t.into_iter();
        let level = t.next()?;
        Some(CompactionRow {
            level,
            columns: self.0.iter().skip(1).cloned().zip(t).collect(),
        })
    }
}

/// MB (10^6 bytes) per unit of the Size column, which prints binary units
/// (`KB` = 1024 bytes) as RocksDB's `BytesToHumanString`.
fn unit_to_mb(unit: &str) -> Option<f64> {
    let bytes = match unit {
        "B" => 1.0,
        "KB" => 1024.0,
        "MB" => 1024.0 * 1024.0,
        "GB" => 1024.0 * 1024.0 * 1024.0,
        "TB" => 1024.0 * 1024.0 * 1024.0 * 1024.0,
        _ => return None,
    };
    Some(bytes / 1e6)
}

/// `Cumulative stall: 00:00:0.371 H:M:S, 36.1 percent`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CumulativeStall {
    /// The time stalled, in seconds.
    pub seconds: Option<f64>,
    /// The percentage of the uptime.
    pub percent: Option<f64>,
}

impl CumulativeStall {
    /// The stall figures, if `line` is that line.
    pub fn parse(line: &str) -> Option<Self> {
        let rest = line.strip_prefix("Cumulative stall:")?;
        let seconds = rest.split_whitespace().next().and_then(|v| {
            let mut parts = v.split(':');
            let h = num(parts.next()?)?;
            let m = num(parts.next()?)?;
            let s = num(parts.next()?)?;
            Some(h * 3600.0 + m * 60.0 + s)
        });
        let percent = rest
            .rsplit(',')
            .next()
            .and_then(|p| p.trim().trim_end_matches("percent").trim().parse().ok());
        Some(Self { seconds, percent })
    }
}

/// Figures of one engine's `stats` text.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DbStats {
    /// Rows of the first per-level table.
    pub levels: Vec<CompactionRow>,
    /// `Cumulative stall: ..., X percent`.
    pub cumulative_stall_percent: Option<f64>,
    /// `Flush(GB): cumulative X` (LevelDB: the `LOG:` line's flushed bytes).
    pub flush_gb: Option<f64>,
}

impl DbStats {
    /// A row by label (`Sum`, `L0`).
    #[cfg(test)]
    pub fn row(&self, level: &str) -> Option<&CompactionRow> {
        self.levels.iter().find(|r| r.level == level)
    }
}

/// Parses the `stats` text of RocksDB, Strata, LevelDB or fjall (also
/// inside a larger output).
pub fn parse_db_stats(text: &str) -> DbStats {
    if text.contains(leveldb::HEADER) {
        return leveldb::parse_leveldb_stats(text);
    }
    if text.lines().any(|l| l.starts_with(fjall::PREFIX)) {
        return fjall::parse_fjall_stats(text);
    }
    let mut out = DbStats::default();
    let mut table: Option<TableHeader> = None;
    let mut seen_table = false;
    for line in text.lines().map(str::trim) {
        if let Some(h) = TableHeader::parse(line) {
            if !seen_table {
                table = Some(h);
                seen_table = true;
            }
        } else if line.is_empty() {
            table = None;
        } else if let Some(r) = table.as_ref().and_then(|h| h.row(line)) {
            out.levels.push(r);
        } else if let Some(s) = CumulativeStall::parse(line) {
            out.cumulative_stall_percent = s.percent;
        } else if let Some(rest) = line.strip_prefix("Flush(GB): cumulative ") {
            out.flush_gb = rest.split_whitespace().next().and_then(num);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const STALLS: &str = include_str!("../../testdata/stats/db_bench_7.8.3_stalls.txt");
    const LARGE: &str = include_str!("../../testdata/stats/db_bench_7.8.3_large.txt");

    #[test]
    fn reads_compaction_table() {
        let s = parse_db_stats(LARGE);
        let labels: Vec<&str> = s.levels.iter().map(|r| r.level.as_str()).collect();
        assert_eq!(labels, ["L0", "L1", "L2", "Sum", "Int"]);
        let l1 = &s.levels[1];
        assert_eq!(l1.columns.get("Files").map(String::as_str), Some("9/9"));
        assert_eq!(
            l1.columns.get("Size").map(String::as_str),
            Some("206.88 MB")
        );
        let sum = s.row("Sum").unwrap();
        assert_eq!(sum.num("Write(GB)"), Some(1.5));
        assert_eq!(sum.columns.get("KeyIn").map(String::as_str), Some("223K"));
        assert_eq!(sum.num("W-Amp"), Some(2.1));
        let n = sum.numbers();
        assert_eq!(n.get("KeyIn"), Some(&223_000.0));
        assert_eq!(n.get("Files"), Some(&37.0), "of `37/23`");
        assert_eq!(n["Size(MB)"], 672.34 * 1048576.0 / 1e6);
        let stalls = parse_db_stats(STALLS);
        assert_eq!(stalls.row("Sum").unwrap().num("W-Amp"), Some(4.2));
        assert_eq!(stalls.cumulative_stall_percent, Some(26.9));
    }

    /// The engine's own `rocksdb.stats` text reads back: the rows it
    /// printed, under RocksDB's headers.
    #[test]
    fn reads_the_engines_table_back() {
        use strata::tools::stats::{format_cf_stats, CompactionStatsInput, LevelStatsRow};
        let l0 = LevelStatsRow {
            files: 3,
            size_bytes: 3 << 20,
            write_bytes: 6 << 20,
            comp_count: 2,
            ..LevelStatsRow::default()
        };
        let text = format_cf_stats(&CompactionStatsInput {
            cf_name: "default".into(),
            levels: vec![l0],
            flush_bytes: 6 << 20,
            ..CompactionStatsInput::default()
        });
        let s = parse_db_stats(&text);
        let labels: Vec<&str> = s.levels.iter().map(|r| r.level.as_str()).collect();
        assert_eq!(labels, ["L0", "Sum", "Int"], "{text}");
        let l0 = s.levels[0].numbers();
        assert_eq!(l0["Files"], 3.0);
        assert_eq!(l0["Size(MB)"], 3.0 * 1048576.0 / 1e6, "{text}");
        assert_eq!(l0["Comp(cnt)"], 2.0);
    }

    #[test]
    fn stall_line() {
        let s = CumulativeStall::parse("Cumulative stall: 00:01:2.500 H:M:S, 36.1 percent");
        assert_eq!(
            s,
            Some(CumulativeStall {
                seconds: Some(62.5),
                percent: Some(36.1)
            })
        );
        assert_eq!(
            CumulativeStall::parse("Cumulative compaction: 0.00 GB"),
            None
        );
    }

    #[test]
    fn garbage_is_skipped() {
        let junk = "Level W-Amp\n  L0 1 2 3\nCumulative stall: x";
        let s = parse_db_stats(junk);
        assert!(s.levels.is_empty());
        assert_eq!(s.cumulative_stall_percent, None);
        assert_eq!(parse_db_stats("").row("Sum"), None);
    }
}
