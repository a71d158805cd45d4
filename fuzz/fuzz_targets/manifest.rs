//! read_manifest over arbitrary bytes, and over a MANIFEST written by the
//! engine's log writer from fuzzer-chosen edit payloads (valid checksums);
//! the edits read are applied to a version as recovery would.
#![no_main]
use libfuzzer_sys::fuzz_target;
use strata::tools::version::{read_manifest, Version, VersionBuilder};
use strata_fuzz::{build_log, Bytes};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let bytes = if mode & 1 == 0 {
        rest.to_vec()
    } else {
        let mut b = Bytes::new(rest);
        let mut records = Vec::new();
        while !b.is_empty() {
            let len = usize::from(b.u8());
            records.push(b.take(len).to_vec());
        }
        match build_log(&records) {
            Ok(l) => l,
            Err(e) => panic!("writing a log failed: {e}"),
        }
    };
    let Ok((edits, _dropped)) = read_manifest(bytes, "MANIFEST-000001") else {
        return;
    };
    let base = Version::new(7);
    let mut b = VersionBuilder::new(&base);
    for e in &edits {
        if b.apply(e).is_err() {
            return;
        }
    }
    let v = b.build();
    let _ = v.check_invariants();
});
