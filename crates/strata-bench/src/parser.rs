//! A parser for db_bench output: per-benchmark lines, `Microseconds per`
//! histogram blocks, the `STATISTICS:` dump and the Compaction Stats table.
//!
//! It reads RocksDB's db_bench output and `strata bench` output alike (the
//! tests run it on captured RocksDB 7.8.3 output and on ours), and the JSON
//! report uses it to turn the engine's statistics dump and `rocksdb.stats`
//! into numbers, so both engines are reported the same way.

use std::collections::BTreeMap;

use serde::Serialize;

/// One per-benchmark result line.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BenchLine {
    /// Benchmark name.
    pub name: String,
    /// micros/op (sum of thread time / ops).
    pub micros_per_op: f64,
    /// ops/sec (ops / wall time), as printed (integer).
    pub ops_per_sec: u64,
    /// Wall seconds.
    pub seconds: f64,
    /// Operations.
    pub operations: u64,
    /// MB/s, when printed.
    pub mb_per_sec: Option<f64>,
    /// The trailing message, e.g. `(1738 of 2000 found)`.
    pub message: String,
    /// `Microseconds per <op>` blocks that followed the line.
    pub histograms: Vec<HistogramBlock>,
}

/// One `Microseconds per <op>:` block.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HistogramBlock {
    /// The op word (`read`, `write`, ...).
    pub op: String,
    /// Count.
    pub count: u64,
    /// Average.
    pub average: f64,
    /// StdDev.
    pub std_dev: f64,
    /// Min.
    pub min: u64,
    /// Median.
    pub median: f64,
    /// Max.
    pub max: u64,
    /// P50, P75, P99, P99.9, P99.99 (absent in LevelDB output).
    pub percentiles: Option<[f64; 5]>,
    /// Bucket rows: (lower, upper, count).
    pub buckets: Vec<(u64, u64, u64)>,
}

/// A histogram of the `STATISTICS:` dump.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StatHistogram {
    /// P50.
    pub p50: f64,
    /// P95.
    pub p95: f64,
    /// P99.
    pub p99: f64,
    /// P100 (max).
    pub p100: f64,
    /// Sample count.
    pub count: u64,
    /// Sum of samples.
    pub sum: u64,
}

/// The `STATISTICS:` dump.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Statistics {
    /// `name COUNT : n` lines.
    pub tickers: BTreeMap<String, u64>,
    /// `name P50 : ... SUM : s` lines.
    pub histograms: BTreeMap<String, StatHistogram>,
}

/// One row of the `** Compaction Stats **` table, keyed by column header.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CompactionRow {
    /// Row label: `L0`, `L1`, ..., `Sum`, `Int`.
    pub level: String,
    /// Column header -> text value (`Files` is `n/m`, `Size` has a unit).
    pub columns: BTreeMap<String, String>,
}

impl CompactionRow {
    /// A numeric column.
    pub fn num(&self, column: &str) -> Option<f64> {
        self.columns.get(column)?.parse().ok()
    }
}

/// Figures from `rocksdb.stats` (the `stats` benchmark output).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct DbStats {
    /// Rows of the first (per-level) Compaction Stats table.
    pub levels: Vec<CompactionRow>,
    /// `Cumulative stall: ..., X percent`.
    pub cumulative_stall_percent: Option<f64>,
    /// `Flush(GB): cumulative X`.
    pub flush_gb: Option<f64>,
}

/// Everything parsed from one output.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ParsedOutput {
    /// Per-benchmark lines in order.
    pub benchmarks: Vec<BenchLine>,
    /// The `STATISTICS:` dump, if present.
    pub statistics: Option<Statistics>,
    /// The last `stats` output, if present.
    pub db_stats: Option<DbStats>,
}

fn num<T: std::str::FromStr>(s: Option<&str>) -> Option<T> {
    s?.trim_end_matches([',', ';']).parse().ok()
}

/// Parses a per-benchmark line; `None` if `line` is not one.
pub fn parse_bench_line(line: &str) -> Option<BenchLine> {
    let (name, rest) = line.split_once(" : ")?;
    let mut t = rest.split_whitespace();
    let micros = num(t.next())?;
    (t.next()? == "micros/op").then_some(())?;
    let ops = num(t.next())?;
    (t.next()? == "ops/sec").then_some(())?;
    let seconds = num(t.next())?;
    (t.next()? == "seconds").then_some(())?;
    let operations = num(t.next())?;
    let after = rest.split_once("operations;")?.1;
    let trimmed = after.trim_start();
    let (mb, message) = match trimmed.split_once(" MB/s") {
        Some((v, msg)) if v.trim().parse::<f64>().is_ok() => (v.trim().parse().ok(), msg.trim()),
        _ => (None, trimmed.trim()),
    };
    Some(BenchLine {
        name: name.trim().to_string(),
        micros_per_op: micros,
        ops_per_sec: ops,
        seconds,
        operations,
        mb_per_sec: mb,
        message: message.to_string(),
        histograms: Vec::new(),
    })
}

fn field<T: std::str::FromStr>(line: &str, label: &str) -> Option<T> {
    let at = line.find(label)? + label.len();
    num(line[at..].split_whitespace().next())
}

fn parse_histogram(
    op: &str,
    lines: &mut std::iter::Peekable<std::str::Lines<'_>>,
) -> Option<HistogramBlock> {
    let l1 = lines.next()?;
    let l2 = lines.next()?;
    let mut h = HistogramBlock {
        op: op.to_string(),
        count: field(l1, "Count:")?,
        average: field(l1, "Average:")?,
        std_dev: field(l1, "StdDev:")?,
        min: field(l2, "Min:")?,
        median: field(l2, "Median:")?,
        max: field(l2, "Max:")?,
        percentiles: None,
        buckets: Vec::new(),
    };
    if lines.peek().is_some_and(|l| l.starts_with("Percentiles:")) {
        let l = lines.next()?;
        h.percentiles = Some([
            field(l, "P50:")?,
            field(l, "P75:")?,
            field(l, "P99:")?,
            field(l, "P99.9:")?,
            field(l, "P99.99:")?,
        ]);
    }
    while let Some(l) = lines.peek() {
        let t = l.trim_start();
        if t.starts_with("---") {
            lines.next();
            continue;
        }
        if !(t.starts_with('[') || t.starts_with('(')) {
            break;
        }
        let cleaned: String = t
            .chars()
            .map(|c| if "[](),".contains(c) { ' ' } else { c })
            .collect();
        let mut it = cleaned.split_whitespace();
        if let (Some(lo), Some(hi), Some(c)) = (num(it.next()), num(it.next()), num(it.next())) {
            h.buckets.push((lo, hi, c));
        }
        lines.next();
    }
    Some(h)
}

/// Parses one statistics dump line.
pub fn parse_statistics_line(line: &str, into: &mut Statistics) -> bool {
    let t: Vec<&str> = line.split_whitespace().collect();
    match t.as_slice() {
        [name, "COUNT", ":", n] if name.contains('.') => {
            if let Ok(v) = n.parse() {
                into.tickers.insert((*name).to_string(), v);
                return true;
            }
            false
        }
        [name, "P50", ":", p50, "P95", ":", p95, "P99", ":", p99, "P100", ":", p100, "COUNT", ":", c, "SUM", ":", s] =>
        {
            let h = (|| {
                Some(StatHistogram {
                    p50: p50.parse().ok()?,
                    p95: p95.parse().ok()?,
                    p99: p99.parse().ok()?,
                    p100: p100.parse().ok()?,
                    count: c.parse().ok()?,
                    sum: s.parse().ok()?,
                })
            })();
            match h {
                Some(h) => {
                    into.histograms.insert((*name).to_string(), h);
                    true
                }
                None => false,
            }
        }
        _ => false,
    }
}

/// Parses a whole statistics dump body.
pub fn parse_statistics(text: &str) -> Statistics {
    let mut s = Statistics::default();
    for line in text.lines() {
        parse_statistics_line(line, &mut s);
    }
    s
}

/// Parses `rocksdb.stats` text (also embedded in a larger output).
pub fn parse_db_stats(text: &str) -> DbStats {
    if text.contains(LEVELDB_STATS_HEADER) {
        return parse_leveldb_stats(text);
    }
    if text.lines().any(|l| l.starts_with("fjall: ")) {
        return parse_fjall_stats(text);
    }
    let mut out = DbStats::default();
    let mut lines = text.lines().peekable();
    let mut seen_table = false;
    while let Some(line) = lines.next() {
        if line.starts_with("** Compaction Stats") && !seen_table {
            let Some(header) = lines.next() else { break };
            if !header.starts_with("Level") {
                continue;
            }
            seen_table = true;
            let names: Vec<&str> = header.split_whitespace().collect();
            for row in lines.by_ref() {
                if row.starts_with("---") {
                    continue;
                }
                let toks: Vec<&str> = row.split_whitespace().collect();
                if toks.len() < names.len() + 1 {
                    break;
                }
                let mut r = CompactionRow {
                    level: toks[0].to_string(),
                    ..Default::default()
                };
                r.columns.insert(names[1].into(), toks[1].into());
                r.columns
                    .insert(names[2].into(), format!("{} {}", toks[2], toks[3]));
                for (i, name) in names.iter().enumerate().skip(3) {
                    if let Some(v) = toks.get(i + 1) {
                        r.columns.insert((*name).into(), (*v).into());
                    }
                }
                out.levels.push(r);
            }
        } else if let Some(rest) = line.strip_prefix("Cumulative stall:") {
            out.cumulative_stall_percent = rest
                .rsplit(',')
                .next()
                .and_then(|p| p.trim().trim_end_matches("percent").trim().parse().ok());
        } else if let Some(rest) = line.strip_prefix("Flush(GB): cumulative ") {
            out.flush_gb = num(rest.split_whitespace().next());
        }
    }
    out
}

/// The header line of LevelDB's `leveldb.stats` table.
pub const LEVELDB_STATS_HEADER: &str = "Level  Files Size(MB) Time(sec) Read(MB) Write(MB)";

/// Parses LevelDB's `leveldb.stats` (a row per level with files or
/// compaction time: files, size, time, bytes read and written, MB rounded to
/// whole numbers) into rows named as RocksDB's table names its columns:
/// `Files`, `Size(MB)`, `Comp(sec)`, `Read(GB)`, `Write(GB)`, plus a `Sum`
/// row. `W-Amp` (Sum row) and the flushed bytes come from the `LOG:` line
/// `strata bench` prints after the table (see `leveldb_map::log_line`);
/// without it they are absent.
pub fn parse_leveldb_stats(text: &str) -> DbStats {
    let mut out = DbStats::default();
    let mut in_table = false;
    let mut sum = [0f64; 5];
    let mut w_amp = None;
    let mut log_secs = None;
    for line in text.lines() {
        if line.trim_start().starts_with(LEVELDB_STATS_HEADER) {
            in_table = true;
            continue;
        }
        if let Some(rest) = line.strip_prefix("LOG: ") {
            in_table = false;
            // `LOG: F flushes B bytes, C compactions D bytes, W-Amp W`
            let t: Vec<&str> = rest.split_whitespace().collect();
            if let Some(b) = t.get(2).and_then(|v| v.parse::<f64>().ok()) {
                out.flush_gb = Some(b / 1073741824.0);
            }
            w_amp = t.last().and_then(|v| v.parse::<f64>().ok());
            log_secs = log_seconds(&t);
            continue;
        }
        if !in_table || line.starts_with("---") {
            continue;
        }
        let t: Vec<f64> = line
            .split_whitespace()
            .map(|v| v.parse::<f64>())
            .collect::<Result<_, _>>()
            .unwrap_or_default();
        if t.len() != 6 {
            in_table = false;
            continue;
        }
        let mut r = CompactionRow {
            level: format!("L{}", t[0]),
            ..Default::default()
        };
        fill_leveldb_row(&mut r, &t[1..]);
        for (s, v) in sum.iter_mut().zip(&t[1..]) {
            *s += v;
        }
        out.levels.push(r);
    }
    if !out.levels.is_empty() {
        let mut r = CompactionRow {
            level: "Sum".into(),
            ..Default::default()
        };
        fill_leveldb_row(&mut r, &sum);
        if let Some(w) = w_amp {
            r.columns.insert("W-Amp".into(), format!("{w}"));
        }
        // The LOG's timestamps time flushes and compactions to the
        // microsecond, where the table rounds to whole seconds.
        if let Some(secs) = log_secs {
            r.columns.insert("Comp(sec)".into(), format!("{secs:.3}"));
        }
        out.levels.push(r);
    }
    out
}

/// Parses the `stats` output of `--engine=fjall`: a `Level Files` table
/// (tables per level) and the `fjall: T tables B bytes, C compactions S s,
/// disk space D bytes, J journals` line, into rows `L0`.. (`Files`) and a
/// `Sum` row (`Files`, `Size(MB)`, `Comp(sec)`). fjall tells no bytes
/// read or written, so there is no `Read`, `Write` or `W-Amp`.
pub fn parse_fjall_stats(text: &str) -> DbStats {
    let mut out = DbStats::default();
    for line in text.lines() {
        let t: Vec<&str> = line.split_whitespace().collect();
        if let Some(rest) = line.strip_prefix("fjall: ") {
            let r: Vec<&str> = rest.split_whitespace().collect();
            let n = |i: usize| {
                r.get(i)
                    .and_then(|v| v.trim_end_matches(',').parse::<f64>().ok())
            };
            let mut row = CompactionRow {
                level: "Sum".into(),
                ..Default::default()
            };
            if let (Some(files), Some(bytes), Some(secs)) = (n(0), n(2), n(6)) {
                row.columns.insert("Files".into(), format!("{files}"));
                row.columns
                    .insert("Size(MB)".into(), format!("{:.3}", bytes / 1048576.0));
                row.columns.insert("Comp(sec)".into(), format!("{secs:.3}"));
                out.levels.push(row);
            }
        } else if t.len() == 2 {
            if let (Ok(level), Ok(files)) = (t[0].parse::<u32>(), t[1].parse::<u64>()) {
                let mut row = CompactionRow {
                    level: format!("L{level}"),
                    ..Default::default()
                };
                row.columns.insert("Files".into(), files.to_string());
                out.levels.push(row);
            }
        }
    }
    out
}

/// Flush plus compaction seconds of a `LOG:` line's tokens (`... 0.350 s,
/// ... 1.200 s, ...`), if it has them.
pub fn log_seconds(tokens: &[&str]) -> Option<f64> {
    let secs: Vec<f64> = tokens
        .windows(2)
        .filter(|w| w[1] == "s,")
        .filter_map(|w| w[0].parse().ok())
        .collect();
    (!secs.is_empty()).then(|| secs.iter().sum())
}

/// `[files, size MB, time s, read MB, write MB]` into RocksDB's column names
/// (and LevelDB's own, kept beside them).
fn fill_leveldb_row(r: &mut CompactionRow, v: &[f64]) {
    let gb = |mb: f64| format!("{:.3}", mb / 1024.0);
    r.columns.insert("Files".into(), format!("{}", v[0]));
    r.columns.insert("Size(MB)".into(), format!("{}", v[1]));
    r.columns.insert("Comp(sec)".into(), format!("{}", v[2]));
    r.columns.insert("Read(GB)".into(), gb(v[3]));
    r.columns.insert("Write(GB)".into(), gb(v[4]));
    r.columns.insert("Read(MB)".into(), format!("{}", v[3]));
    r.columns.insert("Write(MB)".into(), format!("{}", v[4]));
}

/// Parses a whole db_bench stdout.
pub fn parse_output(text: &str) -> ParsedOutput {
    let mut out = ParsedOutput::default();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        if let Some(b) = parse_bench_line(line) {
            out.benchmarks.push(b);
        } else if let Some(op) = line
            .strip_prefix("Microseconds per ")
            .and_then(|r| r.strip_suffix(':'))
        {
            if let Some(h) = parse_histogram(op, &mut lines) {
                if let Some(b) = out.benchmarks.last_mut() {
                    b.histograms.push(h);
                }
            }
        } else if line == "STATISTICS:" {
            let mut s = Statistics::default();
            while let Some(l) = lines.peek() {
                if !parse_statistics_line(l, &mut s) && !l.is_empty() {
                    break;
                }
                lines.next();
            }
            out.statistics = Some(s);
        } else if line.starts_with("** Compaction Stats") {
            let mut block = String::from(line);
            block.push('\n');
            while let Some(l) = lines.peek() {
                if l.starts_with("** DB Stats")
                    || l.starts_with("Level Files Size(MB)")
                    || *l == "STATISTICS:"
                {
                    break;
                }
                block.push_str(l);
                block.push('\n');
                lines.next();
            }
            // DB Stats (stall line) follows: take it too.
            while let Some(l) = lines.peek() {
                if l.starts_with("Level Files Size(MB)")
                    || *l == "STATISTICS:"
                    || parse_bench_line(l).is_some()
                {
                    break;
                }
                block.push_str(l);
                block.push('\n');
                lines.next();
            }
            out.db_stats = Some(parse_db_stats(&block));
        } else if line == "Level Files" && lines.peek() == Some(&"-----------") {
            // `--engine=fjall`'s stats: the table, then its `fjall:` line.
            let mut block = format!("{line}\n");
            for l in lines.by_ref() {
                block.push_str(l);
                block.push('\n');
                if l.starts_with("fjall: ") {
                    break;
                }
            }
            out.db_stats = Some(parse_fjall_stats(&block));
        } else if line.trim_start().starts_with(LEVELDB_STATS_HEADER) {
            // LevelDB's table, then the `LOG:` line `strata bench` adds.
            let mut block = format!("{line}\n");
            while let Some(l) = lines.peek() {
                if parse_bench_line(l).is_some() || l.trim().is_empty() && block.contains("LOG: ") {
                    break;
                }
                block.push_str(l);
                block.push('\n');
                let done = l.starts_with("LOG: ");
                lines.next();
                if done {
                    break;
                }
            }
            out.db_stats = Some(parse_leveldb_stats(&block));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `leveldb.stats` from Debian's LevelDB 1.23 after `strata bench
    /// --engine=leveldb --benchmarks=fillrandom,stats --num=200000
    /// --write_buffer_size=1048576 --seed=1`, with the LOG line `strata
    /// bench` prints after it.
    const LEVELDB_STATS: &str = "                               Compactions
Level  Files Size(MB) Time(sec) Read(MB) Write(MB)
--------------------------------------------------
  0        5        2         0        0        12
  1        4        7         0       27        24
  2        1        0         0        0         0
LOG: 28 flushes 13413408 bytes 0.231 s, 5 compactions 24673778 bytes 0.544 s, W-Amp 2.84
Approximate size of all keys: 10238654 bytes
";

    #[test]
    fn parses_fjall_stats() {
        let text = "Level Files\n-----------\n    0     2\n    1     0\n    2     5\n    3     0\n    4     0\n    5     0\n    6     0\n\
                    fjall: 7 tables 3145728 bytes, 4 compactions 0.250 s, disk space 70254592 bytes, 1 journals\n";
        let s = parse_db_stats(text);
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
        assert_eq!(parse_output(&out).db_stats, Some(s));
    }

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
        // The same through parse_db_stats (the JSON report's path) and in a
        // whole stdout (the `stats` benchmark).
        assert_eq!(parse_db_stats(LEVELDB_STATS), s);
        let out = format!(
            "fillrandom   :       2.000 micros/op 500000 ops/sec 0.400 seconds 200000 operations;   55.3 MB/s\n\n{LEVELDB_STATS}\n"
        );
        assert_eq!(parse_output(&out).db_stats, Some(s));
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

    const CAPTURE: &str =
        include_str!("../testdata/rocksdb-7.8.3/all-benchmarks-histogram-statistics.stdout");

    #[test]
    fn parses_rocksdb_7_8_3_capture() {
        let p = parse_output(CAPTURE);
        let names: Vec<&str> = p.benchmarks.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "fillseq",
                "fillrandom",
                "overwrite",
                "readrandom",
                "readseq",
                "readreverse",
                "readmissing",
                "seekrandom",
                "deleterandom",
                "readrandomwriterandom",
                "updaterandom",
                "compact"
            ]
        );
        let rr = &p.benchmarks[3];
        assert_eq!(rr.operations, 2000);
        assert_eq!(rr.mb_per_sec, Some(79.5));
        assert_eq!(rr.message, "(1738 of 2000 found)");
        assert_eq!(rr.histograms.len(), 1);
        assert_eq!(rr.histograms[0].op, "read");
        let fs = &p.benchmarks[0];
        assert_eq!(fs.ops_per_sec, 127437);
        assert_eq!(fs.micros_per_op, 7.830);
        let h = &fs.histograms[0];
        assert_eq!((h.count, h.min, h.max), (2000, 2, 9607));
        assert_eq!(h.percentiles, Some([2.38, 2.76, 6.67, 63.50, 9240.00]));
        assert_eq!(h.buckets[0], (1, 2, 498));
        assert_eq!(h.buckets.iter().map(|b| b.2).sum::<u64>(), 2000);
        let rw = &p.benchmarks[9];
        assert_eq!(rw.message, "( reads:1800 writes:200 total:2000 found:650)");
        assert_eq!(
            rw.histograms
                .iter()
                .map(|h| h.op.as_str())
                .collect::<Vec<_>>(),
            ["read", "write"]
        );
        assert_eq!(p.benchmarks[8].mb_per_sec, None);
        assert_eq!(p.benchmarks[8].message, "");
        let stats = p.statistics.as_ref().unwrap();
        assert_eq!(stats.tickers["rocksdb.block.cache.miss"], 49);
        assert!(stats.tickers.len() > 150, "{}", stats.tickers.len());
        let get = &stats.histograms["rocksdb.db.get.micros"];
        assert_eq!((get.count, get.sum), (7800, 8154));
        let db = p.db_stats.as_ref().unwrap();
        let sum = db.levels.iter().find(|r| r.level == "Sum").unwrap();
        assert_eq!(sum.num("W-Amp"), Some(1.9));
        assert_eq!(sum.columns["Files"], "1/0");
        assert_eq!(sum.columns["Size"], "97.39 KB");
        assert_eq!(sum.num("KeyIn"), Some(1965.0));
        assert_eq!(db.cumulative_stall_percent, Some(0.0));
    }

    #[test]
    fn parses_threaded_capture() {
        let p = parse_output(include_str!(
            "../testdata/rocksdb-7.8.3/threads-readwhilewriting-fillsync.stdout"
        ));
        let rww = p
            .benchmarks
            .iter()
            .find(|b| b.name == "readwhilewriting")
            .unwrap();
        assert_eq!(rww.operations, 6000);
        assert_eq!(rww.message, "(3000 of 3000 found)");
        let fs = p.benchmarks.iter().find(|b| b.name == "fillsync").unwrap();
        assert_eq!(fs.message, "(3 ops)");
    }

    #[test]
    fn rejects_non_result_lines() {
        assert!(parse_bench_line("Keys:       16 bytes each").is_none());
        assert!(parse_bench_line("fillseq      : skipped (--use_existing_db is true)").is_none());
        assert!(parse_bench_line("x : 1 micros/op").is_none());
    }

    #[test]
    fn old_style_buckets_parse() {
        let text = "a : 1.0 micros/op 1 ops/sec 1.0 seconds 1 operations;\nMicroseconds per read:\nCount: 1 Average: 1.0000  StdDev: 0.00\nMin: 1  Median: 1.0000  Max: 1\n------------------------------------------------------\n[       0,       1 )        1 100.000% 100.000% ####################\n";
        let p = parse_output(text);
        let h = &p.benchmarks[0].histograms[0];
        assert_eq!(
            h.percentiles, None,
            "LevelDB-style block without Percentiles"
        );
        assert_eq!(h.buckets, vec![(0, 1, 1)]);
    }
}
