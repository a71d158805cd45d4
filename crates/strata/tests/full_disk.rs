//! A real full file system: a small tmpfs mounted for the test (needs root;
//! the test says it skipped otherwise). Writes fail with ENOSPC, the DB
//! stops writes with that error, reads keep working, and after space is
//! freed (the tmpfs grown) a reopen recovers every acknowledged synced write.

use std::path::{Path, PathBuf};
use std::process::Command;

use strata::{Db, Options, WriteOptions};
use strata_testkit::key;

struct Mount(PathBuf);

impl Mount {
    fn tmpfs(dir: &Path, size: &str) -> Option<Mount> {
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir)
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        ok.then(|| Mount(dir.to_path_buf()))
    }
    fn resize(&self, size: &str) -> bool {
        Command::new("mount")
            .args(["-o", &format!("remount,size={size}")])
            .arg(&self.0)
            .status()
            .map(|s| s.success())
            .unwrap_or(false)
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn full_disk_stops_writes_keeps_reads_and_recovers() {
    let outer = strata_testkit::tempdir();
    let Some(mount) = Mount::tmpfs(outer.path(), "3m") else {
        eprintln!("SKIPPED: cannot mount a tmpfs here (needs root)");
        return;
    };
    let dir = outer.path().join("db");
    let opts = || {
        Options::default()
            .write_buffer_size(256 << 10)
            .compression(strata::CompressionType::None)
    };
    let value = vec![b'v'; 1000];
    let sync = WriteOptions::default().sync(true).disable_wal(false);
    let mut acked = 0u32;
    let err = {
        let db = Db::open(&dir, opts()).unwrap();
        let mut err = None;
        for i in 0..100_000u32 {
            match db.put_opt(&sync, key(i), &value) {
                Ok(()) => acked = i + 1,
                Err(e) => {
                    err = Some(e);
                    break;
                }
            }
        }
        let err = err.expect("a 3 MB file system must fill up");
        assert!(err.is_no_space(), "expected ENOSPC, got: {err}");
        // Writes stay stopped with the error; reads keep working.
        let again = db.put(b"more", b"data").unwrap_err();
        assert!(again.is_no_space(), "{again}");
        for i in (0..acked).step_by(97) {
            assert_eq!(db.get(key(i)).unwrap().unwrap(), value, "key {i}");
        }
        err
    };
    assert!(
        acked > 100,
        "only {acked} writes before the disk filled: {err}"
    );
    // Free space, reopen: every acknowledged synced write is there.
    assert!(mount.resize("64m"), "remount to a larger size failed");
    let db = Db::open(&dir, opts()).unwrap();
    for i in 0..acked {
        assert_eq!(db.get(key(i)).unwrap().unwrap(), value, "key {i} lost");
    }
    db.put(b"after", b"space freed").unwrap();
    db.flush().unwrap();
    assert_eq!(db.get(b"after").unwrap().unwrap(), b"space freed");
    drop(db);
}
