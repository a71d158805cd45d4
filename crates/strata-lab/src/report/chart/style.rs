//! How charts look: the embedded font, the line colours (an engine keeps
//! its colour across charts), the legend, and presenting a drawing.

use std::sync::Once;

use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::data::Line;

pub(crate) static FONT: &[u8] = include_bytes!("../../../assets/DejaVuSans.ttf");

pub(crate) static REGISTER: Once = Once::new();

pub(crate) fn register_font() {
    REGISTER.call_once(|| {
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, FONT);
    });
}

/// Colours of lines that do not start with an engine's name.
pub(crate) const COLORS: [RGBColor; 8] = [
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
/// start with the engine): the palette's first colours, in order.
pub(crate) const ENGINE_COLORS: [(&str, RGBColor); 4] = [
    ("strata", COLORS[0]),
    ("rocksdb", COLORS[1]),
    ("leveldb", COLORS[2]),
    ("fjall", COLORS[3]),
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

/// The series legend, upper right, shared by both chart kinds.
pub(crate) fn draw_legend<'a, DB: DrawingBackend + 'a>(
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

pub(crate) fn present<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    root.present().map_err(|e| anyhow::anyhow!("{e:?}"))
}
