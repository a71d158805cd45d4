//! Tuning: searching the options of a workload for the best configuration
//! on an engine, in a handful of runs.
//!
//! A tuning file ([`spec`]) names the workload (steps and flags, as in a
//! study), the options searched and their ranges, the objective
//! ([`objective`]), the constraints and a run budget. The [`policy`] picks
//! each next run from the runs so far: the baseline, the starting
//! configurations, a space-filling design, then a Gaussian-process model's
//! proposals ([`search`]), repeating the model's leader when it has a
//! single run. Every run is logged ([`trials`]) and run as a study job
//! ([`driver`]); after the budget, the winner and the baseline run again,
//! alternating, and the verdict model's test reads the gain ([`confirm`]).
//! The [`report`] draws the convergence ([`chart`]) and writes the winner
//! as a RocksDB OPTIONS file and a Strata option string ([`export`]).

pub(crate) mod chart;
pub(crate) mod confirm;
pub(crate) mod driver;
pub(crate) mod export;
pub(crate) mod objective;
pub(crate) mod policy;
pub(crate) mod report;
pub(crate) mod search;
pub(crate) mod spec;
pub(crate) mod trials;
