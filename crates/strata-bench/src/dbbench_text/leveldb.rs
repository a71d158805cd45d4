//! LevelDB's `leveldb.stats` table (its `stats` benchmark): a row per
//! level with files, size (MiB), compaction time (whole seconds), and MiB
//! read and written, and the `LOG:` line `strata bench` prints after it
//! (from LevelDB's info LOG, whose timestamps time flushes and compactions
//! to the microsecond and give W-Amp; LevelDB's own db_bench prints no such
//! line):
//!
//! ```text
//!                                Compactions
//! Level  Files Size(MB) Time(sec) Read(MB) Write(MB)
//! --------------------------------------------------
//!   0        5        2         0        0        12
//! LOG: 28 flushes 13413408 bytes 0.231 s, 5 compactions 24673778 bytes 0.544 s, W-Amp 2.84
//! ```

use std::collections::BTreeMap;

use super::compaction_table::{CompactionRow, DbStats};
use super::number::num;
use crate::engine::leveldb_map::LogBytes;

/// The header line of the table.
pub(crate) const HEADER: &str = "Level  Files Size(MB) Time(sec) Read(MB) Write(MB)";

/// The `LOG:` line's figures.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct LogLine {
    /// Flushes (level-0 tables built).
    pub flushes: Option<f64>,
    /// Bytes the flushes wrote.
    pub flush_bytes: Option<f64>,
    /// Seconds of each timed part (flushes, then compactions).
    pub seconds: Vec<f64>,
    /// W-Amp: (flush + compaction bytes) / flush bytes; absent as `n/a`.
    pub w_amp: Option<f64>,
}

impl LogLine {
    /// The figures, if `line` is a `LOG:` line.
    pub fn parse(line: &str) -> Option<Self> {
        let t: Vec<&str> = line.strip_prefix("LOG: ")?.split_whitespace().collect();
        Some(Self {
            flushes: (t.get(1) == Some(&"flushes"))
                .then(|| t.first().and_then(|v| num(v)))
                .flatten(),
            flush_bytes: t.get(2).and_then(|v| num(v)),
            seconds: t
                .windows(2)
                .filter(|w| w[1] == "s,")
                .filter_map(|w| num(w[0]))
                .collect(),
            w_amp: t.last().and_then(|v| num(v)),
        })
    }

    /// Flush plus compaction seconds.
    pub fn total_seconds(&self) -> Option<f64> {
        (!self.seconds.is_empty()).then(|| self.seconds.iter().sum())
    }

    /// Mean microseconds per flush (LevelDB keeps no flush histogram).
    pub fn flush_micros_per_flush(&self) -> Option<f64> {
        let n = self.flushes.filter(|&n| n > 0.0)?;
        Some(self.seconds.first()? * 1e6 / n)
    }
}

/// The line the `stats` benchmark of `--engine=leveldb` prints after
/// `leveldb.stats`, from the info LOG's figures.
pub fn log_line(b: &LogBytes) -> String {
    let wamp = b
        .w_amp()
        .map_or_else(|| "n/a".to_string(), |w| format!("{w:.2}"));
    format!(
        "LOG: {} flushes {} bytes {:.3} s, {} compactions {} bytes {:.3} s, W-Amp {wamp}",
        b.flushes,
        b.flush_bytes,
        b.flush_micros as f64 / 1e6,
        b.compactions,
        b.compaction_bytes,
        b.compaction_micros as f64 / 1e6
    )
}

/// The table and `LOG:` line, read a line at a time; a later table
/// replaces an earlier one.
#[derive(Debug, Clone, Default)]
pub(crate) struct LevelDbStats {
    open: bool,
    seen: bool,
    /// Rows: level, files, size MiB, seconds, read MiB, written MiB.
    rows: Vec<[f64; 6]>,
    /// The last `LOG:` line.
    pub log: Option<LogLine>,
}

impl LevelDbStats {
    /// Takes `line` (trimmed) if it belongs to the table or is a `LOG:` line.
    pub fn read_line(&mut self, line: &str) -> bool {
        if line.starts_with(HEADER) {
            *self = Self {
                open: true,
                seen: true,
                ..Self::default()
            };
            return true;
        }
        if let Some(log) = LogLine::parse(line) {
            self.open = false;
            self.log = Some(log);
            return true;
        }
        if !self.open {
            return false;
        }
        if line.starts_with("---") {
            return true;
        }
        let v: Option<Vec<f64>> = line.split_whitespace().map(num).collect();
        match v {
            Some(v) if v.len() == 6 => {
                self.rows.push([v[0], v[1], v[2], v[3], v[4], v[5]]);
                true
            }
            _ => {
                self.open = false;
                false
            }
        }
    }

    /// Whether a table was read.
    pub fn seen(&self) -> bool {
        self.seen
    }

    fn sum(&self) -> [f64; 5] {
        let mut sum = [0.0; 5];
        for r in &self.rows {
            for (s, x) in sum.iter_mut().zip(&r[1..]) {
                *s += x;
            }
        }
        sum
    }

    /// The table summed into the columns RocksDB's `Sum` row gives
    /// (`Files`, `Size(MB)` in 10^6 bytes, `Comp(sec)`, `Read(GB)`,
    /// `Write(GB)`, and `W-Amp` and the LOG's `Comp(sec)` when the `LOG:`
    /// line is there), and the L0 row in the same columns (zeros without
    /// one).
    pub fn sum_and_l0(&self) -> (BTreeMap<String, f64>, BTreeMap<String, f64>) {
        let mib = 1048576.0 / 1e6;
        let cols = |r: [f64; 5]| -> BTreeMap<String, f64> {
            BTreeMap::from([
                ("Files".into(), r[0]),
                ("Size(MB)".into(), r[1] * mib),
                ("Comp(sec)".into(), r[2]),
                ("Read(GB)".into(), r[3] / 1024.0),
                ("Write(GB)".into(), r[4] / 1024.0),
            ])
        };
        let mut sum = cols(self.sum());
        if let Some(log) = &self.log {
            if let Some(w) = log.w_amp {
                sum.insert("W-Amp".into(), w);
            }
            if let Some(t) = log.total_seconds() {
                sum.insert("Comp(sec)".into(), t);
            }
        }
        let l0 = self
            .rows
            .iter()
            .rfind(|r| r[0] == 0.0)
            .map(|r| [r[1], r[2], r[3], r[4], r[5]]);
        (sum, cols(l0.unwrap_or_default()))
    }

    /// The rows as [`DbStats`] rows named as RocksDB names its columns
    /// (`Files`, `Size(MB)`, `Comp(sec)`, `Read(GB)`, `Write(GB)`, with
    /// LevelDB's `Read(MB)`, `Write(MB)` beside them), plus a `Sum` row;
    /// `W-Amp` (Sum row) and the flushed bytes come from the `LOG:` line.
    pub fn db_stats(&self) -> DbStats {
        let mut out = DbStats::default();
        for r in &self.rows {
            out.levels.push(row(format!("L{}", r[0]), &r[1..]));
        }
        if !out.levels.is_empty() {
            let mut sum = row("Sum".into(), &self.sum());
            if let Some(w) = self.log.as_ref().and_then(|l| l.w_amp) {
                sum.columns.insert("W-Amp".into(), format!("{w}"));
            }
            if let Some(secs) = self.log.as_ref().and_then(LogLine::total_seconds) {
                sum.columns.insert("Comp(sec)".into(), format!("{secs:.3}"));
            }
            out.levels.push(sum);
        }
        out.flush_gb = self
            .log
            .as_ref()
            .and_then(|l| l.flush_bytes)
            .map(|b| b / 1073741824.0);
        out
    }
}

/// `[files, size MB, time s, read MB, write MB]` as a row.
fn row(level: String, v: &[f64]) -> CompactionRow {
    let gb = |mb: f64| format!("{:.3}", mb / 1024.0);
    CompactionRow {
        level,
        columns: BTreeMap::from([
            ("Files".into(), format!("{}", v[0])),
            ("Size(MB)".into(), format!("{}", v[1])),
            ("Comp(sec)".into(), format!("{}", v[2])),
            ("Read(GB)".into(), gb(v[3])),
            ("Write(GB)".into(), gb(v[4])),
            ("Read(MB)".into(), format!("{}", v[3])),
            ("Write(MB)".into(), format!("{}", v[4])),
        ]),
    }
}

/// Parses `leveldb.stats` text (with the `LOG:` line when present).
pub(crate) fn parse_leveldb_stats(text: &str) -> DbStats {
    let mut s = LevelDbStats::default();
    for line in text.lines() {
        s.read_line(line.trim());
    }
    s.db_stats()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dbbench_text::parse_db_stats;
    use crate::dbbench_text::samples::LEVELDB_STATS;

    #[test]
    fn parses_leveldb_stats_into_rocksdb_columns() {
        let s = parse_leveldb_stats(LEVELDB_STATS);
        let names: Vec<&str> = s.levels.iter().map(|r| r.level.as_str()).collect();
        assert_eq!(names, ["L0", "L1", "L2", "Sum"]);
        let l1 = &s.levels[1];
        assert_eq!(l1.num("Files"), Some(4.0));
        assert_eq!(l1.num("Size(MB)"), Some(7.0));
        assert_eq!(l1.num("Comp(sec)"), Some(0.0), "whole seconds");
        assert_eq!(l1.num("Read(MB)"), Some(27.0));
        assert_eq!(l1.num("Write(GB)"), Some(0.023));
        assert_eq!(l1.num("W-Amp"), None, "only the Sum row has W-Amp");
        let sum = &s.levels[3];
        assert_eq!(sum.num("Files"), Some(10.0));
        assert_eq!(sum.num("Write(MB)"), Some(36.0));
        assert_eq!(sum.num("W-Amp"), Some(2.84));
        assert_eq!(
            sum.num("Comp(sec)"),
            Some(0.775),
            "the LOG's flush + compaction time"
        );
        assert_eq!(s.flush_gb, Some(13413408.0 / 1073741824.0));
        assert_eq!(s.cumulative_stall_percent, None, "LevelDB reports none");
        assert_eq!(parse_db_stats(LEVELDB_STATS), s);
        // Without the LOG line: no W-Amp rather than a made-up one.
        let bare: String = LEVELDB_STATS
            .lines()
            .filter(|l| !l.starts_with("LOG"))
            .map(|l| format!("{l}\n"))
            .collect();
        let s = parse_leveldb_stats(&bare);
        assert_eq!(s.levels.last().unwrap().num("W-Amp"), None);
        assert_eq!(s.flush_gb, None);
    }

    /// What `log_line` writes reads back.
    #[test]
    fn written_log_line_reads_back() {
        let b = LogBytes {
            flushes: 2,
            flush_bytes: 2000,
            flush_micros: 200_000,
            compactions: 1,
            compaction_bytes: 1900,
            compaction_micros: 100_000,
        };
        let l = LogLine::parse(&log_line(&b)).unwrap();
        assert_eq!(l.flushes, Some(2.0));
        assert_eq!(l.flush_bytes, Some(2000.0));
        assert_eq!(l.seconds, [0.2, 0.1]);
        assert_eq!(l.w_amp, Some(1.95));
        assert_eq!(l.flush_micros_per_flush(), Some(100_000.0));
        let none = LogLine::parse(&log_line(&LogBytes::default())).unwrap();
        assert_eq!((none.w_amp, none.flush_micros_per_flush()), (None, None));
    }

    #[test]
    fn a_later_table_replaces_an_earlier_one() {
        let mut s = LevelDbStats::default();
        for l in LEVELDB_STATS.lines().chain(LEVELDB_STATS.lines()) {
            s.read_line(l.trim());
        }
        let (sum, l0) = s.sum_and_l0();
        assert_eq!(sum["Files"], 10.0);
        assert_eq!(l0["Files"], 5.0);
        assert_eq!(sum["W-Amp"], 2.84);
    }
}
