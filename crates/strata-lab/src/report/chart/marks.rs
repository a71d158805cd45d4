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
    for path in hatch_paths(s.hatch, (x0, y0), (x1, y1)) {
        area.draw(&PathElement::new(
            path,
            hatch_color(s.color).stroke_width(1),
        ))
        .map_err(err)?;
    }
    Ok(())
}

/// The hatching of `hatch` over the rectangle from `(x0, y0)` to `(x1, y1)`
/// as one polyline per direction: its lines ([`hatch_lines`]) joined end to
/// end, every other one drawn backwards, the joins running along the
/// rectangle's edges (turning at a corner where two ends lie on different
/// edges). A chart's SVG then holds one element per patch and direction
/// rather than one per line; the joins outline the patch in the
/// hatching's colour.
pub(crate) fn hatch_paths(
    hatch: Hatch,
    (x0, y0): (i32, i32),
    (x1, y1): (i32, i32),
) -> Vec<Vec<(i32, i32)>> {
    let all = hatch_lines(hatch, (x0, y0), (x1, y1));
    // Cross hatching: the lines rising to the right, then those falling.
    let rising = |l: &Vec<(i32, i32)>| (l[1].1 - l[0].1) * (l[1].0 - l[0].0) < 0;
    let directions: Vec<Vec<Vec<(i32, i32)>>> = if hatch == Hatch::Cross {
        let (up, down) = all.into_iter().partition(rising);
        vec![up, down]
    } else {
        vec![all]
    };
    directions
        .into_iter()
        .filter(|lines| !lines.is_empty())
        .map(|lines| {
            let mut path: Vec<(i32, i32)> = Vec::new();
            for (k, line) in lines.into_iter().enumerate() {
                let (p, q) = if k % 2 == 0 {
                    (line[0], line[1])
                } else {
                    (line[1], line[0])
                };
                if let Some(&last) = path.last() {
                    path.extend(edge_corner(last, p, (x0, y0), (x1, y1)));
                }
                path.push(p);
                path.push(q);
            }
            path
        })
        .collect()
}

/// The corner a path along the rectangle's edges turns at between `p` and
/// `q`, both on its edges: none when they lie on the same edge.
fn edge_corner(
    p: (i32, i32),
    q: (i32, i32),
    (x0, y0): (i32, i32),
    (x1, y1): (i32, i32),
) -> Option<(i32, i32)> {
    let upright = |r: (i32, i32)| r.0 == x0 || r.0 == x1;
    let level = |r: (i32, i32)| r.1 == y0 || r.1 == y1;
    if (p.0 == q.0 && upright(p)) || (p.1 == q.1 && level(p)) {
        None
    } else if upright(p) && level(q) {
        Some((p.0, q.1))
    } else if level(p) && upright(q) {
        Some((q.0, p.1))
    } else {
        None
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `p` lies on the rectangle's edges.
    fn on_edge(p: (i32, i32), a: (i32, i32), b: (i32, i32)) -> bool {
        let inside = (a.0..=b.0).contains(&p.0) && (a.1..=b.1).contains(&p.1);
        inside && (p.0 == a.0 || p.0 == b.0 || p.1 == a.1 || p.1 == b.1)
    }

    #[test]
    fn hatching_is_one_path_per_direction_drawing_every_line() {
        let (a, b) = ((10, 20), (47, 90));
        for (hatch, paths) in [
            (Hatch::Solid, 0),
            (Hatch::Diagonal, 1),
            (Hatch::Cross, 2),
            (Hatch::Horizontal, 1),
        ] {
            let got = hatch_paths(hatch, a, b);
            assert_eq!(got.len(), paths, "{hatch:?}");
            let lines = hatch_lines(hatch, a, b);
            let drawn: Vec<((i32, i32), (i32, i32))> = got
                .iter()
                .flat_map(|p| p.windows(2).map(|w| (w[0], w[1])))
                .collect();
            // Every line of the hatching is a step of a path, one way or
            // the other.
            for l in &lines {
                assert!(
                    drawn.contains(&(l[0], l[1])) || drawn.contains(&(l[1], l[0])),
                    "{hatch:?}: {l:?} not drawn"
                );
            }
            // Every other step runs along an edge: both ends on the same
            // edge, every point on the rectangle's edges.
            for (p, q) in &drawn {
                assert!(
                    on_edge(*p, a, b) && on_edge(*q, a, b),
                    "{hatch:?}: {p:?}-{q:?}"
                );
                let line = lines
                    .iter()
                    .any(|l| (l[0], l[1]) == (*p, *q) || (l[1], l[0]) == (*p, *q));
                if !line {
                    assert!(
                        (p.0 == q.0 && (p.0 == a.0 || p.0 == b.0))
                            || (p.1 == q.1 && (p.1 == a.1 || p.1 == b.1)),
                        "{hatch:?}: join {p:?}-{q:?} leaves the edges"
                    );
                }
            }
        }
        // Too small to hatch.
        assert!(hatch_paths(Hatch::Cross, (0, 0), (2, 40)).is_empty());
    }
}
