//! db_bench's text output, written and read in one place.
//!
//! RocksDB's `db_bench`, LevelDB's `db_bench` and `strata bench` (any
//! engine) print the same text shapes; each shape has one file here with
//! its reader and, where `strata bench` prints that shape itself, its
//! writer beside it:
//!
//! - [`result_line`]: `fillrandom : 19.650 micros/op ...` lines.
//! - [`histogram`]: `Microseconds per <op>:` blocks (`--histogram`),
//!   parsed into the one [`Histogram`] type; LevelDB's blocks have no
//!   percentiles line, so they are computed from its buckets.
//! - [`statistics`]: the `STATISTICS:` dump (tickers and histograms).
//! - [`compaction_table`]: `rocksdb.stats`: the per-level
//!   `** Compaction Stats **` table, `Cumulative stall:` and `Flush(GB):`.
//! - [`leveldb`]: LevelDB's `leveldb.stats` table and the `LOG:` line
//!   `strata bench` prints after it.
//! - [`fjall`]: the `stats` output of `--engine=fjall`.
//! - [`output`]: a whole process's stdout and stderr, read into one
//!   [`BenchOutput`].
//! - [`shape`]: the names of what an output holds, to compare outputs.
//!
//! Readers are lenient: lines that do not match are skipped, never a panic.

pub mod compaction_table;
pub mod fjall;
pub mod histogram;
pub mod leveldb;
mod number;
pub mod output;
pub mod result_line;
pub mod shape;
pub mod statistics;

#[cfg(test)]
mod golden_tests;

pub use compaction_table::{parse_db_stats, CompactionRow, DbStats};
pub use histogram::{Bucket, Histogram};
pub use output::{parse_output, BenchOutput, META_BENCHMARKS};
pub use result_line::{parse_result_line, ResultLine};
pub use shape::{field_set, STUDY_HISTOGRAMS, STUDY_TICKERS};
pub use statistics::{parse_statistics, StatHistogram, Statistics};
