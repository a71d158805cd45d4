//! `compression_per_level`: every table is compressed as the level it is
//! written to says (flushes as L0), a file never moves down unchanged into
//! a level of another compression, and the data reads back after a reopen.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::Value;
use strata::Db;
use strata_testkit::{small_options_with, tempdir};

/// Three levels: L0 uncompressed, L1 LZ4, L2 ZSTD; small levels so that
/// automatic compactions reach L2.
const OPTS: &str = "num_levels=3;compression=kSnappyCompression;\
    compression_per_level=kNoCompression:kLZ4Compression:kZSTD;\
    max_bytes_for_level_base=262144;max_bytes_for_level_multiplier=4";

fn value(i: u64) -> Vec<u8> {
    format!("value-{i:08}-").repeat(12).into_bytes()
}

/// (event name, output level, output compression) of the LOG's flushes
/// and compactions.
fn outputs(dir: &Path) -> Vec<(String, u64, String)> {
    let log = std::fs::read_to_string(dir.join("LOG")).unwrap();
    log.lines()
        .filter_map(|l| l.split_once("EVENT_LOG_v1 "))
        .map(|(_, json)| serde_json::from_str::<Value>(json).unwrap())
        .filter_map(|e| {
            let name = e["event"].as_str()?.to_string();
            let level = match name.as_str() {
                "flush_finished" => 0,
                "compaction_finished" => e["output_level"].as_u64()?,
                _ => return None,
            };
            Some((name, level, e["output_compression"].as_str()?.to_string()))
        })
        .collect()
}

#[test]
fn each_level_gets_its_own_compression_and_the_data_reads_back() {
    let dir = tempdir();
    let db = Db::open(dir.path(), small_options_with(OPTS)).unwrap();
    // Keys in a stride order, so that files overlap and compactions rewrite.
    let n = 20_000u64;
    for i in 0..n {
        let k = (i * 7919) % n;
        db.put(format!("key{k:08}").as_bytes(), value(k)).unwrap();
    }
    db.flush().unwrap();
    db.wait_for_compaction().unwrap();
    db.close().unwrap();
    let seen = outputs(dir.path());
    let want = ["NoCompression", "LZ4", "ZSTD"];
    for (event, level, compression) in &seen {
        assert_eq!(
            compression, want[*level as usize],
            "{event} into L{level}: {seen:?}"
        );
    }
    let levels: BTreeSet<u64> = seen.iter().map(|(_, l, _)| *l).collect();
    assert_eq!(levels, BTreeSet::from([0, 1, 2]), "{seen:?}");
    let db = Db::open(dir.path(), small_options_with(OPTS)).unwrap();
    for k in (0..n).step_by(97) {
        assert_eq!(
            db.get(format!("key{k:08}").as_bytes()).unwrap(),
            Some(value(k)),
            "key {k}"
        );
    }
}

/// The option round-trips through the OPTIONS file: a reopen without it
/// given reads it back from the file the DB wrote.
#[test]
fn the_list_is_kept_in_the_options_file() {
    let dir = tempdir();
    Db::open(dir.path(), small_options_with(OPTS))
        .unwrap()
        .close()
        .unwrap();
    let text = std::fs::read_to_string(strata_testkit::options_file(dir.path())).unwrap();
    assert!(
        text.contains("compression_per_level=kNoCompression:kLZ4Compression:kZSTD"),
        "{text}"
    );
}
