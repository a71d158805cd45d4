//! The `strata` command's own help: the overview of its subcommands
//! (`strata`, `strata --help`, `strata help`), and the nearest known name to
//! a mistyped subcommand or option.

/// Each subcommand of `strata` and what it does, in one line.
pub const SUBCOMMANDS: &[(&str, &str)] = &[
    (
        "bench",
        "db_bench-compatible benchmark on Strata, LevelDB, fjall or RocksDB",
    ),
    (
        "lab",
        "Run tuning studies end to end and report on them; compare runs, tune options",
    ),
    (
        "inspect",
        "Read-only dumps of a DB's files (SST, WAL, MANIFEST, blob, LOG), checksum checks",
    ),
    (
        "stress",
        "Randomized load checked against an expected state; --crash-test: kill, reopen, check",
    ),
    (
        "completions",
        "Print a shell completion script (bash, zsh, fish, elvish, powershell)",
    ),
    (
        "help",
        "Print this overview, or a subcommand's help (`strata help lab`)",
    ),
];

/// The options `strata` itself takes (before any subcommand).
pub const OPTIONS: &[&str] = &["-h", "--help", "-V", "--version"];

/// The overview: what `strata` is, its subcommands, options, examples and
/// where the documentation is.
pub fn overview() -> String {
    let width = SUBCOMMANDS.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
    let mut s = String::from(
        "strata: the tools of the Strata LSM-tree storage engine: a db_bench-compatible\n\
         benchmark, a lab for tuning studies, a DB file inspector and a stress test\n\
         \n\
         Usage: strata <SUBCOMMAND> [ARGS]...\n\
         \x20      strata help <SUBCOMMAND>\n\
         \n\
         Subcommands:\n",
    );
    for (name, summary) in SUBCOMMANDS {
        s.push_str(&format!("  {name:<width$}  {summary}\n"));
    }
    s.push_str(
        "\n\
         Options:\n\
         \x20 -h, --help     Print this overview\n\
         \x20 -V, --version  Print the version and how the binary was built\n\
         \n\
         Examples:\n\
         \x20 # Reproduce study 2 (bloom filter on the write path) on Strata, LevelDB and fjall, quick scale\n\
         \x20 strata lab run bloom --scale quick --engines strata,leveldb,fjall\n\
         \x20 # The tests, from the source tree (what CI runs, after fmt and clippy)\n\
         \x20 cargo test --workspace\n\
         \n\
         Documentation (in the source tree):\n\
         \x20 docs/README.md        index of all the documentation\n\
         \x20 docs/strata-bench.md  strata bench\n\
         \x20 docs/lab.md           strata lab\n\
         \x20 docs/inspect.md       strata inspect\n\
         \x20 docs/stress.md        strata stress\n",
    );
    s
}

/// The candidate closest to `word` by edit distance, if it is close enough
/// to be a plausible typo: at most a third of the candidate's length (and at
/// least 1) edits away, or `word` a prefix of it of at least 2 characters.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (edit_distance(word, c), c))
        .filter(|&(d, c)| {
            d <= (c.chars().count() / 3).max(1) || (word.len() >= 2 && c.starts_with(word))
        })
        .min_by_key(|&(d, _)| d)
        .map(|(_, c)| c)
}

/// The number of single-character insertions, deletions, substitutions and
/// swaps of two neighbours that turn `a` into `b` (the optimal string
/// alignment distance: `lba` is one edit from `lab`).
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // d[i][j]: the distance between a[..i] and b[..j].
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j - 1] + cost)
                .min(d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> impl Iterator<Item = &'static str> {
        SUBCOMMANDS.iter().map(|(n, _)| *n)
    }

    #[test]
    fn distances() {
        assert_eq!(edit_distance("", "lab"), 3);
        assert_eq!(edit_distance("lab", "lab"), 0);
        assert_eq!(edit_distance("lba", "lab"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn typos_find_their_subcommand() {
        assert_eq!(closest("lba", names()), Some("lab"));
        assert_eq!(closest("labs", names()), Some("lab"));
        assert_eq!(closest("benhc", names()), Some("bench"));
        assert_eq!(closest("stres", names()), Some("stress"));
        assert_eq!(closest("inspcet", names()), Some("inspect"));
        assert_eq!(closest("ins", names()), Some("inspect"));
        assert_eq!(closest("completion", names()), Some("completions"));
        assert_eq!(
            closest("--verison", OPTIONS.iter().copied()),
            Some("--version")
        );
    }

    #[test]
    fn unrelated_words_find_nothing() {
        assert_eq!(closest("bogus", names()), None);
        assert_eq!(closest("x", names()), None);
        assert_eq!(closest("compact", names()), None);
    }

    #[test]
    fn overview_lists_every_subcommand() {
        let o = overview();
        for name in names() {
            assert!(o.contains(&format!("\n  {name} ")), "{name}");
        }
    }
}
