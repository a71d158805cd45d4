//! Named sync points: places in the engine where a crash test can kill
//! the process (RocksDB's db_crashtest "whitebox" kills).
//!
//! Each [`SyncPoint`] marks a moment on a durability path: a WAL record
//! written, a table synced before the MANIFEST edit that names it, the
//! edit synced, CURRENT renamed, a step of recovery. A crash test arms one
//! point with [`arm_kill`] ("kill at `point` on its `hit`-th time"); when
//! the point is reached for that time, the process sends itself SIGKILL:
//! no unwinding, no flushing, exactly like an external `kill -9`.
//!
//! The points exist only with the cargo feature `sync-points`. Without it,
//! [`hit`] is an empty inline function and the arming API is absent. With
//! it and nothing armed, a point costs one relaxed atomic load and a
//! branch; the points sit on per-write-group and per-file paths, never
//! per key.
//!
//! Arming is process-global: one point at a time, set before the work it
//! aims at starts.

/// A named place in the engine where a crash test can kill the process.
/// [`SyncPoint::what`] says what has just happened when it fires.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SyncPoint {
    /// `wal.append`: a write group's record was appended to the WAL (not
    /// yet flushed to the OS or synced), before the memtable insert and
    /// the acknowledgement.
    WalAppend,
    /// `wal.sync`: a synced write's WAL record was synced, before the
    /// memtable insert and the acknowledgement.
    WalSync,
    /// `memtable.switch`: memtables became immutable and a new WAL was
    /// created, before the flush of the old memtables.
    MemtableSwitch,
    /// `table.synced`: a table file (a flush's, a compaction's or a
    /// recovery's output) was written and synced, before the MANIFEST
    /// edit that names it.
    TableSynced,
    /// `blob.finished`: a blob file was finished (footer written) and
    /// synced, before the MANIFEST edit that names it.
    BlobFinished,
    /// `flush.manifest_synced`: a flush's MANIFEST edit was written and
    /// synced, before the obsolete files are deleted.
    FlushManifestSynced,
    /// `compaction.manifest_synced`: a compaction's MANIFEST edit (also a
    /// trivial move's or a FIFO deletion's) was written and synced, before
    /// its inputs are deleted.
    CompactionManifestSynced,
    /// `current.renamed`: CURRENT was renamed to name a new MANIFEST
    /// (created, recovered or rolled over) and the directory synced, before
    /// the old MANIFEST is deleted.
    CurrentRenamed,
    /// `purge.file_deleted`: one obsolete file (table, blob file, WAL,
    /// MANIFEST, OPTIONS) was deleted, before the next one.
    PurgeFileDeleted,
    /// `recovery.manifest_read`: recovery replayed the MANIFEST named by
    /// CURRENT, before it writes a new one.
    RecoveryManifestRead,
    /// `recovery.new_manifest`: recovery wrote and synced a new MANIFEST
    /// with a snapshot of the state and pointed CURRENT at it, before the
    /// WALs are replayed.
    RecoveryNewManifest,
    /// `recovery.wal_replayed`: recovery read one WAL into memtables,
    /// before the next WAL.
    RecoveryWalReplayed,
    /// `recovery.table_written`: a recovery flush wrote a replayed
    /// memtable to a synced L0 table, before the MANIFEST edit that names
    /// it.
    RecoveryTableWritten,
    /// `recovery.edit_logged`: recovery logged one family's edit (its
    /// recovered tables, its log number moved to the new WAL), before the
    /// next family's edit and before the replayed WALs are deleted.
    RecoveryEditLogged,
}

impl SyncPoint {
    /// Every point, in the order of the write path, then recovery.
    pub const ALL: &'static [SyncPoint] = &[
        SyncPoint::WalAppend,
        SyncPoint::WalSync,
        SyncPoint::MemtableSwitch,
        SyncPoint::TableSynced,
        SyncPoint::BlobFinished,
        SyncPoint::FlushManifestSynced,
        SyncPoint::CompactionManifestSynced,
        SyncPoint::CurrentRenamed,
        SyncPoint::PurgeFileDeleted,
        SyncPoint::RecoveryManifestRead,
        SyncPoint::RecoveryNewManifest,
        SyncPoint::RecoveryWalReplayed,
        SyncPoint::RecoveryTableWritten,
        SyncPoint::RecoveryEditLogged,
    ];

    /// The point's stable name, e.g. `wal.append`.
    pub fn name(self) -> &'static str {
        match self {
            SyncPoint::WalAppend => "wal.append",
            SyncPoint::WalSync => "wal.sync",
            SyncPoint::MemtableSwitch => "memtable.switch",
            SyncPoint::TableSynced => "table.synced",
            SyncPoint::BlobFinished => "blob.finished",
            SyncPoint::FlushManifestSynced => "flush.manifest_synced",
            SyncPoint::CompactionManifestSynced => "compaction.manifest_synced",
            SyncPoint::CurrentRenamed => "current.renamed",
            SyncPoint::PurgeFileDeleted => "purge.file_deleted",
            SyncPoint::RecoveryManifestRead => "recovery.manifest_read",
            SyncPoint::RecoveryNewManifest => "recovery.new_manifest",
            SyncPoint::RecoveryWalReplayed => "recovery.wal_replayed",
            SyncPoint::RecoveryTableWritten => "recovery.table_written",
            SyncPoint::RecoveryEditLogged => "recovery.edit_logged",
        }
    }

    /// One line: what has just happened when the point fires.
    pub fn what(self) -> &'static str {
        match self {
            SyncPoint::WalAppend => {
                "a write group's record was appended to the WAL, before the memtable insert and the ack"
            }
            SyncPoint::WalSync => {
                "a synced write's WAL record was synced, before the memtable insert and the ack"
            }
            SyncPoint::MemtableSwitch => {
                "memtables became immutable and a new WAL was created, before their flush"
            }
            SyncPoint::TableSynced => {
                "a flush, compaction or recovery table was written and synced, before the MANIFEST edit naming it"
            }
            SyncPoint::BlobFinished => {
                "a blob file was finished and synced, before the MANIFEST edit naming it"
            }
            SyncPoint::FlushManifestSynced => {
                "a flush's MANIFEST edit was written and synced, before the obsolete files go"
            }
            SyncPoint::CompactionManifestSynced => {
                "a compaction's MANIFEST edit was written and synced, before its inputs go"
            }
            SyncPoint::CurrentRenamed => {
                "CURRENT was renamed to name a new MANIFEST and the directory synced, before the old MANIFEST's removal"
            }
            SyncPoint::PurgeFileDeleted => "one obsolete file was deleted, before the next one",
            SyncPoint::RecoveryManifestRead => {
                "recovery replayed the MANIFEST, before writing a new one"
            }
            SyncPoint::RecoveryNewManifest => {
                "recovery wrote and synced a new MANIFEST and pointed CURRENT at it, before the WAL replay"
            }
            SyncPoint::RecoveryWalReplayed => {
                "recovery read one WAL into memtables, before the next WAL"
            }
            SyncPoint::RecoveryTableWritten => {
                "a recovery flush wrote a synced L0 table, before the MANIFEST edit naming it"
            }
            SyncPoint::RecoveryEditLogged => {
                "recovery logged one family's edit (its tables, its new WAL), before the old WALs go"
            }
        }
    }

    /// The point named `name` (as [`SyncPoint::name`] gives it).
    pub fn from_name(name: &str) -> Option<SyncPoint> {
        SyncPoint::ALL.iter().copied().find(|p| p.name() == name)
    }
}

impl std::fmt::Display for SyncPoint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Marks that `point` is reached. Kills the process if it is armed for
/// this hit; does nothing else. Without the `sync-points` feature it is
/// empty.
#[inline(always)]
pub(crate) fn hit(point: SyncPoint) {
    #[cfg(feature = "sync-points")]
    if armed::ARMED.load(std::sync::atomic::Ordering::Relaxed) == point as usize + 1 {
        armed::count(point);
    }
    #[cfg(not(feature = "sync-points"))]
    let _ = point;
}

#[cfg(feature = "sync-points")]
pub use armed::{arm_kill, disarm, hits};

#[cfg(feature = "sync-points")]
mod armed {
    use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

    use super::SyncPoint;

    /// The armed point's index in `SyncPoint::ALL` plus one; 0 when
    /// nothing is armed. The only thing an unarmed point reads.
    pub(super) static ARMED: AtomicUsize = AtomicUsize::new(0);
    /// Hits of the armed point since it was armed.
    static HITS: AtomicU64 = AtomicU64::new(0);
    /// The hit that kills; 0 counts hits and never kills.
    static KILL_AT: AtomicU64 = AtomicU64::new(0);

    /// Arms `point`: the process kills itself with SIGKILL the `hit`-th
    /// time the point is reached from now on (1 = the next time). With
    /// `hit` 0 the hits are only counted ([`hits`]). Replaces whatever was
    /// armed before and restarts the count.
    pub fn arm_kill(point: SyncPoint, hit: u64) {
        ARMED.store(0, Ordering::SeqCst);
        HITS.store(0, Ordering::SeqCst);
        KILL_AT.store(hit, Ordering::SeqCst);
        ARMED.store(point as usize + 1, Ordering::SeqCst);
    }

    /// Disarms: no point kills or counts any more. [`hits`] keeps the
    /// count of the point armed last.
    pub fn disarm() {
        ARMED.store(0, Ordering::SeqCst);
    }

    /// Times the armed (or last armed) point was reached since
    /// [`arm_kill`].
    pub fn hits() -> u64 {
        HITS.load(Ordering::SeqCst)
    }

    /// The armed point was reached: count it, and die on the chosen hit.
    /// Concurrent hits each get their own number, so exactly one of them
    /// is the chosen one.
    #[cold]
    #[inline(never)]
    pub(super) fn count(point: SyncPoint) {
        let n = HITS.fetch_add(1, Ordering::SeqCst) + 1;
        let at = KILL_AT.load(Ordering::SeqCst);
        if at != 0 && n == at && ARMED.load(Ordering::SeqCst) == point as usize + 1 {
            kill_self();
        }
    }

    /// SIGKILL to this process; never returns.
    fn kill_self() -> ! {
        // SAFETY: getpid and kill take no pointers; sending a signal to
        // ourselves has no memory-safety precondition.
        unsafe {
            libc::kill(libc::getpid(), libc::SIGKILL);
        }
        // The signal is delivered before any thread runs much further;
        // this one waits for it.
        loop {
            std::thread::park();
        }
    }
}

#[cfg(all(test, feature = "sync-points"))]
mod tests {
    //! Arming is process-global and other tests of this crate reach the
    //! same points concurrently, so each test runs its body in a child
    //! process running that test alone (`in_child`).
    use std::io::Write;
    use std::os::unix::process::ExitStatusExt;
    use std::process::{Command, Output};

    use strata_testkit::output_text as text;

    use super::*;

    const CHILD: &str = "STRATA_SYNC_POINT_TEST_CHILD";

    /// Runs `body` in a child process that runs only the test `name`
    /// (`sync_point::tests::NAME`); returns the child's output, or `None`
    /// in the child itself (after running `body`).
    fn in_child(name: &str, body: impl FnOnce()) -> Option<Output> {
        if std::env::var_os(CHILD).is_some() {
            body();
            return None;
        }
        let exe = std::env::current_exe().unwrap();
        let out = Command::new(exe)
            .args([
                &format!("sync_point::tests::{name}"),
                "--exact",
                "--nocapture",
                "--test-threads=1",
            ])
            .env(CHILD, "1")
            .output()
            .unwrap();
        Some(out)
    }

    fn say(s: &str) {
        let mut o = std::io::stdout();
        writeln!(o, "{s}").unwrap();
        o.flush().unwrap();
    }

    #[test]
    fn names_are_unique_and_round_trip() {
        for (i, p) in SyncPoint::ALL.iter().enumerate() {
            assert_eq!(*p as usize, i, "{p}: ALL is in declaration order");
            assert_eq!(SyncPoint::from_name(p.name()), Some(*p));
            assert!(!p.what().is_empty());
        }
        let mut names: Vec<_> = SyncPoint::ALL.iter().map(|p| p.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), SyncPoint::ALL.len());
        assert_eq!(SyncPoint::from_name("no.such_point"), None);
    }

    #[test]
    fn an_armed_point_kills_on_its_nth_hit() {
        let Some(out) = in_child("an_armed_point_kills_on_its_nth_hit", || {
            arm_kill(SyncPoint::TableSynced, 3);
            hit(SyncPoint::WalAppend);
            for i in 1..=5 {
                hit(SyncPoint::TableSynced);
                say(&format!("survived hit {i}"));
            }
        }) else {
            return;
        };
        assert_eq!(out.status.signal(), Some(libc::SIGKILL), "{}", text(&out));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("survived hit 2"), "{}", text(&out));
        assert!(!stdout.contains("survived hit 3"), "{}", text(&out));
    }

    #[test]
    fn hits_of_the_armed_point_alone_are_counted() {
        let Some(out) = in_child("hits_of_the_armed_point_alone_are_counted", || {
            arm_kill(SyncPoint::WalSync, 0);
            for _ in 0..4 {
                hit(SyncPoint::WalSync);
                hit(SyncPoint::WalAppend);
            }
            say(&format!("counted {}", hits()));
            // Arming again restarts the count.
            arm_kill(SyncPoint::WalAppend, 0);
            hit(SyncPoint::WalAppend);
            say(&format!("recounted {}", hits()));
        }) else {
            return;
        };
        assert!(out.status.success(), "{}", text(&out));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("counted 4\n"), "{}", text(&out));
        assert!(stdout.contains("recounted 1\n"), "{}", text(&out));
    }

    #[test]
    fn unarmed_points_do_nothing() {
        let Some(out) = in_child("unarmed_points_do_nothing", || {
            for p in SyncPoint::ALL {
                hit(*p);
            }
            say(&format!("never armed: {}", hits()));
            arm_kill(SyncPoint::CurrentRenamed, 1);
            disarm();
            for p in SyncPoint::ALL {
                hit(*p);
            }
            say(&format!("disarmed: {}", hits()));
        }) else {
            return;
        };
        assert!(out.status.success(), "{}", text(&out));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("never armed: 0\n"), "{}", text(&out));
        assert!(stdout.contains("disarmed: 0\n"), "{}", text(&out));
    }
}
