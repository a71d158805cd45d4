//! What a chart draws: its lines with min-max ranges, axis captions and
//! labels, markers, and whether it is lines, bars or a trade-off chart.

/// (mean, min, max) of one coordinate of a point.
pub(crate) type Stat = (f64, f64, f64);

/// One line: a name and per-x (mean, min, max).
#[derive(Clone, Debug)]
pub(crate) struct Line {
    /// Legend name.
    pub name: String,
    /// Per x index: (mean, min, max), `None` where no data.
    pub points: Vec<Option<(f64, f64, f64)>>,
    /// Trade-off charts ([`ChartData::xy`]): per x index, the point's
    /// horizontal position as (mean, min, max); empty otherwise.
    pub xs: Vec<Option<(f64, f64, f64)>>,
}

/// What to draw.
#[derive(Clone, Debug)]
pub(crate) struct ChartData {
    /// Title.
    pub title: String,
    /// X axis caption.
    pub x_desc: String,
    /// Y axis caption.
    pub y_desc: String,
    /// X labels.
    pub x_labels: Vec<String>,
    /// Lines.
    pub lines: Vec<Line>,
    /// Logarithmic y.
    pub log_y: bool,
    /// Vertical markers: (x position as fractional index, label).
    pub markers: Vec<(f64, String)>,
    /// Grouped bars instead of lines (categorical x).
    pub bars: bool,
    /// A trade-off chart: x is a measured value (each line's `xs`), not a
    /// category; `x_labels` label the points instead of the axis.
    pub xy: bool,
}
