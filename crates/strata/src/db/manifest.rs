//! Version edits logged to the MANIFEST with the state lock released.
//!
//! Every flush and compaction ends with a MANIFEST record and its fsync
//! (`VersionSet::prepare`, `ManifestWrite::write`, `VersionSet::commit`).
//! The edit is built and encoded under the lock; the write and the fsync
//! run without it, as RocksDB's `LogAndApply` releases its mutex for them;
//! the new version is installed under the lock again. Writers take the
//! lock for every write group, so an fsync under it would hold up every
//! writer.
//!
//! One edit is written at a time (`State::manifest_writing`): each applies
//! to the version the previous one installed. While one is being written,
//! readers, pickers and obsolete-file scans see the version before it, in
//! which the job's inputs and the WALs it retires are still live, and its
//! outputs are protected as pending outputs.

use parking_lot::MutexGuard;

use super::{DbInner, State};
use crate::error::Result;
use crate::version::edit::VersionEdit;

impl DbInner {
    /// Logs `edit` to the MANIFEST and installs the version it makes,
    /// writing and syncing with `st` released. Waits first for an edit
    /// being written by another job.
    ///
    /// # Errors
    /// I/O errors writing or syncing the MANIFEST (the version is not
    /// installed; the caller makes it the background error).
    pub(crate) fn log_and_apply(
        &self,
        st: &mut MutexGuard<'_, State>,
        edit: VersionEdit,
    ) -> Result<()> {
        self.log_and_apply_levels(st, edit, 0)
    }

    /// [`log_and_apply`](Self::log_and_apply) for an edit that may add a
    /// column family of `num_levels` levels.
    pub(crate) fn log_and_apply_levels(
        &self,
        st: &mut MutexGuard<'_, State>,
        edit: VersionEdit,
        num_levels: usize,
    ) -> Result<()> {
        self.wait_for_manifest(st);
        let mut w = st.versions.prepare(edit, num_levels)?;
        st.manifest_writing = true;
        let written = MutexGuard::unlocked(st, || w.write());
        st.manifest_writing = false;
        self.manifest_cv.notify_all();
        st.versions.commit(w, written)
    }

    /// Waits until no edit is being written, so that an edit built now
    /// from the current version is the next one applied.
    pub(crate) fn wait_for_manifest(&self, st: &mut MutexGuard<'_, State>) {
        while st.manifest_writing {
            self.manifest_cv.wait(st);
        }
    }
}
