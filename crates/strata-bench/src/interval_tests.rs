//! `--target_ops_per_sec` and `--report_interval_seconds` through the whole
//! harness on the in-memory test double, which can stall its writes.

use std::time::Duration;

use crate::e2e_tests::{run, temp_db};
use crate::engine::memory::MemoryFactory;

/// Runs `args` on `f` with a JSON report; the report's first benchmark.
fn first_benchmark(f: &MemoryFactory, args: &[&str]) -> serde_json::Value {
    let (dir, db) = temp_db();
    let json = format!("--json_report={}", dir.path().join("r.json").display());
    let csv = format!("--report_file={}", dir.path().join("r.csv").display());
    let mut all = vec![db.as_str(), json.as_str(), csv.as_str(), "--seed=1"];
    all.extend_from_slice(args);
    let r = run(f, &all);
    assert_eq!(r.code, 0, "{}", r.err);
    let text = std::fs::read_to_string(dir.path().join("r.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    v["benchmarks"][0].clone()
}

#[test]
fn a_paced_run_keeps_its_rate_and_its_schedule() {
    // Two threads of 200 writes at 400 ops/s in all: one second.
    let b = first_benchmark(
        &MemoryFactory::default(),
        &[
            "--benchmarks=fillrandom",
            "--num=200",
            "--threads=2",
            "--target_ops_per_sec=400",
        ],
    );
    let secs = b["elapsed_seconds"].as_f64().unwrap();
    // The bounds leave room for a loaded 2-core CI host descheduling a
    // thread: on time means within a tenth of the run, not to the slot.
    assert!((0.95..2.0).contains(&secs), "{b}");
    assert_eq!(b["ops"].as_u64(), Some(400));
    assert_eq!(b["target_ops_per_sec"].as_f64(), Some(400.0));
    let behind = b["behind_schedule_ms"].as_f64().unwrap();
    assert!(behind < 100.0, "{b}");
    assert_eq!(b["intervals"].as_array().map(Vec::len), Some(0));
    // Unpaced, the same work takes a fraction of that.
    let b = first_benchmark(
        &MemoryFactory::default(),
        &["--benchmarks=fillrandom", "--num=200", "--threads=2"],
    );
    assert!(b["elapsed_seconds"].as_f64().unwrap() < 0.5, "{b}");
    assert!(b["target_ops_per_sec"].is_null());
}

#[test]
fn a_stall_shows_as_a_gap_and_in_the_p99_from_the_scheduled_start() {
    // Every 300th write stalls 300 ms: three stalls in 1000 writes.
    let stalling = || MemoryFactory {
        stall: Some((300, Duration::from_millis(300))),
        ..MemoryFactory::default()
    };
    let args = [
        "--benchmarks=fillrandom",
        "--num=1000",
        "--report_interval_seconds=1",
    ];
    let paced = first_benchmark(
        &stalling(),
        &[&args[..], &["--target_ops_per_sec=1000"]].concat(),
    );
    let iv = paced["intervals"].as_array().unwrap();
    let sum = |k: &str| iv.iter().map(|i| i[k].as_u64().unwrap()).sum::<u64>();
    assert_eq!(sum("ops"), 1000, "{paced}");
    assert_eq!(sum("stall_micros"), 900_000, "{paced}");
    let gap = iv.iter().map(|i| i["max_gap_ms"].as_f64().unwrap());
    assert!(gap.fold(0.0, f64::max) >= 290.0, "{paced}");
    // The writes queued behind a stall wait up to 300 ms from their slots.
    let p99 = paced["latency"]["write"]["p99_us"].as_f64().unwrap();
    assert!(p99 > 100_000.0, "{paced}");
    assert!(iv[0]["latency"]["write"]["p99_us"].as_f64().unwrap() > 100_000.0);
    assert_eq!(iv[0]["l0_files"].as_u64(), Some(0));
    // Closed loop, the same stalls are three slow writes: the P99 misses
    // them (coordinated omission), the gap does not.
    let closed = first_benchmark(&stalling(), &args);
    let iv = closed["intervals"].as_array().unwrap();
    let gap = iv.iter().map(|i| i["max_gap_ms"].as_f64().unwrap());
    assert!(gap.fold(0.0, f64::max) >= 290.0, "{closed}");
    assert!(closed["latency"]["write"]["p99_us"].as_f64().unwrap() < 100_000.0);
    assert_eq!(closed["behind_schedule_ms"].as_f64(), Some(0.0));
}
