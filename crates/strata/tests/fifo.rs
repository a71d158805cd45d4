//! FIFO compaction: the tables never exceed `max_table_files_size` by more
//! than a flush, the oldest data is what goes, nothing is rewritten unless
//! `allow_compaction` merges small newest files, and the DB reopens with
//! what was kept.

use strata_testkit as common;

use strata::stats::Ticker;
use strata::FifoOptions;
use strata::{CompactionStyle, Db, Options};
use strata_testkit::key;

fn fifo_opts(max: u64, allow: bool) -> Options {
    Options::default()
        .compaction_style(CompactionStyle::Fifo)
        .compaction_options_fifo(
            FifoOptions::default()
                .max_table_files_size(max)
                .allow_compaction(allow),
        )
        .write_buffer_size(32 << 10)
        .level0_file_num_compaction_trigger(4)
        .compression(strata::CompressionType::None)
        .statistics(true)
}

fn live_bytes(db: &Db) -> u64 {
    db.property("rocksdb.total-sst-files-size")
        .unwrap()
        .parse()
        .unwrap()
}

#[test]
fn oldest_tables_are_deleted_to_stay_under_the_limit() {
    let dir = common::tempdir();
    let max = 256 << 10;
    let db = Db::open(dir.path(), fifo_opts(max, false)).unwrap();
    let value = vec![b'v'; 300];
    let n = 10_000u32; // about 3 MB: a dozen times the limit
    for i in 0..n {
        db.put(key(i), &value).unwrap();
    }
    db.flush().unwrap();
    db.wait_for_compaction().unwrap();
    let live = live_bytes(&db);
    assert!(live <= max, "{live} bytes of tables over a {max} limit");
    assert!(live > max / 2, "only {live} bytes kept");
    // Keys were written in order, so FIFO keeps a suffix of them.
    assert_eq!(db.get(key(n - 1)).unwrap().as_deref(), Some(&value[..]));
    assert_eq!(db.get(key(0)).unwrap(), None);
    let kept: Vec<_> = db.iter().map(|r| r.unwrap().0).collect();
    let first = n - kept.len() as u32;
    assert_eq!(kept, (first..n).map(key).collect::<Vec<_>>());
    let stats = db.statistics().unwrap();
    assert_eq!(
        stats.ticker(Ticker::CompactWriteBytes),
        0,
        "FIFO rewrote data"
    );
    assert_eq!(common::files_at_level(&db, 1), 0);
    drop(db);

    // The style and its options survive a reopen, and so does the window.
    let db = Db::open(dir.path(), fifo_opts(max, false)).unwrap();
    assert_eq!(db.iter().count(), kept.len());
    assert!(db.options().compaction_style == CompactionStyle::Fifo);
    db.compact_range(None, None).unwrap();
    assert_eq!(db.iter().count(), kept.len());
}

/// Regression: writers stopped for good at 36 L0 files (the default stop
/// trigger), since FIFO deletes files only past its size limit; RocksDB
/// disables the L0 triggers under FIFO.
#[test]
fn writes_go_on_past_the_l0_stop_trigger() {
    let dir = common::tempdir();
    let db = std::sync::Arc::new(Db::open(dir.path(), fifo_opts(64 << 20, false)).unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    let writer = db.clone();
    std::thread::spawn(move || {
        for i in 0..50u32 {
            for j in 0..20u32 {
                writer.put(key(i * 20 + j), [b'v'; 100]).unwrap();
            }
            writer.flush().unwrap();
        }
        tx.send(()).unwrap();
    });
    rx.recv_timeout(std::time::Duration::from_secs(60))
        .expect("writes stopped on the L0 trigger under FIFO");
    let l0: usize = common::files_at_level(&db, 0);
    assert_eq!(l0, 50);
    common::no_l0_or_pending_bytes_stall(&db).unwrap();
}

#[test]
fn allow_compaction_merges_small_newest_files_within_the_limit() {
    let count_l0 = |allow: bool| {
        let dir = common::tempdir();
        let o = fifo_opts(64 << 20, allow)
            // Small flushes: the merge bound is 1.1 x this per file.
            .write_buffer_size(64 << 10);
        let db = Db::open(dir.path(), o).unwrap();
        for i in 0..400u32 {
            db.put(key(i), [b'v'; 100]).unwrap();
            if i % 20 == 19 {
                db.flush().unwrap(); // 20 small L0 files
            }
        }
        db.wait_for_compaction().unwrap();
        assert_eq!(db.iter().count(), 400, "allow_compaction={allow} lost data");
        let l0: usize = common::files_at_level(&db, 0);
        let written = db.statistics().unwrap().ticker(Ticker::CompactWriteBytes);
        (l0, written)
    };
    let (plain, plain_written) = count_l0(false);
    let (merged, merged_written) = count_l0(true);
    println!("L0 files: {plain} without, {merged} with allow_compaction");
    assert_eq!(plain, 20);
    assert_eq!(plain_written, 0);
    assert!(
        merged < plain / 2,
        "{merged} L0 files with allow_compaction"
    );
    assert!(merged_written > 0);
}

/// TTL: a table whose newest entry is older than `ttl` is deleted; the
/// time is kept in the MANIFEST, so it also expires after a reopen.
#[test]
fn tables_older_than_ttl_expire_even_across_a_reopen() {
    let dir = common::tempdir();
    let db = Db::open(dir.path(), fifo_opts(64 << 20, false)).unwrap();
    for i in 0..100 {
        db.put(key(i), b"old").unwrap();
    }
    db.flush().unwrap();
    drop(db);
    std::thread::sleep(std::time::Duration::from_millis(2500));
    let o = fifo_opts(64 << 20, false).ttl(1);
    let db = Db::open(dir.path(), o).unwrap();
    for i in 100..200 {
        db.put(key(i), b"new").unwrap();
    }
    db.flush().unwrap();
    db.wait_for_compaction().unwrap();
    assert_eq!(
        db.get(key(0)).unwrap(),
        None,
        "the expired table is still there"
    );
    assert_eq!(db.get(key(150)).unwrap().as_deref(), Some(&b"new"[..]));
    assert_eq!(db.iter().count(), 100);
}

#[test]
fn ttl_outside_fifo_is_refused_naming_it() {
    let dir = common::tempdir();
    let o = Options::default().ttl(60);
    let Err(e) = Db::open(dir.path(), o) else {
        panic!("open must fail")
    };
    assert!(e.to_string().contains("ttl=60"), "{e}");
}

#[test]
fn fifo_with_blob_files_is_refused_naming_both() {
    let dir = common::tempdir();
    let o = fifo_opts(1 << 20, false).enable_blob_files(true);
    let Err(e) = Db::open(dir.path(), o) else {
        panic!("open must fail")
    };
    let m = e.to_string();
    assert!(
        m.contains("kCompactionStyleFIFO") && m.contains("enable_blob_files"),
        "{m}"
    );
}
