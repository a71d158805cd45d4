//! Tables read through a memory map (`allow_mmap_reads`): uncompressed
//! blocks are read in place and the block cache keeps references to them,
//! compressed ones are decompressed out of the map, and damage is still
//! Corruption naming the file and the block's offset.

use std::sync::Arc;

use crate::iter::InternalIterator;
use crate::stats::{Statistics, Ticker};
use crate::types::{make_internal_key, ValueType};

use super::testutil::{build_table, noise, open_mapped_table};
use super::*;

type Entries = Vec<(Vec<u8>, Vec<u8>)>;

/// 2,000 keys with 100-byte incompressible values: about 50 data blocks.
fn entries() -> Entries {
    (0..2000u64)
        .map(|i| {
            let k = make_internal_key(format!("key{i:06}").as_bytes(), i + 1, ValueType::Value);
            (k, noise(100, i))
        })
        .collect()
}

fn opts(compression: CompressionType) -> TableOptions {
    TableOptions {
        compression,
        bloom_bits_per_key: 10.0,
        ..TableOptions::default()
    }
}

#[test]
fn mapped_tables_read_what_was_written_and_pin_values_in_the_map() {
    let e = entries();
    let dir = tempfile::tempdir().unwrap();
    for compression in [CompressionType::None, CompressionType::Snappy] {
        // Compressible values, so a Snappy table stores its blocks compressed.
        let e: Entries = e
            .iter()
            .map(|(k, v)| (k.clone(), [&v[..20], &[b'c'; 80]].concat()))
            .collect();
        let (data, _, _) = build_table(&opts(compression), &e);
        let (t, file) = open_mapped_table(dir.path(), &data, None, None).unwrap();
        let map = file.mapped().unwrap().as_ptr_range();
        let ro = ReadOpts::default();
        for (k, v) in &e {
            let (key, value) = t.get_pinned(k, &ro).unwrap().unwrap();
            assert_eq!((&key, &value[..]), (k, &v[..]));
            // In place exactly when the block is stored uncompressed.
            let in_map = map.contains(&value.as_ptr());
            assert_eq!(
                in_map,
                compression == CompressionType::None,
                "{compression}"
            );
        }
        let mut it = t.iter(ro);
        it.seek_to_first();
        let mut got = Vec::new();
        while it.valid() {
            got.push((it.key().to_vec(), it.value().to_vec()));
            it.next();
        }
        it.status().unwrap();
        assert_eq!(got, e, "{compression}");
        t.verify_checksums().unwrap();
    }
}

#[test]
fn the_block_cache_keeps_references_into_the_map_and_hits_skip_the_checksum() {
    let dir = tempfile::tempdir().unwrap();
    let e = entries();
    let cases = [
        (CompressionType::None, e.clone()),
        (
            CompressionType::Snappy,
            e.iter()
                .map(|(k, v)| (k.clone(), [&v[..20], &[b'c'; 80]].concat()))
                .collect(),
        ),
    ];
    for (compression, e) in cases {
        let (data, _, _) = build_table(&opts(compression), &e);
        let cache = Arc::new(BlockCache::new(1 << 20));
        let stats = Statistics::new();
        let (t, file) =
            open_mapped_table(dir.path(), &data, Some(cache.clone()), Some(stats.clone())).unwrap();
        let map = file.mapped().unwrap().as_ptr_range();
        // Opening checked the meta blocks' checksums.
        let at_open = stats.ticker(Ticker::BlockChecksumComputeCount);
        for round in 0..2 {
            for (k, v) in e.iter().step_by(7) {
                let (_, value) = t.get_pinned(k, &ReadOpts::default()).unwrap().unwrap();
                assert_eq!(&value[..], &v[..]);
                let in_map = map.contains(&value.as_ptr());
                assert_eq!(
                    in_map,
                    compression == CompressionType::None,
                    "{compression} round {round}: a cached block in place iff stored uncompressed"
                );
            }
        }
        let reads = stats.ticker(Ticker::NonLastLevelReadCount);
        let misses = stats.ticker(Ticker::BlockCacheMiss);
        let hits = stats.ticker(Ticker::BlockCacheHit);
        assert!(cache.usage() > 0, "{compression}: nothing cached");
        assert!(hits > misses && misses > 0, "hits {hits} misses {misses}");
        assert_eq!(reads, misses, "{compression}: only misses read the map");
        // The checksum is checked once per read from the map, not per hit.
        assert_eq!(
            stats.ticker(Ticker::BlockChecksumComputeCount) - at_open,
            misses,
            "{compression}"
        );
    }
}

/// Cached blocks read in place hold the file, so its map outlives the
/// table until the cache lets them go: erasing a deleted table's blocks
/// leaves the caller the last reference, so the unmap runs on the thread
/// that erased them (the purge, without the DB's lock), not on a reader's.
#[test]
fn erasing_a_tables_cached_blocks_releases_its_map() {
    let dir = tempfile::tempdir().unwrap();
    let e = entries();
    let (data, _, _) = build_table(&opts(CompressionType::None), &e);
    let cache = Arc::new(BlockCache::new(1 << 20));
    let (t, file) = open_mapped_table(dir.path(), &data, Some(cache.clone()), None).unwrap();
    for (k, _) in e.iter().step_by(50) {
        t.get_pinned(k, &ReadOpts::default()).unwrap().unwrap();
    }
    drop(t);
    assert!(
        Arc::strong_count(&file) > 1,
        "cached blocks should hold the file"
    );
    cache.erase_files(&[8, 9]);
    assert!(Arc::strong_count(&file) > 1, "other files' erase kept them");
    cache.erase_files(&[6, 7]);
    assert_eq!(Arc::strong_count(&file), 1);
    assert_eq!(cache.usage(), 0);
}

#[test]
fn a_damaged_mapped_block_is_corruption_naming_the_file_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let e = entries();
    let (data, _, _) = build_table(&opts(CompressionType::None), &e);
    let (t, _) = open_mapped_table(dir.path(), &data, None, None).unwrap();
    let (_, second) = t.index_entries().unwrap()[1].clone();
    drop(t);
    let mut bad = data.clone();
    bad[second.offset as usize + 10] ^= 0x40;
    let (t, _) = open_mapped_table(dir.path(), &bad, None, None).unwrap();
    let in_second = t
        .index_entries()
        .unwrap()
        .iter()
        .position(|(_, h)| *h == second)
        .unwrap();
    assert_eq!(in_second, 1);
    let mut it = t.iter(ReadOpts::default());
    it.seek_to_first();
    while it.valid() {
        it.next();
    }
    let err = it.status().unwrap_err();
    assert!(err.is_corruption(), "{err}");
    let msg = err.to_string();
    assert!(msg.contains("000007.sst"), "{msg}");
    assert!(msg.contains(&format!("offset {}", second.offset)), "{msg}");
    assert!(msg.contains("checksum"), "{msg}");
    // Without verification the damaged byte is read as it is (a value
    // byte here), as from a file.
    let mut quiet = t.iter(ReadOpts {
        verify_checksums: false,
        ..ReadOpts::default()
    });
    quiet.seek_to_first();
    let mut n = 0;
    while quiet.valid() {
        n += 1;
        quiet.next();
    }
    assert!(quiet.status().is_ok() || quiet.status().unwrap_err().is_corruption());
    assert!(n > 0);
}

#[test]
fn a_mapped_table_cut_short_is_corruption_at_open_or_read() {
    let dir = tempfile::tempdir().unwrap();
    let (data, _, _) = build_table(&opts(CompressionType::None), &entries());
    for len in [0, 1, 40, data.len() / 2, data.len() - 1] {
        match open_mapped_table(dir.path(), &data[..len], None, None) {
            Err(err) => {
                assert!(err.is_corruption(), "len {len}: {err}");
                assert!(err.to_string().contains("000007.sst"), "len {len}: {err}");
            }
            Ok((t, _)) => {
                let mut it = t.iter(ReadOpts::default());
                it.seek_to_first();
                while it.valid() {
                    it.next();
                }
                assert!(it.status().unwrap_err().is_corruption(), "len {len}");
            }
        }
    }
}
