//! A [`WritableFile`] that times every append into statistics histograms,
//! as RocksDB's `WritableFileWriter::Append` does for table files.

use std::sync::Arc;
use std::time::Instant;

use super::WritableFile;
use crate::error::Result;
use crate::stats::{Histogram, Statistics};

/// Times each [`WritableFile::append`] of `inner` (buffered or not) into
/// `rocksdb.sst.write.micros` and one activity histogram
/// (`rocksdb.file.write.flush.micros` or `rocksdb.file.write.compaction.micros`).
pub struct TimedWritable {
    inner: Box<dyn WritableFile>,
    stats: Arc<Statistics>,
    activity: Histogram,
}

impl TimedWritable {
    /// Wraps `inner`; `activity` is the per-activity histogram to fill
    /// beside `rocksdb.sst.write.micros`.
    pub fn new(inner: Box<dyn WritableFile>, stats: Arc<Statistics>, activity: Histogram) -> Self {
        TimedWritable {
            inner,
            stats,
            activity,
        }
    }
}

impl WritableFile for TimedWritable {
    fn append(&mut self, data: &[u8]) -> Result<()> {
        let t = Instant::now();
        let r = self.inner.append(data);
        let micros = t.elapsed().as_micros() as u64;
        self.stats
            .record_histogram(Histogram::SstWriteMicros, micros);
        self.stats.record_histogram(self.activity, micros);
        r
    }

    fn flush(&mut self) -> Result<()> {
        self.inner.flush()
    }

    fn sync(&mut self) -> Result<()> {
        self.inner.sync()
    }

    fn size(&self) -> u64 {
        self.inner.size()
    }

    fn range_sync(&mut self, offset: u64, len: u64) -> Result<()> {
        self.inner.range_sync(offset, len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::{FileSystem, PosixFileSystem};

    #[test]
    fn every_append_is_one_sample_in_both_histograms() {
        let dir = tempfile::tempdir().unwrap();
        let f = PosixFileSystem.create(&dir.path().join("t")).unwrap();
        let stats = Statistics::new();
        let mut w = TimedWritable::new(f, stats.clone(), Histogram::FileWriteFlushMicros);
        for _ in 0..5 {
            w.append(b"abc").unwrap();
        }
        w.sync().unwrap();
        assert_eq!(w.size(), 15);
        assert_eq!(stats.histogram(Histogram::SstWriteMicros).count(), 5);
        assert_eq!(stats.histogram(Histogram::FileWriteFlushMicros).count(), 5);
        assert_eq!(
            stats
                .histogram(Histogram::FileWriteCompactionMicros)
                .count(),
            0
        );
        assert_eq!(
            std::fs::read(dir.path().join("t")).unwrap(),
            b"abcabcabcabcabc"
        );
    }
}
