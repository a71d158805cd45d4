//! The `stats` output of `strata bench --engine=fjall`: tables per level,
//! then a summary line (fjall tells no bytes read or written, so there is
//! no W-Amp):
//!
//! ```text
//! Level Files
//! -----------
//!     0     2
//!     1     0
//! fjall: 7 tables 3145728 bytes, 4 compactions 0.250 s, disk space 70254592 bytes, 1 journals
//! ```

use super::compaction_table::{CompactionRow, DbStats};
use super::number::num;

/// The start of the summary line.
pub const PREFIX: &str = "fjall: ";

/// What fjall tells about its tree (`Database` and keyspace getters).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FjallSummary {
    /// Tables in the keyspace.
    pub tables: usize,
    /// Bytes of those tables.
    pub table_bytes: u64,
    /// Compactions completed.
    pub compactions: usize,
    /// Time all compactions took.
    pub compacting_secs: f64,
    /// Disk space of the database (tables and journals).
    pub disk_bytes: u64,
    /// Journal files.
    pub journals: usize,
}

/// The summary line (without a newline).
pub fn fjall_line(f: &FjallSummary) -> String {
    format!(
        "{PREFIX}{} tables {} bytes, {} compactions {:.3} s, disk space {} bytes, {} journals",
        f.tables, f.table_bytes, f.compactions, f.compacting_secs, f.disk_bytes, f.journals
    )
}

/// The whole text: `(level, tables)` rows, then the summary line when
/// given (`rocksdb.stats`; `rocksdb.levelstats` has the table only).
pub fn format_fjall_stats(levels: &[(usize, usize)], summary: Option<&FjallSummary>) -> String {
    let mut s = String::from("Level Files\n-----------\n");
    for (level, n) in levels {
        s.push_str(&format!("{level:>5} {n:>5}\n"));
    }
    if let Some(f) = summary {
        s.push_str(&fjall_line(f));
        s.push('\n');
    }
    s
}

/// The summary line's figures.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SummaryLine {
    /// Tables.
    pub tables: f64,
    /// Bytes of the tables.
    pub bytes: f64,
    /// Seconds compacting.
    pub compacting_secs: f64,
}

impl SummaryLine {
    /// The figures, if `line` is the summary line.
    pub fn parse(line: &str) -> Option<Self> {
        let r: Vec<&str> = line.strip_prefix(PREFIX)?.split_whitespace().collect();
        let n = |i: usize| r.get(i).and_then(|v| num(v));
        Some(Self {
            tables: n(0)?,
            bytes: n(2)?,
            compacting_secs: n(6)?,
        })
    }
}

/// A table row, `    0     2`: (level, tables).
pub fn level_row(line: &str) -> Option<(u32, u64)> {
    let t: Vec<&str> = line.split_whitespace().collect();
    match t.as_slice() {
        [level, files] => Some((level.parse().ok()?, files.parse().ok()?)),
        _ => None,
    }
}

/// Parses the text into rows `L0`.. (`Files`) and a `Sum` row (`Files`,
/// `Size(MB)` in MiB, `Comp(sec)`).
pub fn parse_fjall_stats(text: &str) -> DbStats {
    let mut out = DbStats::default();
    let row = |level: String, cells: &[(&str, String)]| CompactionRow {
        level,
        columns: cells
            .iter()
            .map(|(k, v)| ((*k).to_string(), v.clone()))
            .collect(),
    };
    for line in text.lines() {
        if line.starts_with(PREFIX) {
            if let Some(s) = SummaryLine::parse(line) {
                out.levels.push(row(
                    "Sum".into(),
                    &[
                        ("Files", format!("{}", s.tables)),
                        ("Size(MB)", format!("{:.3}", s.bytes / 1048576.0)),
                        ("Comp(sec)", format!("{:.3}", s.compacting_secs)),
                    ],
                ));
            }
        } else if let Some((level, files)) = level_row(line) {
            out.levels
                .push(row(format!("L{level}"), &[("Files", files.to_string())]));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dbbench_text::{parse_db_stats, parse_output};

    const SUMMARY: FjallSummary = FjallSummary {
        tables: 7,
        table_bytes: 3145728,
        compactions: 4,
        compacting_secs: 0.25,
        disk_bytes: 70254592,
        journals: 1,
    };

    #[test]
    fn writes_the_stats_text() {
        assert_eq!(
            format_fjall_stats(&[(0, 2), (1, 0)], Some(&SUMMARY)),
            "Level Files\n-----------\n    0     2\n    1     0\n\
             fjall: 7 tables 3145728 bytes, 4 compactions 0.250 s, disk space 70254592 bytes, 1 journals\n"
        );
        assert_eq!(
            format_fjall_stats(&[(0, 2)], None),
            "Level Files\n-----------\n    0     2\n"
        );
    }

    /// What `format_fjall_stats` writes reads back, as rows and in a
    /// whole output.
    #[test]
    fn written_stats_read_back() {
        let levels: Vec<(usize, usize)> =
            vec![(0, 2), (1, 0), (2, 5), (3, 0), (4, 0), (5, 0), (6, 0)];
        let text = format_fjall_stats(&levels, Some(&SUMMARY));
        let s = parse_db_stats(&text);
        let names: Vec<&str> = s.levels.iter().map(|r| r.level.as_str()).collect();
        assert_eq!(names, ["L0", "L1", "L2", "L3", "L4", "L5", "L6", "Sum"]);
        assert_eq!(s.levels[0].num("Files"), Some(2.0));
        let sum = s.levels.last().unwrap();
        assert_eq!(sum.num("Files"), Some(7.0));
        assert_eq!(sum.num("Size(MB)"), Some(3.0));
        assert_eq!(sum.num("Comp(sec)"), Some(0.25));
        assert_eq!(sum.num("W-Amp"), None);
        let out = format!(
            "fillrandom   :       2.000 micros/op 500000 ops/sec 0.400 seconds 200000 operations;   55.3 MB/s\n\n{text}\n"
        );
        let o = parse_output(&out, "");
        assert_eq!(o.compaction_sum.get("Files"), Some(&7.0));
        assert_eq!(o.compaction_sum.get("Size(MB)"), Some(&3.145728));
        assert_eq!(o.compaction_sum.get("Comp(sec)"), Some(&0.25));
        assert_eq!(o.compaction_sum.get("W-Amp"), None);
        assert_eq!(o.compaction_l0.get("Files"), Some(&2.0));
    }
}
