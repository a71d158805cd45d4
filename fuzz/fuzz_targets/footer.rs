//! Footer::decode and BlockHandle::decode. When the first byte is odd the
//! harness writes a valid magic and checksum so the fields behind them are
//! reached.
#![no_main]
use libfuzzer_sys::fuzz_target;
use strata::tools::sstable::{mask_crc, BlockHandle, Footer, FOOTER_SIZE, TABLE_MAGIC};

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let _ = BlockHandle::decode(rest);
    let mut buf = rest.to_vec();
    if mode & 1 == 1 {
        buf.resize(FOOTER_SIZE, 0);
        let crc = mask_crc(crc32c::crc32c(&buf[..36]));
        buf[36..40].copy_from_slice(&crc.to_le_bytes());
        buf[40..48].copy_from_slice(&TABLE_MAGIC.to_le_bytes());
    }
    if let Ok(f) = Footer::decode(&buf, "fuzz.sst", 0) {
        assert_eq!(f.encode(), buf, "a decoded footer re-encodes to its bytes");
    }
});
