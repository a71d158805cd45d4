//! Builds a valid table from fuzzer-chosen entries and options, checks that
//! it reads back exactly (get and iteration), then flips fuzzer-chosen bytes
//! and checks that the damaged table never panics and, if it still passes
//! verify_checksums, still reads back exactly.
#![no_main]
use std::collections::BTreeMap;
use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use strata::tools::sstable::{ReadOpts, Table, TableOptions};
use strata::tools::types::{
    make_internal_key, ValueType, MAX_SEQUENCE_NUMBER, VALUE_TYPE_FOR_SEEK,
};
use strata::tools::InternalIterator;
use strata_fuzz::{build_table, compression_of, drive_iter, Bytes, MemFile};

fn read_all(table: &Arc<Table>) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
    let mut it = table.iter(ReadOpts::default());
    let mut out = Vec::new();
    it.seek_to_first();
    while it.valid() {
        out.push((it.key().to_vec(), it.value().to_vec()));
        it.next();
    }
    it.status().ok()?;
    Some(out)
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes::new(data);
    let opts = TableOptions {
        block_size: 64 + usize::from(b.u8()) * 16,
        block_restart_interval: 1 + usize::from(b.u8() % 16),
        compression: compression_of(b.u8()),
        bloom_bits_per_key: f64::from(b.u8() % 16),
        enable_index_compression: b.u8() & 1 == 0,
        data_block_hash_util_ratio: match b.u8() % 4 {
            0 => Some(0.75),
            1 => Some(0.2),
            2 => Some(3.0),
            _ => None,
        },
    };
    let n = usize::from(b.u8() % 64);
    let mut model: BTreeMap<Vec<u8>, (ValueType, Vec<u8>)> = BTreeMap::new();
    for _ in 0..n {
        let kl = usize::from(b.u8() % 16);
        let key = b.take(kl).to_vec();
        let vl = usize::from(b.u8());
        let t = if vl % 5 == 0 {
            ValueType::Deletion
        } else {
            ValueType::Value
        };
        let value = if t == ValueType::Value {
            b.take(vl).to_vec()
        } else {
            Vec::new()
        };
        model.insert(key, (t, value));
    }
    let entries: Vec<(Vec<u8>, Vec<u8>)> = model
        .iter()
        .enumerate()
        .map(|(i, (k, (t, v)))| (make_internal_key(k, 1000 + i as u64, *t), v.clone()))
        .collect();
    let Ok(bytes) = build_table(&opts, &entries) else {
        panic!("building a valid table failed");
    };
    let table = match Table::open(
        Arc::new(MemFile(bytes.clone())),
        1,
        "fuzz.sst".into(),
        None,
        None,
    ) {
        Ok(t) => Arc::new(t),
        Err(e) => panic!("a freshly built table does not open: {e}"),
    };
    if let Err(e) = table.verify_checksums() {
        panic!("a freshly built table fails verification: {e}");
    }
    assert_eq!(read_all(&table).as_ref(), Some(&entries), "iteration");
    for (ik, v) in &entries {
        let uk = &ik[..ik.len() - 8];
        let look = make_internal_key(uk, MAX_SEQUENCE_NUMBER, VALUE_TYPE_FOR_SEEK);
        match table.get(&look, &ReadOpts::default()) {
            Ok(Some((k, got))) => assert!(k == *ik && got == *v, "get returned another entry"),
            other => panic!("get of a present key: {other:?}"),
        }
        assert!(table.may_contain(uk), "bloom filter false negative");
    }

    // Damage: (position, xor) pairs from the rest of the input.
    let mut damaged = bytes.clone();
    while !b.is_empty() && !damaged.is_empty() {
        let pos = usize::from(b.u16()) % damaged.len();
        let x = b.u8();
        damaged[pos] ^= x;
    }
    let cut = damaged.len();
    let Ok(t) = Table::open(
        Arc::new(MemFile(damaged.clone())),
        1,
        "fuzz.sst".into(),
        None,
        None,
    ) else {
        return;
    };
    let t = Arc::new(t);
    let t1 = make_internal_key(b"k", MAX_SEQUENCE_NUMBER, VALUE_TYPE_FOR_SEEK);
    drive_iter(&mut t.iter(ReadOpts::default()), &[&t1]);
    let _ = t.get(&t1, &ReadOpts::default());
    if t.verify_checksums().is_ok() && cut == bytes.len() {
        assert_eq!(
            read_all(&t).as_ref(),
            Some(&entries),
            "damaged table passed verify_checksums but reads differently"
        );
    }
});
