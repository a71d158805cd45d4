//! The shape of a parsed output: the names of what it holds, values left
//! out, so two outputs of the same command can be checked to "parse alike".

use std::collections::BTreeSet;

use super::output::BenchOutput;

/// Statistics tickers the studies read (WAF terms, compaction I/O, stalls).
pub(crate) const STUDY_TICKERS: &[&str] = &[
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
pub(crate) const STUDY_HISTOGRAMS: &[&str] = &[
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
pub fn field_set(o: &BenchOutput) -> BTreeSet<String> {
    let mut f = BTreeSet::new();
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
        for (k, v) in h.percentiles() {
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
