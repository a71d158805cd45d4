//! Strata: an embeddable, durable LSM-tree key-value store.
//!
//! Option and statistic names follow RocksDB's, so RocksDB users can carry
//! their tuning knowledge over. See the repository README for an example.
//!
//! The public API is what an embedding program needs: [`Db`], its
//! [`Options`] (with the option types [`CompactionStyle`],
//! [`CompactionPri`], [`CompressionType`], [`UniversalOptions`],
//! [`FifoOptions`], [`PrepopulateBlobCache`], [`DataBlockIndexType`],
//! [`WalRecoveryMode`]),
//! [`ReadOptions`], [`WriteOptions`], [`WriteBatch`], [`Snapshot`],
//! [`DbIterator`], [`PinnableSlice`], [`CheckpointInfo`], [`MergeOperator`]
//! and the built-in operators in [`merge`], [`stats`]
//! (tickers, histograms), [`fs`] (the [`FileSystem`](fs::FileSystem) trait
//! and its POSIX implementation), [`event_log`] (reading the LOG's events)
//! and [`Error`]. [`tools`] opens engine internals to the bundled tools and
//! is not a stable API. [`sync_point`] names the places where a crash test
//! can kill the process (armed only with the `sync-points` feature).

#![warn(missing_docs)]

mod batch;
mod blob;
mod byte_enum;
mod cache;
mod clock;
mod coding;
mod compaction;
#[cfg(test)]
mod datadriven;
mod db;
mod error;
pub mod event_log;
mod filename;
pub mod fs;
mod info_log;
mod iter;
mod memtable;
pub mod merge;
mod options;
mod options_file;
mod pinnable;
mod range_del;
mod rate_limiter;
mod setters;
mod snapshot;
mod sstable;
pub mod stats;
pub mod sync_point;
mod thread_priority;
pub mod tools;
mod types;
mod version;
mod wal;
mod write_controller;

pub use batch::WriteBatch;
pub use compaction::fifo::FifoOptions;
pub use compaction::universal::{StopStyle, UniversalOptions};
pub use db::{CheckpointInfo, ColumnFamily, Db, DB_WIDE_OPTIONS};
pub use error::{Error, Result};
pub use iter::DbIterator;
pub use merge::MergeOperator;
pub use options::{
    CompactionPri, CompactionStyle, CpuPriority, DataBlockIndexType, Options, PrepopulateBlobCache,
    ReadOptions, WriteOptions, DEFAULT_TTL,
};
pub use pinnable::PinnableSlice;
pub use snapshot::Snapshot;
pub use sstable::CompressionType;
pub use types::SequenceNumber;
pub use wal::WalRecoveryMode;
