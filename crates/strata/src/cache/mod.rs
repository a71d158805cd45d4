//! The LRU cache shared by the block cache and the blob cache (RocksDB's
//! `cache/lru_cache.cc`): `Lru`, one least-recently-used map with byte
//! charges, and [`ShardedLru`], several of them behind mutexes with one
//! byte capacity (the block cache and the blob cache are each one); and
//! [`OpenFiles`], the open table and blob file readers.

mod lru;
mod open_files;
mod sharded;

pub(crate) use open_files::OpenFiles;
pub(crate) use sharded::ShardedLru;
