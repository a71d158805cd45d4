//! `rate_limiter_bytes_per_sec`: flushes and compactions (tables and blob
//! files) take their bytes from one token bucket, so they cannot write
//! faster than the rate; WAL writes are not limited.

use strata_testkit as common;

use std::time::Instant;

use strata::stats::Ticker;
use strata::{Db, Options};

fn opts(rate: u64) -> Options {
    Options::default()
        .statistics(true)
        .compression(strata::CompressionType::None)
        .rate_limiter_bytes_per_sec(rate)
        .rate_limiter_refill_period_us(10_000)
}

fn fill(db: &Db, n: u32, value: &[u8]) {
    for i in 0..n {
        db.put(format!("key{i:08}").as_bytes(), value).unwrap();
    }
}

#[test]
fn flush_and_compaction_writes_are_held_to_the_rate() {
    let dir = common::tempdir();
    let db = Db::open(dir.path(), opts(2 << 20)).unwrap();
    let value = vec![7u8; 1000];
    // Writes into the memtable (and the WAL) are not limited.
    let t = Instant::now();
    fill(&db, 1000, &value);
    assert!(t.elapsed().as_secs_f64() < 0.4, "{:?}", t.elapsed());
    let s = db.statistics().unwrap();
    let t = Instant::now();
    db.flush().unwrap();
    let flushed = s.ticker(Ticker::FlushWriteBytes);
    // About 1 MB at 2 MB/s (the first refill's bytes come free).
    let min = (flushed as f64 - (2 << 20) as f64 / 100.0) / (2 << 20) as f64;
    let took = t.elapsed().as_secs_f64();
    assert!(flushed > 1_000_000, "{flushed}");
    assert!(took >= min * 0.9, "flush of {flushed} bytes took {took} s");
    let drains = s.ticker(Ticker::NumberRateLimiterDrains);
    assert!(drains >= 30, "{drains}");
    // A second table, then a full compaction: limited too.
    fill(&db, 1000, &value);
    db.flush().unwrap();
    let before = s.ticker(Ticker::NumberRateLimiterDrains);
    let t = Instant::now();
    db.compact_range(None, None).unwrap();
    let written = s.ticker(Ticker::CompactWriteBytes);
    let took = t.elapsed().as_secs_f64();
    assert!(written > 1_000_000, "{written}");
    assert!(
        took >= written as f64 / (2 << 20) as f64 * 0.8,
        "{took} s for {written} bytes"
    );
    assert!(s.ticker(Ticker::NumberRateLimiterDrains) > before + 30);
    for i in [0u32, 999] {
        assert_eq!(
            db.get(format!("key{i:08}").as_bytes()).unwrap().as_deref(),
            Some(&value[..])
        );
    }
}

#[test]
fn without_a_rate_nothing_is_limited() {
    let dir = common::tempdir();
    let db = Db::open(dir.path(), opts(0)).unwrap();
    fill(&db, 1000, &[7u8; 1000]);
    db.flush().unwrap();
    let s = db.statistics().unwrap();
    assert_eq!(s.ticker(Ticker::NumberRateLimiterDrains), 0);
}

#[test]
fn refill_period_of_zero_is_refused() {
    let dir = common::tempdir();
    let mut o = opts(1 << 20);
    o.rate_limiter_refill_period_us = 0;
    let e = Db::open(dir.path(), o).unwrap_err().to_string();
    assert!(e.contains("rate_limiter_refill_period_us"), "{e}");
    let mut o = Options::default();
    o.set("rate_limiter_bytes_per_sec", "1048576").unwrap();
    assert_eq!(o.rate_limiter_bytes_per_sec, 1 << 20);
    assert!(o.set("rate_limiter_bytes_per_sec", "fast").is_err());
}

#[test]
fn blob_files_written_by_a_flush_are_limited_too() {
    let dir = common::tempdir();
    let o = opts(2 << 20).enable_blob_files(true).min_blob_size(0);
    let db = Db::open(dir.path(), o).unwrap();
    fill(&db, 1000, &[9u8; 1000]);
    let s = db.statistics().unwrap();
    let t = Instant::now();
    db.flush().unwrap();
    let took = t.elapsed().as_secs_f64();
    let blob = s.ticker(Ticker::BlobDbBlobFileBytesWritten);
    assert!(blob > 1_000_000, "{blob}");
    // The table holds only blob indexes: the time is the blob file's.
    assert!(
        took >= blob as f64 / (2 << 20) as f64 * 0.8,
        "{took} s for {blob} blob bytes"
    );
    assert!(s.ticker(Ticker::NumberRateLimiterDrains) >= 30);
}
