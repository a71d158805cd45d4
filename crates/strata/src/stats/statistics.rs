//! The engine's shared statistics object (RocksDB's `Statistics`).

use std::cell::Cell;
use std::fmt;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

use super::atomic_histogram::AtomicHistogram;
use super::histogram_impl::{HistogramData, HistogramImpl};
use super::histogram_kind::Histogram;
use super::ticker::Ticker;

/// Upper bound on shards, whatever the core count.
const MAX_SHARDS: usize = 16;

/// One shard: a full set of counters, padded so shards never share a cache
/// line. Each thread records into "its" shard, so threads running on
/// different cores do not bounce the same cache lines (RocksDB uses per-core
/// shards for the same reason).
#[repr(align(128))]
#[derive(Debug)]
struct Shard {
    tickers: Box<[AtomicU64]>,
    histograms: Box<[AtomicHistogram]>,
}

impl Shard {
    fn new() -> Self {
        Shard {
            tickers: (0..Ticker::COUNT).map(|_| AtomicU64::new(0)).collect(),
            histograms: (0..Histogram::COUNT)
                .map(|_| AtomicHistogram::new())
                .collect(),
        }
    }
}

static NEXT_THREAD_SLOT: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Round-robin number given to each thread on first use.
    static THREAD_SLOT: Cell<usize> = const { Cell::new(usize::MAX) };
}

fn thread_slot() -> usize {
    THREAD_SLOT.with(|slot| {
        let mut v = slot.get();
        if v == usize::MAX {
            v = NEXT_THREAD_SLOT.fetch_add(1, Ordering::Relaxed);
            slot.set(v);
        }
        v
    })
}

/// The DB's statistics object, shared by all threads through an `Arc`.
///
/// Recording is a handful of relaxed atomic adds into the calling thread's
/// shard; reading ([`Statistics::ticker`], [`Statistics::histogram_data`],
/// the dump) sums the shards.
#[derive(Debug)]
pub struct Statistics {
    shards: Box<[Shard]>,
    /// `shards.len() - 1`; the length is a power of two.
    mask: usize,
}

impl Default for Statistics {
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        Self::with_shards(cores)
    }
}

impl Statistics {
    /// A new, zeroed statistics object with one shard per core (up to 16).
    pub fn new() -> Arc<Self> {
        Arc::new(Self::default())
    }

    /// A zeroed statistics object with about `shards` shards (rounded up to
    /// a power of two, between 1 and 16).
    pub fn with_shards(shards: usize) -> Self {
        let n = shards.clamp(1, MAX_SHARDS).next_power_of_two();
        Statistics {
            shards: (0..n).map(|_| Shard::new()).collect(),
            mask: n - 1,
        }
    }

    fn shard(&self) -> &Shard {
        &self.shards[thread_slot() & self.mask]
    }

    /// Adds `n` to a ticker.
    pub fn record_tick(&self, t: Ticker, n: u64) {
        if let Some(c) = self.shard().tickers.get(t.index()) {
            c.fetch_add(n, Ordering::Relaxed);
        }
    }

    /// Current value of a ticker (sum over shards).
    pub fn ticker(&self, t: Ticker) -> u64 {
        self.shards
            .iter()
            .filter_map(|s| s.tickers.get(t.index()))
            .fold(0u64, |a, c| a.wrapping_add(c.load(Ordering::Relaxed)))
    }

    /// Records one value (microseconds, bytes or a count, as the histogram's
    /// unit says) into a histogram.
    pub fn record_histogram(&self, h: Histogram, value: u64) {
        if let Some(hist) = self.shard().histograms.get(h.index()) {
            hist.add(value);
        }
    }

    /// Starts a timer that records the elapsed microseconds into `h` when
    /// dropped (RocksDB's `StopWatch`).
    pub fn start_timer(&self, h: Histogram) -> StopWatch<'_> {
        StopWatch {
            stats: self,
            histogram: h,
            start: Instant::now(),
        }
    }

    /// A merged copy of one histogram.
    pub fn histogram(&self, h: Histogram) -> HistogramImpl {
        let mut out = HistogramImpl::new();
        for s in self.shards.iter() {
            if let Some(hist) = s.histograms.get(h.index()) {
                hist.merge_into(&mut out);
            }
        }
        out
    }

    /// Summary numbers of one histogram.
    pub fn histogram_data(&self, h: Histogram) -> HistogramData {
        self.histogram(h).data()
    }

    /// Every ticker by RocksDB name, in dump order.
    pub fn tickers(&self) -> Vec<(&'static str, u64)> {
        Ticker::ALL
            .iter()
            .map(|t| (t.name(), self.ticker(*t)))
            .collect()
    }

    /// Every histogram by RocksDB name, in dump order.
    pub fn histograms(&self) -> Vec<(&'static str, HistogramData)> {
        Histogram::ALL
            .iter()
            .map(|h| (h.name(), self.histogram_data(*h)))
            .collect()
    }

    /// Zeroes every ticker and histogram.
    pub fn reset(&self) {
        for s in self.shards.iter() {
            for t in s.tickers.iter() {
                t.store(0, Ordering::Relaxed);
            }
            for h in s.histograms.iter() {
                h.clear();
            }
        }
    }
}

/// Writes RocksDB's `STATISTICS:` dump body (`StatisticsImpl::ToString`):
/// one `<name> COUNT : <n>` line per ticker, then one
/// `<name> P50 : %f P95 : %f P99 : %f P100 : %f COUNT : <n> SUM : <n>` line
/// per histogram (P100 is the maximum).
impl fmt::Display for Statistics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, v) in self.tickers() {
            writeln!(f, "{name} COUNT : {v}")?;
        }
        for (name, d) in self.histograms() {
            writeln!(
                f,
                "{name} P50 : {:.6} P95 : {:.6} P99 : {:.6} P100 : {:.6} COUNT : {} SUM : {}",
                d.median, d.p95, d.p99, d.max as f64, d.count, d.sum
            )?;
        }
        Ok(())
    }
}

/// Records the time from its creation to its drop into a histogram, in
/// microseconds. Made by [`Statistics::start_timer`].
#[derive(Debug)]
pub struct StopWatch<'a> {
    stats: &'a Statistics,
    histogram: Histogram,
    start: Instant,
}

impl StopWatch<'_> {
    /// Microseconds elapsed so far.
    pub fn elapsed_micros(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_micros()).unwrap_or(u64::MAX)
    }
}

impl Drop for StopWatch<'_> {
    fn drop(&mut self) {
        self.stats
            .record_histogram(self.histogram, self.elapsed_micros());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_sum_across_threads_and_shards() {
        let stats = Statistics::new();
        let threads: Vec<_> = (0..6)
            .map(|_| {
                let s = Arc::clone(&stats);
                std::thread::spawn(move || {
                    for _ in 0..1000 {
                        s.record_tick(Ticker::BlockCacheHit, 2);
                        s.record_histogram(Histogram::DbGet, 3);
                    }
                })
            })
            .collect();
        for t in threads {
            let _ = t.join();
        }
        assert_eq!(stats.ticker(Ticker::BlockCacheHit), 12_000);
        assert_eq!(stats.ticker(Ticker::BlockCacheMiss), 0);
        let d = stats.histogram_data(Histogram::DbGet);
        assert_eq!(d.count, 6000);
        assert_eq!(d.sum, 18_000);
        assert_eq!(d.max, 3);
        stats.reset();
        assert_eq!(stats.ticker(Ticker::BlockCacheHit), 0);
        assert_eq!(stats.histogram_data(Histogram::DbGet).count, 0);
    }

    #[test]
    fn dump_has_rocksdb_shape() {
        let stats = Statistics::with_shards(4);
        stats.record_tick(Ticker::NumberKeysWritten, 20_000);
        for v in [1u64, 2, 3, 4, 5, 6, 7, 8, 9, 10] {
            stats.record_histogram(Histogram::DbWrite, v);
        }
        let dump = stats.to_string();
        let lines: Vec<&str> = dump.lines().collect();
        assert_eq!(lines.len(), Ticker::COUNT + Histogram::COUNT);
        assert_eq!(lines[0], "rocksdb.block.cache.miss COUNT : 0");
        assert!(lines.contains(&"rocksdb.number.keys.written COUNT : 20000"));
        assert_eq!(
            lines[Ticker::COUNT],
            "rocksdb.db.get.micros P50 : 0.000000 P95 : 0.000000 P99 : 0.000000 \
P100 : 0.000000 COUNT : 0 SUM : 0"
        );
        assert_eq!(
            lines[Ticker::COUNT + 1],
            "rocksdb.db.write.micros P50 : 5.000000 P95 : 9.500000 P99 : 9.900000 \
P100 : 10.000000 COUNT : 10 SUM : 55"
        );
    }

    /// Every line of our dump for a zeroed object must parse like RocksDB's:
    /// same names in the same order for the 7.8.3 part, same field layout.
    #[test]
    fn zeroed_dump_lines_match_rocksdb_layout() {
        let sample = include_str!("../../testdata/stats/db_bench_7.8.3_small.txt");
        let real: Vec<&str> = sample
            .lines()
            .skip_while(|l| *l != "STATISTICS:")
            .skip(1)
            .filter(|l| !l.is_empty())
            .collect();
        let stats = Statistics::with_shards(1);
        let dump = stats.to_string();
        let ours: Vec<&str> = dump.lines().collect();
        let shape = |l: &str| -> String {
            l.split(' ')
                .map(|w| {
                    if w.chars().all(|c| c.is_ascii_digit() || c == '.') {
                        if w.contains('.') {
                            format!("F{}", w.split('.').nth(1).map_or(0, str::len))
                        } else {
                            "N".to_string()
                        }
                    } else {
                        w.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        let nt = Ticker::ROCKSDB_7_8_3_COUNT;
        let nh = Histogram::ROCKSDB_7_8_3_COUNT;
        assert_eq!(real.len(), nt + nh);
        for (o, r) in ours[..nt].iter().zip(&real[..nt]) {
            assert_eq!(shape(o), shape(r));
        }
        for (o, r) in ours[Ticker::COUNT..Ticker::COUNT + nh]
            .iter()
            .zip(&real[nt..])
        {
            assert_eq!(shape(o), shape(r));
        }
    }

    #[test]
    fn stop_watch_records_once() {
        let stats = Statistics::with_shards(2);
        {
            let _t = stats.start_timer(Histogram::DbSeek);
        }
        assert_eq!(stats.histogram_data(Histogram::DbSeek).count, 1);
    }

    #[test]
    fn name_listing_is_complete() {
        let stats = Statistics::with_shards(1);
        stats.record_tick(Ticker::WalFileBytes, 7);
        let t = stats.tickers();
        assert_eq!(t.len(), Ticker::COUNT);
        assert!(t.contains(&("rocksdb.wal.bytes", 7)));
        assert_eq!(stats.histograms().len(), Histogram::COUNT);
    }
}
