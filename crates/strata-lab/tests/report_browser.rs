//! The tiny study's report and a capacity report, rendered in a real browser (headless Chromium,
//! `scripts/report-browser-check.sh`): nothing reaches past the page's
//! right edge, at a wide and a narrow window, and every image loads. Where
//! no chromium is installed (`apt-get install chromium`; CI installs it)
//! the test says so and checks nothing.

mod common;

use std::process::Command;

use common::{crate_dir, lab, search_args};

/// Whether chromium is installed (saying so when it is not).
fn have_chromium() -> bool {
    let ok = Command::new("chromium").arg("--version").output().is_ok();
    if !ok {
        eprintln!("SKIPPED: no chromium on PATH (apt-get install chromium)");
    }
    ok
}

/// Asserts that `html` lays out at a wide and a narrow window.
fn lays_out(html: &std::path::Path) {
    let script = crate_dir().join("../../scripts/report-browser-check.sh");
    for width in ["1200", "700"] {
        let o = Command::new("bash")
            .arg(&script)
            .arg(html)
            .arg(width)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "at {width}px:\n{}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

#[test]
fn a_capacity_report_lays_out_in_a_browser() {
    if !have_chromium() {
        return;
    }
    let d = tempfile::tempdir().unwrap();
    let spec = crate_dir().join("../../studies/capacity/ycsb_a_1kb.toml");
    let bench = format!(
        "sh {}",
        crate_dir().join("tests/fake_capacity_bench.sh").display()
    );
    let args = search_args(
        "capacity",
        &spec,
        d.path(),
        &bench,
        &["--engines", "strata"],
    );
    lab(&args.iter().map(String::as_str).collect::<Vec<_>>());
    lays_out(&d.path().join("capacity-ycsb_a_1kb-quick/report.html"));
}

#[test]
fn the_tiny_report_lays_out_in_a_browser() {
    if !have_chromium() {
        return;
    }
    let (d, sdir) = common::tiny_report();
    let script = crate_dir().join("../../scripts/report-browser-check.sh");
    lays_out(&sdir.join("report.html"));
    // The check fails on what it is for: a block wider than the page.
    let wide = d.path().join("wide");
    std::fs::create_dir(&wide).unwrap();
    std::fs::write(
        wide.join("report.html"),
        "<!DOCTYPE html><html><body><div style=\"width:3000px\">wide</div></body></html>",
    )
    .unwrap();
    let o = Command::new("bash")
        .arg(&script)
        .arg(wide.join("report.html"))
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}
