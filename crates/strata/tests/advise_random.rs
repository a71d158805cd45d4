//! `advise_random_on_open`: every table opened for reads is advised random
//! access (RocksDB's default), unless the option is off. Without it,
//! compactions that read block by block (`compaction_readahead_size` 0)
//! got the OS's read-ahead that RocksDB's do not, ran faster, and merged
//! smaller L0 batches than RocksDB under the same flags (study 5,
//! docs/benchmarks.md).

mod common;

use std::sync::Arc;

use strata::fs::fault::FaultInjectionFs;
use strata::fs::{FileSystem, PosixFileSystem};
use strata::{Db, Options};

/// Opens a DB on a fault-injecting FS, writes and flushes two tables, reads
/// a key from each; returns how many opened tables were advised random.
fn advices(advise: bool) -> u64 {
    let dir = common::tempdir();
    let fs = FaultInjectionFs::new(Arc::new(PosixFileSystem));
    let shared: Arc<dyn FileSystem> = Arc::new(fs.clone());
    let opts = Options {
        advise_random_on_open: advise,
        ..common::small_opts(shared)
    };
    let db = Db::open(dir.path(), opts).unwrap();
    for round in 0..2 {
        for i in 0..100 {
            db.put(format!("k{round}-{i:04}").as_bytes(), b"v").unwrap();
        }
        db.flush().unwrap();
    }
    assert_eq!(db.get(b"k0-0001").unwrap().as_deref(), Some(&b"v"[..]));
    assert_eq!(db.get(b"k1-0001").unwrap().as_deref(), Some(&b"v"[..]));
    fs.random_advices()
}

#[test]
fn tables_are_advised_random_by_default_and_not_when_turned_off() {
    assert!(advices(true) >= 2, "each opened table is advised");
    assert_eq!(advices(false), 0);
}

#[test]
fn the_option_round_trips_by_name() {
    let mut o = Options::default();
    assert!(o.advise_random_on_open);
    o.set("advise_random_on_open", "false").unwrap();
    assert!(!o.advise_random_on_open);
    assert!(o
        .to_pairs()
        .iter()
        .any(|(k, v)| *k == "advise_random_on_open" && v == "false"));
}
