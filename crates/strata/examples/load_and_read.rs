//! A first measurement before `strata bench` existed: bulk load N random
//! keys (16-byte keys, VALUE_SIZE-byte values, no compression), then read N
//! random keys; prints ops/sec and the rocksdb.stats text.
//!
//! Run: `cargo run --release -p strata --example load_and_read -- DIR N VALUE_SIZE`

use std::time::Instant;

use strata::{CompressionType, Db, Options};

fn key(i: u64) -> [u8; 16] {
    let mut k = [b'0'; 16];
    k[..8].copy_from_slice(&i.to_be_bytes());
    k
}

/// Prints one db_bench-style result line: `name` took `secs` for `n`
/// operations, followed by `extra`.
fn report(name: &str, secs: f64, n: u64, extra: &str) {
    println!(
        "{name:<13}: {:>11.3} micros/op {} ops/sec {:.3} seconds {} operations; {extra}",
        secs * 1e6 / n as f64,
        (n as f64 / secs) as u64,
        secs,
        n
    );
}

fn main() -> strata::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let dir = args
        .get(1)
        .cloned()
        .unwrap_or_else(|| "/tmp/strata-load".into());
    let n: u64 = args
        .get(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let vsize: usize = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(100);
    let _ = std::fs::remove_dir_all(&dir);
    let opts = Options::default().compression(CompressionType::None);
    let db = Db::open(&dir, opts)?;
    let value = vec![b'x'; vsize];
    let mut rng: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % n
    };
    let t = Instant::now();
    for _ in 0..n {
        db.put(key(next()), &value)?;
    }
    let secs = t.elapsed().as_secs_f64();
    report(
        "fillrandom",
        secs,
        n,
        &format!(
            "{:.1} MB/s",
            (n as f64 * (16 + vsize) as f64) / 1048576.0 / secs
        ),
    );
    db.wait_for_compaction()?;
    let t = Instant::now();
    let mut found = 0;
    for _ in 0..n {
        if db.get(key(next()))?.is_some() {
            found += 1;
        }
    }
    let secs = t.elapsed().as_secs_f64();
    report("readrandom", secs, n, &format!("({found} of {n} found)"));
    println!("{}", db.property("rocksdb.stats").unwrap_or_default());
    Ok(())
}
