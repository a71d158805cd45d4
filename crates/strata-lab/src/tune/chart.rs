//! The convergence chart of a tuning: each search run's objective in run
//! order (infeasible runs as crosses), the best feasible run so far as a
//! step line, and the baseline's level; written as SVG and PNG.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::report::chart::{draw_series_labels, render_svg_png};

/// One search run as the chart shows it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Point {
    /// The objective as users read it.
    pub shown: f64,
    /// Kept the constraints.
    pub feasible: bool,
}

/// The best feasible value after each run (`None` before the first
/// feasible one): `higher` says which way is better.
pub(crate) fn best_so_far(points: &[Point], higher: bool) -> Vec<Option<f64>> {
    let mut best: Option<f64> = None;
    points
        .iter()
        .map(|p| {
            if p.feasible && p.shown.is_finite() {
                best = Some(match best {
                    Some(b) if (higher && b >= p.shown) || (!higher && b <= p.shown) => b,
                    _ => p.shown,
                });
            }
            best
        })
        .collect()
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    y_label: &str,
    points: &[Point],
    higher: bool,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow::anyhow!("{e:?}");
    root.fill(&WHITE).map_err(e)?;
    let ys: Vec<f64> = points
        .iter()
        .map(|p| p.shown)
        .filter(|v| v.is_finite())
        .collect();
    let (lo, hi) = ys
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(*v), b.max(*v)));
    let (lo, hi) = if ys.is_empty() {
        (0.0, 1.0)
    } else {
        let pad = ((hi - lo) * 0.08).max(hi.abs() * 0.01).max(1e-9);
        (lo - pad, hi + pad)
    };
    let n = points.len().max(1) as f64;
    let mut ch = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.5f64..n + 0.5, lo..hi)
        .map_err(e)?;
    ch.configure_mesh()
        .x_desc("search run")
        .y_desc(y_label)
        .draw()
        .map_err(e)?;
    let blue = RGBColor(31, 119, 180);
    let red = RGBColor(214, 39, 40);
    if let Some(b) = points.first().filter(|p| p.shown.is_finite()) {
        ch.draw_series(LineSeries::new(
            [(0.5, b.shown), (n + 0.5, b.shown)],
            ShapeStyle::from(&RGBColor(150, 150, 150)).stroke_width(1),
        ))
        .map_err(e)?
        .label("baseline")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], RGBColor(150, 150, 150)));
    }
    let best = best_so_far(points, higher);
    let steps: Vec<(f64, f64)> = best
        .iter()
        .enumerate()
        .filter_map(|(i, b)| b.map(|v| ((i + 1) as f64, v)))
        .collect();
    ch.draw_series(LineSeries::new(steps, blue.stroke_width(2)))
        .map_err(e)?
        .label("best run so far")
        .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], blue.stroke_width(2)));
    ch.draw_series(
        points
            .iter()
            .enumerate()
            .filter(|(_, p)| p.feasible && p.shown.is_finite())
            .map(|(i, p)| Circle::new(((i + 1) as f64, p.shown), 4, blue.filled())),
    )
    .map_err(e)?
    .label("run")
    .legend(move |(x, y)| Circle::new((x + 8, y), 4, blue.filled()));
    ch.draw_series(
        points
            .iter()
            .enumerate()
            .filter(|(_, p)| !p.feasible && p.shown.is_finite())
            .map(|(i, p)| Cross::new(((i + 1) as f64, p.shown), 5, red.stroke_width(2))),
    )
    .map_err(e)?
    .label("infeasible run")
    .legend(move |(x, y)| Cross::new((x + 8, y), 5, red.stroke_width(2)));
    draw_series_labels(&mut ch, SeriesLabelPosition::LowerRight)
}

/// Writes `stem.svg` and `stem.png`.
pub(crate) fn render(
    stem: &Path,
    title: &str,
    y_label: &str,
    points: &[Point],
    higher: bool,
) -> anyhow::Result<()> {
    render_svg_png!(stem, (800, 450), |a| draw(
        &a, title, y_label, points, higher
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(shown: f64, feasible: bool) -> Point {
        Point { shown, feasible }
    }

    #[test]
    fn best_so_far_skips_infeasible_runs_and_follows_the_direction() {
        let pts = [
            p(10.0, false),
            p(5.0, true),
            p(8.0, true),
            p(20.0, false),
            p(7.0, true),
        ];
        assert_eq!(
            best_so_far(&pts, true),
            vec![None, Some(5.0), Some(8.0), Some(8.0), Some(8.0)]
        );
        assert_eq!(
            best_so_far(&pts, false),
            vec![None, Some(5.0), Some(5.0), Some(5.0), Some(5.0)]
        );
    }

    #[test]
    fn the_chart_is_written() {
        let d = tempfile::tempdir().unwrap();
        let stem = d.path().join("convergence");
        render(
            &stem,
            "t",
            "ops/sec",
            &[p(1.0, true), p(2.0, false), p(1.5, true)],
            true,
        )
        .unwrap();
        let svg = std::fs::read_to_string(stem.with_extension("svg")).unwrap();
        assert!(svg.contains("best run so far"));
        assert!(stem.with_extension("png").exists());
    }
}
