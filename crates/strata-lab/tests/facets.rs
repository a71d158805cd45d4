//! End to end with three axes: value size, layout and a variant axis that
//! scales throughput (`--fake_scale` of `tests/fake_db_bench.sh`). Each
//! chart draws the axis it does not use as facets, one panel per value, in
//! one image, and the report's statements carry the facet's values.

mod common;

use std::path::PathBuf;

use common::{
    assert_contains, assert_png, fake_bench, read, rows, run_fake, study, study_in_temp, svg_texts,
};

fn run() -> (tempfile::TempDir, PathBuf) {
    let (d, spec) = study_in_temp("facets", &study("facets"));
    let sdir = run_fake(
        &spec,
        &d.path().join("out"),
        &["--rocksdb-bench", &fake_bench()],
    );
    (d, sdir)
}

#[test]
fn a_third_axis_becomes_facets() {
    let (_d, sdir) = run();
    let all = rows(&sdir.join("results.jsonl"));
    // 8 cells x 2 engines x 1 repeat x 1 step.
    assert_eq!(all.len(), 16);
    assert!(all.iter().all(|r| r.ok), "{:?}", all.iter().find(|r| !r.ok));
    let r = all
        .iter()
        .find(|r| r.cell_id == "value_size=2048,layout=inline,speed=fast")
        .unwrap();
    assert_eq!(r.metrics["ops_sec"], 390624.0);

    for id in ["ops", "by_speed", "trade"] {
        assert_png(&sdir.join(format!("charts/{id}.png")));
    }
    // One panel per value of the unused axis, each titled with it, under
    // the chart's title and one legend.
    let count = |texts: &[String], t: &str| texts.iter().filter(|x| *x == t).count();
    for id in ["ops", "trade"] {
        let texts = svg_texts(&sdir.join(format!("charts/{id}.svg")));
        for t in ["speed=slow", "speed=fast"] {
            assert_eq!(count(&texts, t), 1, "{id}: {t} in {texts:?}");
        }
        for t in [
            "strata inline",
            "strata blob",
            "rocksdb inline",
            "rocksdb blob",
        ] {
            assert_eq!(count(&texts, t), 1, "{id}: legend {t} in {texts:?}");
        }
        assert!(!texts.iter().any(|t| t.starts_with("value_size=")), "{id}");
    }
    let texts = svg_texts(&sdir.join("charts/ops.svg"));
    assert_eq!(count(&texts, "fillrandom ops/sec"), 1, "{texts:?}");
    // One repeat per cell shows no crossover beyond noise: no panel marks
    // one, though the means cross (a marker is drawn only where the
    // crossover verdict would see it; `findings::tests::crossover_index`).
    assert_eq!(count(&texts, "strata: blob > inline"), 0, "{texts:?}");
    let texts = svg_texts(&sdir.join("charts/by_speed.svg"));
    for t in ["value_size=256 B", "value_size=2 KB"] {
        assert_eq!(count(&texts, t), 1, "by_speed: {t} in {texts:?}");
    }
    // Variant labels on x: bars (translucent rectangles), one per panel,
    // label and line, and a legend swatch drawn like them per line, and no
    // lines (drawn 2 px wide); value sizes: lines.
    let svg = read(&sdir.join("charts/by_speed.svg"));
    let elements = |svg: &str, tag: &str, attrs: &[&str]| {
        svg.split(tag)
            .skip(1)
            .filter(|r| {
                let e = r.split('>').next().unwrap();
                attrs.iter().all(|a| e.contains(a))
            })
            .count()
    };
    let bars = |svg: &str| elements(svg, "<rect", &["opacity=\"0.8\""]);
    // Crossover markers are grey (#5A5A5A), also 2 px wide.
    let lines = |svg: &str| {
        elements(svg, "<polyline", &["stroke-width=\"2\""])
            - elements(svg, "<polyline", &["stroke-width=\"2\"", "#5A5A5A"])
    };
    assert_eq!(bars(&svg), 2 * 2 * 4 + 4, "by_speed");
    assert_eq!(lines(&svg), 0, "by_speed draws lines");
    let svg = read(&sdir.join("charts/ops.svg"));
    assert_eq!(bars(&svg), 0, "ops draws bars");
    assert_eq!(lines(&svg), 2 * 4, "ops");

    let md = read(&sdir.join("report.md"));
    // One repeat: no interval, so no crossing is stated along value_size.
    for speed in ["slow", "fast"] {
        for e in ["strata", "rocksdb"] {
            let s = format!("- speed={speed}: {e}, fillrandom ops/sec (ops_sec): the repeats cannot tell a difference of 5% at 256 B (blob/inline 0.320 (no interval: a cell with fewer than 3 repeats)) and 2 KB (blob/inline 2.560 (no interval");
            assert_contains(&md, &s);
        }
    }
    assert!(!md.contains("rises above"), "{md}");
    // Along the unordered axis: which series is higher where, only as far
    // as the repeats show it (2 repeats here: they cannot), no trend, and
    // no ranking of the axis's labels.
    assert_contains(&md, "- value_size=2 KB: strata, by speed (ops_sec): the repeats cannot tell a difference of 5% at slow (blob/inline 2.560 (no interval: a cell with fewer than 3 repeats)) and fast");
    assert_contains(&md, "- value_size=256 B: rocksdb, by speed (ops_sec): the repeats cannot tell a difference of 5% at slow (blob/inline 0.320 (no interval");
    assert!(!md.contains("best first"), "{md}");
    let shows = md
        .split("## What this run shows")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .unwrap();
    for line in shows.lines().filter(|l| l.contains("by speed")) {
        assert!(!line.contains("rises above"), "{line}");
        assert!(line.starts_with("- value_size="), "{line}");
    }
    assert!(
        shows
            .lines()
            .filter(|l| l.starts_with("- "))
            .all(|l| l.starts_with("- speed=") || l.starts_with("- value_size=")),
        "{shows}"
    );
    // The trade-off chart's comparison, per facet.
    for speed in ["slow", "fast"] {
        assert_contains(
            &md,
            &format!("speed={speed}: strata against rocksdb at equal ops_sec"),
        );
    }
    // The results table has a column per axis.
    assert_contains(&md, "| value_size | layout | speed | engine | ok/runs |");
    assert_contains(&md, "| 2 KB | inline | fast | strata | 1/1 | 390,624 |");
}

/// The dashboard: a one-axis study's charts as they are; a faceted
/// chart's panels each as a dashboard chart titled with chart and facet.
#[test]
fn dashboard_takes_plain_and_faceted_charts() {
    let spec_text = study("facets");
    let d = tempfile::tempdir().unwrap();
    let one_axis = spec_text
        .split("[[axis]]\nname = \"layout\"")
        .next()
        .unwrap()
        .to_string()
        + "[[step]]\nbenchmarks = \"fillrandom,stats\"\n[scales.quick]\n[[chart]]\nid = \"ops\"\ntitle = \"fillrandom ops/sec\"\nstep = \"fillrandom\"\nmetrics = [\"ops_sec\"]\nx = \"value_size\"\n";
    for (name, text, titles) in [
        ("one", one_axis, vec!["fillrandom ops/sec"]),
        (
            "three",
            spec_text.clone(),
            vec![
                "fillrandom ops/sec: speed=slow",
                "fillrandom ops/sec: speed=fast",
                "by speed: value_size=256 B",
                "WAF against throughput: speed=fast",
            ],
        ),
    ] {
        let spec = d.path().join(format!("{name}.toml"));
        std::fs::write(
            &spec,
            text.replacen("repeats = 1\n", "repeats = 1\ndashboard = true\n", 1)
                .replacen("name = \"facets\"", &format!("name = \"{name}\""), 1),
        )
        .unwrap();
        let out = d.path().join(name);
        run_fake(&spec, &out, &["--engines", "strata"]);
        let charts = out.join(format!("{name}-quick/charts"));
        assert_png(&charts.join("dashboard.png"));
        let texts = svg_texts(&charts.join("dashboard.svg"));
        for t in titles {
            assert!(texts.iter().any(|x| x == t), "{name}: {t} in {texts:?}");
        }
    }
}
