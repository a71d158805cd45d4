//! The dashboard: a study's charts side by side under its recommendation.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::data::ChartData;
use super::draw::{draw, legend_under};
use super::style::render_svg_png;

/// Size in pixels of a dashboard chart's plot.
pub(crate) const CELL: (u32, u32) = (700, 450);

/// Pixel size of a dashboard of `charts`: three by three cells, each a
/// plot with room under it for the tallest legend.
pub(crate) fn dashboard_size(charts: &[ChartData]) -> (u32, u32) {
    let legend = charts
        .iter()
        .take(8)
        .map(|c| legend_under(c, CELL))
        .max()
        .unwrap_or(0);
    (3 * CELL.0, 3 * (CELL.1 + legend))
}

/// Draws up to eight of `charts`, each with its legend under it, and a
/// text panel of `text` under `text_title` in a three by three grid.
pub(crate) fn draw_dashboard<DB: DrawingBackend>(
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
        draw(a, c, CELL.1)?;
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
pub(crate) fn wrap(s: &str, width: usize) -> Vec<String> {
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
    let size = dashboard_size(charts);
    render_svg_png!(stem, size, |a| draw_dashboard(&a, charts, text_title, text))
}
