//! Golden test of the three pickers (leveled, universal, FIFO): each case
//! of `testdata/compaction/pickers.txt` gives options and a version's
//! files per level; the compaction its picker chooses is printed as text
//! and compared with `testdata/compaction/pickers.golden`. Run with
//! `STRATA_UPDATE_GOLDEN=1` to rewrite the golden file after a deliberate
//! change (then review its diff).
//!
//! Input, one case after another:
//!
//! ```text
//! == name of the case
//! compaction_style=kCompactionStyleUniversal   (any option, RocksDB name)
//! L0 100 a..z 50                  (level, number, key range, bytes)
//! L1 10 a..m 400 age=3600         (optional: newest key this old, seconds)
//! L1 11 n..z 400 seq=3..9         (optional: its sequence number range)
//! busy 10                         (files already being compacted)
//! ```
//!
//! A file's sequence numbers are its number unless `seq=` says otherwise,
//! so a bigger number is newer.
//! FIFO's clock reads [`NOW`].

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::task::{Busy, CompactionTask};
use super::testutil::{meta, version_with};
use super::{fifo, leveled, universal};
use crate::options::{CompactionStyle, Options};
use crate::version::edit::FileMetaData;

/// The unix time FIFO's TTL counts from.
const NOW: u64 = 1_700_000_000;

const INPUT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/testdata/compaction/pickers.txt"
);
const GOLDEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/testdata/compaction/pickers.golden"
);

/// One case: its name, options, files and busy files.
struct Case {
    name: String,
    opts: Options,
    files: Vec<(usize, FileMetaData)>,
    busy: BTreeSet<u64>,
}

fn parse_cases(text: &str) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let at = |what: &str| format!("pickers.txt line {}: {what}: {raw}", n + 1);
        if let Some(name) = line.strip_prefix("== ") {
            cases.push(Case {
                name: name.to_string(),
                opts: Options::default(),
                files: Vec::new(),
                busy: BTreeSet::new(),
            });
            continue;
        }
        let case = cases
            .last_mut()
            .unwrap_or_else(|| panic!("{}", at("before a case")));
        if let Some(list) = line.strip_prefix("busy ") {
            for x in list.split_whitespace() {
                case.busy
                    .insert(x.parse().unwrap_or_else(|_| panic!("{}", at("bad number"))));
            }
        } else if let Some(rest) = line.strip_prefix('L') {
            let f: Vec<&str> = rest.split_whitespace().collect();
            let [level, number, range, size, more @ ..] = f.as_slice() else {
                panic!("{}", at("want L<level> <number> <a..b> <bytes>"));
            };
            let (small, large) = range
                .split_once("..")
                .unwrap_or_else(|| panic!("{}", at("bad key range")));
            let num =
                |s: &str| -> u64 { s.parse().unwrap_or_else(|_| panic!("{}", at("bad number"))) };
            let mut m = meta(num(number), small, large, num(size));
            for opt in more {
                match opt.split_once('=') {
                    Some(("age", a)) => m.newest_key_time = NOW - num(a),
                    Some(("seq", r)) => {
                        let (lo, hi) = r
                            .split_once("..")
                            .unwrap_or_else(|| panic!("{}", at("bad seq range")));
                        (m.smallest_seq, m.largest_seq) = (num(lo), num(hi));
                    }
                    _ => panic!("{}", at("unknown file attribute")),
                }
            }
            case.files.push((num(level) as usize, m));
        } else if let Some((k, v)) = line.split_once('=') {
            case.opts
                .set(k, v)
                .unwrap_or_else(|e| panic!("{}: {e}", at("option")));
        } else {
            panic!("{}", at("unknown line"));
        }
    }
    cases
}

/// The compaction the configured style's picker chooses.
fn pick(case: &Case) -> Option<CompactionTask> {
    let o = &case.opts;
    let v = version_with(o.num_levels, &case.files);
    let busy = Busy {
        files: case.busy.clone(),
        ..Busy::default()
    };
    match o.compaction_style {
        CompactionStyle::Level => leveled::pick_compaction(&v, &busy, o),
        CompactionStyle::Universal => {
            universal::pick_universal_for(&v, &busy, o, &o.compaction_options_universal)
        }
        CompactionStyle::Fifo => fifo::pick_fifo(&v, &busy, o, NOW),
    }
}

fn numbers(files: &[std::sync::Arc<FileMetaData>]) -> Vec<u64> {
    files.iter().map(|f| f.number).collect()
}

/// A task as one line of text.
fn describe(t: &Option<CompactionTask>) -> String {
    let Some(t) = t else {
        return "none".into();
    };
    let mut s = format!(
        "L{}->L{} reason={} score={:.2} inputs={:?}",
        t.level,
        t.output_level,
        t.reason.name(),
        t.score,
        numbers(&t.inputs)
    );
    for (level, files) in &t.extra_inputs {
        let _ = write!(s, " L{level}={:?}", numbers(files));
    }
    let _ = write!(
        s,
        " output_level_inputs={:?} trivial_move={} target_file_size={}",
        numbers(&t.output_level_inputs),
        t.trivial_move,
        t.target_file_size
    );
    s
}

#[test]
fn pickers_choose_as_the_golden_file_says() {
    let input = std::fs::read_to_string(INPUT).expect("read pickers.txt");
    let mut out = String::from(
        "# Generated from pickers.txt by compaction::golden; rewrite with\n\
         # STRATA_UPDATE_GOLDEN=1 cargo test -p strata --lib compaction::golden\n",
    );
    let cases = parse_cases(&input);
    assert!(cases.len() >= 3, "pickers.txt holds {} cases", cases.len());
    for case in &cases {
        let _ = write!(out, "\n== {}\n{}\n", case.name, describe(&pick(case)));
    }
    if std::env::var_os("STRATA_UPDATE_GOLDEN").is_some_and(|v| v == "1") {
        std::fs::write(GOLDEN, &out).expect("write pickers.golden");
        return;
    }
    let want = std::fs::read_to_string(GOLDEN).unwrap_or_default();
    if out != want {
        let first = out
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(out.lines().count().min(want.lines().count()));
        panic!(
            "picks differ from pickers.golden from line {} on (STRATA_UPDATE_GOLDEN=1 rewrites it):\n--- got\n{out}\n--- golden\n{want}",
            first + 1
        );
    }
}
