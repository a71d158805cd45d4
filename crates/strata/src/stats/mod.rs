//! Statistics: tickers (counters) and histograms with RocksDB's exact names,
//! printable in RocksDB's formats: the `STATISTICS:` dump, db_bench's
//! `--histogram` block, and the `rocksdb.stats` compaction/DB stats text.
//!
//! - [`Ticker`], [`Histogram`]: the names (RocksDB 7.8.3's lists, in dump
//!   order, plus a few newer names appended).
//! - [`HistogramImpl`]: RocksDB's bucketed histogram (single-threaded);
//!   [`AtomicHistogram`]: the thread-safe one.
//! - [`Statistics`]: the shared object the engine records into.
//! - [`compaction_table`]: the `rocksdb.stats` text formatter.
//! - [`waf`]: the two write-amplification definitions.
//! - [`parse`]: readers for RocksDB's dump and compaction table text.
//!
//! See `docs/stats.md` for every name, its unit and what records it.

mod atomic_histogram;
mod buckets;
pub mod compaction_table;
mod histogram_impl;
mod histogram_kind;
pub mod human;
pub mod parse;
mod statistics;
mod ticker;
mod unit;
pub mod waf;

pub use atomic_histogram::AtomicHistogram;
pub use buckets::{bucket_index, bucket_range, BUCKET_COUNT, BUCKET_LIMITS};
pub use histogram_impl::{HistogramData, HistogramImpl};
pub use histogram_kind::Histogram;
pub use statistics::{Statistics, StopWatch};
pub use ticker::Ticker;
pub use unit::Unit;

#[cfg(test)]
mod tests {
    use super::{Histogram, Ticker};

    /// `docs/stats.md` must document every ticker and histogram name.
    #[test]
    fn docs_list_every_name() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/stats.md");
        let doc = std::fs::read_to_string(path).unwrap_or_default();
        assert!(!doc.is_empty(), "cannot read {path}");
        let missing: Vec<&str> = Ticker::ALL
            .iter()
            .map(|t| t.name())
            .chain(Histogram::ALL.iter().map(|h| h.name()))
            .filter(|n| !doc.contains(&format!("| `{n}` |")))
            .collect();
        assert!(missing.is_empty(), "undocumented: {missing:?}");
    }
}
