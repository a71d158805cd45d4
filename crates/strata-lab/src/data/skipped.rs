//! Rows skipped because their engine lacks a flag the cell sets: how to
//! tell them from failures, and the flag and reason their message names.

use crate::data::results::ResultRow;

/// Whether a row was skipped because its engine lacks a flag the cell sets
/// (the runner's `skipped: ...` error, also on the steps after it).
pub(crate) fn is_skipped(r: &ResultRow) -> bool {
    !r.ok && r.error.as_deref().is_some_and(|e| e.contains("skipped: "))
}

/// The flag a skip message names (`flag '--x'` from `strata bench`,
/// `has no --x` from LevelDB's own db_bench) and the reason after it.
pub(crate) fn skipped_flag(msg: &str) -> (String, String) {
    let m = msg.split_once("skipped: ").map_or(msg, |(_, m)| m);
    let flag = m
        .split_once("flag '--")
        .and_then(|(_, r)| r.split_once('\''))
        .map(|(f, _)| f)
        .or_else(|| {
            m.split_once("has no --")
                .map(|(_, r)| r.split([' ', '=']).next().unwrap_or(r))
        })
        .unwrap_or("")
        .to_string();
    let why = m
        .split_once(" is not supported by ")
        .and_then(|(_, r)| r.split_once(": "))
        .map(|(_, w)| w.trim().to_string())
        .unwrap_or_default();
    (flag, why)
}
