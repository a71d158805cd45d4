//! Automatic read-ahead for iterators (RocksDB's `BlockPrefetcher`): the
//! policy that decides, block by block, when an iterator reading one table
//! file in order asks for the bytes ahead of it, and how many.
//!
//! An iterator reads a table in order when each data block it moves to
//! starts where the last one ended. After
//! `num_file_reads_for_auto_readahead` such reads (default 2), the next
//! block brings a read-ahead of `initial_auto_readahead_size` bytes beyond
//! it (default 8 KiB); each later read-ahead is twice the last, up to
//! `max_auto_readahead_size` (default 256 KiB; 0 turns the mechanism off).
//! A block inside what was already asked for asks nothing; a block out of
//! order (a seek, a step backwards) starts the count again from one read.
//! So point lookups and short scans never read ahead, and a long scan soon
//! reads in windows of the largest size.
//!
//! This is policy only: [`SequentialReads::on_block`] returns the range to
//! read ahead, and the table iterator (`sstable/reader.rs`) asks the OS for
//! it (`RandomAccessFile::prefetch`) or, without a page cache (direct I/O),
//! reads it into a buffer of its own (`sstable/readahead.rs`).

/// The table options that steer automatic read-ahead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AutoReadahead {
    /// Bytes of the first read-ahead (`initial_auto_readahead_size`).
    pub initial: usize,
    /// Most bytes of one read-ahead (`max_auto_readahead_size`); 0 turns
    /// automatic read-ahead off.
    pub max: usize,
    /// Reads of a table in order before read-ahead starts
    /// (`num_file_reads_for_auto_readahead`).
    pub after_reads: u64,
}

impl AutoReadahead {
    /// The options as RocksDB sanitizes them: off when either size is 0, and
    /// the first read-ahead no larger than the largest.
    fn first_size(&self) -> Option<usize> {
        (self.max > 0 && self.initial > 0).then(|| self.initial.min(self.max))
    }
}

/// One iterator's reads of one table file: whether they run in order, and
/// how far ahead it has asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SequentialReads {
    /// Where the last block read ended (offset + size with trailer).
    prev_end: u64,
    /// Reads in the current run of reads in order.
    reads: u64,
    /// Bytes of the next read-ahead; 0 until the first.
    next_size: usize,
    /// The range asked for so far, `[start, limit)`.
    start: u64,
    limit: u64,
}

impl SequentialReads {
    /// The iterator moves to the data block at `offset` of `len` bytes (its
    /// trailer included): the range to read ahead now, as (offset, length),
    /// if any. The range starts at the block, so it covers the block too.
    pub fn on_block(&mut self, cfg: AutoReadahead, offset: u64, len: u64) -> Option<(u64, u64)> {
        let first_size = cfg.first_size()?;
        let end = offset + len;
        let in_order = offset == self.prev_end;
        self.prev_end = end;
        if self.start <= offset && end <= self.limit {
            return None;
        }
        if !in_order {
            *self = SequentialReads {
                prev_end: end,
                reads: 1,
                ..SequentialReads::default()
            };
            return None;
        }
        self.reads += 1;
        if self.reads <= cfg.after_reads {
            return None;
        }
        let size = if self.next_size == 0 {
            first_size
        } else {
            self.next_size
        };
        self.start = offset;
        self.limit = end + size as u64;
        self.next_size = size.saturating_mul(2).min(cfg.max);
        Some((offset, len + size as u64))
    }
}

#[cfg(test)]
mod tests {
    //! Cases in `testdata/readahead/auto` (see `crate::datadriven`).
    //!
    //! Command `options initial=<bytes> max=<bytes> after=<reads>` sets the
    //! options (RocksDB's defaults until then) and starts a new iterator;
    //! `blocks` moves it to each block of its input, one `<offset> <len>`
    //! per line, and prints for each the range read ahead, or `-`.

    use super::*;
    use crate::datadriven::{self, Case};

    struct State {
        cfg: AutoReadahead,
        reads: SequentialReads,
    }

    impl State {
        fn run(&mut self, case: &Case, at: &str) -> String {
            let mut words = case.command.split_whitespace();
            match words.next() {
                Some("options") => {
                    for w in words {
                        let (k, v) = w.split_once('=').unwrap_or_else(|| panic!("{at}: {w}"));
                        let n: u64 = v.parse().unwrap_or_else(|e| panic!("{at}: {w}: {e}"));
                        match k {
                            "initial" => self.cfg.initial = n as usize,
                            "max" => self.cfg.max = n as usize,
                            "after" => self.cfg.after_reads = n,
                            _ => panic!("{at}: unknown option {k}"),
                        }
                    }
                    self.reads = SequentialReads::default();
                    "ok".into()
                }
                Some("blocks") => case
                    .input
                    .iter()
                    .map(|line| {
                        let mut nums = line.split_whitespace().map(|n| {
                            n.parse::<u64>()
                                .unwrap_or_else(|e| panic!("{at}: {line}: {e}"))
                        });
                        let (offset, len) = (nums.next().unwrap(), nums.next().unwrap());
                        match self.reads.on_block(self.cfg, offset, len) {
                            Some((o, l)) => format!("{offset}: read ahead {o}..{}", o + l),
                            None => format!("{offset}: -"),
                        }
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
                other => panic!("{at}: unknown command {other:?}"),
            }
        }
    }

    #[test]
    fn auto_readahead_cases() {
        let mut state = State {
            cfg: AutoReadahead {
                initial: 8 << 10,
                max: 256 << 10,
                after_reads: 2,
            },
            reads: SequentialReads::default(),
        };
        datadriven::run_file(&["readahead", "auto"], |case, at| state.run(case, at));
    }
}
