//! Whole-table tests: round trips, iterator behaviour against a sorted-Vec
//! model, corruption handling, caches and filter tickers.

use std::cmp::Ordering;
use std::sync::atomic::Ordering as AtomicOrdering;
use std::sync::Arc;

use proptest::prelude::*;

use crate::iter::InternalIterator;
use crate::stats::{Statistics, Ticker};
use crate::types::{
    compare_internal_keys, make_internal_key, user_key, ValueType, MAX_SEQUENCE_NUMBER,
    VALUE_TYPE_FOR_SEEK,
};

use super::format::{Footer, BLOCK_TRAILER_SIZE, FOOTER_SIZE};
use super::testutil::{
    build_table, build_table_as, build_table_with_range_dels, noise, open_table,
};
use super::*;

type Entries = Vec<(Vec<u8>, Vec<u8>)>;

/// `n` user keys, some with several versions, some deleted; sorted.
fn model(n: usize) -> Entries {
    let mut v = Vec::new();
    for i in 0..n {
        let uk = format!("user{:07}", i * 3);
        let versions = 1 + i % 3;
        for j in 0..versions {
            let seq = 1000 + (versions - j) as u64 * 10 + i as u64;
            let t = if (i + j) % 11 == 0 {
                ValueType::Deletion
            } else {
                ValueType::Value
            };
            let value = if t == ValueType::Deletion {
                Vec::new()
            } else {
                format!("value-{i}-{j}-").repeat(1 + i % 5).into_bytes()
            };
            v.push((make_internal_key(uk.as_bytes(), seq, t), value));
        }
    }
    v.sort_by(|a, b| compare_internal_keys(&a.0, &b.0));
    v
}

fn collect_forward(it: &mut TableIterator) -> Entries {
    let mut out = Vec::new();
    it.seek_to_first();
    while it.valid() {
        out.push((it.key().to_vec(), it.value().to_vec()));
        it.next();
    }
    out
}

fn lookup(uk: &[u8]) -> Vec<u8> {
    make_internal_key(uk, MAX_SEQUENCE_NUMBER, VALUE_TYPE_FOR_SEEK)
}

#[test]
fn round_trip_every_codec_with_and_without_filter() {
    let entries = model(3000);
    for compression in CompressionType::ALL {
        for bits in [0.0, 10.0] {
            let opts = TableOptions {
                compression,
                bloom_bits_per_key: bits,
                ..TableOptions::default()
            };
            let (data, info, syncs) = build_table(&opts, &entries);
            assert_eq!(syncs, 1, "finish must sync");
            assert_eq!(info.file_size, data.len() as u64);
            assert_eq!(info.num_entries, entries.len() as u64);
            assert_eq!(info.smallest_key, entries[0].0);
            assert_eq!(info.largest_key, entries[entries.len() - 1].0);
            let dels = entries
                .iter()
                .filter(|e| {
                    crate::types::parse_internal_key(&e.0).unwrap().value_type
                        == ValueType::Deletion
                })
                .count() as u64;
            assert_eq!(info.num_deletions, dels);
            assert!(info.smallest_seq >= 1000 && info.largest_seq > info.smallest_seq);

            let (t, _) = open_table(data, None, None).unwrap();
            let p = t.properties();
            assert_eq!(p, &info.properties);
            assert_eq!(p.num_entries, entries.len() as u64);
            assert_eq!(p.compression_name, compression.name());
            assert!(p.num_data_blocks > 10);
            assert_eq!(t.has_filter(), bits > 0.0);
            assert_eq!(p.filter_size > 0, bits > 0.0);
            if compression != CompressionType::None {
                assert!(
                    p.data_size < p.raw_key_size + p.raw_value_size,
                    "{compression}: no gain"
                );
            }

            let mut it = t.iter(ReadOpts::default());
            assert_eq!(collect_forward(&mut it), entries, "{compression} {bits}");
            assert!(it.status().is_ok());
            it.seek_to_last();
            for e in entries.iter().rev() {
                assert!(it.valid());
                assert_eq!(it.key(), &e.0[..]);
                it.prev();
            }
            assert!(!it.valid());

            let ro = ReadOpts::default();
            for (i, e) in entries.iter().enumerate() {
                // Lookup at the entry's own key finds exactly it.
                let got = t.get(&e.0, &ro).unwrap().unwrap();
                assert_eq!((&got.0, &got.1), (&e.0, &e.1));
                // Lookup at the newest possible sequence finds the newest version.
                if i == 0 || user_key(&entries[i - 1].0) != user_key(&e.0) {
                    let got = t.get(&lookup(user_key(&e.0)), &ro).unwrap().unwrap();
                    assert_eq!(got.0, e.0);
                }
            }
            // Absent keys (between and around the present ones).
            for i in 0..1000 {
                let uk = format!("user{:07}", i * 3 + 1);
                assert_eq!(t.get(&lookup(uk.as_bytes()), &ro).unwrap(), None);
            }
            assert_eq!(t.get(&lookup(b"zzz"), &ro).unwrap(), None);
            assert_eq!(t.get(&lookup(b"a"), &ro).unwrap(), None);
            // A lookup below the oldest version of a key finds nothing.
            let old = make_internal_key(user_key(&entries[0].0), 1, ValueType::Value);
            assert_eq!(t.get(&old, &ro).unwrap(), None);
            t.verify_checksums().unwrap();
        }
    }
}

#[test]
fn empty_table_round_trips() {
    let (data, info, _) = build_table(&TableOptions::default(), &[]);
    assert_eq!(info.num_entries, 0);
    assert!(info.smallest_key.is_empty());
    let (t, _) = open_table(data, None, None).unwrap();
    let mut it = t.iter(ReadOpts::default());
    it.seek_to_first();
    assert!(!it.valid());
    it.seek_to_last();
    assert!(!it.valid());
    it.seek_for_prev(&lookup(b"k"));
    assert!(!it.valid());
    assert!(it.status().is_ok());
    assert_eq!(t.get(&lookup(b"k"), &ReadOpts::default()).unwrap(), None);
}

#[test]
fn approximate_offsets_grow_with_the_key() {
    let entries = model(2000);
    let (data, info, _) = build_table(&TableOptions::default(), &entries);
    let (t, _) = open_table(data, None, None).unwrap();
    assert_eq!(t.approximate_offset_of(&entries[0].0), 0);
    let mut last = 0;
    for e in entries.iter().step_by(50) {
        let o = t.approximate_offset_of(&e.0);
        assert!(o >= last);
        last = o;
    }
    let end = t.approximate_offset_of(&lookup(b"zzzz"));
    assert!(end > last && end <= info.file_size);
    assert!(end >= info.properties.data_size);
}

#[test]
fn block_cache_counts_hits_and_misses() {
    let entries = model(2000);
    let (data, info, _) = build_table(&TableOptions::default(), &entries);
    let blocks = info.properties.num_data_blocks;
    let cache = Arc::new(BlockCache::new(64 << 20));
    let stats = Statistics::new();
    let (t, file) = open_table(data, Some(cache.clone()), Some(stats.clone())).unwrap();
    let reads_after_open = file.reads.load(AtomicOrdering::Relaxed);

    // fill_cache = false: every block is a miss and nothing is cached.
    let mut it = t.iter(ReadOpts {
        verify_checksums: true,
        fill_cache: false,
        for_compaction: false,
        last_level: false,
        readahead: Readahead::Off,
    });
    assert_eq!(collect_forward(&mut it).len(), entries.len());
    assert_eq!(stats.ticker(Ticker::BlockCacheMiss), blocks);
    assert_eq!(stats.ticker(Ticker::BlockCacheDataMiss), blocks);
    assert_eq!(stats.ticker(Ticker::BlockCacheHit), 0);
    assert_eq!(stats.ticker(Ticker::BlockCacheAdd), 0);
    assert_eq!(stats.ticker(Ticker::BlockCacheBytesWrite), 0);
    assert_eq!(cache.usage(), 0);

    let mut it = t.iter(ReadOpts::default());
    collect_forward(&mut it);
    assert_eq!(stats.ticker(Ticker::BlockCacheMiss), 2 * blocks);
    assert_eq!(stats.ticker(Ticker::BlockCacheDataMiss), 2 * blocks);
    assert!(cache.usage() > 0);
    // Every miss of the filling pass inserted its block, charged by size.
    assert_eq!(stats.ticker(Ticker::BlockCacheAdd), blocks);
    assert_eq!(stats.ticker(Ticker::BlockCacheDataAdd), blocks);
    assert_eq!(stats.ticker(Ticker::BlockCacheAddRedundant), 0);
    assert_eq!(
        stats.ticker(Ticker::BlockCacheDataBytesInsert),
        cache.usage() as u64
    );
    assert_eq!(
        stats.ticker(Ticker::BlockCacheBytesWrite),
        cache.usage() as u64
    );
    let reads = file.reads.load(AtomicOrdering::Relaxed);
    assert_eq!(reads - reads_after_open, 2 * blocks);

    let mut it = t.iter(ReadOpts::default());
    collect_forward(&mut it);
    assert_eq!(stats.ticker(Ticker::BlockCacheHit), blocks);
    assert_eq!(stats.ticker(Ticker::BlockCacheDataHit), blocks);
    assert_eq!(
        stats.ticker(Ticker::BlockCacheBytesRead),
        cache.usage() as u64,
        "a pass served from the cache reads each cached block's bytes once"
    );
    assert_eq!(
        file.reads.load(AtomicOrdering::Relaxed),
        reads,
        "second pass must not read the file"
    );

    let before = stats.ticker(Ticker::BlockCacheHit);
    t.get(&entries[10].0, &ReadOpts::default())
        .unwrap()
        .unwrap();
    assert_eq!(stats.ticker(Ticker::BlockCacheHit), before + 1);

    // A tiny cache cannot hold the table, so a rescan misses again.
    let small = Arc::new(BlockCache::new(4096));
    let stats2 = Statistics::new();
    let (data, _, _) = build_table(&TableOptions::default(), &entries);
    let (t2, _) = open_table(data, Some(small.clone()), Some(stats2.clone())).unwrap();
    collect_forward(&mut t2.iter(ReadOpts::default()));
    collect_forward(&mut t2.iter(ReadOpts::default()));
    assert!(stats2.ticker(Ticker::BlockCacheMiss) > blocks + blocks / 2);
    assert!(small.usage() <= 4096 + 16 * 4096);
}

/// Compaction read-ahead: iterating through a window gives the same
/// entries with far fewer file reads than one per block.
#[test]
fn readahead_iteration_reads_the_same_entries_in_fewer_reads() {
    let entries = model(2000);
    let (data, info, _) = build_table(&TableOptions::default(), &entries);
    let blocks = info.properties.num_data_blocks;
    let (t, file) = open_table(data, None, None).unwrap();
    let before = file.reads.load(AtomicOrdering::Relaxed);
    let plain = collect_forward(&mut t.iter(ReadOpts::default()));
    let per_block = file.reads.load(AtomicOrdering::Relaxed) - before;
    assert_eq!(per_block, blocks);
    // A window that is not a multiple of the block size.
    let opts = ReadOpts {
        readahead: Readahead::Fixed(20_000),
        ..ReadOpts::default()
    };
    let before = file.reads.load(AtomicOrdering::Relaxed);
    assert_eq!(collect_forward(&mut t.iter(opts)), plain);
    let windowed = file.reads.load(AtomicOrdering::Relaxed) - before;
    println!("{blocks} blocks: {windowed} reads through a 20 KB window");
    assert!(
        windowed * 3 < blocks,
        "{windowed} reads for {blocks} blocks"
    );
    assert_eq!(plain, entries);
}

/// Distinct user keys in every block: the index stores user-key
/// separators (RocksDB's `index_key_is_user_key`), 8 bytes shorter each,
/// and lookups, scans and seeks in both directions still find every entry.
#[test]
fn user_key_index_when_no_user_key_spans_blocks() {
    // One version per user key, as a flush or compaction writes most keys.
    let mut entries = model(2000);
    entries.dedup_by(|b, a| user_key(&a.0) == user_key(&b.0));
    let (data, info, _) = build_table(&TableOptions::default(), &entries);
    assert!(info.properties.index_key_is_user_key);
    let blocks = info.properties.num_data_blocks;
    assert!(blocks > 10);
    let (t, _) = open_table(data, None, None).unwrap();
    for (k, v) in entries.iter().step_by(7) {
        let (got_k, got_v) = t.get(k, &ReadOpts::default()).unwrap().unwrap();
        assert_eq!((&got_k, &got_v), (k, v));
    }
    assert!(t
        .get(&lookup(b"zzzz"), &ReadOpts::default())
        .unwrap()
        .is_none());
    let mut it = t.iter(ReadOpts::default());
    assert_eq!(collect_forward(&mut it).len(), entries.len());
    for (k, _) in entries.iter().step_by(13) {
        it.seek(k);
        assert!(it.valid());
        assert_eq!(it.key(), &k[..]);
        it.seek_for_prev(k);
        assert!(it.valid());
        assert_eq!(it.key(), &k[..]);
    }
    // Index entries come back as internal keys at or above each block's keys.
    let idx = t.index_entries().unwrap();
    assert_eq!(idx.len() as u64, blocks);
    t.verify_checksums().unwrap();
    // The same table with internal-key separators would need 8 more
    // bytes per entry.
    assert!(
        info.properties.index_size < blocks * 30,
        "{}",
        info.properties.index_size
    );
}

/// Ten 1,500-byte versions of user key `k` between `a` and `z`, and
/// uncompressed table options, so that `k` spans several data blocks.
fn spanning_versions() -> (Entries, TableOptions) {
    let big = vec![b'x'; 1500];
    let mut entries = vec![(make_internal_key(b"a", 1, ValueType::Value), b"a".to_vec())];
    for seq in (10..20u64).rev() {
        entries.push((make_internal_key(b"k", seq, ValueType::Value), big.clone()));
    }
    entries.push((make_internal_key(b"z", 1, ValueType::Value), b"z".to_vec()));
    let none = TableOptions {
        compression: CompressionType::None,
        ..TableOptions::default()
    };
    (entries, none)
}

/// One user key's versions spanning a block boundary: no user-key
/// separator can split them, so the table keeps internal-key separators,
/// and every version stays reachable by its sequence number.
#[test]
fn internal_key_index_when_a_user_key_spans_blocks() {
    let (entries, none) = spanning_versions();
    let (data, info, _) = build_table(&none, &entries);
    assert!(info.properties.num_data_blocks > 2);
    assert!(!info.properties.index_key_is_user_key);
    let (t, _) = open_table(data, None, None).unwrap();
    for seq in 10..20u64 {
        let (k, _) = t
            .get(
                &make_internal_key(b"k", seq, VALUE_TYPE_FOR_SEEK),
                &ReadOpts::default(),
            )
            .unwrap()
            .unwrap();
        assert_eq!(k, make_internal_key(b"k", seq, ValueType::Value));
    }
    assert_eq!(
        collect_forward(&mut t.iter(ReadOpts::default())).len(),
        entries.len()
    );
    t.verify_checksums().unwrap();
}

fn footer_version(data: &[u8]) -> u32 {
    let at = data.len() - FOOTER_SIZE;
    Footer::decode(&data[at..], "t", at as u64)
        .unwrap()
        .format_version
}

/// Format version 3 drops the index entries' value length (RocksDB's
/// format_version 4 and later do too): one byte less per data block, for
/// both key forms of the index. Tables of versions 1 and 2, with the
/// length, still read the same.
#[test]
fn index_without_value_lengths_and_old_versions_still_read() {
    let mut distinct = model(2000);
    distinct.dedup_by(|b, a| user_key(&a.0) == user_key(&b.0));
    let (spanning, none) = spanning_versions();
    for (entries, opts, user_keys, old_version) in [
        (&distinct, TableOptions::default(), true, 2),
        (&spanning, none, false, 1),
    ] {
        let (new, new_info, _) = build_table_as(&opts, entries, false);
        let (old, old_info, _) = build_table_as(&opts, entries, true);
        assert_eq!(footer_version(&new), format::INDEX_WITHOUT_VALUE_LENGTH);
        assert_eq!(footer_version(&old), old_version);
        assert_eq!(new_info.properties.index_key_is_user_key, user_keys);
        assert_eq!(old_info.properties.index_key_is_user_key, user_keys);
        let blocks = new_info.properties.num_data_blocks;
        assert_eq!(
            old_info.properties.index_size - new_info.properties.index_size,
            blocks,
            "one length byte per index entry"
        );
        for data in [new, old] {
            let (t, _) = open_table(data, None, None).unwrap();
            assert_eq!(&collect_forward(&mut t.iter(ReadOpts::default())), entries);
            for (k, v) in entries.iter().step_by(5) {
                let (got_k, got_v) = t.get(k, &ReadOpts::default()).unwrap().unwrap();
                assert_eq!((&got_k, &got_v), (k, v));
            }
            let mut it = t.iter(ReadOpts::default());
            for (k, _) in entries.iter().step_by(11) {
                it.seek_for_prev(k);
                assert_eq!(it.key(), &k[..]);
            }
            assert_eq!(t.index_entries().unwrap().len() as u64, blocks);
            t.verify_checksums().unwrap();
        }
    }
}

/// Small values, so that a data block holds several restart intervals,
/// and user keys with several versions, some spanning a block boundary.
fn many_small_versions() -> Entries {
    let mut v = model(3000);
    for seq in (10..60u64).rev() {
        v.push((
            make_internal_key(b"user0000300x", seq, ValueType::Value),
            format!("spanning-{seq}").into_bytes(),
        ));
    }
    v.sort_by(|a, b| compare_internal_keys(&a.0, &b.0));
    v
}

/// A table whose data blocks carry a hash index (RocksDB's
/// `kDataBlockBinaryAndHash`) answers every Get as binary search does:
/// present keys at every sequence number, keys between them, keys past
/// either end; it iterates the same entries, and says version 4.
#[test]
fn hash_indexed_blocks_answer_gets_as_binary_search_does() {
    let entries = many_small_versions();
    for ratio in [0.75, 0.1, 4.0] {
        let plain = TableOptions {
            block_size: 1024,
            block_restart_interval: 4,
            ..TableOptions::default()
        };
        let hashed = TableOptions {
            data_block_hash_util_ratio: Some(ratio),
            ..plain.clone()
        };
        let (a, a_info, _) = build_table(&plain, &entries);
        let (b, b_info, _) = build_table(&hashed, &entries);
        assert_eq!(footer_version(&a), format::INDEX_WITHOUT_VALUE_LENGTH);
        assert_eq!(footer_version(&b), format::DATA_BLOCK_HASH_INDEX);
        assert!(
            b_info.properties.data_size > a_info.properties.data_size,
            "the buckets take room"
        );
        let (ta, _) = open_table(a, None, None).unwrap();
        let (tb, _) = open_table(b, None, None).unwrap();
        let ro = ReadOpts::default();
        let mut probes: Vec<Vec<u8>> = Vec::new();
        for (k, _) in entries.iter().step_by(3) {
            let uk = user_key(k);
            let seq = crate::types::parse_internal_key(k).unwrap().seq;
            probes.push(lookup(uk));
            probes.push(make_internal_key(uk, seq, VALUE_TYPE_FOR_SEEK));
            probes.push(make_internal_key(
                uk,
                seq.saturating_sub(1),
                VALUE_TYPE_FOR_SEEK,
            ));
            let mut next = uk.to_vec();
            next.push(b'0');
            probes.push(lookup(&next));
        }
        probes.push(lookup(b""));
        probes.push(lookup(b"zzzz"));
        let mut found = 0;
        for p in &probes {
            let (x, y) = (ta.get(p, &ro).unwrap(), tb.get(p, &ro).unwrap());
            found += usize::from(x.is_some());
            assert_eq!(x, y, "ratio {ratio}, lookup {p:?}");
        }
        assert!(found > probes.len() / 3, "{found} of {}", probes.len());
        assert_eq!(
            collect_forward(&mut tb.iter(ro)),
            entries,
            "ratio {ratio}: iteration"
        );
        tb.verify_checksums().unwrap();
    }
}

/// The hash index reads from a mapped file and through the block cache
/// as from `pread`.
#[test]
fn hash_indexed_blocks_read_mapped_and_cached() {
    let entries = many_small_versions();
    let opts = TableOptions {
        block_size: 1024,
        data_block_hash_util_ratio: Some(0.75),
        compression: CompressionType::None,
        ..TableOptions::default()
    };
    let (data, _, _) = build_table(&opts, &entries);
    let dir = tempfile::tempdir().unwrap();
    let cache = Arc::new(BlockCache::new(1 << 20));
    let (t, _) = super::testutil::open_mapped_table(dir.path(), &data, Some(cache), None).unwrap();
    for _ in 0..2 {
        for (k, v) in entries.iter().step_by(5) {
            let got = t.get(k, &ReadOpts::default()).unwrap().unwrap();
            assert_eq!((&got.0, &got.1), (k, v));
        }
    }
}

/// Only format version 4 may have hash-indexed data blocks: in a table
/// that says version 3 one is Corruption naming the file and the block.
#[test]
fn a_hash_indexed_block_in_a_version_3_table_is_corruption() {
    let entries = model(40);
    let mut bb = block_builder::BlockBuilder::with_hash_index(16, 0.75);
    for (k, v) in &entries {
        bb.add(k, v);
    }
    let raw = bb.finish().to_vec();
    for (version, ok) in [
        (format::INDEX_WITHOUT_VALUE_LENGTH, false),
        (format::DATA_BLOCK_HASH_INDEX, true),
    ] {
        let f = table_around_block(&raw, entries.len(), version);
        let (t, _) = open_table(f, None, None).unwrap();
        match t.get(&entries[3].0, &ReadOpts::default()) {
            Ok(got) => {
                assert!(ok, "version {version} read a hash-indexed block");
                assert_eq!(got.unwrap().0, entries[3].0);
            }
            Err(e) => {
                assert!(!ok, "version {version}: {e}");
                assert!(e.is_corruption(), "{e}");
                assert!(e.to_string().contains("test.sst at offset 0"), "{e}");
                assert!(e.to_string().contains("hash index"), "{e}");
            }
        }
    }
}

#[test]
fn block_reads_count_checksums_and_decompressions() {
    let entries = model(2000);
    for (ctype, compressed) in [(CompressionType::None, false), (CompressionType::Lz4, true)] {
        let opts = TableOptions {
            compression: ctype,
            ..TableOptions::default()
        };
        let (data, info, _) = build_table(&opts, &entries);
        let blocks = info.properties.num_data_blocks;
        let stats = Statistics::new();
        let (t, _) = open_table(data, None, Some(stats.clone())).unwrap();
        // Opening checks the metaindex, properties and index blocks.
        let at_open = stats.ticker(Ticker::BlockChecksumComputeCount);
        assert_eq!(at_open, 3, "{ctype:?}");
        collect_forward(&mut t.iter(ReadOpts::default()));
        assert_eq!(
            stats.ticker(Ticker::BlockChecksumComputeCount),
            at_open + blocks
        );
        let unchecked = ReadOpts {
            verify_checksums: false,
            fill_cache: true,
            for_compaction: false,
            last_level: false,
            readahead: Readahead::Off,
        };
        collect_forward(&mut t.iter(unchecked));
        assert_eq!(
            stats.ticker(Ticker::BlockChecksumComputeCount),
            at_open + blocks,
            "verify_checksums=false computes no checksum"
        );
        // Two full scans of the data blocks, plus the index at open.
        let want = if compressed { 2 * blocks + 1 } else { 0 };
        assert_eq!(
            stats.ticker(Ticker::NumberBlockDecompressed),
            want,
            "{ctype:?}"
        );
    }
}

#[test]
fn builder_counts_compressed_and_rejected_blocks() {
    let entries = model(2000);
    let lz4 = TableOptions {
        compression: CompressionType::Lz4,
        ..TableOptions::default()
    };
    let (_, info, _) = build_table(&lz4, &entries);
    assert!(info.blocks_compressed > 0);
    // Every data block and the index block went through the codec.
    assert_eq!(
        info.blocks_compressed + info.blocks_not_compressed,
        info.properties.num_data_blocks + 1
    );
    let lz4_data_only = TableOptions {
        enable_index_compression: false,
        ..lz4.clone()
    };
    let (_, info, _) = build_table(&lz4_data_only, &entries);
    assert_eq!(
        info.blocks_compressed + info.blocks_not_compressed,
        info.properties.num_data_blocks
    );
    let none = TableOptions {
        compression: CompressionType::None,
        ..TableOptions::default()
    };
    let (_, info, _) = build_table(&none, &entries);
    assert_eq!((info.blocks_compressed, info.blocks_not_compressed), (0, 0));
    // Values of random bytes do not compress: every block is stored raw.
    let random: Vec<(Vec<u8>, Vec<u8>)> = noise(200 * 512, 0x9e37_79b9_7f4a_7c15)
        .chunks(512)
        .enumerate()
        .map(|(i, v)| {
            (
                make_internal_key(format!("k{i:05}").as_bytes(), 1, ValueType::Value),
                v.to_vec(),
            )
        })
        .collect();
    let (_, info, _) = build_table(&lz4, &random);
    // The data blocks do not compress; the index (short keys) does.
    assert_eq!(info.blocks_compressed, 1);
    assert_eq!(info.blocks_not_compressed, info.properties.num_data_blocks);
}

/// `enable_index_compression` stores the index block with the data codec
/// (RocksDB's default), and `false` keeps it raw; both read back alike, and
/// `rocksdb.index.size` is the uncompressed size either way, as RocksDB
/// reports it.
#[test]
fn index_block_takes_the_data_codec_unless_disabled() {
    let entries = model(3000);
    let mut sizes = Vec::new();
    for (ctype, on) in [
        (CompressionType::Snappy, true),
        (CompressionType::Snappy, false),
        (CompressionType::Lz4, true),
        (CompressionType::Zstd, true),
        (CompressionType::None, true),
    ] {
        let opts = TableOptions {
            compression: ctype,
            enable_index_compression: on,
            ..TableOptions::default()
        };
        let (data, info, _) = build_table(&opts, &entries);
        let footer = Footer::decode(
            &data[data.len() - FOOTER_SIZE..],
            "t",
            (data.len() - FOOTER_SIZE) as u64,
        )
        .unwrap();
        let h = footer.index;
        let type_byte = data[(h.offset + h.size) as usize];
        let want = if on { ctype as u8 } else { 0 };
        assert_eq!(type_byte, want, "{ctype:?} index compression {on}");
        // index.size is the uncompressed block with its trailer.
        let stored = h.size + BLOCK_TRAILER_SIZE as u64;
        if on && ctype != CompressionType::None {
            assert!(stored < info.properties.index_size, "{ctype:?}");
        } else {
            assert_eq!(stored, info.properties.index_size, "{ctype:?} {on}");
        }
        let (t, _) = open_table(data.clone(), None, None).unwrap();
        assert_eq!(
            collect_forward(&mut t.iter(ReadOpts::default())),
            entries,
            "{ctype:?} {on}"
        );
        t.verify_checksums().unwrap();
        sizes.push((ctype, on, data.len()));
    }
    assert!(
        sizes[0].2 < sizes[1].2,
        "a compressed index is smaller: {sizes:?}"
    );
}

#[test]
fn bloom_filter_tickers() {
    let entries = model(2000);
    let opts = TableOptions {
        bloom_bits_per_key: 10.0,
        ..TableOptions::default()
    };
    let (data, _, _) = build_table(&opts, &entries);
    let stats = Statistics::new();
    let (t, _) = open_table(data, None, Some(stats.clone())).unwrap();
    let ro = ReadOpts::default();
    for i in 0..1000 {
        let uk = format!("absent{i:05}");
        assert!(t.get(&lookup(uk.as_bytes()), &ro).unwrap().is_none());
    }
    let useful = stats.ticker(Ticker::BloomFilterUseful);
    let positive = stats.ticker(Ticker::BloomFilterFullPositive);
    assert_eq!(useful + positive, 1000);
    assert!(useful >= 950, "useful {useful}");
    assert_eq!(stats.ticker(Ticker::BloomFilterFullTruePositive), 0);
    for e in entries.iter().take(100) {
        t.get(&e.0, &ro).unwrap().unwrap();
        assert!(t.may_contain(user_key(&e.0)));
    }
    assert_eq!(
        stats.ticker(Ticker::BloomFilterFullPositive),
        positive + 100
    );
    assert_eq!(stats.ticker(Ticker::BloomFilterFullTruePositive), 100);
}

/// Every byte of the file is under some checksum: flipping any one makes
/// open fail or makes a verified scan fail; point reads never return a
/// wrong value.
#[test]
fn flipped_bytes_are_detected() {
    for hash in [None, Some(0.75)] {
        flipped_bytes_are_detected_in(hash);
    }
}

fn flipped_bytes_are_detected_in(data_block_hash_util_ratio: Option<f64>) {
    let entries = model(120);
    let opts = TableOptions {
        block_size: 300,
        block_restart_interval: 4,
        bloom_bits_per_key: 10.0,
        data_block_hash_util_ratio,
        ..TableOptions::default()
    };
    let (data, info, _) = build_table(&opts, &entries);
    let ro = ReadOpts::default();
    for pos in (0..data.len())
        .step_by(3)
        .chain(data.len() - 60..data.len())
    {
        for flip in [0x01u8, 0x80] {
            let mut bad = data.clone();
            bad[pos] ^= flip;
            let t = match open_table(bad, None, None) {
                Err(e) => {
                    assert!(e.is_corruption(), "pos {pos}: {e}");
                    assert!(e.to_string().contains("test.sst"), "{e}");
                    continue;
                }
                Ok((t, _)) => t,
            };
            assert!(
                pos < info.properties.data_size as usize,
                "pos {pos}: damage outside data blocks went unnoticed"
            );
            let mut it = t.iter(ro);
            let seen = collect_forward(&mut it);
            let err = it
                .status()
                .expect_err("a verified scan must notice the damage");
            assert!(err.is_corruption());
            assert_eq!(
                &entries[..seen.len()],
                &seen[..],
                "pos {pos}: wrong entries before the error"
            );
            assert!(t.verify_checksums().is_err());
            for e in entries.iter().step_by(7) {
                match t.get(&e.0, &ro) {
                    Ok(Some(got)) => assert_eq!((&got.0, &got.1), (&e.0, &e.1), "pos {pos}"),
                    Ok(None) => panic!("pos {pos}: present key reported absent"),
                    Err(err) => assert!(err.is_corruption()),
                }
            }
        }
    }
}

#[test]
fn checksum_error_names_file_and_block_offset() {
    let entries = model(200);
    let (mut data, info, _) = build_table(
        &TableOptions {
            block_size: 512,
            ..TableOptions::default()
        },
        &entries,
    );
    let (t, _) = open_table(data.clone(), None, None).unwrap();
    let second = t.index_entries().unwrap()[1].1;
    data[second.offset as usize + 3] ^= 0x20;
    let (t, _) = open_table(data.clone(), None, None).unwrap();
    let err = t.verify_checksums().unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains(&format!("test.sst at offset {}", second.offset)),
        "{msg}"
    );
    assert!(msg.contains("checksum"), "{msg}");
    // Without verification the damage may go unnoticed, but must not panic.
    let mut it = t.iter(ReadOpts {
        verify_checksums: false,
        fill_cache: false,
        for_compaction: false,
        last_level: false,
        readahead: Readahead::Off,
    });
    let _ = collect_forward(&mut it);
    assert!(info.file_size > 0);
}

#[test]
fn truncated_files_are_corruption() {
    let entries = model(100);
    let (data, _, _) = build_table(&TableOptions::default(), &entries);
    for len in (0..data.len()).step_by(5).chain([data.len() - 1]) {
        let err = open_table(data[..len].to_vec(), None, None).unwrap_err();
        assert!(err.is_corruption(), "len {len}: {err}");
    }
    // Garbage appended after a valid table is not a valid table either.
    let mut longer = data.clone();
    longer.extend_from_slice(&[0u8; 10]);
    assert!(open_table(longer, None, None).unwrap_err().is_corruption());
}

#[test]
fn table_cache_opens_bounds_and_evicts() {
    let dir = tempfile::tempdir().unwrap();
    let fs = crate::fs::default_fs();
    let entries = model(100);
    for n in 1..=3u64 {
        let path = crate::filename::table_file_name(dir.path(), n);
        let mut b = TableBuilder::new(
            &TableOptions::default(),
            fs.create(&path).unwrap(),
            path.display().to_string(),
        );
        for (k, v) in &entries {
            b.add(k, v).unwrap();
        }
        b.finish().unwrap();
    }
    let tc = TableCache::new(dir.path().to_path_buf(), fs.clone(), 2, None, None);
    let a = tc.get(1).unwrap();
    assert!(Arc::ptr_eq(&a, &tc.get(1).unwrap()));
    tc.get(2).unwrap();
    tc.get(3).unwrap();
    assert_eq!(tc.len(), 2);
    assert!(
        !Arc::ptr_eq(&a, &tc.get(1).unwrap()),
        "table 1 should have been evicted"
    );
    let t3 = tc.get(3).unwrap();
    assert_eq!(
        t3.get(&entries[5].0, &ReadOpts::default())
            .unwrap()
            .unwrap()
            .1,
        entries[5].1
    );
    tc.forget(&[3]);
    assert!(!Arc::ptr_eq(&t3, &tc.get(3).unwrap()));
    assert!(tc.get(99).is_err());
    let unbounded = TableCache::new(dir.path().to_path_buf(), fs, usize::MAX, None, None);
    for n in 1..=3 {
        unbounded.get(n).unwrap();
    }
    assert_eq!(unbounded.len(), 3);
}

/// One step of the iterator model test.
#[derive(Debug, Clone)]
enum Op {
    First,
    Last,
    Seek(Vec<u8>),
    SeekForPrev(Vec<u8>),
    Next,
    Prev,
}

fn arb_ikey() -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(prop::sample::select(vec![b'a', b'b', b'c', 0xff, 0]), 0..5),
        0u64..20,
        prop::sample::select(vec![ValueType::Value, ValueType::Deletion]),
    )
        .prop_map(|(uk, seq, t)| make_internal_key(&uk, seq, t))
}

fn arb_op() -> impl Strategy<Value = Op> {
    prop_oneof![
        Just(Op::First),
        Just(Op::Last),
        arb_ikey().prop_map(Op::Seek),
        arb_ikey().prop_map(Op::SeekForPrev),
        Just(Op::Next),
        Just(Op::Next),
        Just(Op::Prev),
        Just(Op::Prev),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn iterator_matches_sorted_vec_model(
        keys in prop::collection::vec(arb_ikey(), 0..120),
        ops in prop::collection::vec(arb_op(), 1..60),
        block_size in 32usize..400,
        restart in 1usize..6,
        codec in prop::sample::select(CompressionType::ALL.to_vec()),
        bloom_bits in prop::sample::select(vec![0.0, 1.0, 10.0]),
        index_compression in any::<bool>(),
        hash_ratio in prop::sample::select(vec![None, Some(0.75), Some(0.1), Some(4.0)]),
        lookups in prop::collection::vec(arb_ikey(), 0..40),
    ) {
        let mut keys = keys;
        keys.sort_by(|a, b| compare_internal_keys(a, b));
        keys.dedup_by(|a, b| compare_internal_keys(a, b) == Ordering::Equal);
        let entries: Entries = keys.iter().enumerate().map(|(i, k)| (k.clone(), format!("v{i}").into_bytes())).collect();
        let opts = TableOptions { block_size, block_restart_interval: restart, compression: codec, enable_index_compression: index_compression, bloom_bits_per_key: bloom_bits, data_block_hash_util_ratio: hash_ratio };
        let (data, _, _) = build_table(&opts, &entries);
        let (t, _) = open_table(data, None, None).unwrap();
        let mut it = t.iter(ReadOpts::default());
        // Model position: index into entries, or None when not valid.
        let mut pos: Option<usize> = None;
        for op in ops {
            match &op {
                Op::First => { it.seek_to_first(); pos = if entries.is_empty() { None } else { Some(0) }; }
                Op::Last => { it.seek_to_last(); pos = entries.len().checked_sub(1); }
                Op::Seek(k) => {
                    it.seek(k);
                    let i = entries.partition_point(|e| compare_internal_keys(&e.0, k) == Ordering::Less);
                    pos = (i < entries.len()).then_some(i);
                }
                Op::SeekForPrev(k) => {
                    it.seek_for_prev(k);
                    let i = entries.partition_point(|e| compare_internal_keys(&e.0, k) != Ordering::Greater);
                    pos = i.checked_sub(1);
                }
                Op::Next => {
                    if pos.is_none() { continue; }
                    it.next();
                    pos = pos.and_then(|p| (p + 1 < entries.len()).then_some(p + 1));
                }
                Op::Prev => {
                    if pos.is_none() { continue; }
                    it.prev();
                    pos = pos.and_then(|p| p.checked_sub(1));
                }
            }
            prop_assert!(it.status().is_ok());
            match pos {
                None => prop_assert!(!it.valid(), "{:?}: iterator valid, model not", op),
                Some(p) => {
                    prop_assert!(it.valid(), "{:?}: iterator not valid, model at {}", op, p);
                    prop_assert_eq!(it.key(), &entries[p].0[..]);
                    prop_assert_eq!(it.value(), &entries[p].1[..]);
                }
            }
        }
        // Point lookups agree with the model too: the first entry >= the
        // lookup key, if it has the lookup's user key.
        let newest = entries
            .iter()
            .map(|e| make_internal_key(user_key(&e.0), MAX_SEQUENCE_NUMBER, VALUE_TYPE_FOR_SEEK));
        for lk in newest.chain(lookups) {
            let got = t.get(&lk, &ReadOpts::default()).unwrap();
            let i = entries.partition_point(|x| compare_internal_keys(&x.0, &lk) == Ordering::Less);
            let want = entries.get(i).filter(|e| user_key(&e.0) == user_key(&lk)).cloned();
            prop_assert_eq!(got, want);
        }
    }
}

/// A table file assembled by hand around one data block's contents (for
/// layouts `TableBuilder` cannot write): the block, a properties block
/// counting `num_entries`, the metaindex, an index whose one separator is
/// past every test key, and a footer of format `version`.
fn table_around_block(raw: &[u8], num_entries: usize, version: u32) -> Vec<u8> {
    let mut file = Vec::new();
    let add_block = |file: &mut Vec<u8>, contents: &[u8]| {
        let h = format::BlockHandle {
            offset: file.len() as u64,
            size: contents.len() as u64,
        };
        file.extend_from_slice(contents);
        format::put_block_trailer(file, contents, CompressionType::None);
        h
    };
    let data_handle = add_block(&mut file, raw);
    let props = TableProperties {
        num_entries: num_entries as u64,
        ..TableProperties::default()
    };
    let ph = add_block(&mut file, &props.encode());
    let mut meta = block_builder::BlockBuilder::new(1);
    let mut enc = Vec::new();
    ph.encode_to(&mut enc);
    meta.add(b"properties", &enc);
    let mh = add_block(&mut file, meta.finish());
    let mut index = block_builder::BlockBuilder::new_index(1);
    let mut enc = Vec::new();
    data_handle.encode_to(&mut enc);
    index.add(&lookup(b"zzzz"), &enc);
    let ih = add_block(&mut file, index.finish());
    let footer = format::Footer {
        metaindex: mh,
        index: ih,
        format_version: version,
    };
    file.extend_from_slice(&footer.encode());
    file
}

#[test]
fn verify_detects_keys_out_of_order() {
    // TableBuilder cannot write keys out of order (debug assertion), so the
    // file is assembled by hand with the same layout.
    let entries = model(40);
    let (data, _, _) = build_table(&TableOptions::default(), &entries);
    let (t, _) = open_table(data, None, None).unwrap();
    t.verify_checksums().unwrap();

    let mut bb = block_builder::BlockBuilder::new(16);
    for (k, v) in entries.iter().rev() {
        bb.add(k, v);
    }
    let file = table_around_block(bb.finish(), entries.len(), format::FORMAT_VERSION);
    let (t, _) = open_table(file, None, None).unwrap();
    let err = t.verify_checksums().unwrap_err();
    assert!(
        err.is_corruption() && err.to_string().contains("out of order"),
        "{err}"
    );
}

#[test]
fn concurrent_readers_share_the_caches() {
    let dir = tempfile::tempdir().unwrap();
    let fs = crate::fs::default_fs();
    let entries = Arc::new(model(1500));
    for n in 1..=2u64 {
        let path = crate::filename::table_file_name(dir.path(), n);
        let opts = TableOptions {
            bloom_bits_per_key: 10.0,
            ..TableOptions::default()
        };
        let mut b = TableBuilder::new(&opts, fs.create(&path).unwrap(), path.display().to_string());
        for (k, v) in entries.iter() {
            b.add(k, v).unwrap();
        }
        b.finish().unwrap();
    }
    let stats = Statistics::new();
    let cache = Arc::new(BlockCache::new(32 * 1024));
    let tc = Arc::new(TableCache::new(
        dir.path().to_path_buf(),
        fs,
        1,
        Some(cache),
        Some(stats.clone()),
    ));
    let per_thread: Vec<usize> = (0..4)
        .map(|t| entries.len().saturating_sub(t).div_ceil(3))
        .collect();
    let threads: Vec<_> = (0..4)
        .map(|t| {
            let tc = tc.clone();
            let entries = entries.clone();
            std::thread::spawn(move || {
                for (i, e) in entries.iter().enumerate().skip(t).step_by(3) {
                    let table = tc.get(1 + (i % 2) as u64).unwrap();
                    let got = table.get(&e.0, &ReadOpts::default()).unwrap().unwrap();
                    assert_eq!(got.1, e.1);
                }
            })
        })
        .collect();
    for th in threads {
        th.join().unwrap();
    }
    // Every get of a present key reads exactly one data block through the cache.
    let lookups = stats.ticker(Ticker::BlockCacheHit) + stats.ticker(Ticker::BlockCacheMiss);
    assert_eq!(lookups, per_thread.iter().sum::<usize>() as u64);
    assert!(tc.len() <= 1);
}

#[test]
fn range_tombstones_round_trip_and_widen_the_bounds() {
    use crate::range_del::{FragmentedTombstones, RangeTombstone};
    let ts = FragmentedTombstones::new(&[
        RangeTombstone::new("a", "k", 2000),
        RangeTombstone::new("f", "zz", 5),
    ]);
    let entries = model(50);
    let (data, info) = build_table_with_range_dels(&TableOptions::default(), &entries, ts.clone());
    assert_eq!(info.properties.num_range_deletions, 4);
    assert_eq!(info.num_entries, entries.len() as u64);
    assert_eq!(
        info.smallest_key,
        make_internal_key(b"a", 2000, VALUE_TYPE_FOR_SEEK)
    );
    assert_eq!(
        info.largest_key,
        make_internal_key(b"zz", MAX_SEQUENCE_NUMBER, VALUE_TYPE_FOR_SEEK)
    );
    assert_eq!((info.smallest_seq, info.largest_seq), (5, 2000));
    let (t, _) = open_table(data, None, None).unwrap();
    assert_eq!(**t.range_tombstones(), ts);
    assert_eq!(t.properties().num_range_deletions, 4);
    let mut it = t.iter(ReadOpts::default());
    assert_eq!(collect_forward(&mut it), entries);

    // A table of tombstones only.
    let (data, info) = build_table_with_range_dels(&TableOptions::default(), &[], ts.clone());
    assert_eq!(info.num_entries, 0);
    assert_eq!(
        info.smallest_key,
        make_internal_key(b"a", 2000, VALUE_TYPE_FOR_SEEK)
    );
    let (t, _) = open_table(data, None, None).unwrap();
    assert_eq!(**t.range_tombstones(), ts);

    // Tables without tombstones have no block and no property.
    let (data, info, _) = build_table(&TableOptions::default(), &entries);
    assert_eq!(info.properties.num_range_deletions, 0);
    let (t, _) = open_table(data, None, None).unwrap();
    assert!(t.range_tombstones().is_empty());
}

#[test]
fn damaged_range_deletion_block_is_corruption() {
    use crate::range_del::{FragmentedTombstones, RangeTombstone};
    let ts = FragmentedTombstones::new(&[RangeTombstone::new("range-begin", "range-end", 9)]);
    let (data, _) = build_table_with_range_dels(&TableOptions::default(), &model(5), ts);
    let at = data
        .windows(b"range-begin".len())
        .position(|w| w == b"range-begin")
        .unwrap();
    let mut bad = data.clone();
    bad[at] ^= 0x20;
    let e = open_table(bad, None, None).unwrap_err();
    assert!(matches!(e, crate::Error::Corruption { .. }), "{e}");
}
