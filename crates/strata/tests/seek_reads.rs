//! Seeks over levels whose key ranges do not overlap: a level whose next
//! table starts after the target stops at that table's smallest key
//! without reading it, so a seek reads the one data block that holds its
//! answer, whatever the number of levels and L0 tables around it; and
//! moving on from such a position (forward, back, or across a range
//! tombstone that starts a table) returns what a `BTreeMap` model does.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use strata::stats::Ticker;
use strata::{Db, Options, ReadOptions};
use strata_testkit::{key, tempdir, Model};

fn value(i: u32) -> Vec<u8> {
    format!("v{i}-{}", "x".repeat(200)).into_bytes()
}

/// Five tables with disjoint key ranges: `[0, 1000)` on the last level,
/// then `[1000, 2000)` .. `[4000, 5000)` as four L0 tables, every
/// 4th key skipped (gaps inside tables) and every range starting 100 keys
/// in (gaps between tables). With `mmap`, tables are read in place.
fn disjoint_db(dir: &std::path::Path, mmap: bool) -> (Db, Model) {
    let opts = Options::default()
        .statistics(true)
        .disable_auto_compactions(true)
        .allow_mmap_reads(mmap)
        .block_cache_size(0);
    let db = Db::open(dir, opts).unwrap();
    let mut m = Model::new();
    for batch in 0..5u32 {
        for i in batch * 1000 + 100..(batch + 1) * 1000 {
            if i % 4 != 0 {
                db.put(key(i), value(i)).unwrap();
                m.insert(key(i), value(i));
            }
        }
        db.flush().unwrap();
        if batch == 0 {
            db.compact_range(None, None).unwrap();
        }
    }
    (db, m)
}

fn block_reads(db: &Db) -> u64 {
    let s = db.statistics().unwrap();
    s.ticker(Ticker::LastLevelReadCount) + s.ticker(Ticker::NonLastLevelReadCount)
}

#[test]
fn a_seek_reads_only_the_table_that_holds_its_answer() {
    for mmap in [false, true] {
        let tmp = tempdir();
        let (db, _) = disjoint_db(tmp.path(), mmap);
        assert_eq!(
            db.property("rocksdb.num-files-at-level0").as_deref(),
            Some("4")
        );
        let mut it = db.iter_opt(&ReadOptions::default());
        for i in [150u32, 1501, 2999, 3333, 4998, 555, 4102] {
            let before = block_reads(&db);
            it.seek(&key(i));
            assert!(it.valid());
            let want = if i % 4 == 0 { i + 1 } else { i };
            assert_eq!(it.key(), key(want), "seek {i}");
            assert_eq!(it.value(), value(want));
            let reads = block_reads(&db) - before;
            assert_eq!(reads, 1, "seek {i} (mmap {mmap}) read {reads} blocks");
        }
    }
}

#[test]
fn moving_from_a_lazy_position_matches_the_model() {
    for mmap in [false, true] {
        let tmp = tempdir();
        let (db, model) = disjoint_db(tmp.path(), mmap);
        // A range tombstone that starts a table before its first point key:
        // the table's smallest key is the tombstone's start.
        // It hides the first ten keys written before it.
        for i in 5100..5200u32 {
            db.put(key(i), value(i)).unwrap();
        }
        db.delete_range(key(5050), key(5110)).unwrap();
        db.flush().unwrap();
        let mut model = model;
        for i in 5110..5200u32 {
            model.insert(key(i), value(i));
        }
        let keys: Vec<&Vec<u8>> = model.keys().collect();
        let mut rng = StdRng::seed_from_u64(7);
        let mut it = db.iter_opt(&ReadOptions::default());
        for round in 0..400 {
            let target = key(rng.gen_range(0..5300));
            let mut pos = keys.partition_point(|k| **k < target) as isize;
            it.seek(&target);
            for step in 0..6 {
                let want = usize::try_from(pos).ok().and_then(|p| keys.get(p));
                match want {
                    Some(k) => {
                        assert!(it.valid(), "round {round} step {step}: ended early");
                        assert_eq!(it.key(), &k[..], "round {round} step {step}");
                        assert_eq!(it.value(), &model[*k][..]);
                    }
                    None => {
                        assert!(!it.valid(), "round {round} step {step}: past the end");
                        break;
                    }
                }
                if rng.gen_bool(0.5) {
                    it.advance();
                    pos += 1;
                } else {
                    it.retreat();
                    pos -= 1;
                }
            }
            it.status().unwrap();
        }
    }
}
