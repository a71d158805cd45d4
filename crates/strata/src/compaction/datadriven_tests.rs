//! Data-driven tests of the three compaction pickers, in the form of
//! cockroachdb/datadriven (as Pebble's `testdata/compaction_*` files): the
//! files `testdata/compaction/{leveled,universal,fifo}` (and
//! `read_triggered`, under leveled compaction) hold cases, each a
//! command line, its input lines, a line `----` and the expected output up
//! to the next blank line. Lines starting with `#` between cases (or in an
//! input) are comments. Each file runs under its own compaction style.
//!
//! After a deliberate change of the pickers, rewrite the expected outputs
//! with
//!
//! ```text
//! STRATA_UPDATE_GOLDEN=1 cargo test -p strata --lib compaction::datadriven_tests
//! ```
//!
//! (the variable the other golden tests of the workspace read too) and
//! review the diff of the data files.
//!
//! Commands:
//!
//! - `define`: a new version and options. Input: options as `name=value`
//!   (RocksDB names, defaults otherwise; `num_levels` is the version's level
//!   count too) and files as `L<level> <number> <smallest>..<largest>
//!   <bytes>`, optionally followed by `seq=<smallest>..<largest>` (default:
//!   the file number, so a bigger number is newer), `age=<seconds>` (its
//!   newest entry is this old), `entries=<n>` and `deletions=<n>`. Output:
//!   what the picker sees: the base level, level targets, scores (highest
//!   first) and pending bytes under leveled; the sorted runs (newest first)
//!   under universal; bytes and files under FIFO.
//! - `runs` (universal): the sorted runs, as `define` prints them, those
//!   holding a busy file marked `(busy)`.
//! - `pick`: the automatic pick on the defined version.
//! - `pick-scheduled`: what the background runs next: the automatic pick,
//!   else one forced by blob garbage, else a read-triggered one (with
//!   `read_nominee=<n>`, the table reads nominated).
//! - `sample key=<k>`: the table a read-triggered sample of user key `k`
//!   charges, as `L<level> <number>`, or `none`.
//! - `pick-manual`: a manual compaction: `level=<n>` (leveled's
//!   `pick_manual`, with `begin=<key>` and `end=<key>` when bounded) or,
//!   under universal, every file into the last level.
//!
//! Arguments of `runs`, `pick`, `pick-scheduled` and `pick-manual`: `busy=<n>,<n>` (input files of
//! running compactions), `running=L<level>:<a>..<b>,...` (output ranges of
//! running compactions), `flushing=<n>` and `flushing_bytes=<n>` (memtables
//! being flushed), `now=<seconds>` (the clock, in seconds after the moment
//! file ages count from; default 0), and any option as `name=value`, which
//! overrides the defined one for this command only. Output: the task (see
//! [`CompactionTask`]'s `Display`) or `none`; when the case sets
//! `compaction_options_universal.compression_size_percent` (in `define` or
//! as an argument), a second line says whether the task compresses its
//! output.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::policy::CompactionPolicy;
use super::task::{Busy, CompactionTask};
use super::testutil::{meta, version_with};
use super::{leveled, read_triggered, universal};
use crate::datadriven::{self, Case};
use crate::options::{CompactionStyle, Options};
use crate::version::edit::FileMetaData;
use crate::version::Version;

/// The unix time file ages count from.
const CLOCK: u64 = 1_700_000_000;

/// The option whose presence in a case adds the `compresses=` line.
const COMPRESSION_SIZE_PERCENT: &str = "compaction_options_universal.compression_size_percent";

/// Runs the cases of `testdata/compaction/<name>` under `style`.
fn run_file(name: &str, style: CompactionStyle) {
    let mut state = State::new(style);
    datadriven::run_file(&["compaction", name], |case, at| state.run(case, at));
}

/// The version and options of the last `define`.
struct State {
    style: CompactionStyle,
    opts: Options,
    files: Vec<(usize, FileMetaData)>,
    /// The options set `compression_size_percent`.
    show_compression: bool,
}

impl State {
    fn new(style: CompactionStyle) -> Self {
        State {
            style,
            opts: Options {
                compaction_style: style,
                ..Options::default()
            },
            files: Vec::new(),
            show_compression: false,
        }
    }

    /// The output of `case`; `at` names it in panics.
    fn run(&mut self, case: &Case, at: &str) -> String {
        let mut words = case.command.split_whitespace();
        let command = words.next().unwrap_or_default();
        let args: Vec<(&str, &str)> = words
            .map(|w| {
                w.split_once('=')
                    .unwrap_or_else(|| panic!("{at}: argument {w} is not name=value"))
            })
            .collect();
        match command {
            "define" => {
                *self = State::new(self.style);
                for line in &case.input {
                    self.define_line(line.trim(), at);
                }
                self.describe(&Busy::default())
            }
            "runs" if self.style == CompactionStyle::Universal => {
                let mut o = self.opts.clone();
                let call = Call::parse(&args, &mut o, at);
                self.describe(&call.busy)
            }
            "sample" => {
                let key = args
                    .iter()
                    .find(|(k, _)| *k == "key")
                    .map(|(_, v)| v.as_bytes())
                    .unwrap_or_else(|| panic!("{at}: sample wants key=<k>"));
                let v = version_with(self.opts.num_levels, &self.files);
                match read_triggered::sampled_charge(&v, key) {
                    Some((level, f)) => format!("L{level} {}", f.number),
                    None => "none".to_string(),
                }
            }
            "pick" | "pick-manual" | "pick-scheduled" => {
                let mut o = self.opts.clone();
                let call = Call::parse(&args, &mut o, at);
                let v = version_with(o.num_levels, &self.files);
                let task = match command {
                    "pick" => self.pick(&v, &call, &o),
                    "pick-scheduled" => {
                        CompactionPolicy::of(&o).pick_scheduled(&v, &call.busy, CLOCK + call.now)
                    }
                    _ => self.pick_manual(&v, &call, &o, at),
                };
                let Some(task) = task else {
                    return "none".to_string();
                };
                if self.show_compression || call.show_compression {
                    let u = &o.compaction_options_universal;
                    let compresses = universal::task_compresses(&v, &task, u, o.num_levels);
                    format!("{task}\ncompresses={compresses}")
                } else {
                    task.to_string()
                }
            }
            other => panic!("{at}: unknown command {other}"),
        }
    }

    fn define_line(&mut self, line: &str, at: &str) {
        if line.is_empty() || line.starts_with('#') {
            return;
        }
        if let Some(rest) = line.strip_prefix('L') {
            self.files.push(parse_file(rest, at));
        } else if let Some((k, v)) = line.split_once('=') {
            self.show_compression |= k == COMPRESSION_SIZE_PERCENT;
            self.opts
                .set(k, v)
                .unwrap_or_else(|e| panic!("{at}: option {line}: {e}"));
        } else {
            panic!("{at}: unknown input line {line}");
        }
    }

    /// What the style's picker sees of the defined version, with `busy`.
    fn describe(&self, busy: &Busy) -> String {
        let o = &self.opts;
        let v = version_with(o.num_levels, &self.files);
        let mut s = String::new();
        match self.style {
            CompactionStyle::Level => {
                let (base, targets) = leveled::level_layout(&v, o);
                let _ = write!(s, "base=L{base} targets:");
                for (level, t) in targets.iter().enumerate().skip(base) {
                    let _ = write!(s, " L{level}={t}");
                }
                s.push_str("\nscores:");
                for (level, score) in leveled::level_scores(&v, busy, o) {
                    let _ = write!(s, " L{level}={score:.2}");
                }
                let pending = leveled::estimated_pending_compaction_bytes(&v, o);
                let _ = write!(s, "\npending_compaction_bytes={pending}");
            }
            CompactionStyle::Universal => {
                s.push_str("runs:");
                for r in universal::sorted_runs(&v, busy, o.num_levels) {
                    let numbers: Vec<String> =
                        r.files.iter().map(|f| f.number.to_string()).collect();
                    let _ = write!(s, " L{}[{}]={}", r.level, numbers.join(" "), r.size);
                    if r.being_compacted {
                        s.push_str("(busy)");
                    }
                }
            }
            CompactionStyle::Fifo => {
                let files: usize = (0..v.num_levels()).map(|l| v.files(l).len()).sum();
                let _ = write!(s, "bytes={} files={files}", v.total_bytes());
            }
        }
        s
    }

    /// An automatic pick, asked of the style's policy as the DB asks it.
    fn pick(&self, v: &Version, call: &Call, o: &Options) -> Option<CompactionTask> {
        CompactionPolicy::of(o).pick_automatic(v, &call.busy, CLOCK + call.now)
    }

    /// One pass of a manual compaction, asked of the style's policy as the
    /// DB asks it (`level=<n>` is the pass under leveled compaction).
    fn pick_manual(
        &self,
        v: &Version,
        call: &Call,
        o: &Options,
        at: &str,
    ) -> Option<CompactionTask> {
        let pass = match self.style {
            CompactionStyle::Level => call
                .level
                .unwrap_or_else(|| panic!("{at}: pick-manual wants level=<n>")),
            CompactionStyle::Universal | CompactionStyle::Fifo => 0,
        };
        let range = (call.begin.as_deref(), call.end.as_deref());
        CompactionPolicy::of(o).pick_manual(v, &call.busy, pass, range, CLOCK + call.now)
    }
}

/// The arguments of a `pick` or `pick-manual`.
#[derive(Default)]
struct Call {
    busy: Busy,
    now: u64,
    level: Option<usize>,
    begin: Option<Vec<u8>>,
    end: Option<Vec<u8>>,
    /// The arguments set `compression_size_percent`.
    show_compression: bool,
}

impl Call {
    /// Reads `args`; options among them are set on `o`.
    fn parse(args: &[(&str, &str)], o: &mut Options, at: &str) -> Self {
        let num = |v: &str| -> u64 {
            v.parse()
                .unwrap_or_else(|_| panic!("{at}: {v} is not a number"))
        };
        let mut c = Call::default();
        for &(k, v) in args {
            match k {
                "busy" => c.busy.files = v.split(',').map(num).collect::<BTreeSet<_>>(),
                "running" => {
                    for r in v.split(',') {
                        let (level, range) = r
                            .strip_prefix('L')
                            .and_then(|r| r.split_once(':'))
                            .unwrap_or_else(|| panic!("{at}: running wants L<level>:<a>..<b>"));
                        let (lo, hi) = key_range_arg(range, at);
                        c.busy.output_ranges.push((num(level) as usize, lo, hi));
                    }
                }
                "flushing" => c.busy.flushing = num(v) as usize,
                "flushing_bytes" => c.busy.flushing_bytes = num(v),
                "read_nominee" => c.busy.read_nominee = Some(num(v)),
                "now" => c.now = num(v),
                "level" => c.level = Some(num(v) as usize),
                "begin" => c.begin = Some(v.as_bytes().to_vec()),
                "end" => c.end = Some(v.as_bytes().to_vec()),
                _ => {
                    c.show_compression |= k == COMPRESSION_SIZE_PERCENT;
                    o.set(k, v)
                        .unwrap_or_else(|e| panic!("{at}: option {k}={v}: {e}"))
                }
            }
        }
        c
    }
}

fn key_range_arg(range: &str, at: &str) -> (Vec<u8>, Vec<u8>) {
    let (lo, hi) = range
        .split_once("..")
        .unwrap_or_else(|| panic!("{at}: {range} is not <a>..<b>"));
    (lo.as_bytes().to_vec(), hi.as_bytes().to_vec())
}

/// A file line after its `L`: `<level> <number> <a>..<b> <bytes> [attr=v]...`.
fn parse_file(rest: &str, at: &str) -> (usize, FileMetaData) {
    let num = |s: &str| -> u64 {
        s.parse()
            .unwrap_or_else(|_| panic!("{at}: {s} is not a number"))
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let [level, number, range, size, attrs @ ..] = fields.as_slice() else {
        panic!("{at}: want L<level> <number> <a>..<b> <bytes>: L{rest}");
    };
    let (small, large) = range
        .split_once("..")
        .unwrap_or_else(|| panic!("{at}: {range} is not <a>..<b>"));
    let mut m = meta(num(number), small, large, num(size));
    for attr in attrs {
        match attr.split_once('=') {
            Some(("age", a)) => m.newest_key_time = CLOCK - num(a),
            Some(("seq", r)) => {
                let (lo, hi) = r
                    .split_once("..")
                    .unwrap_or_else(|| panic!("{at}: seq={r} is not <a>..<b>"));
                (m.smallest_seq, m.largest_seq) = (num(lo), num(hi));
            }
            Some(("entries", n)) => m.num_entries = num(n),
            Some(("deletions", n)) => m.num_deletions = num(n),
            _ => panic!("{at}: unknown file attribute {attr}"),
        }
    }
    (num(level) as usize, m)
}

#[test]
fn leveled() {
    run_file("leveled", CompactionStyle::Level);
}

#[test]
fn universal() {
    run_file("universal", CompactionStyle::Universal);
}

#[test]
fn fifo() {
    run_file("fifo", CompactionStyle::Fifo);
}

#[test]
fn read_triggered() {
    run_file("read_triggered", CompactionStyle::Level);
}
