//! Block::new and its iterator over arbitrary bytes, with both orderings,
//! as a data block and (odd first byte) as an index block of format
//! version 3, whose values have no length; and a Get's lookup through
//! the block's hash index, if the bytes carry one.
#![no_main]
use std::sync::Arc;

use libfuzzer_sys::fuzz_target;
use strata::tools::sstable::{bytewise_cmp, Block, HashLookup};
use strata::tools::InternalIterator;
use strata_fuzz::drive_iter;

fuzz_target!(|data: &[u8]| {
    let Ok(mut block) = Block::new(data.to_vec(), Arc::from("fuzz.sst"), 0) else {
        return;
    };
    if data.first().is_some_and(|b| b & 1 == 1) {
        block = block.with_handle_values();
    }
    let block = Arc::new(block);
    let probe: &[u8] = data.get(..data.len().min(12)).unwrap_or(&[]);
    let targets: [&[u8]; 3] = [b"", probe, b"\xff\xff\xff\xff\xff\xff\xff\xff\xff"];
    drive_iter(&mut block.internal_iter(), &targets);
    drive_iter(&mut block.iter(bytewise_cmp), &targets);
    let mut it = block.internal_iter();
    for t in targets {
        let user_key = &t[..t.len().saturating_sub(8)];
        match block.hash_lookup(user_key) {
            HashLookup::Restart(r) => it.seek_in_restart(r, t),
            HashLookup::Search => it.seek(t),
            HashLookup::Absent => continue,
        }
        if it.valid() {
            let _ = (it.key(), it.value());
        }
    }
});
