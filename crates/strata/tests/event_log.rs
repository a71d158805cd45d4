//! The LOG's `EVENT_LOG_v1` lines (RocksDB's structured events): every
//! line is JSON, jobs start and finish in pairs, each table file created is
//! either live or deleted later, and the last `lsm_state` is the tree the
//! DB reports.

use strata_testkit as common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;
use strata::event_log::timeline::{parse, summarize};
use strata::{CompactionStyle, Db, Options};

fn opts() -> Options {
    common::small_options().target_file_size_base(32 << 10)
}

/// Random-order writes of 200-byte values over `n` keys.
fn load(db: &Db, n: u64) {
    let value = vec![b'v'; 200];
    for i in 0..n {
        let k = (i * 7919) % n;
        db.put(format!("key{k:08}").as_bytes(), &value).unwrap();
    }
}

/// Every event of the LOG in `dir`, parsed.
fn events(dir: &Path) -> Vec<Value> {
    let log = std::fs::read_to_string(dir.join("LOG")).unwrap();
    log.lines()
        .filter_map(|l| l.split_once("EVENT_LOG_v1 "))
        .map(|(_, json)| {
            serde_json::from_str(json).unwrap_or_else(|e| panic!("not JSON ({e}): {json}"))
        })
        .collect()
}

fn named<'a>(evs: &'a [Value], name: &str) -> Vec<&'a Value> {
    evs.iter().filter(|e| e["event"] == name).collect()
}

fn jobs(evs: &[&Value]) -> BTreeSet<u64> {
    evs.iter().map(|e| e["job"].as_u64().unwrap()).collect()
}

fn table_files_on_disk(dir: &Path) -> BTreeSet<u64> {
    std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".sst")?.parse().ok()
        })
        .collect()
}

#[test]
fn flushes_and_compactions_log_paired_events_that_account_for_every_table() {
    let dir = common::tempdir();
    let db = Db::open(dir.path(), opts()).unwrap();
    load(&db, 20_000);
    db.flush().unwrap();
    db.wait_for_compaction().unwrap();
    let counts: Vec<u64> = (0..7)
        .map(|l| {
            db.property(&format!("rocksdb.num-files-at-level{l}"))
                .unwrap()
                .parse()
                .unwrap()
        })
        .collect();
    let evs = events(dir.path());

    let (fs, ff) = (named(&evs, "flush_started"), named(&evs, "flush_finished"));
    assert!(fs.len() >= 5, "too few flushes to judge: {}", fs.len());
    assert_eq!(
        jobs(&fs),
        jobs(&ff),
        "flush jobs started and finished differ"
    );
    assert_eq!(fs.last().unwrap()["flush_reason"], "Manual Flush");
    assert!(fs
        .iter()
        .take(fs.len() - 1)
        .all(|e| e["flush_reason"] == "Write Buffer Full"));

    let (cs, cf) = (
        named(&evs, "compaction_started"),
        named(&evs, "compaction_finished"),
    );
    assert!(!cs.is_empty(), "no compaction ran");
    assert_eq!(
        jobs(&cs),
        jobs(&cf),
        "compaction jobs started and finished differ"
    );
    assert!(jobs(&fs).is_disjoint(&jobs(&cs)), "a job id was used twice");
    for e in &cs {
        assert!(e["compaction_reason"].is_string());
        assert!(e["files_L0"].is_array() && e["files_L6"].is_array());
        assert!(e["input_data_size"].as_u64().unwrap() > 0);
    }

    // Each created table is on disk, or its deletion was logged; a
    // compaction's outputs add up to what it says it wrote.
    let created = named(&evs, "table_file_creation");
    let deleted: BTreeSet<u64> = named(&evs, "table_file_deletion")
        .iter()
        .map(|e| e["file_number"].as_u64().unwrap())
        .collect();
    let on_disk = table_files_on_disk(dir.path());
    let mut out_bytes: BTreeMap<u64, u64> = BTreeMap::new();
    for e in &created {
        let n = e["file_number"].as_u64().unwrap();
        assert!(
            on_disk.contains(&n) != deleted.contains(&n),
            "table {n}: on disk {}, deletion logged {}",
            on_disk.contains(&n),
            deleted.contains(&n)
        );
        assert!(e["table_properties"]["num_entries"].as_u64().unwrap() > 0);
        *out_bytes.entry(e["job"].as_u64().unwrap()).or_default() +=
            e["file_size"].as_u64().unwrap();
    }
    for e in &cf {
        let job = e["job"].as_u64().unwrap();
        assert_eq!(
            out_bytes.get(&job).copied().unwrap_or(0),
            e["total_output_size"].as_u64().unwrap(),
            "job {job}"
        );
    }
    let created_numbers: BTreeSet<u64> = created
        .iter()
        .map(|e| e["file_number"].as_u64().unwrap())
        .collect();
    assert!(
        on_disk.is_subset(&created_numbers),
        "a table with no creation event"
    );

    // The reader (`strata inspect events`, the lab) puts the same jobs
    // back together, with every output counted.
    let t = parse(&std::fs::read_to_string(dir.path().join("LOG")).unwrap());
    assert_eq!(t.skipped, 0);
    assert!(t.jobs.iter().all(|j| j.end_us.is_some()));
    let s = summarize(&t);
    assert_eq!(s.flushes as usize, fs.len());
    assert_eq!(
        s.by_reason.values().map(|r| r.0).sum::<u64>() as usize,
        cs.len()
    );
    assert_eq!(
        s.flush_bytes + s.compaction_bytes(),
        out_bytes.values().sum::<u64>()
    );
    assert!(!s.l0_batches.is_empty() && s.l0_batches.iter().all(|&n| n >= 2));

    // The last lsm_state is the tree as the DB reports it.
    let last = evs
        .iter()
        .rev()
        .find(|e| e.get("lsm_state").is_some())
        .unwrap();
    let lsm: Vec<u64> = last["lsm_state"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(lsm, counts);
}

#[test]
fn manual_compaction_and_reopen_log_their_reasons() {
    let dir = common::tempdir();
    {
        // Without automatic compactions, so that the manual one has L0 to
        // merge: otherwise an automatic job may take L0 first and leave
        // all data in L1, which a full manual compaction skips as
        // RocksDB's does (the bottommost level), and which happened once
        // removals stopped holding the state lock.
        let db = Db::open(dir.path(), opts().disable_auto_compactions(true)).unwrap();
        load(&db, 3_000);
        db.compact_range(None, None).unwrap();
        let evs = events(dir.path());
        let fs = named(&evs, "flush_started");
        assert_eq!(fs.last().unwrap()["flush_reason"], "Manual Compaction");
        assert!(named(&evs, "compaction_started")
            .iter()
            .any(|e| e["compaction_reason"] == "ManualCompaction"));
        // A write left in the WAL alone, for recovery to replay.
        db.put(b"after", b"x").unwrap();
        drop(db);
    }
    let db = Db::open(dir.path(), opts()).unwrap();
    let evs = events(dir.path());
    let started = named(&evs, "recovery_started");
    assert_eq!(started.len(), 1);
    assert!(!started[0]["wal_files"].as_array().unwrap().is_empty());
    assert_eq!(named(&evs, "recovery_finished").len(), 1);
    // The replayed WAL became a table, logged as the recovery's.
    let rec_job = started[0]["job"].as_u64().unwrap();
    assert!(named(&evs, "table_file_creation")
        .iter()
        .any(|e| e["job"].as_u64().unwrap() > rec_job));
    assert_eq!(db.get(b"after").unwrap().as_deref(), Some(&b"x"[..]));
}

#[test]
fn universal_trivial_moves_and_blob_files_have_events() {
    let dir = common::tempdir();
    let o = opts()
        .compaction_style(CompactionStyle::Universal)
        .enable_blob_files(true)
        .min_blob_size(100);
    let db = Db::open(dir.path(), o).unwrap();
    load(&db, 10_000);
    db.flush().unwrap();
    db.wait_for_compaction().unwrap();
    let evs = events(dir.path());
    assert!(!named(&evs, "blob_file_creation").is_empty());
    assert!(named(&evs, "compaction_started")
        .iter()
        .any(|e| e["compaction_reason"]
            .as_str()
            .unwrap()
            .starts_with("Universal")));
    drop(db);

    // A leveled DB whose flushes do not overlap moves them down whole.
    let dir = common::tempdir();
    let db = Db::open(dir.path(), opts()).unwrap();
    let value = vec![b'v'; 200];
    for i in 0..3_000u64 {
        db.put(format!("key{i:08}").as_bytes(), &value).unwrap();
    }
    db.flush().unwrap();
    db.wait_for_compaction().unwrap();
    let evs = events(dir.path());
    let moves = named(&evs, "trivial_move");
    assert!(!moves.is_empty(), "sequential keys made no trivial move");
    assert!(moves
        .iter()
        .all(|e| e["total_files_size"].as_u64().unwrap() > 0));
}
