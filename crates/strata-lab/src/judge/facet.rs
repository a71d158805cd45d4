//! Facets: the axes of a study that a chart does not draw along (`x`) or as
//! lines (`series`). Each combination of their values is one facet; a chart
//! draws one panel per facet (small multiples in one image) and the report
//! states what it shows per facet.

use std::collections::BTreeMap;

use crate::spec::model::Plan;

/// Every combination of labels of the plan's axes not named in `used`, in
/// the plan's axis and value order (the last axis varying fastest, as the
/// cells do); one empty map when every axis is used. A combination that no
/// cell of the plan has (cells left out by `--only`) is left out, unless
/// the plan has no cells at all.
pub(crate) fn facets(plan: &Plan, used: &[&str]) -> Vec<BTreeMap<String, String>> {
    let mut out = vec![BTreeMap::new()];
    for a in plan
        .axes
        .iter()
        .filter(|a| !used.contains(&a.name.as_str()))
    {
        out = out
            .iter()
            .flat_map(|f| {
                a.values.iter().map(move |v| {
                    let mut g = f.clone();
                    g.insert(a.name.clone(), v.label.clone());
                    g
                })
            })
            .collect();
    }
    let in_plan = |f: &BTreeMap<String, String>| {
        plan.cells
            .iter()
            .any(|c| f.iter().all(|(k, v)| c.labels.get(k) == Some(v)))
    };
    if !plan.cells.is_empty() {
        out.retain(in_plan);
    }
    out
}

/// The axes a chart uses: its `x` and, when it has one, its `series`.
pub(crate) fn used_axes<'a>(x: &'a str, series: Option<&'a str>) -> Vec<&'a str> {
    std::iter::once(x).chain(series).collect()
}

/// A facet as text, in the plan's axis order: `value_size=4 KB, mode=fast`
/// (labels as the axis displays them); empty for the empty facet.
pub(crate) fn facet_title(plan: &Plan, facet: &BTreeMap<String, String>) -> String {
    plan.axes
        .iter()
        .filter_map(|a| {
            facet
                .get(&a.name)
                .map(|l| format!("{}={}", a.name, a.display(l)))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The prefix of a statement made in one facet: `"value_size=4 KB: "`, or
/// nothing for the empty facet.
pub(crate) fn facet_prefix(plan: &Plan, facet: &BTreeMap<String, String>) -> String {
    let t = facet_title(plan, facet);
    if t.is_empty() {
        t
    } else {
        format!("{t}: ")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: &str = include_str!("../../testdata/studies/unit-facet.toml");

    fn plan() -> Plan {
        crate::testutil::plan(SPEC, "quick")
    }

    #[test]
    fn every_combination_of_the_unused_axes_in_plan_order() {
        let p = plan();
        let f = facets(&p, &["layout"]);
        let titles: Vec<String> = f.iter().map(|x| facet_title(&p, x)).collect();
        assert_eq!(
            titles,
            [
                "value_size=1 KB, mode=slow",
                "value_size=1 KB, mode=fast",
                "value_size=1 KB, mode=mid",
                "value_size=4 KB, mode=slow",
                "value_size=4 KB, mode=fast",
                "value_size=4 KB, mode=mid",
            ]
        );
        assert_eq!(f[1].get("mode").map(String::as_str), Some("fast"));
        assert!(!f[1].contains_key("layout"));
        let f = facets(&p, &used_axes("value_size", Some("layout")));
        assert_eq!(f.len(), 3);
        assert_eq!(facet_prefix(&p, &f[2]), "mode=mid: ");
    }

    #[test]
    fn combinations_without_a_cell_are_left_out() {
        let mut p = plan();
        p.select_cells(&[
            "value_size=1024,mode=slow".to_string(),
            "value_size=4096,mode=fast".to_string(),
        ])
        .unwrap();
        let titles: Vec<String> = facets(&p, &["layout"])
            .iter()
            .map(|x| facet_title(&p, x))
            .collect();
        assert_eq!(
            titles,
            ["value_size=1 KB, mode=slow", "value_size=4 KB, mode=fast"]
        );
        assert_eq!(facets(&p, &["layout", "mode"]).len(), 2);
    }

    #[test]
    fn no_unused_axis_gives_one_empty_facet() {
        let p = plan();
        let f = facets(&p, &["value_size", "layout", "mode"]);
        assert_eq!(f, vec![BTreeMap::new()]);
        assert_eq!(facet_prefix(&p, &f[0]), "");
    }
}
