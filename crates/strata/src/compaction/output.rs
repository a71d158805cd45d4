//! Writes a sorted stream of entries into table files, rolling to a new
//! file at the size target, and never splitting one user key's versions
//! across two files (so levels below L0 stay non-overlapping by user key).

use std::path::Path;
use std::sync::Arc;

use super::file_cut::GrandparentCutter;
use crate::blob::BlobIndex;
use crate::error::Result;
use crate::filename::{table_file_name, FileNumber};
use crate::fs::incremental_sync::sync_incrementally;
use crate::fs::layered::Layered;
use crate::fs::timed::AppendTimer;
use crate::fs::FileSystem;
use crate::range_del::FragmentedTombstones;
use crate::rate_limiter::{limit_writes, IoPriority, RateLimiter};
use crate::sstable::{TableBuilder, TableInfo, TableOptions};
use crate::stats::{Histogram, Statistics, Ticker};
use crate::types::{parse_internal_key, user_key, ValueType};
use crate::version::edit::FileMetaData;

/// Builds the output files of a flush or compaction.
pub struct OutputWriter<'a> {
    dir: &'a Path,
    fs: &'a Arc<dyn FileSystem>,
    opts: &'a TableOptions,
    /// A file ends at this size whatever else: the target, or the
    /// cutter's limit (compaction/file_cut.rs).
    max_file_size: u64,
    stats: Option<&'a Arc<Statistics>>,
    builder: Option<(FileNumber, TableBuilder)>,
    last_user_key: Vec<u8>,
    smallest_seq: u64,
    largest_seq: u64,
    outputs: Vec<FileMetaData>,
    bytes_written: u64,
    direct_writes: bool,
    /// Smallest blob file number the current file's entries reference.
    oldest_blob: u64,
    /// Cuts at next-level file boundaries (leveled compactions).
    cutter: Option<GrandparentCutter>,
    /// A compaction's outputs (not a flush's): file syncs are timed into
    /// `rocksdb.compaction.outfile.sync.micros`, not `rocksdb.table.sync.micros`.
    for_compaction: bool,
    /// The I/O rate limiter and the priority of these writes.
    limit: Option<(Arc<RateLimiter>, IoPriority)>,
    /// Stamped on every output (`FileMetaData::newest_key_time`).
    newest_key_time: u64,
    /// Range-sync outputs every this many bytes (`bytes_per_sync`).
    bytes_per_sync: u64,
    /// Told of each table as it is finished (the LOG's
    /// `table_file_creation` event).
    on_table: Option<TableListener<'a>>,
    /// Range tombstones to store with the outputs, each file getting those
    /// between its first user key's cut and the next file's first user key.
    range_tombstones: FragmentedTombstones,
    /// Where the current file's share of the tombstones starts (`None`:
    /// open).
    range_lo: Option<Vec<u8>>,
}

/// Called with each output table's number and what its builder reported,
/// from the thread that finished it (subcompactions run in parallel).
pub type TableListener<'a> = &'a (dyn Fn(FileNumber, &TableInfo) + Sync);

impl<'a> OutputWriter<'a> {
    /// A writer producing files of about `target_file_size` bytes.
    pub fn new(
        dir: &'a Path,
        fs: &'a Arc<dyn FileSystem>,
        opts: &'a TableOptions,
        target_file_size: u64,
        stats: Option<&'a Arc<Statistics>>,
    ) -> Self {
        OutputWriter {
            dir,
            fs,
            opts,
            max_file_size: target_file_size,
            stats,
            builder: None,
            last_user_key: Vec::new(),
            smallest_seq: u64::MAX,
            largest_seq: 0,
            outputs: Vec::new(),
            bytes_written: 0,
            direct_writes: false,
            oldest_blob: 0,
            cutter: None,
            for_compaction: false,
            limit: None,
            newest_key_time: 0,
            bytes_per_sync: 0,
            on_table: None,
            range_tombstones: FragmentedTombstones::default(),
            range_lo: None,
        }
    }

    /// Calls `listener` as each table is finished.
    pub fn with_table_listener(mut self, listener: Option<TableListener<'a>>) -> Self {
        self.on_table = listener;
        self
    }

    /// Records `time` (Unix seconds; 0 = unknown) as every output's newest
    /// key time.
    pub fn with_newest_key_time(mut self, time: u64) -> Self {
        self.newest_key_time = time;
        self
    }

    /// Also cuts files where `cutter` says, and takes its size limit
    /// (compaction/file_cut.rs).
    pub fn with_cutter(mut self, cutter: Option<GrandparentCutter>) -> Self {
        if let Some(c) = &cutter {
            self.max_file_size = c.max_file_size();
        }
        self.cutter = cutter;
        self
    }

    /// Marks the outputs as a compaction's (a flush's by default), which
    /// decides the histogram their file syncs are timed into.
    pub fn for_compaction(mut self) -> Self {
        self.for_compaction = true;
        self
    }

    /// Takes the bytes of every table written from `limiter` (flushes at
    /// high priority, compactions at low), when there is one.
    pub fn with_rate_limiter(mut self, limiter: Option<&Arc<RateLimiter>>) -> Self {
        let pri = if self.for_compaction {
            IoPriority::Low
        } else {
            IoPriority::High
        };
        self.limit = limiter.map(|l| (l.clone(), pri));
        self
    }

    /// Asks the OS to write each table back every `bytes` bytes
    /// (`bytes_per_sync`; 0 = off).
    pub fn with_bytes_per_sync(mut self, bytes: u64) -> Self {
        self.bytes_per_sync = bytes;
        self
    }

    /// Writes the tables with O_DIRECT
    /// (`use_direct_io_for_flush_and_compaction`).
    pub fn with_direct_writes(mut self, direct: bool) -> Self {
        self.direct_writes = direct;
        self
    }

    /// Stores `tombstones` with the outputs, cut at the files' boundaries
    /// (a cut between user keys `a` and `b` gives the tombstones below `b`
    /// to the first file). A writer given tombstones writes a file for them
    /// even when no entry is added.
    pub fn with_range_tombstones(mut self, tombstones: FragmentedTombstones) -> Self {
        self.set_range_tombstones(tombstones);
        self
    }

    /// As [`OutputWriter::with_range_tombstones`], before the first entry.
    pub fn set_range_tombstones(&mut self, tombstones: FragmentedTombstones) {
        self.range_tombstones = tombstones;
    }

    /// Adds one entry; `new_file_number` is called when a file is started.
    ///
    /// # Errors
    /// I/O errors from the table file.
    pub fn add(
        &mut self,
        ikey: &[u8],
        value: &[u8],
        new_file_number: &mut dyn FnMut() -> FileNumber,
    ) -> Result<()> {
        let ukey = user_key(ikey);
        let size = self.builder.as_ref().map(|(_, b)| b.file_size_estimate());
        let full = size.is_some_and(|s| s >= self.max_file_size);
        // A file ends only between user keys, never inside one key's
        // versions; the key comparison is only needed when a cut may come.
        let new_key = (full || self.cutter.is_some())
            && (size.is_none() || ukey != self.last_user_key.as_slice());
        let cut = new_key
            && self
                .cutter
                .as_mut()
                .is_some_and(|c| c.should_cut(ukey, size));
        let roll = new_key && size.is_some() && (full || cut);
        if roll {
            self.finish_file(Some(ukey))?;
        }
        if self.builder.is_none() {
            self.start_file(new_file_number)?;
        }
        if let Some(p) = parse_internal_key(ikey) {
            self.smallest_seq = self.smallest_seq.min(p.seq);
            self.largest_seq = self.largest_seq.max(p.seq);
            if p.value_type == ValueType::BlobIndex {
                if let Some(idx) = BlobIndex::decode(value) {
                    if self.oldest_blob == 0 || idx.file_number < self.oldest_blob {
                        self.oldest_blob = idx.file_number;
                    }
                }
            }
        }
        if let Some((_, b)) = self.builder.as_mut() {
            b.add(ikey, value)?;
        }
        self.last_user_key.clear();
        self.last_user_key.extend_from_slice(ukey);
        Ok(())
    }

    fn start_file(&mut self, new_file_number: &mut dyn FnMut() -> FileNumber) -> Result<()> {
        let number = new_file_number();
        let path = table_file_name(self.dir, number);
        let mut file = limit_writes(
            sync_incrementally(
                self.fs.create_opt(&path, self.direct_writes)?,
                self.bytes_per_sync,
                self.direct_writes,
            ),
            self.limit.as_ref(),
            self.direct_writes,
            self.stats,
        );
        if let Some(s) = self.stats {
            let activity = if self.for_compaction {
                Histogram::FileWriteCompactionMicros
            } else {
                Histogram::FileWriteFlushMicros
            };
            file = Box::new(Layered::new(file, AppendTimer::new(s.clone(), activity)));
        }
        let b = TableBuilder::new(self.opts, file, path.display().to_string())
            .with_statistics(self.stats.cloned());
        self.builder = Some((number, b));
        if let Some(c) = self.cutter.as_mut() {
            c.file_started();
        }
        self.smallest_seq = u64::MAX;
        self.largest_seq = 0;
        self.oldest_blob = 0;
        Ok(())
    }

    /// Finishes the current file, whose share of the range tombstones ends
    /// at `cut` (`None`: the rest).
    fn finish_file(&mut self, cut: Option<&[u8]>) -> Result<()> {
        let Some((number, mut b)) = self.builder.take() else {
            return Ok(());
        };
        if !self.range_tombstones.is_empty() {
            let share = self
                .range_tombstones
                .truncate(self.range_lo.as_deref(), cut);
            b.set_range_tombstones(share);
            self.range_lo = cut.map(<[u8]>::to_vec);
        }
        let info = b.finish()?;
        crate::sync_point::hit(crate::sync_point::SyncPoint::TableSynced);
        if let Some(s) = self.stats {
            // The sync alone, as RocksDB times it.
            let h = if self.for_compaction {
                Histogram::CompactionOutfileSyncMicros
            } else {
                Histogram::TableSyncMicros
            };
            s.record_histogram(h, info.sync_micros);
            s.record_tick(Ticker::NumberBlockCompressed, info.blocks_compressed);
            s.record_tick(Ticker::NumberBlockNotCompressed, info.blocks_not_compressed);
        }
        self.bytes_written += info.file_size;
        if let Some(f) = self.on_table {
            f(number, &info);
        }
        self.outputs.push(FileMetaData {
            number,
            file_size: info.file_size,
            smallest: info.smallest_key,
            largest: info.largest_key,
            smallest_seq: info.smallest_seq,
            largest_seq: info.largest_seq,
            num_entries: info.num_entries,
            num_deletions: info.num_deletions,
            oldest_blob_file: self.oldest_blob,
            newest_key_time: self.newest_key_time,
            wasted_reads: Default::default(),
        });
        Ok(())
    }

    /// Finishes the last file; returns the outputs and the bytes written.
    ///
    /// # Errors
    /// I/O errors finishing or syncing the last file.
    pub fn finish(
        mut self,
        new_file_number: &mut dyn FnMut() -> FileNumber,
    ) -> Result<(Vec<FileMetaData>, u64)> {
        if self.builder.is_none()
            && !self
                .range_tombstones
                .truncate(self.range_lo.as_deref(), None)
                .is_empty()
        {
            self.start_file(new_file_number)?;
        }
        self.finish_file(None)?;
        Ok((std::mem::take(&mut self.outputs), self.bytes_written))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::file_cut::Grandparent;
    use crate::fs::PosixFileSystem;
    use crate::types::make_internal_key;

    /// Writes keys k0000..k0399 with 100-byte values through a writer with a
    /// 4 KB target; returns each output's (first key, last key, size).
    fn outputs(cutter: Option<GrandparentCutter>) -> Vec<(String, String, u64)> {
        let dir = tempfile::tempdir().unwrap();
        let fs: Arc<dyn FileSystem> = Arc::new(PosixFileSystem);
        let opts = TableOptions {
            compression: crate::sstable::CompressionType::None,
            ..TableOptions::default()
        };
        let mut w = OutputWriter::new(dir.path(), &fs, &opts, 4096, None).with_cutter(cutter);
        let mut next = 10;
        for i in 0..400u32 {
            let key = make_internal_key(format!("k{i:04}").as_bytes(), 1, ValueType::Value);
            w.add(&key, &[b'v'; 100], &mut || {
                next += 1;
                next
            })
            .unwrap();
        }
        let (files, _) = w.finish(&mut || unreachable!()).unwrap();
        files
            .iter()
            .map(|f| {
                let k = |ik: &[u8]| String::from_utf8(user_key(ik).to_vec()).unwrap();
                (k(&f.smallest), k(&f.largest), f.file_size)
            })
            .collect()
    }

    #[test]
    fn outputs_in_a_grandparent_gap_run_to_twice_the_target() {
        // Without grandparents every file ends near the 4 KB target.
        let plain = outputs(None);
        assert!(plain.len() >= 8, "{plain:?}");
        assert!(plain.iter().all(|f| f.2 < 2 * 4096), "{plain:?}");
        // One grandparent file under k0000..k0029; the rest is a gap. The
        // first output ends where the keys leave it, and the outputs over
        // the gap grow past the target, up to twice it.
        let gp = vec![Grandparent {
            smallest: b"k0000".to_vec(),
            largest: b"k0029".to_vec(),
            size: 1 << 20,
        }];
        let cut = outputs(Some(GrandparentCutter::new(gp, 4096, u64::MAX, true)));
        assert_eq!(cut[0].1, "k0029", "{cut:?}");
        assert!(cut.len() < plain.len(), "{cut:?} vs {plain:?}");
        let gap_files = &cut[1..cut.len() - 1];
        assert!(!gap_files.is_empty(), "{cut:?}");
        for f in gap_files {
            assert!(f.2 > 4096 * 3 / 2 && f.2 < 2 * 4096 + 1024, "{cut:?}");
        }
    }
}
