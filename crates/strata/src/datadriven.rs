//! The runner of the crate's data-driven tests, in the form of
//! cockroachdb/datadriven (as Pebble's `testdata/` files): a file under
//! `testdata/` holds cases, each a command line, its input lines, a line
//! `----` and the expected output up to the next blank line. Lines starting
//! with `#` between cases are comments and are kept.
//!
//! After a deliberate change of what a file tests, rewrite its expected
//! outputs with `STRATA_UPDATE_GOLDEN=1` (the variable the other golden
//! tests of the workspace read too) and review the diff of the file.

use std::path::PathBuf;

/// One case: its command line, input lines and expected output lines.
pub(crate) struct Case {
    /// 1-based line number of the command.
    pub line: usize,
    pub command: String,
    pub input: Vec<String>,
    pub expected: Vec<String>,
}

/// A part of a data file: a line outside any case, or a case.
enum Chunk {
    Text(String),
    Case(Case),
}

/// Runs every case of `testdata/<parts...>` through `run`, which gets the
/// case and its place (`name:line`, for messages) and returns the output.
/// Fails listing every case whose output differs; with
/// `STRATA_UPDATE_GOLDEN` set, rewrites the file with the outputs instead.
pub(crate) fn run_file(parts: &[&str], mut run: impl FnMut(&Case, &str) -> String) {
    let mut path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "testdata"].iter().collect();
    path.extend(parts);
    let name = parts.join("/");
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let mut out = String::new();
    let mut mismatches = Vec::new();
    let mut cases = 0;
    for chunk in parse(&text, &name) {
        match chunk {
            Chunk::Text(line) => {
                out.push_str(&line);
                out.push('\n');
            }
            Chunk::Case(case) => {
                cases += 1;
                let got = run(&case, &format!("{name}:{}", case.line));
                out.push_str(&case.command);
                out.push('\n');
                for line in &case.input {
                    out.push_str(line);
                    out.push('\n');
                }
                out.push_str("----\n");
                for line in got.lines() {
                    out.push_str(line);
                    out.push('\n');
                }
                let want = case.expected.join("\n");
                if got.trim_end() != want {
                    mismatches.push(format!(
                        "{name}:{}: {}\n--- expected\n{want}\n--- got\n{got}",
                        case.line, case.command
                    ));
                }
            }
        }
    }
    assert!(cases > 0, "{name} holds no cases");
    if std::env::var_os("STRATA_UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, out).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
        return;
    }
    assert!(
        mismatches.is_empty(),
        "{} of {cases} cases of {name} differ (STRATA_UPDATE_GOLDEN=1 rewrites the file):\n\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

fn parse(text: &str, name: &str) -> Vec<Chunk> {
    let mut chunks = Vec::new();
    let mut lines = text.lines().enumerate().peekable();
    while let Some((n, line)) = lines.next() {
        if line.trim().is_empty() || line.starts_with('#') {
            chunks.push(Chunk::Text(line.to_string()));
            continue;
        }
        let mut case = Case {
            line: n + 1,
            command: line.to_string(),
            input: Vec::new(),
            expected: Vec::new(),
        };
        loop {
            let Some((_, l)) = lines.next() else {
                panic!("{name}:{}: no line ---- after the command", n + 1);
            };
            if l == "----" {
                break;
            }
            case.input.push(l.to_string());
        }
        while let Some((_, l)) = lines.next_if(|(_, l)| !l.trim().is_empty()) {
            case.expected.push(l.to_string());
        }
        chunks.push(Chunk::Case(case));
    }
    chunks
}
