//! Judging one paced run against the objective, from its per-second
//! samples: the intervals ending after the warm-up form the window.
//!
//! - latency: each judged kind's P99 (and P99.9) in every interval of the
//!   window is at most the bound: the figure kept is the largest
//!   per-interval percentile (a percentile of the window from per-interval
//!   percentiles would not be one; the largest is the SLO "in every second");
//! - stall: the largest [`Interval::stall_ms`] in the window;
//! - space: the mix's peak disk use over the live data (num x (key_size +
//!   value_size)), the whole mix counted, warm-up included;
//! - memory: the mix's peak resident set size;
//! - schedule: a run whose paced stream lags its schedule by more than the
//!   tolerance, at an interval of the window or at the end, fell behind:
//!   it fails whatever its latencies.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::capacity::samples::{Benchmark, Interval};
use crate::capacity::spec::Slo;

/// A limit of the objective.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Limit {
    /// The run fell behind its schedule.
    Schedule,
    /// A latency percentile.
    Latency,
    /// A stall.
    Stall,
    /// Disk space over the live data.
    Space,
    /// Resident memory.
    Memory,
    /// The run failed or left no samples in its window.
    Run,
}

impl Limit {
    /// The limit's name in the report.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Limit::Schedule => "schedule",
            Limit::Latency => "latency",
            Limit::Stall => "stall",
            Limit::Space => "space",
            Limit::Memory => "memory",
            Limit::Run => "run",
        }
    }
}

/// A limit a run broke, with the figure and the bound in words.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Breach {
    /// Which limit.
    pub limit: Limit,
    /// What broke it (`update P99 7100 us > 5000 us`).
    pub what: String,
}

/// One run's figures over its window and whether it met the objective.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Judgement {
    /// Met every limit.
    pub pass: bool,
    /// The limits it broke.
    pub breaches: Vec<Breach>,
    /// Intervals in the window.
    pub window_intervals: usize,
    /// Mean operations per second over the window.
    pub window_ops_per_sec: f64,
    /// Largest per-interval P99 of each kind in the window (us).
    pub p99_us: BTreeMap<String, f64>,
    /// Largest per-interval P99.9 of each kind in the window (us).
    pub p999_us: BTreeMap<String, f64>,
    /// Longest stall in the window (ms).
    pub max_stall_ms: Option<f64>,
    /// Peak disk use over the live data.
    pub space_amp: Option<f64>,
    /// Peak memory of the bench's own (MB): resident memory without the
    /// pages of mapped files ([`super::samples::Interval::own_memory_bytes`]).
    #[serde(alias = "peak_rss_mb")]
    pub peak_memory_mb: Option<f64>,
    /// Largest lag behind the schedule, window and end (ms).
    pub behind_ms: f64,
}

fn max_of(it: impl Iterator<Item = f64>) -> Option<f64> {
    it.filter(|v| v.is_finite()).reduce(f64::max)
}

/// The intervals of `b` ending after `warmup` seconds.
pub(crate) fn window(b: &Benchmark, warmup: f64) -> Vec<&Interval> {
    b.intervals
        .iter()
        .filter(|i| i.t_end_s > warmup + 1e-9)
        .collect()
}

/// Judges the mix `b` of a paced run: the window is what follows `warmup`
/// seconds; `live_bytes` is the live data the space limit divides by.
pub(crate) fn judge(b: &Benchmark, slo: &Slo, warmup: f64, live_bytes: f64) -> Judgement {
    let w = window(b, warmup);
    let mut j = Judgement {
        window_intervals: w.len(),
        ..Judgement::default()
    };
    let mut breaches = Vec::new();
    if w.is_empty() {
        breaches.push(breach(
            Limit::Run,
            format!(
                "no interval after the {warmup} s warm-up (the mix ran {:.1} s)",
                b.intervals.last().map(|i| i.t_end_s).unwrap_or(0.0)
            ),
        ));
    }
    j.window_ops_per_sec = if w.is_empty() {
        0.0
    } else {
        w.iter().map(|i| i.ops_per_sec).sum::<f64>() / w.len() as f64
    };
    for i in &w {
        for (kind, l) in &i.latency {
            if let Some(v) = l.p99_us {
                let e = j.p99_us.entry(kind.clone()).or_insert(v);
                *e = e.max(v);
            }
            if let Some(v) = l.p99_9_us {
                let e = j.p999_us.entry(kind.clone()).or_insert(v);
                *e = e.max(v);
            }
        }
    }
    j.max_stall_ms = max_of(w.iter().filter_map(|i| i.stall_ms()));
    j.behind_ms = max_of(
        w.iter()
            .filter_map(|i| i.behind_schedule_ms)
            .chain(b.behind_schedule_ms),
    )
    .unwrap_or(0.0);
    let peak_disk = max_of(
        b.intervals
            .iter()
            .filter_map(|i| i.disk_bytes)
            .chain(b.peak_disk_bytes),
    );
    j.space_amp = peak_disk
        .filter(|_| live_bytes > 0.0)
        .map(|d| d / live_bytes);
    j.peak_memory_mb = max_of(
        b.intervals
            .iter()
            .filter_map(|i| i.own_memory_bytes())
            .chain(b.peak_own_memory_bytes.or(b.peak_rss_bytes)),
    )
    .map(|v| v / 1e6);
    if j.behind_ms > slo.behind_ms {
        breaches.push(breach(
            Limit::Schedule,
            format!(
                "fell behind schedule by {:.0} ms (> {:.0} ms)",
                j.behind_ms, slo.behind_ms
            ),
        ));
    }
    let judged = |k: &String| slo.ops.is_empty() || slo.ops.contains(k);
    for (bound, figures, pct) in [
        (slo.p99_us, &j.p99_us, "P99"),
        (slo.p999_us, &j.p999_us, "P99.9"),
    ] {
        let Some(bound) = bound else { continue };
        for (k, v) in figures.iter().filter(|(k, _)| judged(k)) {
            if *v > bound {
                breaches.push(breach(
                    Limit::Latency,
                    format!("{k} {pct} {v:.0} us > {bound:.0} us"),
                ));
            }
        }
        if !w.is_empty() && !figures.keys().any(judged) {
            breaches.push(breach(
                Limit::Run,
                format!("no {pct} of a judged operation kind in the window"),
            ));
        }
    }
    if let Some(bound) = slo.max_stall_ms {
        match j.max_stall_ms {
            Some(v) if v > bound => breaches.push(breach(
                Limit::Stall,
                format!("stall {v:.0} ms > {bound:.0} ms"),
            )),
            Some(_) => {}
            None if w.is_empty() => {}
            None => breaches.push(breach(Limit::Run, "no stall figure sampled".into())),
        }
    }
    if let Some(bound) = slo.max_space_amp {
        match j.space_amp {
            Some(v) if v > bound => breaches.push(breach(
                Limit::Space,
                format!("peak disk {v:.2}x the live data > {bound}x"),
            )),
            Some(_) => {}
            None => breaches.push(breach(Limit::Run, "no disk use sampled".into())),
        }
    }
    if let Some(bound) = slo.max_rss_mb {
        match j.peak_memory_mb {
            Some(v) if v > bound => breaches.push(breach(
                Limit::Memory,
                format!("peak memory {v:.0} MB > {bound:.0} MB"),
            )),
            Some(_) => {}
            None => breaches.push(breach(Limit::Run, "no memory use sampled".into())),
        }
    }
    j.pass = breaches.is_empty();
    j.breaches = breaches;
    j
}

fn breach(limit: Limit, what: String) -> Breach {
    Breach { limit, what }
}

/// A run that failed before its mix could be judged.
pub(crate) fn failed_run(why: String) -> Judgement {
    Judgement {
        breaches: vec![Breach {
            limit: Limit::Run,
            what: why,
        }],
        ..Judgement::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capacity::samples::KindLatency;

    fn interval(t: f64, p99: f64, gap: f64, behind: f64) -> Interval {
        Interval {
            t_end_s: t,
            ops_per_sec: 1000.0,
            latency: [(
                "update".to_string(),
                KindLatency {
                    count: 500,
                    p99_us: Some(p99),
                    p99_9_us: Some(p99 * 2.0),
                    ..KindLatency::default()
                },
            )]
            .into(),
            max_gap_ms: Some(gap),
            behind_schedule_ms: Some(behind),
            stall_micros: Some(0.0),
            disk_bytes: Some(1500.0),
            rss_bytes: Some(50e6),
            ..Interval::default()
        }
    }

    fn slo() -> Slo {
        Slo {
            p99_us: Some(5000.0),
            max_stall_ms: Some(100.0),
            max_space_amp: Some(2.0),
            behind_ms: 1000.0,
            ..Slo::default()
        }
    }

    fn bench(intervals: Vec<Interval>) -> Benchmark {
        Benchmark {
            name: "overwrite".into(),
            intervals,
            ..Benchmark::default()
        }
    }

    /// The warm-up's intervals are not judged, each limit names itself
    /// when broken, and falling behind fails a run whose latencies pass.
    #[test]
    fn the_window_is_judged_limit_by_limit() {
        // A terrible warm-up, a good window.
        let b = bench(vec![
            interval(1.0, 90000.0, 900.0, 5000.0),
            interval(2.0, 800.0, 3.0, 0.0),
            interval(3.0, 900.0, 4.0, 0.0),
        ]);
        let j = judge(&b, &slo(), 1.0, 1000.0);
        assert!(j.pass, "{:?}", j.breaches);
        assert_eq!(j.window_intervals, 2);
        assert_eq!(j.p99_us["update"], 900.0);
        assert_eq!(j.max_stall_ms, Some(4.0));
        assert_eq!(j.space_amp, Some(1.5));

        // t_end_s P99_us gap_ms behind_ms live_bytes | limit | what breaks
        let cases = "\
2 7000 3 0 1000 | latency | update P99 7000 us > 5000 us
2 800 150 0 1000 | stall | stall 150 ms > 100 ms
2 800 3 0 500 | space | peak disk 3.00x the live data > 2x
2 800 3 2500 1000 | schedule | behind schedule by 2500 ms
0.5 800 3 0 1000 | run | no interval after the 1 s warm-up";
        for case in cases.lines() {
            let [input, limit, want] = <[&str; 3]>::try_from(case.split(" | ").collect::<Vec<_>>())
                .unwrap_or_else(|_| panic!("{case}"));
            let n: Vec<f64> = input.split(' ').map(|x| x.parse().unwrap()).collect();
            let j = judge(
                &bench(vec![interval(n[0], n[1], n[2], n[3])]),
                &slo(),
                1.0,
                n[4],
            );
            assert!(!j.pass, "{case}");
            assert_eq!(j.breaches[0].limit.name(), limit, "{:?}", j.breaches);
            assert!(j.breaches[0].what.contains(want), "{:?}", j.breaches);
        }
    }

    #[test]
    fn only_the_named_kinds_are_judged_and_the_end_lag_counts() {
        let mut s = slo();
        s.ops = vec!["read".into()];
        let b = bench(vec![interval(2.0, 7000.0, 3.0, 0.0)]);
        let j = judge(&b, &s, 1.0, 1000.0);
        assert_eq!(j.breaches.len(), 1);
        assert!(j.breaches[0].what.contains("no P99 of a judged"));
        let mut i = interval(2.0, 800.0, 3.0, 0.0);
        (i.max_gap_ms, i.stall_micros) = (None, None);
        let j = judge(&bench(vec![i]), &slo(), 1.0, 1000.0);
        assert_eq!(j.breaches[0].what, "no stall figure sampled");
        let mut b = bench(vec![interval(2.0, 800.0, 3.0, 0.0)]);
        b.behind_schedule_ms = Some(1200.0);
        assert_eq!(
            judge(&b, &slo(), 1.0, 1000.0).breaches[0].limit,
            Limit::Schedule
        );
    }
}
