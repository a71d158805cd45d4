//! Writer/reader/source tests: round trips, corruption, read-ahead, cache.

use std::sync::Arc;

use crate::error::Error;
use crate::filename::blob_file_name;
use crate::fs::{FileSystem, PosixFileSystem};
use crate::sstable::testutil::noise;
use crate::sstable::CompressionType;
use crate::stats::{Histogram, Statistics, Ticker};

use super::format::{FOOTER_SIZE, HEADER_SIZE, RECORD_HEADER_SIZE};
use super::reader::{BlobReadahead, BlobRecord};
use super::*;
use crate::fs::testutil::{MemFile, MemWritable};

const FILE: &str = "000007.blob";

fn compressible(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| b"abcdefgh"[(i / 5 + seed as usize) % 8])
        .collect()
}

/// Keys and values of mixed sizes and compressibility.
fn sample() -> Vec<(Vec<u8>, Vec<u8>)> {
    vec![
        (b"a".to_vec(), Vec::new()),
        (b"bb".to_vec(), b"x".to_vec()),
        (b"key-000003".to_vec(), compressible(100, 1)),
        (Vec::new(), compressible(5000, 2)),
        (b"key-000005".to_vec(), noise(20_000, 5)),
        (vec![0xff; 300], compressible(70_000, 3)),
    ]
}

struct Written {
    data: Vec<u8>,
    info: BlobFileInfo,
    indexes: Vec<BlobIndex>,
}

fn write(
    c: CompressionType,
    entries: &[(Vec<u8>, Vec<u8>)],
    stats: Option<Arc<Statistics>>,
) -> Written {
    let (file, data) = MemWritable::new();
    let mut b = BlobFileBuilder::new(file, 7, FILE.to_string(), c, stats);
    let mut indexes = Vec::new();
    for (k, v) in entries {
        let i = b.add(k, v).unwrap();
        assert_eq!(b.file_size(), i.value_end() + 4);
        indexes.push(i);
    }
    assert_eq!(b.blob_count(), entries.len() as u64);
    let info = b.finish().unwrap();
    let data = data.lock().clone();
    Written {
        data,
        info,
        indexes,
    }
}

fn open(data: &[u8]) -> crate::Result<BlobFileReader> {
    BlobFileReader::open(MemFile::new(data.to_vec()), 7, FILE.to_string())
}

#[test]
fn round_trip_every_compression_type() {
    let entries = sample();
    for c in CompressionType::ALL {
        let w = write(c, &entries, None);
        let info = w.info;
        assert_eq!(info.number, 7);
        assert_eq!(info.blob_count, entries.len() as u64);
        assert_eq!(info.file_size, w.data.len() as u64);
        assert_eq!(
            info.blob_bytes,
            (w.data.len() - HEADER_SIZE - FOOTER_SIZE) as u64
        );
        assert_eq!(info.checksum, crc32c::crc32c(&w.data));
        let add = info.to_addition();
        assert_eq!(
            (add.number, add.total_blob_count, add.total_blob_bytes),
            (7, info.blob_count, info.blob_bytes)
        );
        let r = open(&w.data).unwrap();
        assert_eq!(r.header().compression, c);
        assert_eq!(r.blob_count(), entries.len() as u64);
        for ((k, v), i) in entries.iter().zip(&w.indexes) {
            assert_eq!(i.file_number, 7);
            // Large compressible values are compressed, noise is stored raw.
            if c != CompressionType::None && v.len() >= 5000 && v.len() != 20_000 {
                assert_eq!(i.compression, c, "{c}: {} bytes", v.len());
                assert!(i.size < v.len() as u64 / 2);
            }
            if v.len() == 20_000 {
                assert_eq!(i.compression, CompressionType::None);
            }
            let decoded = BlobIndex::decode(&i.encode()).unwrap();
            for verify in [true, false] {
                assert_eq!(&r.get(k, &decoded, verify).unwrap(), v, "{c}");
            }
        }
        let scanned: Vec<BlobRecord> = r.iter(true).collect::<crate::Result<_>>().unwrap();
        assert_eq!(scanned.len(), entries.len());
        for (rec, ((k, v), i)) in scanned.iter().zip(entries.iter().zip(&w.indexes)) {
            assert_eq!((&rec.key, &rec.value, &rec.index), (k, v, i));
        }
        r.verify_checksums().unwrap();
        assert_eq!(r.file_checksum().unwrap(), info.checksum);
    }
}

#[test]
fn empty_file_is_valid() {
    let w = write(CompressionType::Zstd, &[], None);
    assert_eq!(w.data.len(), HEADER_SIZE + FOOTER_SIZE);
    let r = open(&w.data).unwrap();
    assert_eq!(r.blob_count(), 0);
    assert_eq!(r.iter(true).count(), 0);
    r.verify_checksums().unwrap();
}

fn corruption_of(e: &Error) -> (&str, u64) {
    match e {
        Error::Corruption { file, offset, .. } => (file.as_str(), *offset),
        other => panic!("expected Corruption, got {other}"),
    }
}

/// Flips each byte of a file in turn: every read that touches the damage is
/// `Corruption` naming the file and an offset in the damaged part; no read
/// returns a wrong value; nothing panics.
#[test]
fn every_flipped_byte_is_detected() {
    let entries = vec![
        (b"k1".to_vec(), compressible(300, 1)),
        (b"key2".to_vec(), noise(200, 9)),
        (b"k3".to_vec(), Vec::new()),
    ];
    for c in [CompressionType::None, CompressionType::Snappy] {
        let w = write(c, &entries, None);
        let spans: Vec<(u64, u64)> = entries
            .iter()
            .zip(&w.indexes)
            .map(|((k, _), i)| {
                (
                    i.offset - (k.len() + RECORD_HEADER_SIZE) as u64,
                    i.value_end() + 4,
                )
            })
            .collect();
        for pos in 0..w.data.len() {
            let mut bad = w.data.clone();
            bad[pos] ^= 0x20;
            let r = match open(&bad) {
                Err(e) => {
                    let (file, off) = corruption_of(&e);
                    assert_eq!(file, FILE);
                    let in_header = pos < HEADER_SIZE && (off as usize) < HEADER_SIZE;
                    let in_footer =
                        pos >= bad.len() - FOOTER_SIZE && off as usize >= bad.len() - FOOTER_SIZE;
                    assert!(in_header || in_footer, "pos {pos}: {e}");
                    continue;
                }
                Ok(r) => r,
            };
            let mut hit = false;
            for (n, ((k, v), i)) in entries.iter().zip(&w.indexes).enumerate() {
                let (start, end) = spans[n];
                let damaged = (start..end).contains(&(pos as u64));
                match r.get(k, i, true) {
                    Ok(got) => {
                        assert!(!damaged, "{c} pos {pos}: damaged record read back");
                        assert_eq!(&got, v);
                    }
                    Err(e) => {
                        let (file, off) = corruption_of(&e);
                        assert_eq!(file, FILE);
                        assert!(damaged, "{c} pos {pos}: undamaged record {n} failed: {e}");
                        assert!((start..end).contains(&off), "pos {pos}: offset {off}");
                        hit = true;
                    }
                }
                // Without the record checksum, damage to the header or key
                // is still caught; any result is fine as long as it is not
                // a panic and not a value for a damaged key.
                let _ = r.get(k, i, false);
            }
            assert!(hit, "{c} pos {pos}: flip went unnoticed");
            let scan: Vec<_> = r.iter(true).collect();
            let err = scan.last().unwrap().as_ref().unwrap_err();
            corruption_of(err);
            assert!(r.verify_checksums().is_err());
        }
    }
}

#[test]
fn truncated_or_shortened_files_do_not_open() {
    let w = write(CompressionType::Lz4, &sample(), None);
    for cut in (0..w.data.len()).step_by(97).chain([w.data.len() - 1]) {
        let e = open(&w.data[..cut]).unwrap_err();
        assert_eq!(corruption_of(&e).0, FILE, "cut {cut}");
    }
    // A record removed from the middle, footer intact: the footer's byte
    // count no longer matches.
    let i = w.indexes[1];
    let start = (i.offset as usize) - 2 - RECORD_HEADER_SIZE;
    let end = i.value_end() as usize + 4;
    let mut spliced = w.data[..start].to_vec();
    spliced.extend_from_slice(&w.data[end..]);
    let e = open(&spliced).unwrap_err();
    let (_, off) = corruption_of(&e);
    assert_eq!(off as usize, spliced.len() - FOOTER_SIZE);
}

#[test]
fn wrong_key_or_index_is_corruption_not_a_value() {
    let entries = sample();
    let w = write(CompressionType::None, &entries, None);
    let r = open(&w.data).unwrap();
    let i = w.indexes[2]; // key "key-000003"
                          // Same length, different key.
    let e = r.get(b"key-000004", &i, true).unwrap_err();
    let (_, off) = corruption_of(&e);
    assert_eq!(off, i.offset - 10);
    assert!(e.to_string().contains("different key"), "{e}");
    let e = r.get(b"key-000004", &i, false).unwrap_err();
    assert!(e.is_corruption());
    // Different length: the record start is computed wrongly.
    assert!(r.get(b"key-03", &i, true).unwrap_err().is_corruption());
    // Wrong size, compression, offset.
    for bad in [
        BlobIndex {
            size: i.size + 1,
            ..i
        },
        BlobIndex {
            size: i.size - 1,
            ..i
        },
        BlobIndex {
            compression: CompressionType::Zstd,
            ..i
        },
        BlobIndex {
            offset: i.offset + 1,
            ..i
        },
        BlobIndex { offset: 3, ..i },
        BlobIndex {
            offset: u64::MAX - 2,
            ..i
        },
        BlobIndex {
            size: u64::MAX,
            ..i
        },
    ] {
        let e = r.get(b"key-000003", &bad, true).unwrap_err();
        assert_eq!(corruption_of(&e).0, FILE, "{bad}");
    }
    let other = BlobIndex {
        file_number: 8,
        ..i
    };
    assert!(matches!(
        r.get(b"key-000003", &other, true),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn readahead_batches_sequential_reads() {
    let entries: Vec<(Vec<u8>, Vec<u8>)> = (0..50)
        .map(|n| (format!("key{n:04}").into_bytes(), noise(1000, n + 1)))
        .collect();
    let w = write(CompressionType::None, &entries, None);
    let file = MemFile::new(w.data.clone());
    let r = BlobFileReader::open(file.clone(), 7, FILE.to_string()).unwrap();
    let opens = file.reads.load(std::sync::atomic::Ordering::Relaxed);
    let mut ra = BlobReadahead::new(16 * 1024);
    for ((k, v), i) in entries.iter().zip(&w.indexes) {
        assert_eq!(&r.get_with_readahead(k, i, true, &mut ra).unwrap(), v);
    }
    let reads = file.reads.load(std::sync::atomic::Ordering::Relaxed) - opens;
    // ~51 KB of records in 16 KB windows.
    assert!((3..=5).contains(&reads), "{reads} reads");
    // Going backwards still works (refills the buffer).
    let (k, v) = &entries[0];
    assert_eq!(
        &r.get_with_readahead(k, &w.indexes[0], true, &mut ra)
            .unwrap(),
        v
    );
    let mut none = BlobReadahead::new(0);
    let before = file.reads.load(std::sync::atomic::Ordering::Relaxed);
    for ((k, v), i) in entries.iter().zip(&w.indexes) {
        assert_eq!(&r.get_with_readahead(k, i, true, &mut none).unwrap(), v);
    }
    assert_eq!(
        file.reads.load(std::sync::atomic::Ordering::Relaxed) - before,
        50
    );
}

#[test]
fn writer_records_statistics() {
    let stats = Statistics::new();
    let entries = sample();
    let w = write(CompressionType::Zstd, &entries, Some(stats.clone()));
    assert_eq!(
        stats.ticker(Ticker::BlobDbBlobFileBytesWritten),
        w.data.len() as u64
    );
    assert_eq!(stats.ticker(Ticker::BlobDbBlobFileSynced), 1);
    let writes = stats.histogram_data(Histogram::BlobDbBlobFileWriteMicros);
    assert_eq!(writes.count, entries.len() as u64);
    assert_eq!(
        stats
            .histogram_data(Histogram::BlobDbBlobFileSyncMicros)
            .count,
        1
    );
    let r = open(&w.data).unwrap().with_statistics(Some(stats.clone()));
    let i = w.indexes[4];
    r.get(&entries[4].0, &i, true).unwrap();
    assert_eq!(
        stats.ticker(Ticker::BlobDbBlobFileBytesRead),
        i.record_size(entries[4].0.len())
    );
    assert_eq!(
        stats
            .histogram_data(Histogram::BlobDbBlobFileReadMicros)
            .count,
        1
    );
}

#[test]
fn failed_write_poisons_the_builder() {
    let (mut file, _data) = MemWritable::new();
    file.fail_after = Some(HEADER_SIZE + 40);
    let mut b = BlobFileBuilder::new(file, 3, "x".into(), CompressionType::None, None);
    b.add(b"k", b"small").unwrap();
    assert!(b.add(b"k2", &[7u8; 100]).is_err());
    assert!(b.add(b"k3", b"").is_err());
    assert!(b.finish().is_err());
}

fn write_file(
    fs: &dyn FileSystem,
    dir: &std::path::Path,
    n: u64,
    entries: &[(Vec<u8>, Vec<u8>)],
) -> Vec<BlobIndex> {
    let path = blob_file_name(dir, n);
    let file = fs.create(&path).unwrap();
    let mut b = BlobFileBuilder::new(
        file,
        n,
        path.display().to_string(),
        CompressionType::Snappy,
        None,
    );
    let idx = entries.iter().map(|(k, v)| b.add(k, v).unwrap()).collect();
    b.finish().unwrap();
    idx
}

#[test]
fn source_uses_cache_and_bounded_open_files() {
    let dir = tempfile::tempdir().unwrap();
    let fs: Arc<dyn FileSystem> = Arc::new(PosixFileSystem);
    let entries = sample();
    let idx5 = write_file(&*fs, dir.path(), 5, &entries);
    let idx6 = write_file(&*fs, dir.path(), 6, &entries);
    let stats = Statistics::new();
    let cache = Arc::new(BlobCache::new(1 << 20));
    let src = BlobSource::new(
        dir.path().to_path_buf(),
        fs.clone(),
        Some(cache.clone()),
        Some(stats.clone()),
        1,
    );
    let t = |t: Ticker| stats.ticker(t);
    let (k, v) = &entries[3];
    // Miss without filling, miss with filling, then a hit.
    assert_eq!(&src.get(k, &idx5[3], false, true).unwrap(), v);
    assert_eq!(
        (t(Ticker::BlobDbCacheMiss), t(Ticker::BlobDbCacheHit)),
        (1, 0)
    );
    assert_eq!(&src.get(k, &idx5[3], true, true).unwrap(), v);
    assert_eq!(
        (t(Ticker::BlobDbCacheMiss), t(Ticker::BlobDbCacheHit)),
        (2, 0)
    );
    assert_eq!(t(Ticker::BlobDbCacheAdd), 1);
    let file_reads = t(Ticker::BlobDbBlobFileBytesRead);
    assert_eq!(&src.get(k, &idx5[3], true, true).unwrap(), v);
    assert_eq!(
        (t(Ticker::BlobDbCacheMiss), t(Ticker::BlobDbCacheHit)),
        (2, 1)
    );
    assert_eq!(t(Ticker::BlobDbBlobFileBytesRead), file_reads);
    assert_eq!(t(Ticker::BlobDbCacheBytesRead), v.len() as u64);
    // At most one open file.
    for (n, ((k, v), (i5, i6))) in entries.iter().zip(idx5.iter().zip(&idx6)).enumerate() {
        assert_eq!(&src.get(k, i6, true, n % 2 == 0).unwrap(), v);
        assert_eq!(&src.get(k, i5, true, true).unwrap(), v);
        assert_eq!(src.open_files(), 1);
    }
    // Prepopulated values hit without a file read.
    src.prepopulate(6, idx6[4].offset, &entries[4].1);
    let hits = t(Ticker::BlobDbCacheHit);
    src.forget(&[5]);
    let file_reads = t(Ticker::BlobDbBlobFileBytesRead);
    assert_eq!(
        &src.get(&entries[4].0, &idx6[4], true, true).unwrap(),
        &entries[4].1
    );
    assert_eq!(t(Ticker::BlobDbCacheHit), hits + 1);
    assert_eq!(t(Ticker::BlobDbBlobFileBytesRead), file_reads);
    // Evicting drops the file's cached values.
    assert!(cache.lookup(5, idx5[3].offset).is_none());
    // A missing file is an I/O error, not a value.
    let missing = BlobIndex {
        file_number: 99,
        ..idx5[0]
    };
    assert!(matches!(
        src.get(&entries[0].0, &missing, true, true),
        Err(Error::Io { .. })
    ));
}

#[test]
fn source_reports_corruption_with_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let fs: Arc<dyn FileSystem> = Arc::new(PosixFileSystem);
    let entries = sample();
    let idx = write_file(&*fs, dir.path(), 5, &entries);
    let path = blob_file_name(dir.path(), 5);
    let mut data = std::fs::read(&path).unwrap();
    let pos = idx[4].offset as usize + 10;
    data[pos] ^= 1;
    std::fs::write(&path, &data).unwrap();
    let src = BlobSource::new(dir.path().to_path_buf(), fs, None, None, 10);
    let e = src.get(&entries[4].0, &idx[4], true, true).unwrap_err();
    let (file, off) = corruption_of(&e);
    assert_eq!(file, path.display().to_string());
    assert_eq!(
        off,
        idx[4].offset - entries[4].0.len() as u64 - RECORD_HEADER_SIZE as u64
    );
    // Other blobs of the file still read.
    assert_eq!(
        &src.get(&entries[3].0, &idx[3], true, true).unwrap(),
        &entries[3].1
    );
}

#[test]
fn compaction_fetcher_reads_ahead_without_filling_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let fs: Arc<dyn FileSystem> = Arc::new(PosixFileSystem);
    let entries = sample();
    let idx = write_file(&*fs, dir.path(), 5, &entries);
    let cache = Arc::new(BlobCache::new(1 << 20));
    let src = BlobSource::new(dir.path().to_path_buf(), fs, Some(cache.clone()), None, 10);
    for size in [0, 4096, 1 << 20] {
        let mut f = src.compaction_fetcher(size, true);
        let mut expect = 0;
        for ((k, v), i) in entries.iter().zip(&idx) {
            assert_eq!(&f.fetch(k, i).unwrap(), v);
            expect += i.record_size(k.len());
        }
        assert_eq!(f.bytes_read(), expect);
    }
    assert!(cache.is_empty());
}

#[test]
fn source_is_shared_across_threads() {
    fn shareable<T: Send + Sync>() {}
    shareable::<BlobSource>();
    shareable::<BlobCache>();
    shareable::<BlobFileReader>();
    let dir = tempfile::tempdir().unwrap();
    let fs: Arc<dyn FileSystem> = Arc::new(PosixFileSystem);
    type Entries = Vec<(Vec<u8>, Vec<u8>)>;
    let files: Vec<(u64, Entries)> = (1..=3u64)
        .map(|n| {
            let entries = (0..40u64)
                .map(|i| {
                    let v = if i % 2 == 0 {
                        compressible(100 + i as usize * 37, i as u8)
                    } else {
                        noise(50 + i as usize * 11, n * 1000 + i)
                    };
                    (format!("f{n}k{i}").into_bytes(), v)
                })
                .collect();
            (n, entries)
        })
        .collect();
    let indexes: Vec<Vec<BlobIndex>> = files
        .iter()
        .map(|(n, e)| write_file(&*fs, dir.path(), *n, e))
        .collect();
    // A cache smaller than the data and one open file: constant eviction.
    let cache = Arc::new(BlobCache::new(4096));
    let stats = Statistics::new();
    let src = BlobSource::new(
        dir.path().to_path_buf(),
        fs,
        Some(cache),
        Some(stats.clone()),
        1,
    );
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let (src, files, indexes) = (&src, &files, &indexes);
            s.spawn(move || {
                let mut x = t + 1;
                for _ in 0..500 {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let f = (x >> 33) as usize % files.len();
                    let i = (x >> 40) as usize % files[f].1.len();
                    let (k, v) = &files[f].1[i];
                    assert_eq!(&src.get(k, &indexes[f][i], true, true).unwrap(), v);
                }
            });
        }
    });
    let lookups = stats.ticker(Ticker::BlobDbCacheHit) + stats.ticker(Ticker::BlobDbCacheMiss);
    assert_eq!(lookups, 2000);
    assert!(src.open_files() <= 1);
}

mod prop {
    use super::*;
    use proptest::prelude::*;

    fn entries() -> impl Strategy<Value = Vec<(Vec<u8>, Vec<u8>)>> {
        proptest::collection::vec(
            (
                proptest::collection::vec(any::<u8>(), 0..20),
                prop_oneof![
                    proptest::collection::vec(any::<u8>(), 0..300),
                    (1usize..3000, any::<u8>()).prop_map(|(n, s)| compressible(n, s)),
                ],
            ),
            0..12,
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Arbitrary bytes never panic the reader.
        #[test]
        fn arbitrary_bytes_do_not_panic(data in proptest::collection::vec(any::<u8>(), 0..200)) {
            if let Ok(r) = open(&data) {
                let _ = r.iter(true).count();
                let _ = r.iter(false).count();
            }
            let _ = BlobIndex::decode(&data);
        }

        /// With several random bytes damaged, every read returns the right
        /// value or `Corruption`, and a full verification fails.
        #[test]
        fn damaged_files_never_yield_wrong_values(
            entries in entries(),
            codec in 0usize..4,
            flips in proptest::collection::vec((any::<usize>(), 1u8..=255), 1..4),
        ) {
            let c = CompressionType::ALL[codec];
            let w = write(c, &entries, None);
            let mut bad = w.data.clone();
            for (pos, x) in &flips {
                let n = bad.len();
                bad[pos % n] ^= x;
            }
            prop_assume!(bad != w.data);
            match open(&bad) {
                Err(e) => prop_assert!(e.is_corruption(), "{}", e),
                Ok(r) => {
                    for ((k, v), i) in entries.iter().zip(&w.indexes) {
                        match r.get(k, i, true) {
                            Ok(got) => prop_assert_eq!(&got, v),
                            Err(e) => prop_assert_eq!(corruption_of(&e).0, FILE),
                        }
                    }
                    prop_assert!(r.verify_checksums().is_err());
                }
            }
        }
    }
}
