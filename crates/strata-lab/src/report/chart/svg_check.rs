//! Checks every chart kind's SVG against its legend: rendered from fixture
//! data, parsed with roxmltree, each legend entry's colour is on a drawn
//! element of the plot and each colour drawn in the plot is in the legend;
//! the legend lies outside the plot; a missing value shows its label.

use std::collections::BTreeSet;
use std::ops::Range;

use super::dashboard::{dashboard_size, CELL};
use super::data::{ChartData, Line, Stat};
use super::draw::{legend_under, render, PLOT};
use super::grid::{grid_size, render_panels, PANEL, TITLE_H};
use super::render_dashboard;

/// The guards' reason for a latency at or below the histograms' first
/// bucket, as the report's rows carry it.
const WITHHELD: &str = "n/a: below 1 us, the histogram's resolution";

/// One drawn element of an SVG: its vertical extent, its colour unless it
/// is black, white or grey (axes, grid, text), and its text.
#[derive(Debug)]
struct Mark {
    y: (f64, f64),
    color: Option<String>,
    text: Option<String>,
}

/// The drawn elements of `svg`, in order.
fn marks(svg: &str) -> Vec<Mark> {
    let doc = roxmltree::Document::parse(svg).expect("valid SVG");
    let num = |n: &roxmltree::Node, a: &str| n.attribute(a).and_then(|v| v.parse::<f64>().ok());
    doc.descendants()
        .filter(|n| n.is_element() && n.tag_name().name() != "svg")
        .map(|n| {
            let ys: Vec<f64> = match n.tag_name().name() {
                "rect" => {
                    let y = num(&n, "y").unwrap_or(0.0);
                    vec![y, y + num(&n, "height").unwrap_or(0.0)]
                }
                "line" => vec![num(&n, "y1").unwrap_or(0.0), num(&n, "y2").unwrap_or(0.0)],
                "circle" => {
                    let (y, r) = (num(&n, "cy").unwrap_or(0.0), num(&n, "r").unwrap_or(0.0));
                    vec![y - r, y + r]
                }
                "polyline" | "polygon" => n
                    .attribute("points")
                    .unwrap_or("")
                    .split_whitespace()
                    .filter_map(|p| p.split(',').nth(1)?.parse().ok())
                    .collect(),
                _ => vec![num(&n, "y").unwrap_or(0.0)],
            };
            let lo = ys.iter().copied().fold(f64::MAX, f64::min);
            let hi = ys.iter().copied().fold(f64::MIN, f64::max);
            let color = ["fill", "stroke"]
                .iter()
                .filter_map(|a| n.attribute(*a))
                .find(|c| c.starts_with('#') && !neutral(c))
                .map(str::to_string);
            Mark {
                y: (lo, hi),
                color,
                text: n.text().map(|t| t.trim().to_string()),
            }
        })
        .collect()
}

/// Whether colour `#RRGGBB` is black, white or a grey.
fn neutral(c: &str) -> bool {
    c.len() == 7 && c[1..3] == c[3..5] && c[3..5] == c[5..7]
}

/// The colours of the marks wholly inside one of `bands` (pixel rows).
fn colors_in(marks: &[Mark], bands: &[Range<f64>]) -> BTreeSet<String> {
    marks
        .iter()
        .filter(|m| inside(m, bands))
        .filter_map(|m| m.color.clone())
        .collect()
}

fn inside(m: &Mark, bands: &[Range<f64>]) -> bool {
    bands
        .iter()
        .any(|b| m.y.0 >= b.start - 0.5 && m.y.1 <= b.end + 0.5)
}

/// Asserts that the colours of the legend (the marks in `legend` bands)
/// and of the plot (in `plot` bands) are the same `n` colours, that every
/// series name is written in the legend, and that `labels` are written.
fn assert_legend_matches(
    svg: &str,
    names: &[String],
    legend: &[Range<f64>],
    plot: &[Range<f64>],
    labels: &[&str],
) {
    let m = marks(svg);
    let (in_legend, in_plot) = (colors_in(&m, legend), colors_in(&m, plot));
    assert_eq!(in_legend, in_plot, "legend colours vs drawn colours");
    let distinct: BTreeSet<&String> = names.iter().collect();
    assert_eq!(
        in_legend.len(),
        distinct.len(),
        "{in_legend:?} for {names:?}"
    );
    for name in names {
        assert!(
            m.iter()
                .any(|k| k.text.as_deref() == Some(name) && inside(k, legend)),
            "{name} is not in the legend"
        );
    }
    // Nothing coloured lies across the legend's edge into the plot.
    for k in m.iter().filter(|k| k.color.is_some()) {
        assert!(
            inside(k, legend) || inside(k, plot),
            "{k:?} crosses an edge"
        );
    }
    let texts: Vec<&str> = m.iter().filter_map(|k| k.text.as_deref()).collect();
    for l in labels {
        assert!(texts.iter().any(|t| t.contains(l)), "{l} in {texts:?}");
    }
}

/// A line named `name` through `points`, withholding the value at
/// `withheld` (its stub says [`WITHHELD`]).
fn line(name: &str, points: &[f64], withheld: Option<usize>) -> Line {
    let stat = |v: f64| -> Stat { (v, v * 0.9, v * 1.1) };
    let mut l = Line {
        name: name.into(),
        points: points.iter().map(|v| Some(stat(*v))).collect(),
        ..Line::default()
    };
    if let Some(i) = withheld {
        l.points[i] = None;
        l.gaps = vec![None; points.len()];
        l.gaps[i] = Some(WITHHELD.into());
    }
    l
}

/// Two engines with two variants each, as the bloom study draws them:
/// Strata's bloom64 withheld at the first label, RocksDB's at the second.
fn bloom(title: &str, bars: bool) -> ChartData {
    ChartData {
        title: title.into(),
        x_desc: "fill".into(),
        y_desc: "p99".into(),
        x_labels: vec!["fillseq".into(), "fillrandom".into()],
        lines: vec![
            line("strata none", &[6.0, 6.5], None),
            line("strata bloom64", &[0.8, 0.9], Some(0)),
            line("rocksdb none", &[6.2, 7.0], None),
            line("rocksdb bloom64", &[2.0, 1.9], Some(1)),
        ],
        log_y: false,
        markers: Vec::new(),
        bars,
        xy: false,
    }
}

fn names(c: &ChartData) -> Vec<String> {
    c.lines.iter().map(|l| l.name.clone()).collect()
}

fn render_svg(c: &ChartData) -> String {
    let d = tempfile::tempdir().unwrap();
    render(c, &d.path().join("c")).unwrap();
    std::fs::read_to_string(d.path().join("c.svg")).unwrap()
}

/// The legend under a single chart, and the plot above it.
fn single_bands(c: &ChartData) -> (Vec<Range<f64>>, Vec<Range<f64>>) {
    let bottom = f64::from(PLOT.1 + legend_under(c, PLOT));
    (
        vec![f64::from(PLOT.1)..bottom],
        vec![0.0..f64::from(PLOT.1)],
    )
}

#[test]
fn bars_legend_matches_the_bars_and_stubs_say_why() {
    let c = bloom("Gets of missing keys", true);
    let (legend, plot) = single_bands(&c);
    assert_legend_matches(&render_svg(&c), &names(&c), &legend, &plot, &[WITHHELD]);
}

#[test]
fn lines_legend_matches_the_lines_and_notes_say_why() {
    let c = bloom("Gets of missing keys", false);
    let (legend, plot) = single_bands(&c);
    let svg = render_svg(&c);
    assert_legend_matches(&svg, &names(&c), &legend, &plot, &[WITHHELD]);
    // The reason of a line's gap is in the notes, under the legend.
    let m = marks(&svg);
    assert!(m.iter().any(|k| k
        .text
        .as_deref()
        .is_some_and(|t| t.starts_with(WITHHELD) && t.contains("strata bloom64"))
        && inside(k, &legend)));
}

#[test]
fn trade_off_legend_matches_and_notes_name_missing_points() {
    let mut c = bloom("Trade-off", false);
    c.xy = true;
    for l in &mut c.lines {
        l.xs = l
            .points
            .iter()
            .map(|p| p.map(|(m, _, _)| (m * 2.0, m, m)))
            .collect();
    }
    let (legend, plot) = single_bands(&c);
    assert_legend_matches(
        &render_svg(&c),
        &names(&c),
        &legend,
        &plot,
        &[&format!("{WITHHELD} (strata bloom64 at fillseq")],
    );
}

/// The facet grid that named RocksDB's bars after Strata: eight series
/// (two engines, two WAL modes, two metrics) in panels too narrow for a
/// stub's label, which the notes then give.
#[test]
fn grid_legend_matches_every_panel() {
    let panel = |t: &str, withheld: Option<usize>| {
        let mut lines = Vec::new();
        for e in ["strata", "rocksdb"] {
            for w in ["perf", "stable"] {
                for m in ["waf", "waf_no_wal"] {
                    let w0 = (e == "rocksdb" && w == "stable" && m == "waf")
                        .then_some(withheld)
                        .flatten();
                    lines.push(line(&format!("{e} {w} {m}"), &[1.0; 7], w0));
                }
            }
        }
        ChartData {
            title: t.into(),
            x_desc: "compaction".into(),
            y_desc: "waf".into(),
            x_labels: (0..7).map(|i| format!("variant{i}")).collect(),
            lines,
            log_y: false,
            markers: Vec::new(),
            bars: true,
            xy: false,
        }
    };
    let panels = vec![
        panel("1 KB", Some(3)),
        panel("4 KB", None),
        panel("16 KB", None),
    ];
    let d = tempfile::tempdir().unwrap();
    render_panels("WAF", &panels, &d.path().join("g")).unwrap();
    let svg = std::fs::read_to_string(d.path().join("g.svg")).unwrap();
    let (_, h) = grid_size(&panels);
    let plot_top = h - PANEL.1;
    assert_legend_matches(
        &svg,
        &names(&panels[0]),
        &[f64::from(TITLE_H)..f64::from(plot_top)],
        &[f64::from(plot_top)..f64::from(h)],
        &[&format!("{WITHHELD} (rocksdb stable waf)")],
    );
}

#[test]
fn dashboard_legends_match_their_charts() {
    let charts = vec![bloom("bars", true), bloom("lines", false)];
    let d = tempfile::tempdir().unwrap();
    render_dashboard(
        &charts,
        "Recommendation",
        &["use bloom64".into()],
        &d.path().join("d"),
    )
    .unwrap();
    let svg = std::fs::read_to_string(d.path().join("d.svg")).unwrap();
    // Both charts are in the first row of cells.
    let cell_h = f64::from(dashboard_size(&charts).1 / 3);
    let plot_h = f64::from(CELL.1);
    assert_legend_matches(
        &svg,
        &names(&charts[0]),
        &[plot_h..cell_h],
        &[0.0..plot_h],
        &[WITHHELD],
    );
}
