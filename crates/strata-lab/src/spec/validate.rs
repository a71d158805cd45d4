//! Semantic checks of a parsed study spec; errors name file, line and field.

use std::collections::BTreeSet;

use crate::spec::study::{line_of, FindingKind, LoadedSpec};

/// Known engines.
pub(crate) const ENGINES: &[&str] = &["strata", "rocksdb", "leveldb", "fjall"];

fn scalar(v: &toml::Value) -> bool {
    crate::spec::study::flag_value(v).is_some()
}

/// Validates a loaded spec.
pub(crate) fn validate(l: &LoadedSpec) -> anyhow::Result<()> {
    let s = &l.spec;
    let file = l.path.display().to_string();
    let err = |offset: usize, field: &str, msg: String| -> anyhow::Error {
        anyhow::anyhow!(
            "{file}:{}: field `{field}`: {msg}",
            line_of(&l.text, offset)
        )
    };
    let top = |field: &str| -> usize {
        // Offset of a top-level key, for fields without spans.
        l.text
            .lines()
            .scan(0usize, |off, line| {
                let start = *off;
                *off += line.len() + 1;
                Some((start, line))
            })
            .find(|(_, line)| line.trim_start().starts_with(field))
            .map(|(o, _)| o)
            .unwrap_or(0)
    };
    if s.name.trim().is_empty() || s.name.contains(['/', ' ']) {
        return Err(err(top("name"), "name", "must be a non-empty word".into()));
    }
    if s.repeats == 0 {
        return Err(err(top("repeats"), "repeats", "must be at least 1".into()));
    }
    for e in &s.engines {
        if !ENGINES.contains(&e.as_str()) {
            return Err(err(
                top("engines"),
                "engines",
                format!("unknown engine `{e}` (known: {})", ENGINES.join(", ")),
            ));
        }
    }
    if s.disk_factor <= 0.0 {
        return Err(err(
            top("disk_factor"),
            "disk_factor",
            "must be positive".into(),
        ));
    }
    for (k, v) in &s.flags {
        if !scalar(v) {
            return Err(err(
                top(k),
                &format!("flags.{k}"),
                "must be a string, number or boolean".into(),
            ));
        }
    }
    if s.axes.is_empty() {
        return Err(err(
            top("[[axis]]"),
            "axis",
            "a study has at least one axis".into(),
        ));
    }
    let mut names = BTreeSet::new();
    for (i, a) in s.axes.iter().enumerate() {
        let off = a.span().start;
        let ax = a.get_ref();
        let f = format!("axis[{i}]");
        if !names.insert(ax.name.clone()) {
            return Err(err(
                off,
                &format!("{f}.name"),
                format!("duplicate axis `{}`", ax.name),
            ));
        }
        match (ax.values.is_empty(), ax.variants.is_empty()) {
            (true, true) => {
                return Err(err(
                    off,
                    &format!("{f}.values"),
                    "give `values` or `variant`s".into(),
                ))
            }
            (false, false) => {
                return Err(err(
                    off,
                    &format!("{f}.values"),
                    "give either `values` or `variant`s, not both".into(),
                ))
            }
            _ => {}
        }
        if let Some(v) = ax.values.iter().find(|v| !scalar(v)) {
            return Err(err(
                off,
                &format!("{f}.values"),
                format!("value {v} is not a scalar"),
            ));
        }
        if ax.name == "cpus" {
            if let Some(v) = ax
                .values
                .iter()
                .find(|v| v.as_integer().is_none_or(|n| n < 1))
            {
                return Err(err(
                    off,
                    &format!("{f}.values"),
                    format!("cpus values must be positive integers, found {v}"),
                ));
            }
        }
        let mut labels = BTreeSet::new();
        for (j, v) in ax.variants.iter().enumerate() {
            if !labels.insert(v.label.clone()) {
                return Err(err(
                    off,
                    &format!("{f}.variant[{j}].label"),
                    format!("duplicate label `{}`", v.label),
                ));
            }
            if let Some((k, _)) = v.flags.iter().find(|(_, x)| !scalar(x)) {
                return Err(err(
                    off,
                    &format!("{f}.variant[{j}].flags.{k}"),
                    "must be a scalar".into(),
                ));
            }
        }
    }
    if s.steps.is_empty() {
        return Err(err(
            top("[[step]]"),
            "step",
            "at least one step is needed".into(),
        ));
    }
    let mut steps = BTreeSet::new();
    for (i, st) in s.steps.iter().enumerate() {
        let r = st.get_ref();
        if r.benchmarks.trim().is_empty() {
            return Err(err(
                st.span().start,
                &format!("step[{i}].benchmarks"),
                "is empty".into(),
            ));
        }
        let mut rest = r.benchmarks.as_str();
        while let Some(pos) = rest.find("${") {
            let tail = rest.get(pos + 2..).unwrap_or("");
            let end = tail.find('}').unwrap_or(tail.len());
            let name = tail.get(..end).unwrap_or("");
            if !names.contains(name) {
                return Err(err(
                    st.span().start,
                    &format!("step[{i}].benchmarks"),
                    format!("`${{{name}}}` names no axis"),
                ));
            }
            rest = tail.get(end..).unwrap_or("");
        }
        if !steps.insert(r.label()) {
            return Err(err(
                st.span().start,
                &format!("step[{i}].name"),
                format!("duplicate step name `{}`", r.label()),
            ));
        }
    }
    if s.scales.is_empty() {
        return Err(err(
            top("[scales"),
            "scales",
            "define at least one scale (quick, full)".into(),
        ));
    }
    for (name, sc) in &s.scales {
        for k in sc.get_ref().axis_values.keys() {
            if !names.contains(k) {
                return Err(err(
                    sc.span().start,
                    &format!("scales.{name}.axis_values.{k}"),
                    "no such axis".into(),
                ));
            }
        }
        for k in sc.get_ref().variant_flags.keys() {
            let known = s
                .axes
                .iter()
                .any(|a| a.get_ref().variants.iter().any(|v| &v.label == k));
            if !known {
                return Err(err(
                    sc.span().start,
                    &format!("scales.{name}.variant_flags.{k}"),
                    "no variant with this label".into(),
                ));
            }
        }
        if sc.get_ref().repeats == Some(0) {
            return Err(err(
                sc.span().start,
                &format!("scales.{name}.repeats"),
                "must be at least 1".into(),
            ));
        }
    }
    let axis = |n: &str| names.contains(n);
    for (i, c) in s.charts.iter().enumerate() {
        let off = c.span().start;
        let ch = c.get_ref();
        let f = format!("chart[{i}]");
        if !steps.contains(&ch.step) {
            return Err(err(
                off,
                &format!("{f}.step"),
                format!("no step named `{}`", ch.step),
            ));
        }
        if !axis(&ch.x) {
            return Err(err(
                off,
                &format!("{f}.x"),
                format!("no axis named `{}`", ch.x),
            ));
        }
        if let Some(se) = &ch.series {
            if !axis(se) || se == &ch.x {
                return Err(err(
                    off,
                    &format!("{f}.series"),
                    format!("`{se}` is not another axis"),
                ));
            }
        }
        if ch.metrics.is_empty() {
            return Err(err(off, &format!("{f}.metrics"), "is empty".into()));
        }
        if ch.x_metric.is_some() {
            if ch.metrics.len() != 1 {
                return Err(err(
                    off,
                    &format!("{f}.metrics"),
                    "a trade-off chart (`x_metric`) takes exactly one metric".into(),
                ));
            }
            if ch.relative || ch.mark_crossover {
                return Err(err(
                    off,
                    &format!("{f}.x_metric"),
                    "`relative` and `mark_crossover` apply to charts along an axis, not to trade-off charts".into(),
                ));
            }
        }
        let x_ordered = s
            .axes
            .iter()
            .map(|a| a.get_ref())
            .any(|a| a.name == ch.x && a.is_ordered());
        if ch.mark_crossover && !x_ordered {
            return Err(err(
                off,
                &format!("{f}.mark_crossover"),
                format!(
                    "chart `{}`: `x` axis `{}` is not ordered, so nothing crosses over along it (give the axis `ordered = true` if its values have an order)",
                    ch.id, ch.x
                ),
            ));
        }
    }
    let ordered = |n: &str| {
        s.axes
            .iter()
            .map(|a| a.get_ref())
            .find(|a| a.name == n)
            .is_some_and(|a| a.ordered.unwrap_or(a.variants.is_empty()))
    };
    // Every label an axis can take at some scale.
    let labels_of = |n: &str| -> BTreeSet<String> {
        let mut out = BTreeSet::new();
        if let Some(a) = s.axes.iter().map(|a| a.get_ref()).find(|a| a.name == n) {
            out.extend(a.variants.iter().map(|v| v.label.clone()));
            out.extend(a.values.iter().filter_map(crate::spec::study::flag_value));
            for sc in s.scales.values() {
                if let Some(v) = sc.get_ref().axis_values.get(n) {
                    out.extend(v.iter().filter_map(crate::spec::study::flag_value));
                }
            }
        }
        out
    };
    for (i, fd) in s.findings.iter().enumerate() {
        let off = fd.span().start;
        let x = fd.get_ref();
        let f = format!("finding[{i}]");
        let fail = |field: &str, msg: String| Err(err(off, &format!("{f}.{field}"), msg));
        if !steps.contains(&x.step) {
            return fail("step", format!("no step named `{}`", x.step));
        }
        if let Some(al) = &x.along {
            if !axis(al) {
                return fail("along", format!("no axis named `{al}`"));
            }
        }
        for (k, v) in &x.where_ {
            if !axis(k) {
                return fail(&format!("where.{k}"), "no such axis".into());
            }
            if !labels_of(k).contains(v) {
                return fail(
                    &format!("where.{k}"),
                    format!("axis `{k}` has no value `{v}`"),
                );
            }
        }
        if !x.at.is_empty() {
            let Some(al) = &x.along else {
                return fail("at", "needs `along`".into());
            };
            if let Some(l) = x.at.iter().find(|l| !labels_of(al).contains(*l)) {
                return fail("at", format!("axis `{al}` has no value `{l}`"));
            }
        }
        let pair = matches!(
            x.kind,
            FindingKind::Crossover
                | FindingKind::Ordering
                | FindingKind::Ratio
                | FindingKind::Parity
        ) || (x.kind == FindingKind::Monotonic && !x.series.is_empty());
        if pair {
            if x.series.len() != 2 {
                return fail("series", "needs exactly two labels".into());
            }
            match &x.series_axis {
                Some(a) if axis(a) && Some(a) != x.along.as_ref() => {
                    if let Some(l) = x.series.iter().find(|l| !labels_of(a).contains(*l)) {
                        return fail("series", format!("axis `{a}` has no value `{l}`"));
                    }
                }
                _ => return fail("series_axis", "must name an axis other than `along`".into()),
            }
        } else if !x.series.is_empty() || x.series_axis.is_some() {
            return fail(
                "series",
                format!("a `{:?}` finding takes no series", x.kind).to_lowercase(),
            );
        }
        let along_ordered = x.along.as_deref().is_some_and(ordered);
        let interior = x.expected.iter().any(|e| e == "interior");
        match x.kind {
            FindingKind::Crossover | FindingKind::Monotonic | FindingKind::Argmax
                if x.along.is_none() =>
            {
                return fail(
                    "along",
                    "this kind compares points along an axis: name it".into(),
                );
            }
            FindingKind::Crossover | FindingKind::Monotonic if !along_ordered => {
                return fail(
                    "along",
                    format!(
                        "`{}` is not an ordered axis (give it `ordered = true` if its values have an order)",
                        x.along.as_deref().unwrap_or_default()
                    ),
                );
            }
            FindingKind::Argmax if interior && !along_ordered => {
                return fail(
                    "expected",
                    "`interior` needs an ordered `along` axis".into(),
                );
            }
            FindingKind::Ratio
                if x.range.len() != 2 || x.range[0] > x.range[1] || x.range[0] <= 0.0 =>
            {
                return fail("range", "needs [lo, hi] with 0 < lo <= hi".into());
            }
            FindingKind::Argmax if x.expected.is_empty() => {
                return fail("expected", "needs at least one label".into());
            }
            FindingKind::Argmax if !interior => {
                let al = x.along.as_deref().unwrap_or_default();
                if let Some(l) = x.expected.iter().find(|l| !labels_of(al).contains(*l)) {
                    return fail("expected", format!("axis `{al}` has no value `{l}`"));
                }
            }
            FindingKind::Monotonic
                if !matches!(
                    x.direction.as_deref(),
                    Some("increasing") | Some("decreasing")
                ) =>
            {
                return fail("direction", "must be `increasing` or `decreasing`".into());
            }
            FindingKind::Crossover if !x.between.is_empty() && x.between.len() != 2 => {
                return fail("between", "needs two x labels".into());
            }
            FindingKind::Bound if x.max.is_none() && x.min.is_none() => {
                return fail("max", "a `bound` finding needs `max` or `min`".into());
            }
            _ => {}
        }
        if x.scales.iter().any(|n| !s.scales.contains_key(n)) {
            return fail("scales", "names an undefined scale".into());
        }
        if let Some(id) = &x.same_claim_as {
            let earlier = s.findings[..i].iter().any(|g| &g.get_ref().id == id);
            if !earlier {
                return fail("same_claim_as", format!("no earlier finding has id `{id}`"));
            }
        }
        for (k, n) in x.needs.iter().enumerate() {
            let finite = |v: Option<f64>| v.is_none_or(f64::is_finite);
            if (n.at_least.is_none() && n.at_most.is_none())
                || !finite(n.at_least)
                || !finite(n.at_most)
            {
                return fail(
                    &format!("needs[{k}]"),
                    "needs a finite `at_least` or `at_most`".into(),
                );
            }
        }
        if let Some(r) = x.published_ratio {
            if !matches!(
                x.kind,
                FindingKind::Ordering | FindingKind::Ratio | FindingKind::Parity
            ) {
                let kind = format!("{:?}", x.kind).to_lowercase();
                return fail(
                    "published_ratio",
                    format!("only an `ordering`, `ratio` or `parity` finding reads a ratio of two series; a `{kind}` one has none to set it beside"),
                );
            }
            if !(r.is_finite() && r > 0.0) {
                return fail(
                    "published_ratio",
                    format!("must be a positive finite ratio, found {r}"),
                );
            }
        }
        if let Some(e) = x.min_effect {
            if !(e > 0.0 && e < 1.0) {
                return fail(
                    "min_effect",
                    format!("must be between 0 and 1 (a fraction), found {e}"),
                );
            }
        }
    }
    if let Some(sc) = &s.score {
        let r = sc.get_ref();
        let total: f64 = r.weights.values().sum();
        if (total - 1.0).abs() > 1e-6 {
            return Err(err(
                sc.span().start,
                "score.weights",
                format!("weights sum to {total}, not 1"),
            ));
        }
        if !steps.contains(&r.step) {
            return Err(err(
                sc.span().start,
                "score.step",
                format!("no step named `{}`", r.step),
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::spec::parse;
    use std::path::Path;

    const GOOD: &str = include_str!("../../testdata/studies/unit-validate.toml");

    fn err_of(text: &str) -> String {
        match parse(text, Path::new("x.toml")) {
            Ok(_) => panic!("expected an error"),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn accepts_good_spec() {
        let l = parse(GOOD, Path::new("x.toml")).unwrap();
        assert_eq!(l.spec.axes.len(), 1);
        assert_eq!(l.spec.steps[0].get_ref().label(), "fillrandom");
    }

    #[test]
    fn unknown_field_names_file_and_line() {
        let t = GOOD.replace("[[axis]]\nname", "[[axis]]\nbogus = 1\nname");
        let e = err_of(&t);
        assert!(e.starts_with("x.toml:11:"), "{e}");
        assert!(e.contains("bogus"), "{e}");
    }

    #[test]
    fn axis_without_values_names_field_and_line() {
        let t = GOOD.replace("values = [100, 200]", "");
        let e = err_of(&t);
        assert!(e.contains("axis[0].values"), "{e}");
        assert!(e.starts_with("x.toml:1"), "{e}");
    }

    #[test]
    fn unknown_engine_is_rejected_with_line() {
        let e = err_of(&GOOD.replace("[\"strata\"]", "[\"wiredtiger\"]"));
        assert!(e.starts_with("x.toml:5: field `engines`"), "{e}");
    }

    #[test]
    fn bad_finding_references_are_rejected() {
        let t = format!(
            "{GOOD}\n[[finding]]\nid = \"f\"\nclaim = \"c\"\npublished = \"p\"\nkind = \"argmax\"\nmetric = \"ops_sec\"\nstep = \"fillrandom\"\nalong = \"nope\"\nexpected = [\"100\"]\n"
        );
        let e = err_of(&t);
        assert!(e.contains("finding[0].along"), "{e}");
        assert!(e.contains("x.toml:2"), "{e}");
    }

    #[test]
    fn a_published_ratio_is_positive_finite_and_on_a_two_series_kind() {
        let axis = "\n[[axis]]\nname = \"layout\"\n[[axis.variant]]\nlabel = \"inline\"\n[[axis.variant]]\nlabel = \"blob\"\n";
        let finding = |kind: &str, extra: &str| {
            format!(
                "{GOOD}{axis}\n[[finding]]\nid = \"f\"\nclaim = \"c\"\npublished = \"p\"\nkind = \"{kind}\"\nmetric = \"ops_sec\"\nstep = \"fillrandom\"\n{extra}\n"
            )
        };
        let pair =
            "along = \"value_size\"\nseries_axis = \"layout\"\nseries = [\"inline\", \"blob\"]\n";
        for (kind, extra) in [
            ("ordering", ""),
            ("ratio", "range = [2.0, 10.0]\n"),
            ("parity", ""),
        ] {
            let ok = finding(kind, &format!("{pair}{extra}published_ratio = 3.9"));
            assert!(parse(&ok, Path::new("x.toml")).is_ok(), "{kind}");
        }
        for bad in ["0.0", "-1.5", "inf", "nan"] {
            let e = err_of(&finding(
                "ordering",
                &format!("{pair}published_ratio = {bad}"),
            ));
            assert!(
                e.contains("finding[0].published_ratio") && e.contains("positive finite"),
                "{bad}: {e}"
            );
        }
        let e = err_of(&finding(
            "crossover",
            &format!("{pair}published_ratio = 2.0"),
        ));
        assert!(
            e.contains("finding[0].published_ratio") && e.contains("a `crossover` one"),
            "{e}"
        );
        let e = err_of(&finding(
            "monotonic",
            "along = \"value_size\"\ndirection = \"increasing\"\npublished_ratio = 2.0",
        ));
        assert!(e.contains("a `monotonic` one"), "{e}");
    }

    #[test]
    fn trade_off_chart_takes_one_metric_and_no_axis_options() {
        let chart = "\n[[chart]]\nid = \"c\"\ntitle = \"C\"\nstep = \"fillrandom\"\nx = \"value_size\"\nx_metric = \"l0_files_mean\"\n";
        let ok = format!("{GOOD}{chart}metrics = [\"wamp\"]\n");
        assert!(parse(&ok, Path::new("x.toml")).is_ok());
        let e = err_of(&format!("{GOOD}{chart}metrics = [\"wamp\", \"waf\"]\n"));
        assert!(
            e.contains("chart[0].metrics") && e.contains("exactly one"),
            "{e}"
        );
        let e = err_of(&format!("{ok}relative = true\n"));
        assert!(e.contains("chart[0].x_metric"), "{e}");
        let e = err_of(&format!("{ok}mark_crossover = true\n"));
        assert!(e.contains("chart[0].x_metric"), "{e}");
    }

    /// The variant axis appended to [`GOOD`] by the tests below.
    const FILL_AXIS: &str = "\n[[axis]]\nname = \"fill\"\n[[axis.variant]]\nlabel = \"fillseq\"\n[[axis.variant]]\nlabel = \"fillrandom\"\n";

    #[test]
    fn crossover_marker_needs_an_ordered_x_axis() {
        let spec = GOOD.replace("[[step]]", &format!("{FILL_AXIS}\n[[step]]"));
        let chart = "\n[[chart]]\nid = \"by_fill\"\ntitle = \"C\"\nstep = \"fillrandom\"\nmetrics = [\"ops_sec\"]\nx = \"fill\"\nseries = \"value_size\"\n";
        let ok = format!("{spec}{chart}");
        assert!(parse(&ok, Path::new("x.toml")).is_ok());
        let e = err_of(&format!("{ok}mark_crossover = true\n"));
        assert!(e.contains("chart[0].mark_crossover"), "{e}");
        assert!(e.contains("`by_fill`") && e.contains("`fill`"), "{e}");
        // Declared ordered, the same variants may carry the marker.
        let ordered = ok.replace("name = \"fill\"\n", "name = \"fill\"\nordered = true\n");
        assert!(parse(
            &format!("{ordered}mark_crossover = true\n"),
            Path::new("x.toml")
        )
        .is_ok());
        // And a scalar axis declared unordered may not.
        let e = err_of(
            &format!(
                "{}{chart}mark_crossover = true\n",
                spec.replace(
                    "values = [100, 200]",
                    "values = [100, 200]\nordered = false"
                )
            )
            .replace(
                "x = \"fill\"\nseries = \"value_size\"",
                "x = \"value_size\"\nseries = \"fill\"",
            ),
        );
        assert!(
            e.contains("chart[0].mark_crossover") && e.contains("`value_size`"),
            "{e}"
        );
    }

    #[test]
    fn a_study_takes_any_number_of_axes_but_at_least_one() {
        let three = GOOD.replace(
            "[[step]]",
            &format!("{FILL_AXIS}\n[[axis]]\nname = \"cpus\"\nvalues = [1, 2]\n\n[[step]]"),
        );
        let l = parse(&three, Path::new("x.toml")).unwrap();
        assert_eq!(l.spec.axes.len(), 3);
        let none = GOOD.replace("[[axis]]\nname = \"value_size\"\nvalues = [100, 200]\n", "");
        let e = err_of(&none);
        assert!(
            e.contains("field `axis`") && e.contains("at least one"),
            "{e}"
        );
    }

    #[test]
    fn placeholder_must_name_an_axis() {
        let e = err_of(&GOOD.replace("fillrandom,stats", "fillrandom,${nope}"));
        assert!(
            e.contains("step[0].benchmarks") && e.contains("${nope}"),
            "{e}"
        );
        assert!(parse(
            &GOOD.replace("fillrandom,stats", "fillrandom,${value_size}"),
            Path::new("x.toml")
        )
        .is_ok());
    }

    #[test]
    fn wrong_type_reports_line() {
        let e = err_of(&GOOD.replace("repeats = 2", "repeats = \"two\""));
        assert!(e.starts_with("x.toml:4:"), "{e}");
    }
}
