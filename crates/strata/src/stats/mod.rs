//! Statistics: tickers (counters) and histograms with RocksDB's exact names,
//! printable in RocksDB's formats: the `STATISTICS:` dump, db_bench's
//! `--histogram` block, and the `rocksdb.stats` compaction/DB stats text.
//!
//! - [`Ticker`], [`Histogram`]: the names (RocksDB 7.8.3's lists, in dump
//!   order, plus a few newer names appended).
//! - [`HistogramImpl`]: RocksDB's bucketed histogram (single-threaded);
//!   `AtomicHistogram`: the thread-safe one.
//! - [`Statistics`]: the shared object the engine records into.
//! - `compaction_table`: the `rocksdb.stats` text formatter.
//! - `waf`: the two write-amplification definitions.
//!
//! See `docs/stats.md` for every name, its unit and what records it.

mod atomic_histogram;
mod buckets;
pub(crate) mod compaction_table;
mod histogram_impl;
mod histogram_kind;
pub(crate) mod human;
mod statistics;
mod ticker;
mod unit;
pub(crate) mod waf;

pub use buckets::BUCKET_LIMITS;
pub use histogram_impl::{HistogramData, HistogramImpl};
pub use histogram_kind::Histogram;
pub use statistics::Statistics;
pub use ticker::Ticker;
pub use unit::Unit;

#[cfg(test)]
mod tests {
    use super::{Histogram, Ticker, Unit};

    fn unit_label(u: Unit) -> &'static str {
        match u {
            Unit::Count => "count",
            Unit::Bytes => "bytes",
            Unit::Micros => "µs",
            Unit::Millis => "ms",
            Unit::Nanos => "ns",
        }
    }

    /// A doc comment on one line, single-spaced.
    fn one_line(d: &str) -> String {
        d.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    fn status(recorded: bool) -> &'static str {
        if recorded {
            "recorded"
        } else {
            "n/a in Strata (kept for dump compatibility)"
        }
    }

    /// The `### Tickers` and `### Histograms` tables of `docs/stats.md`,
    /// generated from the names, units and doc comments in the code.
    fn names_tables() -> String {
        type Row = (&'static str, Unit, &'static str, bool);
        let table = |title: &str, rows: Vec<Row>| {
            let mut out = format!(
                "### {title}\n\n| # | name | unit | what records it | status |\n|---|---|---|---|---|\n"
            );
            for (i, (name, unit, description, recorded)) in rows.into_iter().enumerate() {
                out += &format!(
                    "| {i} | `{name}` | {} | {} | {} |\n",
                    unit_label(unit),
                    one_line(description),
                    status(recorded)
                );
            }
            out
        };
        let tickers = Ticker::ALL
            .iter()
            .map(|t| (t.name(), t.unit(), t.description(), t.is_recorded()))
            .collect();
        let histograms = Histogram::ALL
            .iter()
            .map(|h| (h.name(), h.unit(), h.description(), h.is_recorded()))
            .collect();
        format!(
            "{}\n{}",
            table("Tickers", tickers),
            table("Histograms", histograms)
        )
    }

    /// `docs/stats.md` lists every ticker and histogram with what records
    /// it and whether Strata records it, exactly as the code says. After
    /// changing a doc comment, regenerate with
    /// `STRATA_BLESS=1 cargo test -p strata --lib docs_name_tables`.
    #[test]
    fn docs_name_tables_match_the_code() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/stats.md");
        let doc = std::fs::read_to_string(path).unwrap_or_default();
        assert!(!doc.is_empty(), "cannot read {path}");
        let start = doc.find("### Tickers\n").expect("no '### Tickers' section");
        let end = doc[start..]
            .find("\n## ")
            .map_or(doc.len(), |e| start + e + 1);
        let want = names_tables();
        if std::env::var_os("STRATA_BLESS").is_some() {
            let new = format!("{}{}{}", &doc[..start], want, &doc[end..]);
            std::fs::write(path, new).unwrap();
            return;
        }
        let have = &doc[start..end];
        if have != want {
            let first = have
                .lines()
                .zip(want.lines())
                .find(|(a, b)| a != b)
                .map(|(a, b)| format!("\n  docs: {a}\n  code: {b}"))
                .unwrap_or_default();
            panic!("docs/stats.md name tables differ from the code (rerun with STRATA_BLESS=1):{first}");
        }
    }

    /// Every statistic documented as recorded is recorded somewhere: its
    /// variant appears in the engine's non-test source outside the name
    /// lists, and not only where it is read back (`.ticker(…)`,
    /// `.histogram(…)`). (The bug this guards: 110 tickers and histograms
    /// were documented as recorded, and printed 0 in every dump, because
    /// nothing recorded them.)
    #[test]
    fn every_statistic_documented_as_recorded_is_recorded_somewhere() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/src");
        let mut src = String::new();
        let mut stack = vec![std::path::PathBuf::from(root)];
        while let Some(dir) = stack.pop() {
            for e in std::fs::read_dir(&dir).unwrap() {
                let p = e.unwrap().path();
                let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
                if p.is_dir() {
                    stack.push(p);
                } else if name.ends_with(".rs")
                    && !matches!(name, "tests.rs" | "testutil.rs")
                    && !p.ends_with("stats/ticker.rs")
                    && !p.ends_with("stats/histogram_kind.rs")
                    && !p.ends_with("stats/statistics.rs")
                {
                    let text = std::fs::read_to_string(&p).unwrap();
                    // Test modules sit at the end of a file (test-only
                    // helpers elsewhere are `#[cfg(test)]` items, not modules).
                    let code = text.split("#[cfg(test)]\nmod ").next().unwrap_or("");
                    src += code;
                    src.push('\n');
                }
            }
        }
        let used = |prefix: &str, variant: &str| {
            let pat = format!("{prefix}::{variant}");
            src.match_indices(&pat).any(|(i, _)| {
                let whole = !src[i + pat.len()..]
                    .chars()
                    .next()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_');
                let before = src[..i].trim_end();
                let read_back = before.ends_with(".ticker(")
                    || before.ends_with(".histogram(")
                    || before.ends_with(".histogram_data(");
                whole && !read_back
            })
        };
        let mut missing = Vec::new();
        for t in Ticker::ALL.iter().filter(|t| t.is_recorded()) {
            if !used("Ticker", &format!("{t:?}")) {
                missing.push(t.name());
            }
        }
        for h in Histogram::ALL.iter().filter(|h| h.is_recorded()) {
            if !used("Histogram", &format!("{h:?}")) {
                missing.push(h.name());
            }
        }
        assert!(
            missing.is_empty(),
            "documented as recorded but never recorded: {missing:?}"
        );
    }
}
