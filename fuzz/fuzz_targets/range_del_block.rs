//! decode_range_del_block over a block parsed from arbitrary bytes; the
//! tombstones it accepts must re-encode and decode to the same fragments,
//! and answer point queries as a scan of those fragments does.
#![no_main]
use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use strata::tools::sstable::{decode_range_del_block, encode_range_del_block, Block};

fuzz_target!(|data: &[u8]| {
    let Ok(block) = Block::new(data.to_vec(), Arc::from("fuzz.sst"), 0) else {
        return;
    };
    let Ok(frags) = decode_range_del_block(&Arc::new(block)) else {
        return;
    };
    let again = Block::new(encode_range_del_block(&frags), Arc::from("fuzz.sst"), 0)
        .and_then(|b| decode_range_del_block(&Arc::new(b)));
    match again {
        Ok(f) => assert_eq!(f, frags, "range tombstones survive a round trip"),
        Err(e) => panic!("re-encoded range tombstones do not decode: {e}"),
    }
    for f in frags.fragments() {
        assert!(f.begin < f.end, "fragments are non-empty");
        assert_eq!(
            frags.max_covering_seq(&f.begin, u64::MAX),
            Some(f.seqs[0]),
            "a fragment's begin key is covered by its newest sequence"
        );
    }
});
