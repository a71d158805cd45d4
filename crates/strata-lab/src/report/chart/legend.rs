//! The legend, drawn outside the plot so that it never covers data: one
//! entry per drawn series (its swatch drawn by the same function as its
//! bars or its line), in rows across the image, then the notes on missing
//! values.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::dashboard::wrap;
use super::data::ChartData;
use super::marks::{draw_marker, draw_patch, BAR_OPACITY};
use super::palette::series_styles;

/// Height in pixels of one row of the legend.
pub(crate) const LEGEND_ROW_H: u32 = 24;

/// Height in pixels of one line of the notes.
pub(crate) const NOTE_ROW_H: u32 = 18;

/// Width in pixels of a legend swatch.
const SWATCH_W: u32 = 24;

/// Legend entries laid out in aligned columns across `width` pixels, in
/// reading order: per entry its (row, x offset). Each column is as wide as
/// the widest entry: a swatch, a gap and its name at about 7.5 px per
/// character, then a gap.
pub(crate) fn legend_layout(names: &[String], width: u32) -> Vec<(u32, u32)> {
    let widest = names
        .iter()
        .map(|n| n.chars().count() as u32)
        .max()
        .unwrap_or(0);
    let column = SWATCH_W + 6 + (widest * 15).div_ceil(2) + 16;
    let per_row = (width.saturating_sub(20) / column).max(1);
    (0..names.len() as u32)
        .map(|i| (i / per_row, 20 + (i % per_row) * column))
        .collect()
}

/// The notes wrapped to lines across `width` pixels (about 7 px per
/// character).
fn note_lines(notes: &[String], width: u32) -> Vec<String> {
    let chars = (width.saturating_sub(40) / 7).max(20) as usize;
    notes.iter().flat_map(|n| wrap(n, chars)).collect()
}

/// Height in pixels of the legend of `c`'s series with `notes`, across
/// `width` pixels.
pub(crate) fn legend_height(c: &ChartData, notes: &[String], width: u32) -> u32 {
    let names: Vec<String> = c.lines.iter().map(|l| l.name.clone()).collect();
    let rows = legend_layout(&names, width)
        .last()
        .map_or(0, |(r, _)| r + 1);
    let notes = note_lines(notes, width).len() as u32;
    rows * LEGEND_ROW_H + notes * NOTE_ROW_H + 8
}

/// Draws the legend of `c`'s series (bars or lines as `c` draws them) and
/// `notes` at the top of `area`.
pub(crate) fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    c: &ChartData,
    notes: &[String],
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let err = |e: DrawingAreaErrorKind<DB::ErrorType>| anyhow::anyhow!("{e:?}");
    let (width, _) = area.dim_in_pixel();
    let styles = series_styles(&c.lines);
    let names: Vec<String> = c.lines.iter().map(|l| l.name.clone()).collect();
    let layout = legend_layout(&names, width);
    for ((name, s), (row, x)) in names.iter().zip(&styles).zip(&layout) {
        let x = *x as i32;
        let y = (row * LEGEND_ROW_H + LEGEND_ROW_H / 2) as i32;
        let w = SWATCH_W as i32;
        if c.bars {
            draw_patch(area, (x, y - 7), (x + w, y + 7), s, BAR_OPACITY)?;
        } else {
            area.draw(&PathElement::new(
                vec![(x, y), (x + w, y)],
                s.color.stroke_width(3),
            ))
            .map_err(err)?;
            draw_marker(area, (x + w / 2, y), 4, s, true)?;
        }
        area.draw(&Text::new(
            name.clone(),
            (x + w + 6, y - 8),
            ("sans-serif", 15).into_font(),
        ))
        .map_err(err)?;
    }
    let rows = layout.last().map_or(0, |(r, _)| r + 1);
    let grey = RGBColor(60, 60, 60);
    for (i, line) in note_lines(notes, width).iter().enumerate() {
        area.draw(&Text::new(
            line.clone(),
            (20, (rows * LEGEND_ROW_H + 4 + i as u32 * NOTE_ROW_H) as i32),
            ("sans-serif", 13).into_font().color(&grey),
        ))
        .map_err(err)?;
    }
    Ok(())
}
