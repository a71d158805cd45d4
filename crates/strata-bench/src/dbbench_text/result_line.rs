//! The result line of one benchmark:
//! `fillrandom   :      19.650 micros/op 50887 ops/sec 0.393 seconds 20000 operations;   50.5 MB/s`
//! (RocksDB and `strata bench`), `fillrandom   :       4.000 micros/op;   27.7 MB/s`
//! (LevelDB: no ops/sec, seconds or operations).

use serde::Serialize;

use super::number::num;
use crate::stats::Summary;

/// One parsed result line.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ResultLine {
    /// Benchmark name (`fillrandom`, `readrandom`, ...).
    pub name: String,
    /// Microseconds per operation (summed thread time / ops).
    pub micros_op: f64,
    /// Operations per second (wall time); 1e6 / micros/op when not printed.
    pub ops_sec: f64,
    /// Elapsed seconds, when printed.
    pub seconds: Option<f64>,
    /// Operation count, when printed.
    pub operations: Option<u64>,
    /// Throughput in MB/s, when printed.
    pub mb_sec: Option<f64>,
    /// `(X of Y found)` or `found:X` of `readrandomwriterandom`.
    pub found: Option<u64>,
    /// Reads attempted (`of Y` or `reads:R`).
    pub reads: Option<u64>,
    /// The text after the figures and the MB/s, e.g. `(1738 of 2000 found)`.
    pub message: String,
}

/// Parses a result line; `None` if `line` is not one.
pub fn parse_result_line(line: &str) -> Option<ResultLine> {
    let (name, rest) = line.split_once(" : ")?;
    let name = name.trim();
    if name.is_empty() || name.contains(' ') || !rest.contains("micros/op") {
        return None;
    }
    let (main, extra) = rest.split_once(';').unwrap_or((rest, ""));
    let t: Vec<&str> = main.split_whitespace().collect();
    let micros_op = num(t.first()?)?;
    if t.get(1) != Some(&"micros/op") {
        return None;
    }
    let before = |key: &str| -> Option<f64> {
        let i = t.iter().position(|x| *x == key)?;
        t.get(i.checked_sub(1)?).and_then(|v| num(v))
    };
    let ops_sec = before("ops/sec").unwrap_or(if micros_op > 0.0 {
        1e6 / micros_op
    } else {
        0.0
    });
    let mut b = ResultLine {
        name: name.to_string(),
        micros_op,
        ops_sec,
        seconds: before("seconds"),
        operations: before("operations").map(|v| v as u64),
        message: message(extra),
        ..Default::default()
    };
    let e: Vec<&str> = extra.split_whitespace().collect();
    if let Some(i) = e.iter().position(|x| *x == "MB/s") {
        b.mb_sec = i.checked_sub(1).and_then(|j| e.get(j)).and_then(|v| num(v));
    }
    // "(12941 of 20000 found)"
    if let Some(i) = e.iter().position(|x| *x == "of") {
        let found = i.checked_sub(1).and_then(|j| e.get(j));
        if let (Some(f), Some(total)) = (found, e.get(i + 1)) {
            b.found = num(f.trim_start_matches('(')).map(|v| v as u64);
            b.reads = num(total).map(|v| v as u64);
        }
    }
    // "( reads:19000 writes:1000 total:20000 found:11982)"
    for tok in &e {
        let tok = tok.trim_matches(|c| c == '(' || c == ')');
        if let Some(v) = tok.strip_prefix("found:") {
            b.found = num(v).map(|v| v as u64);
        } else if let Some(v) = tok.strip_prefix("reads:") {
            b.reads = num(v).map(|v| v as u64);
        }
    }
    Some(b)
}

/// The text after the `;`, without a leading `X MB/s`.
fn message(extra: &str) -> String {
    let trimmed = extra.trim();
    match trimmed.split_once(" MB/s") {
        Some((v, msg)) if v.trim().parse::<f64>().is_ok() => msg.trim().to_string(),
        _ => trimmed.to_string(),
    }
}

/// db_bench's result line (with its trailing newline):
/// `%-12s : %11.3f micros/op %ld ops/sec %.3f seconds %lu operations;%s%s`.
pub fn format_result_line(name: &str, s: &Summary) -> String {
    let mut extra = s
        .mb_per_sec
        .map(|mb| format!("{mb:6.1} MB/s"))
        .unwrap_or_default();
    if !s.message.is_empty() {
        if !extra.is_empty() {
            extra.push(' ');
        }
        extra.push_str(&s.message);
    }
    format!(
        "{:<12} : {:11.3} micros/op {} ops/sec {:.3} seconds {} operations;{}{}\n",
        name,
        s.micros_per_op,
        s.ops_per_sec as i64,
        s.elapsed,
        s.ops,
        if extra.is_empty() { "" } else { " " },
        extra
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(mb: Option<f64>, msg: &str) -> Summary {
        Summary {
            micros_per_op: 7.83,
            ops_per_sec: 127437.9,
            elapsed: 0.0157,
            ops: 2000,
            mb_per_sec: mb,
            message: msg.into(),
        }
    }

    #[test]
    fn result_line_golden_shapes() {
        assert_eq!(
            format_result_line("fillseq", &summary(Some(14.1), "")),
            "fillseq      :       7.830 micros/op 127437 ops/sec 0.016 seconds 2000 operations;   14.1 MB/s\n"
        );
        assert_eq!(
            format_result_line("deleterandom", &summary(None, "")),
            "deleterandom :       7.830 micros/op 127437 ops/sec 0.016 seconds 2000 operations;\n"
        );
        assert_eq!(
            format_result_line("readmissing", &summary(None, "(0 of 2000 found)\n")),
            "readmissing  :       7.830 micros/op 127437 ops/sec 0.016 seconds 2000 operations; (0 of 2000 found)\n\n"
        );
        assert_eq!(
            format_result_line("readrandomwriterandom", &summary(None, "( reads:1800 writes:200 total:2000 found:650)")),
            "readrandomwriterandom :       7.830 micros/op 127437 ops/sec 0.016 seconds 2000 operations; ( reads:1800 writes:200 total:2000 found:650)\n"
        );
    }

    /// What `format_result_line` writes reads back as the same figures
    /// (to the printed precision).
    #[test]
    fn written_lines_read_back() {
        for (mb, msg) in [
            (Some(14.1), ""),
            (None, ""),
            (Some(79.5), "(1738 of 2000 found)"),
            (None, "( reads:1800 writes:200 total:2000 found:650)"),
            (None, "(3 ops)"),
        ] {
            let s = summary(mb, msg);
            let line = format_result_line("readrandom", &s);
            let r = parse_result_line(line.trim_end()).expect("a result line");
            assert_eq!(r.name, "readrandom");
            assert_eq!(r.micros_op, 7.83);
            assert_eq!(r.ops_sec, 127437.0);
            assert_eq!(r.seconds, Some(0.016));
            assert_eq!(r.operations, Some(2000));
            assert_eq!(r.mb_sec, mb);
            assert_eq!(r.message, msg);
        }
    }

    #[test]
    fn parses_fillrandom_line() {
        let b = parse_result_line(
            "fillrandom   :      19.650 micros/op 50887 ops/sec 0.393 seconds 20000 operations;   50.5 MB/s",
        )
        .unwrap();
        assert_eq!(b.name, "fillrandom");
        assert_eq!(b.micros_op, 19.65);
        assert_eq!(b.ops_sec, 50887.0);
        assert_eq!(b.seconds, Some(0.393));
        assert_eq!(b.operations, Some(20000));
        assert_eq!(b.mb_sec, Some(50.5));
        assert_eq!(b.found, None);
        assert_eq!(b.message, "");
    }

    #[test]
    fn parses_found_messages() {
        let b = parse_result_line("readrandom   :       7.159 micros/op 139616 ops/sec 0.143 seconds 20000 operations;   89.6 MB/s (12941 of 20000 found)").unwrap();
        assert_eq!((b.found, b.reads), (Some(12941), Some(20000)));
        assert_eq!(b.message, "(12941 of 20000 found)");
        let b = parse_result_line("readrandomwriterandom :       5.359 micros/op 186565 ops/sec 0.107 seconds 20000 operations; ( reads:19000 writes:1000 total:20000 found:11982)").unwrap();
        assert_eq!((b.found, b.reads), (Some(11982), Some(19000)));
        assert_eq!(b.mb_sec, None);
        // LevelDB style: no ops/sec, derived from micros/op.
        let b = parse_result_line("fillseq      :      10.000 micros/op;  172.9 MB/s").unwrap();
        assert_eq!(b.ops_sec, 100000.0);
        assert_eq!((b.seconds, b.operations), (None, None));
        assert_eq!(b.mb_sec, Some(172.9));
        assert_eq!(b.message, "");
    }

    #[test]
    fn rejects_non_result_lines() {
        assert!(parse_result_line("Keys:       16 bytes each").is_none());
        assert!(parse_result_line("fillseq      : skipped (--use_existing_db is true)").is_none());
        assert!(parse_result_line("x : y micros/op").is_none());
        assert!(parse_result_line("x : 1 ops/sec micros/op").is_none());
        assert!(parse_result_line("two words : 1 micros/op").is_none());
    }
}
