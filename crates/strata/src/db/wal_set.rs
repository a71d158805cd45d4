//! The WALs the DB writes to: the current one, and the closed ones whose
//! memtables are not flushed yet and that have not been synced.
//!
//! A memtable switch only pushes the old WAL's buffer to the OS; syncing it
//! there would hold up the writer for as long as the device needs to write
//! a whole write buffer, which shows in the write latency's far tail.
//! Instead:
//! - the new WAL starts with a [`Predecessor`] record, so that recovery can
//!   tell when the OS kept the new WAL but lost the old one's tail, and stop
//!   there (a consistent prefix);
//! - a synced write syncs every closed WAL before its own, so that nothing
//!   before an acknowledged synced write can be lost;
//! - a closed WAL is forgotten once its memtable is flushed (its data is in
//!   a table file then, and the WAL is obsolete);
//! - a new WAL's directory entry is made durable by the first sync after
//!   it (a synced write, `sync_wal`, close with sync), not at the switch,
//!   as RocksDB's `log_dir_synced_`: the switch holds up every writer, and
//!   a directory sync waits for the file system's journal, tens of
//!   milliseconds to over a hundred while a compaction's output is being
//!   written back. Unsynced writes in a WAL whose entry is lost in a crash
//!   are lost as they would be with the entry (nothing acknowledged them
//!   as durable), and recovery stops at the last WAL found.

use crate::error::{Error, Result};
use crate::fs::WritableFile;
use crate::wal::predecessor::Predecessor;
use crate::wal::Writer as LogWriter;

/// Makes the DB directory's entries durable (`FileSystem::sync_dir`).
type SyncDir = Box<dyn Fn() -> Result<()> + Send>;

/// The current WAL and the closed, unsynced ones (see the module docs).
#[derive(Default)]
pub(crate) struct WalSet {
    /// Syncs the directory the WALs are created in (`None`: no directory
    /// to sync, in unit tests).
    sync_dir: Option<SyncDir>,
    /// A WAL was created since the directory was last synced.
    dir_unsynced: bool,
    current: Option<LogWriter>,
    /// File number of `current`.
    number: u64,
    /// Highest sequence number logged in `current` (0: none).
    last_sequence: u64,
    /// Closed WALs not synced yet, oldest first.
    closed: Vec<(u64, LogWriter)>,
}

impl WalSet {
    /// An empty set whose WALs are created in the directory `sync_dir`
    /// syncs.
    pub fn new(sync_dir: impl Fn() -> Result<()> + Send + 'static) -> Self {
        WalSet {
            sync_dir: Some(Box::new(sync_dir)),
            ..WalSet::default()
        }
    }

    /// Makes `file` (WAL number `number`, empty) the current WAL. The old
    /// current WAL, if any, is flushed to the OS and kept as closed; the new
    /// one starts with a predecessor record naming it.
    pub fn start(&mut self, number: u64, file: Box<dyn WritableFile>) -> Result<()> {
        let mut next = LogWriter::new(file);
        if let Some(old) = self.current.as_mut() {
            old.flush()?;
            let p = Predecessor {
                log_number: self.number,
                last_sequence: self.last_sequence,
            };
            next.add_record(&p.encode())?;
        }
        if let Some(old) = self.current.replace(next) {
            self.closed.push((self.number, old));
        }
        self.number = number;
        self.last_sequence = 0;
        self.dir_unsynced = true;
        Ok(())
    }

    /// Makes the directory entries of the WALs created since the last call
    /// durable; called before any WAL is synced, so that a synced record
    /// never lies in a file the directory may lose.
    fn sync_dir_if_needed(&mut self) -> Result<()> {
        if self.dir_unsynced {
            if let Some(sync) = &self.sync_dir {
                sync()?;
            }
            self.dir_unsynced = false;
        }
        Ok(())
    }

    /// The current WAL, or an error when none is open.
    pub fn current(&mut self) -> Result<&mut LogWriter> {
        self.current
            .as_mut()
            .ok_or_else(|| Error::InvalidArgument("WAL is not open".into()))
    }

    /// Notes that batches up to `sequence` are now in the current WAL.
    pub fn logged(&mut self, sequence: u64) {
        self.last_sequence = self.last_sequence.max(sequence);
    }

    /// Syncs the WALs' directory if a WAL was created since it was last
    /// synced, then the closed WALs, oldest first; each one synced is
    /// dropped. A synced write calls it before syncing the current WAL.
    pub fn sync_closed(&mut self) -> Result<()> {
        self.sync_dir_if_needed()?;
        while let Some((_, w)) = self.closed.first_mut() {
            w.sync()?;
            self.closed.remove(0);
        }
        Ok(())
    }

    /// Drops the closed WALs older than `log_number` (the oldest WAL still
    /// needed): their memtables are flushed.
    pub fn forget_before(&mut self, log_number: u64) {
        self.closed.retain(|(n, _)| *n >= log_number);
    }

    /// Closed WALs not synced yet.
    #[cfg(test)]
    pub fn closed_count(&self) -> usize {
        self.closed.len()
    }

    /// Pushes the current WAL's buffer to the OS (`Db::flush_wal`, and at
    /// close).
    pub fn flush_current(&mut self) -> Result<()> {
        match self.current.as_mut() {
            Some(w) => w.flush(),
            None => Ok(()),
        }
    }

    /// Makes every record logged so far durable: the closed WALs, oldest
    /// first, then the current one (`Db::sync_wal`).
    pub fn sync_all(&mut self) -> Result<()> {
        self.sync_closed()?;
        match self.current.as_mut() {
            Some(w) => w.sync(),
            None => Ok(()),
        }
    }

    /// The current WAL's number and the bytes logged in it, after pushing
    /// its buffer to the OS: a reader of the file then finds that many
    /// bytes, ending on a whole record (`db/checkpoint.rs`).
    pub fn current_length(&mut self) -> Result<(u64, u64)> {
        let w = self.current()?;
        w.flush()?;
        Ok((self.number, self.current()?.size()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fs::{FileSystem, PosixFileSystem};
    use crate::wal::{Reader, WalRecoveryMode};
    use std::sync::Arc;

    #[test]
    fn a_new_wals_directory_entry_is_synced_by_the_first_sync_after_it() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let dir = tempfile::tempdir().unwrap();
        let fs = PosixFileSystem;
        let syncs = Arc::new(AtomicUsize::new(0));
        let counted = syncs.clone();
        let mut s = WalSet::new(move || {
            counted.fetch_add(1, Ordering::SeqCst);
            Ok(())
        });
        let count = || syncs.load(Ordering::SeqCst);
        s.start(5, fs.create(&dir.path().join("5.log")).unwrap())
            .unwrap();
        s.start(6, fs.create(&dir.path().join("6.log")).unwrap())
            .unwrap();
        assert_eq!(count(), 0, "a switch does not sync the directory");
        s.sync_closed().unwrap();
        assert_eq!(count(), 1, "the first sync after the switches does, once");
        s.sync_all().unwrap();
        assert_eq!(count(), 1, "nothing created since");
        s.start(7, fs.create(&dir.path().join("7.log")).unwrap())
            .unwrap();
        s.sync_all().unwrap();
        assert_eq!(count(), 2);
    }

    #[test]
    fn new_wal_names_its_predecessor_and_sync_drains_closed() {
        let dir = tempfile::tempdir().unwrap();
        let fs = PosixFileSystem;
        let mut s = WalSet::default();
        s.start(5, fs.create(&dir.path().join("5.log")).unwrap())
            .unwrap();
        s.current().unwrap().add_record(b"first").unwrap();
        s.logged(9);
        s.start(8, fs.create(&dir.path().join("8.log")).unwrap())
            .unwrap();
        assert_eq!(s.closed_count(), 1);
        s.current().unwrap().flush().unwrap();
        let data = fs.read_all(&dir.path().join("8.log")).unwrap();
        let mut r = Reader::new(data, "8.log".into(), WalRecoveryMode::default());
        let rec = r.read_record().unwrap().unwrap();
        assert_eq!(
            Predecessor::decode(&rec, "8.log", 0).unwrap().unwrap(),
            Predecessor {
                log_number: 5,
                last_sequence: 9
            }
        );
        s.forget_before(5);
        assert_eq!(s.closed_count(), 1);
        s.sync_closed().unwrap();
        assert_eq!(s.closed_count(), 0);
    }

    #[test]
    fn sync_all_syncs_closed_and_current_and_lengths_end_on_records() {
        use crate::fs::fault::{FaultInjectionFs, FaultOp};
        use std::sync::Arc;
        let dir = tempfile::tempdir().unwrap();
        let fs = FaultInjectionFs::new(Arc::new(PosixFileSystem));
        let mut s = WalSet::default();
        s.start(3, fs.create(&dir.path().join("3.log")).unwrap())
            .unwrap();
        s.current().unwrap().add_record(b"old").unwrap();
        s.start(4, fs.create(&dir.path().join("4.log")).unwrap())
            .unwrap();
        s.current().unwrap().add_record(b"new").unwrap();
        let (n, len) = s.current_length().unwrap();
        assert_eq!(n, 4);
        assert_eq!(len, fs.file_size(&dir.path().join("4.log")).unwrap());
        let syncs = fs.operations(FaultOp::Sync);
        s.sync_all().unwrap();
        assert_eq!(fs.operations(FaultOp::Sync), syncs + 2);
        assert_eq!(s.closed_count(), 0);
        // Nothing is lost by a crash now.
        fs.drop_unsynced_data().unwrap();
        assert_eq!(fs.file_size(&dir.path().join("4.log")).unwrap(), len);
        // A failed sync is reported, and the log refuses to go on.
        let mut s = WalSet::default();
        s.start(5, fs.create(&dir.path().join("5.log")).unwrap())
            .unwrap();
        s.current().unwrap().add_record(b"x").unwrap();
        fs.fail_after(FaultOp::Sync, 1, libc::EIO);
        assert!(s.sync_all().unwrap_err().is_io());
        assert!(s.current().unwrap().add_record(b"y").is_err());
    }
}
