//! The tiny study's report, rendered in a real browser (headless Chromium,
//! `scripts/report-browser-check.sh`): nothing reaches past the page's
//! right edge, at a wide and a narrow window, and every image loads. Where
//! no chromium is installed (`apt-get install chromium`; CI installs it)
//! the test says so and checks nothing.

mod common;

use std::process::Command;

use common::crate_dir;

#[test]
fn the_tiny_report_lays_out_in_a_browser() {
    if Command::new("chromium").arg("--version").output().is_err() {
        eprintln!("SKIPPED: no chromium on PATH (apt-get install chromium)");
        return;
    }
    let (d, sdir) = common::tiny_report();
    let script = crate_dir().join("../../scripts/report-browser-check.sh");
    for width in ["1200", "700"] {
        let o = Command::new("bash")
            .arg(&script)
            .arg(sdir.join("report.html"))
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
