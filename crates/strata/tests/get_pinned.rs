//! `Db::get_pinned`: values read from table files stay in their data block
//! instead of being copied; values from memtables and blob files are
//! copies; a pinned value outlives the block cache entry and the file it
//! came from.

use strata::{Db, Options, ReadOptions};

fn opts() -> Options {
    Options {
        write_buffer_size: 64 << 10,
        max_bytes_for_level_base: 256 << 10,
        target_file_size_base: 64 << 10,
        level0_file_num_compaction_trigger: 2,
        compression: strata::CompressionType::None,
        ..Options::default()
    }
}

fn key(i: u32) -> Vec<u8> {
    format!("key{i:06}").into_bytes()
}

fn value(i: u32, gen: u32) -> Vec<u8> {
    format!("value-{i}-{gen}-").repeat(40).into_bytes()
}

#[test]
fn memtable_values_are_copies_and_table_values_are_pinned() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(dir.path(), opts()).unwrap();
    let ro = ReadOptions::default();
    db.put(b"k", b"in the memtable").unwrap();
    let v = db.get_pinned(&ro, b"k").unwrap().unwrap();
    assert!(!v.is_pinned());
    assert_eq!(&*v, b"in the memtable");

    db.flush().unwrap();
    let v = db.get_pinned(&ro, b"k").unwrap().unwrap();
    assert!(v.is_pinned());
    assert_eq!(&*v, b"in the memtable");
    assert_eq!(db.get(b"k").unwrap().as_deref(), Some(&v[..]));
    assert!(db.get_pinned(&ro, b"absent").unwrap().is_none());
    db.delete(b"k").unwrap();
    db.flush().unwrap();
    assert!(db.get_pinned(&ro, b"k").unwrap().is_none());
}

#[test]
fn pinned_value_outlives_cache_eviction_and_its_file() {
    let dir = tempfile::tempdir().unwrap();
    // A block cache of 4 KiB: every other read evicts what was cached.
    let db = Db::open(
        dir.path(),
        Options {
            block_cache_size: 4 << 10,
            ..opts()
        },
    )
    .unwrap();
    let ro = ReadOptions::default();
    for i in 0..2000 {
        db.put(&key(i), &value(i, 0)).unwrap();
    }
    db.flush().unwrap();
    let held: Vec<_> = (0..2000)
        .step_by(97)
        .map(|i| (i, db.get_pinned(&ro, &key(i)).unwrap().unwrap()))
        .collect();
    assert!(held.iter().all(|(_, v)| v.is_pinned()));
    // Overwrite everything and compact: the files the values were read
    // from are rewritten and deleted.
    for i in 0..2000 {
        db.put(&key(i), &value(i, 1)).unwrap();
    }
    db.compact_range(None, None).unwrap();
    for (i, v) in &held {
        assert_eq!(&v[..], &value(*i, 0)[..], "key {i}");
    }
    for i in (0..2000).step_by(97) {
        assert_eq!(db.get(&key(i)).unwrap().unwrap(), value(i, 1));
    }
}

#[test]
fn blob_values_are_copies() {
    let dir = tempfile::tempdir().unwrap();
    let db = Db::open(
        dir.path(),
        Options {
            enable_blob_files: true,
            min_blob_size: 16,
            ..opts()
        },
    )
    .unwrap();
    let big = value(7, 0);
    db.put(b"big", &big).unwrap();
    db.put(b"small", b"tiny").unwrap();
    db.flush().unwrap();
    let ro = ReadOptions::default();
    let v = db.get_pinned(&ro, b"big").unwrap().unwrap();
    assert!(!v.is_pinned(), "a blob value is read into its own buffer");
    assert_eq!(&v[..], &big[..]);
    let v = db.get_pinned(&ro, b"small").unwrap().unwrap();
    assert!(v.is_pinned(), "an inline value stays in its block");
    assert_eq!(&v[..], b"tiny");
}
