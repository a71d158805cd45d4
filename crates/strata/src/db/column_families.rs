//! Creating and dropping column families on an open DB, and the OPTIONS
//! file that lists them.

use std::sync::Arc;
use std::time::Duration;

use parking_lot::MutexGuard;

use super::family::{check_family_name, family_options};
use super::{ColumnFamily, DbInner, Family, FamilyState, State, SuperVersion};
use crate::error::{Error, Result};
use crate::memtable::MemTable;
use crate::options::Options;
use crate::version::edit::VersionEdit;

impl DbInner {
    /// Creates family `name` with options `opts` (checked against the DB's
    /// DB-wide options).
    pub(crate) fn create_family(&self, name: &str, opts: Options) -> Result<ColumnFamily> {
        check_family_name(name)?;
        let fo = family_options(name, &self.opts, &opts)?;
        let cf = self.create_family_with(name, fo)?;
        let mut st = self.state.lock();
        self.write_options_file(&mut st)?;
        let job = self.new_job_id();
        self.delete_obsolete_files(&mut st, job);
        Ok(cf)
    }

    /// Creates family `name` with its final options: logs the family's
    /// addition (with the current WAL as its log number: it has nothing
    /// in older ones) and installs its state.
    pub(crate) fn create_family_with(&self, name: &str, fo: Options) -> Result<ColumnFamily> {
        let mut st = self.state.lock();
        if let Some(e) = &st.bg_error {
            return Err(Error::Background(e.clone()));
        }
        // Checked after any edit being written, so that the id and the
        // name are those of the version this edit applies to.
        self.wait_for_manifest(&mut st);
        if st.versions.families().iter().any(|(_, n)| n == name) {
            return Err(Error::InvalidArgument(format!(
                "column family '{name}' already exists"
            )));
        }
        let id = st.versions.max_column_family() + 1;
        let num_levels = fo.num_levels;
        let edit = VersionEdit {
            column_family: id,
            add_column_family: Some(name.to_string()),
            log_number: Some(st.current_wal),
            ..VersionEdit::default()
        };
        if let Err(e) = self.log_and_apply_levels(&mut st, edit, num_levels) {
            let d = e.duplicate();
            self.set_bg_error(&mut st, e);
            return Err(d);
        }
        let mem = Arc::new(MemTable::for_options(st.current_wal, &fo));
        let sv = SuperVersion {
            file_range_tombstones: Default::default(),
            mem: mem.clone(),
            imm: Vec::new(),
            version: st.versions.current(id),
            stats: self.stats.clone(),
        };
        let family = Arc::new(Family::new(id, name.to_string(), fo, sv, self.db_id));
        st.families
            .insert(id, FamilyState::new(family.clone(), mem));
        self.log
            .log(&format!("Created column family [{name}] (ID {id})"));
        self.work_cv.notify_all();
        Ok(ColumnFamily { family })
    }

    /// Drops family `cf`: no new job starts on it, running ones finish,
    /// then one MANIFEST edit drops it. Its files go once no reader holds
    /// them.
    pub(crate) fn drop_family(&self, cf: &ColumnFamily) -> Result<()> {
        let id = cf.family.id;
        if id == 0 {
            return Err(Error::InvalidArgument(
                "the default column family cannot be dropped".into(),
            ));
        }
        let mut st = self.state.lock();
        match st.families.get(&id) {
            Some(f) if Arc::ptr_eq(&f.family, &cf.family) && !f.dropping => {}
            _ => {
                return Err(Error::InvalidArgument(format!(
                    "column family '{}' is already dropped or not a family of this DB",
                    cf.family.name
                )))
            }
        }
        st.fam_mut(id).dropping = true;
        while st.fam(id).jobs_running > 0 {
            self.bg_cv.wait_for(&mut st, Duration::from_millis(100));
        }
        let edit = VersionEdit {
            column_family: id,
            drop_column_family: true,
            ..VersionEdit::default()
        };
        if let Err(e) = self.log_and_apply(&mut st, edit) {
            st.fam_mut(id).dropping = false;
            let d = e.duplicate();
            self.set_bg_error(&mut st, e);
            return Err(d);
        }
        st.families.remove(&id);
        cf.family
            .dropped
            .store(true, std::sync::atomic::Ordering::Release);
        self.log.log(&format!(
            "Dropped column family [{}] (ID {id})",
            cf.family.name
        ));
        self.write_options_file(&mut st)?;
        let job = self.new_job_id();
        self.delete_obsolete_files(&mut st, job);
        self.bg_cv.notify_all();
        self.work_cv.notify_all();
        Ok(())
    }

    /// Writes a new OPTIONS file with the DB's options and every live
    /// family's (the older file goes with the next obsolete-file scan).
    pub(crate) fn write_options_file(&self, st: &mut MutexGuard<'_, State>) -> Result<()> {
        let n = st.versions.new_file_number();
        let families: Vec<(String, Options)> = st
            .families
            .values()
            .filter(|f| f.family.id != 0)
            .map(|f| (f.family.name.clone(), f.family.opts.clone()))
            .collect();
        let opts = st.fam(0).family.opts.clone();
        // Its temp file `n.dbtmp` exists with the lock released: a pending
        // output, so that no concurrent obsolete-file scan removes it.
        st.pending_outputs.insert(n);
        let r = MutexGuard::unlocked(st, || {
            crate::options_file::write(&self.fs, &self.dir, n, &opts, &families)
        });
        st.pending_outputs.remove(&n);
        r
    }
}
