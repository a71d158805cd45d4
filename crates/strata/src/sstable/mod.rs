//! The block-based table (SST) format: builder, reader, iterators, bloom
//! filter, block cache and table cache.
//!
//! The byte layout is specified in `docs/formats/sstable.md`.

pub mod block;
pub mod block_cache;
pub mod block_builder;
pub mod bloom;
pub mod compression;
pub mod format;
mod lru;
pub mod properties;

pub use compression::CompressionType;
