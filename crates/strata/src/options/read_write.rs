//! Options of one read or one write, as opposed to the DB's [`Options`](super::Options).

use crate::setters::with_setters;

with_setters! {
    /// Options for one write.
    #[derive(Debug, Clone, Default)]
    #[non_exhaustive]
    pub struct WriteOptions {
        /// fdatasync the WAL before acknowledging. Default: false (a crash of the
        /// machine may lose the last writes; a crash of the process does not).
        pub sync: bool,
        /// Skip the WAL: the write is lost on any crash until its memtable is
        /// flushed. Default: false. Cannot be combined with `sync`.
        pub disable_wal: bool,
    }
}

with_setters! {
    /// Options for one read or iterator.
    #[derive(Clone)]
    #[non_exhaustive]
    pub struct ReadOptions {
        /// Read as of this snapshot instead of the latest state. Default: none.
        pub snapshot: Option<crate::Snapshot>,
        /// Put blocks read into the block cache. Default: true. Turn off for
        /// scans that should not evict the working set.
        pub fill_cache: bool,
        /// Verify block checksums on every read. Default: true.
        pub verify_checksums: bool,
        /// Iterator lower bound, inclusive. Default: none.
        pub iterate_lower_bound: Option<Vec<u8>>,
        /// Iterator upper bound, exclusive. Default: none.
        pub iterate_upper_bound: Option<Vec<u8>>,
        /// Bytes an iterator reads ahead of each table file it reads with
        /// `pread`, in one read into a buffer of its own, refilled when a
        /// block lies outside it (RocksDB's `ReadOptions::readahead_size`).
        /// Default: 0, automatic read-ahead: after a few reads of a table
        /// in order, the iterator asks the OS to read ahead in windows that
        /// grow to `max_auto_readahead_size`. Mapped table files
        /// (`allow_mmap_reads`) are read in place, without either.
        pub readahead_size: usize,
    }
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            snapshot: None,
            fill_cache: true,
            verify_checksums: true,
            iterate_lower_bound: None,
            iterate_upper_bound: None,
            readahead_size: 0,
        }
    }
}
