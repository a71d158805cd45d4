//! Table::open over arbitrary bytes, then get, iteration and
//! verify_checksums. Checksums gate most of the file, so the seeds (real
//! tables) matter: the fuzzer mostly explores footer, handle and size damage.
#![no_main]
use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use strata::tools::sstable::{ReadOpts, Table};
use strata::tools::types::{make_internal_key, MAX_SEQUENCE_NUMBER, VALUE_TYPE_FOR_SEEK};
use strata_fuzz::{drive_iter, MemFile};

fuzz_target!(|data: &[u8]| {
    let file = Arc::new(MemFile(data.to_vec()));
    let Ok(table) = Table::open(file, 1, "fuzz.sst".to_string(), None, None) else {
        return;
    };
    let table = Arc::new(table);
    let _ = table.properties().to_lines();
    let _ = table.verify_checksums();
    let _ = table.index_entries();
    for k in [&b""[..], b"a", b"key00001", b"\xff"] {
        let ik = make_internal_key(k, MAX_SEQUENCE_NUMBER, VALUE_TYPE_FOR_SEEK);
        let _ = table.get(&ik, &ReadOpts::default());
        let _ = table.may_contain(k);
        let _ = table.approximate_offset_of(&ik);
    }
    let t1 = make_internal_key(b"key", MAX_SEQUENCE_NUMBER, VALUE_TYPE_FOR_SEEK);
    drive_iter(&mut table.iter(ReadOpts::default()), &[&t1, b""]);
});
