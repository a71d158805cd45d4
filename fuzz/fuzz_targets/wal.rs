//! wal::Reader over arbitrary bytes in all four recovery modes. When the
//! first byte is odd the rest is first cut into records and written with the
//! engine's writer (valid checksums), then damaged by the trailing bytes, so
//! fragment and tail handling are reached past the CRC.
#![no_main]
use libfuzzer_sys::fuzz_target;
use strata::tools::wal::Reader;
use strata::WalRecoveryMode;
use strata_fuzz::{build_log, Bytes};

fn read(data: &[u8], mode: WalRecoveryMode) -> Vec<Vec<u8>> {
    let mut r = Reader::new(data.to_vec(), "000001.log".to_string(), mode);
    let mut out = Vec::new();
    let mut calls = 0usize;
    loop {
        calls += 1;
        assert!(calls < 1_000_000, "reader does not terminate");
        match r.read_record() {
            Ok(Some(rec)) => {
                assert!(
                    r.last_record_offset() <= data.len() as u64
                        && r.last_record_end() <= data.len() as u64,
                    "record offsets past the end of the data"
                );
                out.push(rec)
            }
            Ok(None) => break,
            Err(_) => {
                assert!(matches!(r.read_record(), Ok(None)), "read after an error");
                break;
            }
        }
    }
    let _ = (
        r.dropped(),
        r.dropped_bytes(),
        r.stopped_at(),
        r.file_name(),
    );
    out
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode & 1 == 0 {
        for m in WalRecoveryMode::ALL {
            read(rest, m);
        }
        return;
    }
    // Structured: records of fuzzer-chosen sizes. A record is under 256
    // bytes unless its fill byte's top bit asks for a large one (up to
    // 70,000 bytes: first, middle and last fragments across 32 KiB blocks,
    // and block tails too short for a header). Most executions stay cheap;
    // every fragment type stays reachable.
    let mut b = Bytes::new(rest);
    let mut records = Vec::new();
    let n = b.u8() % 8;
    for _ in 0..n {
        let fill = b.u8();
        let size = usize::from(b.u16());
        let len = if fill & 0x80 != 0 {
            size % 70_000
        } else {
            size % 256
        };
        records.push(vec![fill; len]);
    }
    let Ok(mut log) = build_log(&records) else {
        panic!("writing a log failed");
    };
    for m in WalRecoveryMode::ALL {
        assert_eq!(read(&log, m), records, "clean log reads back in {m}");
    }
    let mut damaged = false;
    while !b.is_empty() && !log.is_empty() {
        let op = b.u8();
        let pos = (usize::from(b.u16()) << 2 | usize::from(op >> 6)) % log.len();
        if op & 1 == 0 {
            log[pos] ^= b.u8() | 1;
        } else {
            log.truncate(pos);
        }
        damaged = true;
    }
    for m in WalRecoveryMode::ALL {
        let got = read(&log, m);
        if !damaged {
            continue;
        }
        // Whatever survives is made of written records, in order.
        let mut i = 0;
        for r in &got {
            while i < records.len() && records[i] != *r {
                i += 1;
            }
            assert!(
                i < records.len(),
                "{m} returned a record that was never written"
            );
            i += 1;
        }
    }
});
