//! The force threshold (`blob_garbage_collection_force_threshold`) on its
//! own: a table that no compaction reaches keeps the oldest blob file
//! alive after the rest of the file became garbage; past the threshold,
//! the picker compacts that table (reason `ForcedBlobGC`), its blobs are
//! relocated and the file is deleted. Ordinary blob GC cannot do it: it
//! relocates only the blobs of tables a compaction already takes.

use strata::{Db, Options};
use strata_testkit::{file_names, key};

/// Two levels, nothing compacted but by `compact_range` or the force
/// threshold `force`; every value in a blob file; L1 tables of a few keys.
fn opts(force: f64) -> Options {
    Options::default()
        .num_levels(2)
        .write_buffer_size(1 << 20)
        .level0_file_num_compaction_trigger(100)
        .level0_slowdown_writes_trigger(200)
        .level0_stop_writes_trigger(300)
        .max_bytes_for_level_base(1 << 30)
        .target_file_size_base(512)
        .compression(strata::CompressionType::None)
        .enable_blob_files(true)
        .enable_blob_garbage_collection(true)
        .blob_garbage_collection_age_cutoff(0.5)
        .blob_garbage_collection_force_threshold(force)
}

fn blob_files(dir: &std::path::Path) -> Vec<String> {
    file_names(dir)
        .into_iter()
        .filter(|n| n.ends_with(".blob"))
        .collect()
}

/// Writes 100 keys into one blob file and several L1 tables, overwrites
/// the first 60 and compacts their range only; returns the first blob
/// file's name, whether it is still there, and the LOG.
fn run(force: f64) -> (String, bool, String) {
    let dir = strata_testkit::tempdir();
    let db = Db::open(dir.path(), opts(force)).unwrap();
    for i in 0..100 {
        db.put(key(i), [b'a'; 300]).unwrap();
    }
    db.flush().unwrap();
    // One blob file: under the age cutoff none is old enough to relocate,
    // so the tables move to L1 still linked to it.
    db.compact_range(None, None).unwrap();
    let first = blob_files(dir.path());
    assert_eq!(first.len(), 1, "{first:?}");
    assert!(
        strata_testkit::files_at_level(&db, 1) > 2,
        "L1 should hold several tables"
    );
    for i in 0..60 {
        db.put(key(i), [b'b'; 300]).unwrap();
    }
    db.flush().unwrap();
    // Drops the first 60 keys' blobs: 60% of the first file is garbage,
    // and the tables of keys 60 to 99 keep it alive.
    db.compact_range(Some(&key(0)), Some(&key(59))).unwrap();
    db.wait_for_compaction().unwrap();
    for i in 0..100 {
        let want = if i < 60 { [b'b'; 300] } else { [b'a'; 300] };
        assert_eq!(
            db.get(key(i)).unwrap().as_deref(),
            Some(&want[..]),
            "key {i}"
        );
    }
    db.close().unwrap();
    let log = std::fs::read_to_string(dir.path().join("LOG")).unwrap();
    let kept = blob_files(dir.path()).contains(&first[0]);
    (first[0].clone(), kept, log)
}

#[test]
fn wait_for_compaction_waits_for_a_forced_blob_gc_compaction() {
    let (first, kept, log) = run(0.5);
    assert!(
        log.contains("\"compaction_reason\": \"ForcedBlobGC\""),
        "no forced compaction in the LOG"
    );
    assert!(
        !kept,
        "{first} is still there after the forced compaction\n{log}"
    );
}

#[test]
fn without_the_force_threshold_the_mostly_garbage_blob_file_stays() {
    let (first, kept, log) = run(1.0);
    assert!(!log.contains("ForcedBlobGC"));
    assert!(kept, "{first} was deleted without a forced compaction");
}
