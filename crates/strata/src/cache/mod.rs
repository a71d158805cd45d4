//! The LRU cache shared by the block cache and the blob cache (RocksDB's
//! `cache/lru_cache.cc`): [`Lru`], one least-recently-used map with byte
//! charges, and [`ShardedLru`], several of them behind mutexes.

mod lru;
mod sharded;

pub(crate) use lru::Lru;
pub(crate) use sharded::ShardedLru;
