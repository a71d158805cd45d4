//! A chart along an axis of labels: lines along an ordered axis, grouped
//! bars along an unordered one, with min-max error bars and markers.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::data::ChartData;
use super::marks::{draw_marker, draw_patch, draw_stub_box, BAR_OPACITY};
use super::palette::series_styles;
use super::stubs::{plot_geometry, stub_text, STUB_FONT, STUB_H};
use super::xy::{draw_xy, xy_ranges};

pub(crate) fn ty(v: f64, log: bool) -> f64 {
    if log {
        v.max(1e-3).log10()
    } else {
        v
    }
}

/// Font size (px) of the x-axis category labels: 14, or smaller when the
/// longest label would not fit its share of `plot_width_px` (about 0.6 em
/// per character), down to 8. Study 5's seven compaction variants
/// ("leveled-base64-mult4") ran into each other at 14.
pub(crate) fn x_label_size(plot_width_px: u32, labels: &[String]) -> u32 {
    let longest = labels.iter().map(|l| l.chars().count()).max().unwrap_or(0);
    if longest == 0 {
        return 14;
    }
    let slot = f64::from(plot_width_px) / labels.len().max(1) as f64;
    let fit = (slot * 0.9 / (longest as f64 * 0.6)).floor() as u32;
    fit.clamp(8, 14)
}

/// The value ranges a chart is drawn on: computed from its own lines, or
/// from the lines of all panels of a faceted chart so that they share them.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Ranges {
    /// Categorical x: y from `lo` to `hi`, with `pad` (the headroom above
    /// the data, also where marker labels go).
    Cat { lo: f64, hi: f64, pad: f64 },
    /// Trade-off chart: x and y (transformed for `log_y`) ranges.
    Xy { x: (f64, f64), y: (f64, f64) },
}

/// The ranges that fit every line of `c`.
pub(crate) fn ranges(c: &ChartData) -> Ranges {
    if c.xy {
        let (x, y) = xy_ranges(c);
        return Ranges::Xy { x, y };
    }
    let vals: Vec<f64> = c
        .lines
        .iter()
        .flat_map(|l| {
            l.points
                .iter()
                .flatten()
                .flat_map(|(m, lo, hi)| [*m, *lo, *hi])
        })
        .filter(|v| v.is_finite())
        .map(|v| ty(v, c.log_y))
        .collect();
    let (mut lo, mut hi) = vals
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(*v), b.max(*v)));
    if vals.is_empty() {
        (lo, hi) = (0.0, 1.0);
    }
    if !c.log_y {
        lo = lo.min(0.0);
    }
    let pad =
        ((hi - lo).abs() * if c.bars { 0.3 } else { 0.08 }).max(if c.log_y { 0.1 } else { 1e-9 });
    let (lo, hi) = (if c.log_y { lo - pad } else { lo }, hi + pad);
    Ranges::Cat { lo, hi, pad }
}

/// Draws the plot of `c` on `root` (already filled) over `r`: bars or
/// lines in their series' styles, a stub for each missing value, error
/// bars and markers. The legend is drawn apart, outside the plot.
pub(crate) fn draw_in<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    c: &ChartData,
    r: Ranges,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let (lo, hi, pad) = match r {
        Ranges::Xy { x, y } => return draw_xy(root, c, x, y),
        Ranges::Cat { lo, hi, pad } => (lo, hi, pad),
    };
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow::anyhow!("{e:?}");
    let n = c.x_labels.len().max(1);
    let labels = c.x_labels.clone();
    let log = c.log_y;
    // Plot width: the area less the y-label area (75) and margins (2 x 12).
    let x_font = x_label_size(root.dim_in_pixel().0.saturating_sub(99), &labels);
    let mut chart = ChartBuilder::on(root)
        .caption(&c.title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(75)
        .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), lo..hi)
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_labels(n)
        .x_label_formatter(&|v| {
            let i = v.round();
            if (v - i).abs() < 0.01 && i >= 0.0 {
                labels.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        })
        .y_label_formatter(&|v| {
            if log {
                // Two significant digits on a log axis.
                let x = 10f64.powf(*v);
                let mag = 10f64.powf(x.abs().log10().floor() - 1.0);
                crate::data::format::fmt_num((x / mag).round() * mag)
            } else {
                crate::data::format::fmt_num(*v)
            }
        })
        .x_desc(&c.x_desc)
        .y_desc(&c.y_desc)
        .label_style(("sans-serif", 14))
        .x_label_style(("sans-serif", x_font))
        .axis_desc_style(("sans-serif", 15))
        .draw()
        .map_err(err)?;
    // Pixel position within `root` of a point in the chart's coordinates.
    let (bx, by) = root.get_base_pixel();
    let px = |chart: &ChartContext<DB, _>, x: f64, y: f64| -> (i32, i32) {
        let (a, b) = chart.backend_coord(&(x, y));
        (a - bx, b - by)
    };
    let styles = series_styles(&c.lines);
    let geo = plot_geometry(c, root.dim_in_pixel());
    let nl = c.lines.len().max(1) as f64;
    let bw = 0.8 / nl;
    let base = if log { lo } else { 0.0 };
    for (i, l) in c.lines.iter().enumerate() {
        let s = &styles[i];
        // Centre of this line's bar (or its error-bar offset) within a category.
        let off = |x: usize| -> f64 {
            if c.bars {
                x as f64 - 0.4 + (i as f64 + 0.5) * bw
            } else {
                // Spread the error bars of different lines a little so they do not overlap.
                x as f64 + (i as f64 - (nl - 1.0) / 2.0) * 0.04
            }
        };
        let pts: Vec<(f64, f64)> = l
            .points
            .iter()
            .enumerate()
            .filter_map(|(x, p)| p.map(|(m, _, _)| (x as f64, ty(m, log))))
            .collect();
        if c.bars {
            for (x, p) in l.points.iter().enumerate() {
                if let Some((m, _, _)) = p {
                    let cx = off(x);
                    let a = px(&chart, cx - bw / 2.0, base);
                    let b = px(&chart, cx + bw / 2.0, ty(*m, log));
                    draw_patch(root, a, b, s, BAR_OPACITY)?;
                }
            }
        } else {
            chart
                .draw_series(LineSeries::new(pts.clone(), s.color.stroke_width(2)))
                .map_err(err)?;
            for p in &pts {
                draw_marker(root, px(&chart, p.0, p.1), 4, s, true)?;
            }
        }
        // Each missing value: a stub at the foot of its place, with its
        // label upward where it fits.
        for x in 0..n {
            let Some(label) = l.gap(x) else { continue };
            let cx = off(x);
            if c.bars {
                let (x0, y0) = px(&chart, cx - bw / 2.0, base);
                let (x1, _) = px(&chart, cx + bw / 2.0, base);
                draw_stub_box(root, (x0 + 1, x1 - 1), y0, STUB_H, s)?;
                if let Some(text) = stub_text(c, &label, geo) {
                    let mid = (x0 + x1) / 2;
                    root.draw(&Text::new(
                        text,
                        (mid - STUB_FONT as i32 / 2, y0 - STUB_H - 4),
                        ("sans-serif", STUB_FONT)
                            .into_font()
                            .transform(FontTransform::Rotate270)
                            .color(&RGBColor(60, 60, 60)),
                    ))
                    .map_err(err)?;
                }
            } else {
                let (x0, y0) = px(&chart, cx, lo);
                draw_marker(root, (x0, y0 - 8), 4, s, false)?;
            }
        }
        // Whiskers narrower than a bar, so that they stay over their own.
        let whisker = if c.bars { (bw * 0.35).min(0.06) } else { 0.06 };
        for (x, p) in l.points.iter().enumerate() {
            if let Some((_, mn, mx)) = p {
                if mx > mn {
                    let x = off(x);
                    let (a, b) = (ty(*mn, log), ty(*mx, log));
                    for seg in [
                        vec![(x, a), (x, b)],
                        vec![(x - whisker, a), (x + whisker, a)],
                        vec![(x - whisker, b), (x + whisker, b)],
                    ] {
                        chart
                            .draw_series(std::iter::once(PathElement::new(
                                seg,
                                if c.bars {
                                    BLACK.stroke_width(1)
                                } else {
                                    s.color.stroke_width(1)
                                },
                            )))
                            .map_err(err)?;
                    }
                }
            }
        }
    }
    // Each marker's label gets its own text row, so that markers at the
    // same place (two engines crossing over between the same two points)
    // stay readable (regression: the labels were drawn over each other).
    let row = (hi - lo) * 0.06;
    for (i, (x, label)) in c.markers.iter().enumerate() {
        let grey = RGBColor(90, 90, 90);
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(*x, lo), (*x, hi)],
                grey.stroke_width(2),
            )))
            .map_err(err)?;
        chart
            .draw_series(std::iter::once(Text::new(
                label.clone(),
                (*x + 0.05, hi - pad * 0.8 - row * i as f64),
                ("sans-serif", 14).into_font().color(&grey),
            )))
            .map_err(err)?;
    }
    Ok(())
}
