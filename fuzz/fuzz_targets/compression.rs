//! decompress_block for every codec over arbitrary bytes; compressing the
//! rest of the input and decompressing it must give it back.
#![no_main]
use libfuzzer_sys::fuzz_target;
use strata::tools::sstable::{compress_block, decompress_block};
use strata::CompressionType;
use strata_fuzz::compression_of;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, rest)) = data.split_first() else {
        return;
    };
    let ctype = compression_of(sel);
    let _ = decompress_block(ctype, rest.to_vec());
    let mut out = Vec::new();
    let used = compress_block(ctype, rest, &mut out);
    // `None` means "store the raw bytes" (and leaves `out` empty).
    let stored = if used == CompressionType::None {
        rest.to_vec()
    } else {
        out
    };
    match decompress_block(used, stored) {
        Ok(back) => assert_eq!(back, rest, "round trip through {}", used.name()),
        Err(e) => panic!("{} cannot decompress its own output: {e}", used.name()),
    }
});
