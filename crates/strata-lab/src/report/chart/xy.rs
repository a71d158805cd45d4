//! A trade-off chart: each point at its measured x and y, with ranges both
//! ways, labelled with its axis value.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::category::ty;
use super::data::{ChartData, Stat};
use super::marks::draw_marker;
use super::palette::series_styles;

/// (lowest, highest) of `vals` padded by 8% of the span (at least `min_pad`);
/// (0, 1) when empty.
pub(crate) fn padded_range(vals: &[f64], min_pad: f64) -> (f64, f64) {
    if vals.is_empty() {
        return (0.0, 1.0);
    }
    let (lo, hi) = vals
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(*v), b.max(*v)));
    let pad = ((hi - lo) * 0.08).max(min_pad);
    (lo - pad, hi + pad)
}

/// The x and y (transformed for `log_y`) ranges of a trade-off chart.
pub(crate) fn xy_ranges(c: &ChartData) -> ((f64, f64), (f64, f64)) {
    let log = c.log_y;
    let finite = |v: &f64| v.is_finite();
    let xv: Vec<f64> = c
        .lines
        .iter()
        .flat_map(|l| l.xs.iter().flatten().flat_map(|(m, a, b)| [*m, *a, *b]))
        .filter(finite)
        .collect();
    let yv: Vec<f64> = c
        .lines
        .iter()
        .flat_map(|l| l.points.iter().flatten().flat_map(|(m, a, b)| [*m, *a, *b]))
        .filter(finite)
        .map(|v| ty(v, log))
        .collect();
    (
        padded_range(&xv, 0.1),
        padded_range(&yv, if log { 0.05 } else { 0.01 }),
    )
}

/// A trade-off chart over x range `(x_lo, x_hi)` and y range `(y_lo,
/// y_hi)`: each line through its points at (x mean, y mean) in the order
/// of `x_labels`, min-max bars both ways, each point labelled. The legend is drawn
/// apart, outside the plot.
pub(crate) fn draw_xy<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    c: &ChartData,
    (x_lo, x_hi): (f64, f64),
    (y_lo, y_hi): (f64, f64),
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let log = c.log_y;
    let mut chart = ChartBuilder::on(root)
        .caption(&c.title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(75)
        .build_cartesian_2d(x_lo..x_hi, y_lo..y_hi)
        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    chart
        .configure_mesh()
        .x_label_formatter(&|v| crate::data::format::fmt_num(*v))
        .y_label_formatter(&|v| crate::data::format::fmt_num(if log { 10f64.powf(*v) } else { *v }))
        .x_desc(&c.x_desc)
        .y_desc(&c.y_desc)
        .label_style(("sans-serif", 14))
        .axis_desc_style(("sans-serif", 15))
        .draw()
        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow::anyhow!("{e:?}");
    let (bx, by) = root.get_base_pixel();
    for (l, s) in c.lines.iter().zip(series_styles(&c.lines)) {
        let color = s.color;
        // (label index, x stats, y stats) of each point the line has.
        let pts: Vec<(usize, Stat, Stat)> = l
            .points
            .iter()
            .zip(l.xs.iter())
            .enumerate()
            .filter_map(|(k, (y, x))| Some((k, (*x)?, (*y)?)))
            .collect();
        let centres: Vec<(f64, f64)> = pts.iter().map(|(_, x, y)| (x.0, ty(y.0, log))).collect();
        chart
            .draw_series(LineSeries::new(centres.clone(), color.stroke_width(2)))
            .map_err(err)?;
        for p in &centres {
            let (a, b) = chart.backend_coord(p);
            draw_marker(root, (a - bx, b - by), 4, &s, true)?;
        }
        for (k, x, y) in &pts {
            let (cx, cy) = (x.0, ty(y.0, log));
            let mut segs = Vec::new();
            if y.2 > y.1 {
                segs.push(vec![(cx, ty(y.1, log)), (cx, ty(y.2, log))]);
            }
            if x.2 > x.1 {
                segs.push(vec![(x.1, cy), (x.2, cy)]);
            }
            for seg in segs {
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        seg,
                        color.stroke_width(1),
                    )))
                    .map_err(err)?;
            }
            if let Some(label) = c.x_labels.get(*k) {
                // Up and to the right of the point, clear of its marker.
                chart
                    .draw_series(std::iter::once(
                        EmptyElement::at((cx, cy))
                            + Text::new(
                                label.clone(),
                                (6, -18),
                                ("sans-serif", 14).into_font().color(&color),
                            ),
                    ))
                    .map_err(err)?;
            }
        }
    }
    Ok(())
}
