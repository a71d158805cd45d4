//! Writes the seed corpora under `fuzz/corpus/<target>/` from files made by
//! the engine itself: a small DB's WAL, MANIFEST, OPTIONS and tables, plus
//! tables built directly with each codec and a few hand-made inputs.
//!
//! Run from `fuzz/`: `cargo run --example gen_corpus`.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use strata::tools::sstable::{
    bytewise_cmp, compress_block, Block, Footer, TableOptions, FOOTER_SIZE,
};
use strata::tools::types::{make_internal_key, ValueType};
use strata::tools::wal::Reader;
use strata::tools::InternalIterator;
use strata::WalRecoveryMode;
use strata::{CompressionType, Db, Options, WriteBatch};
use strata_fuzz::{build_table, MemFile};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn put(dir: &Path, target: &str, name: &str, bytes: &[u8]) -> Res<()> {
    let d = dir.join(target);
    fs::create_dir_all(&d)?;
    fs::write(d.join(name), bytes)?;
    Ok(())
}

fn with(prefix: u8, rest: &[u8]) -> Vec<u8> {
    let mut v = vec![prefix];
    v.extend_from_slice(rest);
    v
}

fn entries(n: usize) -> Vec<(Vec<u8>, Vec<u8>)> {
    (0..n)
        .map(|i| {
            let t = if i % 7 == 3 {
                ValueType::Deletion
            } else {
                ValueType::Value
            };
            let v = if t == ValueType::Value {
                format!("value-{i}-{}", "x".repeat(i % 20))
            } else {
                String::new()
            };
            (
                make_internal_key(format!("key{i:05}").as_bytes(), 100 + i as u64, t),
                v.into_bytes(),
            )
        })
        .collect()
}

/// The stored contents of a table's first data block, if it has one.
fn first_data_block(table: &[u8]) -> Res<Option<Vec<u8>>> {
    let tbl = strata::tools::sstable::Table::open(
        Arc::new(MemFile(table.to_vec())),
        1,
        "seed.sst".into(),
        None,
        None,
    )?;
    Ok(tbl
        .index_entries()?
        .first()
        .map(|(_, h)| table[h.offset as usize..(h.offset + h.size) as usize].to_vec()))
}

/// The raw contents of the meta block named `name`, if any.
fn meta_block(table: &[u8], name: &str) -> Res<Option<Vec<u8>>> {
    let at = table.len() - FOOTER_SIZE;
    let f = Footer::decode(&table[at..], "seed.sst", at as u64)?;
    let slice = |h: strata::tools::sstable::BlockHandle| {
        table[h.offset as usize..(h.offset + h.size) as usize].to_vec()
    };
    let meta = Arc::new(Block::new(slice(f.metaindex), Arc::from("seed.sst"), 0)?);
    let mut it = meta.iter(bytewise_cmp);
    it.seek_to_first();
    while it.valid() {
        if it.key() == name.as_bytes() {
            if let Some(h) = strata::tools::sstable::BlockHandle::decode(it.value()) {
                return Ok(Some(slice(h)));
            }
        }
        it.next();
    }
    Ok(None)
}

fn main() -> Res<()> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("corpus");

    // Tables built directly, one per codec, with and without a filter.
    for (i, c) in CompressionType::ALL.iter().enumerate() {
        let opts = TableOptions {
            block_size: 256,
            block_restart_interval: 4,
            compression: *c,
            bloom_bits_per_key: if i % 2 == 0 { 10.0 } else { 0.0 },
            ..TableOptions::default()
        };
        let t = build_table(&opts, &entries(24))?;
        put(&root, "sst", &format!("table-{}", c.short_name()), &t)?;
        let at = t.len() - FOOTER_SIZE;
        put(&root, "footer", &format!("valid-{i}"), &with(0, &t[at..]))?;
        put(
            &root,
            "footer",
            &format!("fixup-{i}"),
            &with(1, &t[at..at + 32]),
        )?;
        if let Some(p) = meta_block(&t, "properties")? {
            put(&root, "properties", &format!("props-{i}"), &p)?;
        }
        if let Some(f) = meta_block(&t, "filter")? {
            put(&root, "bloom", &format!("filter-{i}"), &f)?;
        }
        if *c == CompressionType::None {
            // The first data block and the index block, uncompressed.
            let f = Footer::decode(&t[at..], "seed.sst", at as u64)?;
            put(
                &root,
                "block",
                "index",
                &t[f.index.offset as usize..(f.index.offset + f.index.size) as usize],
            )?;
            if let Some(b) = first_data_block(&t)? {
                put(&root, "block", "data", &b)?;
            }
        }
        if *c == CompressionType::None {
            // A table whose data blocks carry a hash index (format version
            // 4), and its first data block.
            let hashed = TableOptions {
                data_block_hash_util_ratio: Some(0.75),
                ..opts.clone()
            };
            let t = build_table(&hashed, &entries(24))?;
            put(&root, "sst", "table-hash", &t)?;
            if let Some(b) = first_data_block(&t)? {
                put(&root, "block", "data-hash", &b)?;
            }
        }
        let text =
            b"the quick brown fox jumps over the lazy dog, the quick brown fox again and again";
        let mut out = Vec::new();
        let used = compress_block(*c, text, &mut out);
        put(
            &root,
            "compression",
            &format!("c-{}", c.short_name()),
            &with(
                used as u8,
                if used == CompressionType::None {
                    text
                } else {
                    &out
                },
            ),
        )?;
    }

    // Round-trip target: options bytes, then (key len, key, value len, value) records, then damage.
    put(
        &root,
        "sst_roundtrip",
        "small",
        b"\x02\x03\x00\x0a\x05\x03abc\x04wxyz\x03abd\x06uvwxyz\x01q\x05\x00",
    )?;
    put(&root, "sst_roundtrip", "snappy-damaged", b"\x00\x01\x01\x00\x04\x03aaa\x10aaaaaaaaaaaaaaaa\x03aab\x01b\x03aac\x00\x03aad\x02cc\x10\x00\xff")?;
    put(
        &root,
        "sst_roundtrip",
        "zstd-bloom",
        b"\x01\x10\x03\x0a\x06\x01a\x01A\x01b\x01B\x01c\x01C\x01d\x01D\x01e\x01E\x01f\x01F",
    )?;

    // A real DB: WAL, MANIFEST, OPTIONS and flushed tables.
    let dir = tempfile::tempdir()?;
    let o = Options::default().create_if_missing(true);
    {
        let mut mo = o.clone();
        mo.set("merge_operator", "uint64add")?;
        let db = Db::open(dir.path(), mo)?;
        for i in 0..20u32 {
            db.put(format!("k{i:02}").as_bytes(), format!("v{i}").as_bytes())?;
        }
        db.delete(b"k03")?;
        db.flush()?;
        let mut b = WriteBatch::new();
        b.put(b"k05", b"batched");
        b.delete(b"k06");
        b.put(b"k30", b"new");
        db.write(b)?;
        db.compact_range(None, None)?;
        db.put(b"k07", b"after-compaction")?;
        db.delete(b"k08")?;
        // Merge operands (value type 3) in the WAL, alone and in a batch.
        db.merge(b"k09", 1u64.to_le_bytes())?;
        let mut b = WriteBatch::new();
        b.merge(b"k09", 2u64.to_le_bytes());
        b.put(b"k31", b"next-to-a-merge");
        db.write(b)?;
    }
    // A DB with blob files (values of 32 bytes or more are separated).
    let bdir = tempfile::tempdir()?;
    {
        let bo = o.clone().enable_blob_files(true).min_blob_size(32);
        let db = Db::open(bdir.path(), bo)?;
        for i in 0..8u32 {
            db.put(
                format!("b{i:02}").as_bytes(),
                "blob-value-".repeat(4 + i as usize).as_bytes(),
            )?;
        }
        db.flush()?;
    }
    for e in fs::read_dir(bdir.path())? {
        let p = e?.path();
        let name = p
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        if name.ends_with(".blob") {
            put(&root, "blob_file", &name, &with(0, &fs::read(&p)?))?;
        }
    }
    put(
        &root,
        "blob_file",
        "built-none",
        b"\x01\x00\x03abc\x10def\x40\x05\x20\x00",
    )?;
    put(
        &root,
        "blob_file",
        "built-lz4-damaged",
        b"\x01\x02\x04aaaaa\x85bbbbb\x05ccccc\x01d\x30\x00\x5a\x10\x01\x00",
    )?;
    put(
        &root,
        "blob_file",
        "built-zstd",
        b"\x01\x03\x02\xffxyz\x42q",
    )?;
    for (i, idx) in [
        (7u64, 30u64, 100u64, CompressionType::None),
        (1, 1 << 40, 5, CompressionType::Zstd),
    ]
    .iter()
    .enumerate()
    {
        let bi = strata::tools::blob::BlobIndex {
            file_number: idx.0,
            offset: idx.1,
            size: idx.2,
            compression: idx.3,
        };
        put(&root, "blob_index", &format!("idx-{i}"), &bi.encode())?;
    }

    let mut n_manifest = 0;
    for e in fs::read_dir(dir.path())? {
        let p = e?.path();
        let name = p
            .file_name()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        let bytes = fs::read(&p)?;
        if name.ends_with(".log") && !bytes.is_empty() {
            put(&root, "wal", &name, &with(0, &bytes))?;
            let mut r = Reader::new(bytes, name.clone(), WalRecoveryMode::PointInTimeRecovery);
            let mut i = 0;
            while let Some(rec) = r.read_record()? {
                put(&root, "batch", &format!("{name}-{i}"), &rec)?;
                i += 1;
            }
        } else if name.starts_with("MANIFEST") {
            put(&root, "manifest", &name, &with(0, &bytes))?;
            let mut r = Reader::new(
                bytes,
                name.clone(),
                WalRecoveryMode::TolerateCorruptedTailRecords,
            );
            while let Some(rec) = r.read_record()? {
                put(&root, "version_edit", &format!("{name}-{n_manifest}"), &rec)?;
                n_manifest += 1;
            }
        } else if name.starts_with("OPTIONS") {
            put(&root, "options_file", "real", &with(0, &bytes))?;
            let body_end = bytes
                .windows(9)
                .rposition(|w| w == b"checksum=")
                .unwrap_or(bytes.len());
            put(
                &root,
                "options_file",
                "body-fixup",
                &with(1, &bytes[..body_end]),
            )?;
        } else if name.ends_with(".sst") && bytes.len() < 4096 {
            put(&root, "sst", &name, &bytes)?;
        }
    }
    // Structured WAL/MANIFEST seeds (writer-made, then damaged).
    put(
        &root,
        "wal",
        "structured",
        b"\x01\x03a\x10\x00\xe2\x00\x90c\x20\x00\x00\x01\x00",
    )?;
    put(
        &root,
        "wal",
        "structured-trunc",
        b"\x01\x02\xfa\x00\x01\xf9\x00\x80\x01\x40\x00",
    )?;
    put(
        &root,
        "manifest",
        "structured",
        b"\x01\x04\x01\x05abc\x02\x02\x00\x07",
    )?;
    put(
        &root,
        "options_file",
        "minimal",
        b"\x01[DBOptions]\n  write_buffer_size=65536\n",
    )?;

    for (i, v) in [0u64, 1, 127, 128, 300, 1 << 32, u64::MAX]
        .iter()
        .enumerate()
    {
        let mut e = Vec::new();
        strata::tools::coding::put_varint64(&mut e, *v);
        e.extend_from_slice(b"\x05hello\x01\x02\x03\x04");
        put(&root, "varint", &format!("v{i}"), &e)?;
    }

    // db_model: options byte, then operations (see the target's match).
    put(
        &root,
        "db_model",
        "puts-get-scan",
        b"\x00\x00\x01\x05\x00\x02\x07\x01\x03\x09\x08\x01\x0a\x00",
    )?;
    put(
        &root,
        "db_model",
        "flush-reopen",
        b"\x11\x00\x01\x05\x01\x02\x07\x05\x01\x0d\x0f\x08\x01\x0a\x03\x02\x09",
    )?;
    put(
        &root,
        "db_model",
        "snapshot",
        b"\x23\x00\x04\x06\x0b\x00\x04\x41\x05\x04\x0c\x00\x04\x00\x0e\x00\x00\x00\x0c\x00\x04\x01",
    )?;
    put(&root, "db_model", "blob-gc", b"\xc4\x00\x01\x07\x00\x02\x07\x01\x01\x07\x0d\x00\x01\x09\x0e\x00\x00\x00\x0f\x08\x01\x0a\x00")?;
    put(
        &root,
        "db_model",
        "batch-compact",
        b"\x02\x07\x04\x04\x01\x02\x05\x02\x03\x00\x06\x07\x03\x01\x0e\x01\x09\x00\x0a\x01\x02\x08",
    )?;
    let mut big = vec![0x01u8];
    for i in 0..120u8 {
        big.extend_from_slice(&[0x00, i % 40, 0xff]);
    }
    big.extend_from_slice(&[0x0d, 0x0e, 0x00, 0x00, 0x00, 0x0f, 0x0a, 0x00]);
    put(&root, "db_model", "many-big-values", &big)?;
    println!("corpus written under {}", root.display());
    Ok(())
}
