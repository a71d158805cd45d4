//! Statistics a workload must fill: every histogram and ticker below is one
//! a RocksDB user reads, and each was printed empty by Strata before it was
//! wired (the STATISTICS dump showed 0 where RocksDB shows a count).

use strata_testkit as common;

use strata::stats::{Histogram, Ticker};
use strata::{CompressionType, Db, Options};

fn opts() -> Options {
    common::small_options()
        .max_subcompactions(2)
        .compression(CompressionType::Lz4)
        .statistics(true)
}

/// Key `i` of a permutation of keys 0..4000, so that writes in order of
/// `i` land all over the key range.
fn scattered_key(i: u32) -> Vec<u8> {
    common::key_n((i * 7919) % 4000, 8)
}

/// RocksDB records `rocksdb.num.subcompactions.scheduled` only where it
/// forms subcompactions; with `max_subcompactions = 1` the histogram stays
/// empty however many compactions run (Strata recorded 1 per job).
/// Writes keys 0..4000 with 200-byte values; returns the value.
fn put_all(db: &Db) -> Vec<u8> {
    let value = vec![b'v'; 200];
    for i in 0..4000 {
        db.put(scattered_key(i), &value).unwrap();
    }
    value
}

#[test]
fn one_subcompaction_allowed_records_no_subcompaction_histograms() {
    let dir = common::tempdir();
    let o = opts().max_subcompactions(1);
    let db = Db::open(dir.path(), o).unwrap();
    put_all(&db);
    db.flush().unwrap();
    db.wait_for_compaction().unwrap();
    let s = db.statistics().unwrap();
    assert!(s.histogram(Histogram::CompactionTime).count() > 0);
    assert_eq!(
        s.histogram(Histogram::NumSubcompactionsScheduled).count(),
        0
    );
    assert_eq!(s.histogram(Histogram::SubcompactionSetupTime).count(), 0);
}

/// RocksDB samples `rocksdb.numfiles.in.singlecompaction` where it picks an
/// automatic compaction; a manual one (`compact_range`) records nothing.
#[test]
fn manual_compactions_record_no_input_file_count() {
    let dir = common::tempdir();
    let o = opts().level0_file_num_compaction_trigger(100);
    let db = Db::open(dir.path(), o).unwrap();
    for round in 0..2 {
        for i in 0..500 {
            db.put(scattered_key(i + round), b"v").unwrap();
        }
        db.flush().unwrap();
    }
    db.compact_range(None, None).unwrap();
    let s = db.statistics().unwrap();
    assert!(s.histogram(Histogram::CompactionTime).count() > 0);
    assert_eq!(
        s.histogram(Histogram::NumFilesInSingleCompaction).count(),
        0
    );
}

#[test]
fn universal_compaction_output_on_the_last_level_counts_last_level_reads() {
    let dir = common::tempdir();
    let o = opts().compaction_style(strata::CompactionStyle::Universal);
    let db = Db::open(dir.path(), o).unwrap();
    let value = put_all(&db);
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    let s = db.statistics().unwrap();
    let before = s.ticker(Ticker::LastLevelReadCount);
    for i in 0..4000 {
        assert_eq!(
            db.get(scattered_key(i)).unwrap().as_deref(),
            Some(&value[..])
        );
    }
    // A full compaction leaves everything on L6, the last of 7 levels.
    assert!(s.ticker(Ticker::LastLevelReadCount) > before);
    assert!(s.ticker(Ticker::LastLevelReadBytes) > 0);
}

#[test]
fn a_fill_compaction_and_reads_fill_the_io_histograms() {
    let dir = common::tempdir();
    let db = Db::open(dir.path(), opts()).unwrap();
    let value = put_all(&db);
    db.flush().unwrap();
    db.wait_for_compaction().unwrap();
    for i in 0..4000 {
        assert_eq!(
            db.get(scattered_key(i)).unwrap().as_deref(),
            Some(&value[..])
        );
    }
    let s = db.statistics().unwrap();
    let count = |h: Histogram| s.histogram(h).count();

    // Writes and reads, per call.
    assert_eq!(count(Histogram::BytesPerWrite), 4000);
    // The WAL counts the batches' bytes, as RocksDB does: every write was
    // logged, so `rocksdb.wal.bytes` equals `rocksdb.bytes.written` exactly
    // (Strata counted the log's record headers too, 0.4% more).
    assert_eq!(
        s.ticker(Ticker::WalFileBytes),
        s.ticker(Ticker::BytesWritten)
    );
    assert_eq!(
        s.histogram(Histogram::BytesPerWrite).sum(),
        s.ticker(Ticker::BytesWritten)
    );
    assert_eq!(count(Histogram::BytesPerRead), 4000);
    assert_eq!(s.histogram(Histogram::BytesPerRead).sum(), 4000 * 200);

    // Every flush and compaction installs a version with a MANIFEST sync.
    let flushes = s.histogram(Histogram::FlushTime).count();
    let compactions = s.histogram(Histogram::CompactionTime).count();
    assert!(
        flushes > 0 && compactions > 0,
        "{flushes} flushes, {compactions} compactions"
    );
    assert!(count(Histogram::ManifestFileSyncMicros) >= flushes + compactions);

    // Flush outputs and compaction outputs are synced into different histograms.
    assert!(count(Histogram::TableSyncMicros) >= flushes);
    assert!(count(Histogram::CompactionOutfileSyncMicros) >= compactions);
    assert!(count(Histogram::NumFilesInSingleCompaction) >= compactions);
    assert!(s.histogram(Histogram::NumFilesInSingleCompaction).sum() >= 2 * compactions);
    // L0 -> L1 with max_subcompactions = 2 computes boundaries.
    assert!(count(Histogram::SubcompactionSetupTime) > 0);
    assert!(count(Histogram::NumSubcompactionsScheduled) > 0);

    // Block reads: compaction reads and Get reads are timed apart; every
    // file read is timed; every compressed block counted both ways.
    assert!(count(Histogram::ReadBlockCompactionMicros) > 0);
    let get_reads = count(Histogram::ReadBlockGetMicros);
    assert_eq!(
        get_reads,
        s.ticker(Ticker::BlockCacheDataMiss) - count(Histogram::ReadBlockCompactionMicros)
    );
    assert!(count(Histogram::SstReadMicros) >= get_reads);
    // Only blocks stored compressed are sampled (RocksDB 7.8).
    assert_eq!(
        count(Histogram::BytesCompressed),
        s.ticker(Ticker::NumberBlockCompressed)
    );
    assert!(s.ticker(Ticker::NumberBlockCompressed) > 0);
    assert_eq!(
        count(Histogram::BytesDecompressed),
        s.ticker(Ticker::NumberBlockDecompressed)
    );
    assert!(s.ticker(Ticker::NumberBlockDecompressed) > 0);
    assert!(s.ticker(Ticker::BlockChecksumComputeCount) >= get_reads);
    // With 7 levels nothing reaches L6 here: every data-block read from a
    // file (Gets and compactions alike) is a non-last-level read.
    let file_reads = s.ticker(Ticker::BlockCacheDataMiss);
    assert_eq!(s.ticker(Ticker::NonLastLevelReadCount), file_reads);
    assert_eq!(s.ticker(Ticker::LastLevelReadCount), 0);
    assert!(s.ticker(Ticker::NonLastLevelReadBytes) > file_reads * 5);
    // Each table was opened once, timed.
    assert_eq!(
        count(Histogram::TableOpenIoMicros),
        s.ticker(Ticker::NoFileOpens)
    );

    // Every append to a table file is timed, by activity.
    let flush_appends = count(Histogram::FileWriteFlushMicros);
    let compaction_appends = count(Histogram::FileWriteCompactionMicros);
    assert!(flush_appends > 0 && compaction_appends > 0);
    assert_eq!(
        count(Histogram::SstWriteMicros),
        flush_appends + compaction_appends
    );
}
