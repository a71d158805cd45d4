//! `strata lab`: runs tuning studies (sweeps of db_bench-compatible benchmark
//! runs) end to end, on Strata and RocksDB side by side, and reports on them.
//!
//! Entry point: [`run_cli`] (the arguments after `strata lab`). See `docs/lab.md`.

pub mod derive;
pub mod host;
pub mod model;
pub mod parse;
pub mod process;
pub mod results;
pub mod spec;
pub mod stats;
pub mod validate;
