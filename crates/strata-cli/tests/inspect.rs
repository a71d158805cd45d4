//! End-to-end tests of `strata inspect`: each subcommand is run as the built
//! binary on a DB made with the engine.

use std::path::{Path, PathBuf};
use std::process::Command;

use strata::{Db, Options, WriteBatch};
use strata_testkit::{key, options_file};

/// Exit code, stdout and stderr of `strata <args>`.
fn strata(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_strata"))
        .args(args)
        .output()
        .expect("run strata");
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(!e.contains("panicked"), "strata {args:?} panicked: {e}");
    (out.status.code().unwrap_or(-1), o, e)
}

fn inspect(args: &[&str]) -> (i32, String, String) {
    let mut v = vec!["inspect"];
    v.extend_from_slice(args);
    strata(&v)
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Opens a DB with a 64 KiB write buffer and writes: 3000 keys compacted to
/// the bottom, 600 more flushed to L0, then (in the WAL only) a batch with
/// `wal-put` and a delete of `wal-del`. The DB is returned open.
fn make_db(dir: &Path) -> Db {
    let opts = Options::default()
        .write_buffer_size(64 << 10)
        .target_file_size_base(64 << 10);
    let db = Db::open(dir, opts).unwrap();
    let value = vec![b'v'; 100];
    for i in 0..3000 {
        db.put(key(i), &value).unwrap();
    }
    db.compact_range(None, None).unwrap();
    for i in 3000..3600 {
        db.put(key(i), &value).unwrap();
    }
    db.delete(key(3001)).unwrap();
    db.flush().unwrap();
    let mut b = WriteBatch::new();
    b.put(b"wal-put", b"twelve bytes");
    b.delete(b"wal-del");
    db.write(b).unwrap();
    db
}

fn files_with(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_str().unwrap().ends_with(suffix))
        .collect();
    v.sort();
    v
}

fn manifest(dir: &Path) -> PathBuf {
    let cur = std::fs::read_to_string(dir.join("CURRENT")).unwrap();
    dir.join(cur.trim())
}

/// Name, size and modification time of every file in `dir`.
fn snapshot(dir: &Path) -> Vec<(String, u64, std::time::SystemTime)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let m = e.metadata().unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                m.len(),
                m.modified().unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

/// Copies every file of `from` into a new temp dir (the DB must be closed).
fn copy_db(from: &Path) -> strata_testkit::TempDir {
    let to = strata_testkit::tempdir();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_name() != "LOCK" {
            std::fs::copy(e.path(), to.path().join(e.file_name())).unwrap();
        }
    }
    to
}

fn flip_byte(path: &Path, offset: usize) {
    let mut data = std::fs::read(path).unwrap();
    data[offset] ^= 0x40;
    std::fs::write(path, data).unwrap();
}

#[test]
fn sst_shows_properties_index_and_entries() {
    let dir = strata_testkit::tempdir();
    let db = make_db(dir.path());
    let ssts = files_with(dir.path(), ".sst");
    assert!(ssts.len() >= 3, "expected several tables, got {ssts:?}");
    let sst = &ssts[0];
    let (code, out, err) = inspect(&["sst", p(sst)]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("rocksdb.num.entries: "), "{out}");
    assert!(out.contains("Index ("), "{out}");
    assert!(out.contains("-> offset 0 size "), "{out}");
    assert!(!out.contains("Entries"), "entries need --entries: {out}");

    let (code, out, _) = inspect(&["sst", p(sst), "--entries", "--limit", "3"]);
    assert_eq!(code, 0);
    let entry_lines: Vec<&str> = out.lines().filter(|l| l.contains(" => '")).collect();
    assert_eq!(entry_lines.len(), 3, "{out}");
    assert!(entry_lines[0].starts_with("  'key"), "{out}");
    assert!(entry_lines[0].contains(" : Value => 'vvvv"), "{out}");
    assert!(out.contains("stopped after 3 entries"), "{out}");

    let (code, out, _) = inspect(&["sst", p(sst), "--entries", "--hex", "--max-value", "2"]);
    assert_eq!(code, 0);
    assert!(out.contains("0x6b6579"), "hex of 'key': {out}");
    assert!(out.contains("=> 0x7676... (100 bytes)"), "{out}");
    // The tombstone written for key003001 is in the flushed L0 table.
    let found = ssts.iter().any(|s| {
        let (_, out, _) = inspect(&["sst", p(s), "--entries"]);
        out.contains("'key003001' @ ") && out.contains(" : Deletion => ''")
    });
    assert!(found, "no table shows the tombstone");
    drop(db);
}

#[test]
fn wal_lists_records_ops_and_dropped_bytes() {
    let dir = strata_testkit::tempdir();
    let db = make_db(dir.path());
    let wals = files_with(dir.path(), ".log");
    let mut outs = String::new();
    for w in &wals {
        let (code, out, err) = inspect(&["wal", p(w)]);
        assert_eq!(code, 0, "{err}");
        outs.push_str(&out);
    }
    // The WAL started by a flush opens with its predecessor record.
    assert!(outs.contains("record at offset 36: sequence "), "{outs}");
    assert!(
        outs.contains("predecessor record at offset 0: follows WAL "),
        "{outs}"
    );
    assert!(outs.contains(" count 2 "), "{outs}");
    assert!(outs.contains("Put 'wal-put' value 12 bytes"), "{outs}");
    assert!(outs.contains("Delete 'wal-del'"), "{outs}");
    drop(db);

    // A torn tail: point-in-time recovery reports it, absolute consistency
    // refuses it with a Corruption naming the file.
    let w = wals
        .iter()
        .find(|w| std::fs::metadata(w).unwrap().len() > 10)
        .unwrap();
    let data = std::fs::read(w).unwrap();
    let t = strata_testkit::tempdir();
    let torn = t.path().join("000099.log");
    std::fs::write(&torn, &data[..data.len() - 3]).unwrap();
    let (code, out, _) = inspect(&["wal", p(&torn)]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("dropped "), "{out}");
    assert!(out.contains("bytes at offset "), "{out}");
    assert!(out.contains("torn tail"), "{out}");
    let (code, _, err) = inspect(&["wal", p(&torn), "--mode", "kAbsoluteConsistency"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("Corruption") && err.contains("000099.log"),
        "{err}"
    );
    let (code, _, err) = inspect(&["wal", p(&torn), "--mode", "kBogus"]);
    assert_eq!(code, 2);
    assert!(err.contains("kPointInTimeRecovery"), "{err}");
}

#[test]
fn manifest_lists_edits_with_offsets() {
    let dir = strata_testkit::tempdir();
    let db = make_db(dir.path());
    let (code, out, err) = inspect(&["manifest", p(&manifest(dir.path()))]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("edit #1 at offset 0: VersionEdit {"), "{out}");
    assert!(
        out.contains("Comparator: leveldb.BytewiseComparator"),
        "{out}"
    );
    assert!(out.contains("AddFile: L0 #"), "{out}");
    assert!(out.contains("'key0"), "{out}");
    drop(db);
}

#[test]
fn db_shows_levels_files_wals_and_options_while_open_without_writing() {
    let dir = strata_testkit::tempdir();
    let db = make_db(dir.path());
    let before = snapshot(dir.path());
    let (code, out, err) = inspect(&["db", p(dir.path())]);
    assert_eq!(code, 0, "{err}");
    let (code, _, err) = inspect(&["verify", p(dir.path())]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        snapshot(dir.path()),
        before,
        "inspect changed the directory"
    );

    assert!(out.contains("CURRENT -> MANIFEST-"), "{out}");
    let l0 = db.property("rocksdb.num-files-at-level0").unwrap();
    assert!(
        out.lines()
            .any(|l| l.starts_with("L0 ") && l.split_whitespace().nth(1) == Some(l0.as_str())),
        "L0 should have {l0} files: {out}"
    );
    assert!(out.contains("\nTotal "), "{out}");
    assert!(out.contains("keys ['key000000' .. 'key"), "{out}");
    for sst in files_with(dir.path(), ".sst") {
        let name = sst.file_name().unwrap().to_str().unwrap();
        assert!(out.contains(&format!("{name} ")), "{name} missing: {out}");
    }
    assert!(out.contains("(live, replayed on open)"), "{out}");
    assert!(out.contains("write_buffer_size=65536"), "{out}");
    assert!(!out.contains("MISSING"), "{out}");

    let (code, out, _) = inspect(&["db", p(dir.path()), "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let levels = v["levels"].as_array().unwrap();
    let total: u64 = levels
        .iter()
        .map(|l| l["num_files"].as_u64().unwrap())
        .sum();
    assert_eq!(total as usize, files_with(dir.path(), ".sst").len());
    assert_eq!(v["levels"][0]["num_files"].to_string(), l0);
    assert_eq!(v["options"]["options"]["write_buffer_size"], "65536");
    drop(db);
}

#[test]
fn verify_reports_clean_db_and_a_flipped_sst_byte() {
    let dir = strata_testkit::tempdir();
    drop(make_db(dir.path()));
    let (code, out, err) = inspect(&["verify", p(dir.path())]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("OK       CURRENT"), "{out}");
    assert!(out.contains("OK       MANIFEST-"), "{out}");
    assert!(out.contains(".log"), "{out}");
    assert!(out.contains("OK       OPTIONS-"), "{out}");
    assert!(out.contains(" 0 corrupt"), "{out}");
    let ssts = files_with(dir.path(), ".sst");
    for s in &ssts {
        let name = s.file_name().unwrap().to_str().unwrap();
        assert!(out.contains(&format!("OK       {name}")), "{out}");
    }

    let bad = copy_db(dir.path());
    let victim = files_with(bad.path(), ".sst").remove(0);
    let vname = victim.file_name().unwrap().to_str().unwrap().to_string();
    flip_byte(&victim, 20); // inside the first data block
    let (code, out, _) = inspect(&["verify", p(bad.path())]);
    assert_eq!(code, 1, "{out}");
    let line = out
        .lines()
        .find(|l| l.starts_with("CORRUPT"))
        .unwrap_or_else(|| panic!("no CORRUPT line: {out}"));
    assert!(line.contains(&vname), "{line}");
    assert!(
        line.contains("Corruption") && line.contains("at offset 0"),
        "{line}"
    );
    assert!(out.contains(" 1 corrupt"), "{out}");
    // Only that file is reported.
    assert_eq!(out.matches("CORRUPT").count(), 1, "{out}");

    let (code, out, _) = inspect(&["verify", p(bad.path()), "--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["corrupt"], 1);
    assert_eq!(v["ok"], false);

    // The sst dump of the damaged table fails with exit 1 once it reads the block.
    let (code, _, err) = inspect(&["sst", p(&victim), "--entries"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains(&vname) && err.contains("checksum"), "{err}");
}

#[test]
fn verify_reports_damaged_manifest_wal_and_options() {
    let dir = strata_testkit::tempdir();
    drop(make_db(dir.path()));

    let bad = copy_db(dir.path());
    let m = manifest(bad.path());
    flip_byte(&m, 10);
    let (code, out, _) = inspect(&["verify", p(bad.path())]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("CORRUPT  MANIFEST"), "{out}");
    // The tables are still checked, found in the directory listing.
    assert!(out.contains("OK       0"), "{out}");

    let bad = copy_db(dir.path());
    let opts = options_file(bad.path());
    let text = std::fs::read_to_string(&opts).unwrap();
    std::fs::write(
        &opts,
        text.replace("write_buffer_size=65536", "write_buffer_size=65537"),
    )
    .unwrap();
    let (code, out, _) = inspect(&["verify", p(bad.path())]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("CORRUPT  OPTIONS-") && out.contains("checksum mismatch"),
        "{out}"
    );

    // A damaged WAL header with valid records after it is mid-log damage.
    let bad = copy_db(dir.path());
    let wal = files_with(bad.path(), ".log")
        .into_iter()
        .find(|w| std::fs::metadata(w).unwrap().len() > 0)
        .unwrap();
    let mut data = std::fs::read(&wal).unwrap();
    let good = data.clone();
    data.extend_from_slice(&good); // a second copy of the records follows
    data[0] ^= 0x01; // break the first record's checksum
    std::fs::write(&wal, data).unwrap();
    let (code, out, _) = inspect(&["verify", p(bad.path())]);
    assert_eq!(code, 1, "{out}");
    let wname = wal.file_name().unwrap().to_str().unwrap();
    assert!(out.contains(&format!("CORRUPT  {wname}")), "{out}");
}

#[test]
fn errors_are_clear_and_not_panics() {
    let t = strata_testkit::tempdir();
    let missing = t.path().join("nope.sst");
    for sub in ["sst", "wal", "manifest"] {
        let (code, _, err) = inspect(&[sub, p(&missing)]);
        assert_eq!(code, 2, "{sub}: {err}");
        assert!(err.contains("nope.sst"), "{sub}: {err}");
    }
    for sub in ["db", "verify"] {
        let (code, _, err) = inspect(&[sub, p(t.path())]);
        assert_eq!(code, 2, "{sub}: {err}");
        assert!(err.contains("not a Strata DB"), "{sub}: {err}");
    }
    let garbage = t.path().join("000001.sst");
    std::fs::write(
        &garbage,
        b"not a table at all, not a table at all, not a table",
    )
    .unwrap();
    let (code, _, err) = inspect(&["sst", p(&garbage)]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("Corruption") && err.contains("000001.sst"),
        "{err}"
    );
    let (code, _, err) = inspect(&["manifest", p(&garbage)]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("no complete version edit"), "{err}");
    let (code, _, err) = inspect(&["wal", p(&garbage), "--mode", "kAbsoluteConsistency"]);
    assert_eq!(code, 1, "{err}");
    let (code, _, _) = inspect(&["frobnicate"]);
    assert_eq!(code, 2);
    let (code, out, _) = inspect(&["--help"]);
    assert_eq!(code, 0);
    assert!(out.contains("verify"), "{out}");
    let (code, _, err) = strata(&["no-such-subcommand"]);
    assert_ne!(code, 0);
    assert!(err.contains("no-such-subcommand"), "{err}");
}

/// Not a check: builds the sample DB used for the example output in
/// `docs/inspect.md` at `$STRATA_INSPECT_SAMPLE` (run with `--ignored`).
#[test]
#[ignore]
fn make_sample_db_for_docs() {
    if let Ok(dir) = std::env::var("STRATA_INSPECT_SAMPLE") {
        drop(make_db(Path::new(&dir)));
    }
}

/// `db` and `verify` run while another writer is flushing and compacting
/// (files appear and disappear, the MANIFEST grows, the WAL switches): they
/// must report no false corruption and change nothing they read.
#[test]
fn db_and_verify_while_the_db_is_busy() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;

    let dir = strata_testkit::tempdir();
    let opts = Options::default()
        .write_buffer_size(16 << 10)
        .target_file_size_base(16 << 10)
        .max_bytes_for_level_base(64 << 10)
        .level0_file_num_compaction_trigger(2);
    let db = Arc::new(Db::open(dir.path(), opts).unwrap());
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let (db, stop) = (db.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut i = 0u32;
            while !stop.load(Ordering::Relaxed) {
                db.put(key(i % 5000), [b'x'; 64]).unwrap();
                i += 1;
            }
            i
        })
    };
    std::thread::sleep(std::time::Duration::from_millis(200));
    let start = std::time::Instant::now();
    let mut round = 0;
    while round < 6 || start.elapsed() < std::time::Duration::from_millis(1500) {
        round += 1;
        let (code, out, err) = inspect(&["verify", p(dir.path())]);
        assert_eq!(code, 0, "round {round}: {out}{err}");
        let (code, out, err) = inspect(&["db", p(dir.path()), "--json"]);
        assert_eq!(code, 0, "round {round}: {err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert!(v["last_sequence"].as_u64().is_some(), "{out}");
    }
    stop.store(true, Ordering::Relaxed);
    let writes = writer.join().unwrap();
    assert!(writes > 0);
    db.flush().unwrap();
    let (code, out, _) = inspect(&["db", p(dir.path()), "--json"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["total_files"].as_u64().unwrap() > 0, "{out}");
}

/// Bytes of a table's footer (see `docs/formats/sstable.md`).
const FOOTER: usize = 48;

/// Random bit flips and truncations of every file of a DB: every subcommand
/// ends with a clean exit status (never a panic), and a damaged table or
/// WAL record region is caught by `verify`.
#[test]
fn random_damage_never_panics() {
    let dir = strata_testkit::tempdir();
    drop(make_db(dir.path()));
    let mut rng: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |n: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % n.max(1) as u64) as usize
    };
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != "LOCK" && n != "LOG")
        .collect();
    for name in &names {
        for round in 0..6 {
            let bad = copy_db(dir.path());
            let path = bad.path().join(name);
            let mut data = std::fs::read(&path).unwrap();
            if data.is_empty() {
                continue;
            }
            let truncate = round % 2 == 1;
            let mut flipped = usize::MAX;
            if truncate {
                data.truncate(next(data.len()));
            } else {
                flipped = next(data.len());
                data[flipped] ^= 1 << next(8);
            }
            std::fs::write(&path, &data).unwrap();
            let what = format!("{name} round {round} truncate {truncate}");
            let sub = if name.ends_with(".sst") {
                vec!["sst", "--entries"]
            } else if name.ends_with(".log") {
                vec!["wal", "--mode", "kSkipAnyCorruptedRecords"]
            } else if name.starts_with("MANIFEST") {
                vec!["manifest"]
            } else {
                vec![]
            };
            if !sub.is_empty() {
                let mut args = vec![sub[0], p(&path)];
                args.extend_from_slice(&sub[1..]);
                let (code, _, err) = inspect(&args);
                assert!((0..=2).contains(&code), "{what}: {code} {err}");
            }
            let (code, out, err) = inspect(&["verify", p(bad.path())]);
            assert!(code == 0 || code == 1, "{what}: {code} {out}{err}");
            if name.ends_with(".sst") && (truncate || flipped < data.len() - FOOTER) {
                // Every byte before the footer is in a checksummed block,
                // and a table cut short fails the size or footer checks.
                assert_eq!(code, 1, "{what}: {out}");
            }
            let (code, _, err) = inspect(&["db", p(bad.path())]);
            assert!((0..=2).contains(&code), "{what}: {code} {err}");
        }
    }
}

#[test]
fn blob_files_are_dumped_their_garbage_shown_and_verified() {
    let dir = strata_testkit::tempdir();
    {
        let opts = Options::default()
            .write_buffer_size(64 << 10)
            .enable_blob_files(true)
            .min_blob_size(100);
        let db = Db::open(dir.path(), opts).unwrap();
        for round in 0..2 {
            for i in 0..300 {
                db.put(key(i), format!("{round:0>300}").as_bytes()).unwrap();
            }
            db.flush().unwrap();
        }
        db.compact_range(None, None).unwrap();
    }
    let blobs = files_with(dir.path(), ".blob");
    assert!(!blobs.is_empty(), "no blob files written");
    let (code, out, err) = inspect(&["blob", p(&blobs[0])]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Blob file") && out.contains("key"), "{out}");
    let (code, out, err) = inspect(&["db", p(dir.path())]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("garbage"), "{out}");
    assert!(out.contains("Number of blob files"), "{out}");
    let (code, out, _) = inspect(&["verify", p(dir.path())]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(".blob"), "{out}");
    // A flipped byte inside a live blob file's records is found.
    let live = blobs
        .iter()
        .find(|b| out.contains(b.file_name().unwrap().to_str().unwrap()))
        .unwrap()
        .clone();
    flip_byte(&live, 60);
    let (code, out, _) = inspect(&["verify", p(dir.path())]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("CORRUPT") && out.contains(live.file_name().unwrap().to_str().unwrap()),
        "{out}"
    );
}

/// A DB with column families: `inspect db` names them and shows the tables
/// of the live ones only; `inspect verify` finds no problem after a drop
/// removed a family's tables.
#[test]
fn column_families_are_listed_and_a_dropped_one_is_gone() {
    let dir = strata_testkit::tempdir();
    {
        let db = Db::open(dir.path(), Options::default()).unwrap();
        let hot = db.create_column_family("hot", Options::default()).unwrap();
        let gone = db.create_column_family("gone", Options::default()).unwrap();
        for i in 0..100u32 {
            db.put_cf(&hot, format!("h{i:04}"), b"v").unwrap();
            db.put_cf(&gone, format!("g{i:04}"), b"v").unwrap();
        }
        db.flush_cf(&hot).unwrap();
        db.flush_cf(&gone).unwrap();
        db.drop_column_family(&gone).unwrap();
        drop(gone);
        db.put(b"d", b"1").unwrap();
        db.flush().unwrap();
    }
    let (code, out, err) = inspect(&["db", p(dir.path())]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("column families: default (id 0), hot (id 1)"),
        "{out}"
    );
    let (code, out, err) = inspect(&["db", "--json", p(dir.path())]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["column_families"][1]["name"], "hot");
    assert_eq!(v["levels"][0]["num_files"], 2, "{out}");
    let (code, out, _) = inspect(&["verify", p(dir.path())]);
    assert_eq!(code, 0, "{out}");
}
