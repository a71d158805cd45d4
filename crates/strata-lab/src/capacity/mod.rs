//! Capacity: the highest rate each engine and configuration sustains
//! within a service-level objective (`strata lab capacity`).
//!
//! A capacity file ([`spec`]) names a workload (a load, then a mix run
//! open-loop at a target rate), the engines and configurations compared,
//! the objective ([`slo`]: P99 per operation kind, the longest stall, peak
//! disk use over the live data, peak memory) and its window (a warm-up,
//! then the seconds judged). Each run's per-second samples come from the
//! bench's JSON report ([`samples`]). The [`search`] brackets the highest
//! passing rate between a closed-loop probe and a floor, bisects in log
//! space, and repeats the boundary; every run is logged ([`trials`]) and
//! run as a study job ([`driver`]). The [`report`] gives each engine and
//! configuration's sustainable rate with its interval and the limit that
//! binds, with time-series charts ([`chart`]) of the last passing and the
//! first failing rate.

pub(crate) mod chart;
pub(crate) mod driver;
pub(crate) mod report;
pub(crate) mod samples;
pub(crate) mod search;
pub(crate) mod slo;
pub(crate) mod spec;
pub(crate) mod trials;
