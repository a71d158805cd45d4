//! Universal compaction's `compression_size_percent`: flushes write
//! uncompressed tables (RocksDB's `GetCompressionFlush`); at -1 they are
//! compressed as usual.

use strata_testkit as common;

use strata::stats::Ticker;
use strata::UniversalOptions;
use strata::{CompactionStyle, Db, Options};

fn compressed_blocks_after_one_flush(percent: i32) -> u64 {
    let dir = common::tempdir();
    let o = Options::default()
        .compaction_style(CompactionStyle::Universal)
        .compaction_options_universal(UniversalOptions::default().compression_size_percent(percent))
        .compression(strata::CompressionType::Snappy)
        .statistics(true);
    let db = Db::open(dir.path(), o).unwrap();
    for i in 0..2000u32 {
        db.put(format!("k{i:06}").as_bytes(), [b'x'; 200]).unwrap();
    }
    db.flush().unwrap();
    db.statistics()
        .unwrap()
        .ticker(Ticker::NumberBlockCompressed)
}

#[test]
fn flushes_are_uncompressed_when_a_percentage_is_set() {
    assert!(compressed_blocks_after_one_flush(-1) > 0);
    assert_eq!(compressed_blocks_after_one_flush(50), 0);
}
