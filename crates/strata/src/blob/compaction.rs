//! [`CompactionBlobs`]: everything a compaction does with blobs, entry by
//! entry: garbage metering, relocation of blobs from old files (garbage
//! collection), and separation of large values into new blob files.

use std::sync::Arc;

use crate::error::{Error, Result};
use crate::filename::FileNumber;
use crate::sstable::dump::escape_bytes;
use crate::stats::{Statistics, Ticker};
use crate::types::{make_internal_key, parse_internal_key, ValueType};
use crate::version::edit::BlobFileGarbage;

use super::garbage::GarbageMeter;
use super::gc_policy::should_relocate;
use super::index::BlobIndex;
use super::output::BlobOutput;
use super::source::{BlobFetcher, BlobSource};
use super::writer::BlobFileInfo;

/// What a compaction did with blobs; goes into its `VersionEdit` and stats.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CompactionBlobResult {
    /// New blob files (`blob_file_additions`), ascending.
    pub new_files: Vec<BlobFileInfo>,
    /// Garbage the compaction created (`blob_file_garbage`).
    pub garbage: Vec<BlobFileGarbage>,
    /// Record bytes read from blob files (`Rblob`).
    pub blob_bytes_read: u64,
    /// Bytes of the new blob files (`Wblob`).
    pub blob_bytes_written: u64,
    /// Blobs relocated by garbage collection.
    pub relocated_blobs: u64,
    /// Stored bytes of those blobs.
    pub relocated_bytes: u64,
}

/// The blob side of one compaction.
///
/// Call [`input`](Self::input) for every entry the compaction reads (kept
/// or dropped) and [`output`](Self::output) for every entry it keeps, then
/// write what `output` returns. Finally [`finish`](Self::finish) (or
/// [`abandon`](Self::abandon) on failure).
pub struct CompactionBlobs<'a> {
    name: String,
    meter: GarbageMeter,
    fetcher: Option<BlobFetcher<'a>>,
    gc_cutoff: u64,
    output: Option<BlobOutput<'a>>,
    stats: Option<Arc<Statistics>>,
    relocated_blobs: u64,
    relocated_bytes: u64,
}

impl std::fmt::Debug for CompactionBlobs<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompactionBlobs")
            .field("name", &self.name)
            .field("gc_cutoff", &self.gc_cutoff)
            .field("relocated_blobs", &self.relocated_blobs)
            .finish()
    }
}

impl<'a> CompactionBlobs<'a> {
    /// Blob handling for a compaction called `name` (used in errors).
    ///
    /// - `output`: where separated values go; `None` below
    ///   `blob_file_starting_level` or with blob files off (values stay
    ///   inline, relocated blobs become inline).
    /// - `gc_cutoff`: with `enable_blob_garbage_collection`,
    ///   [`super::gc_policy::gc_cutoff_file_number`]; blobs in files
    ///   numbered below it are relocated. 0 relocates nothing.
    /// - `source`, `readahead_size`, `verify_checksums`: how relocated blobs
    ///   are read (`blob_compaction_readahead_size`).
    pub fn new(
        name: impl Into<String>,
        output: Option<BlobOutput<'a>>,
        gc_cutoff: u64,
        source: &'a BlobSource,
        readahead_size: usize,
        verify_checksums: bool,
        stats: Option<Arc<Statistics>>,
    ) -> Self {
        CompactionBlobs {
            name: name.into(),
            meter: GarbageMeter::new(),
            fetcher: (gc_cutoff > 0)
                .then(|| source.compaction_fetcher(readahead_size, verify_checksums)),
            gc_cutoff,
            output,
            stats,
            relocated_blobs: 0,
            relocated_bytes: 0,
        }
    }

    fn bad_index(&self, user_key: &[u8]) -> Error {
        Error::corruption(
            &self.name,
            0,
            format!(
                "undecodable blob index for key '{}'",
                escape_bytes(user_key)
            ),
        )
    }

    /// An entry read from the compaction's inputs.
    pub fn input(&mut self, ikey: &[u8], value: &[u8]) -> Result<()> {
        if self.meter.inflow_entry(ikey, value) {
            Ok(())
        } else {
            Err(self.bad_index(crate::types::user_key(ikey)))
        }
    }

    /// An entry the compaction keeps. Returns the entry to write in its
    /// place (new internal key and value), or `None` to write it as it is.
    pub fn output(
        &mut self,
        ikey: &[u8],
        value: &[u8],
        new_file_number: &mut dyn FnMut() -> FileNumber,
    ) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
        let replaced = match parse_internal_key(ikey) {
            Some(p) if p.value_type == ValueType::Value => match &mut self.output {
                Some(out) => out.add_entry(ikey, value, new_file_number)?,
                None => None,
            },
            Some(p) if p.value_type == ValueType::BlobIndex => {
                let index = BlobIndex::decode(value).ok_or_else(|| self.bad_index(p.user_key))?;
                if should_relocate(index.file_number, self.gc_cutoff) {
                    Some(self.relocate(p.user_key, p.seq, &index, new_file_number)?)
                } else {
                    None
                }
            }
            _ => None,
        };
        let (k, v) = match &replaced {
            Some((k, v)) => (k.as_slice(), v.as_slice()),
            None => (ikey, value),
        };
        self.meter.outflow_entry(k, v);
        Ok(replaced)
    }

    fn relocate(
        &mut self,
        user_key: &[u8],
        seq: u64,
        index: &BlobIndex,
        new_file_number: &mut dyn FnMut() -> FileNumber,
    ) -> Result<(Vec<u8>, Vec<u8>)> {
        let Some(fetcher) = self.fetcher.as_mut() else {
            return Err(Error::InvalidArgument(
                "relocation without a fetcher".into(),
            ));
        };
        let value = fetcher.fetch(user_key, index)?;
        self.relocated_blobs += 1;
        self.relocated_bytes += index.size;
        let new_index = match &mut self.output {
            Some(out) => out.add(user_key, &value, new_file_number)?,
            None => None,
        };
        Ok(match new_index {
            Some(i) => (
                make_internal_key(user_key, seq, ValueType::BlobIndex),
                i.encode(),
            ),
            None => (make_internal_key(user_key, seq, ValueType::Value), value),
        })
    }

    /// Finishes (syncs) the new blob files and reports; records the GC
    /// relocation tickers.
    pub fn finish(self) -> Result<CompactionBlobResult> {
        let new_files = match self.output {
            Some(o) => o.finish()?,
            None => Vec::new(),
        };
        if let Some(s) = &self.stats {
            s.record_tick(Ticker::BlobDbGcNumKeysRelocated, self.relocated_blobs);
            s.record_tick(Ticker::BlobDbGcBytesRelocated, self.relocated_bytes);
        }
        Ok(CompactionBlobResult {
            blob_bytes_written: new_files.iter().map(|f| f.file_size).sum(),
            new_files,
            garbage: self.meter.garbage(),
            blob_bytes_read: self.fetcher.map_or(0, |f| f.bytes_read()),
            relocated_blobs: self.relocated_blobs,
            relocated_bytes: self.relocated_bytes,
        })
    }

    /// Deletes the blob files this compaction created.
    pub fn abandon(self) {
        if let Some(o) = self.output {
            o.abandon();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::blob::output::BlobOutputOptions;
    use crate::blob::BlobFileBuilder;
    use crate::filename::blob_file_name;
    use crate::fs::{FileSystem, PosixFileSystem};
    use crate::sstable::CompressionType;

    /// Old blob file 3 holds keys a..e; a compaction keeps a, b, d (c and e
    /// were overwritten by inline values), relocates from file 3 (cutoff
    /// 4), and writes values of at least 50 bytes to new blob files.
    #[test]
    fn relocates_separates_and_meters() {
        let dir = tempfile::tempdir().unwrap();
        let fs: Arc<dyn FileSystem> = Arc::new(PosixFileSystem);
        let path = blob_file_name(dir.path(), 3);
        let mut b = BlobFileBuilder::new(
            fs.create(&path).unwrap(),
            3,
            path.display().to_string(),
            CompressionType::None,
            None,
        );
        let val = |c: u8, n: usize| vec![c; n];
        let mut old = Vec::new();
        for (k, n) in [
            (b"a", 100),
            (b"b", 10),
            (b"c", 100),
            (b"d", 100),
            (b"e", 100),
        ] {
            old.push(b.add(k, &val(k[0], n)).unwrap());
        }
        b.finish().unwrap();
        let stats = Statistics::new();
        let src = BlobSource::new(dir.path().to_path_buf(), fs.clone(), None, None, 10);
        let opts = BlobOutputOptions {
            min_blob_size: 50,
            ..Default::default()
        };
        let out = BlobOutput::new(dir.path().to_path_buf(), fs.clone(), opts, None, None);
        let mut cb =
            CompactionBlobs::new("job 1", Some(out), 4, &src, 4096, true, Some(stats.clone()));
        let mut next = 20u64;
        let mut nfn = || {
            next += 1;
            next
        };
        let bi = |k: &[u8], s| make_internal_key(k, s, ValueType::BlobIndex);
        let vi = |k: &[u8], s| make_internal_key(k, s, ValueType::Value);
        let inputs: Vec<(Vec<u8>, Vec<u8>)> = vec![
            (bi(b"a", 1), old[0].encode()),
            (bi(b"b", 2), old[1].encode()),
            (vi(b"c", 9), b"new c".to_vec()),
            (bi(b"c", 3), old[2].encode()),
            (bi(b"d", 4), old[3].encode()),
            (vi(b"e", 9), val(b'E', 70)),
            (bi(b"e", 5), old[4].encode()),
        ];
        let keep = [0, 1, 2, 4, 5];
        let mut written = Vec::new();
        for (n, (k, v)) in inputs.iter().enumerate() {
            cb.input(k, v).unwrap();
            if keep.contains(&n) {
                let r = cb.output(k, v, &mut nfn).unwrap();
                written.push(r.unwrap_or_else(|| (k.clone(), v.clone())));
            }
        }
        let res = cb.finish().unwrap();
        // a, d relocated to a new blob file; b (10 bytes) became inline;
        // "new c" stays inline; E×70 was separated.
        let types: Vec<ValueType> = written
            .iter()
            .map(|(k, _)| parse_internal_key(k).unwrap().value_type)
            .collect();
        use ValueType::{BlobIndex as B, Value as V};
        assert_eq!(types, vec![B, V, V, B, B]);
        assert_eq!(written[1].1, val(b'b', 10));
        for (n, key) in [(0usize, &b"a"[..]), (3, b"d"), (4, b"e")] {
            let i = BlobIndex::decode(&written[n].1).unwrap();
            assert_eq!(i.file_number, 21);
            let want = if n == 4 {
                val(b'E', 70)
            } else {
                val(key[0], 100)
            };
            assert_eq!(src.get(key, &i, false, true).unwrap(), want);
        }
        assert_eq!(res.new_files.len(), 1);
        assert_eq!(res.blob_bytes_written, res.new_files[0].file_size);
        assert_eq!((res.relocated_blobs, res.relocated_bytes), (3, 210));
        assert_eq!(stats.ticker(Ticker::BlobDbGcNumKeysRelocated), 3);
        assert_eq!(stats.ticker(Ticker::BlobDbGcBytesRelocated), 210);
        // Every blob of file 3 is now garbage: relocated (a, b, d) or dropped
        // (c, e).
        assert_eq!(
            res.garbage,
            vec![BlobFileGarbage {
                number: 3,
                garbage_blob_count: 5,
                garbage_blob_bytes: old.iter().map(|i| i.record_size(1)).sum(),
            }]
        );
        assert_eq!(res.blob_bytes_read, 3 * 21 + 3 + 210);
    }

    #[test]
    fn without_gc_blob_indexes_pass_through() {
        let dir = tempfile::tempdir().unwrap();
        let fs: Arc<dyn FileSystem> = Arc::new(PosixFileSystem);
        let src = BlobSource::new(dir.path().to_path_buf(), fs, None, None, 10);
        let mut cb = CompactionBlobs::new("job 2", None, 0, &src, 0, true, None);
        let i = BlobIndex {
            file_number: 7,
            offset: 40,
            size: 100,
            compression: CompressionType::None,
        };
        let k = make_internal_key(b"k", 1, ValueType::BlobIndex);
        cb.input(&k, &i.encode()).unwrap();
        assert_eq!(cb.output(&k, &i.encode(), &mut || 1).unwrap(), None);
        let v = make_internal_key(b"v", 1, ValueType::Value);
        assert_eq!(cb.output(&v, &[0; 1000], &mut || 1).unwrap(), None);
        let bad = cb.input(&k, b"\x01").unwrap_err();
        assert!(bad.is_corruption());
        assert!(cb.output(&k, b"", &mut || 1).unwrap_err().is_corruption());
        let res = cb.finish().unwrap();
        assert!(res.garbage.is_empty());
        assert!(res.new_files.is_empty());
    }
}
