//! How the lab writes a number: precision by magnitude, thousands
//! separators; the format of every registered metric and of the figures in
//! statements, verdicts and charts.

/// Formats a number with sensible precision and thousands separators.
pub(crate) fn fmt_num(v: f64) -> String {
    if !v.is_finite() {
        return "n/a".into();
    }
    let a = v.abs();
    if a >= 1000.0 {
        let s = format!("{:.0}", v.abs());
        let mut out = String::new();
        for (i, c) in s.chars().enumerate() {
            if i > 0 && (s.len() - i) % 3 == 0 {
                out.push(',');
            }
            out.push(c);
        }
        if v < 0.0 {
            format!("-{out}")
        } else {
            out
        }
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else if a == 0.0 {
        "0".into()
    } else {
        format!("{v:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_numbers() {
        assert_eq!(fmt_num(1234567.4), "1,234,567");
        assert_eq!(fmt_num(12.345), "12.35");
        assert_eq!(fmt_num(0.01234), "0.012");
        assert_eq!(fmt_num(-2500.0), "-2,500");
    }
}
