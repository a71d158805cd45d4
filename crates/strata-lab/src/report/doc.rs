//! A tiny document model rendered to both Markdown and self-contained HTML.

use std::path::Path;

/// A block of a report.
#[derive(Clone, Debug)]
pub(crate) enum Block {
    /// Heading (level, text).
    H(u8, String),
    /// Paragraph.
    P(String),
    /// Bullet list.
    List(Vec<String>),
    /// Table (header, rows).
    Table(Vec<String>, Vec<Vec<String>>),
    /// Chart by file stem under `charts/` and its title.
    Chart(String, String),
    /// One line per published claim, with a verdict badge per engine.
    Claims(Vec<ClaimLine>),
    /// Blocks shown collapsed under a one-line summary.
    Details(String, Vec<Block>),
}

/// A published claim and its verdict on each engine, as the report's first
/// screen lists it.
#[derive(Clone, Debug)]
pub(crate) struct ClaimLine {
    /// The finding's id (the anchor of its rows in the verdicts table).
    pub id: String,
    /// The claim in words.
    pub claim: String,
    /// The published figures.
    pub published: String,
    /// The published ratio with its name as the verdict writes it
    /// (`none/bloom64`, 1.042), when the finding gives one.
    pub published_ratio: Option<(String, f64)>,
    /// The chart the claim's metric is drawn in (file stem under `charts/`).
    pub chart: Option<String>,
    /// The file of the rows the claim reads, relative to the report.
    pub rows: Option<String>,
    /// The verdict on each engine.
    pub engines: Vec<ClaimVerdict>,
}

/// A claim's verdict on one engine, as its line shows it.
#[derive(Clone, Debug)]
pub(crate) struct ClaimVerdict {
    /// The engine.
    pub engine: String,
    /// The verdict.
    pub verdict: crate::judge::verdict::Verdict,
    /// Why, in one clause.
    pub why: String,
    /// The measured pooled ratio with its interval (`1.024 [0.890, 1.179]`).
    pub measured: Option<String>,
    /// The measured ratio's name (`bloom64/none`).
    pub measured_label: Option<String>,
}

impl ClaimLine {
    /// "published none/bloom64 1.042 · measured 1.024 [0.890, 1.179]" for
    /// engine `v` when the claim has a published ratio; "measured
    /// bloom64/none 11.2 [10.9, 11.5]" when only the run gives one.
    fn ratios(&self, v: &ClaimVerdict) -> Option<String> {
        match (&self.published_ratio, &v.measured, &v.measured_label) {
            (Some((label, r)), m, _) => Some(format!(
                "published {label} {r} · measured {}",
                m.as_deref().unwrap_or("n/a")
            )),
            (None, Some(m), Some(label)) => Some(format!("measured {label} {m}")),
            _ => None,
        }
    }
}

/// The CSS class of a verdict's badge.
fn badge_class(v: crate::judge::verdict::Verdict) -> &'static str {
    use crate::judge::verdict::Verdict::*;
    match v {
        Reproduced | LargerThanPublished => "v-yes",
        NotReproduced | Reversed => "v-no",
        Inconclusive => "v-open",
        DirectionOnly => "v-dir",
        NotTestable | NoData => "v-none",
    }
}

/// Whether a table cell is a figure (right-aligned) rather than prose.
fn is_figure(c: &str) -> bool {
    let c = c.trim().trim_start_matches(['-', '+', '~', '†']);
    c.chars().next().is_some_and(|ch| ch.is_ascii_digit())
        && c.split_whitespace().count() <= 4
        && c.len() <= 40
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Escaped text with Markdown's inline code (`x`) as `<code>x</code>`; an
/// unpaired backtick stays as it is.
fn prose(s: &str) -> String {
    let e = esc(s);
    let parts: Vec<&str> = e.split('`').collect();
    if parts.len().is_multiple_of(2) {
        return e;
    }
    parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            if i % 2 == 1 {
                format!("<code>{p}</code>")
            } else {
                (*p).to_string()
            }
        })
        .collect()
}

/// Markdown rendering; charts link the SVG files.
pub(crate) fn markdown(blocks: &[Block]) -> String {
    let mut o = String::new();
    for b in blocks {
        match b {
            // GitHub renders `<details>` collapsed, with the Markdown inside
            // it (blank lines around it).
            Block::Details(summary, inner) => o.push_str(&format!(
                "<details><summary>{}</summary>\n\n{}</details>\n\n",
                esc(summary),
                markdown(inner)
            )),
            Block::H(l, t) => o.push_str(&format!("{} {t}\n\n", "#".repeat(*l as usize))),
            Block::P(t) => o.push_str(&format!("{t}\n\n")),
            Block::List(items) => {
                for i in items {
                    o.push_str(&format!("- {i}\n"));
                }
                o.push('\n');
            }
            Block::Table(h, rows) => {
                o.push_str(&format!("| {} |\n", h.join(" | ")));
                o.push_str(&format!("|{}\n", "---|".repeat(h.len())));
                for r in rows {
                    o.push_str(&format!("| {} |\n", r.join(" | ")));
                }
                o.push('\n');
            }
            Block::Chart(id, t) => o.push_str(&format!("![{t}](charts/{id}.svg)\n\n")),
            Block::Claims(lines) => {
                for l in lines {
                    let verdicts: Vec<String> = l
                        .engines
                        .iter()
                        .map(|v| match l.ratios(v) {
                            Some(r) => {
                                format!("{} **{}** ({r}; {})", v.engine, v.verdict.word(), v.why)
                            }
                            None => format!("{} **{}** ({})", v.engine, v.verdict.word(), v.why),
                        })
                        .collect();
                    let mut links = Vec::new();
                    if let Some(c) = &l.chart {
                        links.push(format!("[chart](charts/{c}.svg)"));
                    }
                    if let Some(r) = &l.rows {
                        links.push(format!("[rows]({r})"));
                    }
                    let links = if links.is_empty() {
                        String::new()
                    } else {
                        format!("; {}", links.join(", "))
                    };
                    o.push_str(&format!(
                        "- **{}** (`{}`; published: {}{links}): {}\n",
                        l.claim,
                        l.id,
                        l.published,
                        verdicts.join("; ")
                    ));
                }
                o.push('\n');
            }
        }
    }
    o
}

/// Self-contained HTML; charts are inlined SVG read from `dir/charts/`.
pub(crate) fn html(title: &str, blocks: &[Block], dir: &Path) -> String {
    let mut o = format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{}</title><style>\
body{{font-family:sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}}\
table{{border-collapse:collapse;font-size:13px;margin:1em 0;max-width:100%}}td,th{{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top}}td.num{{text-align:right;white-space:nowrap}}\
th{{background:#eee}}.tbl{{overflow-x:auto;max-width:100%}}code{{font-size:90%}}.charts{{display:flex;flex-wrap:wrap;gap:8px}}.chart svg,.dashboard svg{{width:100%;height:auto}}.chart{{width:540px;max-width:100%}}\
ul.claims{{list-style:none;padding-left:0}}ul.claims li{{margin:.6em 0;line-height:1.5}}.pub{{color:#555;font-size:90%}}\
.badge{{display:inline-block;border-radius:3px;padding:0 6px;margin:0 4px 0 8px;font-size:85%;font-weight:bold;border:1px solid}}\
.v-yes{{background:#e3f4e3;color:#14601a;border-color:#14601a}}.v-no{{background:#fbe4e4;color:#8a1414;border-color:#8a1414}}\
.v-open{{background:#fff4d6;color:#6b4e00;border-color:#6b4e00}}.v-dir{{background:#eef6e0;color:#3d5a00;border-color:#3d5a00;border-style:dashed}}.v-none{{background:#eee;color:#444;border-color:#777}}.why{{color:#333;font-size:90%}}.ratio{{font-size:90%}}\
</style></head><body>\n",
        esc(title)
    );
    html_blocks(blocks, dir, &mut o);
    o.push_str("</body></html>\n");
    o
}

/// The HTML of `blocks`, appended to `o`; charts are read from `dir/charts/`.
fn html_blocks(blocks: &[Block], dir: &Path, o: &mut String) {
    let mut in_charts = false;
    for b in blocks {
        let is_chart = matches!(b, Block::Chart(..));
        if is_chart && !in_charts {
            o.push_str("<div class=\"charts\">\n");
            in_charts = true;
        } else if !is_chart && in_charts {
            o.push_str("</div>\n");
            in_charts = false;
        }
        match b {
            Block::H(l, t) => o.push_str(&format!("<h{l}>{}</h{l}>\n", esc(t))),
            Block::P(t) => o.push_str(&format!("<p>{}</p>\n", prose(t))),
            Block::Details(summary, inner) => {
                o.push_str(&format!("<details><summary>{}</summary>\n", esc(summary)));
                html_blocks(inner, dir, o);
                o.push_str("</details>\n");
            }
            Block::List(items) => {
                o.push_str("<ul>\n");
                for i in items {
                    o.push_str(&format!("<li>{}</li>\n", prose(i)));
                }
                o.push_str("</ul>\n");
            }
            Block::Table(h, rows) => {
                // A table wider than the page scrolls in its own box.
                o.push_str("<div class=\"tbl\"><table><tr>");
                for c in h {
                    o.push_str(&format!("<th>{}</th>", esc(c)));
                }
                o.push_str("</tr>\n");
                for r in rows {
                    o.push_str("<tr>");
                    for c in r {
                        let class = if is_figure(c) { " class=\"num\"" } else { "" };
                        o.push_str(&format!("<td{class}>{}</td>", prose(c)));
                    }
                    o.push_str("</tr>\n");
                }
                o.push_str("</table></div>\n");
            }
            Block::Claims(lines) => {
                o.push_str("<ul class=\"claims\">\n");
                for l in lines {
                    let mut links = Vec::new();
                    if let Some(c) = &l.chart {
                        links.push(format!("<a href=\"#chart-{}\">chart</a>", esc(c)));
                    }
                    if let Some(r) = &l.rows {
                        links.push(format!("<a href=\"{}\">rows</a>", esc(r)));
                    }
                    let links = if links.is_empty() {
                        String::new()
                    } else {
                        format!("; {}", links.join(", "))
                    };
                    o.push_str(&format!(
                        "<li><b>{}</b> <span class=\"pub\">(<code>{}</code>; published: {}{links})</span>",
                        esc(&l.claim),
                        esc(&l.id),
                        esc(&l.published)
                    ));
                    for v in &l.engines {
                        let ratios = l
                            .ratios(v)
                            .map(|r| format!(" <span class=\"ratio\">{};</span>", esc(&r)))
                            .unwrap_or_default();
                        o.push_str(&format!(
                            "<br><span class=\"badge {}\">{}</span>{}{ratios} <span class=\"why\">{}</span>",
                            badge_class(v.verdict),
                            esc(v.verdict.word()),
                            esc(&v.engine),
                            prose(&v.why)
                        ));
                    }
                    o.push_str("</li>\n");
                }
                o.push_str("</ul>\n");
            }
            Block::Chart(id, _) => {
                let svg = std::fs::read_to_string(dir.join("charts").join(format!("{id}.svg")))
                    .unwrap_or_default();
                // The dashboard spans the page, outside the row of charts.
                let (before, class, after) = if id == "dashboard" {
                    ("</div>", "dashboard", "<div class=\"charts\">")
                } else {
                    ("", "chart", "")
                };
                o.push_str(&format!(
                    "{before}<div class=\"{class}\" id=\"chart-{}\">{svg}</div>{after}\n",
                    esc(id)
                ));
            }
        }
    }
    if in_charts {
        o.push_str("</div>\n");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_code_becomes_code_elements() {
        assert_eq!(prose("a `b<c>` d"), "a <code>b&lt;c&gt;</code> d");
        assert_eq!(prose("one ` tick"), "one ` tick");
    }

    #[test]
    fn renders_both_formats() {
        let b = vec![
            Block::H(1, "T<1>".into()),
            Block::Table(
                vec!["a".into(), "b".into()],
                vec![vec!["1".into(), "it lacks `--x`".into()]],
            ),
            Block::List(vec!["x".into()]),
        ];
        let m = markdown(&b);
        assert!(
            m.contains("# T<1>") && m.contains("| a | b |\n|---|---|\n| 1 |") && m.contains("- x")
        );
        let h = html("t", &b, Path::new("/nonexistent"));
        assert!(h.contains("<h1>T&lt;1&gt;</h1>") && h.contains("<td class=\"num\">1</td>"));
        // Inline code in a cell is code in HTML too, as Markdown shows it.
        assert!(h.contains("it lacks <code>--x</code></td>"), "{h}");
    }

    #[test]
    fn charts_are_svg_files_in_markdown_and_inline_in_html() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("charts")).unwrap();
        for id in ["dashboard", "ops"] {
            std::fs::write(
                d.path().join("charts").join(format!("{id}.svg")),
                format!("<svg>{id} drawn</svg>"),
            )
            .unwrap();
        }
        let b = vec![
            Block::Chart("dashboard".into(), "all".into()),
            Block::Chart("ops".into(), "throughput".into()),
        ];
        let m = markdown(&b);
        assert!(m.contains("![all](charts/dashboard.svg)"), "{m}");
        assert!(m.contains("![throughput](charts/ops.svg)"), "{m}");
        let h = html("t", &b, d.path());
        assert!(
            h.contains(
                "<div class=\"dashboard\" id=\"chart-dashboard\"><svg>dashboard drawn</svg></div>"
            ),
            "{h}"
        );
        assert!(
            h.contains("<div class=\"chart\" id=\"chart-ops\"><svg>ops drawn</svg></div>"),
            "{h}"
        );
        assert!(
            !h.contains("data:image"),
            "nothing embedded as a bitmap: {h}"
        );
        // The dashboard stands outside the row of charts; the others in it.
        let dash = h.find("chart-dashboard").unwrap();
        let row = h.rfind("<div class=\"charts\">").unwrap();
        assert!(row > dash, "{h}");
        assert_eq!(
            h.matches("<div").count(),
            h.matches("</div>").count(),
            "{h}"
        );
    }
}
