//! VersionEdit::decode over arbitrary bytes; an accepted edit survives an
//! encode/decode round trip and applying it to an empty version never panics.
#![no_main]
use libfuzzer_sys::fuzz_target;
use strata::tools::version::{Version, VersionBuilder, VersionEdit};

fuzz_target!(|data: &[u8]| {
    let Ok(edit) = VersionEdit::decode(data, "MANIFEST-000001", 0) else {
        return;
    };
    match VersionEdit::decode(&edit.encode(), "MANIFEST-000001", 0) {
        Ok(again) => assert_eq!(again, edit, "edit round trip"),
        Err(e) => panic!("a re-encoded edit does not decode: {e}"),
    }
    let base = Version::new(7);
    let mut b = VersionBuilder::new(&base);
    if b.apply(&edit).is_ok() {
        let v = b.build();
        let _ = v.check_invariants();
        let _ = v.total_bytes();
    }
});
