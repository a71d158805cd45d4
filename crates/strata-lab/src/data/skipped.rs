//! Rows skipped because their engine lacks a flag the cell sets, or
//! because the cell pins more cores than the host has: how to tell them
//! from failures, and the flag, reason or cores their message names.

use crate::data::results::ResultRow;

/// Whether a row was skipped because its engine lacks a flag the cell sets
/// or the host lacks the cores it pins (the runner's `skipped: ...` error,
/// also on the steps after it).
pub(crate) fn is_skipped(r: &ResultRow) -> bool {
    !r.ok && r.error.as_deref().is_some_and(|e| e.contains("skipped: "))
}

/// The skip message of a cell pinned to `need` cores on a host of `have`:
/// its runs would get no more cores than the host has, so they would
/// measure the host's cores under another label.
pub(crate) fn cores_skip(need: u32, have: u32) -> String {
    format!("skipped: the cell pins {need} cores; this host has {have}")
}

/// The cores a [`cores_skip`] message names: (pinned, the host's).
pub(crate) fn skipped_cores(msg: &str) -> Option<(u32, u32)> {
    let (_, rest) = msg.split_once("skipped: the cell pins ")?;
    let (need, rest) = rest.split_once(" cores; this host has ")?;
    let have: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((need.parse().ok()?, have.parse().ok()?))
}

/// What a skip message says the engine lacks, as the report names it: a
/// flag (`flag '--x'` from `strata bench`, `has no --x` from LevelDB's own
/// db_bench) as `` `--x` ``, a benchmark (`benchmark 'x'`) as
/// ``the benchmark `x` ``, else empty; and the reason after it.
pub(crate) fn skipped_flag(msg: &str) -> (String, String) {
    let m = msg.split_once("skipped: ").map_or(msg, |(_, m)| m);
    let quoted = |prefix: &str| {
        m.split_once(prefix)
            .and_then(|(_, r)| r.split_once('\''))
            .map(|(f, _)| f)
    };
    let flag = quoted("flag '--")
        .or_else(|| {
            m.split_once("has no --")
                .map(|(_, r)| r.split([' ', '=']).next().unwrap_or(r))
        })
        .map(|f| format!("`--{f}`"))
        .or_else(|| quoted("benchmark '").map(|b| format!("the benchmark `{b}`")))
        .unwrap_or_default();
    let why = m
        .split_once(" is not supported by ")
        .and_then(|(_, r)| r.split_once(": "))
        .map(|(_, w)| w.trim().to_string())
        .unwrap_or_default();
    (flag, why)
}

#[cfg(test)]
mod tests {
    use super::{cores_skip, skipped_cores, skipped_flag};

    #[test]
    fn a_core_skip_names_the_cores_pinned_and_the_hosts() {
        let m = cores_skip(12, 2);
        assert_eq!(m, "skipped: the cell pins 12 cores; this host has 2");
        assert_eq!(skipped_cores(&m), Some((12, 2)));
        // As the steps after the first carry it.
        assert_eq!(
            skipped_cores(&format!("step fill failed: {m}")),
            Some((12, 2))
        );
        assert_eq!(skipped_cores("skipped: leveldb lacks a flag"), None);
        // Not a flag skip.
        assert_eq!(skipped_flag(&m).0, "");
    }

    #[test]
    fn a_skip_names_the_flag_or_the_benchmark_the_engine_lacks() {
        let flag = "skipped: leveldb lacks a flag this cell sets: ERROR: Not supported: flag '--enable_blob_files' (enable_blob_files=true) is not supported by LevelDB: LevelDB has no blob files";
        assert_eq!(
            skipped_flag(flag),
            (
                "`--enable_blob_files`".into(),
                "LevelDB has no blob files".into()
            )
        );
        let own = "skipped: LevelDB's db_bench has no --max_bytes_for_level_base (set to 1)";
        assert_eq!(skipped_flag(own).0, "`--max_bytes_for_level_base`");
        // A benchmark the engine lacks is not reported as a flag.
        let bench = "skipped: fjall lacks a benchmark this cell runs: Not supported: benchmark 'multireadrandom' is not supported by fjall: it has no MultiGet";
        assert_eq!(
            skipped_flag(bench),
            (
                "the benchmark `multireadrandom`".into(),
                "it has no MultiGet".into()
            )
        );
        assert_eq!(skipped_flag("exit code 1").0, "");
    }
}
