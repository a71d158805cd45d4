//! WriteBatch::from_data over arbitrary bytes; an accepted batch iterates
//! exactly `count()` operations and re-parses from its own encoding.
#![no_main]
use libfuzzer_sys::fuzz_target;
use strata::WriteBatch;

fuzz_target!(|data: &[u8]| {
    let Ok(b) = WriteBatch::from_data(data.to_vec(), "000001.log", 0) else {
        return;
    };
    assert_eq!(b.data(), data);
    let ops = b.iter().count();
    assert_eq!(
        ops as u64,
        u64::from(b.count()),
        "iteration length vs count"
    );
    let _ = (b.sequence(), b.approximate_size(), b.is_empty(), b.check());
    let mut copy = WriteBatch::new();
    copy.append(&b);
    assert_eq!(copy.count(), b.count());
    let mut rebuilt = WriteBatch::new();
    for op in b.iter() {
        match op.value_type {
            strata::types::ValueType::Value => rebuilt.put(op.key, op.value),
            strata::types::ValueType::Deletion => rebuilt.delete(op.key),
            strata::types::ValueType::BlobIndex => rebuilt.put_blob_index(op.key, op.value),
        }
    }
    rebuilt.set_sequence(b.sequence());
    assert_eq!(
        rebuilt.data(),
        b.data(),
        "a parsed batch re-encodes to its bytes"
    );
});
