//! The time-series charts of a capacity search: one metric per chart
//! (throughput, P99, stall, L0 files, pending compaction bytes, disk use,
//! resident memory)
//! over the seconds of the mix, for the last passing and the first failing
//! rate of one engine and configuration, with the end of the warm-up and
//! the objective's limit where it has one; written as SVG and PNG.

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
    let y_hi = all
        .iter()
        .map(|p| p.1)
        .chain(limit)
        .fold(0.0f64, f64::max)
        .max(1e-9)
        // Headroom above the data for the legend in the upper left.
        * 1.5;
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
        ch.draw_series(LineSeries::new(points(s, r), c.stroke_width(2)))
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
    .label("end of the warm-up")
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
        assert!(!has_data(
            Series::L0,
            &[Run {
                name: String::new(),
                pass: false,
                mix: &Benchmark::default()
            }]
        ));
    }
}
