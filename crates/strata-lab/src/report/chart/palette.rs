//! The one place that says how a series looks: its colour, the hatching
//! of its bars and the marker of its line points. Bars, lines, stubs and
//! the legend all take their look from [`series_styles`], so that a legend
//! entry always looks like the series it names. Each engine keeps its
//! colour, hatching and marker across charts; its other series (variants)
//! are shades of its colour. Hatching and markers tell the engines apart
//! in greyscale too.

use plotters::prelude::RGBColor;

use super::data::Line;

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

/// The pattern drawn over a bar's fill (and its legend swatch).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Hatch {
    /// Plain fill.
    Solid,
    /// Lines rising to the right.
    Diagonal,
    /// Lines rising both ways.
    Cross,
    /// Horizontal lines.
    Horizontal,
}

/// The shape drawn at a line's points (and in its legend entry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Marker {
    /// A disc.
    Circle,
    /// A square.
    Square,
    /// A triangle pointing up.
    Triangle,
    /// A diamond.
    Diamond,
}

/// How one series is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SeriesStyle {
    /// Fill of its bars, stroke of its line, colour of its stubs.
    pub color: RGBColor,
    /// Pattern over its bars.
    pub hatch: Hatch,
    /// Shape at its line's points.
    pub marker: Marker,
}

/// Each engine's colour, hatching and marker, in every chart of every
/// report (line names start with the engine).
pub(crate) const ENGINE_STYLES: [(&str, SeriesStyle); 4] = [
    (
        "strata",
        SeriesStyle {
            color: COLORS[0],
            hatch: Hatch::Solid,
            marker: Marker::Circle,
        },
    ),
    (
        "rocksdb",
        SeriesStyle {
            color: COLORS[1],
            hatch: Hatch::Diagonal,
            marker: Marker::Square,
        },
    ),
    (
        "leveldb",
        SeriesStyle {
            color: COLORS[2],
            hatch: Hatch::Cross,
            marker: Marker::Triangle,
        },
    ),
    (
        "fjall",
        SeriesStyle {
            color: COLORS[3],
            hatch: Hatch::Horizontal,
            marker: Marker::Diamond,
        },
    ),
];

/// The engine a series name starts with, lower-cased.
fn engine(name: &str) -> String {
    name.split(' ').next().unwrap_or("").to_ascii_lowercase()
}

/// The style of each of `lines`, in order: its engine's style, its colour
/// in a lighter or darker shade for the engine's second, third, ... series
/// in the chart; a line without an engine takes the palette in order, a
/// plain fill and the markers in turn.
pub(crate) fn series_styles(lines: &[Line]) -> Vec<SeriesStyle> {
    (0..lines.len()).map(|i| series_style(lines, i)).collect()
}

fn series_style(lines: &[Line], i: usize) -> SeriesStyle {
    let e = engine(&lines[i].name);
    let Some(base) = ENGINE_STYLES.iter().find(|(n, _)| *n == e).map(|(_, s)| *s) else {
        const MARKERS: [Marker; 4] = [
            Marker::Circle,
            Marker::Square,
            Marker::Triangle,
            Marker::Diamond,
        ];
        return SeriesStyle {
            color: COLORS[i % COLORS.len()],
            hatch: Hatch::Solid,
            marker: MARKERS[i % MARKERS.len()],
        };
    };
    let k = lines[..i].iter().filter(|l| engine(&l.name) == e).count();
    SeriesStyle {
        color: shade(base.color, k),
        ..base
    }
}

/// Shade `k` of `c`: 0 is `c`; then lighter, darker, lighter still,
/// darker still, ...
fn shade(c: RGBColor, k: usize) -> RGBColor {
    if k == 0 {
        return c;
    }
    let step = (k.div_ceil(2) as f64 * 0.3).min(0.75);
    let toward = |c: u8| -> u8 {
        let c = f64::from(c);
        (if k % 2 == 1 {
            c + (255.0 - c) * step
        } else {
            c * (1.0 - step)
        })
        .round() as u8
    };
    RGBColor(toward(c.0), toward(c.1), toward(c.2))
}
