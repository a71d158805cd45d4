//! A faceted chart: a grid of panels under one title and one legend.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::category::{draw_in, ranges};
use super::data::ChartData;
use super::draw::render;
use super::legend::{draw_legend, legend_height};
use super::stubs::notes;
use super::style::render_svg_png;

/// Size in pixels of one panel of a faceted chart.
pub(crate) const PANEL: (u32, u32) = (600, 400);

/// Height of a faceted chart's title row.
pub(crate) const TITLE_H: u32 = 40;

/// Columns of the grid of `n` panels: all in one row up to three, two
/// columns for four, three beyond.
pub(crate) fn grid_columns(n: usize) -> usize {
    match n {
        0..=3 => n.max(1),
        4 => 2,
        _ => 3,
    }
}

/// Width in pixels of a grid of `panels`.
fn grid_width(panels: &[ChartData]) -> u32 {
    (grid_columns(panels.len()) as u32 * PANEL.0).max(800)
}

/// The legend's height in pixels of a grid of `panels`: the first panel's
/// series (every panel has the same) and the notes of all panels.
fn grid_legend_height(panels: &[ChartData]) -> u32 {
    panels.first().map_or(0, |first| {
        legend_height(first, &notes(panels, PANEL), grid_width(panels))
    })
}

/// Pixel size of a grid of `panels` under a title and legend.
pub(crate) fn grid_size(panels: &[ChartData]) -> (u32, u32) {
    let cols = grid_columns(panels.len()) as u32;
    let rows = panels.len().div_ceil(cols as usize).max(1) as u32;
    (
        grid_width(panels),
        TITLE_H + grid_legend_height(panels) + rows * PANEL.1,
    )
}

/// Small multiples: `title` on top, one shared legend above the panels
/// (the first panel's series; every panel has the same lines in the same
/// order, hence the same styles) with the notes on missing values of all
/// panels, then a grid of the panels, each captioned with its own title,
/// all on the same value ranges.
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
    root.draw(&Text::new(
        title.to_string(),
        (20, 10),
        ("sans-serif", 24).into_font(),
    ))
    .map_err(err)?;
    let (_, rest) = root.split_vertically(TITLE_H);
    let (legend, body) = rest.split_vertically(grid_legend_height(panels));
    draw_legend(&legend, first, &notes(panels, PANEL))?;
    let cols = grid_columns(panels.len());
    let rows = panels.len().div_ceil(cols);
    let mut all = first.clone();
    all.lines = panels.iter().flat_map(|p| p.lines.clone()).collect();
    let shared = ranges(&all);
    for (area, p) in body.split_evenly((rows, cols)).iter().zip(panels) {
        draw_in(area, p, shared)?;
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
    let size = grid_size(panels);
    render_svg_png!(stem, size, |a| draw_grid(&a, title, panels))
}
