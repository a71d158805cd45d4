//! The search for the highest rate meeting the objective: a pure function
//! of the runs so far, so a search resumes from its log and gives the same
//! answer from the same runs.
//!
//! Rates are rounded to three significant digits. A rate passes when more
//! than half of its runs pass (a tie fails). The search:
//! 1. runs the closed-loop probe's rate (the top); if it passes (by
//!    majority over `repeats` runs), the answer is "at least the top": the
//!    engine's own maximum binds, not the objective;
//! 2. otherwise brackets: `hi` is the lowest failing rate, `lo` the highest
//!    passing rate below it; without a passing rate it runs the floor
//!    (`floor` x the top), and if the floor fails too (by majority over
//!    `repeats` runs), the answer is "below the floor";
//! 3. bisects in log space (the geometric mean of `lo` and `hi`), one run
//!    per new rate, until `hi / lo <= 1 + tolerance`;
//! 4. repeats `lo` and then `hi` until each has `repeats` runs; a repeat
//!    that turns a rate's majority moves the bracket, and bisection goes
//!    on from the new bracket;
//! 5. stops after `max_runs` paced runs whatever the state (the answer
//!    then says the search is incomplete).
//!
//! The answer is the bracket `[lo, hi)` with the pass counts at both ends.

use std::fmt;

/// The search's settings (from the file's `[search]`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Params {
    /// Relative width at which bisection stops.
    pub tolerance: f64,
    /// Runs at each boundary rate.
    pub repeats: u32,
    /// The floor as a fraction of the top.
    pub floor: f64,
    /// Paced runs at most.
    pub max_runs: usize,
}

impl From<&crate::capacity::spec::SearchSpec> for Params {
    fn from(s: &crate::capacity::spec::SearchSpec) -> Self {
        Params {
            tolerance: s.tolerance,
            repeats: s.repeats,
            floor: s.floor,
            max_runs: s.max_runs,
        }
    }
}

/// One paced run's rate and outcome.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Obs {
    /// Target rate (ops/s).
    pub rate: f64,
    /// Met the objective.
    pub pass: bool,
}

/// The runs at one rate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Tally {
    /// Target rate (ops/s).
    pub rate: f64,
    /// Runs that met the objective.
    pub passes: u32,
    /// Runs.
    pub runs: u32,
}

impl Tally {
    /// Whether most runs at this rate passed.
    pub(crate) fn passes(&self) -> bool {
        2 * self.passes > self.runs
    }
}

impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}/{} pass)", self.rate, self.passes, self.runs)
    }
}

/// What to run next.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Next {
    /// One run at `rate`, for the reason `why`.
    Run {
        /// Target rate.
        rate: f64,
        /// Why (for the decision log).
        why: String,
    },
    /// The search is over.
    Done,
}

/// How the search ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Between a passing and a failing rate.
    Bracketed,
    /// The closed-loop rate passes: the engine's maximum binds.
    AtLeastTop,
    /// The floor fails.
    BelowFloor,
    /// No run yet.
    NotRun,
}

/// The search's answer.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Answer {
    /// How it ended.
    pub kind: Kind,
    /// The highest passing rate below `hi` (the sustainable rate).
    pub lo: Option<Tally>,
    /// The lowest failing rate.
    pub hi: Option<Tally>,
    /// Whether the search ran to its end (not stopped by `max_runs`).
    pub complete: bool,
}

/// `r` rounded to three significant digits (at least 1 op/s).
pub(crate) fn round_rate(r: f64) -> f64 {
    if !(r.is_finite() && r > 1.0) {
        return 1.0;
    }
    let digits = r.log10().floor() as i32 - 2;
    let unit = 10f64.powi(digits);
    ((r / unit).round() * unit).max(1.0)
}

/// The runs grouped by rate, lowest rate first.
pub(crate) fn tallies(obs: &[Obs]) -> Vec<Tally> {
    let mut out: Vec<Tally> = Vec::new();
    for o in obs {
        match out.iter_mut().find(|t| t.rate == o.rate) {
            Some(t) => {
                t.runs += 1;
                t.passes += u32::from(o.pass);
            }
            None => out.push(Tally {
                rate: o.rate,
                passes: u32::from(o.pass),
                runs: 1,
            }),
        }
    }
    out.sort_by(|a, b| a.rate.total_cmp(&b.rate));
    out
}

/// `(lo, hi)`: the highest passing rate below the lowest failing one, and
/// the lowest failing one.
fn bracket(ts: &[Tally]) -> (Option<Tally>, Option<Tally>) {
    let hi = ts.iter().find(|t| !t.passes()).copied();
    let lo = ts
        .iter()
        .rfind(|t| t.passes() && hi.is_none_or(|h| t.rate < h.rate))
        .copied();
    (lo, hi)
}

/// The next run of a search whose closed-loop probe reached `probe` ops/s,
/// after the paced runs `obs` (in any order).
pub(crate) fn next(probe: f64, obs: &[Obs], p: &Params) -> Next {
    if obs.len() >= p.max_runs {
        return Next::Done;
    }
    let top = round_rate(probe);
    let floor = round_rate(probe * p.floor);
    let ts = tallies(obs);
    let get = |r: f64| ts.iter().find(|t| t.rate == r);
    let run = |rate: f64, why: String| Next::Run { rate, why };
    let Some(top_t) = get(top) else {
        return run(top, "the closed-loop probe's rate".into());
    };
    let (lo, hi) = bracket(&ts);
    let Some(hi) = hi else {
        if top_t.runs < p.repeats {
            return run(top, "repeat at the closed-loop rate".into());
        }
        return Next::Done;
    };
    let Some(lo) = lo else {
        if hi.rate > floor && get(floor).is_none() {
            return run(floor, format!("the floor ({} of the probe)", p.floor));
        }
        if hi.runs < p.repeats {
            return run(hi.rate, "repeat at the lowest failing rate".into());
        }
        return Next::Done;
    };
    if hi.rate / lo.rate > 1.0 + p.tolerance {
        let mid = round_rate((lo.rate * hi.rate).sqrt());
        if mid > lo.rate && mid < hi.rate {
            return run(mid, format!("bisect [{}, {})", lo.rate, hi.rate));
        }
    }
    if lo.runs < p.repeats {
        return run(lo.rate, "repeat at the highest passing rate".into());
    }
    if hi.runs < p.repeats {
        return run(hi.rate, "repeat at the lowest failing rate".into());
    }
    Next::Done
}

/// The answer the runs `obs` give (complete when [`next`] says done).
pub(crate) fn answer(probe: f64, obs: &[Obs], p: &Params) -> Answer {
    let ts = tallies(obs);
    let (lo, hi) = bracket(&ts);
    let kind = match (obs.is_empty(), lo, hi) {
        (true, _, _) => Kind::NotRun,
        (_, _, None) => Kind::AtLeastTop,
        (_, None, Some(_)) => Kind::BelowFloor,
        _ => Kind::Bracketed,
    };
    Answer {
        kind,
        lo,
        hi,
        complete: next(
            probe,
            obs,
            &Params {
                max_runs: usize::MAX,
                ..*p
            },
        ) == Next::Done,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic stand-in for a run: it passes when the rate is at
    /// most the capacity, give or take `noise` (a fraction) drawn from a
    /// hash of the rate and the repeat.
    fn fake_run(capacity: f64, noise: f64, rate: f64, repeat: u32) -> bool {
        let mut h =
            (rate.to_bits() ^ (u64::from(repeat) << 32)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^= h >> 29;
        let u = (h % 2001) as f64 / 1000.0 - 1.0;
        rate <= capacity * (1.0 + noise * u)
    }

    /// Runs a whole search on the fake; returns the log as text and the answer.
    fn search(probe: f64, capacity: f64, noise: f64, p: &Params) -> (String, Answer) {
        let mut obs: Vec<Obs> = Vec::new();
        let mut log = String::new();
        while let Next::Run { rate, why } = next(probe, &obs, p) {
            let repeat = obs.iter().filter(|o| o.rate == rate).count() as u32;
            let pass = fake_run(capacity, noise, rate, repeat);
            log.push_str(&format!(
                "{rate} {} ({why})\n",
                if pass { "pass" } else { "fail" }
            ));
            obs.push(Obs { rate, pass });
            assert!(obs.len() <= p.max_runs, "the search must stop");
        }
        (log, answer(probe, &obs, p))
    }

    fn show(a: &Answer) -> String {
        let t = |t: Option<Tally>| t.map(|t| t.to_string()).unwrap_or_else(|| "-".into());
        format!(
            "{:?} lo={} hi={}{}",
            a.kind,
            t(a.lo),
            t(a.hi),
            if a.complete { "" } else { " (incomplete)" }
        )
    }

    /// The cases in `testdata/capacity/search.txt`: each a line `probe=P
    /// capacity=C noise=N tolerance=T repeats=R floor=F max_runs=M`, a line
    /// `----`, the runs in order and the answer. Regenerate with
    /// `STRATA_UPDATE_GOLDEN=1` after an intended change.
    #[test]
    fn the_search_finds_the_fakes_capacity() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/capacity/search.txt");
        let text = std::fs::read_to_string(&path).unwrap();
        let mut out = String::new();
        for case in text.split("\n====\n") {
            let (input, want) = case.split_once("\n----").expect("input ---- output");
            let want = want.trim_start_matches('\n');
            let kv = |k: &str| -> f64 {
                input
                    .split_whitespace()
                    .find_map(|w| w.strip_prefix(&format!("{k}=")))
                    .unwrap_or_else(|| panic!("{k} in {input}"))
                    .parse()
                    .unwrap()
            };
            let p = Params {
                tolerance: kv("tolerance"),
                repeats: kv("repeats") as u32,
                floor: kv("floor"),
                max_runs: kv("max_runs") as usize,
            };
            let capacity = kv("capacity");
            let noise = kv("noise");
            let (log, a) = search(kv("probe"), capacity, noise, &p);
            // Whatever the log, a complete bracketed answer holds the
            // capacity within the noise.
            if a.kind == Kind::Bracketed && a.complete {
                let (lo, hi) = (a.lo.unwrap().rate, a.hi.unwrap().rate);
                assert!(lo <= capacity * (1.0 + noise), "{input}: {lo}");
                assert!(hi >= capacity * (1.0 - noise), "{input}: {hi}");
                assert!(hi / lo <= 1.0 + p.tolerance + 0.01, "{input}: {lo} {hi}");
            }
            let got = format!("{log}{}\n", show(&a));
            if std::env::var("STRATA_UPDATE_GOLDEN").is_err() {
                assert_eq!(got.trim_end(), want.trim_end(), "{input}");
            }
            out.push_str(&format!("{input}\n----\n{got}"));
            out.push_str("====\n");
        }
        if std::env::var("STRATA_UPDATE_GOLDEN").is_ok() {
            let out = out.trim_end_matches("====\n").to_string();
            std::fs::write(&path, out).unwrap();
        }
    }

    #[test]
    fn rates_round_to_three_digits() {
        for (r, want) in [
            (12345.6, 12300.0),
            (999.5, 1000.0),
            (0.2, 1.0),
            (87.04, 87.0),
        ] {
            assert_eq!(round_rate(r), want, "{r}");
        }
    }

    #[test]
    fn a_tie_fails_and_a_flipped_boundary_moves_the_bracket() {
        let p = Params {
            tolerance: 0.05,
            repeats: 2,
            floor: 0.1,
            max_runs: 30,
        };
        let o = |rate, pass| Obs { rate, pass };
        assert!(!Tally {
            rate: 1.0,
            passes: 1,
            runs: 2
        }
        .passes());
        // 1000 passed once, then failed once: a tie, so it fails and the
        // search bisects below it.
        let obs = [
            o(2000.0, false),
            o(200.0, true),
            o(1000.0, true),
            o(1000.0, false),
        ];
        assert_eq!(
            next(2000.0, &obs, &p),
            Next::Run {
                rate: 447.0,
                why: "bisect [200, 1000)".into()
            }
        );
    }
}
