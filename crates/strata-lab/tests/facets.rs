//! End to end with three axes: value size, layout and a variant axis that
//! scales throughput (`--fake_scale` of `tests/fake_db_bench.sh`). Each
//! chart draws the axis it does not use as facets, one panel per value, in
//! one image, and the report's statements carry the facet's values.

use std::path::{Path, PathBuf};
use std::process::Command;

const LAB: &str = env!("CARGO_BIN_EXE_strata-lab");

const SPEC: &str = r#"name = "facets"
title = "Three axes"
question = "Does a third axis become facets?"
repeats = 1
engines = ["strata", "rocksdb"]
[flags]
num = 1000
statistics = 1
[[axis]]
name = "value_size"
unit = "bytes"
values = [256, 2048]
[[axis]]
name = "layout"
[[axis.variant]]
label = "inline"
flags = { enable_blob_files = false }
[[axis.variant]]
label = "blob"
flags = { enable_blob_files = true }
[[axis]]
name = "speed"
[[axis.variant]]
label = "slow"
flags = { fake_scale = 1 }
[[axis.variant]]
label = "fast"
flags = { fake_scale = 2 }
[[step]]
benchmarks = "fillrandom,stats"
[scales.quick]
[[chart]]
id = "ops"
title = "fillrandom ops/sec"
step = "fillrandom"
metrics = ["ops_sec"]
x = "value_size"
series = "layout"
mark_crossover = true
[[chart]]
id = "by_speed"
title = "by speed"
step = "fillrandom"
metrics = ["ops_sec"]
x = "speed"
series = "layout"
[[chart]]
id = "trade"
title = "WAF against throughput"
step = "fillrandom"
metrics = ["waf"]
x = "value_size"
x_metric = "ops_sec"
series = "layout"
"#;

fn lab(args: &[&str]) -> std::process::Output {
    let o = Command::new(LAB)
        .args(args)
        .output()
        .expect("run strata-lab");
    if !o.status.success() {
        panic!(
            "strata-lab {args:?} failed\nstdout: {}\nstderr: {}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    }
    o
}

/// The text nodes of an SVG file, trimmed.
fn svg_texts(path: &Path) -> Vec<String> {
    let svg = std::fs::read_to_string(path).unwrap();
    let doc = roxmltree::Document::parse(&svg).expect("valid SVG");
    doc.descendants()
        .filter(|n| n.is_text())
        .filter_map(|n| n.text())
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect()
}

fn run() -> (tempfile::TempDir, PathBuf) {
    let fake = format!("sh {}/tests/fake_db_bench.sh", env!("CARGO_MANIFEST_DIR"));
    let d = tempfile::tempdir().unwrap();
    let spec = d.path().join("facets.toml");
    std::fs::write(&spec, SPEC).unwrap();
    let out = d.path().join("out");
    lab(&[
        "run",
        spec.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--strata-bench",
        &fake,
        "--rocksdb-bench",
        &fake,
    ]);
    let sdir = out.join("facets-quick");
    (d, sdir)
}

#[test]
fn a_third_axis_becomes_facets() {
    let (_d, sdir) = run();
    let all = strata_lab::data::results::read_jsonl(&sdir.join("results.jsonl")).unwrap();
    // 8 cells x 2 engines x 1 repeat x 1 step.
    assert_eq!(all.len(), 16);
    assert!(all.iter().all(|r| r.ok), "{:?}", all.iter().find(|r| !r.ok));
    let r = all
        .iter()
        .find(|r| r.cell_id == "value_size=2048,layout=inline,speed=fast")
        .unwrap();
    assert_eq!(r.metrics["ops_sec"], 390624.0);

    for id in ["ops", "by_speed", "trade"] {
        let png = std::fs::read(sdir.join(format!("charts/{id}.png"))).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{id}");
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
    // Each panel marks its own crossover (both engines print the same).
    assert_eq!(count(&texts, "strata: blob > inline"), 2, "{texts:?}");
    let texts = svg_texts(&sdir.join("charts/by_speed.svg"));
    for t in ["value_size=256 B", "value_size=2 KB"] {
        assert_eq!(count(&texts, t), 1, "by_speed: {t} in {texts:?}");
    }
    // Variant labels on x: bars (translucent rectangles), one per panel,
    // label and line, and no lines (drawn 2 px wide); value sizes: lines.
    let svg = std::fs::read_to_string(sdir.join("charts/by_speed.svg")).unwrap();
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
    assert_eq!(bars(&svg), 2 * 2 * 4, "by_speed");
    assert_eq!(lines(&svg), 0, "by_speed draws lines");
    let svg = std::fs::read_to_string(sdir.join("charts/ops.svg")).unwrap();
    assert_eq!(bars(&svg), 0, "ops draws bars");
    assert_eq!(lines(&svg), 2 * 4, "ops");

    let md = std::fs::read_to_string(sdir.join("report.md")).unwrap();
    for (speed, inline) in [("slow", "195,312"), ("fast", "390,624")] {
        let blob = if speed == "slow" {
            "500,000"
        } else {
            "1,000,000"
        };
        for e in ["strata", "rocksdb"] {
            let s = format!("- speed={speed}: {e}, fillrandom ops/sec (ops_sec): blob rises above inline between 256 B and 2 KB (inline {inline} vs blob {blob} at 2 KB)");
            assert!(md.contains(&s), "{s}\n{md}");
        }
    }
    // Along the unordered axis: which series is higher where, no trend.
    assert!(
        md.contains("- value_size=2 KB: strata, by speed (ops_sec): blob is higher at slow and fast (blob/inline ratio 2.56 to 2.56)."),
        "{md}"
    );
    assert!(
        md.contains("- value_size=256 B: rocksdb, by speed (ops_sec): inline is higher at slow and fast (blob/inline ratio 0.32 to 0.32)."),
        "{md}"
    );
    assert!(
        md.contains("- value_size=2 KB: strata, inline, fillrandom: ops_sec by speed, best first: fast 390,624, slow 195,312; the lowest is 50% below the best."),
        "{md}"
    );
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
        assert!(
            md.contains(&format!(
                "speed={speed}: strata against rocksdb at equal ops_sec"
            )),
            "{md}"
        );
    }
    // The results table has a column per axis.
    assert!(
        md.contains("| value_size | layout | speed | engine | ok/runs |"),
        "{md}"
    );
    assert!(
        md.contains("| 2 KB | inline | fast | strata | 1/1 | 390,624 |"),
        "{md}"
    );
}

/// The dashboard: a one-axis study's charts as they are; a faceted
/// chart's panels each as a dashboard chart titled with chart and facet.
#[test]
fn dashboard_takes_plain_and_faceted_charts() {
    let fake = format!("sh {}/tests/fake_db_bench.sh", env!("CARGO_MANIFEST_DIR"));
    let d = tempfile::tempdir().unwrap();
    let one_axis = SPEC
        .split("[[axis]]\nname = \"layout\"")
        .next()
        .unwrap()
        .to_string()
        + "[[step]]\nbenchmarks = \"fillrandom,stats\"\n[scales.quick]\n[[chart]]\nid = \"ops\"\ntitle = \"fillrandom ops/sec\"\nstep = \"fillrandom\"\nmetrics = [\"ops_sec\"]\nx = \"value_size\"\n";
    for (name, text, titles) in [
        ("one", one_axis, vec!["fillrandom ops/sec"]),
        (
            "three",
            SPEC.to_string(),
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
        lab(&[
            "run",
            spec.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--strata-bench",
            &fake,
            "--engines",
            "strata",
        ]);
        let charts = out.join(format!("{name}-quick/charts"));
        let png = std::fs::read(charts.join("dashboard.png")).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "{name}");
        let texts = svg_texts(&charts.join("dashboard.svg"));
        for t in titles {
            assert!(texts.iter().any(|x| x == t), "{name}: {t} in {texts:?}");
        }
    }
}
