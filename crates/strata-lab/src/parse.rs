//! Parser for db_bench-format output (RocksDB's `db_bench`, LevelDB's
//! `db_bench`, `strata bench` with any engine): result lines, `--histogram`
//! blocks (LevelDB's have no percentiles line: they are read from its
//! buckets), the `STATISTICS:` dump, the `** Compaction Stats **` table and
//! LevelDB's `leveldb.stats` table (with the `LOG:` line `strata bench`
//! prints after it, which gives W-Amp).

use std::collections::BTreeMap;

/// One `name : X micros/op Y ops/sec ...` result line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BenchLine {
    /// Benchmark name (`fillrandom`, `readrandom`, ...).
    pub name: String,
    /// Microseconds per operation (summed thread time / ops).
    pub micros_op: f64,
    /// Operations per second (wall time).
    pub ops_sec: f64,
    /// Elapsed seconds, when printed.
    pub seconds: Option<f64>,
    /// Operation count, when printed.
    pub operations: Option<u64>,
    /// Throughput in MB/s, when printed.
    pub mb_sec: Option<f64>,
    /// `(X of Y found)` or `found:X` of `readrandomwriterandom`.
    pub found: Option<u64>,
    /// Reads attempted (`of Y` or `reads:R`).
    pub reads: Option<u64>,
}

/// Percentiles of one `Microseconds per <op>:` histogram block.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClientHistogram {
    /// Sample count.
    pub count: u64,
    /// Mean latency in microseconds.
    pub average: f64,
    /// P50, P75, P99, P99.9, P99.99 (microseconds).
    pub p50: f64,
    /// 75th percentile.
    pub p75: f64,
    /// 99th percentile.
    pub p99: f64,
    /// 99.9th percentile.
    pub p999: f64,
    /// 99.99th percentile.
    pub p9999: f64,
    /// Largest sample.
    pub max: f64,
}

/// One histogram line of the `STATISTICS:` dump.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StatHistogram {
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

/// Everything parsed from one benchmark process's stdout (and stderr).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BenchOutput {
    /// Engine version string (e.g. `RocksDB 7.8.3`, `Strata 0.1.0`).
    pub engine_version: Option<String>,
    /// Result lines in order.
    pub benches: Vec<BenchLine>,
    /// Client histograms keyed by `<benchmark>/<op>` (op = read, write, ...).
    pub histograms: Vec<(String, String, ClientHistogram)>,
    /// Ticker values from `STATISTICS:`.
    pub tickers: BTreeMap<String, u64>,
    /// Histograms from `STATISTICS:`.
    pub stat_histograms: BTreeMap<String, StatHistogram>,
    /// Columns of the last `Sum` row of the per-level compaction stats table,
    /// plus `Size(MB)`: the row's Size converted to 10^6 bytes.
    pub compaction_sum: BTreeMap<String, f64>,
    /// Columns of the `L0` row of the last compaction stats table (with
    /// `Size(MB)`); `Files` and `Size(MB)` are 0 when that table has no L0
    /// row (RocksDB leaves out a level with no files and no compactions).
    pub compaction_l0: BTreeMap<String, f64>,
    /// Seconds of `Cumulative stall:` from DB stats, if printed.
    pub cumulative_stall_sec: Option<f64>,
    /// Mean microseconds per flush from LevelDB's `LOG:` line (its LOG
    /// times each level-0 table build; LevelDB keeps no flush histogram).
    pub log_flush_micros_per_flush: Option<f64>,
}

/// Benchmarks that print no result line of their own interest (meta benchmarks).
pub const META_BENCHMARKS: &[&str] = &[
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
    pub fn primary(&self) -> Option<&BenchLine> {
        self.benches
            .iter()
            .find(|b| !META_BENCHMARKS.contains(&b.name.as_str()))
            .or_else(|| self.benches.iter().find(|b| b.micros_op > 0.0))
    }

    /// The client histogram for `op` recorded by benchmark `bench`.
    pub fn histogram(&self, bench: &str, op: &str) -> Option<&ClientHistogram> {
        self.histograms
            .iter()
            .find(|(b, o, _)| b == bench && o == op)
            .map(|(_, _, h)| h)
    }
}

fn num(s: &str) -> Option<f64> {
    s.trim().trim_end_matches(',').parse::<f64>().ok()
}

/// Value following `key` in a whitespace-split token list.
fn after<'a>(tokens: &[&'a str], key: &str) -> Option<&'a str> {
    let i = tokens.iter().position(|t| *t == key)?;
    tokens.get(i + 1).copied()
}

/// Parses a result line such as
/// `fillrandom   :      19.650 micros/op 50887 ops/sec 0.393 seconds 20000 operations;   50.5 MB/s`.
pub fn parse_bench_line(line: &str) -> Option<BenchLine> {
    let (name, rest) = line.split_once(" : ")?;
    let name = name.trim();
    if name.is_empty() || name.contains(' ') || !rest.contains("micros/op") {
        return None;
    }
    let (main, extra) = match rest.split_once(';') {
        Some((m, e)) => (m, e),
        None => (rest, ""),
    };
    let t: Vec<&str> = main.split_whitespace().collect();
    let micros_op = num(t.first()?)?;
    if t.get(1) != Some(&"micros/op") {
        return None;
    }
    let ops_sec = t
        .iter()
        .position(|x| *x == "ops/sec")
        .and_then(|i| i.checked_sub(1))
        .and_then(|i| t.get(i))
        .and_then(|v| num(v))
        .unwrap_or(if micros_op > 0.0 {
            1e6 / micros_op
        } else {
            0.0
        });
    let before = |key: &str| -> Option<f64> {
        let i = t.iter().position(|x| *x == key)?;
        t.get(i.checked_sub(1)?).and_then(|v| num(v))
    };
    let seconds = before("seconds");
    let operations = before("operations").map(|v| v as u64);
    let mut b = BenchLine {
        name: name.to_string(),
        micros_op,
        ops_sec,
        seconds,
        operations,
        ..Default::default()
    };
    let e: Vec<&str> = extra.split_whitespace().collect();
    if let Some(i) = e.iter().position(|x| *x == "MB/s") {
        b.mb_sec = i.checked_sub(1).and_then(|j| e.get(j)).and_then(|v| num(v));
    }
    // "(12941 of 20000 found)"
    if let Some(i) = e.iter().position(|x| *x == "of") {
        let found = i.checked_sub(1).and_then(|j| e.get(j));
        let total = e.get(i + 1);
        if let (Some(f), Some(tot)) = (found, total) {
            b.found = num(f.trim_start_matches('(')).map(|v| v as u64);
            b.reads = num(tot).map(|v| v as u64);
        }
    }
    // "( reads:19000 writes:1000 total:20000 found:11982)"
    for tok in &e {
        let tok = tok.trim_matches(|c| c == '(' || c == ')');
        if let Some(v) = tok.strip_prefix("found:") {
            b.found = num(v).map(|v| v as u64);
        } else if let Some(v) = tok.strip_prefix("reads:") {
            b.reads = num(v).map(|v| v as u64);
        }
    }
    Some(b)
}

/// Parses `rocksdb.x COUNT : n` and
/// `rocksdb.y P50 : a P95 : b P99 : c P100 : d COUNT : n SUM : s`.
fn parse_stat_line(line: &str, out: &mut BenchOutput) -> bool {
    let t: Vec<&str> = line.split_whitespace().collect();
    let Some(name) = t.first() else { return false };
    if !name.contains('.') || t.get(2) != Some(&":") {
        return false;
    }
    match t.get(1) {
        Some(&"COUNT") if t.len() == 4 => {
            if let Some(v) = t.get(3).and_then(|v| v.parse::<u64>().ok()) {
                out.tickers.insert((*name).to_string(), v);
                return true;
            }
            false
        }
        Some(&"P50") => {
            let g = |k| field(&t, k);
            let h = StatHistogram {
                p50: g("P50").unwrap_or(0.0),
                p95: g("P95").unwrap_or(0.0),
                p99: g("P99").unwrap_or(0.0),
                p100: g("P100").unwrap_or(0.0),
                count: g("COUNT").unwrap_or(0.0) as u64,
                sum: g("SUM").unwrap_or(0.0) as u64,
            };
            out.stat_histograms.insert((*name).to_string(), h);
            true
        }
        _ => false,
    }
}

/// `KEY : value` inside a token list.
fn field(t: &[&str], key: &str) -> Option<f64> {
    let i = t.iter().position(|x| *x == key)?;
    if t.get(i + 1) != Some(&":") {
        return None;
    }
    t.get(i + 2).and_then(|v| num(v))
}

/// Parses a `Count: .. Average: ..` / `Percentiles: P50: ..` block line into `h`.
fn parse_hist_line(line: &str, h: &mut ClientHistogram) {
    let t: Vec<&str> = line.split_whitespace().collect();
    let get = |k: &str| after(&t, k).and_then(num);
    if line.starts_with("Count:") {
        h.count = get("Count:").unwrap_or(0.0) as u64;
        h.average = get("Average:").unwrap_or(0.0);
    } else if line.starts_with("Min:") {
        h.max = get("Max:").unwrap_or(0.0);
        if h.p50 == 0.0 {
            h.p50 = get("Median:").unwrap_or(0.0);
        }
    } else if line.starts_with("Percentiles:") {
        h.p50 = get("P50:").unwrap_or(h.p50);
        h.p75 = get("P75:").unwrap_or(0.0);
        h.p99 = get("P99:").unwrap_or(0.0);
        h.p999 = get("P99.9:").unwrap_or(0.0);
        h.p9999 = get("P99.99:").unwrap_or(0.0);
    }
}

/// Parses `HH:MM:SS.sss` of `Cumulative stall: 00:00:0.371 H:M:S, 36.1 percent`.
fn parse_stall(line: &str) -> Option<f64> {
    let v = line
        .strip_prefix("Cumulative stall:")?
        .split_whitespace()
        .next()?;
    let mut parts = v.split(':');
    let h = num(parts.next()?)?;
    let m = num(parts.next()?)?;
    let s = num(parts.next()?)?;
    Some(h * 3600.0 + m * 60.0 + s)
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
    let mut current_hist: Option<(String, String, ClientHistogram)> = None;
    // The current block's buckets and Min, for a block without percentiles.
    let mut buckets: Vec<(f64, f64, f64)> = Vec::new();
    let mut hist_min = 0.0;
    let mut header: Option<Vec<String>> = None;
    let mut leveldb = LevelDbTable::default();
    // L0's table count in `--engine=fjall`'s `Level Files` table.
    let mut fjall_l0: Option<f64> = None;
    let mut last_bench = String::new();
    for raw in stdout.lines() {
        let line = raw.trim();
        if leveldb.line(line, &mut out) {
            continue;
        }
        if let Some(b) = parse_bench_line(raw) {
            last_bench = b.name.clone();
            out.benches.push(b);
            continue;
        }
        if let Some(op) = line
            .strip_prefix("Microseconds per ")
            .and_then(|r| r.strip_suffix(':'))
        {
            if let Some(h) = current_hist.take() {
                out.histograms.push(finish_hist(h, &buckets, hist_min));
            }
            buckets.clear();
            hist_min = 0.0;
            current_hist = Some((
                last_bench.clone(),
                op.to_string(),
                ClientHistogram::default(),
            ));
            continue;
        }
        if let Some((_, _, h)) = current_hist.as_mut() {
            if line.starts_with("Count:")
                || line.starts_with("Min:")
                || line.starts_with("Percentiles:")
            {
                parse_hist_line(line, h);
                if line.starts_with("Min:") {
                    let t: Vec<&str> = line.split_whitespace().collect();
                    hist_min = after(&t, "Min:").and_then(num).unwrap_or(0.0);
                }
                continue;
            }
            if line.starts_with('[') || line.starts_with('(') {
                if let Some(b) = parse_bucket(line) {
                    buckets.push(b);
                }
                continue;
            }
            if line.starts_with("---") || (line.is_empty() && h.count == 0) {
                continue;
            }
            if let Some(h) = current_hist.take() {
                out.histograms.push(finish_hist(h, &buckets, hist_min));
            }
        }
        if line.starts_with("Level ") && line.contains("W-Amp") {
            header = Some(line.split_whitespace().map(str::to_string).collect());
            out.compaction_l0 = BTreeMap::from([("Files".into(), 0.0), ("Size(MB)".into(), 0.0)]);
            continue;
        }
        if line.starts_with("Priority ") {
            header = None;
            continue;
        }
        if let Some(cols) = header.as_ref() {
            let mut t: Vec<&str> = line.split_whitespace().collect();
            // The Size column prints as two tokens (`24.99 MB`): drop the
            // unit, keeping the size in MB.
            let mut size_mb = None;
            if t.len() == cols.len() + 1 {
                if let Some(scale) = t.get(3).and_then(|u| unit_to_mb(u)) {
                    size_mb = t.get(2).and_then(|v| num(v)).map(|v| v * scale);
                    t.remove(3);
                }
            }
            let row_name = t.first().copied();
            if matches!(row_name, Some("Sum" | "L0")) && t.len() == cols.len() {
                let mut row = BTreeMap::new();
                for (c, v) in cols.iter().zip(&t).skip(1) {
                    if let Some(x) = parse_count(v) {
                        row.insert(c.clone(), x);
                    }
                }
                if let Some(mb) = size_mb {
                    row.insert("Size(MB)".into(), mb);
                }
                if row_name == Some("Sum") {
                    out.compaction_sum = row;
                } else {
                    out.compaction_l0 = row;
                }
            }
            if line.is_empty() {
                header = None;
            }
        }
        if let Some(rest) = line.strip_prefix("fjall: ") {
            // `strata bench --engine=fjall`'s stats: `fjall: T tables B
            // bytes, C compactions S s, ...`; L0 from the table before it.
            let r: Vec<&str> = rest.split_whitespace().collect();
            let n = |i: usize| r.get(i).and_then(|v| num(v));
            if let (Some(files), Some(bytes), Some(secs)) = (n(0), n(2), n(6)) {
                out.compaction_sum = BTreeMap::from([
                    ("Files".into(), files),
                    ("Size(MB)".into(), bytes / 1e6),
                    ("Comp(sec)".into(), secs),
                ]);
                out.compaction_l0 = BTreeMap::from([("Files".into(), fjall_l0.unwrap_or(0.0))]);
            }
            continue;
        }
        if let Some(l0) = line
            .strip_prefix('0')
            .filter(|_| raw.starts_with("    0 "))
            .and_then(num)
        {
            fjall_l0 = Some(l0);
        }
        if let Some(s) = parse_stall(line) {
            out.cumulative_stall_sec = Some(s);
            continue;
        }
        if line.starts_with("rocksdb.") || line.starts_with("strata.") {
            parse_stat_line(line, &mut out);
        }
    }
    if let Some(h) = current_hist.take() {
        out.histograms.push(finish_hist(h, &buckets, hist_min));
    }
    leveldb.finish(&mut out);
    out
}

/// A LevelDB histogram bucket row, `[ 0, 1 ) 159320 79.660% ...`: (lower,
/// upper, count). RocksDB's rows (`[ 0, 1 ]`, `( 1, 2 ]`) are not read:
/// RocksDB prints its percentiles.
fn parse_bucket(line: &str) -> Option<(f64, f64, f64)> {
    let close = line.find([')', ']'])?;
    if !line.starts_with('[') || &line[close..=close] != ")" {
        return None;
    }
    let t: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || "[](),".contains(c))
        .filter(|x| !x.is_empty())
        .collect();
    Some((num(t.first()?)?, num(t.get(1)?)?, num(t.get(2)?)?))
}

/// A block without a `Percentiles:` line (LevelDB's db_bench prints
/// none) gets its percentiles from its buckets, as LevelDB's own
/// `Histogram::Percentile` computes its Median: linear within the bucket
/// that crosses the rank, clamped to Min and Max.
fn finish_hist(
    mut h: (String, String, ClientHistogram),
    buckets: &[(f64, f64, f64)],
    min: f64,
) -> (String, String, ClientHistogram) {
    let c = &mut h.2;
    if c.p75 == 0.0 && c.p99 == 0.0 && !buckets.is_empty() {
        let total: f64 = buckets.iter().map(|b| b.2).sum();
        let pct = |p: f64| -> f64 {
            let threshold = total * p / 100.0;
            let mut sum = 0.0;
            for (lo, hi, n) in buckets {
                sum += n;
                if sum >= threshold && *n > 0.0 {
                    let pos = (threshold - (sum - n)) / n;
                    return (lo + (hi - lo) * pos).clamp(min, c.max.max(min));
                }
            }
            c.max
        };
        if c.p50 == 0.0 {
            c.p50 = pct(50.0);
        }
        c.p75 = pct(75.0);
        c.p99 = pct(99.0);
        c.p999 = pct(99.9);
        c.p9999 = pct(99.99);
    }
    h
}

/// LevelDB's `leveldb.stats` table in a stdout (its `stats` benchmark):
/// rows of level, files, size (MiB), time (s), read and written (MiB),
/// summed into the same `compaction_sum` columns RocksDB's Sum row gives
/// (`Files`, `Size(MB)` in 10^6 bytes, `Comp(sec)`, `Read(GB)`,
/// `Write(GB)`), and `W-Amp` from the `LOG:` line `strata bench` prints
/// after the table (absent without it: LevelDB's own db_bench prints none).
#[derive(Default)]
struct LevelDbTable {
    open: bool,
    seen: bool,
    sum: [f64; 5],
    l0: Option<[f64; 5]>,
    w_amp: Option<f64>,
    log_secs: Option<f64>,
}

impl LevelDbTable {
    const HEADER: &'static str = "Level  Files Size(MB) Time(sec) Read(MB) Write(MB)";

    /// Takes `line` if it belongs to the table.
    fn line(&mut self, line: &str, out: &mut BenchOutput) -> bool {
        if line.starts_with(Self::HEADER) {
            // A later `stats` output replaces an earlier one.
            *self = Self {
                open: true,
                seen: true,
                ..Self::default()
            };
            return true;
        }
        if let Some(rest) = line.strip_prefix("LOG: ") {
            self.open = false;
            let t: Vec<&str> = rest.split_whitespace().collect();
            self.w_amp = t.last().and_then(|v| num(v));
            // Flush + compaction seconds from the LOG's timestamps (the
            // table rounds to whole seconds).
            let secs: Vec<f64> = t
                .windows(2)
                .filter(|w| w[1] == "s,")
                .filter_map(|w| num(w[0]))
                .collect();
            self.log_secs = (!secs.is_empty()).then(|| secs.iter().sum());
            // `<n> flushes <bytes> bytes <secs> s, ...`
            let flushes = t.first().and_then(|n| num(n)).filter(|&n| n > 0.0);
            if let (Some(n), Some(s), Some(&"flushes")) = (flushes, secs.first(), t.get(1)) {
                out.log_flush_micros_per_flush = Some(s * 1e6 / n);
            }
            self.finish(out);
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
                let row = [v[1], v[2], v[3], v[4], v[5]];
                for (s, x) in self.sum.iter_mut().zip(row) {
                    *s += x;
                }
                if v[0] == 0.0 {
                    self.l0 = Some(row);
                }
                true
            }
            _ => {
                self.open = false;
                self.finish(out);
                false
            }
        }
    }

    fn finish(&mut self, out: &mut BenchOutput) {
        if !self.seen {
            return;
        }
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
        out.compaction_sum = cols(self.sum);
        if let Some(w) = self.w_amp {
            out.compaction_sum.insert("W-Amp".into(), w);
        }
        if let Some(t) = self.log_secs {
            out.compaction_sum.insert("Comp(sec)".into(), t);
        }
        out.compaction_l0 = cols(self.l0.unwrap_or_default());
    }
}

/// Statistics tickers the studies read (WAF terms, compaction I/O, stalls).
pub const STUDY_TICKERS: &[&str] = &[
    "rocksdb.bytes.written",
    "rocksdb.wal.bytes",
    "rocksdb.flush.write.bytes",
    "rocksdb.compact.read.bytes",
    "rocksdb.compact.write.bytes",
    "rocksdb.blobdb.blob.file.bytes.written",
    "rocksdb.stall.micros",
];

/// Statistics histograms the studies read: compaction CPU (COMP_CPU), Get
/// latency (GET_P50/P99), write latency P95, blob file write latency (BLOB_W).
/// (SST_W, `rocksdb.sst.write.micros`, is not printed by db_bench 7.8.3.)
pub const STUDY_HISTOGRAMS: &[&str] = &[
    "rocksdb.compaction.times.cpu_micros",
    "rocksdb.db.get.micros",
    "rocksdb.db.write.micros",
    "rocksdb.blobdb.blob.file.write.micros",
];

/// The shape of a parsed output: which benchmarks, result-line fields,
/// client histograms, study tickers and histograms, compaction-table columns
/// and stall figures it has, as sorted names (values left out), e.g.
/// `bench:fillrandom.mb_sec`, `hist:fillrandom/write`,
/// `ticker:rocksdb.wal.bytes`, `compaction:W-Amp`, `stall:cumulative`.
/// Two outputs of the same command "parse alike" when their field sets are equal.
pub fn field_set(o: &BenchOutput) -> std::collections::BTreeSet<String> {
    let mut f = std::collections::BTreeSet::new();
    for b in &o.benches {
        f.insert(format!("bench:{}", b.name));
        for (k, present) in [
            ("micros_op", true),
            ("ops_sec", true),
            ("seconds", b.seconds.is_some()),
            ("operations", b.operations.is_some()),
            ("mb_sec", b.mb_sec.is_some()),
            ("found", b.found.is_some()),
            ("reads", b.reads.is_some()),
        ] {
            if present {
                f.insert(format!("bench:{}.{k}", b.name));
            }
        }
    }
    for (bench, op, h) in &o.histograms {
        f.insert(format!("hist:{bench}/{op}"));
        for (k, v) in [
            ("p50", h.p50),
            ("p75", h.p75),
            ("p99", h.p99),
            ("p999", h.p999),
            ("p9999", h.p9999),
        ] {
            if h.count > 0 && v > 0.0 {
                f.insert(format!("hist:{bench}/{op}.{k}"));
            }
        }
    }
    for t in STUDY_TICKERS {
        if o.tickers.contains_key(*t) {
            f.insert(format!("ticker:{t}"));
        }
    }
    for h in STUDY_HISTOGRAMS {
        if o.stat_histograms.contains_key(*h) {
            f.insert(format!("stathist:{h}"));
        }
    }
    for c in o.compaction_sum.keys() {
        f.insert(format!("compaction:{c}"));
    }
    if o.cumulative_stall_sec.is_some() {
        f.insert("stall:cumulative".into());
    }
    if !o.tickers.is_empty() {
        f.insert("statistics".into());
    }
    f
}

/// MB (10^6 bytes) per unit of the compaction table's Size column, which
/// prints binary units (`KB` = 1024 bytes) as RocksDB's `BytesToHumanString`.
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

/// Parses a compaction-table cell: `24.99`, `75K`, `1.2M`, `34/15` (first part).
fn parse_count(v: &str) -> Option<f64> {
    let v = v.split('/').next()?;
    if let Some(x) = v.strip_suffix('K') {
        return num(x).map(|x| x * 1e3);
    }
    if let Some(x) = v.strip_suffix('M') {
        return num(x).map(|x| x * 1e6);
    }
    if let Some(x) = v.strip_suffix('G') {
        return num(x).map(|x| x * 1e9);
    }
    num(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// LevelDB 1.23 db_bench's output shape (`Benchmark::Run`,
    /// `Stats::Report`, `Histogram::ToString`): no ops/sec, no
    /// percentiles line, `[ a, b )` buckets.
    const LEVELDB_DB_BENCH: &str = "LevelDB:    version 1.23
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
Count: 1000  Average: 4.0000  StdDev: 2.00
Min: 1.0000  Median: 2.7500  Max: 20.0000
------------------------------------------------------
[       1,       2 )     200  20.000%  20.000% ####
[       2,       3 )     400  40.000%  60.000% ########
[       3,       4 )     300  30.000%  90.000% ######
[      10,      12 )      90   9.000%  99.000% ##
[      18,      20 )      10   1.000% 100.000%

readrandom   :       2.000 micros/op; (1000 of 1000 found)

                               Compactions
Level  Files Size(MB) Time(sec) Read(MB) Write(MB)
--------------------------------------------------
  0        2        1         0        0         2
  1        3        4         1        5         4
LOG: 2 flushes 2097152 bytes 0.250 s, 1 compactions 4194304 bytes 1.500 s, W-Amp 3.00
Approximate size of all keys: 5000000 bytes
";

    #[test]
    fn fjall_stats_give_files_size_and_compaction_time() {
        let out = "fillrandom   :       2.000 micros/op 500000 ops/sec 0.400 seconds 200000 operations;   55.3 MB/s

Level Files
-----------
    0     2
    1     0
    2     5
fjall: 7 tables 3000000 bytes, 4 compactions 0.250 s, disk space 70254592 bytes, 1 journals
";
        let o = parse_output(out, "");
        assert_eq!(o.compaction_sum.get("Files"), Some(&7.0));
        assert_eq!(o.compaction_sum.get("Size(MB)"), Some(&3.0));
        assert_eq!(o.compaction_sum.get("Comp(sec)"), Some(&0.25));
        assert_eq!(o.compaction_sum.get("W-Amp"), None);
        assert_eq!(o.compaction_l0.get("Files"), Some(&2.0));
    }

    #[test]
    fn leveldb_db_bench_output_parses_with_percentiles_from_buckets() {
        let o = parse_output(LEVELDB_DB_BENCH, "");
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
        let h = o.histogram("fillrandom", "op").unwrap();
        assert_eq!(h.count, 1000);
        assert_eq!(h.max, 20.0);
        // Rank 500 of 1000: 200 before the [2, 3) bucket of 400, so
        // 2 + 300/400 (LevelDB's Median says the same).
        assert_eq!(h.p50, 2.75);
        // Rank 750: [3, 4), 150 of its 300 in.
        assert_eq!(h.p75, 3.5);
        // Rank 990: the end of [10, 12).
        assert_eq!(h.p99, 12.0);
        assert!((h.p999 - 19.8).abs() < 1e-9, "{}", h.p999);
        // The table, summed, in RocksDB's Sum-row columns; W-Amp from LOG.
        let c = &o.compaction_sum;
        assert_eq!(c.get("Files"), Some(&5.0));
        assert_eq!(c.get("Comp(sec)"), Some(&1.75), "from the LOG line");
        assert_eq!(c.get("Write(GB)"), Some(&(6.0 / 1024.0)));
        assert_eq!(c.get("W-Amp"), Some(&3.0));
        assert_eq!(o.log_flush_micros_per_flush, Some(125_000.0));
        assert_eq!(o.compaction_l0.get("Files"), Some(&2.0));
        assert_eq!(o.compaction_l0.get("Size(MB)"), Some(&1.048576));
        // Without the LOG line (LevelDB's own db_bench): no W-Amp.
        let bare = LEVELDB_DB_BENCH.replace("LOG: ", "");
        let o = parse_output(&bare, "");
        assert_eq!(o.compaction_sum.get("W-Amp"), None);
        assert_eq!(o.log_flush_micros_per_flush, None);
        assert_eq!(o.compaction_sum.get("Files"), Some(&5.0));
        assert_eq!(o.compaction_sum.get("Comp(sec)"), Some(&1.0), "the table's");
    }

    fn data(name: &str) -> String {
        let p = format!("{}/testdata/{name}", env!("CARGO_MANIFEST_DIR"));
        std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
    }

    #[test]
    fn parses_fillrandom_line() {
        let b = parse_bench_line(
            "fillrandom   :      19.650 micros/op 50887 ops/sec 0.393 seconds 20000 operations;   50.5 MB/s",
        )
        .unwrap();
        assert_eq!(b.name, "fillrandom");
        assert_eq!(b.micros_op, 19.65);
        assert_eq!(b.ops_sec, 50887.0);
        assert_eq!(b.seconds, Some(0.393));
        assert_eq!(b.operations, Some(20000));
        assert_eq!(b.mb_sec, Some(50.5));
        assert_eq!(b.found, None);
    }

    #[test]
    fn parses_found_messages() {
        let b = parse_bench_line("readrandom   :       7.159 micros/op 139616 ops/sec 0.143 seconds 20000 operations;   89.6 MB/s (12941 of 20000 found)").unwrap();
        assert_eq!((b.found, b.reads), (Some(12941), Some(20000)));
        let b = parse_bench_line("readrandomwriterandom :       5.359 micros/op 186565 ops/sec 0.107 seconds 20000 operations; ( reads:19000 writes:1000 total:20000 found:11982)").unwrap();
        assert_eq!((b.found, b.reads), (Some(11982), Some(19000)));
        assert_eq!(b.mb_sec, None);
        // LevelDB style: no ops/sec, derived from micros/op.
        let b = parse_bench_line("fillseq      :      10.000 micros/op;  172.9 MB/s").unwrap();
        assert_eq!(b.ops_sec, 100000.0);
        assert!(parse_bench_line("Keys:       16 bytes each").is_none());
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
        let o = parse_output(&format!("{with_l0}{}", table("")), "");
        assert_eq!(o.compaction_l0.get("Files"), Some(&0.0));
        assert_eq!(o.compaction_l0.get("Size(MB)"), Some(&0.0));
        let sum_mb = o.compaction_sum["Size(MB)"];
        assert!((sum_mb - 202.80 * 1048576.0 / 1e6).abs() < 1e-9, "{sum_mb}");
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
