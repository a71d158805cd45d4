//! The block-based table (SST) format (RocksDB's `BlockBasedTable`): writer,
//! reader, iterators, bloom filter, block cache and table cache.
//!
//! The byte layout is specified in `docs/formats/sstable.md`.

pub mod auto_readahead;
pub mod block;
pub mod block_buffers;
pub mod block_builder;
pub mod block_bytes;
pub mod block_cache;
pub mod bloom;
pub mod compression;
pub mod data_block_hash;
pub mod dump;
pub mod format;
pub mod properties;
pub mod range_del_block;
pub mod readahead;
pub mod reader;
pub mod table_cache;
pub mod writer;

#[cfg(test)]
mod mapped_tests;
#[cfg(test)]
mod tests;
#[cfg(test)]
pub(crate) mod testutil;

pub use block_cache::BlockCache;
pub use compression::CompressionType;
pub use properties::TableProperties;
pub use reader::{ReadOpts, Readahead, Table, TableIterator};
pub use table_cache::TableCache;
pub use writer::{TableBuilder, TableInfo, TableOptions};
