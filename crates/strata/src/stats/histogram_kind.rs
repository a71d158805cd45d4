//! Histograms: distributions of latencies or sizes, with RocksDB 7.8.3's names
//! and dump order (the first [`Histogram::ROCKSDB_7_8_3_COUNT`] entries of
//! [`Histogram::ALL`]); later entries are names from newer RocksDB releases.
//!
//! Each doc comment says what one recorded sample is. "Stays empty" marks
//! RocksDB features Strata does not have.

use super::unit::stat_names;

stat_names! {
    /// A latency or size distribution, named as RocksDB names it.
    pub enum Histogram {
        /// Latency of one Get call.
        DbGet = "rocksdb.db.get.micros" [Micros],
        /// Latency of one Write call (a Put/Delete/Merge or WriteBatch), including WAL and memtable insert and any stall.
        DbWrite = "rocksdb.db.write.micros" [Micros],
        /// Wall time of one compaction job.
        CompactionTime = "rocksdb.compaction.times.micros" [Micros],
        /// Thread CPU time of one compaction job, summed over its subcompactions (the studies' COMP_CPU is its SUM).
        CompactionCpuTime = "rocksdb.compaction.times.cpu_micros" [Micros],
        /// Time to choose the subcompaction boundaries of one compaction job (only jobs that split).
        SubcompactionSetupTime = "rocksdb.subcompaction.setup.times.micros" [Micros],
        /// Time to sync one table file written by a flush.
        TableSyncMicros = "rocksdb.table.sync.micros" [Micros],
        /// Time to sync one table file written by a compaction.
        CompactionOutfileSyncMicros = "rocksdb.compaction.outfile.sync.micros" [Micros],
        /// Time of one WAL sync.
        WalFileSyncMicros = "rocksdb.wal.file.sync.micros" [Micros],
        /// Time of one MANIFEST sync.
        ManifestFileSyncMicros = "rocksdb.manifest.file.sync.micros" [Micros],
        /// Time to open one table file on a table-cache miss (open the file, read and check its footer, properties, filter and index).
        TableOpenIoMicros = "rocksdb.table.open.io.micros" [Micros],
        /// Latency of one `Db::multi_get` call.
        DbMultiget = "rocksdb.db.multiget.micros" [Micros],
        /// Time to read, check and decompress one data block from a table file for a compaction.
        ReadBlockCompactionMicros = "rocksdb.read.block.compaction.micros" [Micros],
        /// Time to read, check and decompress one data block from a table file for any read but a compaction's (Get and iterators, despite RocksDB's name).
        ReadBlockGetMicros = "rocksdb.read.block.get.micros" [Micros],
        /// Time to checksum and append one block (data, index, filter or meta) and its trailer to a table file; compression is not included.
        WriteRawBlockMicros = "rocksdb.write.raw.block.micros" [Micros],
        /// Deprecated in RocksDB (stays empty there too).
        StallL0SlowdownCount = "rocksdb.l0.slowdown.count" [Count],
        /// Deprecated in RocksDB (stays empty there too).
        StallMemtableCompactionCount = "rocksdb.memtable.compaction.count" [Count],
        /// Deprecated in RocksDB (stays empty there too).
        StallL0NumFilesCount = "rocksdb.num.files.stall.count" [Count],
        /// Deprecated in RocksDB (stays empty there too).
        HardRateLimitDelayCount = "rocksdb.hard.rate.limit.delay.count" [Count],
        /// Deprecated in RocksDB (stays empty there too).
        SoftRateLimitDelayCount = "rocksdb.soft.rate.limit.delay.count" [Count],
        /// Number of input files of one automatically picked compaction, trivial moves included; manual compactions (`compact_range`) record nothing, as in RocksDB.
        NumFilesInSingleCompaction = "rocksdb.numfiles.in.singlecompaction" [Count],
        /// Latency of one iterator Seek.
        DbSeek = "rocksdb.db.seek.micros" [Micros],
        /// The whole delay of one write group that was delayed or stopped by a write stall; the samples add up to `rocksdb.stall.micros`.
        WriteStall = "rocksdb.db.write.stall" [Micros],
        /// Time of one read from a table file (a block and its trailer).
        SstReadMicros = "rocksdb.sst.read.micros" [Micros],
        /// Number of subcompactions (key ranges) one compaction job that may split ran: one sample per job where subcompactions are formed (`max_subcompactions` > 1, an L0 -> base, universal or manual compaction), none for other jobs, as in RocksDB.
        NumSubcompactionsScheduled = "rocksdb.num.subcompactions.scheduled" [Count],
        /// Value bytes returned by one successful Get.
        BytesPerRead = "rocksdb.bytes.per.read" [Bytes],
        /// Payload bytes of one write group (one Write call, or several joined by group commit), as RocksDB records it.
        BytesPerWrite = "rocksdb.bytes.per.write" [Bytes],
        /// Value bytes returned by one `Db::multi_get` call.
        BytesPerMultiget = "rocksdb.bytes.per.multiget" [Bytes],
        /// Uncompressed size of one data or index block a flush or compaction stored compressed (blocks the codec did not shrink enough are not sampled, as in RocksDB 7.8).
        BytesCompressed = "rocksdb.bytes.compressed" [Bytes],
        /// Uncompressed size of one block decompressed after a table-file read.
        BytesDecompressed = "rocksdb.bytes.decompressed" [Bytes],
        /// Time to compress one block. Stays empty: RocksDB records it only at stats level `kAll` (detailed timers), which Strata does not offer.
        CompressionTimesNanos = "rocksdb.compression.times.nanos" [Nanos],
        /// Time to decompress one block. Stays empty: RocksDB records it only at stats level `kAll` (detailed timers), which Strata does not offer.
        DecompressionTimesNanos = "rocksdb.decompression.times.nanos" [Nanos],
        /// Merge operands read by one Get (or MultiGet key) that met merge operands.
        ReadNumMergeOperands = "rocksdb.read.num.merge_operands" [Count],
        /// Legacy stackable BlobDB: key size. Stays empty.
        BlobDbKeySize = "rocksdb.blobdb.key.size" [Bytes],
        /// Legacy stackable BlobDB: value size. Stays empty.
        BlobDbValueSize = "rocksdb.blobdb.value.size" [Bytes],
        /// Legacy stackable BlobDB: write latency. Stays empty.
        BlobDbWriteMicros = "rocksdb.blobdb.write.micros" [Micros],
        /// Legacy stackable BlobDB: get latency. Stays empty.
        BlobDbGetMicros = "rocksdb.blobdb.get.micros" [Micros],
        /// Legacy stackable BlobDB: multiget latency. Stays empty.
        BlobDbMultigetMicros = "rocksdb.blobdb.multiget.micros" [Micros],
        /// Legacy stackable BlobDB: seek latency. Stays empty.
        BlobDbSeekMicros = "rocksdb.blobdb.seek.micros" [Micros],
        /// Legacy stackable BlobDB: next latency. Stays empty.
        BlobDbNextMicros = "rocksdb.blobdb.next.micros" [Micros],
        /// Legacy stackable BlobDB: prev latency. Stays empty.
        BlobDbPrevMicros = "rocksdb.blobdb.prev.micros" [Micros],
        /// Time of one write (append) to a blob file (the studies' BLOB_W).
        BlobDbBlobFileWriteMicros = "rocksdb.blobdb.blob.file.write.micros" [Micros],
        /// Time of one read from a blob file.
        BlobDbBlobFileReadMicros = "rocksdb.blobdb.blob.file.read.micros" [Micros],
        /// Time of one blob file sync.
        BlobDbBlobFileSyncMicros = "rocksdb.blobdb.blob.file.sync.micros" [Micros],
        /// Legacy stackable BlobDB: GC pass time. Stays empty.
        BlobDbGcMicros = "rocksdb.blobdb.gc.micros" [Micros],
        /// Time to compress one blob.
        BlobDbCompressionMicros = "rocksdb.blobdb.compression.micros" [Micros],
        /// Time to decompress one blob.
        BlobDbDecompressionMicros = "rocksdb.blobdb.decompression.micros" [Micros],
        /// Wall time of one flush job.
        FlushTime = "rocksdb.db.flush.micros" [Micros],
        /// Bytes of one batch of table files ingested. Stays empty: no ingestion.
        SstBatchSize = "rocksdb.sst.batch.size" [Bytes],
        /// Index and filter blocks read per level by one MultiGet. Stays empty: Strata's MultiGet reads its keys one by one, with no per-level batches.
        NumIndexAndFilterBlocksReadPerLevel = "rocksdb.num.index.and.filter.blocks.read.per.level" [Count],
        /// Data blocks read per level by one MultiGet. Stays empty: Strata's MultiGet reads its keys one by one, with no per-level batches.
        NumDataBlocksReadPerLevel = "rocksdb.num.data.blocks.read.per.level" [Count],
        /// Table files read per level by one MultiGet. Stays empty: Strata's MultiGet reads its keys one by one, with no per-level batches.
        NumSstReadPerLevel = "rocksdb.num.sst.read.per.level" [Count],
        /// Resume attempts of one automatic resume. Stays empty: after a background error Strata stops writes until the DB is reopened; it never resumes by itself.
        ErrorHandlerAutoresumeRetryCount = "rocksdb.error.handler.autoresume.retry.count" [Count],
        /// Bytes of one asynchronous read. Stays empty: no async I/O.
        AsyncReadBytes = "rocksdb.async.read.bytes" [Bytes],
        /// Time one poll for async reads waited. Stays empty: no async I/O.
        PollWaitMicros = "rocksdb.poll.wait.micros" [Micros],
        /// Prefetched bytes thrown away unused by one reader. Stays empty: Strata's table readers keep no prefetch buffer.
        PrefetchedBytesDiscarded = "rocksdb.prefetched.bytes.discarded" [Bytes],
        /// Keys in one MultiGet I/O batch. Stays empty: Strata's MultiGet reads its keys one by one, with no per-level batches.
        MultigetIoBatchSize = "rocksdb.multiget.io.batch.size" [Count],
        /// Levels one MultiGet read. Stays empty: Strata's MultiGet reads its keys one by one, with no per-level batches.
        NumLevelReadPerMultiget = "rocksdb.num.level.read.per.multiget" [Count],
        /// Time to abort one async prefetch. Stays empty: no async I/O.
        AsyncPrefetchAbortMicros = "rocksdb.async.prefetch.abort.micros" [Micros],
        // ---- Names from newer RocksDB releases (after 7.8.3) ----
        /// Time of one append to a table file, by flush or compaction (the
        /// studies' SST_W; RocksDB 8.11+ name). As in RocksDB, every append
        /// is one sample, buffered or not: a block and its trailer are two.
        SstWriteMicros = "rocksdb.sst.write.micros" [Micros],
        /// Time of one append to a table file written by a flush (RocksDB 8.11+ name).
        FileWriteFlushMicros = "rocksdb.file.write.flush.micros" [Micros],
        /// Time of one append to a table file written by a compaction (RocksDB 8.11+ name).
        FileWriteCompactionMicros = "rocksdb.file.write.compaction.micros" [Micros],
    }
}

impl Histogram {
    /// How many leading entries of [`Histogram::ALL`] are RocksDB 7.8.3's list.
    pub const ROCKSDB_7_8_3_COUNT: usize = 58;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for (i, h) in Histogram::ALL.iter().enumerate() {
            assert_eq!(h.index(), i);
            assert!(seen.insert(h.name()), "duplicate {}", h.name());
            assert_eq!(Histogram::from_name(h.name()), Some(*h));
        }
        assert_eq!(Histogram::from_name("rocksdb.db.get"), None);
    }

    #[test]
    fn first_entries_match_rocksdb_7_8_3_dump_order() {
        let sample = include_str!("../../testdata/stats/db_bench_7.8.3_small.txt");
        let names: Vec<&str> = sample
            .lines()
            .filter(|l| l.contains(" P50 : ") && l.contains(" SUM : "))
            .filter_map(|l| l.split(' ').next())
            .collect();
        assert_eq!(names.len(), Histogram::ROCKSDB_7_8_3_COUNT);
        let ours: Vec<&str> = Histogram::ALL[..Histogram::ROCKSDB_7_8_3_COUNT]
            .iter()
            .map(|h| h.name())
            .collect();
        assert_eq!(ours, names);
    }
}
