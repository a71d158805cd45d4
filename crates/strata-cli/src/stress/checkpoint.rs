//! Checkpoints taken during a run (`--checkpoint-one-in`): with every
//! other operation held, the DB is copied with `create_checkpoint` and the
//! expected state noted; then, while the others go on, the copy is opened
//! and every key of every family checked against that state, and removed.
//! A kill meanwhile leaves the copy behind: each run removes what it finds.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use strata::Db;

use super::codec::Codec;
use super::config::Config;
use super::value::key_bytes;

/// Where the checkpoints of the DB at `db` go: `<db>.checkpoints/`.
pub fn dir_for(db: &Path) -> PathBuf {
    let mut s = db.as_os_str().to_owned();
    s.push(".checkpoints");
    PathBuf::from(s)
}

/// Removes the checkpoints a killed run left.
///
/// # Errors
/// The directory exists and cannot be removed.
pub fn remove_all(db: &Path) -> Result<()> {
    match std::fs::remove_dir_all(dir_for(db)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(e).with_context(|| format!("removing {}", dir_for(db).display()))
        }
        _ => Ok(()),
    }
}

/// Opens the checkpoint at `dir` and checks that every key of every family
/// holds `held(family, key)` (the version, or none for absent) as that
/// family's codec reads it; the first difference, if any. The checkpoint is removed afterwards.
///
/// # Errors
/// The checkpoint cannot be opened or read, or removed.
pub fn verify(
    cfg: &Config,
    codecs: &[Codec],
    dir: &Path,
    held: impl Fn(usize, u32) -> Option<u64>,
) -> Result<Option<String>> {
    let names = cfg.family_names();
    let db = if names.len() == 1 {
        Db::open(dir, cfg.db_options()?)
    } else {
        let fams = (1..names.len())
            .map(|f| cfg.family_options(f))
            .collect::<Result<Vec<_>>>()?;
        Db::open_cf(dir, cfg.db_options()?, names[1..].iter().cloned().zip(fams))
    }
    .with_context(|| format!("opening the checkpoint {}", dir.display()))?;
    let mut found = None;
    'families: for (f, name) in names.iter().enumerate() {
        let cf = db
            .column_family(name)
            .with_context(|| format!("checkpoint: column family {name} is not open"))?;
        for k in 0..cfg.keys {
            let want = held(f, k);
            let got = db.get_cf(&cf, key_bytes(k))?;
            if !codecs[f].holds(k, want, got.as_deref()) {
                found = Some(format!(
                    "checkpoint {}: {name} key{k:08}: expected {} found {}",
                    dir.display(),
                    want.map_or("absent".into(), |v| format!("version {v}")),
                    codecs[f].show(got.as_deref())
                ));
                break 'families;
            }
        }
    }
    drop(db);
    std::fs::remove_dir_all(dir).with_context(|| format!("removing {}", dir.display()))?;
    Ok(found)
}
