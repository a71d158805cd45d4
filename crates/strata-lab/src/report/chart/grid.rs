//! A faceted chart: a grid of panels under one title and one legend.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::category::{draw_in, ranges};
use super::data::ChartData;
use super::draw::render;
use super::style::{present, register_font, COLORS};

/// Size in pixels of one panel of a faceted chart.
pub(crate) const PANEL: (u32, u32) = (600, 400);

/// Height of a faceted chart's title row, and of one row of its legend.
pub(crate) const TITLE_H: u32 = 40;

pub(crate) const LEGEND_ROW_H: u32 = 24;

/// Columns of the grid of `n` panels: all in one row up to three, two
/// columns for four, three beyond.
pub(crate) fn grid_columns(n: usize) -> usize {
    match n {
        0..=3 => n.max(1),
        4 => 2,
        _ => 3,
    }
}

/// Legend entries laid out in rows across `width` pixels: per entry its
/// (row, x offset). Each entry is an 18 px swatch, a gap and its name at
/// about 8 px per character.
pub(crate) fn legend_layout(names: &[String], width: u32) -> Vec<(u32, u32)> {
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
pub(crate) fn grid_size(panels: &[ChartData]) -> (u32, u32) {
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
pub(crate) fn draw_grid<DB: DrawingBackend>(
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
