//! Readers for RocksDB's text formats, so a study can put RocksDB's own
//! `db_bench` output beside Strata's: the `STATISTICS:` dump and the
//! `** Compaction Stats **` table. Lenient: lines that do not match are
//! skipped, never a panic.

use std::collections::BTreeMap;

/// One histogram line of the `STATISTICS:` dump.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct DumpHistogram {
    /// RocksDB name, e.g. `rocksdb.db.get.micros`.
    pub name: String,
    /// Median.
    pub p50: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Maximum.
    pub p100: f64,
    /// Number of samples.
    pub count: u64,
    /// Sum of samples.
    pub sum: u64,
}

/// The parsed `STATISTICS:` dump.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StatisticsDump {
    /// `(name, count)` per ticker line, in order.
    pub tickers: Vec<(String, u64)>,
    /// One entry per histogram line, in order.
    pub histograms: Vec<DumpHistogram>,
}

impl StatisticsDump {
    /// A ticker's value by name.
    pub fn ticker(&self, name: &str) -> Option<u64> {
        self.tickers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| *v)
    }

    /// A histogram by name.
    pub fn histogram(&self, name: &str) -> Option<&DumpHistogram> {
        self.histograms.iter().find(|h| h.name == name)
    }
}

/// Parses every `<name> COUNT : <n>` and `<name> P50 : ... SUM : <n>` line
/// in `text` (which may hold a whole db_bench output).
pub fn parse_statistics_dump(text: &str) -> StatisticsDump {
    let mut out = StatisticsDump::default();
    for line in text.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [name, "COUNT", ":", n] if name.starts_with("rocksdb.") => {
                if let Ok(v) = n.parse() {
                    out.tickers.push((name.to_string(), v));
                }
            }
            [name, "P50", ":", p50, "P95", ":", p95, "P99", ":", p99, "P100", ":", p100, "COUNT", ":", c, "SUM", ":", s] =>
            {
                let parsed = (
                    p50.parse(),
                    p95.parse(),
                    p99.parse(),
                    p100.parse(),
                    c.parse(),
                    s.parse(),
                );
                if let (Ok(p50), Ok(p95), Ok(p99), Ok(p100), Ok(count), Ok(sum)) = parsed {
                    out.histograms.push(DumpHistogram {
                        name: name.to_string(),
                        p50,
                        p95,
                        p99,
                        p100,
                        count,
                        sum,
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// One row of a compaction table: its label (`L0`, `Sum`, `Int`, `Low`)
/// and its cells by column name (`Files` is `n/m`, `Size` is `232.22 KB`).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct CompactionTableRow {
    /// Row label.
    pub label: String,
    /// Cell text by column header (`W-Amp`, `Write(GB)`, `Wblob(GB)`, ...).
    pub cells: BTreeMap<String, String>,
}

impl CompactionTableRow {
    /// A numeric cell (`KeyIn`-style `K`/`M`/`G` suffixes are not expanded).
    pub fn number(&self, column: &str) -> Option<f64> {
        self.cells.get(column)?.parse().ok()
    }
}

/// Rows of the first `Level ...` compaction table in `text`, read by header
/// name so versions with extra columns (`WPreComp(GB)`) parse too.
pub fn parse_compaction_table(text: &str) -> Vec<CompactionTableRow> {
    let mut lines = text.lines();
    let header: Vec<&str> = loop {
        match lines.next() {
            Some(l) if l.starts_with("Level ") && l.contains("W-Amp") => {
                break l.split_whitespace().collect()
            }
            Some(_) => {}
            None => return Vec::new(),
        }
    };
    let mut rows = Vec::new();
    for line in lines {
        if line.starts_with("---") {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        // label, files, size value, size unit, then one word per column.
        if words.len() != header.len() + 1 {
            break;
        }
        let mut cells = BTreeMap::new();
        for (i, col) in header.iter().enumerate().skip(1) {
            let cell = match i {
                1 => words[1].to_string(),
                2 => format!("{} {}", words[2], words[3]),
                _ => words[i + 1].to_string(),
            };
            cells.insert(col.to_string(), cell);
        }
        rows.push(CompactionTableRow {
            label: words[0].to_string(),
            cells,
        });
    }
    rows
}

/// The `Sum` row's W-Amp of the first compaction table (what tuning
/// scripts report as RocksDB's write amplification).
pub fn sum_w_amp(text: &str) -> Option<f64> {
    parse_compaction_table(text)
        .into_iter()
        .find(|r| r.label == "Sum")?
        .number("W-Amp")
}

/// The percentage of `Cumulative stall: HH:MM:SS.sss H:M:S, X percent`.
pub fn cumulative_stall_percent(text: &str) -> Option<f64> {
    let line = text.lines().find(|l| l.starts_with("Cumulative stall: "))?;
    let (_, tail) = line.rsplit_once(", ")?;
    tail.strip_suffix(" percent")?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::{Histogram, Statistics, Ticker};

    const STALLS: &str = include_str!("../../testdata/stats/db_bench_7.8.3_stalls.txt");
    const LARGE: &str = include_str!("../../testdata/stats/db_bench_7.8.3_large.txt");

    #[test]
    fn reads_rocksdb_dump() {
        let d = parse_statistics_dump(STALLS);
        assert_eq!(d.tickers.len(), Ticker::ROCKSDB_7_8_3_COUNT);
        assert_eq!(d.histograms.len(), Histogram::ROCKSDB_7_8_3_COUNT);
        assert_eq!(d.ticker("rocksdb.stall.micros"), Some(967_957));
        assert_eq!(d.ticker("rocksdb.flush.write.bytes"), Some(13_554_708));
        let get = d.histogram("rocksdb.db.get.micros");
        assert_eq!(get.map(|h| h.count), Some(20_000));
    }

    #[test]
    fn reads_our_own_dump_back() {
        let s = Statistics::with_shards(1);
        s.record_tick(Ticker::CompactReadBytes, 42);
        for v in 1..=10 {
            s.record_histogram(Histogram::CompactionCpuTime, v);
        }
        let d = parse_statistics_dump(&s.to_string());
        assert_eq!(d.tickers.len(), Ticker::COUNT);
        assert_eq!(d.ticker("rocksdb.compact.read.bytes"), Some(42));
        let h = d.histogram("rocksdb.compaction.times.cpu_micros");
        assert_eq!(h.map(|h| (h.count, h.sum, h.p100)), Some((10, 55, 10.0)));
    }

    #[test]
    fn reads_compaction_table() {
        let rows = parse_compaction_table(LARGE);
        let labels: Vec<&str> = rows.iter().map(|r| r.label.as_str()).collect();
        assert_eq!(labels, ["L0", "L1", "L2", "Sum", "Int"]);
        assert_eq!(rows[1].cells.get("Files").map(String::as_str), Some("9/9"));
        assert_eq!(
            rows[1].cells.get("Size").map(String::as_str),
            Some("206.88 MB")
        );
        assert_eq!(rows[3].number("Write(GB)"), Some(1.5));
        assert_eq!(rows[3].cells.get("KeyIn").map(String::as_str), Some("223K"));
        assert_eq!(sum_w_amp(LARGE), Some(2.1));
        assert_eq!(sum_w_amp(STALLS), Some(4.2));
        assert_eq!(cumulative_stall_percent(STALLS), Some(26.9));
    }

    #[test]
    fn garbage_is_skipped() {
        let junk = "rocksdb.x COUNT : nope\nLevel W-Amp\n  L0 1\nCumulative stall: x";
        assert_eq!(parse_statistics_dump(junk), StatisticsDump::default());
        assert!(parse_compaction_table(junk).is_empty());
        assert_eq!(sum_w_amp(""), None);
        assert_eq!(cumulative_stall_percent(junk), None);
    }
}
