//! A whole benchmark process's stdout and stderr, read into one
//! [`BenchOutput`]: version lines, result lines, histogram blocks, the
//! statistics dump, and the last `stats` output of whichever engine
//! printed it (RocksDB's and Strata's compaction table, LevelDB's
//! `leveldb.stats`, fjall's table and line).

use std::collections::BTreeMap;

use super::compaction_table::{CumulativeStall, TableHeader};
use super::fjall::{self, SummaryLine};
use super::histogram::Histogram;
use super::leveldb::LevelDbStats;
use super::result_line::{parse_result_line, ResultLine};
use super::statistics::{StatHistogram, Statistics};

/// Everything read from one benchmark process's stdout (and stderr).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BenchOutput {
    /// Engine version (`RocksDB 7.8.3`, `Strata 0.1.0`); every distinct
    /// version line, joined with `; `.
    pub engine_version: Option<String>,
    /// Result lines in order.
    pub benches: Vec<ResultLine>,
    /// Histogram blocks as `(benchmark, op, histogram)`: the benchmark is
    /// the result line before the block, op the word of
    /// `Microseconds per <op>:` (`read`, `write`, ...).
    pub histograms: Vec<(String, String, Histogram)>,
    /// Ticker values of the statistics dump.
    pub tickers: BTreeMap<String, u64>,
    /// Histograms of the statistics dump.
    pub stat_histograms: BTreeMap<String, StatHistogram>,
    /// Columns of the last `Sum` row of the per-level compaction stats
    /// table, as numbers, plus `Size(MB)`: the row's Size in 10^6 bytes.
    /// LevelDB's and fjall's `stats` give the same columns where they can.
    pub compaction_sum: BTreeMap<String, f64>,
    /// Columns of the `L0` row of the last compaction stats table (with
    /// `Size(MB)`); `Files` and `Size(MB)` are 0 when that table has no L0
    /// row (RocksDB leaves out a level with no files and no compactions).
    pub compaction_l0: BTreeMap<String, f64>,
    /// The deepest level holding files in the last compaction stats table
    /// (0: only L0, or no files), for claims that need the tree to reach a
    /// level (a level multiplier acts only below the second level).
    pub deepest_level: Option<u32>,
    /// Seconds of `Cumulative stall:` from DB stats, if printed.
    pub cumulative_stall_sec: Option<f64>,
    /// Mean microseconds per flush from LevelDB's `LOG:` line (its LOG
    /// times each level-0 table build; LevelDB keeps no flush histogram).
    pub log_flush_micros_per_flush: Option<f64>,
}

/// Benchmarks that print no result line of their own interest (meta benchmarks).
pub(crate) const META_BENCHMARKS: &[&str] = &[
    "stats",
    "levelstats",
    "sstables",
    "memstats",
    "compact",
    "compactall",
    "flush",
    "waitforcompaction",
    "resetstats",
];

impl BenchOutput {
    /// The first result line that is not a meta benchmark (the "primary"
    /// one); in a step of meta benchmarks only (`compact,stats`), the first
    /// result line that has a time (`compact` is then the measured work).
    pub fn primary(&self) -> Option<&ResultLine> {
        self.benches
            .iter()
            .find(|b| !META_BENCHMARKS.contains(&b.name.as_str()))
            .or_else(|| self.benches.iter().find(|b| b.micros_op > 0.0))
    }

    /// The histogram of `op` recorded by benchmark `bench`.
    pub fn histogram(&self, bench: &str, op: &str) -> Option<&Histogram> {
        self.histograms
            .iter()
            .find(|(b, o, _)| b == bench && o == op)
            .map(|(_, _, h)| h)
    }

    /// The ops that benchmark `bench` has histograms of, in print order.
    pub fn histogram_ops(&self, bench: &str) -> Vec<&str> {
        self.histograms
            .iter()
            .filter(|(b, _, _)| b == bench)
            .map(|(_, o, _)| o.as_str())
            .collect()
    }
}

/// Parses a version line: `RocksDB:    version 7.8.3` or `Strata:    version 0.1.0`.
fn parse_version(line: &str) -> Option<String> {
    let (engine, rest) = line.split_once(':')?;
    let engine = engine.trim();
    let ver = rest.trim().strip_prefix("version")?.trim();
    if engine.is_empty() || engine.contains(' ') || ver.is_empty() {
        return None;
    }
    Some(format!("{engine} {ver}"))
}

/// Completes a histogram block and adds it to `out`.
fn finish(h: Option<(String, String, Histogram)>, out: &mut BenchOutput) {
    if let Some((bench, op, mut h)) = h {
        h.finish();
        out.histograms.push((bench, op, h));
    }
}

/// Parses one process's stdout and stderr.
pub fn parse_output(stdout: &str, stderr: &str) -> BenchOutput {
    let mut out = BenchOutput::default();
    // All distinct version lines (e.g. `strata bench --engine=rocksdb` may name
    // both Strata and the RocksDB build it links), joined with "; ".
    let mut versions: Vec<String> = Vec::new();
    for line in stderr.lines().chain(stdout.lines()) {
        if let Some(v) = parse_version(line.trim()) {
            if !versions.contains(&v) {
                versions.push(v);
            }
        }
    }
    if !versions.is_empty() {
        out.engine_version = Some(versions.join("; "));
    }
    let mut current_hist: Option<(String, String, Histogram)> = None;
    let mut header: Option<TableHeader> = None;
    let mut leveldb = LevelDbStats::default();
    let mut statistics = Statistics::default();
    // L0's table count in `--engine=fjall`'s `Level Files` table.
    let mut fjall_l0: Option<f64> = None;
    let mut families = std::collections::BTreeSet::new();
    let mut last_bench = String::new();
    for raw in stdout.lines() {
        let line = raw.trim();
        if leveldb.read_line(line) {
            if let Some(f) = line
                .starts_with("LOG: ")
                .then(|| leveldb.log.as_ref()?.flush_micros_per_flush())
                .flatten()
            {
                out.log_flush_micros_per_flush = Some(f);
            }
            continue;
        }
        if let Some(b) = parse_result_line(raw) {
            last_bench = b.name.clone();
            out.benches.push(b);
            continue;
        }
        if let Some(op) = line
            .strip_prefix("Microseconds per ")
            .and_then(|r| r.strip_suffix(':'))
        {
            finish(current_hist.take(), &mut out);
            current_hist = Some((last_bench.clone(), op.to_string(), Histogram::default()));
            continue;
        }
        if let Some((_, _, h)) = current_hist.as_mut() {
            if h.read_line(line) || line.starts_with("---") || (line.is_empty() && h.count == 0) {
                continue;
            }
            finish(current_hist.take(), &mut out);
        }
        if let Some(name) = line
            .strip_prefix("** Compaction Stats [")
            .and_then(|r| r.strip_suffix("] **"))
        {
            families.insert(name.to_string());
        }
        if let Some(h) = TableHeader::parse(line) {
            header = Some(h);
            out.compaction_l0 = BTreeMap::from([("Files".into(), 0.0), ("Size(MB)".into(), 0.0)]);
            out.deepest_level = Some(0);
            continue;
        }
        if line.starts_with("Priority ") {
            header = None;
            continue;
        }
        if let Some(h) = header.as_ref() {
            let row = h.row(line);
            if let Some(r) = &row {
                let level = r
                    .level
                    .strip_prefix('L')
                    .and_then(|n| n.parse::<u32>().ok());
                if let (Some(n), true) = (level, r.numbers().get("Files").is_some_and(|f| *f > 0.0))
                {
                    out.deepest_level = Some(out.deepest_level.unwrap_or(0).max(n));
                }
            }
            match row {
                Some(r) if r.level == "Sum" => out.compaction_sum = r.numbers(),
                Some(r) if r.level == "L0" => out.compaction_l0 = r.numbers(),
                _ => {}
            }
            if line.is_empty() {
                header = None;
            }
        }
        if line.starts_with(fjall::PREFIX) {
            if let Some(s) = SummaryLine::parse(line) {
                out.compaction_sum = BTreeMap::from([
                    ("Files".into(), s.tables),
                    ("Size(MB)".into(), s.bytes / 1e6),
                    ("Comp(sec)".into(), s.compacting_secs),
                ]);
                out.compaction_l0 = BTreeMap::from([("Files".into(), fjall_l0.unwrap_or(0.0))]);
            }
            continue;
        }
        if raw.starts_with("    0 ") {
            if let Some((0, n)) = fjall::level_row(line) {
                fjall_l0 = Some(n as f64);
            }
        }
        if let Some(s) = CumulativeStall::parse(line) {
            if let Some(sec) = s.seconds {
                out.cumulative_stall_sec = Some(sec);
                continue;
            }
        }
        if line.starts_with("rocksdb.") || line.starts_with("strata.") {
            statistics.read_line(line);
        }
    }
    finish(current_hist.take(), &mut out);
    // With several column families each table is one family's: no single
    // Sum or L0 row describes the DB (its tickers do).
    if families.len() > 1 {
        out.compaction_sum.clear();
        out.compaction_l0.clear();
    }
    if leveldb.seen() {
        (out.compaction_sum, out.compaction_l0) = leveldb.sum_and_l0();
    }
    out.tickers = statistics.tickers;
    out.stat_histograms = statistics.histograms;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dbbench_text::{field_set, Bucket};

    /// LevelDB 1.23 db_bench's output shape (`Benchmark::Run`,
    /// `Stats::Report`, `Histogram::ToString`): no ops/sec, no
    /// percentiles line, `[ a, b )` buckets; then `leveldb.stats`.
    fn leveldb_db_bench() -> String {
        use crate::dbbench_text::samples::{LEVELDB_HISTOGRAM, LEVELDB_STATS};
        format!(
            "LevelDB:    version 1.23
Date:       Thu Nov 26 14:00:00 2026
CPU:        2 * Intel(R) Xeon(R) Processor
CPUCache:   307200 KB
Keys:       16 bytes each
Values:     100 bytes each (50 bytes after compression)
Entries:    1000
RawSize:    0.1 MB (estimated)
FileSize:   0.1 MB (estimated)
WARNING: Assertions are enabled; benchmarks unnecessarily slow
------------------------------------------------
fillrandom   :       4.000 micros/op;   27.7 MB/s
Microseconds per op:
{LEVELDB_HISTOGRAM}readrandom   :       2.000 micros/op; (1000 of 1000 found)

{LEVELDB_STATS}"
        )
    }

    #[test]
    fn leveldb_db_bench_output_parses_with_percentiles_from_buckets() {
        let text = leveldb_db_bench();
        let o = parse_output(&text, "");
        assert_eq!(o.engine_version.as_deref(), Some("LevelDB 1.23"));
        assert_eq!(o.benches.len(), 2);
        let f = &o.benches[0];
        assert_eq!((f.name.as_str(), f.micros_op), ("fillrandom", 4.0));
        assert_eq!(
            f.ops_sec, 250000.0,
            "1e6 / micros/op: LevelDB prints no ops/sec"
        );
        assert_eq!(f.mb_sec, Some(27.7));
        assert_eq!(o.benches[1].found, Some(1000));
        // The block as the block reader reads it (percentiles from the
        // buckets: see the histogram tests), ended by the blank line.
        let block = text
            .split_once("Microseconds per op:\n")
            .and_then(|(_, r)| r.split_once("\n\n"))
            .unwrap()
            .0;
        let h = o.histogram("fillrandom", "op").unwrap();
        assert_eq!(h, &crate::dbbench_text::histogram::parse_histogram(block));
        assert_eq!((h.count, h.p75), (1000, 3.5));
        // The table, summed, in RocksDB's Sum-row columns; W-Amp from LOG.
        let c = &o.compaction_sum;
        assert_eq!(c.get("Files"), Some(&10.0));
        assert_eq!(
            c.get("Comp(sec)"),
            Some(&(0.231 + 0.544)),
            "from the LOG line"
        );
        assert_eq!(c.get("Write(GB)"), Some(&(36.0 / 1024.0)));
        assert_eq!(c.get("W-Amp"), Some(&2.84));
        assert_eq!(o.log_flush_micros_per_flush, Some(0.231 * 1e6 / 28.0));
        assert_eq!(o.compaction_l0.get("Files"), Some(&5.0));
        assert_eq!(o.compaction_l0.get("Size(MB)"), Some(&(2.0 * 1.048576)));
        // Without the LOG line (LevelDB's own db_bench): no W-Amp.
        let bare = text.replace("LOG: ", "");
        let o = parse_output(&bare, "");
        assert_eq!(o.compaction_sum.get("W-Amp"), None);
        assert_eq!(o.log_flush_micros_per_flush, None);
        assert_eq!(o.compaction_sum.get("Files"), Some(&10.0));
        assert_eq!(o.compaction_sum.get("Comp(sec)"), Some(&0.0), "the table's");
    }

    fn data(name: &str) -> String {
        let p = format!("{}/testdata/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
    }

    /// Regression: a `compact,stats` step (study 4's full compaction) was
    /// recorded as failed, "no result line parsed".
    #[test]
    fn compact_only_step_has_compact_as_primary() {
        let out = parse_output(
            "compact      : 1025850.460 micros/op 0 ops/sec 1.026 seconds 1 operations;\n",
            "",
        );
        let p = out.primary().expect("compact is the primary line");
        assert_eq!(p.name, "compact");
        assert!((p.micros_op - 1025850.46).abs() < 1e-6);
        let mixed = parse_output(
            "fillrandom   :      19.650 micros/op 50887 ops/sec 0.393 seconds 20000 operations;\ncompact      : 100.0 micros/op 0 ops/sec 0.000 seconds 1 operations;\n",
            "",
        );
        assert_eq!(mixed.primary().unwrap().name, "fillrandom");
    }

    /// With several column families each `rocksdb.stats` table is one
    /// family's: the Sum row of the last one (the DB's W-Amp and size until
    /// then) would describe one family only, so none is kept.
    #[test]
    fn tables_of_several_families_give_no_db_sum() {
        let text = data("fillrandom_compact_7.8.3.stdout");
        let one = parse_output(&text, "");
        assert!(one.compaction_sum.contains_key("W-Amp"));
        let two = text.replacen(
            "** Compaction Stats [default] **",
            "** Compaction Stats [hot] **",
            1,
        ) + &text;
        let o = parse_output(&two, "");
        assert!(o.compaction_sum.is_empty(), "{:?}", o.compaction_sum);
        assert!(o.compaction_l0.is_empty());
        assert_eq!(o.tickers, one.tickers);
    }

    #[test]
    fn parses_captured_rocksdb_783_fill() {
        let o = parse_output(
            &data("fillrandom_compact_7.8.3.stdout"),
            &data("fillrandom_compact_7.8.3.stderr"),
        );
        assert_eq!(o.engine_version.as_deref(), Some("RocksDB 7.8.3"));
        let p = o.primary().unwrap();
        assert_eq!(p.name, "fillrandom");
        assert_eq!(p.operations, Some(50000));
        let h = o.histogram("fillrandom", "write").unwrap();
        assert_eq!(h.count, 50000);
        assert!(h.p50 > 0.0 && h.p99 >= h.p50 && h.p999 >= h.p99);
        assert_eq!(o.tickers.get("rocksdb.stall.micros"), Some(&371015));
        assert_eq!(o.tickers.get("rocksdb.flush.write.bytes"), Some(&29898392));
        let c = o
            .stat_histograms
            .get("rocksdb.compaction.times.cpu_micros")
            .unwrap();
        assert_eq!((c.count, c.sum), (9, 250694));
        assert_eq!(o.compaction_sum.get("W-Amp"), Some(&2.4));
        assert_eq!(o.compaction_sum.get("Comp(sec)"), Some(&1.22));
        assert_eq!(o.compaction_sum.get("CompMergeCPU(sec)"), Some(&0.40));
        assert_eq!(o.compaction_sum.get("KeyIn"), Some(&75000.0));
        assert_eq!(o.cumulative_stall_sec, Some(0.371));
        assert!(o.tickers.len() > 150, "{} tickers", o.tickers.len());
    }

    #[test]
    fn parses_captured_rocksdb_783_mixed() {
        let o = parse_output(
            &data("readrandomwriterandom_7.8.3.stdout"),
            &data("readrandomwriterandom_7.8.3.stderr"),
        );
        assert_eq!(o.benches.len(), 2);
        assert_eq!(o.primary().unwrap().name, "readrandomwriterandom");
        assert!(o.histogram("readrandomwriterandom", "read").is_some());
        assert!(o.histogram("readrandomwriterandom", "write").is_some());
        assert!(o.histogram("readrandom", "read").is_some());
        let g = o.stat_histograms.get("rocksdb.db.get.micros").unwrap();
        assert_eq!(g.count, 39000);
        assert!((g.p50 - 3.163465).abs() < 1e-9);
    }

    #[test]
    fn parses_strata_header_and_output() {
        let out = "Strata:     version 0.1.0\nRocksDB:    version 9.5.0\nStrata:     version 0.1.0\nfillseq      :       1.500 micros/op 666666 ops/sec 0.015 seconds 10000 operations;   73.7 MB/s\nSTATISTICS:\nrocksdb.bytes.written COUNT : 1160000\n";
        let o = parse_output(out, "");
        assert_eq!(
            o.engine_version.as_deref(),
            Some("Strata 0.1.0; RocksDB 9.5.0")
        );
        assert_eq!(o.primary().unwrap().ops_sec, 666666.0);
        assert_eq!(o.tickers.get("rocksdb.bytes.written"), Some(&1160000));
    }

    /// `strata bench --engine=rocksdb` links RocksDB 10.4.2, whose compaction
    /// table has a `WPreComp(GB)` column that 7.8.3's lacks: the Sum row must
    /// still map by header name (W-Amp 4.3, not the column after it).
    #[test]
    fn compaction_table_with_wprecomp_column_maps_by_header() {
        let out = "\
Level    Files   Size     Score Read(GB)  Rn(GB) Rnp1(GB) Write(GB) WPreComp(GB) Wnew(GB) Moved(GB) W-Amp Rd(MB/s) Wr(MB/s) Comp(sec) CompMergeCPU(sec) Comp(cnt) Avg(sec) KeyIn KeyDrop Rblob(GB) Wblob(GB)
-------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------------
  L0      5/4    270.39 KB   0.2      0.0     0.0      0.0       0.0       0.0      0.0       0.0   1.0      0.0     36.2      0.08              0.03        49    0.002    4928      0       0.0       0.0
 Sum      6/5      1.98 MB   0.0      0.0     0.0      0.0       0.0       0.0      0.0       0.0   4.3     64.1     76.3      0.16              0.07        58    0.003     22K   1466       0.0       0.0
 Int      0/0      0.00 KB   0.0      0.0     0.0      0.0       0.0       0.0      0.0       0.0   4.3     64.1     76.3      0.16              0.07        58    0.003     22K   1466       0.0       0.0

Cumulative stall: 00:00:0.106 H:M:S, 70.4 percent
";
        let o = parse_output(out, "");
        let c = &o.compaction_sum;
        assert_eq!(c.get("W-Amp"), Some(&4.3));
        assert_eq!(c.get("Comp(sec)"), Some(&0.16));
        assert_eq!(c.get("CompMergeCPU(sec)"), Some(&0.07));
        assert_eq!(c.get("KeyIn"), Some(&22000.0));
        assert_eq!(c.get("WPreComp(GB)"), Some(&0.0));
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        assert!(close(c["Size(MB)"], 1.98 * 1048576.0 / 1e6));
        let l0 = &o.compaction_l0;
        assert_eq!(l0.get("Files"), Some(&5.0));
        assert!(close(l0["Size(MB)"], 270.39 * 1024.0 / 1e6));
        assert_eq!(o.cumulative_stall_sec, Some(0.106));
        assert_eq!(o.deepest_level, Some(0));
        let f = field_set(&o);
        assert!(f.contains("compaction:WPreComp(GB)") && f.contains("stall:cumulative"));
    }

    /// RocksDB prints no row for a level with no files and no compactions:
    /// a table without an L0 row means an empty L0, and the last table of
    /// the output is the one that counts.
    #[test]
    fn compaction_table_without_l0_row_reads_as_empty_l0() {
        let table = |l0: &str| {
            format!(
                "\
Level    Files   Size     Score Read(GB)  Rn(GB) Rnp1(GB) Write(GB) Wnew(GB) Moved(GB) W-Amp Rd(MB/s) Wr(MB/s) Comp(sec) CompMergeCPU(sec) Comp(cnt) Avg(sec) KeyIn KeyDrop Rblob(GB) Wblob(GB)
----------------------------------------------------------------------
{l0}  L1      3/0   202.80 MB   0.8      1.5     0.6      0.9       1.2      0.2       0.0   2.1    252.7    199.6      5.94              4.56         4    1.484   2570K   541K       0.0       0.0
 Sum      3/0   202.80 MB   0.0      1.7     0.7      1.0       1.9      0.8       0.1   3.4    187.4    200.1      9.52              6.92        23    0.414   3059K   763K       0.0       0.0

"
            )
        };
        let with_l0 = table(
            "  L0      3/0    105.78 MB   0.8      0.0     0.0      0.0       0.6      0.6       0.0   1.0      0.0    161.3      3.51              2.27        17    0.206   1000K      0       0.0       0.0\n",
        );
        let o = parse_output(&with_l0, "");
        assert_eq!(o.compaction_l0.get("Files"), Some(&3.0));
        assert_eq!(o.deepest_level, Some(1));
        let o = parse_output(&format!("{with_l0}{}", table("")), "");
        assert_eq!(o.compaction_l0.get("Files"), Some(&0.0));
        assert_eq!(o.compaction_l0.get("Size(MB)"), Some(&0.0));
        let sum_mb = o.compaction_sum["Size(MB)"];
        assert!((sum_mb - 202.80 * 1048576.0 / 1e6).abs() < 1e-9, "{sum_mb}");
    }

    const CAPTURE: &str =
        include_str!("../../testdata/rocksdb-7.8.3/all-benchmarks-histogram-statistics.stdout");

    #[test]
    fn parses_rocksdb_7_8_3_capture() {
        let p = parse_output(CAPTURE, "");
        let names: Vec<&str> = p.benches.iter().map(|b| b.name.as_str()).collect();
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
        let rr = &p.benches[3];
        assert_eq!(rr.operations, Some(2000));
        assert_eq!(rr.mb_sec, Some(79.5));
        assert_eq!(rr.message, "(1738 of 2000 found)");
        assert_eq!(p.histogram_ops("readrandom"), ["read"]);
        let fs = &p.benches[0];
        assert_eq!(fs.ops_sec, 127437.0);
        assert_eq!(fs.micros_op, 7.830);
        let h = p.histogram("fillseq", "write").unwrap();
        assert_eq!((h.count, h.min, h.max), (2000, 2.0, 9607.0));
        assert_eq!(
            [h.p50, h.p75, h.p99, h.p999, h.p9999],
            [2.38, 2.76, 6.67, 63.50, 9240.00]
        );
        assert_eq!(
            h.buckets[0],
            Bucket {
                lower: 1.0,
                upper: 2.0,
                count: 498,
                half_open: false
            }
        );
        assert_eq!(h.buckets.iter().map(|b| b.count).sum::<u64>(), 2000);
        let rw = &p.benches[9];
        assert_eq!(rw.message, "( reads:1800 writes:200 total:2000 found:650)");
        assert_eq!(p.histogram_ops("readrandomwriterandom"), ["read", "write"]);
        assert_eq!(p.benches[8].mb_sec, None);
        assert_eq!(p.benches[8].message, "");
        assert_eq!(p.tickers["rocksdb.block.cache.miss"], 49);
        assert!(p.tickers.len() > 150, "{}", p.tickers.len());
        let get = &p.stat_histograms["rocksdb.db.get.micros"];
        assert_eq!((get.count, get.sum), (7800, 8154));
        assert_eq!(p.compaction_sum.get("W-Amp"), Some(&1.9));
        assert_eq!(p.compaction_sum.get("Files"), Some(&1.0));
        assert_eq!(p.compaction_sum.get("Size"), Some(&97.39));
        assert_eq!(p.compaction_sum.get("KeyIn"), Some(&1965.0));
        assert_eq!(p.cumulative_stall_sec, Some(0.0));
    }

    #[test]
    fn parses_threaded_capture() {
        let p = parse_output(
            include_str!("../../testdata/rocksdb-7.8.3/threads-readwhilewriting-fillsync.stdout"),
            "",
        );
        let by = |n: &str| p.benches.iter().find(|b| b.name == n).unwrap();
        assert_eq!(by("readwhilewriting").operations, Some(6000));
        assert_eq!(by("readwhilewriting").message, "(3000 of 3000 found)");
        assert_eq!(by("fillsync").message, "(3 ops)");
    }

    #[test]
    fn garbage_input_gives_empty_output() {
        let o = parse_output(
            "x : y\n:::\nrocksdb.a COUNT :\nMicroseconds per :\nCount: abc",
            "",
        );
        assert!(o.benches.is_empty());
        assert!(o.tickers.is_empty());
    }
}
