//! `disable_auto_compactions`: flushes pile up in L0 without a compaction
//! and without stalling writers on the L0 triggers (as in RocksDB), and a
//! manual compaction still merges everything.

use strata_testkit as common;

use strata::stats::Ticker;
use strata::{Db, Options};

#[test]
fn l0_grows_past_the_stop_trigger_without_stalls_and_compact_range_merges() {
    let dir = common::tempdir();
    let o = Options::default()
        .write_buffer_size(32 << 10)
        .level0_file_num_compaction_trigger(2)
        .level0_slowdown_writes_trigger(3)
        .level0_stop_writes_trigger(4)
        .disable_auto_compactions(true)
        .statistics(true)
        .compression(strata::CompressionType::None);
    let db = std::sync::Arc::new(Db::open(dir.path(), o).unwrap());
    // Writers stopped on L0 would wait forever here: nothing compacts.
    let (tx, rx) = std::sync::mpsc::channel();
    let writer = db.clone();
    std::thread::spawn(move || {
        let value = vec![b'v'; 500];
        for i in 0..3000u32 {
            writer
                .put(format!("k{:06}", (i * 7919) % 3000).as_bytes(), &value)
                .unwrap();
        }
        tx.send(()).unwrap();
    });
    rx.recv_timeout(std::time::Duration::from_secs(60))
        .expect("writes stopped on the L0 triggers with compactions off");
    db.flush().unwrap();
    db.wait_for_compaction().unwrap();
    let l0: usize = common::files_at_level(&db, 0);
    assert!(
        l0 > 4,
        "only {l0} L0 files: a compaction ran, or flushes stopped"
    );
    let stats = db.statistics().unwrap();
    // Only the memtable limit may have stopped writers (a flush behind).
    common::no_l0_or_pending_bytes_stall(&db).unwrap();
    assert_eq!(
        stats.ticker(Ticker::CompactWriteBytes),
        0,
        "a compaction ran"
    );
    assert_eq!(db.property("rocksdb.compaction-pending").unwrap(), "0");

    db.compact_range(None, None).unwrap();
    assert_eq!(common::files_at_level(&db, 0), 0);
    assert!(stats.ticker(Ticker::CompactWriteBytes) > 0);
    assert_eq!(db.iter().count(), 3000);
}
