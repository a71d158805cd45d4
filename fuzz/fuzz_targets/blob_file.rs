//! Blob files. Raw mode (first byte even): BlobFileReader::open over
//! arbitrary bytes, then a scan, verify_checksums, file_checksum and a get
//! for every record the scan found. Built mode (first byte odd): a file is
//! written by BlobFileBuilder from fuzzer-chosen records and codec, must read
//! back exactly, then is damaged by the trailing bytes; a get on the damaged
//! file may fail but must never return a wrong value.
#![no_main]
use std::sync::{Arc, Mutex};

use libfuzzer_sys::fuzz_target;
use strata::tools::blob::{BlobFileBuilder, BlobFileReader, BlobIndex};
use strata_fuzz::{compression_of, Bytes, MemFile, MemWritable};

const NAME: &str = "000009.blob";

fn scan(r: &BlobFileReader) -> Vec<(Vec<u8>, BlobIndex, Vec<u8>)> {
    let mut out = Vec::new();
    for rec in r.iter(true).take(100_000) {
        match rec {
            Ok(rec) => out.push((rec.key, rec.index, rec.value)),
            Err(_) => break,
        }
    }
    out
}

fn raw(data: &[u8]) {
    let Ok(r) = BlobFileReader::open(Arc::new(MemFile(data.to_vec())), 9, NAME.into()) else {
        return;
    };
    let _ = (r.blob_count(), r.blob_bytes(), r.header(), r.file_size());
    let _ = r.verify_checksums();
    let _ = r.file_checksum();
    for (k, idx, v) in scan(&r) {
        match r.get(&k, &idx, true) {
            Ok(got) => assert_eq!(got, v, "get disagrees with the scan"),
            Err(e) => panic!("a record the scan returned cannot be read: {e}"),
        }
    }
}

fn built(data: &[u8]) {
    let mut b = Bytes::new(data);
    let codec = compression_of(b.u8());
    let buf = Arc::new(Mutex::new(Vec::new()));
    let mut w = BlobFileBuilder::new(
        Box::new(MemWritable(buf.clone())),
        9,
        NAME.into(),
        codec,
        None,
    );
    let mut written = Vec::new();
    for i in 0..(b.u8() % 16) {
        let key = format!("key{i:03}").into_bytes();
        let sel = b.u8();
        let mut value = b.take(usize::from(sel % 32)).to_vec();
        value.resize(value.len() + usize::from(sel) * 4, sel); // compressible tail
        match w.add(&key, &value) {
            Ok(idx) => written.push((key, idx, value)),
            Err(e) => panic!("add failed: {e}"),
        }
    }
    if let Err(e) = w.finish() {
        panic!("finish failed: {e}");
    }
    let Ok(bytes) = buf.lock().map(|v| v.clone()) else {
        return;
    };
    let r = match BlobFileReader::open(Arc::new(MemFile(bytes.clone())), 9, NAME.into()) {
        Ok(r) => r,
        Err(e) => panic!("a freshly written blob file does not open: {e}"),
    };
    if let Err(e) = r.verify_checksums() {
        panic!("a freshly written blob file fails verification: {e}");
    }
    assert_eq!(scan(&r), written, "scan of a clean file");
    for (k, idx, v) in &written {
        match r.get(k, idx, true) {
            Ok(got) => assert_eq!(&got, v),
            Err(e) => panic!("get on a clean file: {e}"),
        }
        assert_eq!(BlobIndex::decode(&idx.encode()), Some(*idx));
    }

    let mut damaged = bytes.clone();
    while !b.is_empty() && !damaged.is_empty() {
        let pos = usize::from(b.u16()) % damaged.len();
        match b.u8() {
            0 => damaged.truncate(pos),
            x => damaged[pos] ^= x,
        }
    }
    let Ok(r) = BlobFileReader::open(Arc::new(MemFile(damaged)), 9, NAME.into()) else {
        return;
    };
    let _ = r.verify_checksums();
    for (k, idx, v) in &written {
        if let Ok(got) = r.get(k, idx, true) {
            assert_eq!(&got, v, "damaged blob file returned a wrong value");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    match data.split_first() {
        Some((&m, rest)) if m & 1 == 1 => built(rest),
        Some((_, rest)) => raw(rest),
        None => {}
    }
});
