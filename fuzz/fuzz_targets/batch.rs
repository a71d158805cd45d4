//! WriteBatch::from_data over arbitrary bytes; an accepted batch iterates
//! exactly `count()` operations and rebuilding it through the API gives the
//! same operations. Merge records (tags 3 and 7) carry an operand, as puts
//! carry a value (a seed: `corpus/batch/merge-records`).
#![no_main]
use libfuzzer_sys::fuzz_target;
use strata::tools::batch::WriteBatchInternals;
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
        rebuilt.add_record(op.cf, op.value_type, op.key, op.value);
    }
    rebuilt.set_sequence(b.sequence());
    // Varints need not be canonical, so compare operations, not bytes.
    assert!(
        rebuilt.iter().eq(b.iter()),
        "a parsed batch re-encodes to the same operations"
    );
    assert_eq!(rebuilt.count(), b.count());
});
