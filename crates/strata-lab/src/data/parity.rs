//! Statistics parity: which of RocksDB's statistics two runs of the same
//! benchmark command fill (typically `--engine=strata` against
//! `--engine=rocksdb`), read from their `STATISTICS:` dumps: what one
//! counts and the other leaves at 0 or does not print, and what both count
//! but more than a factor apart. Tickers compare by their count,
//! histograms by their sample count. `strata lab parity A B` prints it.

use std::collections::BTreeMap;
use std::fmt::Write;

use strata_bench::dbbench_text::BenchOutput;

/// Each statistic's count: tickers by name, histograms as
/// `NAME (histogram)` by their sample count.
pub(crate) fn counts(o: &BenchOutput) -> BTreeMap<String, u64> {
    let mut out: BTreeMap<String, u64> = o.tickers.clone();
    for (k, h) in &o.stat_histograms {
        out.insert(format!("{k} (histogram)"), h.count);
    }
    out
}

/// The parity report of run `a` (named `a_name`) against run `b`, with
/// counts more than `factor` apart listed; an error when either run has
/// no statistics.
pub(crate) fn report(
    (a_name, a): (&str, &BenchOutput),
    (b_name, b): (&str, &BenchOutput),
    factor: f64,
) -> Result<String, String> {
    let (s, r) = (counts(a), counts(b));
    for (name, c) in [(a_name, &s), (b_name, &r)] {
        if c.is_empty() {
            return Err(format!(
                "{name}: no STATISTICS dump found (run with --statistics=1)"
            ));
        }
    }
    let get = |m: &BTreeMap<String, u64>, k: &str| m.get(k).copied().unwrap_or(0);
    let mut out = format!(
        "{} statistics in {a_name}, {} in {b_name}\n",
        s.len(),
        r.len()
    );
    let only = |x: &BTreeMap<String, u64>, y: &BTreeMap<String, u64>| -> Vec<String> {
        x.iter()
            .filter(|(k, v)| **v > 0 && get(y, k) == 0)
            .map(|(k, _)| k.clone())
            .collect()
    };
    for (title, keys) in [
        (format!("{b_name} counts, {a_name} does not"), only(&r, &s)),
        (format!("{a_name} counts, {b_name} does not"), only(&s, &r)),
    ] {
        let _ = writeln!(out, "\n{title} ({}):", keys.len());
        for k in keys {
            let note = if s.contains_key(&k) && r.contains_key(&k) {
                ""
            } else {
                "  (not printed by the other)"
            };
            let _ = writeln!(out, "  {k}: {} vs {}{note}", get(&s, &k), get(&r, &k));
        }
    }
    let both: Vec<&String> = s
        .keys()
        .filter(|k| get(&s, k) > 0 && get(&r, k) > 0)
        .collect();
    let apart: Vec<&&String> = both
        .iter()
        .filter(|k| {
            let (x, y) = (get(&s, k) as f64, get(&r, k) as f64);
            x.max(y) > factor * x.min(y)
        })
        .collect();
    let _ = writeln!(
        out,
        "\nBoth count ({}); more than {factor}x apart ({}):",
        both.len(),
        apart.len()
    );
    for k in apart {
        let (x, y) = (get(&s, k), get(&r, k));
        let _ = writeln!(
            out,
            "  {k}: {a_name} {x}, {b_name} {y} ({:.2}x)",
            x as f64 / y as f64
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata_bench::dbbench_text::parse_output;

    fn run(stats: &str) -> BenchOutput {
        parse_output(&format!("STATISTICS:\n{stats}"), "")
    }

    #[test]
    fn parity_lists_one_sided_and_far_apart_counts() {
        let a = run("rocksdb.block.cache.hit COUNT : 10\n\
                     rocksdb.number.superversion_acquires COUNT : 50002\n\
                     rocksdb.bloom.filter.useful COUNT : 0\n\
                     rocksdb.db.get.micros P50 : 1.0 P95 : 2.0 P99 : 3.0 P100 : 4.0 COUNT : 7 SUM : 20\n");
        let b = run("rocksdb.block.cache.hit COUNT : 12\n\
                     rocksdb.number.superversion_acquires COUNT : 4\n\
                     rocksdb.bloom.filter.useful COUNT : 9\n\
                     rocksdb.bytes.compressed.from COUNT : 5\n");
        let t = report(("Strata", &a), ("RocksDB", &b), 2.0).unwrap();
        assert!(
            t.starts_with("4 statistics in Strata, 4 in RocksDB\n"),
            "{t}"
        );
        assert!(
            t.contains("RocksDB counts, Strata does not (2):\n  rocksdb.bloom.filter.useful: 0 vs 9\n  rocksdb.bytes.compressed.from: 0 vs 5  (not printed by the other)\n"),
            "{t}"
        );
        assert!(
            t.contains("Strata counts, RocksDB does not (1):\n  rocksdb.db.get.micros (histogram): 7 vs 0  (not printed by the other)\n"),
            "{t}"
        );
        assert!(
            t.contains("Both count (2); more than 2x apart (1):\n  rocksdb.number.superversion_acquires: Strata 50002, RocksDB 4 (12500.50x)\n"),
            "{t}"
        );
        let none = parse_output("fillseq : 1.0 micros/op;\n", "");
        assert!(report(("a", &none), ("b", &b), 2.0)
            .unwrap_err()
            .contains("no STATISTICS"));
    }
}
