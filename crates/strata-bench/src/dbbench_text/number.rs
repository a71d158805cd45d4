//! Number cells as db_bench prints them.

/// A number, with a trailing `,` (a list separator) ignored.
pub(crate) fn num(s: &str) -> Option<f64> {
    s.trim().trim_end_matches(',').parse::<f64>().ok()
}

/// The token after `key` in a whitespace-split line.
pub(crate) fn after<'a>(tokens: &[&'a str], key: &str) -> Option<&'a str> {
    let i = tokens.iter().position(|t| *t == key)?;
    tokens.get(i + 1).copied()
}

/// The number of `KEY : value` in a token list.
pub(crate) fn field(tokens: &[&str], key: &str) -> Option<f64> {
    let i = tokens.iter().position(|x| *x == key)?;
    if tokens.get(i + 1) != Some(&":") {
        return None;
    }
    tokens.get(i + 2).and_then(|v| num(v))
}

/// A count with RocksDB's `K`/`M`/`G` abbreviation (`75K`, `1.2M`), or
/// the first part of `34/15`.
pub(crate) fn count(v: &str) -> Option<f64> {
    let v = v.split('/').next()?;
    if let Some(x) = v.strip_suffix('K') {
        return num(x).map(|x| x * 1e3);
    }
    if let Some(x) = v.strip_suffix('M') {
        return num(x).map(|x| x * 1e6);
    }
    if let Some(x) = v.strip_suffix('G') {
        return num(x).map(|x| x * 1e9);
    }
    num(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_counts() {
        assert_eq!(num(" 4.5,"), Some(4.5));
        assert_eq!(num("x"), None);
        assert_eq!(count("75K"), Some(75_000.0));
        assert_eq!(count("1.5M"), Some(1_500_000.0));
        assert_eq!(count("2G"), Some(2e9));
        assert_eq!(count("34/15"), Some(34.0));
        let t = ["a", "P50", ":", "3.5", "Count:", "7"];
        assert_eq!(field(&t, "P50"), Some(3.5));
        assert_eq!(field(&t, "Count:"), None);
        assert_eq!(after(&t, "Count:"), Some("7"));
    }
}
