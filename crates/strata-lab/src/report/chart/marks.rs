//! Drawing one series' marks in pixels: a hatched patch (a bar or a legend
//! swatch), a point marker, and a stub where a value is missing. Bars and
//! legend swatches go through the same function, so that they look alike.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::palette::{Hatch, Marker, SeriesStyle};

/// Opacity of a bar's fill.
pub(crate) const BAR_OPACITY: f64 = 0.8;

/// Spacing in pixels of the hatching lines.
const HATCH_STEP: i32 = 6;

/// Colour of the hatching lines over fill `c`: half-transparent black
/// over a light fill, white over a dark one, so that they show on every
/// shade and in greyscale.
fn hatch_color(c: RGBColor) -> RGBAColor {
    let luma = 0.299 * f64::from(c.0) + 0.587 * f64::from(c.1) + 0.114 * f64::from(c.2);
    if luma < 100.0 {
        WHITE.mix(0.6)
    } else {
        BLACK.mix(0.5)
    }
}

fn err<E: std::fmt::Debug>(e: E) -> anyhow::Error {
    anyhow::anyhow!("{e:?}")
}

/// Fills the rectangle between pixel corners `a` and `b` of `area` in the
/// style's colour at `opacity`, with its hatching over it.
pub(crate) fn draw_patch<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    a: (i32, i32),
    b: (i32, i32),
    s: &SeriesStyle,
    opacity: f64,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let (x0, x1) = (a.0.min(b.0), a.0.max(b.0));
    let (y0, y1) = (a.1.min(b.1), a.1.max(b.1));
    area.draw(&Rectangle::new(
        [(x0, y0), (x1, y1)],
        s.color.mix(opacity).filled(),
    ))
    .map_err(err)?;
    for seg in hatch_lines(s.hatch, (x0, y0), (x1, y1)) {
        area.draw(&PathElement::new(seg, hatch_color(s.color).stroke_width(1)))
            .map_err(err)?;
    }
    Ok(())
}

/// The hatching segments of `hatch` clipped to the rectangle from `(x0,
/// y0)` to `(x1, y1)` (pixels, y down); none when it is too small.
pub(crate) fn hatch_lines(
    hatch: Hatch,
    (x0, y0): (i32, i32),
    (x1, y1): (i32, i32),
) -> Vec<Vec<(i32, i32)>> {
    let (w, h) = (x1 - x0, y1 - y0);
    if w < 3 || h < 3 {
        return Vec::new();
    }
    // Rising to the right: u + v = t; falling: u - v = t (u, v from the
    // upper left corner).
    let rising = || {
        (1..)
            .map(|k| k * HATCH_STEP)
            .take_while(move |t| *t < w + h)
            .map(move |t| {
                let (ua, ub) = ((t - h).max(0), t.min(w));
                vec![(x0 + ua, y0 + t - ua), (x0 + ub, y0 + t - ub)]
            })
    };
    let falling = || {
        (1..)
            .map(|k| k * HATCH_STEP - h)
            .take_while(move |t| *t < w)
            .map(move |t| {
                let (ua, ub) = (t.max(0), (t + h).min(w));
                vec![(x0 + ua, y0 + ua - t), (x0 + ub, y0 + ub - t)]
            })
    };
    match hatch {
        Hatch::Solid => Vec::new(),
        Hatch::Diagonal => rising().collect(),
        Hatch::Cross => rising().chain(falling()).collect(),
        Hatch::Horizontal => (1..)
            .map(|k| y0 + k * HATCH_STEP)
            .take_while(|y| *y < y1)
            .map(|y| vec![(x0, y), (x1, y)])
            .collect(),
    }
}

/// Draws the style's marker centred at pixel `c` of `area`, `r` pixels
/// from the centre: filled, or only its outline (a missing value's stub).
pub(crate) fn draw_marker<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    c: (i32, i32),
    r: i32,
    s: &SeriesStyle,
    filled: bool,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    let style = if filled {
        s.color.filled()
    } else {
        s.color.stroke_width(2)
    };
    let (x, y) = c;
    let outline = |pts: Vec<(i32, i32)>| -> anyhow::Result<()> {
        if filled {
            area.draw(&Polygon::new(pts, style)).map_err(err)
        } else {
            let mut closed = pts.clone();
            closed.push(pts[0]);
            area.draw(&PathElement::new(closed, style)).map_err(err)
        }
    };
    match s.marker {
        Marker::Circle => area.draw(&Circle::new(c, r, style)).map_err(err),
        Marker::Square => outline(vec![
            (x - r, y - r),
            (x + r, y - r),
            (x + r, y + r),
            (x - r, y + r),
        ]),
        Marker::Triangle => outline(vec![(x, y - r - 1), (x + r + 1, y + r), (x - r - 1, y + r)]),
        Marker::Diamond => outline(vec![
            (x, y - r - 1),
            (x + r + 1, y),
            (x, y + r + 1),
            (x - r - 1, y),
        ]),
    }
}

/// Draws a missing bar's stub: an empty box `h` pixels high on the base
/// line at `base_y`, from `x0` to `x1`, outlined in the series' colour.
pub(crate) fn draw_stub_box<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    (x0, x1): (i32, i32),
    base_y: i32,
    h: i32,
    s: &SeriesStyle,
) -> anyhow::Result<()>
where
    DB::ErrorType: 'static,
{
    area.draw(&Rectangle::new(
        [(x0, base_y - h), (x1.max(x0 + 1), base_y)],
        s.color.stroke_width(2),
    ))
    .map_err(err)
}
