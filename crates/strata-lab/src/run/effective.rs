//! The options each engine actually opened with: Strata and RocksDB write
//! an `OPTIONS-NNNNNN` file into the DB directory at every open; the lab
//! keeps the newest one of each job as `runs/<job>/OPTIONS` before the DB
//! is deleted, and the report lists the options whose values differ
//! between engines (defaults users would not guess, such as
//! `level_compaction_dynamic_level_bytes`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The name the kept file has in a job's run directory.
pub(crate) const KEPT: &str = "OPTIONS";

/// Copies the newest `OPTIONS-*` file of `db` to `rdir/OPTIONS`; returns
/// whether there was one (LevelDB and fjall write none).
pub(crate) fn keep(db: &Path, rdir: &Path) -> std::io::Result<bool> {
    let Ok(dir) = std::fs::read_dir(db) else {
        return Ok(false);
    };
    let newest: Option<PathBuf> = dir
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("OPTIONS-") && !n.ends_with(".dbtmp"))
        })
        .max();
    match newest {
        Some(p) => {
            std::fs::copy(p, rdir.join(KEPT))?;
            Ok(true)
        }
        None => Ok(false),
    }
}

/// The `key=value` pairs of an OPTIONS file (RocksDB's format, which
/// Strata's follows), keyed `section.key` with the section's name as
/// written (`CFOptions "default"`), comments and the version section left
/// out.
pub(crate) fn parse(text: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut section = String::new();
    for line in text.lines().map(str::trim) {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        if let Some(s) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = s.to_string();
            continue;
        }
        if section == "Version" || section.starts_with("TableOptions") {
            continue;
        }
        if let Some((k, v)) = line.split_once('=') {
            // One namespace: Strata keeps DB-wide and per-family options in
            // sections other than RocksDB's.
            out.insert(k.trim().to_string(), v.trim().to_string());
        }
    }
    out
}

/// Options set in both files to different values: `(name, a's, b's)`,
/// sorted by name. Options only one engine has are left out.
pub(crate) fn differing(
    a: &BTreeMap<String, String>,
    b: &BTreeMap<String, String>,
) -> Vec<(String, String, String)> {
    a.iter()
        .filter_map(|(k, va)| {
            let vb = b.get(k)?;
            (va != vb).then(|| (k.clone(), va.clone(), vb.clone()))
        })
        .collect()
}

/// The kept OPTIONS file of the first job (in run-directory order) of
/// `engine` under `sdir/runs`, parsed.
pub(crate) fn first_of(sdir: &Path, engine: &str) -> Option<BTreeMap<String, String>> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(sdir.join("runs"))
        .ok()?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with(&format!("{engine}__")))
        })
        .filter(|p| p.join(KEPT).exists())
        .collect();
    dirs.sort();
    let text = std::fs::read_to_string(dirs.first()?.join(KEPT)).ok()?;
    Some(parse(&text))
}

#[cfg(test)]
mod tests {
    use super::*;

    const STRATA: &str = "# Strata options file\n[Version]\n  strata_version=0.1.0\n[DBOptions]\n  write_buffer_size=67108864\n  level_compaction_dynamic_level_bytes=false\n  num_levels=7\n  only_strata=1\n";
    const ROCKSDB: &str = "[Version]\n  rocksdb_version=10.4.2\n[DBOptions]\n  max_background_jobs=2\n[CFOptions \"default\"]\n  write_buffer_size=67108864\n  level_compaction_dynamic_level_bytes=true\n  num_levels=7\n[TableOptions/BlockBasedTable \"default\"]\n  block_size=4096\n";

    #[test]
    fn options_that_differ_between_engines() {
        let d = differing(&parse(STRATA), &parse(ROCKSDB));
        assert_eq!(
            d,
            vec![(
                "level_compaction_dynamic_level_bytes".to_string(),
                "false".to_string(),
                "true".to_string()
            )]
        );
        assert!(!parse(ROCKSDB).contains_key("rocksdb_version"));
        assert!(!parse(ROCKSDB).contains_key("block_size"));
    }

    #[test]
    fn the_newest_options_file_is_kept() {
        let d = tempfile::tempdir().unwrap();
        let db = d.path().join("db");
        std::fs::create_dir(&db).unwrap();
        std::fs::write(db.join("OPTIONS-000004"), "old").unwrap();
        std::fs::write(db.join("OPTIONS-000009"), STRATA).unwrap();
        std::fs::write(db.join("OPTIONS-000011.dbtmp"), "partial").unwrap();
        assert!(keep(&db, d.path()).unwrap());
        assert_eq!(
            std::fs::read_to_string(d.path().join(KEPT)).unwrap(),
            STRATA
        );
        let none = d.path().join("none");
        std::fs::create_dir(&none).unwrap();
        assert!(!keep(&none, &none).unwrap());
        assert!(!keep(&d.path().join("missing"), d.path()).unwrap());
    }
}
