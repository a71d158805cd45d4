//! The study stage: a study file read ([`study`]), checked ([`validate`]),
//! expanded into a plan of cells, jobs and steps ([`model`]) and narrowed to
//! a subset of cells ([`select`]). Uses no other stage.

use std::path::{Path, PathBuf};

pub mod model;
pub(crate) mod select;
pub mod study;
pub(crate) mod validate;

use study::{line_of, LoadedSpec, StudySpec};

/// Resolves a study argument: a path, or a name under `studies/`.
pub(crate) fn resolve_study_path(arg: &str) -> PathBuf {
    resolve_in(arg, "studies")
}

/// Resolves a file argument: a path, or a name under `folder` (of the
/// working directory, then of the repository the lab was built in).
pub(crate) fn resolve_in(arg: &str, folder: &str) -> PathBuf {
    let p = PathBuf::from(arg);
    if p.exists() {
        return p;
    }
    let mut candidates = vec![PathBuf::from(format!("{folder}/{arg}.toml"))];
    if let Some(root) = option_env!("CARGO_MANIFEST_DIR") {
        candidates.push(Path::new(root).join(format!("../../{folder}/{arg}.toml")));
    }
    candidates.into_iter().find(|c| c.exists()).unwrap_or(p)
}

/// A file's text; the error names the file and what it was read as.
pub(crate) fn read_text(path: &Path, what: &str) -> anyhow::Result<String> {
    std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("{}: cannot read {what}: {e}", path.display()))
}

/// TOML text deserialised; errors name `file:line` and the field.
pub(crate) fn from_toml<T: serde::de::DeserializeOwned>(
    text: &str,
    path: &Path,
) -> anyhow::Result<T> {
    toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| line_of(text, s.start)).unwrap_or(0);
        anyhow::anyhow!("{}:{line}: {}", path.display(), e.message().trim_end())
    })
}

/// Reads and validates a study file.
pub fn load(path: &Path) -> anyhow::Result<LoadedSpec> {
    parse(&read_text(path, "study")?, path)
}

/// Parses and validates study text; errors name `file:line` and the field.
pub(crate) fn parse(text: &str, path: &Path) -> anyhow::Result<LoadedSpec> {
    let spec: StudySpec = from_toml(text, path)?;
    let loaded = LoadedSpec {
        spec,
        path: path.to_path_buf(),
        text: text.to_string(),
    };
    validate::validate(&loaded)?;
    Ok(loaded)
}
