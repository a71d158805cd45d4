//! One chart drawn into an area (a trade-off chart or a chart along
//! labels), and written as SVG and PNG.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::category::{draw_in, ranges};
use super::data::ChartData;
use super::style::{present, register_font};

pub(crate) fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    c: &ChartData,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(|e| anyhow::anyhow!("{e:?}"))?;
    draw_in(root, c, ranges(c), true)
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
