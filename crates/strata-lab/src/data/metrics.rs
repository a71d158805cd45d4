//! The metric registry: every metric the lab lists by name, with where its
//! value comes from, its unit, which direction is better, how it is shown,
//! and the views it appears in (the CSV columns, `lab compare`, the
//! report's results tables, the engine comparison). The result files, the
//! comparison, the report and the verdicts read their metric lists and
//! directions from here; `strata lab metrics` prints it.
//!
//! A metric not registered here (a ticker, an op-prefixed percentile) is
//! still kept in every row's `metrics`; it is shown only where a study names
//! it (a chart, a finding) and counts as lower-is-better.

use crate::data::format::fmt_num;
use Better::{Higher, Lower, Neither};
use Source::{CompactionStats, EventLog, Histogram, Process, ResultLine, Score, Statistics};
use View::{Compare, Csv, Table, Versus};

/// Where a metric's value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// The benchmark's result line (`fillrandom : 2.1 micros/op ...`).
    ResultLine,
    /// The benchmark's latency histogram of the step's operations.
    Histogram,
    /// The `STATISTICS:` tickers and histograms.
    Statistics,
    /// The compaction stats table (`** Compaction Stats **`).
    CompactionStats,
    /// The benchmark process, as the lab measured it (`wait4`).
    Process,
    /// The engine's event log (`EVENT_LOG_v1` lines of the DB's LOG).
    EventLog,
    /// The study's composite score, computed by the report.
    Score,
}

impl Source {
    /// Short description for `strata lab metrics`.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            Source::ResultLine => "result line",
            Source::Histogram => "latency histogram",
            Source::Statistics => "STATISTICS",
            Source::CompactionStats => "compaction stats",
            Source::Process => "process (wait4)",
            Source::EventLog => "LOG events",
            Source::Score => "composite score",
        }
    }
}

/// Which direction of a metric is better.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Better {
    /// Higher is better (throughput).
    Higher,
    /// Lower is better (amplification, latency, time).
    Lower,
    /// Neither: the metric explains others rather than grading an engine
    /// (reported as higher or lower, never better or worse).
    Neither,
}

/// The guard that may withhold a metric's figure as not meaningful (the
/// latency guards go by name pattern and cover unregistered percentiles).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Guard {
    /// No guard by metric group.
    None,
    /// A rate: withheld for a one-operation benchmark.
    Rate,
    /// Over flushed bytes: withheld when too few bytes were flushed.
    FlushedBytes,
    /// Over user bytes written: withheld when too few were written.
    UserBytes,
}

/// Where a metric is shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum View {
    /// A column of `results.csv`.
    Csv,
    /// Compared by `lab compare`.
    Compare,
    /// A column of the report's results tables.
    Table,
    /// A column of the report's "Strata against ..." tables, at this
    /// position.
    Versus(u8),
}

/// One registered metric.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Metric {
    /// Name, the key in a result row's `metrics`.
    pub name: &'static str,
    /// Where the value comes from.
    pub source: Source,
    /// Unit.
    pub unit: &'static str,
    /// Which direction is better.
    pub better: Better,
    /// Column title where the report titles metrics (the engine comparison).
    pub label: &'static str,
    /// How a value is written.
    pub format: fn(f64) -> String,
    /// Which guard may withhold it.
    pub guard: Guard,
    /// Where it is shown.
    pub views: &'static [View],
}

impl Metric {
    /// Whether the metric is shown in `view` (a [`View::Versus`] at any
    /// position when `view` is one).
    pub(crate) fn in_view(&self, view: View) -> bool {
        self.views.iter().any(|v| match (v, view) {
            (View::Versus(_), View::Versus(_)) => true,
            _ => *v == view,
        })
    }

    /// A value of this metric as text.
    pub(crate) fn show(&self, v: f64) -> String {
        (self.format)(v)
    }
}

const fn m(
    name: &'static str,
    source: Source,
    unit: &'static str,
    better: Better,
    label: &'static str,
    guard: Guard,
    views: &'static [View],
) -> Metric {
    Metric {
        name,
        source,
        unit,
        better,
        label,
        format: fmt_num,
        guard,
        views,
    }
}

/// Every registered metric, in the order views list them.
#[rustfmt::skip]
pub(crate) const METRICS: &[Metric] = &[
    m("ops_sec", ResultLine, "ops/s", Higher, "ops/sec", Guard::Rate, &[Csv, Compare, Table, Versus(0)]),
    m("micros_op", ResultLine, "µs/op", Lower, "micros/op", Guard::Rate, &[Csv, Compare]),
    m("mb_sec", ResultLine, "MB/s", Higher, "MB/s", Guard::Rate, &[Csv, Compare, Table]),
    m("bench_sec", ResultLine, "s", Lower, "bench seconds", Guard::None, &[Table]),
    m("found_pct", ResultLine, "%", Higher, "found %", Guard::None, &[]),
    m("p50", Histogram, "µs", Lower, "p50", Guard::None, &[Csv, Compare, Table]),
    m("p99", Histogram, "µs", Lower, "p99", Guard::None, &[Csv, Compare, Table, Versus(5)]),
    m("p999", Histogram, "µs", Lower, "p999", Guard::None, &[Csv, Compare, Table]),
    m("get_p50", Statistics, "µs", Lower, "get p50", Guard::None, &[Csv, Compare, Table]),
    m("get_p99", Statistics, "µs", Lower, "get p99", Guard::None, &[Csv, Compare, Table]),
    m("waf", Statistics, "x", Lower, "WAF", Guard::UserBytes, &[Csv, Compare, Table, Versus(1)]),
    m("waf_no_wal", Statistics, "x", Lower, "WAF without WAL", Guard::UserBytes, &[Table]),
    m("waf_tickers", Statistics, "x", Lower, "WAF (tickers)", Guard::UserBytes, &[]),
    m("wamp", CompactionStats, "x", Lower, "W-Amp", Guard::FlushedBytes, &[Csv, Compare, Table]),
    m("wamp_exact", Statistics, "x", Lower, "W-Amp", Guard::FlushedBytes, &[Versus(2)]),
    m("comp_cpu_sec", Statistics, "s", Lower, "compaction CPU s", Guard::None, &[Csv, Compare, Table]),
    m("comp_sec", CompactionStats, "s", Lower, "compaction s", Guard::None, &[Csv]),
    m("sst_write_p50", Statistics, "µs", Lower, "SST write p50", Guard::None, &[Table]),
    m("sst_write_p99", Statistics, "µs", Lower, "SST write p99", Guard::None, &[Table]),
    m("blob_write_p50", Statistics, "µs", Lower, "blob write p50", Guard::None, &[Table]),
    m("blob_write_p99", Statistics, "µs", Lower, "blob write p99", Guard::None, &[Table]),
    m("stall_sec", Statistics, "s", Lower, "stall s", Guard::None, &[Csv, Compare, Table]),
    m("cpu_pct", Process, "%", Lower, "CPU %", Guard::None, &[Csv, Compare, Table]),
    m("cpu_us_op", Process, "µs/op", Lower, "CPU µs/op", Guard::None, &[Csv, Compare, Table]),
    m("score", Score, "points", Higher, "score", Guard::None, &[Table]),
    m("l0_files_per_merge", EventLog, "files", Neither, "L0 files/merge", Guard::None, &[Versus(3)]),
    m("l0_files_mean", EventLog, "files", Neither, "mean L0 files", Guard::None, &[Versus(4)]),
];

/// The registered metric named `name`.
pub(crate) fn get(name: &str) -> Option<&'static Metric> {
    METRICS.iter().find(|m| m.name == name)
}

/// The metrics shown in `view`, in the view's order.
pub(crate) fn in_view(view: View) -> Vec<&'static Metric> {
    let mut v: Vec<&'static Metric> = METRICS.iter().filter(|m| m.in_view(view)).collect();
    if !matches!(view, Versus(_)) {
        return v;
    }
    v.sort_by_key(|m| {
        m.views.iter().find_map(|v| match v {
            View::Versus(i) => Some(*i),
            _ => None,
        })
    });
    v
}

/// `v` as `metric`'s format writes it ([`fmt_num`] for an unregistered
/// metric).
pub(crate) fn show(metric: &str, v: f64) -> String {
    get(metric).map_or_else(|| fmt_num(v), |m| m.show(v))
}

/// The names of the metrics shown in `view`, in the view's order.
pub(crate) fn names(view: View) -> Vec<&'static str> {
    in_view(view).into_iter().map(|m| m.name).collect()
}

/// The names of the metrics `guard` may withhold.
pub(crate) fn guarded_by(guard: Guard) -> impl Iterator<Item = &'static str> {
    METRICS
        .iter()
        .filter(move |m| m.guard == guard)
        .map(|m| m.name)
}

/// Whether a higher value of `metric` is better; `false` for a metric
/// judged neither way and for an unregistered one.
pub(crate) fn higher_is_better(metric: &str) -> bool {
    get(metric).is_some_and(|m| m.better == Higher)
}

/// Whether a difference in `metric` grades an engine (better or worse),
/// rather than explaining another metric (higher or lower).
pub(crate) fn judged(metric: &str) -> bool {
    get(metric).is_none_or(|m| m.better != Neither)
}

/// The registry as a Markdown table (`strata lab metrics`).
pub(crate) fn table() -> String {
    let mut out = String::from(
        "| metric | label | unit | better | from | shown in |\n|---|---|---|---|---|---|\n",
    );
    for m in METRICS {
        let better = match m.better {
            Higher => "higher",
            Lower => "lower",
            Neither => "neither",
        };
        let views: Vec<&str> = m
            .views
            .iter()
            .map(|v| match v {
                Csv => "csv",
                Compare => "compare",
                Table => "results table",
                Versus(_) => "engine comparison",
            })
            .collect();
        out.push_str(&format!(
            "| `{}` | {} | {} | {better} | {} | {} |\n",
            m.name,
            m.label,
            m.unit,
            m.source.describe(),
            views.join(", ")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique() {
        for (i, a) in METRICS.iter().enumerate() {
            assert!(
                METRICS[i + 1..].iter().all(|b| b.name != a.name),
                "{} twice",
                a.name
            );
        }
    }

    #[test]
    fn views_keep_their_order() {
        assert_eq!(
            names(Versus(0)),
            [
                "ops_sec",
                "waf",
                "wamp_exact",
                "l0_files_per_merge",
                "l0_files_mean",
                "p99"
            ]
        );
        assert_eq!(names(Compare).first(), Some(&"ops_sec"));
        assert!(names(Csv).contains(&"comp_sec") && !names(Compare).contains(&"comp_sec"));
        let table = names(Table);
        assert_eq!(table[..3], ["ops_sec", "mb_sec", "bench_sec"]);
        assert_eq!(table.last(), Some(&"score"));
    }

    #[test]
    fn directions() {
        assert!(higher_is_better("ops_sec") && higher_is_better("found_pct"));
        assert!(!higher_is_better("waf") && !higher_is_better("some_ticker"));
        assert!(!higher_is_better("l0_files_mean"));
        assert!(judged("waf") && judged("some_ticker") && !judged("l0_files_per_merge"));
    }

    #[test]
    fn guards_groups() {
        assert_eq!(
            guarded_by(Guard::Rate).collect::<Vec<_>>(),
            ["ops_sec", "micros_op", "mb_sec"]
        );
        assert_eq!(
            guarded_by(Guard::FlushedBytes).collect::<Vec<_>>(),
            ["wamp", "wamp_exact"]
        );
        assert_eq!(
            guarded_by(Guard::UserBytes).collect::<Vec<_>>(),
            ["waf", "waf_no_wal", "waf_tickers"]
        );
    }

    #[test]
    fn the_table_has_a_row_per_metric() {
        let t = table();
        assert_eq!(t.lines().count(), METRICS.len() + 2);
        assert!(t.contains("| `wamp_exact` | W-Amp | x | lower | STATISTICS | engine comparison |"));
    }
}
