//! The README's API example: open, write, read, iterate, snapshot, column
//! families.
//!
//! Run: `cargo run -p strata --example quickstart`

use strata::{Db, Options, ReadOptions, WriteBatch};

fn main() -> strata::Result<()> {
    let dir = std::env::temp_dir().join("strata-quickstart");
    let _ = std::fs::remove_dir_all(&dir);
    let opts: Options =
        "write_buffer_size=4194304;compression=kLZ4Compression;bloom_bits_per_key=10".parse()?;
    let db = Db::open(&dir, opts)?;

    db.put(b"apple", b"red")?;
    let mut batch = WriteBatch::new();
    batch.put(b"banana", b"yellow");
    batch.put(b"cherry", b"dark red");
    batch.delete(b"apple");
    db.write(batch)?; // atomic

    let snap = db.snapshot();
    db.put(b"banana", b"green")?;

    assert_eq!(db.get(b"apple")?, None);
    assert_eq!(db.get(b"banana")?.as_deref(), Some(&b"green"[..]));
    let at_snap = ReadOptions::default().snapshot(Some(snap));
    assert_eq!(
        db.get_opt(&at_snap, b"banana")?.as_deref(),
        Some(&b"yellow"[..])
    );

    // Keys from "a" up to (not including) "c"; `db.prefix(..)` and `db.iter()` too.
    for item in db.range(&b"a"[..]..&b"c"[..]) {
        let (k, v) = item?;
        println!(
            "{} = {}",
            String::from_utf8_lossy(&k),
            String::from_utf8_lossy(&v)
        );
    }
    db.flush()?;
    println!(
        "L0 files: {}",
        db.property("rocksdb.num-files-at-level0")
            .unwrap_or_default()
    );

    // A column family with its own options; one batch spans families.
    let cold: Options = "compaction_style=kCompactionStyleUniversal".parse()?;
    let cold = db.create_column_family("cold", cold)?;
    let mut batch = WriteBatch::new();
    batch.put_cf(&cold, b"archive", b"2019");
    batch.put(b"banana", b"brown");
    db.write(batch)?;
    assert_eq!(db.get_cf(&cold, b"archive")?.as_deref(), Some(&b"2019"[..]));
    db.close()?; // or drop(db), which cannot report a final error
                 // A DB with families opens with all of them.
    let db = Db::open_cf(&dir, Options::default(), [("cold", Options::default())])?;
    let cold = db.column_family("cold").expect("opened");
    assert_eq!(db.get_cf(&cold, b"archive")?.as_deref(), Some(&b"2019"[..]));
    Ok(())
}
