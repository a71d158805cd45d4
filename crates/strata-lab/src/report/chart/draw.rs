//! One chart drawn into an area (a trade-off chart or a chart along
//! labels) with its legend under the plot, and written as SVG and PNG.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::category::{draw_in, ranges};
use super::data::ChartData;
use super::legend::{draw_legend, legend_height};
use super::stubs::notes;
use super::style::render_svg_png;

/// Size in pixels of a chart's plot (title, axes and data).
pub(crate) const PLOT: (u32, u32) = (800, 500);

/// Height in pixels of the legend of `c` under a plot of `plot` pixels.
pub(crate) fn legend_under(c: &ChartData, plot: (u32, u32)) -> u32 {
    legend_height(c, &notes(std::slice::from_ref(c), plot), plot.0)
}

/// Draws `c`'s plot in the top `plot_h` pixels of `root` and its legend
/// and notes under it.
pub(crate) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    c: &ChartData,
    plot_h: u32,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(|e| anyhow::anyhow!("{e:?}"))?;
    let (plot, below) = root.split_vertically(plot_h);
    draw_in(&plot, c, ranges(c))?;
    let notes = notes(std::slice::from_ref(c), plot.dim_in_pixel());
    draw_legend(&below, c, &notes)
}

/// Writes `stem.svg` and `stem.png`: the plot, and the legend under it.
pub(crate) fn render(c: &ChartData, stem: &Path) -> anyhow::Result<()> {
    let size = (PLOT.0, PLOT.1 + legend_under(c, PLOT));
    render_svg_png!(stem, size, |a| draw(&a, c, PLOT.1))
}
