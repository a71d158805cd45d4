//! Tests of the fault-injecting file system that need engine internals
//! (the log writer and reader).

use std::path::Path;
use std::sync::Arc;

use super::fault::*;
use super::{FileSystem, PosixFileSystem};
use crate::error::Error;
use crate::wal::{Reader, WalRecoveryMode, Writer};

fn setup() -> (strata_testkit::TempDir, FaultInjectionFs) {
    let dir = strata_testkit::tempdir();
    let fs = FaultInjectionFs::new(Arc::new(PosixFileSystem));
    (dir, fs)
}

fn write_file(fs: &FaultInjectionFs, path: &Path, data: &[u8], sync: bool) {
    let mut f = fs.create(path).unwrap();
    f.append(data).unwrap();
    if sync {
        f.sync().unwrap();
    }
}

#[test]
fn unsynced_data_is_dropped_and_synced_data_survives() {
    let (dir, fs) = setup();
    let p = dir.path().join("000001.log");
    let mut f = fs.create(&p).unwrap();
    f.append(b"durable").unwrap();
    f.sync().unwrap();
    f.append(b" lost").unwrap();
    fs.sync_dir(dir.path()).unwrap();
    let q = dir.path().join("000002.log");
    write_file(&fs, &q, b"all synced", true);
    fs.sync_dir(dir.path()).unwrap();
    assert_eq!(fs.read_all(&p).unwrap(), b"durable lost");
    drop(f);
    fs.crash().unwrap();
    assert_eq!(fs.read_all(&p).unwrap(), b"durable");
    assert_eq!(fs.read_all(&q).unwrap(), b"all synced");
}

#[test]
fn file_created_without_dir_sync_disappears() {
    let (dir, fs) = setup();
    let p = dir.path().join("000003.sst");
    write_file(&fs, &p, b"synced data, unsynced name", true);
    fs.crash().unwrap();
    assert!(!fs.exists(&p));
}

#[test]
fn rename_without_dir_sync_is_reverted() {
    let (dir, fs) = setup();
    let current = dir.path().join("CURRENT");
    write_file(&fs, &current, b"MANIFEST-000001\n", true);
    fs.sync_dir(dir.path()).unwrap();
    let tmp = dir.path().join("000002.dbtmp");
    write_file(&fs, &tmp, b"MANIFEST-000002\n", true);
    fs.rename(&tmp, &current).unwrap();
    assert_eq!(fs.read_all(&current).unwrap(), b"MANIFEST-000002\n");
    fs.crash().unwrap();
    assert_eq!(fs.read_all(&current).unwrap(), b"MANIFEST-000001\n");
    assert!(!fs.exists(&tmp));

    // The same sequence with a directory sync is durable.
    write_file(&fs, &tmp, b"MANIFEST-000002\n", true);
    fs.rename(&tmp, &current).unwrap();
    fs.sync_dir(dir.path()).unwrap();
    fs.crash().unwrap();
    assert_eq!(fs.read_all(&current).unwrap(), b"MANIFEST-000002\n");
}

#[test]
fn nth_write_fails_once_or_until_cleared() {
    let (dir, fs) = setup();
    let mut f = fs.create(&dir.path().join("f")).unwrap();
    fs.fail_after(FaultOp::Write, 3, libc::EIO);
    f.append(b"1").unwrap();
    f.append(b"2").unwrap();
    let e = f.append(b"3").unwrap_err();
    match &e {
        Error::Io { source, .. } => assert_eq!(source.raw_os_error(), Some(libc::EIO)),
        other => panic!("{other:?}"),
    }
    f.append(b"4").unwrap();
    assert_eq!(fs.injected(FaultOp::Write), 1);
    assert_eq!(fs.operations(FaultOp::Write), 4);

    fs.fail_from(FaultOp::Write, 2, libc::EIO);
    f.append(b"5").unwrap();
    assert!(f.append(b"6").is_err());
    assert!(f.append(b"7").is_err());
    fs.clear_faults();
    f.append(b"8").unwrap();
    assert_eq!(fs.injected(FaultOp::Write), 3);
    f.sync().unwrap();
    // Failed appends wrote nothing.
    assert_eq!(fs.read_all(&dir.path().join("f")).unwrap(), b"12458");
}

#[test]
fn enospc_is_visible_as_no_space() {
    let (dir, fs) = setup();
    let mut f = fs.create(&dir.path().join("f")).unwrap();
    fs.fail_after(FaultOp::Sync, 1, libc::ENOSPC);
    f.append(b"x").unwrap();
    let e = f.sync().unwrap_err();
    assert!(e.is_no_space(), "{e}");
    fs.fail_after(FaultOp::Create, 1, libc::ENOSPC);
    assert!(fs
        .create(&dir.path().join("g"))
        .err()
        .unwrap()
        .is_no_space());
    fs.fail_after(FaultOp::Rename, 1, libc::EIO);
    let e = fs
        .rename(&dir.path().join("f"), &dir.path().join("h"))
        .unwrap_err();
    assert!(!e.is_no_space());
    assert_eq!(fs.total_injected(), 3);
}

#[test]
fn inactive_fs_fails_every_write_but_reads() {
    let (dir, fs) = setup();
    let p = dir.path().join("f");
    let mut f = fs.create(&p).unwrap();
    f.append(b"ok").unwrap();
    fs.set_active(false);
    assert!(f.append(b"no").is_err());
    assert!(f.sync().is_err());
    assert!(fs.create(&dir.path().join("g")).is_err());
    assert!(fs.sync_dir(dir.path()).is_err());
    assert_eq!(fs.read_all(&p).unwrap(), b"ok");
    fs.set_active(true);
    f.append(b"!").unwrap();
    assert_eq!(fs.read_all(&p).unwrap(), b"ok!");
}

#[test]
fn handles_from_before_a_crash_are_dead() {
    let (dir, fs) = setup();
    let p = dir.path().join("f");
    let mut f = fs.create(&p).unwrap();
    f.append(b"a").unwrap();
    f.sync().unwrap();
    fs.sync_dir(dir.path()).unwrap();
    fs.crash().unwrap();
    assert!(f.append(b"b").is_err());
    assert_eq!(fs.read_all(&p).unwrap(), b"a");
}

#[test]
fn log_writer_refuses_appends_after_a_failed_write() {
    let (dir, fs) = setup();
    let mut w = Writer::new(fs.create(&dir.path().join("000001.log")).unwrap());
    w.add_record(b"first").unwrap();
    fs.fail_after(FaultOp::Write, 1, libc::ENOSPC);
    assert!(w.add_record(b"second").unwrap_err().is_no_space());
    // The fault was one-shot, but the writer stays failed.
    assert!(w.add_record(b"third").is_err());
    assert!(w.sync().is_err());
    assert_eq!(fs.operations(FaultOp::Write), 2);
}

#[test]
fn reopened_file_keeps_old_content_and_drop_unsynced_keeps_names() {
    let (dir, fs) = setup();
    let old = dir.path().join("old");
    std::fs::write(&old, b"pre-existing").unwrap();
    let mut f = fs.reopen_for_append(&old).unwrap();
    f.append(b" + unsynced").unwrap();
    drop(f);
    let new = dir.path().join("new");
    write_file(&fs, &new, b"synced", true);
    write_file(&fs, &new.with_extension("x"), b"unsynced", false);
    fs.drop_unsynced_data().unwrap();
    assert_eq!(fs.read_all(&old).unwrap(), b"pre-existing");
    // Names survive drop_unsynced_data (only crash reverts them).
    assert_eq!(fs.read_all(&new).unwrap(), b"synced");
    assert_eq!(fs.read_all(&new.with_extension("x")).unwrap(), b"");
    fs.crash().unwrap();
    assert!(!fs.exists(&new));
    assert!(fs.exists(&old));
}

#[test]
fn reads_can_fail() {
    let (dir, fs) = setup();
    let p = dir.path().join("f");
    write_file(&fs, &p, b"data", true);
    let r = fs.open_random(&p).unwrap();
    fs.fail_after(FaultOp::Read, 2, libc::EIO);
    assert_eq!(r.read_at(0, 2).unwrap(), b"da");
    assert!(r.read_at(0, 2).is_err());
    assert_eq!(fs.read_all(&p).unwrap(), b"data");
}

#[test]
fn torn_writes_keep_a_prefix_and_the_log_reader_recovers_synced_records() {
    let (mut torn, mut extra_records) = (0, 0);
    for seed in 1..40u64 {
        let (dir, fs) = setup();
        fs.set_torn_writes(Some(seed));
        let p = dir.path().join("000005.log");
        let mut w = Writer::new(fs.create(&p).unwrap());
        fs.sync_dir(dir.path()).unwrap();
        let records: Vec<Vec<u8>> = (0..12u8)
            .map(|i| vec![i; 1000 * (usize::from(i) % 5) + 40_000 * usize::from(i % 3 == 0)])
            .collect();
        for r in &records[..6] {
            w.add_record(r).unwrap();
        }
        w.sync().unwrap();
        let synced_len = w.size();
        for r in &records[6..] {
            w.add_record(r).unwrap();
        }
        let full_len = w.size();
        drop(w);
        fs.crash().unwrap();
        let data = fs.read_all(&p).unwrap();
        assert!(data.len() as u64 >= synced_len && data.len() as u64 <= full_len);
        if data.len() as u64 > synced_len && (data.len() as u64) < full_len {
            torn += 1;
        }
        let mut reader = Reader::new(
            data,
            "000005.log".into(),
            WalRecoveryMode::TolerateCorruptedTailRecords,
        );
        let mut got = Vec::new();
        while let Some(r) = reader.read_record().unwrap() {
            got.push(r);
        }
        assert!(got.len() >= 6, "seed {seed}: lost synced records");
        assert_eq!(&got[..], &records[..got.len()]);
        if got.len() > 6 {
            extra_records += 1;
        }
    }
    // The seeds exercise both torn tails and partly surviving tails.
    assert!(torn > 10 && extra_records > 0, "{torn} {extra_records}");
}
