//! The flag rule of the engines whose defaults are not db_bench's (LevelDB,
//! fjall): a flag that is not given leaves the engine's own default; a given
//! flag is applied when the engine has the option, accepted when its value
//! is what the engine does anyway, and refused naming the flag otherwise.
//! `--statistics` is never refused: such an engine keeps no statistics, and
//! the run says so.

use std::str::FromStr;

use crate::options_map::OptionSetting;

/// The error for a given flag `engine` has no equivalent for.
pub fn unsupported(engine: &str, s: &OptionSetting, why: &str) -> anyhow::Error {
    anyhow::anyhow!(
        "Not supported: flag '--{}' ({}={}) is not supported by {engine}: {why}",
        s.flag,
        s.option,
        s.value
    )
}

/// The setting's value as a number of type `T`; out of range for `engine`
/// when it does not fit.
pub fn value<T: FromStr>(engine: &str, s: &OptionSetting) -> anyhow::Result<T> {
    s.value.parse().map_err(|_| {
        anyhow::anyhow!(
            "Invalid argument: flag '--{}' ({}={}) is out of range for {engine}",
            s.flag,
            s.option,
            s.value
        )
    })
}

/// The settings given on the command line, but `--statistics`: when it
/// asks for statistics, a note that `engine` keeps none goes to `notes`.
pub fn given<'a>(
    engine: &str,
    settings: &'a [OptionSetting],
    notes: &mut Vec<String>,
) -> Vec<&'a OptionSetting> {
    if settings
        .iter()
        .any(|s| s.option == "statistics" && s.value == "true")
    {
        notes.push(format!(
            "--statistics: {engine} keeps no statistics; no STATISTICS block is printed \
             (the harness's own latency histograms are: --histogram=1)"
        ));
    }
    settings
        .iter()
        .filter(|s| s.option != "statistics" && s.given)
        .collect()
}

/// Asserts that `map` refuses each of `flags` alone with an error naming
/// the flag and `engine`.
#[cfg(test)]
pub(crate) fn assert_refused<T: std::fmt::Debug>(
    map: impl Fn(&[OptionSetting]) -> anyhow::Result<T>,
    engine: &str,
    flags: &[&str],
) {
    for flag in flags {
        let e = map(&crate::options_map::settings_of(&[flag]))
            .unwrap_err()
            .to_string();
        let name = flag.trim_start_matches('-').split('=').next().unwrap();
        assert!(e.contains(&format!("'--{name}'")), "{flag}: {e}");
        assert!(e.contains(engine), "{flag}: {e}");
    }
}
