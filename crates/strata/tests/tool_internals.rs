//! The engine internals the bundled tools use (`strata::tools`,
//! `strata::sync_point`) hold what `strata inspect` and `strata stress`
//! rely on: write batches round-trip through their WAL encoding with every
//! record kind, and each sync point's name parses back to it (the names
//! are what `strata stress --kill-at` takes and prints).

use std::collections::BTreeSet;

use strata::sync_point::SyncPoint;
use strata::tools::batch::{BatchOp, WriteBatchInternals};
use strata::tools::types::ValueType;
use strata::WriteBatch;

#[test]
fn batch_records_round_trip_through_the_wal_encoding() {
    let mut b = WriteBatch::new();
    b.put(b"k1", b"v1");
    b.delete(b"k2");
    b.merge(b"k3", b"op");
    b.add_record(2, ValueType::Value, b"k4", b"v4");
    b.put_blob_index(b"k5", b"index");
    b.check().unwrap();
    b.set_sequence(42);
    let back = WriteBatch::from_data(b.data().to_vec(), "000007.log", 99).unwrap();
    assert_eq!(back.sequence(), 42);
    let op = |cf, value_type, key: &'static [u8], value: &'static [u8]| BatchOp {
        cf,
        value_type,
        key,
        value,
    };
    let want = vec![
        op(0, ValueType::Value, b"k1", b"v1"),
        op(0, ValueType::Deletion, b"k2", b""),
        op(0, ValueType::Merge, b"k3", b"op"),
        op(2, ValueType::Value, b"k4", b"v4"),
        op(0, ValueType::BlobIndex, b"k5", b"index"),
    ];
    assert_eq!(back.iter().collect::<Vec<_>>(), want);
    assert_eq!(b.iter().collect::<Vec<_>>(), want);
}

#[test]
fn a_truncated_batch_is_corruption_naming_the_file_and_offset() {
    let mut b = WriteBatch::new();
    b.put(b"key", b"value");
    let data = b.data();
    let e = WriteBatch::from_data(data[..5].to_vec(), "000007.log", 99).unwrap_err();
    assert!(e.is_corruption(), "{e}");
    let text = e.to_string();
    assert!(text.contains("000007.log") && text.contains("99"), "{text}");
}

#[test]
fn every_sync_point_name_parses_back_to_it() {
    let names: BTreeSet<&str> = SyncPoint::ALL.iter().map(|p| p.name()).collect();
    assert_eq!(names.len(), SyncPoint::ALL.len(), "names are unique");
    assert_eq!(SyncPoint::ALL.len(), 14);
    for &p in SyncPoint::ALL {
        assert_eq!(SyncPoint::from_name(p.name()), Some(p));
        assert_eq!(p.to_string(), p.name());
        assert!(p.what().len() > 20, "{p}: {}", p.what());
    }
    assert_eq!(SyncPoint::from_name("wal.nothing"), None);
}
