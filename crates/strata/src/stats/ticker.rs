//! Tickers: monotonically increasing counters, with RocksDB 7.8.3's names and
//! dump order (the first [`Ticker::ROCKSDB_7_8_3_COUNT`] entries of
//! [`Ticker::ALL`] are exactly RocksDB 7.8.3's list; later entries are names
//! from newer RocksDB releases that Strata also keeps).
//!
//! Each doc comment says what adds to the counter. "Stays 0" marks RocksDB
//! features Strata does not have; the line is kept so the `STATISTICS:` dump
//! has RocksDB's shape and existing parsers work unchanged.

use super::unit::stat_names;

stat_names! {
    /// A counter, named as RocksDB names it.
    pub enum Ticker {
        /// Block lookups not found in the block cache (in Strata only data blocks are looked up).
        BlockCacheMiss = "rocksdb.block.cache.miss" [Count],
        /// Block lookups served from the block cache (data blocks; see `BlockCacheMiss`).
        BlockCacheHit = "rocksdb.block.cache.hit" [Count],
        /// Blocks inserted into the block cache after a miss (reads with `fill_cache`).
        BlockCacheAdd = "rocksdb.block.cache.add" [Count],
        /// Block-cache inserts that failed. Stays 0: Strata's cache has no strict capacity limit (RocksDB's default), so an insert always succeeds by evicting cold blocks.
        BlockCacheAddFailures = "rocksdb.block.cache.add.failures" [Count],
        /// Index-block lookups that missed the block cache. Stays 0: each table's index and filter live in the open table, not the block cache (RocksDB's default `cache_index_and_filter_blocks=false`, where RocksDB leaves it at 0 too).
        BlockCacheIndexMiss = "rocksdb.block.cache.index.miss" [Count],
        /// Index-block lookups served from the block cache. Stays 0: each table's index and filter live in the open table, not the block cache (RocksDB's default `cache_index_and_filter_blocks=false`, where RocksDB leaves it at 0 too).
        BlockCacheIndexHit = "rocksdb.block.cache.index.hit" [Count],
        /// Index blocks inserted into the block cache. Stays 0: each table's index and filter live in the open table, not the block cache (RocksDB's default `cache_index_and_filter_blocks=false`, where RocksDB leaves it at 0 too).
        BlockCacheIndexAdd = "rocksdb.block.cache.index.add" [Count],
        /// Bytes of index blocks inserted into the block cache. Stays 0: each table's index and filter live in the open table, not the block cache (RocksDB's default `cache_index_and_filter_blocks=false`, where RocksDB leaves it at 0 too).
        BlockCacheIndexBytesInsert = "rocksdb.block.cache.index.bytes.insert" [Bytes],
        /// Bytes of index blocks evicted from the block cache. Stays 0, as in RocksDB, which never updates it.
        BlockCacheIndexBytesEvict = "rocksdb.block.cache.index.bytes.evict" [Bytes],
        /// Filter-block lookups that missed the block cache. Stays 0: each table's index and filter live in the open table, not the block cache (RocksDB's default `cache_index_and_filter_blocks=false`, where RocksDB leaves it at 0 too).
        BlockCacheFilterMiss = "rocksdb.block.cache.filter.miss" [Count],
        /// Filter-block lookups served from the block cache. Stays 0: each table's index and filter live in the open table, not the block cache (RocksDB's default `cache_index_and_filter_blocks=false`, where RocksDB leaves it at 0 too).
        BlockCacheFilterHit = "rocksdb.block.cache.filter.hit" [Count],
        /// Filter blocks inserted into the block cache. Stays 0: each table's index and filter live in the open table, not the block cache (RocksDB's default `cache_index_and_filter_blocks=false`, where RocksDB leaves it at 0 too).
        BlockCacheFilterAdd = "rocksdb.block.cache.filter.add" [Count],
        /// Bytes of filter blocks inserted into the block cache. Stays 0: each table's index and filter live in the open table, not the block cache (RocksDB's default `cache_index_and_filter_blocks=false`, where RocksDB leaves it at 0 too).
        BlockCacheFilterBytesInsert = "rocksdb.block.cache.filter.bytes.insert" [Bytes],
        /// Bytes of filter blocks evicted from the block cache. Stays 0, as in RocksDB, which never updates it.
        BlockCacheFilterBytesEvict = "rocksdb.block.cache.filter.bytes.evict" [Bytes],
        /// Data-block lookups that missed the block cache (point lookups, iterators and compaction reads alike).
        BlockCacheDataMiss = "rocksdb.block.cache.data.miss" [Count],
        /// Data-block lookups served from the block cache.
        BlockCacheDataHit = "rocksdb.block.cache.data.hit" [Count],
        /// Data blocks inserted into the block cache.
        BlockCacheDataAdd = "rocksdb.block.cache.data.add" [Count],
        /// Bytes of data blocks inserted into the block cache (each block's cache charge: its uncompressed size).
        BlockCacheDataBytesInsert = "rocksdb.block.cache.data.bytes.insert" [Bytes],
        /// Bytes of blocks served from the block cache (the charge of each block hit).
        BlockCacheBytesRead = "rocksdb.block.cache.bytes.read" [Bytes],
        /// Bytes of blocks inserted into the block cache (the charge of each block added).
        BlockCacheBytesWrite = "rocksdb.block.cache.bytes.write" [Bytes],
        /// Point lookups where a table's bloom filter said "absent", saving the data-block read.
        BloomFilterUseful = "rocksdb.bloom.filter.useful" [Count],
        /// Point lookups where a table's full bloom filter said "may be present".
        BloomFilterFullPositive = "rocksdb.bloom.filter.full.positive" [Count],
        /// Filter positives that were right: the key was then found in that table.
        BloomFilterFullTruePositive = "rocksdb.bloom.filter.full.true.positive" [Count],
        /// Time spent in filter probes. Stays 0: RocksDB declares it but never updates it.
        BloomFilterMicros = "rocksdb.bloom.filter.micros" [Micros],
        /// Persistent (secondary tier) cache hits. Stays 0: no persistent cache.
        PersistentCacheHit = "rocksdb.persistent.cache.hit" [Count],
        /// Persistent cache misses. Stays 0: no persistent cache.
        PersistentCacheMiss = "rocksdb.persistent.cache.miss" [Count],
        /// Simulated block cache hits. Stays 0: no simulated cache.
        SimBlockCacheHit = "rocksdb.sim.block.cache.hit" [Count],
        /// Simulated block cache misses. Stays 0: no simulated cache.
        SimBlockCacheMiss = "rocksdb.sim.block.cache.miss" [Count],
        /// Point lookups answered by a memtable (active or immutable).
        MemtableHit = "rocksdb.memtable.hit" [Count],
        /// Point lookups that no memtable could answer (went on to the SST files).
        MemtableMiss = "rocksdb.memtable.miss" [Count],
        /// Point lookups answered by a level-0 table.
        GetHitL0 = "rocksdb.l0.hit" [Count],
        /// Point lookups answered by a level-1 table.
        GetHitL1 = "rocksdb.l1.hit" [Count],
        /// Point lookups answered by a table at level 2 or deeper.
        GetHitL2AndUp = "rocksdb.l2andup.hit" [Count],
        /// Compaction dropped a key because a newer version of it (a tombstone included) was in the same compaction and no snapshot separates them.
        CompactionKeyDropNewerEntry = "rocksdb.compaction.key.drop.new" [Count],
        /// Compaction dropped a deletion marker below every snapshot with no deeper file holding its key (the values under it count as `rocksdb.compaction.key.drop.new`, as in RocksDB).
        CompactionKeyDropObsolete = "rocksdb.compaction.key.drop.obsolete" [Count],
        /// Compaction dropped a key covered by a range deletion (DeleteRange) in its snapshot
        /// stripe.
        CompactionKeyDropRangeDel = "rocksdb.compaction.key.drop.range_del" [Count],
        /// Compaction dropped a key because a user compaction filter asked it to. Stays 0: Strata
        /// has no compaction filter.
        CompactionKeyDropUser = "rocksdb.compaction.key.drop.user" [Count],
        /// Compaction dropped an obsolete range tombstone. Stays 0: Strata has no range deletions
        /// (DeleteRange).
        CompactionRangeDelDropObsolete = "rocksdb.compaction.range_del.drop.obsolete" [Count],
        /// Deletion markers a compaction dropped although its key range reaches files deeper down
        /// (no deeper file holds the marker's key). A subset of
        /// `rocksdb.compaction.key.drop.obsolete` (the values under each marker count as
        /// `rocksdb.compaction.key.drop.new`).
        /// RocksDB drops these early in leveled compactions only; Strata also in universal ones.
        CompactionOptimizedDelDropObsolete = "rocksdb.compaction.optimized.del.drop.obsolete" [Count],
        /// Compactions cancelled before they started. Stays 0: Strata has no space check that
        /// cancels a picked compaction (RocksDB's SstFileManager `max_allowed_space_usage`); a
        /// compaction that runs out of space fails and stops writes.
        CompactionCancelled = "rocksdb.compaction.cancelled" [Count],
        /// Keys written by Put/Delete/Merge/WriteBatch (one per key, not per batch).
        NumberKeysWritten = "rocksdb.number.keys.written" [Count],
        /// Keys looked up by Get (found or not).
        NumberKeysRead = "rocksdb.number.keys.read" [Count],
        /// Keys updated in place in the memtable. Stays 0: Strata has no in-place updates
        /// (`inplace_update_support`).
        NumberKeysUpdated = "rocksdb.number.keys.updated" [Count],
        /// Bytes the user wrote: each write batch's data size (12-byte batch header, per-record type and length bytes, keys and values).
        BytesWritten = "rocksdb.bytes.written" [Bytes],
        /// Value bytes returned by successful Gets.
        BytesRead = "rocksdb.bytes.read" [Bytes],
        /// Iterator Seek / SeekToFirst / SeekToLast / SeekForPrev calls.
        NumberDbSeek = "rocksdb.number.db.seek" [Count],
        /// Iterator Next calls (counted in the iterator and added when it is dropped, as RocksDB
        /// does).
        NumberDbNext = "rocksdb.number.db.next" [Count],
        /// Iterator Prev calls (counted in the iterator and added when it is dropped, as RocksDB
        /// does).
        NumberDbPrev = "rocksdb.number.db.prev" [Count],
        /// Seeks that left the iterator on a valid entry.
        NumberDbSeekFound = "rocksdb.number.db.seek.found" [Count],
        /// Next calls that left the iterator on a valid entry (added when the iterator is dropped).
        NumberDbNextFound = "rocksdb.number.db.next.found" [Count],
        /// Prev calls that left the iterator on a valid entry (added when the iterator is dropped).
        NumberDbPrevFound = "rocksdb.number.db.prev.found" [Count],
        /// Key plus value bytes of the entries iterator seeks, Next and Prev calls land on (a
        /// seek's at once, Next's and Prev's when the iterator is dropped).
        IterBytesRead = "rocksdb.db.iter.bytes.read" [Bytes],
        /// Table files closed. Stays 0: RocksDB declares it but never updates it.
        NoFileCloses = "rocksdb.no.file.closes" [Count],
        /// Table files the table cache opened on a miss (counted once the file is open, also when
        /// the table in it then fails to load, as RocksDB does).
        NoFileOpens = "rocksdb.no.file.opens" [Count],
        /// Table-cache misses whose table file or table failed to open.
        NoFileErrors = "rocksdb.no.file.errors" [Count],
        /// Deprecated in RocksDB (stays 0 there too): L0 slowdown time.
        StallL0SlowdownMicros = "rocksdb.l0.slowdown.micros" [Micros],
        /// Deprecated in RocksDB (stays 0 there too): memtable-full stall time.
        StallMemtableCompactionMicros = "rocksdb.memtable.compaction.micros" [Micros],
        /// Deprecated in RocksDB (stays 0 there too): L0 file-count stall time.
        StallL0NumFilesMicros = "rocksdb.l0.num.files.stall.micros" [Micros],
        /// Time writers spent delayed or stopped by write stalls.
        StallMicros = "rocksdb.stall.micros" [Micros],
        /// Time spent waiting for the DB mutex. Stays 0: RocksDB times the mutex only at
        /// `StatsLevel::kAll`; Strata's statistics match RocksDB's default level
        /// (`kExceptDetailedTimers`), at which RocksDB leaves it 0 too.
        DbMutexWaitMicros = "rocksdb.db.mutex.wait.micros" [Micros],
        /// Time writes waited for the rate limiter. Stays 0: RocksDB declares it but never updates
        /// it.
        RateLimitDelayMillis = "rocksdb.rate.limit.delay.millis" [Millis],
        /// Deprecated in RocksDB (use `num.iterator.created`): stays 0.
        NoIterators = "rocksdb.num.iterators" [Count],
        /// `Db::multi_get` calls.
        NumberMultigetCalls = "rocksdb.number.multiget.get" [Count],
        /// Keys looked up by `Db::multi_get`.
        NumberMultigetKeysRead = "rocksdb.number.multiget.keys.read" [Count],
        /// Value bytes returned by `Db::multi_get`.
        NumberMultigetBytesRead = "rocksdb.number.multiget.bytes.read" [Bytes],
        /// Deletes dropped before reaching the memtable (filter_deletes). Stays 0: Strata has no
        /// delete filtering (RocksDB removed the feature too).
        NumberFilteredDeletes = "rocksdb.number.deletes.filtered" [Count],
        /// Full merges the merge operator failed (`full_merge` returned `None`), in reads, flushes and compactions.
        NumberMergeFailures = "rocksdb.number.merge.failures" [Count],
        /// Prefix bloom filter probes. Stays 0: Strata has no prefix extractor (its filters are
        /// whole-key).
        BloomFilterPrefixChecked = "rocksdb.bloom.filter.prefix.checked" [Count],
        /// Prefix bloom filter probes that said "absent". Stays 0: Strata has no prefix extractor
        /// (its filters are whole-key).
        BloomFilterPrefixUseful = "rocksdb.bloom.filter.prefix.useful" [Count],
        /// Iterator reseeks done to skip many versions of one user key. Stays 0: Strata's iterator
        /// steps over the versions of a key one by one; it has no
        /// `max_sequential_skip_in_iterations` reseek.
        NumberOfReseeksInIteration = "rocksdb.number.reseeks.iteration" [Count],
        /// GetUpdatesSince calls. Stays 0: no such API.
        GetUpdatesSinceCalls = "rocksdb.getupdatessince.calls" [Count],
        /// Compressed block cache misses. Stays 0: no compressed block cache.
        BlockCacheCompressedMiss = "rocksdb.block.cachecompressed.miss" [Count],
        /// Compressed block cache hits. Stays 0: no compressed block cache.
        BlockCacheCompressedHit = "rocksdb.block.cachecompressed.hit" [Count],
        /// Compressed block cache inserts. Stays 0: no compressed block cache.
        BlockCacheCompressedAdd = "rocksdb.block.cachecompressed.add" [Count],
        /// Compressed block cache insert failures. Stays 0: no compressed block cache.
        BlockCacheCompressedAddFailures = "rocksdb.block.cachecompressed.add.failures" [Count],
        /// WAL syncs (fsync/fdatasync of the log file).
        WalFileSynced = "rocksdb.wal.synced" [Count],
        /// Write-batch bytes logged to WAL files: the batch contents, as RocksDB counts
        /// them (its log_size), without the log's 7-byte record headers and block padding
        /// (about 0.4% more on disk at 1 KB values).
        WalFileBytes = "rocksdb.wal.bytes" [Bytes],
        /// Write requests a thread committed itself (as a write-group leader).
        WriteDoneBySelf = "rocksdb.write.self" [Count],
        /// Write requests committed by another thread's write group.
        WriteDoneByOther = "rocksdb.write.other" [Count],
        /// Writes that timed out. Stays 0: Strata has no write timeouts (RocksDB 7.x never updates
        /// it either; it counted the removed `timeout_hint_us`).
        WriteTimedout = "rocksdb.write.timeout" [Count],
        /// Write requests that went through the WAL.
        WriteWithWal = "rocksdb.write.wal" [Count],
        /// Bytes read by compactions (SST and blob inputs).
        CompactReadBytes = "rocksdb.compact.read.bytes" [Bytes],
        /// Bytes written by compactions (SST and blob outputs).
        CompactWriteBytes = "rocksdb.compact.write.bytes" [Bytes],
        /// Bytes written by flushes (SST and blob files).
        FlushWriteBytes = "rocksdb.flush.write.bytes" [Bytes],
        /// Bytes read by compactions of files marked for compaction. Stays 0: Strata never marks
        /// files for compaction.
        CompactReadBytesMarked = "rocksdb.compact.read.marked.bytes" [Bytes],
        /// Bytes read by periodic compactions. Stays 0: Strata has no periodic compaction
        /// (`periodic_compaction_seconds`).
        CompactReadBytesPeriodic = "rocksdb.compact.read.periodic.bytes" [Bytes],
        /// Bytes read by TTL compactions. Stays 0: Strata has no TTL compaction (`ttl`).
        CompactReadBytesTtl = "rocksdb.compact.read.ttl.bytes" [Bytes],
        /// Bytes written by compactions of files marked for compaction. Stays 0: Strata never marks
        /// files for compaction.
        CompactWriteBytesMarked = "rocksdb.compact.write.marked.bytes" [Bytes],
        /// Bytes written by periodic compactions. Stays 0: Strata has no periodic compaction
        /// (`periodic_compaction_seconds`).
        CompactWriteBytesPeriodic = "rocksdb.compact.write.periodic.bytes" [Bytes],
        /// Bytes written by TTL compactions. Stays 0: Strata has no TTL compaction (`ttl`).
        CompactWriteBytesTtl = "rocksdb.compact.write.ttl.bytes" [Bytes],
        /// Table properties loaded directly from a file instead of an open table reader. Stays 0:
        /// Strata reads table properties only when it opens the table (it has no
        /// GetPropertiesOfAllTables).
        NumberDirectLoadTableProperties = "rocksdb.number.direct.load.table.properties" [Count],
        /// References to the current super version (memtables + version) taken by reads: each Get,
        /// iterator creation and `rocksdb.estimate-num-keys` property read. Strata has no
        /// thread-local super-version cache, so every read takes one where RocksDB counts only its
        /// cache misses: expect far more than RocksDB.
        NumberSuperversionAcquires = "rocksdb.number.superversion_acquires" [Count],
        /// Super-version references reads dropped (a Get's at its end, an iterator's when it is
        /// dropped).
        NumberSuperversionReleases = "rocksdb.number.superversion_releases" [Count],
        /// Super versions freed by a read dropping the last reference (a newer one was installed
        /// while the read held it). Ones freed when a new one is installed and no read holds them
        /// are not counted, as in RocksDB.
        NumberSuperversionCleanups = "rocksdb.number.superversion_cleanups" [Count],
        /// Data and index blocks written compressed by flushes and compactions, as RocksDB counts every block it hands to the codec.
        NumberBlockCompressed = "rocksdb.number.block.compressed" [Count],
        /// Blocks read from a table file that had to be decompressed (cache hits decompress nothing).
        NumberBlockDecompressed = "rocksdb.number.block.decompressed" [Count],
        /// Data and index blocks written uncompressed although a codec was set, because compressing did not pay (RocksDB 7.8's meaning; 0 with compression off).
        NumberBlockNotCompressed = "rocksdb.number.block.not_compressed" [Count],
        /// Time spent in the merge operator's full and partial merges (reads, flushes, compactions).
        MergeOperationTotalTime = "rocksdb.merge.operation.time.nanos" [Nanos],
        /// Time spent in compaction filters. Stays 0: Strata has no compaction filter.
        FilterOperationTotalTime = "rocksdb.filter.operation.time.nanos" [Nanos],
        /// Row cache hits. Stays 0: no row cache.
        RowCacheHit = "rocksdb.row.cache.hit" [Count],
        /// Row cache misses. Stays 0: no row cache.
        RowCacheMiss = "rocksdb.row.cache.miss" [Count],
        /// Read-amplification estimate: bytes of loaded blocks actually used. Stays 0.
        ReadAmpEstimateUsefulBytes = "rocksdb.read.amp.estimate.useful.bytes" [Bytes],
        /// Read-amplification estimate: bytes of blocks loaded. Stays 0.
        ReadAmpTotalReadBytes = "rocksdb.read.amp.total.read.bytes" [Bytes],
        /// Times a flush or compaction write found the I/O rate limiter's budget empty
        /// (`rate_limiter_bytes_per_sec`) and waited for its next refill; the pacing of delayed
        /// writes is the write controller's, which RocksDB does not count here either.
        NumberRateLimiterDrains = "rocksdb.number.rate_limiter.drains" [Count],
        /// Internal entries iterator steps read and passed over without stopping on them: older
        /// versions, deletion markers and the versions they hide, entries newer than the iterator's
        /// snapshot (added when the iterator is dropped).
        NumberIterSkip = "rocksdb.number.iter.skip" [Count],
        /// Legacy stackable BlobDB: Put calls. Stays 0 (integrated blob files use other names).
        BlobDbNumPut = "rocksdb.blobdb.num.put" [Count],
        /// Legacy stackable BlobDB: Write calls. Stays 0.
        BlobDbNumWrite = "rocksdb.blobdb.num.write" [Count],
        /// Legacy stackable BlobDB: Get calls. Stays 0.
        BlobDbNumGet = "rocksdb.blobdb.num.get" [Count],
        /// Legacy stackable BlobDB: MultiGet calls. Stays 0.
        BlobDbNumMultiget = "rocksdb.blobdb.num.multiget" [Count],
        /// Legacy stackable BlobDB: iterator seeks. Stays 0.
        BlobDbNumSeek = "rocksdb.blobdb.num.seek" [Count],
        /// Legacy stackable BlobDB: iterator Next calls. Stays 0.
        BlobDbNumNext = "rocksdb.blobdb.num.next" [Count],
        /// Legacy stackable BlobDB: iterator Prev calls. Stays 0.
        BlobDbNumPrev = "rocksdb.blobdb.num.prev" [Count],
        /// Legacy stackable BlobDB: keys written. Stays 0.
        BlobDbNumKeysWritten = "rocksdb.blobdb.num.keys.written" [Count],
        /// Legacy stackable BlobDB: keys read. Stays 0.
        BlobDbNumKeysRead = "rocksdb.blobdb.num.keys.read" [Count],
        /// Legacy stackable BlobDB: user bytes written. Stays 0.
        BlobDbBytesWritten = "rocksdb.blobdb.bytes.written" [Bytes],
        /// Legacy stackable BlobDB: user bytes read. Stays 0.
        BlobDbBytesRead = "rocksdb.blobdb.bytes.read" [Bytes],
        /// Legacy stackable BlobDB: values stored inline. Stays 0.
        BlobDbWriteInlined = "rocksdb.blobdb.write.inlined" [Count],
        /// Legacy stackable BlobDB: TTL values stored inline. Stays 0.
        BlobDbWriteInlinedTtl = "rocksdb.blobdb.write.inlined.ttl" [Count],
        /// Legacy stackable BlobDB: values stored in blob files. Stays 0.
        BlobDbWriteBlob = "rocksdb.blobdb.write.blob" [Count],
        /// Legacy stackable BlobDB: TTL values stored in blob files. Stays 0.
        BlobDbWriteBlobTtl = "rocksdb.blobdb.write.blob.ttl" [Count],
        /// Bytes appended to blob files (records and headers/footers), by flush or compaction.
        BlobDbBlobFileBytesWritten = "rocksdb.blobdb.blob.file.bytes.written" [Bytes],
        /// Bytes read from blob files (value fetches, GC and compaction reads).
        BlobDbBlobFileBytesRead = "rocksdb.blobdb.blob.file.bytes.read" [Bytes],
        /// Blob file syncs.
        BlobDbBlobFileSynced = "rocksdb.blobdb.blob.file.synced" [Count],
        /// Legacy stackable BlobDB: expired blob indexes. Stays 0.
        BlobDbBlobIndexExpiredCount = "rocksdb.blobdb.blob.index.expired.count" [Count],
        /// Legacy stackable BlobDB: bytes of expired blob indexes. Stays 0.
        BlobDbBlobIndexExpiredSize = "rocksdb.blobdb.blob.index.expired.size" [Bytes],
        /// Legacy stackable BlobDB: evicted blob indexes. Stays 0.
        BlobDbBlobIndexEvictedCount = "rocksdb.blobdb.blob.index.evicted.count" [Count],
        /// Legacy stackable BlobDB: bytes of evicted blob indexes. Stays 0.
        BlobDbBlobIndexEvictedSize = "rocksdb.blobdb.blob.index.evicted.size" [Bytes],
        /// Legacy stackable BlobDB: blob files garbage-collected. Stays 0.
        BlobDbGcNumFiles = "rocksdb.blobdb.gc.num.files" [Count],
        /// Legacy stackable BlobDB: blob files created by GC. Stays 0.
        BlobDbGcNumNewFiles = "rocksdb.blobdb.gc.num.new.files" [Count],
        /// Legacy stackable BlobDB: GC failures. Stays 0.
        BlobDbGcFailures = "rocksdb.blobdb.gc.failures" [Count],
        /// Legacy stackable BlobDB: keys found overwritten by GC. Stays 0.
        BlobDbGcNumKeysOverwritten = "rocksdb.blobdb.gc.num.keys.overwritten" [Count],
        /// Legacy stackable BlobDB: keys found expired by GC. Stays 0.
        BlobDbGcNumKeysExpired = "rocksdb.blobdb.gc.num.keys.expired" [Count],
        /// Blob garbage collection: live blobs compaction moved to new blob files.
        BlobDbGcNumKeysRelocated = "rocksdb.blobdb.gc.num.keys.relocated" [Count],
        /// Legacy stackable BlobDB: bytes found overwritten by GC. Stays 0.
        BlobDbGcBytesOverwritten = "rocksdb.blobdb.gc.bytes.overwritten" [Bytes],
        /// Legacy stackable BlobDB: bytes found expired by GC. Stays 0.
        BlobDbGcBytesExpired = "rocksdb.blobdb.gc.bytes.expired" [Bytes],
        /// Blob garbage collection: bytes of live blobs compaction moved to new blob files.
        BlobDbGcBytesRelocated = "rocksdb.blobdb.gc.bytes.relocated" [Bytes],
        /// Legacy stackable BlobDB: FIFO-evicted blob files. Stays 0.
        BlobDbFifoNumFilesEvicted = "rocksdb.blobdb.fifo.num.files.evicted" [Count],
        /// Legacy stackable BlobDB: FIFO-evicted keys. Stays 0.
        BlobDbFifoNumKeysEvicted = "rocksdb.blobdb.fifo.num.keys.evicted" [Count],
        /// Legacy stackable BlobDB: FIFO-evicted bytes. Stays 0.
        BlobDbFifoBytesEvicted = "rocksdb.blobdb.fifo.bytes.evicted" [Bytes],
        /// Transactions: prepare-mutex overhead. Stays 0: no transactions.
        TxnPrepareMutexOverhead = "rocksdb.txn.overhead.mutex.prepare" [Count],
        /// Transactions: old-commit-map mutex overhead. Stays 0: no transactions.
        TxnOldCommitMapMutexOverhead = "rocksdb.txn.overhead.mutex.old.commit.map" [Count],
        /// Transactions: duplicate-key overhead. Stays 0: no transactions.
        TxnDuplicateKeyOverhead = "rocksdb.txn.overhead.duplicate.key" [Count],
        /// Transactions: snapshot mutex overhead. Stays 0: no transactions.
        TxnSnapshotMutexOverhead = "rocksdb.txn.overhead.mutex.snapshot" [Count],
        /// Transactions: TryAgain returned to GetForUpdate. Stays 0: no transactions.
        TxnGetTryAgain = "rocksdb.txn.get.tryagain" [Count],
        /// Keys `Db::multi_get` found.
        NumberMultigetKeysFound = "rocksdb.number.multiget.keys.found" [Count],
        /// Iterators created (`Db::iter`, `Db::iter_opt`).
        NoIteratorCreated = "rocksdb.num.iterator.created" [Count],
        /// Iterators dropped.
        NoIteratorDeleted = "rocksdb.num.iterator.deleted" [Count],
        /// Compression-dictionary block cache misses. Stays 0: no dictionaries.
        BlockCacheCompressionDictMiss = "rocksdb.block.cache.compression.dict.miss" [Count],
        /// Compression-dictionary block cache hits. Stays 0: no dictionaries.
        BlockCacheCompressionDictHit = "rocksdb.block.cache.compression.dict.hit" [Count],
        /// Compression-dictionary block cache inserts. Stays 0: no dictionaries.
        BlockCacheCompressionDictAdd = "rocksdb.block.cache.compression.dict.add" [Count],
        /// Compression-dictionary bytes inserted. Stays 0: no dictionaries.
        BlockCacheCompressionDictBytesInsert = "rocksdb.block.cache.compression.dict.bytes.insert" [Bytes],
        /// Compression-dictionary bytes evicted. Stays 0: no dictionaries.
        BlockCacheCompressionDictBytesEvict = "rocksdb.block.cache.compression.dict.bytes.evict" [Bytes],
        /// Block cache inserts of a block another reader had cached between this reader's miss and its insert.
        BlockCacheAddRedundant = "rocksdb.block.cache.add.redundant" [Count],
        /// Redundant index-block inserts. Stays 0: each table's index and filter live in the open table, not the block cache (RocksDB's default `cache_index_and_filter_blocks=false`, where RocksDB leaves it at 0 too).
        BlockCacheIndexAddRedundant = "rocksdb.block.cache.index.add.redundant" [Count],
        /// Redundant filter-block inserts. Stays 0: each table's index and filter live in the open table, not the block cache (RocksDB's default `cache_index_and_filter_blocks=false`, where RocksDB leaves it at 0 too).
        BlockCacheFilterAddRedundant = "rocksdb.block.cache.filter.add.redundant" [Count],
        /// Redundant data-block inserts (see `BlockCacheAddRedundant`).
        BlockCacheDataAddRedundant = "rocksdb.block.cache.data.add.redundant" [Count],
        /// Redundant compression-dictionary inserts. Stays 0: no dictionaries.
        BlockCacheCompressionDictAddRedundant = "rocksdb.block.cache.compression.dict.add.redundant" [Count],
        /// Obsolete files handed to the rate-limited deleter instead of unlinked. Stays 0: Strata
        /// has no SstFileManager deletion rate limit; it unlinks obsolete files at once
        /// (`rocksdb.files.deleted.immediately`).
        FilesMarkedTrash = "rocksdb.files.marked.trash" [Count],
        /// Obsolete table, blob and WAL files unlinked: the kinds RocksDB deletes through its
        /// SstFileManager, which without a deletion rate limit unlinks them at once and counts them
        /// here (MANIFEST, OPTIONS and temp files are not counted there either).
        FilesDeletedImmediately = "rocksdb.files.deleted.immediately" [Count],
        /// Background errors reported: a failed flush, compaction, WAL write, memtable switch or
        /// blob-file MANIFEST edit. Each report counts, also one after writes were already stopped
        /// by an earlier error (RocksDB counts every SetBGError call). (The `errro` typo is
        /// RocksDB's.)
        ErrorHandlerBgErrorCount = "rocksdb.error.handler.bg.errro.count" [Count],
        /// The reported background errors that are I/O errors (a corruption is not).
        ErrorHandlerBgIoErrorCount = "rocksdb.error.handler.bg.io.errro.count" [Count],
        /// Background retryable I/O errors. Stays 0: Strata does not classify I/O errors as
        /// retryable; every background error stops writes until the DB is reopened.
        ErrorHandlerBgRetryableIoErrorCount = "rocksdb.error.handler.bg.retryable.io.errro.count" [Count],
        /// Automatic resumes started after a background error. Stays 0: Strata has no automatic
        /// resume (`max_bgerror_resume_count`); reopening the DB is the way back.
        ErrorHandlerAutoresumeCount = "rocksdb.error.handler.autoresume.count" [Count],
        /// Resume attempts made by automatic resumes. Stays 0: Strata has no automatic resume.
        ErrorHandlerAutoresumeRetryTotalCount = "rocksdb.error.handler.autoresume.retry.total.count" [Count],
        /// Automatic resumes that succeeded. Stays 0: Strata has no automatic resume.
        ErrorHandlerAutoresumeSuccessCount = "rocksdb.error.handler.autoresume.success.count" [Count],
        /// Bytes (internal key plus value) of every entry in the memtables a flush wrote,
        /// superseded ones included (RocksDB's payload includes the garbage). Flushes of recovered
        /// WALs at open are not counted, as in RocksDB.
        MemtablePayloadBytesAtFlush = "rocksdb.memtable.payload.bytes.at.flush" [Bytes],
        /// Bytes (internal key plus value) of the entries a flush dropped as superseded. RocksDB
        /// derives it as payload minus the bytes written, the same number unless values went to
        /// blob files.
        MemtableGarbageBytesAtFlush = "rocksdb.memtable.garbage.bytes.at.flush" [Bytes],
        /// Secondary cache hits. Stays 0: no secondary cache.
        SecondaryCacheHits = "rocksdb.secondary.cache.hits" [Count],
        /// Bytes read by explicit checksum verification. Stays 0: Strata has no DB-level
        /// VerifyChecksum / VerifyFileChecksums and no file ingestion.
        VerifyChecksumReadBytes = "rocksdb.verify_checksum.read.bytes" [Bytes],
        /// Backup engine bytes read. Stays 0: no backup engine.
        BackupReadBytes = "rocksdb.backup.read.bytes" [Bytes],
        /// Backup engine bytes written. Stays 0: no backup engine.
        BackupWriteBytes = "rocksdb.backup.write.bytes" [Bytes],
        /// Remote compaction bytes read. Stays 0: no remote compaction.
        RemoteCompactReadBytes = "rocksdb.remote.compact.read.bytes" [Bytes],
        /// Remote compaction bytes written. Stays 0: no remote compaction.
        RemoteCompactWriteBytes = "rocksdb.remote.compact.write.bytes" [Bytes],
        /// Bytes read from hot-temperature files. Stays 0: no file temperatures.
        HotFileReadBytes = "rocksdb.hot.file.read.bytes" [Bytes],
        /// Bytes read from warm-temperature files. Stays 0: no file temperatures.
        WarmFileReadBytes = "rocksdb.warm.file.read.bytes" [Bytes],
        /// Bytes read from cold-temperature files. Stays 0: no file temperatures.
        ColdFileReadBytes = "rocksdb.cold.file.read.bytes" [Bytes],
        /// Reads from hot-temperature files. Stays 0: no file temperatures.
        HotFileReadCount = "rocksdb.hot.file.read.count" [Count],
        /// Reads from warm-temperature files. Stays 0: no file temperatures.
        WarmFileReadCount = "rocksdb.warm.file.read.count" [Count],
        /// Reads from cold-temperature files. Stays 0: no file temperatures.
        ColdFileReadCount = "rocksdb.cold.file.read.count" [Count],
        /// Bytes of data blocks (with trailers) read from table files on the last level (`num_levels - 1`), by Gets, iterators and compactions; cache hits read nothing.
        LastLevelReadBytes = "rocksdb.last.level.read.bytes" [Bytes],
        /// Data-block reads from table files on the last level (`num_levels - 1`).
        LastLevelReadCount = "rocksdb.last.level.read.count" [Count],
        /// Bytes of data blocks (with trailers) read from table files above the last level.
        NonLastLevelReadBytes = "rocksdb.non.last.level.read.bytes" [Bytes],
        /// Data-block reads from table files above the last level.
        NonLastLevelReadCount = "rocksdb.non.last.level.read.count" [Count],
        /// Block checksums verified on reads from table files (`verify_checksums`), including the metaindex, properties, filter and index blocks read when a table is opened; as in RocksDB, writes do not count.
        BlockChecksumComputeCount = "rocksdb.block.checksum.compute.count" [Count],
        /// MultiGet coroutine batches. Stays 0: no coroutines.
        MultigetCoroutineCount = "rocksdb.multiget.coroutine.count" [Count],
        /// Blob cache lookups that missed.
        BlobDbCacheMiss = "rocksdb.blobdb.cache.miss" [Count],
        /// Blob cache lookups that hit.
        BlobDbCacheHit = "rocksdb.blobdb.cache.hit" [Count],
        /// Blobs inserted into the blob cache.
        BlobDbCacheAdd = "rocksdb.blobdb.cache.add" [Count],
        /// Blob cache inserts that failed.
        BlobDbCacheAddFailures = "rocksdb.blobdb.cache.add.failures" [Count],
        /// Bytes served from the blob cache.
        BlobDbCacheBytesRead = "rocksdb.blobdb.cache.bytes.read" [Bytes],
        /// Bytes inserted into the blob cache.
        BlobDbCacheBytesWrite = "rocksdb.blobdb.cache.bytes.write" [Bytes],
        /// Time spent in asynchronous reads. Stays 0: no async I/O.
        ReadAsyncMicros = "rocksdb.read.async.micros" [Micros],
        /// Asynchronous read errors. Stays 0: no async I/O.
        AsyncReadErrorCount = "rocksdb.async.read.error.count" [Count],
        // ---- Names from newer RocksDB releases (after 7.8.3) ----
        /// Thread CPU time used by compactions (RocksDB 8.7+ name). Strata
        /// adds each compaction's total when it finishes, the value it
        /// records in `rocksdb.compaction.times.cpu_micros`, so the ticker
        /// equals that histogram's SUM (RocksDB adds while a job runs; the
        /// totals match once jobs finish). Trivial moves add nothing.
        CompactionCpuTotalTime = "rocksdb.compaction.total.time.cpu_micros" [Micros],
        /// Bytes iterators asked to have read ahead of the table blocks they scan (automatic read-ahead: the OS's page cache filled by a hint, or a buffer of the iterator's own under direct I/O), clamped to each table's data.
        PrefetchBytes = "rocksdb.prefetch.bytes" [Bytes],
        /// Bytes of blocks an iterator read from its read-ahead buffer (direct I/O) instead of the file; hints to the page cache cannot be counted here.
        PrefetchBytesUseful = "rocksdb.prefetch.bytes.useful" [Bytes],
        /// Block reads an iterator served from its read-ahead buffer (direct I/O) instead of the file.
        PrefetchHits = "rocksdb.prefetch.hits" [Count],
    }
}

impl Ticker {
    /// How many leading entries of [`Ticker::ALL`] are RocksDB 7.8.3's list.
    pub const ROCKSDB_7_8_3_COUNT: usize = 193;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_round_trip() {
        let mut seen = std::collections::HashSet::new();
        for (i, t) in Ticker::ALL.iter().enumerate() {
            assert_eq!(t.index(), i);
            assert!(seen.insert(t.name()), "duplicate {}", t.name());
            assert_eq!(Ticker::from_name(t.name()), Some(*t));
            assert!(t.name().starts_with("rocksdb."));
        }
        assert_eq!(Ticker::from_name("rocksdb.no.such.ticker"), None);
    }

    #[test]
    fn first_entries_match_rocksdb_7_8_3_dump_order() {
        let sample = include_str!("../../testdata/stats/db_bench_7.8.3_small.txt");
        let names: Vec<&str> = sample
            .lines()
            .skip_while(|l| *l != "STATISTICS:")
            .skip(1)
            .filter(|l| l.contains(" COUNT : ") && !l.contains(" P50 : "))
            .filter_map(|l| l.split(' ').next())
            .collect();
        assert_eq!(names.len(), Ticker::ROCKSDB_7_8_3_COUNT);
        let ours: Vec<&str> = Ticker::ALL[..Ticker::ROCKSDB_7_8_3_COUNT]
            .iter()
            .map(|t| t.name())
            .collect();
        assert_eq!(ours, names);
    }

    #[test]
    fn placeholder_names_kept() {
        assert_eq!(Ticker::BlockCacheMiss.name(), "rocksdb.block.cache.miss");
        assert_eq!(
            Ticker::BloomFilterFullTruePositive.name(),
            "rocksdb.bloom.filter.full.true.positive"
        );
        assert_eq!(Ticker::StallMicros.unit(), super::super::Unit::Micros);
    }
}
