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
    let p = PathBuf::from(arg);
    if p.exists() {
        return p;
    }
    let mut candidates = vec![PathBuf::from(format!("studies/{arg}.toml"))];
    if let Some(root) = option_env!("CARGO_MANIFEST_DIR") {
        candidates.push(Path::new(root).join(format!("../../studies/{arg}.toml")));
    }
    candidates.into_iter().find(|c| c.exists()).unwrap_or(p)
}

/// Reads and validates a study file.
pub fn load(path: &Path) -> anyhow::Result<LoadedSpec> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow::anyhow!("{}: cannot read study: {e}", path.display()))?;
    parse(&text, path)
}

/// Parses and validates study text; errors name `file:line` and the field.
pub(crate) fn parse(text: &str, path: &Path) -> anyhow::Result<LoadedSpec> {
    let spec: StudySpec = toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| line_of(text, s.start)).unwrap_or(0);
        anyhow::anyhow!("{}:{line}: {}", path.display(), e.message().trim_end())
    })?;
    let loaded = LoadedSpec {
        spec,
        path: path.to_path_buf(),
        text: text.to_string(),
    };
    validate::validate(&loaded)?;
    Ok(loaded)
}
