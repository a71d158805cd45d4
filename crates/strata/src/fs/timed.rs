//! A [`Layer`] that times every append of a [`WritableFile`] into
//! statistics histograms, as RocksDB's `WritableFileWriter::Append` does for
//! table files.

use std::sync::Arc;
use std::time::Instant;

use super::layered::Layer;
use super::WritableFile;
use crate::error::Result;
use crate::stats::{Histogram, Statistics};

/// The [`Layer`] that times each [`WritableFile::append`] of its file
/// (buffered or not) into `rocksdb.sst.write.micros` and one activity
/// histogram (`rocksdb.file.write.flush.micros` or
/// `rocksdb.file.write.compaction.micros`).
pub struct AppendTimer {
    stats: Arc<Statistics>,
    activity: Histogram,
}

impl AppendTimer {
    /// Times into `stats`; `activity` is the per-activity histogram to
    /// fill beside `rocksdb.sst.write.micros`.
    pub fn new(stats: Arc<Statistics>, activity: Histogram) -> Self {
        AppendTimer { stats, activity }
    }
}

impl Layer for AppendTimer {
    fn append(&mut self, inner: &mut dyn WritableFile, data: &[u8]) -> Result<()> {
        let t = Instant::now();
        let r = inner.append(data);
        let micros = t.elapsed().as_micros() as u64;
        self.stats
            .record_histogram(Histogram::SstWriteMicros, micros);
        self.stats.record_histogram(self.activity, micros);
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::layered::Layered;
    use crate::fs::{FileSystem, PosixFileSystem};

    #[test]
    fn every_append_is_one_sample_in_both_histograms() {
        let dir = tempfile::tempdir().unwrap();
        let f = PosixFileSystem.create(&dir.path().join("t")).unwrap();
        let stats = Statistics::new();
        let timer = AppendTimer::new(stats.clone(), Histogram::FileWriteFlushMicros);
        let mut w = Layered::new(f, timer);
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
