//! Statistics: tickers (counters) and histograms with RocksDB's exact names,
//! printable in RocksDB's `STATISTICS:` dump format.
//!
//! PLACEHOLDER API (to be completed by the stats work): the names and method
//! signatures below are the contract the rest of the engine codes against.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A counter, named as RocksDB names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Ticker {
    /// `rocksdb.block.cache.miss`
    BlockCacheMiss,
    /// `rocksdb.block.cache.hit`
    BlockCacheHit,
    /// `rocksdb.bloom.filter.useful`: a filter said "absent" and saved a read.
    BloomFilterUseful,
    /// `rocksdb.bloom.filter.full.positive`
    BloomFilterFullPositive,
    /// `rocksdb.bloom.filter.full.true.positive`
    BloomFilterFullTruePositive,
}

impl Ticker {
    /// Every ticker, in dump order.
    pub const ALL: &'static [Ticker] = &[
        Ticker::BlockCacheMiss,
        Ticker::BlockCacheHit,
        Ticker::BloomFilterUseful,
        Ticker::BloomFilterFullPositive,
        Ticker::BloomFilterFullTruePositive,
    ];

    /// RocksDB's name for the ticker.
    pub fn name(self) -> &'static str {
        match self {
            Ticker::BlockCacheMiss => "rocksdb.block.cache.miss",
            Ticker::BlockCacheHit => "rocksdb.block.cache.hit",
            Ticker::BloomFilterUseful => "rocksdb.bloom.filter.useful",
            Ticker::BloomFilterFullPositive => "rocksdb.bloom.filter.full.positive",
            Ticker::BloomFilterFullTruePositive => "rocksdb.bloom.filter.full.true.positive",
        }
    }
}

/// A latency or size distribution, named as RocksDB names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Histogram {
    /// `rocksdb.db.get.micros`
    DbGet,
    /// `rocksdb.db.write.micros`
    DbWrite,
}

/// The DB's statistics object (RocksDB's `Statistics`), shared by all threads.
#[derive(Debug, Default)]
pub struct Statistics {
    tickers: [AtomicU64; 5],
}

impl Statistics {
    /// A new, zeroed statistics object.
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }
    /// Adds `n` to a ticker.
    pub fn record_tick(&self, t: Ticker, n: u64) {
        if let Some(i) = Ticker::ALL.iter().position(|x| *x == t) {
            self.tickers[i].fetch_add(n, Ordering::Relaxed);
        }
    }
    /// Current value of a ticker.
    pub fn ticker(&self, t: Ticker) -> u64 {
        Ticker::ALL
            .iter()
            .position(|x| *x == t)
            .map_or(0, |i| self.tickers[i].load(Ordering::Relaxed))
    }
    /// Records one value (microseconds or bytes) into a histogram.
    pub fn record_histogram(&self, _h: Histogram, _value: u64) {}
}
