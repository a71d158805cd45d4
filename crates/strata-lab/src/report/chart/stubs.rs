//! What stands in for a missing value: a stub in the value's place,
//! labelled with why it is missing where the label fits there, and notes
//! under the legend for the reasons that do not fit on their stubs (and
//! for the missing points of a trade-off chart, which have no place).

use std::collections::BTreeMap;

use super::data::ChartData;

/// Font size (px) of a stub's label, written upward in the bar's slot.
pub(crate) const STUB_FONT: u32 = 12;

/// Height (px) of a missing bar's stub box.
pub(crate) const STUB_H: i32 = 8;

/// Estimated (bar slot width, plot height) in pixels of chart `c` drawn in
/// an area of `(w, h)` pixels: the area less the y-label area and margins
/// across, the caption, x-label area and margins down.
pub(crate) fn plot_geometry(c: &ChartData, (w, h): (u32, u32)) -> (f64, f64) {
    let plot_w = f64::from(w.saturating_sub(99));
    let plot_h = f64::from(h.saturating_sub(110));
    let slots = (c.x_labels.len().max(1) * c.lines.len().max(1)) as f64;
    (plot_w * 0.8 / slots, plot_h)
}

/// The text on a missing bar's stub with `label` in a slot `slot` pixels
/// wide under `plot_h` pixels of plot: the whole label when it fits
/// upward, else its tag (the words before the colon: "n/a", "skipped"),
/// else nothing; only bars have room for text.
pub(crate) fn stub_text(c: &ChartData, label: &str, (slot, plot_h): (f64, f64)) -> Option<String> {
    if !c.bars || c.xy || slot < f64::from(STUB_FONT) + 2.0 {
        return None;
    }
    let room = plot_h - f64::from(STUB_H) - 16.0;
    let fits = |t: &str| t.chars().count() as f64 * 0.6 * f64::from(STUB_FONT) <= room;
    let tag = label.split(':').next().unwrap_or(label);
    [label, tag]
        .into_iter()
        .find(|t| fits(t))
        .map(str::to_string)
}

/// The notes of `panels` drawn in areas of `area` pixels: each missing
/// value's label that its stub does not show whole, once, with the series
/// that lack a value for that reason (on a trade-off chart, with the
/// points' labels: its missing points have no place to stand).
pub(crate) fn notes(panels: &[ChartData], area: (u32, u32)) -> Vec<String> {
    let mut by_label: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for c in panels {
        let geo = plot_geometry(c, area);
        for l in &c.lines {
            for x in 0..c.x_labels.len().max(l.points.len()) {
                let Some(label) = l.gap(x) else { continue };
                if stub_text(c, &label, geo).as_deref() == Some(label.as_str()) {
                    continue;
                }
                let name = match c.x_labels.get(x) {
                    Some(at) if c.xy => format!("{} at {at}", l.name),
                    _ => l.name.clone(),
                };
                let names = by_label.entry(label).or_default();
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
    }
    by_label
        .into_iter()
        .map(|(label, names)| format!("{label} ({})", names.join(", ")))
        .collect()
}
