//! Run hygiene: what the lab does between jobs so that the order of jobs
//! and the writeback of one job do not bias another's figures.
//!
//! - **Order.** Within each repeat, jobs (cell x engine) run in an order
//!   shuffled from a recorded seed ([`execution_order`]); repeats still run
//!   one after another, so a stopped run has whole repeats.
//! - **Settle.** Before each job, `sync` flushes the previous job's dirty
//!   pages, and where the lab runs as root the page cache is dropped
//!   ([`Settle`]), so a job does not pay for its predecessor's writeback
//!   nor read its predecessor's cached files.

use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;

use crate::spec::model::Job;

/// `jobs` in the order they run: repeat by repeat, each repeat's jobs
/// shuffled by a generator seeded with `seed` and the repeat index.
pub(crate) fn execution_order<'a>(jobs: &[&'a Job], seed: u64) -> Vec<&'a Job> {
    let mut repeats: Vec<u32> = jobs.iter().map(|j| j.repeat).collect();
    repeats.sort_unstable();
    repeats.dedup();
    let mut out = Vec::with_capacity(jobs.len());
    for r in repeats {
        let mut these: Vec<&Job> = jobs.iter().copied().filter(|j| j.repeat == r).collect();
        let mut rng =
            StdRng::seed_from_u64(seed ^ u64::from(r).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        these.shuffle(&mut rng);
        out.extend(these);
    }
    out
}

/// A seed for the job order when none is given: from the clock, recorded
/// in the study's `meta.json` so the order can be replayed.
pub(crate) fn fresh_order_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// What is done before each job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Settle {
    /// Nothing (`--no-settle`).
    Off,
    /// `sync` only: the page cache cannot be dropped (not root).
    Sync,
    /// `sync`, then the page cache dropped (`/proc/sys/vm/drop_caches`).
    SyncAndDrop,
}

const DROP_CACHES: &str = "/proc/sys/vm/drop_caches";

impl Settle {
    /// The settle step this process can do: off when `enabled` is false;
    /// else dropping the page cache where it may (root), `sync` otherwise.
    pub(crate) fn available(enabled: bool) -> Settle {
        if !enabled {
            return Settle::Off;
        }
        // SAFETY: geteuid has no preconditions and cannot fail.
        let root = unsafe { libc::geteuid() } == 0;
        if root && std::path::Path::new(DROP_CACHES).exists() {
            Settle::SyncAndDrop
        } else {
            Settle::Sync
        }
    }

    /// Settles the host before a job. A failure to drop the cache is not
    /// fatal: the job runs, and the returned message says what happened.
    pub(crate) fn run(self) -> Option<String> {
        if self == Settle::Off {
            return None;
        }
        // SAFETY: sync has no preconditions and cannot fail.
        unsafe { libc::sync() };
        if self == Settle::SyncAndDrop {
            if let Err(e) = std::fs::write(DROP_CACHES, "1") {
                return Some(format!(
                    "could not drop the page cache ({DROP_CACHES}: {e})"
                ));
            }
        }
        None
    }

    /// In words, for the report's setup.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Settle::Off => "none (--no-settle): a job may pay for the previous job's writeback",
            Settle::Sync => {
                "sync before each job (the page cache is not dropped: the lab did not run as root)"
            }
            Settle::SyncAndDrop => "sync and the page cache dropped before each job",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::model::Cell;

    fn job(index: usize, repeat: u32, cell: &str, engine: &str) -> Job {
        Job {
            index,
            cell: Cell {
                id: cell.into(),
                labels: Default::default(),
                flags: Default::default(),
                cpus: None,
            },
            engine: engine.into(),
            repeat,
        }
    }

    #[test]
    fn each_repeat_is_shuffled_and_repeats_stay_in_order() {
        let mut jobs = Vec::new();
        for r in 0..3 {
            for c in ["a", "b", "c", "d"] {
                for e in ["strata", "rocksdb"] {
                    jobs.push(job(jobs.len(), r, c, e));
                }
            }
        }
        let refs: Vec<&Job> = jobs.iter().collect();
        let order = execution_order(&refs, 7);
        assert_eq!(order.len(), jobs.len());
        // Repeat by repeat.
        let reps: Vec<u32> = order.iter().map(|j| j.repeat).collect();
        let mut sorted = reps.clone();
        sorted.sort();
        assert_eq!(reps, sorted);
        // Every job once.
        let mut idx: Vec<usize> = order.iter().map(|j| j.index).collect();
        idx.sort();
        assert_eq!(idx, (0..jobs.len()).collect::<Vec<_>>());
        // Shuffled, differently per repeat, and the same for the same seed.
        let of = |o: &[&Job], r: u32| -> Vec<String> {
            o.iter()
                .filter(|j| j.repeat == r)
                .map(|j| format!("{}{}", j.cell.id, j.engine))
                .collect()
        };
        let plan_order: Vec<String> = of(&refs, 0);
        assert_ne!(of(&order, 0), plan_order);
        assert_ne!(of(&order, 0), of(&order, 1));
        let again = execution_order(&refs, 7);
        assert_eq!(of(&again, 2), of(&order, 2));
        assert_ne!(of(&execution_order(&refs, 8), 0), of(&order, 0));
    }

    #[test]
    fn settle_off_does_nothing() {
        assert_eq!(Settle::available(false), Settle::Off);
        assert_eq!(Settle::Off.run(), None);
        assert!(Settle::available(true) != Settle::Off);
    }
}
