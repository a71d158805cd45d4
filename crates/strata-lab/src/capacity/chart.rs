//! The time-series charts of a capacity search: one metric per chart
//! (throughput, P99, stall, L0 files, pending compaction bytes, disk use,
//! resident memory)
//! over the seconds of the mix, for the last passing and the first failing
//! rate of one engine and configuration, with the end of the warm-up and
//! the objective's limit where it has one; written as SVG and PNG.
//!
//! The y axis fits the judged seconds (after the warm-up) and the limit:
//! a warm-up sample above it (a P99 of a second while the first memtables
//! fill) is drawn at the top edge, and the warm-up's legend entry names the
//! largest value so clipped, so the window the objective judges stays legible.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::capacity::samples::{Benchmark, Interval};
use crate::report::chart::{draw_series_labels, render_svg_png};

/// One metric drawn over time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Series {
    /// Operations per second.
    Throughput,
    /// The worst kind's P99 (us).
    P99,
    /// The interval's longest stall (ms).
    Stall,
    /// L0 files.
    L0,
    /// Pending compaction bytes (MB).
    Pending,
    /// Disk use (MB).
    Disk,
    /// Resident memory of the bench (MB).
    Rss,
}

/// Every series, in the report's order.
pub(crate) const ALL: [Series; 7] = [
    Series::Throughput,
    Series::P99,
    Series::Stall,
    Series::L0,
    Series::Pending,
    Series::Disk,
    Series::Rss,
];

impl Series {
    /// File-name part.
    pub(crate) fn id(self) -> &'static str {
        match self {
            Series::Throughput => "ops",
            Series::P99 => "p99",
            Series::Stall => "stall",
            Series::L0 => "l0",
            Series::Pending => "pending",
            Series::Disk => "disk",
            Series::Rss => "rss",
        }
    }

    /// The y axis's label.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Series::Throughput => "ops/sec",
            Series::P99 => "P99 of the worst kind (us)",
            Series::Stall => "longest stall (ms)",
            Series::L0 => "L0 files",
            Series::Pending => "pending compaction (MB)",
            Series::Disk => "disk use (MB)",
            Series::Rss => "memory without mapped files (MB)",
        }
    }

    /// The value of one interval (`None`: not sampled).
    pub(crate) fn value(self, i: &Interval) -> Option<f64> {
        match self {
            Series::Throughput => Some(i.ops_per_sec),
            Series::P99 => i.latency.values().filter_map(|l| l.p99_us).reduce(f64::max),
            Series::Stall => i.stall_ms(),
            Series::L0 => i.l0_files,
            Series::Pending => i.pending_compaction_bytes.map(|b| b / 1e6),
            Series::Disk => i.disk_bytes.map(|b| b / 1e6),
            Series::Rss => i.own_memory_bytes().map(|b| b / 1e6),
        }
    }
}

/// A run drawn: its legend name, colour and samples.
pub(crate) struct Run<'a> {
    /// Legend name (`pass at 37600 ops/s`).
    pub name: String,
    /// Passed (blue) or failed (red).
    pub pass: bool,
    /// Its mix.
    pub mix: &'a Benchmark,
}

const BLUE: RGBColor = RGBColor(31, 119, 180);
const RED: RGBColor = RGBColor(214, 39, 40);
const GREY: RGBColor = RGBColor(120, 120, 120);

/// The points of `s` in `run`.
fn points(s: Series, run: &Run) -> Vec<(f64, f64)> {
    run.mix
        .intervals
        .iter()
        .filter_map(|i| Some((i.t_end_s, s.value(i)?)))
        .filter(|(_, v)| v.is_finite())
        .collect()
}

/// The y axis of one chart: its top, and the largest warm-up value above it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct YAxis {
    /// The axis's top.
    pub hi: f64,
    /// The largest warm-up sample above `hi`, drawn at the top edge.
    pub clipped: Option<f64>,
}

impl YAxis {
    /// The axis for `points` (seconds, value): the largest judged value
    /// (at or after `warmup`) or the limit, with half again as headroom for
    /// the legend in the upper left. With no judged sample, every sample counts.
    pub(crate) fn fit(points: &[(f64, f64)], warmup: f64, limit: Option<f64>) -> YAxis {
        let judged = points.iter().filter(|p| p.0 >= warmup).map(|p| p.1);
        let top = if points.iter().any(|p| p.0 >= warmup) {
            judged.fold(0.0f64, f64::max)
        } else {
            points.iter().map(|p| p.1).fold(0.0f64, f64::max)
        };
        let hi = limit.into_iter().fold(top, f64::max).max(1e-9) * 1.5;
        let clipped = points
            .iter()
            .map(|p| p.1)
            .filter(|&v| v > hi)
            .reduce(f64::max);
        YAxis { hi, clipped }
    }

    /// The legend entry of the warm-up's end.
    fn warmup_label(&self) -> String {
        match self.clipped {
            Some(v) => format!("end of the warm-up (its samples up to {v:.0} at the top)"),
            None => "end of the warm-up".to_string(),
        }
    }
}

/// Whether any run has a sample of `s`.
pub(crate) fn has_data(s: Series, runs: &[Run]) -> bool {
    runs.iter().any(|r| !points(s, r).is_empty())
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    s: Series,
    runs: &[Run],
    warmup: f64,
    limit: Option<f64>,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow::anyhow!("{e:?}");
    root.fill(&WHITE).map_err(e)?;
    let all: Vec<(f64, f64)> = runs.iter().flat_map(|r| points(s, r)).collect();
    let x_hi = all.iter().map(|p| p.0).fold(warmup + 1.0, f64::max);
    let axis = YAxis::fit(&all, warmup, limit);
    let y_hi = axis.hi;
    let mut ch = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d(0f64..x_hi, 0f64..y_hi)
        .map_err(e)?;
    ch.configure_mesh()
        .x_desc("seconds into the mix")
        .y_desc(s.label())
        .draw()
        .map_err(e)?;
    for r in runs {
        let c = if r.pass { BLUE } else { RED };
        let clamped = points(s, r).into_iter().map(|(x, y)| (x, y.min(y_hi)));
        ch.draw_series(LineSeries::new(clamped, c.stroke_width(2)))
            .map_err(e)?
            .label(r.name.clone())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], c.stroke_width(2)));
    }
    ch.draw_series(DashedLineSeries::new(
        [(warmup, 0.0), (warmup, y_hi)],
        4,
        4,
        GREY.stroke_width(1),
    ))
    .map_err(e)?
    .label(axis.warmup_label())
    .legend(|(x, y)| {
        EmptyElement::at((x, y))
            + PathElement::new([(0, 0), (6, 0)], GREY.stroke_width(1))
            + PathElement::new([(10, 0), (16, 0)], GREY.stroke_width(1))
    });
    if let Some(l) = limit {
        ch.draw_series(DashedLineSeries::new(
            [(0.0, l), (x_hi, l)],
            8,
            4,
            BLACK.stroke_width(1),
        ))
        .map_err(e)?
        .label("limit of the objective")
        .legend(|(x, y)| {
            EmptyElement::at((x, y))
                + PathElement::new([(0, 0), (6, 0)], BLACK.stroke_width(1))
                + PathElement::new([(10, 0), (16, 0)], BLACK.stroke_width(1))
        });
    }
    draw_series_labels(&mut ch, SeriesLabelPosition::UpperLeft)
}

/// Writes `stem.svg` and `stem.png`: metric `s` of `runs` over time.
pub(crate) fn render(
    stem: &Path,
    title: &str,
    s: Series,
    runs: &[Run],
    warmup: f64,
    limit: Option<f64>,
) -> anyhow::Result<()> {
    render_svg_png!(stem, (540, 320), |a| draw(
        &a, title, s, runs, warmup, limit
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capacity::samples::KindLatency;

    #[test]
    fn every_series_reads_its_figure_and_the_chart_names_what_it_draws() {
        let i = Interval {
            t_end_s: 1.0,
            ops_per_sec: 900.0,
            latency: [
                (
                    "read".to_string(),
                    KindLatency {
                        p99_us: Some(40.0),
                        ..Default::default()
                    },
                ),
                (
                    "update".to_string(),
                    KindLatency {
                        p99_us: Some(70.0),
                        ..Default::default()
                    },
                ),
            ]
            .into(),
            max_gap_ms: Some(3.0),
            stall_micros: Some(9000.0),
            l0_files: Some(4.0),
            pending_compaction_bytes: Some(2e6),
            disk_bytes: Some(5e6),
            rss_bytes: Some(7e6),
            ..Interval::default()
        };
        let got: Vec<Option<f64>> = ALL.iter().map(|s| s.value(&i)).collect();
        assert_eq!(
            got,
            [
                Some(900.0),
                Some(70.0),
                Some(9.0),
                Some(4.0),
                Some(2.0),
                Some(5.0),
                Some(7.0)
            ]
        );
        let mix = Benchmark {
            intervals: vec![i.clone(), Interval { t_end_s: 2.0, ..i }],
            ..Benchmark::default()
        };
        let d = tempfile::tempdir().unwrap();
        let stem = d.path().join("p99");
        let runs = [Run {
            name: "pass at 900 ops/s".into(),
            pass: true,
            mix: &mix,
        }];
        render(&stem, "P99", Series::P99, &runs, 1.0, Some(100.0)).unwrap();
        let svg = std::fs::read_to_string(stem.with_extension("svg")).unwrap();
        for want in [
            "pass at 900 ops/s",
            "end of the warm-up",
            "limit of the objective",
        ] {
            assert!(svg.contains(want), "{want}");
        }
        assert!(stem.with_extension("png").exists());
        assert!(!svg.contains("at the top"), "nothing is clipped here");
        assert!(!has_data(
            Series::L0,
            &[Run {
                name: String::new(),
                pass: false,
                mix: &Benchmark::default()
            }]
        ));
    }

    #[test]
    fn a_warm_up_spike_is_clipped_to_the_judged_window_and_named() {
        // A 800,000 us P99 in the first seconds, 2,000 us afterwards.
        let pts = [
            (1.0, 800_000.0),
            (2.0, 400_000.0),
            (21.0, 2_000.0),
            (40.0, 3_000.0),
        ];
        let a = YAxis::fit(&pts, 20.0, Some(2_000.0));
        assert_eq!(a.hi, 4_500.0);
        assert_eq!(a.clipped, Some(800_000.0));
        assert_eq!(
            a.warmup_label(),
            "end of the warm-up (its samples up to 800000 at the top)"
        );
        // A limit above the data sets the top; nothing is clipped.
        let a = YAxis::fit(&pts[2..], 20.0, Some(10_000.0));
        assert_eq!((a.hi, a.clipped), (15_000.0, None));
        // Only warm-up samples: they set the axis themselves.
        let a = YAxis::fit(&pts[..2], 20.0, None);
        assert_eq!((a.hi, a.clipped), (1_200_000.0, None));
    }
}
