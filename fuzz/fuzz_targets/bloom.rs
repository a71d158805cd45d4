//! BloomFilter::new over arbitrary bytes, then probes.
#![no_main]
use libfuzzer_sys::fuzz_target;
use strata::tools::sstable::BloomFilter;

fuzz_target!(|data: &[u8]| {
    let Ok(f) = BloomFilter::new(data.to_vec()) else {
        return;
    };
    let _ = (f.size(), f.num_probes());
    for k in [&b""[..], b"a", b"key00001", data] {
        let _ = f.may_contain(k);
    }
    for h in [0u64, 1, u64::MAX, 0x1234_5678_9abc_def0] {
        let _ = f.may_contain_hash(h);
    }
});
