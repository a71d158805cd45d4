//! The options of `lab run` (and `plan`, `run-one`): where results go, the
//! bench commands, resume.

use std::path::PathBuf;

/// Options of `lab run`.
#[derive(Clone, Debug, Default)]
pub(crate) struct RunOptions {
    /// Output root.
    pub out: PathBuf,
    /// Skip jobs already done.
    pub resume: bool,
    /// Strata bench command override (split on whitespace).
    pub strata_bench: Option<String>,
    /// External RocksDB db_bench.
    pub rocksdb_bench: Option<String>,
    /// External LevelDB db_bench.
    pub leveldb_bench: Option<String>,
    /// Stop after this many jobs (testing interruption).
    pub max_jobs: Option<usize>,
    /// Seed of the job order within each repeat (`None`: from the clock,
    /// recorded in `meta.json`).
    pub order_seed: Option<u64>,
    /// Settle the host before each job (sync; drop the page cache as root).
    pub settle: bool,
    /// Run without a requested engine that cannot run, instead of failing.
    pub allow_missing_engines: bool,
    /// More repeats for the cells of undecided claims (`--until-decided`).
    pub adaptive: Option<crate::run::adaptive::Adaptive>,
}
