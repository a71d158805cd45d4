//! Charts with min-max error bars, drawn with plotters to SVG and PNG
//! (embedded DejaVu Sans font; no system font libraries): lines along an
//! ordered axis, grouped bars along an unordered one, trade-off charts
//! (one metric against another), a grid of panels for a faceted chart,
//! and the dashboard.

use std::path::Path;
use std::sync::Once;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

static FONT: &[u8] = include_bytes!("../../assets/DejaVuSans.ttf");
static REGISTER: Once = Once::new();

fn register_font() {
    REGISTER.call_once(|| {
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

/// One line: a name and per-x (mean, min, max).
#[derive(Clone, Debug)]
pub(crate) struct Line {
    /// Legend name.
    pub name: String,
    /// Per x index: (mean, min, max), `None` where no data.
    pub points: Vec<Option<(f64, f64, f64)>>,
    /// Trade-off charts ([`ChartData::xy`]): per x index, the point's
    /// horizontal position as (mean, min, max); empty otherwise.
    pub xs: Vec<Option<(f64, f64, f64)>>,
}

/// What to draw.
#[derive(Clone, Debug)]
pub(crate) struct ChartData {
    /// Title.
    pub title: String,
    /// X axis caption.
    pub x_desc: String,
    /// Y axis caption.
    pub y_desc: String,
    /// X labels.
    pub x_labels: Vec<String>,
    /// Lines.
    pub lines: Vec<Line>,
    /// Logarithmic y.
    pub log_y: bool,
    /// Vertical markers: (x position as fractional index, label).
    pub markers: Vec<(f64, String)>,
    /// Grouped bars instead of lines (categorical x).
    pub bars: bool,
    /// A trade-off chart: x is a measured value (each line's `xs`), not a
    /// category; `x_labels` label the points instead of the axis.
    pub xy: bool,
}

/// Colours of lines that do not start with an engine's name.
const COLORS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(23, 190, 207),
];

/// Each engine's one colour, in every chart of every report (line names
/// start with the engine).
pub(crate) const ENGINE_COLORS: [(&str, RGBColor); 4] = [
    ("strata", RGBColor(31, 119, 180)),
    ("rocksdb", RGBColor(214, 39, 40)),
    ("leveldb", RGBColor(44, 160, 44)),
    ("fjall", RGBColor(255, 127, 14)),
];

/// The colour of line `i`: its engine's colour, in a lighter or darker
/// shade for the engine's second, third, ... line in the chart (its other
/// series); lines without an engine take the palette in order.
pub(crate) fn line_color(lines: &[Line], i: usize) -> RGBColor {
    let engine = |l: &Line| l.name.split(' ').next().unwrap_or("").to_ascii_lowercase();
    let e = engine(&lines[i]);
    let Some(base) = ENGINE_COLORS.iter().find(|(n, _)| *n == e).map(|(_, c)| *c) else {
        return COLORS[i % COLORS.len()];
    };
    let k = lines[..i].iter().filter(|l| engine(l) == e).count();
    // 0: the colour; then lighter, darker, lighter still, darker still, ...
    let step = (k.div_ceil(2) as f64 * 0.3).min(0.75);
    let toward = |c: u8, t: f64| -> u8 {
        let c = f64::from(c);
        (if k % 2 == 1 {
            c + (255.0 - c) * t
        } else {
            c * (1.0 - t)
        })
        .round() as u8
    };
    if k == 0 {
        base
    } else {
        RGBColor(
            toward(base.0, step),
            toward(base.1, step),
            toward(base.2, step),
        )
    }
}

fn ty(v: f64, log: bool) -> f64 {
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
fn x_label_size(plot_width_px: u32, labels: &[String]) -> u32 {
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
enum Ranges {
    /// Categorical x: y from `lo` to `hi`, with `pad` (the headroom above
    /// the data, also where marker labels go).
    Cat { lo: f64, hi: f64, pad: f64 },
    /// Trade-off chart: x and y (transformed for `log_y`) ranges.
    Xy { x: (f64, f64), y: (f64, f64) },
}

/// The ranges that fit every line of `c`.
fn ranges(c: &ChartData) -> Ranges {
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

fn draw<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, c: &ChartData) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(|e| anyhow::anyhow!("{e:?}"))?;
    draw_in(root, c, ranges(c), true)
}

/// Draws `c` on `root` (already filled) over `r`, with its legend when
/// `legend`.
fn draw_in<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    c: &ChartData,
    r: Ranges,
    legend: bool,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let (lo, hi, pad) = match r {
        Ranges::Xy { x, y } => return draw_xy(root, c, x, y, legend),
        Ranges::Cat { lo, hi, pad } => (lo, hi, pad),
    };
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
        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
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
        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    for (i, l) in c.lines.iter().enumerate() {
        let color = line_color(&c.lines, i);
        let pts: Vec<(f64, f64)> = l
            .points
            .iter()
            .enumerate()
            .filter_map(|(x, p)| p.map(|(m, _, _)| (x as f64, ty(m, log))))
            .collect();
        let nl = c.lines.len().max(1) as f64;
        let bw = 0.8 / nl;
        // Centre of this line's bar (or its error-bar offset) within a category.
        let off = |x: usize| -> f64 {
            if c.bars {
                x as f64 - 0.4 + (i as f64 + 0.5) * bw
            } else {
                // Spread the error bars of different lines a little so they do not overlap.
                x as f64 + (i as f64 - (nl - 1.0) / 2.0) * 0.04
            }
        };
        if c.bars {
            let base = if log { lo } else { 0.0 };
            chart
                .draw_series(l.points.iter().enumerate().filter_map(|(x, p)| {
                    p.map(|(m, _, _)| {
                        let cx = off(x);
                        Rectangle::new(
                            [(cx - bw / 2.0, base), (cx + bw / 2.0, ty(m, log))],
                            color.mix(0.8).filled(),
                        )
                    })
                }))
                .map_err(|e| anyhow::anyhow!("{e:?}"))?
                .label(l.name.clone())
                .legend(move |(x, y)| {
                    Rectangle::new([(x, y - 5), (x + 18, y + 5)], color.filled())
                });
        } else {
            chart
                .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))
                .map_err(|e| anyhow::anyhow!("{e:?}"))?
                .label(l.name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(3))
                });
            chart
                .draw_series(pts.iter().map(|p| Circle::new(*p, 4, color.filled())))
                .map_err(|e| anyhow::anyhow!("{e:?}"))?;
        }
        for (x, p) in l.points.iter().enumerate() {
            if let Some((_, mn, mx)) = p {
                if mx > mn {
                    let x = off(x);
                    let (a, b) = (ty(*mn, log), ty(*mx, log));
                    for seg in [
                        vec![(x, a), (x, b)],
                        vec![(x - 0.06, a), (x + 0.06, a)],
                        vec![(x - 0.06, b), (x + 0.06, b)],
                    ] {
                        chart
                            .draw_series(std::iter::once(PathElement::new(
                                seg,
                                if c.bars {
                                    BLACK.stroke_width(1)
                                } else {
                                    color.stroke_width(1)
                                },
                            )))
                            .map_err(|e| anyhow::anyhow!("{e:?}"))?;
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
            .map_err(|e| anyhow::anyhow!("{e:?}"))?;
        chart
            .draw_series(std::iter::once(Text::new(
                label.clone(),
                (*x + 0.05, hi - pad * 0.8 - row * i as f64),
                ("sans-serif", 14).into_font().color(&grey),
            )))
            .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    }
    if legend {
        draw_legend(&mut chart)?;
    }
    Ok(())
}

/// (lowest, highest) of `vals` padded by 8% of the span (at least `min_pad`);
/// (0, 1) when empty.
fn padded_range(vals: &[f64], min_pad: f64) -> (f64, f64) {
    if vals.is_empty() {
        return (0.0, 1.0);
    }
    let (lo, hi) = vals
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(*v), b.max(*v)));
    let pad = ((hi - lo) * 0.08).max(min_pad);
    (lo - pad, hi + pad)
}

/// (mean, min, max) of one coordinate of a point.
type Stat = (f64, f64, f64);

/// The x and y (transformed for `log_y`) ranges of a trade-off chart.
fn xy_ranges(c: &ChartData) -> ((f64, f64), (f64, f64)) {
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
/// of `x_labels`, min-max bars both ways, each point labelled; its legend
/// when `legend`.
fn draw_xy<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    c: &ChartData,
    (x_lo, x_hi): (f64, f64),
    (y_lo, y_hi): (f64, f64),
    legend: bool,
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
    for (i, l) in c.lines.iter().enumerate() {
        let color = line_color(&c.lines, i);
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
            .map_err(err)?
            .label(l.name.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(3))
            });
        chart
            .draw_series(centres.iter().map(|p| Circle::new(*p, 4, color.filled())))
            .map_err(err)?;
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
    if legend {
        draw_legend(&mut chart)?;
    }
    Ok(())
}

/// The series legend, upper right, shared by both chart kinds.
fn draw_legend<'a, DB: DrawingBackend + 'a>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
    Ok(())
}

fn present<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    root.present().map_err(|e| anyhow::anyhow!("{e:?}"))
}

fn draw_dashboard<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    charts: &[ChartData],
    text_title: &str,
    text: &[String],
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let areas = root.split_evenly((3, 3));
    for (a, c) in areas.iter().zip(charts.iter().take(8)) {
        draw(a, c)?;
    }
    if let Some(a) = areas.get(charts.len().min(8)) {
        let style = ("sans-serif", 15).into_font();
        a.draw(&Text::new(
            text_title.to_string(),
            (20, 20),
            ("sans-serif", 22).into_font(),
        ))
        .map_err(|e| anyhow::anyhow!("{e:?}"))?;
        let mut y = 60;
        for line in text {
            for chunk in wrap(line, 60) {
                a.draw(&Text::new(chunk, (20, y), style.clone()))
                    .map_err(|e| anyhow::anyhow!("{e:?}"))?;
                y += 20;
            }
            y += 6;
        }
    }
    Ok(())
}

/// Greedy word wrap at `width` characters.
fn wrap(s: &str, width: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for w in s.split_whitespace() {
        if !cur.is_empty() && cur.len() + 1 + w.len() > width {
            out.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(w);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Writes a 3x3 dashboard (up to eight charts and a text panel) as `stem.svg` and `stem.png`.
pub(crate) fn render_dashboard(
    charts: &[ChartData],
    text_title: &str,
    text: &[String],
    stem: &Path,
) -> anyhow::Result<()> {
    register_font();
    let svg = stem.with_extension("svg");
    let png = stem.with_extension("png");
    let a = SVGBackend::new(&svg, (2100, 1350)).into_drawing_area();
    draw_dashboard(&a, charts, text_title, text)?;
    present(&a)?;
    let b = BitMapBackend::new(&png, (2100, 1350)).into_drawing_area();
    draw_dashboard(&b, charts, text_title, text)?;
    present(&b)?;
    Ok(())
}

/// Writes `stem.svg` and `stem.png`.
pub(crate) fn render(c: &ChartData, stem: &Path) -> anyhow::Result<()> {
    register_font();
    let svg = stem.with_extension("svg");
    let png = stem.with_extension("png");
    let a = SVGBackend::new(&svg, (800, 500)).into_drawing_area();
    draw(&a, c)?;
    present(&a)?;
    let b = BitMapBackend::new(&png, (800, 500)).into_drawing_area();
    draw(&b, c)?;
    present(&b)?;
    Ok(())
}

/// Size in pixels of one panel of a faceted chart.
const PANEL: (u32, u32) = (600, 400);
/// Height of a faceted chart's title row, and of one row of its legend.
const TITLE_H: u32 = 40;
const LEGEND_ROW_H: u32 = 24;

/// Columns of the grid of `n` panels: all in one row up to three, two
/// columns for four, three beyond.
fn grid_columns(n: usize) -> usize {
    match n {
        0..=3 => n.max(1),
        4 => 2,
        _ => 3,
    }
}

/// Legend entries laid out in rows across `width` pixels: per entry its
/// (row, x offset). Each entry is an 18 px swatch, a gap and its name at
/// about 8 px per character.
fn legend_layout(names: &[String], width: u32) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let (mut row, mut x) = (0u32, 20u32);
    for n in names {
        let w = 18 + 6 + 8 * n.chars().count() as u32 + 24;
        if x > 20 && x + w > width {
            row += 1;
            x = 20;
        }
        out.push((row, x));
        x += w;
    }
    out
}

/// Pixel size of a grid of `panels` under a title and legend.
fn grid_size(panels: &[ChartData]) -> (u32, u32) {
    let cols = grid_columns(panels.len()) as u32;
    let rows = panels.len().div_ceil(cols as usize).max(1) as u32;
    let width = (cols * PANEL.0).max(800);
    let names: Vec<String> = panels
        .first()
        .map(|p| p.lines.iter().map(|l| l.name.clone()).collect())
        .unwrap_or_default();
    let legend_rows = legend_layout(&names, width)
        .last()
        .map_or(0, |(r, _)| r + 1);
    (
        width,
        TITLE_H + legend_rows * LEGEND_ROW_H + 8 + rows * PANEL.1,
    )
}

/// Small multiples: `title` on top, one shared legend (the first panel's
/// line names; every panel has the same lines in the same order, hence the
/// same colours), then a grid of the panels, each captioned with its own
/// title, all on the same value ranges.
fn draw_grid<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    panels: &[ChartData],
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow::anyhow!("{e:?}");
    root.fill(&WHITE).map_err(err)?;
    let Some(first) = panels.first() else {
        return Ok(());
    };
    let (width, _) = root.dim_in_pixel();
    root.draw(&Text::new(
        title.to_string(),
        (20, 10),
        ("sans-serif", 24).into_font(),
    ))
    .map_err(err)?;
    let names: Vec<String> = first.lines.iter().map(|l| l.name.clone()).collect();
    let layout = legend_layout(&names, width);
    for (i, (name, (row, x))) in names.iter().zip(&layout).enumerate() {
        let color = COLORS[i % COLORS.len()];
        let x = *x as i32;
        let y = (TITLE_H + row * LEGEND_ROW_H + LEGEND_ROW_H / 2) as i32;
        if first.bars {
            root.draw(&Rectangle::new(
                [(x, y - 6), (x + 18, y + 6)],
                color.filled(),
            ))
            .map_err(err)?;
        } else {
            root.draw(&PathElement::new(
                vec![(x, y), (x + 18, y)],
                color.stroke_width(3),
            ))
            .map_err(err)?;
        }
        root.draw(&Text::new(
            name.clone(),
            (x + 24, y - 8),
            ("sans-serif", 15).into_font(),
        ))
        .map_err(err)?;
    }
    let legend_rows = layout.last().map_or(0, |(r, _)| r + 1);
    let top = TITLE_H + legend_rows * LEGEND_ROW_H + 8;
    let (_, body) = root.split_vertically(top);
    let cols = grid_columns(panels.len());
    let rows = panels.len().div_ceil(cols);
    let mut all = first.clone();
    all.lines = panels.iter().flat_map(|p| p.lines.clone()).collect();
    let shared = ranges(&all);
    for (area, p) in body.split_evenly((rows, cols)).iter().zip(panels) {
        draw_in(area, p, shared, false)?;
    }
    Ok(())
}

/// Writes a faceted chart as `stem.svg` and `stem.png`: one panel per
/// facet (each [`ChartData`] titled with its facet's values) in a grid in
/// one image, under `title` and one legend, all panels on the same value
/// ranges. With a single panel it is [`render`] of that panel.
pub(crate) fn render_panels(title: &str, panels: &[ChartData], stem: &Path) -> anyhow::Result<()> {
    if let [one] = panels {
        return render(one, stem);
    }
    register_font();
    let size = grid_size(panels);
    let svg = stem.with_extension("svg");
    let png = stem.with_extension("png");
    let a = SVGBackend::new(&svg, size).into_drawing_area();
    draw_grid(&a, title, panels)?;
    present(&a)?;
    let b = BitMapBackend::new(&png, size).into_drawing_area();
    draw_grid(&b, title, panels)?;
    present(&b)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chart of one line `name` through `points` (mean, min, max) over
    /// `labels`, drawn with lines on a linear y axis and no markers.
    fn line_chart(labels: &[&str], name: &str, points: Vec<Option<(f64, f64, f64)>>) -> ChartData {
        ChartData {
            title: "t".into(),
            x_desc: "x".into(),
            y_desc: "y".into(),
            x_labels: labels.iter().map(|l| l.to_string()).collect(),
            lines: vec![Line {
                name: name.into(),
                points,
                xs: Vec::new(),
            }],
            log_y: false,
            markers: Vec::new(),
            bars: false,
            xy: false,
        }
    }

    /// Asserts that the file at `path` is a PNG.
    fn assert_png(path: &Path) {
        let png = std::fs::read(path).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{}", path.display());
    }

    fn named(names: &[&str]) -> Vec<Line> {
        names
            .iter()
            .map(|n| Line {
                name: (*n).into(),
                points: Vec::new(),
                xs: Vec::new(),
            })
            .collect()
    }

    #[test]
    fn each_engine_has_one_colour_whatever_the_order() {
        let a = named(&["leveldb", "strata", "fjall", "rocksdb"]);
        let b = named(&["rocksdb", "fjall", "strata", "leveldb"]);
        for (lines, i, engine) in [(&a, 0, 2), (&a, 1, 0), (&b, 1, 3), (&b, 3, 2)] {
            assert_eq!(line_color(lines, i), ENGINE_COLORS[engine].1);
        }
        // An engine's other series: shades of its colour, all different.
        let s = named(&[
            "strata wal=on",
            "rocksdb wal=on",
            "strata wal=off",
            "strata x",
        ]);
        let c: Vec<RGBColor> = (0..4).map(|i| line_color(&s, i)).collect();
        assert_eq!(c[0], ENGINE_COLORS[0].1);
        assert_eq!(c[1], ENGINE_COLORS[1].1);
        assert!(c[2] != c[0] && c[3] != c[0] && c[2] != c[3], "{c:?}");
        // Lines without an engine keep the palette.
        assert_eq!(line_color(&named(&["a", "b"]), 1), COLORS[1]);
    }

    /// Regression: two crossover markers between the same points (both
    /// engines) drew their labels on top of each other.
    #[test]
    fn markers_at_the_same_place_get_separate_label_rows() {
        let d = tempfile::tempdir().unwrap();
        let c = ChartData {
            markers: vec![(0.5, "alpha marker".into()), (0.5, "beta marker".into())],
            ..line_chart(
                &["1 KB", "2 KB"],
                "inline",
                vec![Some((1.0, 1.0, 1.0)), Some((2.0, 2.0, 2.0))],
            )
        };
        render(&c, &d.path().join("m")).unwrap();
        let svg = std::fs::read_to_string(d.path().join("m.svg")).unwrap();
        let y_of = |label: &str| -> String {
            let at = svg.find(label).expect(label);
            let start = svg[..at].rfind("<text").unwrap();
            let tag = &svg[start..at];
            let y = tag.find(" y=\"").unwrap() + 4;
            tag[y..].split('"').next().unwrap().to_string()
        };
        assert_ne!(y_of("alpha marker"), y_of("beta marker"), "{svg}");
    }

    /// Regression: study 5's variant names overprinted each other on the
    /// x axis of an 800 px chart.
    #[test]
    fn long_category_labels_shrink_to_fit() {
        let short: Vec<String> = vec!["1 KB".into(), "2 KB".into()];
        assert_eq!(x_label_size(700, &short), 14);
        let long: Vec<String> = [
            "leveled",
            "leveled-base64",
            "leveled-base512",
            "leveled-mult4",
            "leveled-base64-mult4",
            "leveled-mult20",
            "universal",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let size = x_label_size(700, &long);
        assert!(size < 14, "{size}");
        // The longest label fits its slot at that size.
        assert!(20.0 * 0.6 * f64::from(size) <= 700.0 / 7.0);
        assert_eq!(x_label_size(700, &[]), 14);
    }

    #[test]
    fn renders_valid_png_and_svg() {
        let d = tempfile::tempdir().unwrap();
        let c = ChartData {
            log_y: true,
            markers: vec![(0.5, "cross".into())],
            ..line_chart(
                &["1 KB", "2 KB"],
                "inline",
                vec![Some((1.0, 0.5, 1.5)), Some((2.0, 2.0, 2.0))],
            )
        };
        let mut bars = c.clone();
        bars.bars = true;
        render(&bars, &d.path().join("bars")).unwrap();
        assert!(std::fs::read_to_string(d.path().join("bars.svg"))
            .unwrap()
            .contains("<rect"));
        render(&c, &d.path().join("c")).unwrap();
        assert_png(&d.path().join("c.png"));
        let svg = std::fs::read_to_string(d.path().join("c.svg")).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("inline"));
        render_dashboard(
            &[c.clone(), c],
            "Recommendation",
            &["use 2 KB".into()],
            &d.path().join("dash"),
        )
        .unwrap();
        assert_png(&d.path().join("dash.png"));
        assert!(std::fs::read_to_string(d.path().join("dash.svg"))
            .unwrap()
            .contains("use 2 KB"));
    }

    /// A trade-off chart puts each point at its measured x and labels it
    /// with its axis value.
    #[test]
    fn renders_a_trade_off_chart() {
        let d = tempfile::tempdir().unwrap();
        let mut c = ChartData {
            x_desc: "l0_files_mean".into(),
            y_desc: "wamp".into(),
            xy: true,
            ..line_chart(
                &["t=2", "t=4", "t=8"],
                "strata leveled",
                vec![Some((5.0, 4.8, 5.1)), None, Some((3.0, 3.0, 3.0))],
            )
        };
        c.lines[0].xs = vec![Some((1.5, 1.4, 1.7)), None, Some((6.0, 6.0, 6.0))];
        render(&c, &d.path().join("xy")).unwrap();
        let svg = std::fs::read_to_string(d.path().join("xy.svg")).unwrap();
        assert!(svg.contains("strata leveled"));
        // The labels of the points present, not of the missing one.
        assert!(svg.contains("t=2") && svg.contains("t=8"), "{svg}");
        assert!(!svg.contains("t=4"), "{svg}");
        assert_png(&d.path().join("xy.png"));
    }

    /// A faceted chart is one image: its title, one legend, and a panel
    /// per facet captioned with the facet's values.
    #[test]
    fn renders_panels_in_one_image_with_one_legend() {
        let d = tempfile::tempdir().unwrap();
        let panel = |title: &str, v: f64| ChartData {
            title: title.into(),
            x_desc: "fill".into(),
            y_desc: "ops_sec".into(),
            x_labels: vec!["fillseq".into(), "fillrandom".into()],
            lines: vec![
                Line {
                    name: "strata none".into(),
                    points: vec![Some((v, v, v)), Some((2.0 * v, v, 3.0 * v))],
                    xs: Vec::new(),
                },
                Line {
                    name: "strata bloom64".into(),
                    points: vec![Some((v, v, v)), None],
                    xs: Vec::new(),
                },
            ],
            log_y: false,
            markers: Vec::new(),
            bars: true,
            xy: false,
        };
        let panels: Vec<ChartData> = ["value_size=1 KB", "value_size=4 KB", "value_size=16 KB"]
            .iter()
            .enumerate()
            .map(|(i, t)| panel(t, (i + 1) as f64 * 10.0))
            .collect();
        render_panels("Fill throughput", &panels, &d.path().join("f")).unwrap();
        let svg = std::fs::read_to_string(d.path().join("f.svg")).unwrap();
        let doc = roxmltree::Document::parse(&svg).expect("valid SVG");
        let texts: Vec<&str> = doc
            .descendants()
            .filter(|n| n.is_text())
            .filter_map(|n| n.text())
            .map(str::trim)
            .collect();
        let count = |t: &str| texts.iter().filter(|x| **x == t).count();
        assert_eq!(count("Fill throughput"), 1, "{texts:?}");
        for t in ["value_size=1 KB", "value_size=4 KB", "value_size=16 KB"] {
            assert_eq!(count(t), 1, "{t} in {texts:?}");
        }
        assert_eq!(count("strata none"), 1, "{texts:?}");
        assert_eq!(count("strata bloom64"), 1, "{texts:?}");
        // Three panels side by side.
        assert_eq!(grid_size(&panels).0, 1800);
        assert_png(&d.path().join("f.png"));
        // One panel is an ordinary chart.
        render_panels("Fill throughput", &panels[..1], &d.path().join("one")).unwrap();
        let svg = std::fs::read_to_string(d.path().join("one.svg")).unwrap();
        assert!(svg.contains("value_size=1 KB") && !svg.contains("Fill throughput"));
    }

    #[test]
    fn grid_and_legend_layout() {
        assert_eq!(
            (1..=7).map(grid_columns).collect::<Vec<_>>(),
            vec![1, 2, 3, 2, 3, 3, 3]
        );
        let names: Vec<String> = vec!["a".repeat(20), "b".repeat(20), "c".repeat(20)];
        // 208 px per entry: two fit in 500 px, the third wraps.
        assert_eq!(legend_layout(&names, 500), vec![(0, 20), (0, 228), (1, 20)]);
    }

    #[test]
    fn wraps_words() {
        assert_eq!(wrap("aa bb cc", 5), vec!["aa bb", "cc"]);
    }
}
