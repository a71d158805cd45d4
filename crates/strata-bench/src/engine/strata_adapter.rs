//! Adapter from [`BenchEngine`](super::BenchEngine) to `strata::Db`.
//!
//! Until the engine core (`strata::Db`) lands on main, opening fails with a
//! clear message; the harness, flags and output are exercised by the tests
//! through an in-memory double.

use std::path::Path;
use std::sync::Arc;

use super::{BenchEngine, EngineFactory};
use crate::options_map::OptionSetting;

/// Opens Strata databases.
#[derive(Debug, Default, Clone, Copy)]
pub struct StrataFactory;

impl EngineFactory for StrataFactory {
    fn name(&self) -> &'static str {
        "Strata"
    }
    fn version(&self) -> String {
        env!("CARGO_PKG_VERSION").to_string()
    }
    fn open(
        &self,
        _path: &Path,
        _settings: &[OptionSetting],
    ) -> anyhow::Result<Arc<dyn BenchEngine>> {
        anyhow::bail!(
            "Not supported: this build's strata crate has no Db yet (engine core not merged)"
        )
    }
}
