//! The capacity report (`report.md` and `report.html`): the answer first,
//! one line per engine and configuration (the sustainable rate, its
//! interval and the limit that binds); the side-by-side table; then per
//! engine and configuration the decision log and the time-series charts
//! of the last passing and the first failing rate; the method and the
//! runs' facts last.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::capacity::chart::{self, Run, Series, ALL};
use crate::capacity::driver::{
    live_bytes, observations, plan_of, probe_rate, read_meta, CapacityOptions,
};
use crate::capacity::samples::{read_mix, Benchmark};
use crate::capacity::search::{answer, Answer, Kind, Params, Tally};
use crate::capacity::slo::{Judgement, Limit};
use crate::capacity::spec::{parse, LoadedCapacity, Slo};
use crate::capacity::trials::{self, Trial, MIX_FILE};
use crate::report::doc::{html, markdown, Block};

/// What the report says of one engine and configuration.
#[derive(Clone, Debug)]
pub(crate) struct Summary {
    /// Engine.
    pub engine: String,
    /// Configuration.
    pub config: String,
    /// The closed-loop probe's rate.
    pub probe: Option<f64>,
    /// The search's answer.
    pub answer: Answer,
    /// The limits broken at the lowest failing rate, most often first,
    /// each with one example.
    pub binds: Vec<(Limit, String)>,
}

fn rate(r: f64) -> String {
    format!("{r:.0}")
}

fn tally_text(t: &Tally) -> String {
    format!("{}/{} runs pass at {}", t.passes, t.runs, rate(t.rate))
}

impl Summary {
    /// The limit that binds, in words.
    pub(crate) fn binds_text(&self) -> String {
        if self.answer.kind == Kind::AtLeastTop {
            return "throughput (the closed-loop rate meets the objective)".into();
        }
        match self.binds.first() {
            Some((l, what)) => format!("{} ({what})", l.name()),
            None => "-".into(),
        }
    }

    /// One line: the sustainable rate, its interval and what binds.
    pub(crate) fn line(&self) -> String {
        let who = format!("{} / {}", self.engine, self.config);
        let a = &self.answer;
        let mut s = match (a.kind, a.lo, a.hi) {
            (Kind::Bracketed, Some(lo), Some(hi)) => format!(
                "{who}: sustains {} ops/s within the objective (interval [{}, {}) ops/s; {}, {}); {} binds.",
                rate(lo.rate),
                rate(lo.rate),
                rate(hi.rate),
                tally_text(&lo),
                tally_text(&hi),
                self.binds_text()
            ),
            (Kind::AtLeastTop, Some(lo), _) => format!(
                "{who}: sustains at least {} ops/s, its closed-loop rate ({}): the engine's throughput binds, not the objective.",
                rate(lo.rate),
                tally_text(&lo)
            ),
            (Kind::BelowFloor, _, Some(hi)) => format!(
                "{who}: sustains less than {} ops/s, the lowest rate tried ({}); {} binds.",
                rate(hi.rate),
                tally_text(&hi),
                self.binds_text()
            ),
            _ => format!("{who}: not searched (the closed-loop probe measured nothing)."),
        };
        if !a.complete && a.kind != Kind::NotRun {
            s.push_str(" The search stopped at its run limit before it converged.");
        }
        s
    }
}

/// Everything the report reads of one capacity directory.
struct Loaded {
    dir: PathBuf,
    cap: LoadedCapacity,
    log: Vec<Trial>,
    scale: String,
    set: Vec<(String, String)>,
}

fn summarize(l: &Loaded, engine: &str, config: &str) -> Summary {
    let p = Params::from(&l.cap.spec.search);
    let probe = probe_rate(&l.dir, &l.log, engine, config);
    let obs = observations(&l.dir, &l.log, engine, config);
    let a = match probe {
        Some(pr) => answer(pr, &obs, &p),
        None => answer(0.0, &[], &p),
    };
    let mut counts: BTreeMap<Limit, (usize, String)> = BTreeMap::new();
    if let Some(hi) = a.hi {
        for (_, j) in runs_at(l, engine, config, hi.rate) {
            for b in j.breaches.iter().filter(|_| !j.pass) {
                let e = counts.entry(b.limit).or_insert((0, b.what.clone()));
                e.0 += 1;
            }
        }
    }
    let mut binds: Vec<(Limit, usize, String)> =
        counts.into_iter().map(|(k, (n, w))| (k, n, w)).collect();
    binds.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Summary {
        engine: engine.into(),
        config: config.into(),
        probe,
        answer: a,
        binds: binds.into_iter().map(|(k, _, w)| (k, w)).collect(),
    }
}

/// The runs of `engine`/`config` at `rate` that ran, with their judgements.
fn runs_at<'a>(l: &'a Loaded, engine: &str, config: &str, r: f64) -> Vec<(&'a Trial, Judgement)> {
    l.log
        .iter()
        .filter(|t| t.engine == engine && t.config == config && t.rate == Some(r))
        .filter_map(|t| Some((t, t.judgement(&l.dir)?)))
        .collect()
}

fn slo_text(slo: &Slo) -> String {
    let mut v = Vec::new();
    let kinds = if slo.ops.is_empty() {
        "every operation kind".to_string()
    } else {
        slo.ops.join(", ")
    };
    if let Some(x) = slo.p99_us {
        v.push(format!("P99 of {kinds} <= {x} us"));
    }
    if let Some(x) = slo.p999_us {
        v.push(format!("P99.9 of {kinds} <= {x} us"));
    }
    if let Some(x) = slo.max_stall_ms {
        v.push(format!("no stall longer than {x} ms"));
    }
    if let Some(x) = slo.max_space_amp {
        v.push(format!("peak disk use <= {x}x the live data"));
    }
    if let Some(x) = slo.max_rss_mb {
        v.push(format!("peak memory <= {x} MB"));
    }
    v.join(", ")
}

fn figures(j: &Judgement) -> [String; 5] {
    let p99 = j
        .p99_us
        .iter()
        .map(|(k, v)| format!("{k} {v:.0}"))
        .collect::<Vec<_>>()
        .join(", ");
    let opt =
        |v: Option<f64>, d: usize| v.map(|v| format!("{v:.d$}")).unwrap_or_else(|| "-".into());
    [
        if p99.is_empty() { "-".into() } else { p99 },
        opt(j.max_stall_ms, 0),
        opt(j.space_amp, 2),
        opt(j.peak_memory_mb, 0),
        format!("{:.0}", j.behind_ms),
    ]
}

fn side_by_side(sums: &[Summary], l: &Loaded) -> Block {
    let rows = sums
        .iter()
        .map(|s| {
            let lo = s
                .answer
                .lo
                .map(|t| rate(t.rate))
                .unwrap_or_else(|| "-".into());
            let hi = s
                .answer
                .hi
                .map(|t| rate(t.rate))
                .unwrap_or_else(|| "-".into());
            let at_lo: Vec<Judgement> = s
                .answer
                .lo
                .map(|t| runs_at(l, &s.engine, &s.config, t.rate))
                .unwrap_or_default()
                .into_iter()
                .filter(|(_, j)| j.pass)
                .map(|(_, j)| j)
                .collect();
            let spread = |f: &dyn Fn(&Judgement) -> Option<f64>, d: usize| -> String {
                let v: Vec<f64> = at_lo.iter().filter_map(f).collect();
                match (
                    v.iter().copied().reduce(f64::min),
                    v.iter().copied().reduce(f64::max),
                ) {
                    (Some(a), Some(b)) => {
                        let (a, b) = (format!("{a:.d$}"), format!("{b:.d$}"));
                        if a == b {
                            a
                        } else {
                            format!("{a} to {b}")
                        }
                    }
                    _ => "-".into(),
                }
            };
            let p99 = spread(&|j| j.p99_us.values().copied().reduce(f64::max), 0);
            let stall = spread(&|j| j.max_stall_ms, 0);
            let space = spread(&|j| j.space_amp, 2);
            let rss = spread(&|j| j.peak_memory_mb, 0);
            vec![
                s.engine.clone(),
                s.config.clone(),
                lo,
                hi,
                s.probe.map(rate).unwrap_or_else(|| "-".into()),
                s.binds_text(),
                p99,
                stall,
                space,
                rss,
            ]
        })
        .collect();
    Block::Table(
        [
            "engine",
            "config",
            "sustainable ops/s",
            "first failing ops/s",
            "closed-loop ops/s",
            "binds",
            "worst P99 us at the sustainable rate",
            "stall ms there",
            "disk / live there",
            "memory MB there",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    )
}

fn decision_log(l: &Loaded, engine: &str, config: &str) -> Block {
    let rows = l
        .log
        .iter()
        .filter(|t| t.engine == engine && t.config == config)
        .map(|t| {
            let j = t.judgement(&l.dir);
            let result = match (&j, t.rate) {
                (None, _) => "not run".to_string(),
                (Some(j), None) => format!("{:.0} ops/s", j.window_ops_per_sec),
                (Some(j), Some(_)) if j.pass => "pass".into(),
                (Some(j), Some(_)) => format!(
                    "fail: {}",
                    j.breaches
                        .iter()
                        .map(|b| b.what.clone())
                        .collect::<Vec<_>>()
                        .join("; ")
                ),
            };
            let f = j
                .as_ref()
                .map(figures)
                .unwrap_or_else(|| std::array::from_fn(|_| "-".to_string()));
            let mut row = vec![
                t.index.to_string(),
                t.rate.map(rate).unwrap_or_else(|| "closed loop".into()),
                t.why.clone(),
                result,
                j.as_ref()
                    .map(|j| format!("{:.0}", j.window_ops_per_sec))
                    .unwrap_or_else(|| "-".into()),
            ];
            row.extend(f);
            row
        })
        .collect();
    Block::Table(
        [
            "#",
            "target ops/s",
            "why",
            "result",
            "window ops/s",
            "P99 us (max per second)",
            "stall ms",
            "disk / live",
            "memory MB",
            "behind ms",
        ]
        .map(String::from)
        .to_vec(),
        rows,
    )
}

/// The mixes of the last passing and the first failing rate, named for
/// the legend.
fn boundary_runs(l: &Loaded, s: &Summary) -> Vec<(String, bool, Benchmark)> {
    let mut out = Vec::new();
    let pick = |t: Option<Tally>, pass: bool| -> Option<(String, bool, Benchmark)> {
        let t = t?;
        let runs = runs_at(l, &s.engine, &s.config, t.rate);
        let (tr, _) = if pass {
            runs.into_iter().rfind(|(_, j)| j.pass)?
        } else {
            runs.into_iter().find(|(_, j)| !j.pass)?
        };
        let mix = read_mix(&tr.dir(&l.dir).join(MIX_FILE)).ok()?;
        let name = format!(
            "{} at {} ops/s",
            if pass { "last pass" } else { "first fail" },
            rate(t.rate)
        );
        Some((name, pass, mix))
    };
    out.extend(pick(s.answer.lo, true));
    out.extend(pick(s.answer.hi, false));
    out
}

/// The objective's limit on series `s`, in its unit; `live_mb` is the
/// configuration's live data.
fn limit_of(s: Series, slo: &Slo, live_mb: f64) -> Option<f64> {
    match s {
        Series::P99 => slo.p99_us,
        Series::Stall => slo.max_stall_ms,
        Series::Disk => slo.max_space_amp.map(|a| a * live_mb),
        Series::Rss => slo.max_rss_mb,
        _ => None,
    }
}

fn charts(l: &Loaded, s: &Summary) -> anyhow::Result<Vec<Block>> {
    let runs = boundary_runs(l, s);
    if runs.is_empty() {
        return Ok(vec![Block::P("No run left samples to draw.".into())]);
    }
    let drawn: Vec<Run> = runs
        .iter()
        .map(|(name, pass, mix)| Run {
            name: name.clone(),
            pass: *pass,
            mix,
        })
        .collect();
    let warmup = l
        .cap
        .spec
        .window
        .get(&l.scale)
        .map(|w| w.warmup_seconds as f64)
        .unwrap_or(0.0);
    let live_mb = l
        .cap
        .configs()
        .iter()
        .find(|c| c.name == s.config)
        .and_then(|c| {
            let o = CapacityOptions {
                scale: l.scale.clone(),
                set: l.set.clone(),
                ..CapacityOptions::default()
            };
            Some(live_bytes(&plan_of(&l.cap, &o).ok()?, &c.flags) / 1e6)
        })
        .unwrap_or(0.0);
    let cdir = l.dir.join("charts");
    std::fs::create_dir_all(&cdir)?;
    let mut blocks = Vec::new();
    let mut missing = Vec::new();
    for series in ALL {
        if !chart::has_data(series, &drawn) {
            missing.push(series.label());
            continue;
        }
        let id = format!("{}-{}-{}", s.engine, s.config, series.id());
        let title = format!("{} / {}: {}", s.engine, s.config, series.label());
        chart::render(
            &cdir.join(&id),
            &title,
            series,
            &drawn,
            warmup,
            limit_of(series, &l.cap.spec.slo, live_mb),
        )?;
        blocks.push(Block::Chart(id, title));
    }
    if !missing.is_empty() {
        blocks.push(Block::P(format!(
            "Not drawn (the bench reported no samples): {}.",
            missing.join(", ")
        )));
    }
    Ok(blocks)
}

fn method(l: &Loaded) -> Vec<Block> {
    let s = &l.cap.spec;
    let w = s.window.get(&l.scale);
    let q = &s.search;
    vec![
        Block::H(2, "Method".into()),
        Block::List(vec![
            format!(
                "Each run loads a fresh DB and then runs the mix (`{}`) paced open-loop at its target rate for {} s: a {} s warm-up, then a {} s window. Latencies count from each operation's scheduled start, so a stall delays every operation scheduled behind it (coordinated omission corrected).",
                l.cap.mix_step(),
                w.map(|w| w.warmup_seconds + w.window_seconds).unwrap_or(0),
                w.map(|w| w.warmup_seconds).unwrap_or(0),
                w.map(|w| w.window_seconds).unwrap_or(0)
            ),
            "A run passes when every one-second interval of its window keeps the latency limits (the P99 kept is the largest per-interval P99, not a P99 of the window) and the stall limit (the larger of the longest gap between a thread's operations and the engine's stall time in the interval), and the whole mix keeps the space limit (peak disk use over num x (key_size + value_size)) and the memory limit (peak resident memory without the pages of mapped files: the tables an engine maps are the OS page cache, which an engine reading with pread holds outside its RSS).".into(),
            format!(
                "A run whose operation stream lags its schedule by more than {} ms (at an interval of the window or at the end) fell behind: it fails, whatever its latencies.",
                s.slo.behind_ms
            ),
            format!(
                "The search: a closed-loop probe gives the engine's top rate; if the top passes ({} runs), the engine's throughput binds. Otherwise it bisects in log space between the highest passing and the lowest failing rate (starting from the floor, {} of the top) until they are within {}%, then repeats both ends to {} runs; a rate passes when more than half of its runs pass (a tie fails). At most {} paced runs per engine and configuration.",
                q.repeats,
                q.floor,
                q.tolerance * 100.0,
                q.repeats,
                q.max_runs
            ),
            "The sustainable rate is the highest passing rate; its interval runs to the lowest failing rate. The limit that binds is the one the runs at the lowest failing rate broke most often.".into(),
        ]),
    ]
}

/// Writes `report.md` and `report.html` in the capacity directory `dir`;
/// returns the Markdown's path and the summaries.
pub(crate) fn write(dir: &Path) -> anyhow::Result<(PathBuf, Vec<Summary>)> {
    let meta = read_meta(dir)?;
    let path = dir.join("capacity.toml");
    let text =
        std::fs::read_to_string(&path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    let cap = parse(&text, &path)?;
    let l = Loaded {
        dir: dir.to_path_buf(),
        log: trials::read(dir)?,
        scale: meta.scale.clone(),
        set: meta.set.clone(),
        cap,
    };
    // Configurations left out with `--configs` have no runs: the report
    // names them once instead of a line per engine.
    let (configs, unsearched): (Vec<_>, Vec<_>) = l
        .cap
        .configs()
        .into_iter()
        .partition(|c| l.log.iter().any(|t| t.config == c.name));
    let mut sums = Vec::new();
    for e in &meta.engines_run {
        for c in &configs {
            sums.push(summarize(&l, &e.engine, &c.name));
        }
    }
    let mut answer = sums.iter().map(Summary::line).collect::<Vec<_>>();
    if !unsearched.is_empty() {
        let names: Vec<&str> = unsearched.iter().map(|c| c.name.as_str()).collect();
        answer.push(format!(
            "Not searched: {} (add with `--configs {} --resume`).",
            names.join(", "),
            names.join(",")
        ));
    }
    let title = format!("Capacity: {}", l.cap.spec.title);
    let mut b = vec![
        Block::H(1, title.clone()),
        Block::P(format!(
            "The highest rate each engine and configuration sustains with {} (scale `{}`). Workload: {}.",
            slo_text(&l.cap.spec.slo),
            l.scale,
            l.cap.spec.workload
        )),
        Block::H(2, "Answer".into()),
        Block::List(answer),
        Block::H(2, "Side by side".into()),
        side_by_side(&sums, &l),
    ];
    for s in &sums {
        b.push(Block::H(2, format!("{} / {}", s.engine, s.config)));
        if let Some(c) = l.cap.spec.configs.iter().find(|c| c.name == s.config) {
            if !c.note.is_empty() {
                b.push(Block::P(c.note.clone()));
            }
        }
        b.push(Block::P(s.line()));
        b.extend(charts(&l, s)?);
        b.push(Block::Details(
            "Decision log: every run, why it ran and what it measured".into(),
            vec![decision_log(&l, &s.engine, &s.config)],
        ));
    }
    b.extend(method(&l));
    b.push(Block::H(2, "Runs".into()));
    let mut facts: Vec<String> = meta
        .engines_run
        .iter()
        .map(|e| format!("{} ran through {}.", e.engine, e.how))
        .collect();
    facts.extend(meta.notes.iter().cloned());
    if !meta.set.is_empty() {
        facts.push(format!(
            "Flags overridden: {}.",
            meta.set
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    facts.push(format!(
        "The decision log is `{}`; each run's directory under `runs/` holds its bench's JSON report (`{MIX_FILE}`) and its judgement (`{}`).",
        trials::TRIALS_FILE,
        trials::JUDGEMENT_FILE
    ));
    b.push(Block::List(facts));
    let md = dir.join("report.md");
    std::fs::write(&md, markdown(&b))?;
    std::fs::write(dir.join("report.html"), html(&title, &b, dir))?;
    Ok((md, sums))
}
