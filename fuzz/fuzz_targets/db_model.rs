//! Runs a sequence of operations decoded from the input against a real
//! `strata::Db` in a temporary directory and a `BTreeMap` model, and asserts
//! they agree: put, delete, delete_range, merge (the built-in
//! `stringappend` operator), batch (range deletions included), get,
//! forward/backward/bounded scans, snapshots and reads at a snapshot,
//! flush, compact_range and reopen.
//! A 64 KiB write buffer and values up to 4 KiB force flushes and compactions;
//! bit 0x40 of the first byte turns on blob files (0x80: blob GC too).
#![no_main]
use std::collections::BTreeMap;

use libfuzzer_sys::fuzz_target;
use strata::{Db, Options, ReadOptions, Snapshot, WriteBatch};
use strata_fuzz::{compression_of, Bytes};

type Model = BTreeMap<Vec<u8>, Vec<u8>>;

const MAX_OPS: usize = 300;

fn key(b: &mut Bytes<'_>) -> Vec<u8> {
    format!("k{:02}", b.u8() % 40).into_bytes()
}

fn value(b: &mut Bytes<'_>, k: &[u8], n: usize) -> Vec<u8> {
    let sel = b.u8();
    let len = match sel % 8 {
        0 => 0,
        7 => 1024 + usize::from(sel) * 12, // up to ~4 KiB
        _ => usize::from(sel % 64),
    };
    let mut v = format!("{}-{n}-", String::from_utf8_lossy(k)).into_bytes();
    v.resize(v.len() + len, b'a' + (sel % 26));
    v
}

fn options(b: &mut Bytes<'_>) -> Options {
    let mut o = Options::default()
        .create_if_missing(true)
        .write_buffer_size(64 * 1024)
        .target_file_size_base(64 * 1024)
        .max_bytes_for_level_base(256 * 1024);
    o.merge_operator = strata::merge::builtin("stringappend");
    // An input reopens the DB up to a few hundred times: with the default
    // 1,000 rotated info LOGs kept, every open lists and sorts a directory
    // of them. Four keeps it small and purges a LOG on most reopens.
    o.keep_log_file_num = 4;
    let c = b.u8();
    o.compression = compression_of(c);
    o.bloom_bits_per_key = if c & 0x10 != 0 { 10.0 } else { 0.0 };
    o.block_size = if c & 0x20 != 0 { 256 } else { 4096 };
    if c & 0x40 != 0 {
        // Key-value separation: most values go to small blob files.
        o.enable_blob_files = true;
        o.min_blob_size = 32;
        o.blob_file_size = 32 * 1024;
        o.blob_compression_type = compression_of(c >> 2);
        o.enable_blob_garbage_collection = c & 0x80 != 0;
        o.blob_garbage_collection_age_cutoff = 0.5;
    }
    o
}

/// What a `stringappend` merge of `operand` leaves in `model`.
fn merge_into(model: &mut Model, k: &[u8], operand: &[u8]) {
    let v = match model.get(k) {
        Some(old) => [old.as_slice(), b",", operand].concat(),
        None => operand.to_vec(),
    };
    model.insert(k.to_vec(), v);
}

/// What a DeleteRange of `[begin, end)` leaves in `model`.
fn delete_range_in(model: &mut Model, begin: &[u8], end: &[u8]) {
    model.retain(|k, _| !(k.as_slice() >= begin && k.as_slice() < end));
}

/// Two keys as a range's begin and end, in either order (an empty or
/// reversed range deletes nothing).
fn range(b: &mut Bytes<'_>) -> (Vec<u8>, Vec<u8>) {
    (key(b), key(b))
}

fn scan(db: &Db, ro: &ReadOptions, reverse: bool) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut it = db.iter_opt(ro);
    let mut out = Vec::new();
    if reverse {
        it.seek_to_last();
    } else {
        it.seek_to_first();
    }
    while it.valid() {
        out.push((it.key().to_vec(), it.value().to_vec()));
        if reverse {
            it.retreat();
        } else {
            it.advance();
        }
    }
    if let Err(e) = it.status() {
        panic!("iterator error: {e}");
    }
    if reverse {
        out.reverse();
    }
    out
}

fn expect(model: &Model, lo: Option<&[u8]>, hi: Option<&[u8]>) -> Vec<(Vec<u8>, Vec<u8>)> {
    model
        .iter()
        .filter(|(k, _)| {
            lo.is_none_or(|l| k.as_slice() >= l) && hi.is_none_or(|h| k.as_slice() < h)
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn check_all(db: &Db, ro: &ReadOptions, model: &Model, b: &mut Bytes<'_>) {
    let sel = b.u8();
    let (lo, hi) = if sel & 1 == 1 {
        let (x, y) = (key(b), key(b));
        (Some(x.clone().min(y.clone())), Some(x.max(y)))
    } else {
        (None, None)
    };
    let mut ro = ro.clone();
    ro.iterate_lower_bound = lo.clone();
    ro.iterate_upper_bound = hi.clone();
    let want = expect(model, lo.as_deref(), hi.as_deref());
    assert_eq!(
        scan(db, &ro, sel & 2 == 2),
        want,
        "scan lo={lo:?} hi={hi:?}"
    );
}

fn get(db: &Db, ro: &ReadOptions, model: &Model, k: &[u8]) {
    match db.get_opt(ro, k) {
        Ok(got) => assert_eq!(
            got.as_ref(),
            model.get(k),
            "get {:?}",
            String::from_utf8_lossy(k)
        ),
        Err(e) => panic!("get error: {e}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let mut b = Bytes::new(data);
    let opts = options(&mut b);
    let Ok(dir) = strata_fuzz::scratch_dir() else {
        return;
    };
    let open = || match Db::open(dir.path(), opts.clone()) {
        Ok(db) => db,
        Err(e) => panic!("open failed: {e}"),
    };
    let mut db = Some(open());
    let mut model = Model::new();
    let mut snaps: Vec<(Snapshot, Model)> = Vec::new();
    let mut n = 0usize;
    while !b.is_empty() && n < MAX_OPS {
        n += 1;
        let Some(d) = db.as_ref() else { return };
        match b.u8() % 16 {
            0..=3 => {
                let k = key(&mut b);
                let v = value(&mut b, &k, n);
                if let Err(e) = d.put(&k, &v) {
                    panic!("put: {e}");
                }
                model.insert(k, v);
            }
            4 => {
                let k = key(&mut b);
                let operand = format!("m{n}").into_bytes();
                if let Err(e) = d.merge(&k, &operand) {
                    panic!("merge: {e}");
                }
                merge_into(&mut model, &k, &operand);
            }
            5 => {
                let k = key(&mut b);
                if let Err(e) = d.delete(&k) {
                    panic!("delete: {e}");
                }
                model.remove(&k);
            }
            6 => {
                let (begin, end) = range(&mut b);
                if let Err(e) = d.delete_range(&begin, &end) {
                    panic!("delete_range: {e}");
                }
                delete_range_in(&mut model, &begin, &end);
            }
            7 => {
                let mut batch = WriteBatch::new();
                let mut staged = model.clone();
                for _ in 0..(b.u8() % 8) {
                    let k = key(&mut b);
                    let sel = b.u8();
                    if sel.is_multiple_of(3) {
                        batch.delete(&k);
                        staged.remove(&k);
                    } else if sel % 3 == 1 && sel & 0x80 != 0 {
                        let operand = format!("b{n}").into_bytes();
                        batch.merge(&k, &operand);
                        merge_into(&mut staged, &k, &operand);
                    } else if sel % 3 == 2 && sel & 0x40 != 0 {
                        let end = key(&mut b);
                        batch.delete_range(&k, &end);
                        delete_range_in(&mut staged, &k, &end);
                    } else {
                        let v = value(&mut b, &k, n);
                        batch.put(&k, &v);
                        staged.insert(k, v);
                    }
                }
                if let Err(e) = d.write(batch) {
                    panic!("write batch: {e}");
                }
                model = staged;
            }
            8 | 9 => {
                let k = key(&mut b);
                get(d, &ReadOptions::default(), &model, &k);
            }
            10 => check_all(d, &ReadOptions::default(), &model, &mut b),
            11 => {
                if snaps.len() >= 4 {
                    snaps.remove(0);
                }
                snaps.push((d.snapshot(), model.clone()));
            }
            12 => {
                if snaps.is_empty() {
                    continue;
                }
                let i = usize::from(b.u8()) % snaps.len();
                let (s, m) = &snaps[i];
                let ro = ReadOptions::default().snapshot(Some(s.clone()));
                let k = key(&mut b);
                get(d, &ro, m, &k);
                check_all(d, &ro, m, &mut b);
            }
            13 => {
                if let Err(e) = d.flush() {
                    panic!("flush: {e}");
                }
            }
            14 => {
                let (x, y) = (key(&mut b), key(&mut b));
                let r = if b.u8() & 1 == 0 {
                    d.compact_range(None, None)
                } else {
                    d.compact_range(Some(&x.clone().min(y.clone())), Some(&x.max(y)))
                };
                if let Err(e) = r {
                    panic!("compact_range: {e}");
                }
            }
            _ => {
                snaps.clear();
                drop(db.take());
                db = Some(open());
            }
        }
    }
    if let Some(d) = db.as_ref() {
        check_all(d, &ReadOptions::default(), &model, &mut Bytes::new(&[0]));
        if let Err(e) = d.wait_for_compaction() {
            panic!("background error: {e}");
        }
    }
    snaps.clear();
    drop(db);
    // Everything acknowledged survives a final reopen.
    let d = open();
    check_all(&d, &ReadOptions::default(), &model, &mut Bytes::new(&[0]));
});
