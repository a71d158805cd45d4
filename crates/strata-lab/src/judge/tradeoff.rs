//! Trade-off charts (`[[chart]]` with `x_metric`): one metric against
//! another, with a curve per engine (and per value of the `series` axis)
//! through the values of the `x` axis; and the comparison of engines on
//! their frontiers (the settings no other setting of the same curve beats
//! in both metrics): at equal x, read off the other engine's frontier by
//! linear interpolation, and, where the curves share no range of x, by
//! which points beat which in both metrics.
//!
//! A knob such as `level0_file_num_compaction_trigger` moves an engine
//! along a trade (W-Amp against the L0 files a read must check). Two
//! engines compared at one knob setting sit at two points of their
//! trades; compared at equal x, they are compared on the trade itself.

use std::collections::BTreeMap;

use crate::data::aggregate::{engines, values};
use crate::data::results::ResultRow;
use crate::data::stats::{summarize, Summary};
use crate::spec::model::Plan;
use crate::spec::study::Chart;

/// One point of a curve: the `x` axis label it was measured at and the
/// two metrics' summaries over its repeats.
#[derive(Clone, Debug)]
pub(crate) struct CurvePoint {
    /// The `x` axis label (the knob's value).
    pub label: String,
    /// `x_metric` over the repeats.
    pub x: Summary,
    /// The chart's metric over the repeats.
    pub y: Summary,
}

/// One engine's curve for one value of the `series` axis (`series` is the
/// empty string when the chart has no series axis).
#[derive(Clone, Debug)]
pub(crate) struct Curve {
    /// Engine name.
    pub engine: String,
    /// Label of the `series` axis value, or empty.
    pub series: String,
    /// Points in the `x` axis's order; a label with no successful run
    /// (in either metric) is left out.
    pub points: Vec<CurvePoint>,
}

/// The curves of a trade-off chart `c` (one with `x_metric`) in one facet
/// (the axes other than `x` and `series` fixed to `facet`'s labels; see
/// [`crate::judge::facet::facets`]): per engine present, per series value.
pub(crate) fn curves(
    plan: &Plan,
    rows: &[ResultRow],
    c: &Chart,
    facet: &BTreeMap<String, String>,
) -> Vec<Curve> {
    let Some(xm) = c.x_metric.as_deref() else {
        return Vec::new();
    };
    let Some(ym) = c.metrics.first() else {
        return Vec::new();
    };
    let Some(xa) = plan.axis(&c.x) else {
        return Vec::new();
    };
    let series: Vec<String> = match c.series.as_deref().and_then(|s| plan.axis(s)) {
        Some(a) => a.values.iter().map(|v| v.label.clone()).collect(),
        None => vec![String::new()],
    };
    let mut out = Vec::new();
    for e in engines(plan, rows) {
        for s in &series {
            let mut points = Vec::new();
            for v in &xa.values {
                let mut fixed = facet.clone();
                if let Some(sa) = &c.series {
                    fixed.insert(sa.clone(), s.clone());
                }
                fixed.insert(c.x.clone(), v.label.clone());
                let x = summarize(&values(rows, &e, &c.step, &fixed, xm));
                let y = summarize(&values(rows, &e, &c.step, &fixed, ym));
                if let (Some(x), Some(y)) = (x, y) {
                    points.push(CurvePoint {
                        label: v.label.clone(),
                        x,
                        y,
                    });
                }
            }
            out.push(Curve {
                engine: e.clone(),
                series: s.clone(),
                points,
            });
        }
    }
    out
}

/// The value at `x` of the piecewise-linear curve through `pts` (x, y),
/// taken in order of x; `None` outside the curve's x range (no
/// extrapolation) or for an empty curve. Where several points share an x,
/// their mean y is used.
pub(crate) fn interpolate(pts: &[(f64, f64)], x: f64) -> Option<f64> {
    let mut sorted: Vec<(f64, f64)> = pts
        .iter()
        .copied()
        .filter(|p| p.0.is_finite() && p.1.is_finite())
        .collect();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    // Points sharing an x become one, at their mean y.
    let mut v: Vec<(f64, f64)> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let j = sorted[i..]
            .iter()
            .take_while(|p| p.0 == sorted[i].0)
            .count();
        let mean = sorted[i..i + j].iter().map(|p| p.1).sum::<f64>() / j as f64;
        v.push((sorted[i].0, mean));
        i += j;
    }
    let (first, last) = (v.first()?, v.last()?);
    if x < first.0 || x > last.0 {
        return None;
    }
    for w in v.windows(2) {
        let ((x0, y0), (x1, y1)) = (w[0], w[1]);
        if x <= x1 {
            return Some(y0 + (y1 - y0) * (x - x0) / (x1 - x0));
        }
    }
    Some(last.1)
}

/// Which of `pts` (x, y) are on the curve's frontier: not dominated by
/// another point of the same curve, i.e. no other point is at least as good
/// in both metrics and better in one. `x_higher` / `y_higher` say whether
/// a higher value is the better one for each metric. A dominated point is
/// a knob setting no one would choose (study 5's trigger 2 at the quick
/// scale: compaction-bound, it keeps more L0 files *and* rewrites more than
/// trigger 4), so engines are compared on their frontiers only.
pub(crate) fn dominated_by(
    pts: &[(f64, f64)],
    x_higher: bool,
    y_higher: bool,
) -> Vec<Option<usize>> {
    pts.iter()
        .enumerate()
        .map(|(i, p)| {
            pts.iter()
                .enumerate()
                .position(|(j, q)| j != i && dominates(*q, *p, x_higher, y_higher))
        })
        .collect()
}

/// True when `q` is at least as good as `p` in both metrics and better in
/// one (`x_higher` / `y_higher`: a higher value is the better one).
pub(crate) fn dominates(q: (f64, f64), p: (f64, f64), x_higher: bool, y_higher: bool) -> bool {
    let better_eq = |a: f64, b: f64, higher: bool| if higher { a >= b } else { a <= b };
    better_eq(q.0, p.0, x_higher) && better_eq(q.1, p.1, y_higher) && q != p
}

/// One comparison at equal x: a frontier point of `engine`'s curve and
/// the other engine's y read off its frontier at the same x.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct AtEqualX {
    /// Series label (empty without a series axis).
    pub series: String,
    /// The engine whose point this is.
    pub engine: String,
    /// The `x` axis label of the point.
    pub label: String,
    /// The point's mean x.
    pub x: f64,
    /// The point's mean y.
    pub y: f64,
    /// The other engine's y at that x, when x is inside its frontier's
    /// range.
    pub other_y: Option<f64>,
    /// When the point is off its own curve's frontier: the `x` axis label
    /// of a point of the same curve that dominates it (then `other_y` is
    /// `None` and the two lists below are empty).
    pub dominated_by: Option<String>,
    /// The other engine's frontier points (`x` axis labels) that dominate
    /// this one: better or as good in both metrics. Where the two curves
    /// share no range of x this still compares them.
    pub beaten_by: Vec<String>,
    /// The other engine's frontier points this one dominates.
    pub beats: Vec<String>,
}

impl AtEqualX {
    /// Of the two engines `a` and `b`, the one this point is not from.
    pub(crate) fn other<'a>(&self, a: &'a str, b: &'a str) -> &'a str {
        if self.engine == a {
            b
        } else {
            a
        }
    }
}

/// For each point of `engine`'s curves, `other`'s y at the same x on
/// `other`'s frontier, series by series.
pub(crate) fn at_equal_x(
    curves: &[Curve],
    engine: &str,
    other: &str,
    x_higher: bool,
    y_higher: bool,
) -> Vec<AtEqualX> {
    let xy =
        |c: &Curve| -> Vec<(f64, f64)> { c.points.iter().map(|p| (p.x.mean, p.y.mean)).collect() };
    let mut out = Vec::new();
    for a in curves.iter().filter(|c| c.engine == engine) {
        let Some(b) = curves
            .iter()
            .find(|c| c.engine == other && c.series == a.series)
        else {
            continue;
        };
        let theirs_all = xy(b);
        // (label, (x, y)) of the other engine's frontier.
        let frontier: Vec<(&str, (f64, f64))> = b
            .points
            .iter()
            .zip(&theirs_all)
            .zip(dominated_by(&theirs_all, x_higher, y_higher))
            .filter(|(_, d)| d.is_none())
            .map(|((p, xy), _)| (p.label.as_str(), *xy))
            .collect();
        let theirs: Vec<(f64, f64)> = frontier.iter().map(|f| f.1).collect();
        let ours = xy(a);
        for ((p, dom), &me) in a
            .points
            .iter()
            .zip(dominated_by(&ours, x_higher, y_higher))
            .zip(&ours)
        {
            let dominated_by = dom.map(|j| a.points[j].label.clone());
            let on_frontier = dominated_by.is_none();
            let labels = |pred: &dyn Fn((f64, f64)) -> bool| -> Vec<String> {
                frontier
                    .iter()
                    .filter(|(_, q)| on_frontier && pred(*q))
                    .map(|(l, _)| l.to_string())
                    .collect()
            };
            let beaten_by = labels(&|q| dominates(q, me, x_higher, y_higher));
            let beats = labels(&|q| dominates(me, q, x_higher, y_higher));
            out.push(AtEqualX {
                series: a.series.clone(),
                engine: engine.to_string(),
                label: p.label.clone(),
                x: p.x.mean,
                y: p.y.mean,
                other_y: if dominated_by.is_some() {
                    None
                } else {
                    interpolate(&theirs, p.x.mean)
                },
                dominated_by,
                beaten_by,
                beats,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpolates_between_points_in_x_order() {
        let pts = [(4.0, 2.0), (2.0, 4.0), (8.0, 1.0)];
        assert_eq!(interpolate(&pts, 3.0), Some(3.0));
        assert_eq!(interpolate(&pts, 2.0), Some(4.0));
        assert_eq!(interpolate(&pts, 6.0), Some(1.5));
        assert_eq!(interpolate(&pts, 8.0), Some(1.0));
    }

    #[test]
    fn does_not_extrapolate() {
        let pts = [(2.0, 4.0), (4.0, 2.0)];
        assert_eq!(interpolate(&pts, 1.9), None);
        assert_eq!(interpolate(&pts, 4.1), None);
        assert_eq!(interpolate(&[], 1.0), None);
    }

    #[test]
    fn shared_x_takes_the_mean_y() {
        let pts = [(2.0, 4.0), (2.0, 6.0), (4.0, 1.0)];
        assert_eq!(interpolate(&pts, 2.0), Some(5.0));
        assert_eq!(interpolate(&pts, 3.0), Some(3.0));
    }

    #[test]
    fn negative_x_sorts_as_numbers() {
        let pts = [(1.0, 1.0), (-1.0, 3.0)];
        assert_eq!(interpolate(&pts, 0.0), Some(2.0));
    }

    fn s(v: f64) -> Summary {
        summarize(&[v]).unwrap()
    }

    fn curve(engine: &str, pts: &[(&str, f64, f64)]) -> Curve {
        Curve {
            engine: engine.into(),
            series: "leveled".into(),
            points: pts
                .iter()
                .map(|(l, x, y)| CurvePoint {
                    label: l.to_string(),
                    x: s(*x),
                    y: s(*y),
                })
                .collect(),
        }
    }

    /// The case the chart was made for: the first engine at trigger 4
    /// keeps fewer L0 files and writes more than the other at trigger 4,
    /// but less than the other does at the same L0 file count.
    #[test]
    fn compares_at_equal_x_not_at_equal_knob() {
        let cv = vec![
            curve("strata", &[("4", 4.0, 3.6), ("6", 5.5, 3.0)]),
            curve("rocksdb", &[("2", 3.0, 4.4), ("4", 6.0, 3.2)]),
        ];
        let r = at_equal_x(&cv, "strata", "rocksdb", false, false);
        assert_eq!(r.len(), 2);
        // At x = 4: 4.4 + (3.2 - 4.4) / 3 = 4.0.
        let o = r[0].other_y.unwrap();
        assert!((o - 4.0).abs() < 1e-9, "{o}");
        assert!(r[0].y / o < 1.0);
        // At x = 5.5: 4.4 - 1.2 * 2.5 / 3 = 3.4.
        let o = r[1].other_y.unwrap();
        assert!((o - 3.4).abs() < 1e-9, "{o}");
        // Other series or engines are not mixed in.
        let mut other = curve("rocksdb", &[("4", 4.0, 100.0)]);
        other.series = "universal".into();
        let mut cv2 = cv.clone();
        cv2.push(other);
        assert_eq!(at_equal_x(&cv2, "strata", "rocksdb", false, false), r);
    }

    #[test]
    fn a_point_outside_the_other_curve_has_no_comparison() {
        let cv = vec![
            curve("strata", &[("2", 1.0, 5.0)]),
            curve("rocksdb", &[("2", 3.0, 4.4), ("4", 6.0, 3.2)]),
        ];
        assert_eq!(
            at_equal_x(&cv, "strata", "rocksdb", false, false)[0].other_y,
            None
        );
    }

    /// The hour scale's leveled case: the curves share no range of x
    /// (Strata always keeps fewer L0 files), so no y is read off, but
    /// Strata's trigger 8 beats RocksDB's points in both metrics.
    #[test]
    fn curves_apart_in_x_are_compared_by_dominance() {
        let cv = vec![
            curve("strata", &[("4", 4.5, 3.63), ("8", 6.4, 2.755)]),
            curve("rocksdb", &[("4", 7.0, 3.21), ("8", 7.5, 2.757)]),
        ];
        let s = at_equal_x(&cv, "strata", "rocksdb", false, false);
        assert!(s.iter().all(|r| r.other_y.is_none()));
        assert_eq!(s[0].beats, Vec::<String>::new());
        assert_eq!(s[0].beaten_by, Vec::<String>::new());
        assert_eq!(s[1].beats, vec!["4".to_string(), "8".to_string()]);
        let r = at_equal_x(&cv, "rocksdb", "strata", false, false);
        assert_eq!(r[0].beaten_by, vec!["8".to_string()]);
        assert_eq!(r[1].beaten_by, vec!["8".to_string()]);
        assert!(r.iter().all(|x| x.beats.is_empty()));
    }

    #[test]
    fn dominated_points_are_found_in_both_orientations() {
        // (L0 files, W-Amp), lower is better in both: the first point is
        // worse in both than the second; the last two trade one for the
        // other.
        assert_eq!(
            dominated_by(&[(4.4, 6.0), (3.5, 5.6), (4.6, 4.7)], false, false),
            vec![Some(1), None, None]
        );
        // y higher-is-better (ops/sec): the same y at a higher x loses...
        assert_eq!(
            dominated_by(&[(1.0, 10.0), (2.0, 10.0)], false, true),
            vec![None, Some(0)]
        );
        // ...while a higher y at a higher x is a trade.
        assert_eq!(
            dominated_by(&[(1.0, 10.0), (2.0, 12.0)], false, true),
            vec![None, None]
        );
        // Equal points do not dominate each other.
        assert_eq!(
            dominated_by(&[(1.0, 1.0), (1.0, 1.0)], false, false),
            vec![None, None]
        );
    }

    /// A compaction-bound setting (more L0 files and more W-Amp than a
    /// higher trigger) is reported as dominated and is not compared, and
    /// the other engine's dominated point is not used to read off a y.
    #[test]
    fn off_frontier_points_are_not_compared_nor_read_from() {
        let cv = vec![
            curve(
                "strata",
                &[("2", 4.4, 6.0), ("4", 3.5, 5.6), ("8", 5.8, 4.3)],
            ),
            curve(
                "rocksdb",
                &[("2", 6.6, 5.4), ("4", 4.6, 5.2), ("8", 6.4, 4.2)],
            ),
        ];
        let r = at_equal_x(&cv, "strata", "rocksdb", false, false);
        assert_eq!(r[0].dominated_by.as_deref(), Some("4"));
        assert_eq!(r[0].other_y, None);
        // x 5.8 lies between rocksdb's frontier points 4 (4.6) and 8 (6.4):
        // 5.2 - 1.0 * 1.2 / 1.8; rocksdb's trigger 2 (dominated) is not used.
        let o = r[2].other_y.unwrap();
        assert!((o - (5.2 - 1.2 / 1.8)).abs() < 1e-9, "{o}");
        // Strata's 3.5 is left of rocksdb's frontier.
        assert_eq!(r[1].other_y, None);
        assert_eq!(r[1].dominated_by, None);
    }
}
