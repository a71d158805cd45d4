//! TableProperties::decode over a block parsed from arbitrary bytes; a
//! decoded block must re-encode and decode to the same properties.
#![no_main]
use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use strata::tools::sstable::{Block, TableProperties};

fuzz_target!(|data: &[u8]| {
    let Ok(block) = Block::new(data.to_vec(), Arc::from("fuzz.sst"), 0) else {
        return;
    };
    let Ok(props) = TableProperties::decode(&Arc::new(block)) else {
        return;
    };
    let _ = props.to_lines();
    let again = Block::new(props.encode(), Arc::from("fuzz.sst"), 0)
        .and_then(|b| TableProperties::decode(&Arc::new(b)));
    match again {
        // Compared encoded: a stored bloom_bits_per_key may be NaN (NaN != NaN).
        Ok(p) => assert_eq!(
            p.encode(),
            props.encode(),
            "properties survive a round trip"
        ),
        Err(e) => panic!("re-encoded properties do not decode: {e}"),
    }
});
