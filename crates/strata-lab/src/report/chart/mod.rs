//! Charts with min-max error bars, drawn with plotters to SVG and PNG
//! (embedded DejaVu Sans font; no system font libraries): lines along an
//! ordered axis, grouped bars along an unordered one, trade-off charts
//! (one metric against another), a grid of panels for a faceted chart,
//! and the dashboard. Every series takes its colour, hatching and marker
//! from one place ([`palette`]), bars and lines and legend alike; the
//! legend sits outside the plot; a missing value is a labelled stub.

mod category;
mod dashboard;
mod data;
mod draw;
mod grid;
mod legend;
mod marks;
mod palette;
mod stubs;
mod style;
#[cfg(test)]
mod svg_check;
mod xy;

pub(crate) use dashboard::render_dashboard;
pub(crate) use data::{ChartData, Line, NO_DATA};
pub(crate) use grid::render_panels;
pub(crate) use style::{draw_series_labels, present, register_font, render_svg_png, write_png};

#[cfg(test)]
mod tests {
    use std::path::Path;

    use plotters::prelude::RGBColor;

    use super::category::x_label_size;
    use super::dashboard::wrap;
    use super::draw::render;
    use super::grid::{grid_columns, grid_size};
    use super::legend::legend_layout;
    use super::palette::{series_styles, Hatch, COLORS, ENGINE_STYLES};
    use super::*;

    /// A chart of one line `name` through `points` (mean, min, max) over
    /// `labels`, drawn with lines on a linear y axis and no markers.
    fn line_chart(labels: &[&str], name: &str, points: Vec<Option<(f64, f64, f64)>>) -> ChartData {
        ChartData {
            title: "t".into(),
            x_desc: "x".into(),
            y_desc: "y".into(),
            x_labels: labels.iter().map(|l| l.to_string()).collect(),
            lines: vec![Line {
                name: name.into(),
                points,
                ..Line::default()
            }],
            log_y: false,
            markers: Vec::new(),
            bars: false,
            xy: false,
        }
    }

    /// Asserts that the file at `path` is a PNG.
    fn assert_png(path: &Path) {
        let png = std::fs::read(path).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{}", path.display());
    }

    fn named(names: &[&str]) -> Vec<Line> {
        names
            .iter()
            .map(|n| Line {
                name: (*n).into(),
                ..Line::default()
            })
            .collect()
    }

    #[test]
    fn each_engine_has_one_style_whatever_the_order() {
        let color = |lines: &[Line], i: usize| series_styles(lines)[i].color;
        let a = named(&["leveldb", "strata", "fjall", "rocksdb"]);
        let b = named(&["rocksdb", "fjall", "strata", "leveldb"]);
        for (lines, i, engine) in [(&a, 0, 2), (&a, 1, 0), (&b, 1, 3), (&b, 3, 2)] {
            assert_eq!(series_styles(lines)[i], ENGINE_STYLES[engine].1);
        }
        // An engine's other series: shades of its colour, all different,
        // with the engine's hatching and marker.
        let s = named(&[
            "strata wal=on",
            "rocksdb wal=on",
            "strata wal=off",
            "strata x",
        ]);
        let c: Vec<RGBColor> = (0..4).map(|i| color(&s, i)).collect();
        assert_eq!(c[0], ENGINE_STYLES[0].1.color);
        assert_eq!(c[1], ENGINE_STYLES[1].1.color);
        assert!(c[2] != c[0] && c[3] != c[0] && c[2] != c[3], "{c:?}");
        let styles = series_styles(&s);
        assert_eq!(styles[2].hatch, Hatch::Solid);
        assert_eq!(styles[1].hatch, Hatch::Diagonal);
        // Engines differ in hatching and marker, not only in colour.
        for (i, (_, a)) in ENGINE_STYLES.iter().enumerate() {
            for (_, b) in &ENGINE_STYLES[i + 1..] {
                assert!(a.hatch != b.hatch && a.marker != b.marker);
            }
        }
        // Lines without an engine keep the palette.
        assert_eq!(color(&named(&["a", "b"]), 1), COLORS[1]);
    }

    /// Regression: two crossover markers between the same points (both
    /// engines) drew their labels on top of each other.
    #[test]
    fn markers_at_the_same_place_get_separate_label_rows() {
        let d = tempfile::tempdir().unwrap();
        let c = ChartData {
            markers: vec![(0.5, "alpha marker".into()), (0.5, "beta marker".into())],
            ..line_chart(
                &["1 KB", "2 KB"],
                "inline",
                vec![Some((1.0, 1.0, 1.0)), Some((2.0, 2.0, 2.0))],
            )
        };
        render(&c, &d.path().join("m")).unwrap();
        let svg = std::fs::read_to_string(d.path().join("m.svg")).unwrap();
        let y_of = |label: &str| -> String {
            let at = svg.find(label).expect(label);
            let start = svg[..at].rfind("<text").unwrap();
            let tag = &svg[start..at];
            let y = tag.find(" y=\"").unwrap() + 4;
            tag[y..].split('"').next().unwrap().to_string()
        };
        assert_ne!(y_of("alpha marker"), y_of("beta marker"), "{svg}");
    }

    /// Regression: study 5's variant names overprinted each other on the
    /// x axis of an 800 px chart.
    #[test]
    fn long_category_labels_shrink_to_fit() {
        let short: Vec<String> = vec!["1 KB".into(), "2 KB".into()];
        assert_eq!(x_label_size(700, &short), 14);
        let long: Vec<String> = [
            "leveled",
            "leveled-base64",
            "leveled-base512",
            "leveled-mult4",
            "leveled-base64-mult4",
            "leveled-mult20",
            "universal",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let size = x_label_size(700, &long);
        assert!(size < 14, "{size}");
        // The longest label fits its slot at that size.
        assert!(20.0 * 0.6 * f64::from(size) <= 700.0 / 7.0);
        assert_eq!(x_label_size(700, &[]), 14);
    }

    #[test]
    fn renders_valid_png_and_svg() {
        let d = tempfile::tempdir().unwrap();
        let c = ChartData {
            log_y: true,
            markers: vec![(0.5, "cross".into())],
            ..line_chart(
                &["1 KB", "2 KB"],
                "inline",
                vec![Some((1.0, 0.5, 1.5)), Some((2.0, 2.0, 2.0))],
            )
        };
        let mut bars = c.clone();
        bars.bars = true;
        render(&bars, &d.path().join("bars")).unwrap();
        assert!(std::fs::read_to_string(d.path().join("bars.svg"))
            .unwrap()
            .contains("<rect"));
        render(&c, &d.path().join("c")).unwrap();
        assert_png(&d.path().join("c.png"));
        let svg = std::fs::read_to_string(d.path().join("c.svg")).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains("inline"));
        render_dashboard(
            &[c.clone(), c],
            "Recommendation",
            &["use 2 KB".into()],
            &d.path().join("dash"),
        )
        .unwrap();
        assert_png(&d.path().join("dash.png"));
        assert!(std::fs::read_to_string(d.path().join("dash.svg"))
            .unwrap()
            .contains("use 2 KB"));
    }

    /// A trade-off chart puts each point at its measured x and labels it
    /// with its axis value.
    #[test]
    fn renders_a_trade_off_chart() {
        let d = tempfile::tempdir().unwrap();
        let mut c = ChartData {
            x_desc: "l0_files_mean".into(),
            y_desc: "wamp".into(),
            xy: true,
            ..line_chart(
                &["t=2", "t=4", "t=8"],
                "strata leveled",
                vec![Some((5.0, 4.8, 5.1)), None, Some((3.0, 3.0, 3.0))],
            )
        };
        c.lines[0].xs = vec![Some((1.5, 1.4, 1.7)), None, Some((6.0, 6.0, 6.0))];
        render(&c, &d.path().join("xy")).unwrap();
        let svg = std::fs::read_to_string(d.path().join("xy.svg")).unwrap();
        assert!(svg.contains("strata leveled"));
        // The labels of the points present, not of the missing one, which
        // the notes under the legend name.
        let doc = roxmltree::Document::parse(&svg).expect("valid SVG");
        let texts: Vec<&str> = doc
            .descendants()
            .filter_map(|n| n.text())
            .map(str::trim)
            .collect();
        assert!(
            texts.contains(&"t=2") && texts.contains(&"t=8"),
            "{texts:?}"
        );
        assert!(!texts.contains(&"t=4"), "{texts:?}");
        assert!(
            texts.contains(&"no data (strata leveled at t=4)"),
            "{texts:?}"
        );
        assert_png(&d.path().join("xy.png"));
    }

    /// A faceted chart is one image: its title, one legend, and a panel
    /// per facet captioned with the facet's values.
    #[test]
    fn renders_panels_in_one_image_with_one_legend() {
        let d = tempfile::tempdir().unwrap();
        let panel = |title: &str, v: f64| ChartData {
            title: title.into(),
            x_desc: "fill".into(),
            y_desc: "ops_sec".into(),
            x_labels: vec!["fillseq".into(), "fillrandom".into()],
            lines: vec![
                Line {
                    name: "strata none".into(),
                    points: vec![Some((v, v, v)), Some((2.0 * v, v, 3.0 * v))],
                    ..Line::default()
                },
                Line {
                    name: "strata bloom64".into(),
                    points: vec![Some((v, v, v)), None],
                    ..Line::default()
                },
            ],
            log_y: false,
            markers: Vec::new(),
            bars: true,
            xy: false,
        };
        let panels: Vec<ChartData> = ["value_size=1 KB", "value_size=4 KB", "value_size=16 KB"]
            .iter()
            .enumerate()
            .map(|(i, t)| panel(t, (i + 1) as f64 * 10.0))
            .collect();
        render_panels("Fill throughput", &panels, &d.path().join("f")).unwrap();
        let svg = std::fs::read_to_string(d.path().join("f.svg")).unwrap();
        let doc = roxmltree::Document::parse(&svg).expect("valid SVG");
        let texts: Vec<&str> = doc
            .descendants()
            .filter(|n| n.is_text())
            .filter_map(|n| n.text())
            .map(str::trim)
            .collect();
        let count = |t: &str| texts.iter().filter(|x| **x == t).count();
        assert_eq!(count("Fill throughput"), 1, "{texts:?}");
        for t in ["value_size=1 KB", "value_size=4 KB", "value_size=16 KB"] {
            assert_eq!(count(t), 1, "{t} in {texts:?}");
        }
        assert_eq!(count("strata none"), 1, "{texts:?}");
        assert_eq!(count("strata bloom64"), 1, "{texts:?}");
        // Three panels side by side, each with a labelled stub.
        assert_eq!(grid_size(&panels).0, 1800);
        assert_eq!(count("no data"), 3, "{texts:?}");
        assert_png(&d.path().join("f.png"));
        // One panel is an ordinary chart.
        render_panels("Fill throughput", &panels[..1], &d.path().join("one")).unwrap();
        let svg = std::fs::read_to_string(d.path().join("one.svg")).unwrap();
        assert!(svg.contains("value_size=1 KB") && !svg.contains("Fill throughput"));
    }

    #[test]
    fn grid_and_legend_layout() {
        assert_eq!(
            (1..=7).map(grid_columns).collect::<Vec<_>>(),
            vec![1, 2, 3, 2, 3, 3, 3]
        );
        let names: Vec<String> = vec!["a".repeat(20), "b".repeat(20), "c".repeat(20)];
        // Columns of 196 px: two fit in 500 px, the third wraps.
        assert_eq!(legend_layout(&names, 500), vec![(0, 20), (0, 216), (1, 20)]);
        // The widest name sets every column.
        let names: Vec<String> = vec!["a".into(), "b".repeat(20), "c".into()];
        assert_eq!(
            legend_layout(&names, 800),
            vec![(0, 20), (0, 216), (0, 412)]
        );
    }

    #[test]
    fn wraps_words() {
        assert_eq!(wrap("aa bb cc", 5), vec!["aa bb", "cc"]);
    }
}
