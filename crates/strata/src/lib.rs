//! Strata: an embeddable, durable LSM-tree key-value store.
//!
//! Option and statistic names follow RocksDB's, so RocksDB users can carry
//! their tuning knowledge over. See the repository README for an example.

#![warn(missing_docs)]

pub mod batch;
pub mod blob;
pub mod clock;
mod cache;
pub mod coding;
pub mod error;
pub mod filename;
pub mod fs;
pub mod iter;
pub mod sstable;
pub mod stats;
pub mod types;
pub mod version;
pub mod wal;

pub use error::{Error, Result};
pub mod compaction;
mod db;
pub mod event_log;
pub mod info_log;
pub mod memtable;
pub mod options;
pub mod options_file;
mod pinnable;
pub mod rate_limiter;
pub mod snapshot;
pub mod write_controller;

pub use batch::WriteBatch;
pub use db::Db;
pub use iter::DbIterator;
pub use options::{CompactionPri, CompactionStyle, Options, ReadOptions, WriteOptions};
pub use pinnable::PinnableSlice;
pub use snapshot::Snapshot;
pub use sstable::CompressionType;
pub use wal::WalRecoveryMode;
