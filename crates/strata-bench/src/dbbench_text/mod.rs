//! db_bench's text output, written and read in one place.
//!
//! RocksDB's `db_bench`, LevelDB's `db_bench` and `strata bench` (any
//! engine) print the same text shapes; each shape has one file here with
//! its reader and, where `strata bench` prints that shape itself, its
//! writer beside it:
//!
//! - `result_line`: `fillrandom : 19.650 micros/op ...` lines.
//! - `histogram`: `Microseconds per <op>:` blocks (`--histogram`),
//!   parsed into the one [`Histogram`] type; LevelDB's blocks have no
//!   percentiles line, so they are computed from its buckets.
//! - `statistics`: the `STATISTICS:` dump (tickers and histograms).
//! - `compaction_table`: `rocksdb.stats`: the per-level
//!   `** Compaction Stats **` table, `Cumulative stall:` and `Flush(GB):`.
//! - `leveldb`: LevelDB's `leveldb.stats` table and the `LOG:` line
//!   `strata bench` prints after it.
//! - `fjall`: the `stats` output of `--engine=fjall`.
//! - `output`: a whole process's stdout and stderr, read into one
//!   [`BenchOutput`].
//! - `shape`: the names of what an output holds, to compare outputs.
//!
//! Readers are lenient: lines that do not match are skipped, never a panic.

pub(crate) mod compaction_table;
pub(crate) mod fjall;
pub(crate) mod histogram;
pub mod leveldb;
mod number;
mod output;
pub(crate) mod result_line;
mod shape;
pub(crate) mod statistics;

#[cfg(test)]
mod golden_tests;
#[cfg(test)]
mod samples;

pub(crate) use compaction_table::parse_db_stats;
pub use compaction_table::CompactionRow;
pub use histogram::{Bucket, Histogram};
pub use output::{parse_output, BenchOutput};
pub use result_line::ResultLine;
pub use shape::field_set;
pub(crate) use statistics::parse_statistics;
pub use statistics::{StatHistogram, Statistics};
