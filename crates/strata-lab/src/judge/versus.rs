//! Strata against another engine (RocksDB, LevelDB, fjall): per step,
//! cell and metric, the ratio of the two engines' medians and whether the
//! repeats support a difference (two-sided Mann-Whitney U test). The
//! report's sections built from it are `report::versus`.
//!
//! On a noisy machine a ratio of medians of three repeats says little: a
//! compaction that ends just before or just after a flush moves one run's WAF
//! by 30%. The test asks whether the two engines' repeats are drawn from the
//! same distribution; below 4 repeats per engine it cannot reach p < 0.05 at
//! all, so the table then shows ratios only and says so.

use std::collections::BTreeMap;

use crate::data::aggregate::values;
use crate::data::metrics::{higher_is_better, judged};
use crate::data::results::ResultRow;
use crate::data::stats::mann_whitney_p;

/// Repeats each engine needs before the test is run.
pub(crate) const MIN_REPEATS: usize = 4;

/// Significance level.
pub(crate) const ALPHA: f64 = 0.05;

/// The outcome for one (step, cell, metric).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Versus {
    /// Strata's median / RocksDB's median.
    pub ratio: f64,
    /// Two-sided p-value, when both engines have [`MIN_REPEATS`] repeats.
    pub p: Option<f64>,
    /// Repeats (Strata, RocksDB).
    pub n: (usize, usize),
}

impl Versus {
    /// `Some(true)`: Strata significantly higher; `Some(false)`: lower;
    /// `None`: no difference shown (or not tested).
    pub fn direction(&self) -> Option<bool> {
        match self.p {
            Some(p) if p < ALPHA && self.ratio != 1.0 => Some(self.ratio > 1.0),
            _ => None,
        }
    }

    /// `Some(true)` when Strata is significantly better on `metric`,
    /// `Some(false)` when significantly worse.
    pub fn better(&self, metric: &str) -> Option<bool> {
        if !judged(metric) {
            return None;
        }
        self.direction().map(|up| up == higher_is_better(metric))
    }

    pub(crate) fn cell_text(&self, metric: &str) -> String {
        // Four decimals where three would print a shifted distribution as 1.000.
        let r = if (self.ratio - 1.0).abs() < 0.0005 {
            format!("{:.4}", self.ratio)
        } else {
            format!("{:.3}", self.ratio)
        };
        let p = |p: f64| {
            if p < 0.001 {
                "p < 0.001".to_string()
            } else {
                format!("p {p:.3}")
            }
        };
        if !judged(metric) {
            return match (self.p, self.direction()) {
                (None, _) => r,
                (Some(x), Some(true)) => format!("{r} higher ({})", p(x)),
                (Some(x), Some(false)) => format!("{r} lower ({})", p(x)),
                (Some(x), None) => format!("{r} ({})", p(x)),
            };
        }
        match (self.p, self.better(metric)) {
            (None, _) => r,
            (Some(x), Some(true)) => format!("{r} better ({})", p(x)),
            (Some(x), Some(false)) => format!("{r} worse ({})", p(x)),
            (Some(x), None) => format!("{r} ({})", p(x)),
        }
    }
}

fn median(xs: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = xs.iter().copied().filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// Compares Strata's repeats of one step-cell on `metric` with engine
/// `other`'s; `None` when either engine has no value or `other`'s median is 0.
pub(crate) fn versus_with(
    rows: &[ResultRow],
    other: &str,
    step: &str,
    labels: &BTreeMap<String, String>,
    metric: &str,
) -> Option<Versus> {
    let s = values(rows, "strata", step, labels, metric);
    let r = values(rows, other, step, labels, metric);
    let (ms, mr) = (median(&s)?, median(&r)?);
    if mr == 0.0 {
        return None;
    }
    let tested = s.len() >= MIN_REPEATS && r.len() >= MIN_REPEATS;
    Some(Versus {
        ratio: ms / mr,
        p: tested.then(|| mann_whitney_p(&s, &r)),
        n: (s.len(), r.len()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::data::results::sample_row;
    use crate::testutil::rows_of;

    fn rows(engine: &str, waf: &[f64]) -> Vec<ResultRow> {
        rows_of(engine, "waf", waf)
    }

    fn labels() -> BTreeMap<String, String> {
        sample_row().cell
    }

    #[test]
    fn separated_repeats_are_a_difference_and_overlapping_ones_are_not() {
        let mut r = rows("strata", &[1.40, 1.41, 1.39, 1.42, 1.40]);
        r.extend(rows("rocksdb", &[1.04, 1.03, 1.05, 1.04, 1.06]));
        let v = versus_with(&r, "rocksdb", "fillrandom", &labels(), "waf").unwrap();
        assert_eq!(v.n, (5, 5));
        assert!((v.ratio - 1.40 / 1.04).abs() < 1e-12);
        assert_eq!(v.direction(), Some(true));
        assert_eq!(v.better("waf"), Some(false));
        assert_eq!(v.better("ops_sec"), Some(true));
        let text = v.cell_text("waf");
        assert!(text.starts_with("1.346 worse (p "), "{text}");
        assert!(v.cell_text("ops_sec").contains("better"));
        // Two-valued on both engines: a ratio of medians of 1.3, no difference shown.
        let mut r = rows("strata", &[1.70, 1.38, 1.70, 1.39, 1.71]);
        r.extend(rows("rocksdb", &[1.38, 1.70, 1.37, 1.69, 1.38]));
        let v = versus_with(&r, "rocksdb", "fillrandom", &labels(), "waf").unwrap();
        assert!(v.ratio > 1.2);
        assert_eq!(v.direction(), None);
        // Strata lower.
        let mut r = rows("strata", &[0.9, 0.91, 0.92, 0.9]);
        r.extend(rows("rocksdb", &[1.0, 1.01, 1.02, 1.0]));
        let v = versus_with(&r, "rocksdb", "fillrandom", &labels(), "waf").unwrap();
        assert_eq!(v.direction(), Some(false));
    }

    #[test]
    fn l0_files_per_merge_is_higher_or_lower_never_better_or_worse() {
        let mk = |engine: &str, xs: &[f64]| rows_of(engine, "l0_files_per_merge", xs);
        let mut r = mk("strata", &[4.0, 4.1, 4.0, 4.2, 4.0]);
        r.extend(mk("rocksdb", &[5.5, 5.6, 5.4, 5.5, 5.7]));
        let v = versus_with(&r, "rocksdb", "fillrandom", &labels(), "l0_files_per_merge").unwrap();
        assert_eq!(v.direction(), Some(false));
        assert_eq!(v.better("l0_files_per_merge"), None);
        let text = v.cell_text("l0_files_per_merge");
        assert!(text.contains(" lower (p "), "{text}");
        assert!(!text.contains("worse") && !text.contains("better"));
    }

    #[test]
    fn three_repeats_give_a_ratio_without_a_test() {
        let mut r = rows("strata", &[2.0, 2.1, 2.2]);
        r.extend(rows("rocksdb", &[1.0, 1.1, 1.2]));
        let v = versus_with(&r, "rocksdb", "fillrandom", &labels(), "waf").unwrap();
        assert_eq!(v.p, None);
        assert_eq!(v.direction(), None);
        assert_eq!(v.cell_text("waf"), format!("{:.3}", 2.1 / 1.1));
        assert!(versus_with(&r, "rocksdb", "fillrandom", &labels(), "ops_sec_missing").is_none());
        assert!(versus_with(
            &rows("strata", &[1.0]),
            "rocksdb",
            "fillrandom",
            &labels(),
            "waf"
        )
        .is_none());
    }

    #[test]
    fn median_of_odd_and_even_samples() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), Some(2.5));
        assert_eq!(median(&[]), None);
    }
}
