//! Writer/reader round trips and damage handling in every recovery mode.

use std::sync::Arc;

use parking_lot::Mutex;

use rand::{Rng, SeedableRng};

use super::*;
use crate::error::Result;
use crate::fs::testutil::MemWritable;

/// Writes `records`; returns the log bytes and each record's start offset.
fn write_log(records: &[Vec<u8>]) -> (Vec<u8>, Vec<u64>) {
    let buf = Arc::new(Mutex::new(Vec::new()));
    let mut w = Writer::new(MemWritable::over(buf.clone(), Arc::default()));
    let mut starts = Vec::new();
    for r in records {
        let before = w.size();
        let n = w.add_record(r).unwrap();
        assert_eq!(w.size(), before + n);
        // A record starts after any trailer padding.
        let mut start = before;
        let block = BLOCK_SIZE as u64;
        let header = HEADER_SIZE as u64;
        if block - before % block < header {
            start = (before / block + 1) * block;
        }
        starts.push(start);
    }
    let data = buf.lock().clone();
    (data, starts)
}

/// Reads all records; returns them and the final result.
fn read_all(data: &[u8], mode: WalRecoveryMode) -> (Vec<Vec<u8>>, Result<()>, Reader) {
    let mut r = Reader::new(data.to_vec(), "000007.log".into(), mode);
    let mut out = Vec::new();
    loop {
        match r.read_record() {
            Ok(Some(rec)) => out.push(rec),
            Ok(None) => return (out, Ok(()), r),
            Err(e) => return (out, Err(e), r),
        }
    }
}

fn record(i: usize, len: usize) -> Vec<u8> {
    (0..len).map(|j| (i * 31 + j * 7) as u8).collect()
}

fn sample_records() -> Vec<Vec<u8>> {
    let sizes = [
        0,
        1,
        100,
        BLOCK_SIZE - 2 * HEADER_SIZE - 101,
        BLOCK_SIZE - HEADER_SIZE,
        BLOCK_SIZE,
        3 * BLOCK_SIZE + 5,
        10,
        BLOCK_SIZE - HEADER_SIZE - 3,
        5,
    ];
    sizes
        .iter()
        .enumerate()
        .map(|(i, &n)| record(i, n))
        .collect()
}

#[test]
fn round_trip_in_every_mode() {
    let records = sample_records();
    let (data, starts) = write_log(&records);
    for mode in WalRecoveryMode::ALL {
        let mut r = Reader::new(data.clone(), "x".into(), mode);
        for (i, want) in records.iter().enumerate() {
            let got = r.read_record().unwrap().unwrap();
            assert_eq!(&got, want, "record {i} in {mode}");
            assert_eq!(r.last_record_offset(), starts[i], "offset of record {i}");
        }
        assert_eq!(r.read_record().unwrap(), None);
        assert_eq!(r.last_record_end(), data.len() as u64);
        assert!(r.dropped().is_empty());
        assert_eq!(r.stopped_at(), None);
    }
}

#[test]
fn truncation_is_a_torn_tail() {
    let records = sample_records();
    let (data, starts) = write_log(&records);
    let mut ends: Vec<u64> = starts.iter().skip(1).copied().collect();
    ends.push(data.len() as u64);
    let mut cuts: Vec<usize> = (0..data.len()).step_by(97).collect();
    for &s in &starts {
        for d in [0usize, 1, 6, 7, 8] {
            cuts.push(s as usize + d);
        }
    }
    for cut in cuts.into_iter().filter(|&c| c <= data.len()) {
        let truncated = &data[..cut];
        // Records whose bytes all survive.
        let complete = ends.iter().filter(|&&e| e <= cut as u64).count();
        let clean = cut == 0 || ends.contains(&(cut as u64));
        for mode in WalRecoveryMode::ALL {
            let (got, res, r) = read_all(truncated, mode);
            assert_eq!(got.len(), complete, "cut {cut} mode {mode}");
            assert_eq!(&got[..], &records[..complete]);
            let strict = mode == WalRecoveryMode::AbsoluteConsistency;
            if strict && !clean {
                let e = res.unwrap_err();
                assert!(e.is_corruption(), "{e}");
                assert!(e.to_string().contains("000007.log"));
            } else {
                res.unwrap();
            }
            if !clean {
                assert!(r.dropped().iter().all(|d| d.kind == DamageKind::TornTail));
                assert_eq!(r.dropped_bytes(), cut as u64 - starts[complete]);
            }
        }
    }
}

/// Three small records in one block; the middle one's payload is damaged.
fn mid_log_damage() -> (Vec<Vec<u8>>, Vec<u8>, u64) {
    let records = vec![record(1, 20), record(2, 20), record(3, 20)];
    let (mut data, starts) = write_log(&records);
    data[starts[1] as usize + HEADER_SIZE + 3] ^= 0x10;
    (records, data, starts[1])
}

#[test]
fn mid_log_corruption_per_mode() {
    let (records, data, off) = mid_log_damage();
    for mode in [
        WalRecoveryMode::TolerateCorruptedTailRecords,
        WalRecoveryMode::AbsoluteConsistency,
    ] {
        let (got, res, _) = read_all(&data, mode);
        assert_eq!(got, records[..1].to_vec());
        match res {
            Err(crate::Error::Corruption { file, offset, .. }) => {
                assert_eq!(file, "000007.log");
                assert_eq!(offset, off);
            }
            other => panic!("expected corruption in {mode}, got {other:?}"),
        }
    }
    let (got, res, r) = read_all(&data, WalRecoveryMode::PointInTimeRecovery);
    res.unwrap();
    assert_eq!(got, records[..1].to_vec());
    assert_eq!(r.stopped_at(), Some(off));
    assert_eq!(r.dropped().len(), 1);
    assert_eq!(r.dropped()[0].kind, DamageKind::MidLog);
    assert_eq!(r.dropped_bytes(), data.len() as u64 - off);
    // Skip mode drops the rest of the damaged block (LevelDB's resync rule),
    // which here holds records 2 and 3.
    let (got, res, r) = read_all(&data, WalRecoveryMode::SkipAnyCorruptedRecords);
    res.unwrap();
    assert_eq!(got, records[..1].to_vec());
    assert_eq!(r.dropped()[0].kind, DamageKind::MidLog);
}

#[test]
fn bad_checksum_on_last_record_is_a_torn_tail() {
    let records = vec![record(1, 20), record(2, 20)];
    let (mut data, starts) = write_log(&records);
    let n = data.len();
    data[n - 1] ^= 1;
    let (got, res, r) = read_all(&data, WalRecoveryMode::TolerateCorruptedTailRecords);
    res.unwrap();
    assert_eq!(got, records[..1].to_vec());
    assert_eq!(r.dropped()[0].kind, DamageKind::TornTail);
    assert_eq!(r.dropped()[0].offset, starts[1]);
    let (_, res, _) = read_all(&data, WalRecoveryMode::AbsoluteConsistency);
    assert!(res.unwrap_err().is_corruption());
}

#[test]
fn zero_filled_tail_is_torn_but_zeros_before_data_are_not() {
    let records = vec![record(1, 50), record(2, 40_000)];
    let (data, _) = write_log(&records);
    let mut zeroed = data.clone();
    zeroed.extend(std::iter::repeat_n(0u8, 3 * BLOCK_SIZE + 11));
    for mode in [
        WalRecoveryMode::TolerateCorruptedTailRecords,
        WalRecoveryMode::PointInTimeRecovery,
        WalRecoveryMode::SkipAnyCorruptedRecords,
    ] {
        let (got, res, r) = read_all(&zeroed, mode);
        res.unwrap();
        assert_eq!(got, records);
        assert!(r.dropped().iter().all(|d| d.kind == DamageKind::TornTail));
        assert!(r.dropped_bytes() > 0);
    }
    assert!(read_all(&zeroed, WalRecoveryMode::AbsoluteConsistency)
        .1
        .is_err());

    // Zeros followed by a valid block: data was lost in the middle.
    let mut holed = zeroed.clone();
    let pad = BLOCK_SIZE - holed.len() % BLOCK_SIZE;
    holed.extend(std::iter::repeat_n(0u8, pad));
    let (tail, _) = write_log(&[record(9, 10)]);
    holed.extend_from_slice(&tail);
    let (got, res, _) = read_all(&holed, WalRecoveryMode::TolerateCorruptedTailRecords);
    assert_eq!(got, records);
    assert!(res.unwrap_err().is_corruption());
    let (got, res, _) = read_all(&holed, WalRecoveryMode::SkipAnyCorruptedRecords);
    res.unwrap();
    assert_eq!(got.len(), 3);
    assert_eq!(got[2], record(9, 10));
}

#[test]
fn skip_mode_resumes_after_a_damaged_fragmented_record() {
    let records = vec![record(1, 10), record(2, 3 * BLOCK_SIZE), record(3, 10)];
    let (mut data, _) = write_log(&records);
    // Damage the MIDDLE fragment (in block 1).
    data[BLOCK_SIZE + 100] ^= 0xff;
    let (got, res, r) = read_all(&data, WalRecoveryMode::SkipAnyCorruptedRecords);
    res.unwrap();
    assert_eq!(got, vec![records[0].clone(), records[2].clone()]);
    assert!(!r.dropped().is_empty());
    let (got, res, r) = read_all(&data, WalRecoveryMode::PointInTimeRecovery);
    res.unwrap();
    assert_eq!(got, records[..1].to_vec());
    assert_eq!(r.stopped_at(), Some(17));
    let (_, res, _) = read_all(&data, WalRecoveryMode::TolerateCorruptedTailRecords);
    assert!(res.unwrap_err().is_corruption());
}

#[test]
fn random_damage_never_panics_and_never_invents_records() {
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5eed);
    for round in 0..300 {
        let n = rng.gen_range(0..12);
        let records: Vec<Vec<u8>> = (0..n)
            .map(|i| {
                let len = match rng.gen_range(0..4) {
                    0 => rng.gen_range(0..10),
                    1 => rng.gen_range(0..1000),
                    _ => rng.gen_range(0..2 * BLOCK_SIZE),
                };
                let mut v = record(i + round, len);
                rng.fill(&mut v[..]);
                v
            })
            .collect();
        let (mut data, _) = write_log(&records);
        match rng.gen_range(0..4) {
            0 => data.truncate(rng.gen_range(0..=data.len())),
            1 => {
                for _ in 0..rng.gen_range(1..5) {
                    if !data.is_empty() {
                        let i = rng.gen_range(0..data.len());
                        data[i] ^= 1 << rng.gen_range(0..8);
                    }
                }
            }
            2 => {
                let len = rng.gen_range(0..3 * BLOCK_SIZE);
                data = vec![0; len];
                rng.fill(&mut data[..]);
            }
            _ => {
                let at = rng.gen_range(0..=data.len());
                let junk: Vec<u8> = (0..rng.gen_range(0..100)).map(|_| rng.gen()).collect();
                data.splice(at..at, junk);
            }
        }
        for mode in WalRecoveryMode::ALL {
            let (got, _, r) = read_all(&data, mode);
            for g in &got {
                assert!(records.contains(g), "round {round}: invented a record");
            }
            assert!(r.dropped_bytes() <= data.len() as u64);
        }
    }
}

#[test]
fn doc_example_layout() {
    let records = vec![record(1, 1000), record(2, 97270), record(3, 8000)];
    let (data, starts) = write_log(&records);
    assert_eq!(starts, vec![0, 1007, 98304]);
    let header_at = |off: usize| {
        (
            u16::from_le_bytes([data[off + 4], data[off + 5]]),
            data[off + 6],
        )
    };
    assert_eq!(header_at(0), (1000, 1));
    assert_eq!(header_at(1007), (31754, 2));
    assert_eq!(header_at(32768), (32761, 3));
    assert_eq!(header_at(65536), (32755, 4));
    assert_eq!(&data[98298..98304], &[0u8; 6]);
    assert_eq!(header_at(98304), (8000, 1));
    assert_eq!(data.len(), 98304 + 7 + 8000);
}

#[test]
fn hostile_input_is_cheap_to_classify() {
    // Every position parses as a FULL header of length 257 with a bad CRC:
    // the look-ahead must stay within its budget.
    let data = vec![1u8; 8 * BLOCK_SIZE];
    let start = std::time::Instant::now();
    for mode in WalRecoveryMode::ALL {
        let (got, _, r) = read_all(&data, mode);
        assert!(got.is_empty());
        assert!(!r.dropped().is_empty());
    }
    assert!(start.elapsed() < std::time::Duration::from_secs(20));
}

#[test]
fn unknown_record_type_is_skippable_damage() {
    let (mut data, _) = write_log(&[record(1, 10)]);
    // A checksum-valid record of type 5 (RocksDB's recyclable FULL).
    let payload = record(2, 10);
    let crc = format::mask_crc(format::record_crc(5, &payload));
    data.extend_from_slice(&crc.to_le_bytes());
    data.extend_from_slice(&10u16.to_le_bytes());
    data.push(5);
    data.extend_from_slice(&payload);
    let tail_at = data.len();
    let buf = Arc::new(Mutex::new(data));
    let mut w = Writer::new_at(
        MemWritable::over(buf.clone(), Arc::default()),
        tail_at as u64,
    );
    w.add_record(&record(3, 10)).unwrap();
    let data = buf.lock().clone();
    let (got, res, r) = read_all(&data, WalRecoveryMode::SkipAnyCorruptedRecords);
    res.unwrap();
    assert_eq!(got, vec![record(1, 10), record(3, 10)]);
    assert_eq!(r.dropped()[0].offset, 17);
    assert_eq!(r.dropped()[0].bytes, 17);
    assert!(r.dropped()[0].reason.contains("unknown record type 5"));
    let (got, res, _) = read_all(&data, WalRecoveryMode::TolerateCorruptedTailRecords);
    assert_eq!(got, vec![record(1, 10)]);
    assert!(res.is_err());
}
