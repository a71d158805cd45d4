//! The `STATISTICS:` dump (`--statistics`): `rocksdb.x COUNT : n` ticker
//! lines and `rocksdb.y P50 : a P95 : b P99 : c P100 : d COUNT : n SUM : s`
//! histogram lines. `strata bench` prints the engine's own dump
//! (`strata::stats::Statistics`'s text) after `STATISTICS:`.

use std::collections::BTreeMap;

use serde::Serialize;

use super::number::field;

/// A histogram line of the dump.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
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

/// The parsed dump.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Statistics {
    /// Ticker values by name.
    pub tickers: BTreeMap<String, u64>,
    /// Histograms by name.
    pub histograms: BTreeMap<String, StatHistogram>,
}

impl Statistics {
    /// Reads one dump line into `self`; false if it is not one.
    pub fn read_line(&mut self, line: &str) -> bool {
        let t: Vec<&str> = line.split_whitespace().collect();
        let Some(name) = t.first() else { return false };
        if !name.contains('.') || t.get(2) != Some(&":") {
            return false;
        }
        match t.get(1) {
            Some(&"COUNT") if t.len() == 4 => match t[3].parse::<u64>() {
                Ok(v) => {
                    self.tickers.insert((*name).to_string(), v);
                    true
                }
                Err(_) => false,
            },
            Some(&"P50") => {
                let g = |k| field(&t, k).unwrap_or(0.0);
                // Counts read exactly, beyond f64's 2^53.
                let whole = |k| integer(&t, k).unwrap_or(g(k) as u64);
                let h = StatHistogram {
                    p50: g("P50"),
                    p95: g("P95"),
                    p99: g("P99"),
                    p100: g("P100"),
                    count: whole("COUNT"),
                    sum: whole("SUM"),
                };
                self.histograms.insert((*name).to_string(), h);
                true
            }
            _ => false,
        }
    }
}

/// The integer of `KEY : value` in a token list.
fn integer(t: &[&str], key: &str) -> Option<u64> {
    let i = t.iter().position(|x| *x == key)?;
    (t.get(i + 1) == Some(&":")).then_some(())?;
    t.get(i + 2)?.parse().ok()
}

/// The `STATISTICS:` section `--statistics` prints at the end of a run:
/// the heading, then the engine's dump.
pub(crate) fn format_statistics(dump: &str) -> String {
    format!("STATISTICS:\n{dump}\n")
}

/// Parses every dump line in `text` (a dump, or a whole output).
pub fn parse_statistics(text: &str) -> Statistics {
    let mut s = Statistics::default();
    for line in text.lines() {
        s.read_line(line);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata::stats::{Histogram, Statistics as EngineStatistics, Ticker};

    const STALLS: &str = include_str!("../../testdata/stats/db_bench_7.8.3_stalls.txt");

    #[test]
    fn reads_rocksdb_dump() {
        let d = parse_statistics(STALLS);
        assert_eq!(d.tickers.len(), Ticker::ROCKSDB_7_8_3_COUNT);
        assert_eq!(d.histograms.len(), Histogram::ROCKSDB_7_8_3_COUNT);
        assert_eq!(d.tickers.get("rocksdb.stall.micros"), Some(&967_957));
        assert_eq!(
            d.tickers.get("rocksdb.flush.write.bytes"),
            Some(&13_554_708)
        );
        let get = &d.histograms["rocksdb.db.get.micros"];
        assert_eq!(get.count, 20_000);
    }

    /// The engine's own dump (what `strata bench --statistics` prints)
    /// reads back: every ticker and histogram, with its values.
    #[test]
    fn reads_the_engines_dump_back() {
        let s = EngineStatistics::with_shards(1);
        s.record_tick(Ticker::CompactReadBytes, 42);
        for v in 1..=10 {
            s.record_histogram(Histogram::CompactionCpuTime, v);
        }
        let d = parse_statistics(&s.to_string());
        assert_eq!(d.tickers.len(), Ticker::COUNT);
        assert_eq!(d.histograms.len(), Histogram::COUNT);
        assert_eq!(d.tickers.get("rocksdb.compact.read.bytes"), Some(&42));
        let h = &d.histograms["rocksdb.compaction.times.cpu_micros"];
        assert_eq!((h.count, h.sum, h.p100), (10, 55, 10.0));
        assert_eq!(h.p50, s.histogram(Histogram::CompactionCpuTime).median());
    }

    /// The section `strata bench` writes reads back, alone and in a whole
    /// output.
    #[test]
    fn written_section_reads_back() {
        let s = EngineStatistics::with_shards(1);
        s.record_tick(Ticker::StallMicros, 7);
        s.record_histogram(Histogram::DbGet, 3);
        let text = format_statistics(&s.to_string());
        let d = parse_statistics(&text);
        let o = crate::dbbench_text::parse_output(&text, "");
        assert_eq!(d.tickers.get("rocksdb.stall.micros"), Some(&7));
        assert_eq!(d.histograms["rocksdb.db.get.micros"].count, 1);
        assert_eq!((o.tickers, o.stat_histograms), (d.tickers, d.histograms));
    }

    #[test]
    fn garbage_is_skipped() {
        let junk = "rocksdb.x COUNT : nope\nnodot COUNT : 1\nrocksdb.y COUNT 1\n";
        assert_eq!(parse_statistics(junk), Statistics::default());
    }

    #[test]
    fn large_counts_read_exactly() {
        let d = parse_statistics(
            "rocksdb.h P50 : 1.0 P95 : 2.0 P99 : 3.0 P100 : 4.0 COUNT : 9007199254740993 SUM : 9007199254740995\n",
        );
        let h = &d.histograms["rocksdb.h"];
        assert_eq!((h.count, h.sum), (9007199254740993, 9007199254740995));
    }
}
