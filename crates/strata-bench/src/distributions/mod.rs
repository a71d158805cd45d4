//! The key, value-size and query-mix generators of the workloads people
//! tune for, as their reference implementations define them:
//!
//! * [`zipfian`]: YCSB's `ZipfianGenerator` (Gray et al.'s method, SIGMOD
//!   1994) and `ScrambledZipfianGenerator` (popular items spread over the
//!   key space by a 64-bit FNV hash), with `fnv_hash64`.
//! * [`latest`]: YCSB's `SkewedLatestGenerator`: the newest records are the
//!   most popular (workload D).
//! * [`mixgraph`]: db_bench's `mixgraph` model of production traffic: power
//!   and Pareto CDF inversions, key ranges whose hotness follows a two-term
//!   exponential, the query-type decider and the sine-shaped rate.
//!
//! Every generator draws from a [`Random64`](crate::rng::Random64) it is
//! given, so a workload replays for the same `--seed`.

pub mod latest;
pub mod mixgraph;
pub mod zipfian;

#[cfg(test)]
mod fit;

use crate::rng::Random64;

/// A uniform double in [0, 1) from the top 53 bits of the next draw (what
/// Java's `nextDouble` gives YCSB).
pub fn next_unit(rng: &mut Random64) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}
