//! Always-on internal counters behind `rocksdb.stats` (independent of the
//! optional [`Statistics`](crate::stats::Statistics) object).

use std::collections::BTreeMap;
use std::time::Instant;

use crate::compaction::job::JobStats;
use crate::write_controller::StallCause;

/// Compaction figures of one output level (L0's row holds flushes).
#[derive(Debug, Clone, Default)]
pub struct LevelCompStats {
    /// Bytes read from the input level.
    pub read_n: u64,
    /// Bytes read from the output level.
    pub read_np1: u64,
    /// Bytes written.
    pub write: u64,
    /// Bytes moved by trivial moves.
    pub moved: u64,
    /// Blob-file bytes read (relocation).
    pub read_blob: u64,
    /// Blob-file bytes written.
    pub write_blob: u64,
    /// Wall microseconds.
    pub micros: u64,
    /// CPU microseconds.
    pub cpu_micros: u64,
    /// Jobs.
    pub count: u64,
    /// Entries read.
    pub keys_in: u64,
    /// Entries dropped.
    pub keys_dropped: u64,
}

impl LevelCompStats {
    /// Adds a compaction job's figures. A trivial move adds only its moved
    /// bytes: RocksDB counts it in `Moved(GB)` but not in `Comp(cnt)` or
    /// `Comp(sec)`, since nothing was read or written.
    pub fn add_job(&mut self, j: &JobStats, trivial_move: bool) {
        if trivial_move {
            self.moved += j.moved_bytes;
            return;
        }
        self.read_n += j.read_bytes_level;
        self.read_np1 += j.read_bytes_next;
        self.write += j.write_bytes;
        self.moved += j.moved_bytes;
        self.read_blob += j.blob_bytes_read;
        self.write_blob += j.blob_bytes_written;
        self.micros += j.micros;
        self.cpu_micros += j.cpu_micros;
        self.count += 1;
        self.keys_in += j.keys_in;
        self.keys_dropped += j.dropped_obsolete + j.dropped_shadowed;
    }
}

/// Counters for the DB Stats and Compaction Stats blocks.
#[derive(Debug, Clone)]
pub struct InternalStats {
    /// Per output level.
    pub levels: Vec<LevelCompStats>,
    /// Bytes written by flushes.
    pub flush_bytes: u64,
    /// Write calls (batches).
    pub user_writes: u64,
    /// Keys written.
    pub user_keys: u64,
    /// Bytes of keys and values written by users.
    pub user_bytes: u64,
    /// Commit groups (group commit leaders).
    pub commit_groups: u64,
    /// WAL records written.
    pub wal_writes: u64,
    /// WAL syncs.
    pub wal_syncs: u64,
    /// WAL bytes written.
    pub wal_bytes: u64,
    /// Microseconds writers spent stalled.
    pub stall_micros: u64,
    /// Stall events by (cause, stopped?).
    pub stall_counts: BTreeMap<(StallCause, bool), u64>,
    /// When the DB was opened.
    pub start: Instant,
}

impl InternalStats {
    /// Zeroed counters for `num_levels` levels.
    pub fn new(num_levels: usize) -> Self {
        InternalStats {
            levels: vec![LevelCompStats::default(); num_levels],
            flush_bytes: 0,
            user_writes: 0,
            user_keys: 0,
            user_bytes: 0,
            commit_groups: 0,
            wal_writes: 0,
            wal_syncs: 0,
            wal_bytes: 0,
            stall_micros: 0,
            stall_counts: BTreeMap::new(),
            start: Instant::now(),
        }
    }

    /// Adds one flush (L0's row holds flushes) and its bytes to the flushed
    /// total: a table of `table_bytes` (0 if none was written) and blob files
    /// of `blob_bytes`. At least 1 µs is counted, so that the L0 row, which
    /// `rocksdb.stats` shows only for levels with files or time, is never
    /// left out for a flush that took less.
    pub fn add_flush(&mut self, table_bytes: u64, blob_bytes: u64, micros: u64, cpu_micros: u64) {
        let l0 = &mut self.levels[0];
        l0.write += table_bytes;
        l0.write_blob += blob_bytes;
        l0.micros += micros.max(1);
        l0.cpu_micros += cpu_micros;
        l0.count += 1;
        self.flush_bytes += table_bytes + blob_bytes;
    }

    /// Counts one stall event.
    pub fn count_stall(&mut self, cause: StallCause, stopped: bool) {
        *self.stall_counts.entry((cause, stopped)).or_insert(0) += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Regression: a trivial move was counted in `Comp(cnt)` (and its
    /// microseconds in `Comp(sec)`); RocksDB counts only its bytes, in
    /// `Moved(GB)`, so Strata's Sum row showed one job more per move.
    #[test]
    fn trivial_move_counts_only_moved_bytes() {
        let mut row = LevelCompStats::default();
        let moved = JobStats {
            moved_bytes: 1000,
            micros: 7,
            ..JobStats::default()
        };
        row.add_job(&moved, true);
        assert_eq!((row.moved, row.count, row.micros), (1000, 0, 0));
        let merged = JobStats {
            read_bytes_level: 10,
            write_bytes: 9,
            micros: 5,
            ..JobStats::default()
        };
        row.add_job(&merged, false);
        assert_eq!(
            (row.moved, row.count, row.micros, row.write),
            (1000, 1, 5, 9)
        );
    }
}
