//! What a chart draws: its lines with min-max ranges, the reasons of the
//! values they lack, axis captions and labels, markers, and whether it is
//! lines, bars or a trade-off chart.

/// (mean, min, max) of one coordinate of a point.
pub(crate) type Stat = (f64, f64, f64);

/// What a missing value's stub says when nothing tells why it is missing.
pub(crate) const NO_DATA: &str = "no data";

/// One line: a name and per-x (mean, min, max).
#[derive(Clone, Debug, Default)]
pub(crate) struct Line {
    /// Legend name: the engine first, then its variant.
    pub name: String,
    /// Per x index: (mean, min, max), `None` where no data.
    pub points: Vec<Option<(f64, f64, f64)>>,
    /// Trade-off charts ([`ChartData::xy`]): per x index, the point's
    /// horizontal position as (mean, min, max); empty otherwise.
    pub xs: Vec<Option<(f64, f64, f64)>>,
    /// Per x index, why the value is missing where it is ("n/a: ...",
    /// "skipped: ..."); a missing value without a reason is [`NO_DATA`].
    pub gaps: Vec<Option<String>>,
}

impl Line {
    /// The label of the stub drawn in place of the value at x index `x`,
    /// `None` where the line has a value there.
    pub(crate) fn gap(&self, x: usize) -> Option<String> {
        let present = self.points.get(x).copied().flatten().is_some()
            && (self.xs.is_empty() || self.xs.get(x).copied().flatten().is_some());
        if present {
            return None;
        }
        Some(
            self.gaps
                .get(x)
                .cloned()
                .flatten()
                .unwrap_or_else(|| NO_DATA.to_string()),
        )
    }
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
