//! The composite score of a run: each weighted metric normalised against
//! the cells' means (the best scores 1), weighted, times 100.

use std::collections::BTreeMap;

/// One metric's value normalised to the best of the cells (1 = as good as the
/// best): `v / max` when higher is better, `min / v` otherwise; when the best
/// is 0 (e.g. no stall), `1 - v / max`. `min` and `max` are over the cells.
fn normalised(v: f64, min: f64, max: f64, higher: bool) -> f64 {
    if higher {
        if max > 0.0 {
            v / max
        } else {
            1.0
        }
    } else if v <= 0.0 || min <= 0.0 && v <= min {
        1.0
    } else if min <= 0.0 {
        // Best is zero (e.g. no stall): scale linearly against the worst.
        if max > 0.0 {
            1.0 - v / max
        } else {
            1.0
        }
    } else {
        min / v
    }
}

/// The composite score of one run's metrics `own`, each normalised against
/// the cells' means `cells` (value / max when higher is better, min / value
/// otherwise: the best cell mean scores 1), so that repeats of a cell score as differently as their
/// metrics differ; a run better than the best mean scores above 100.
/// `None` when `own` lacks a weighted metric or no cell has it.
pub(crate) fn score_against(
    own: &BTreeMap<String, f64>,
    cells: &[BTreeMap<String, f64>],
    weights: &BTreeMap<String, f64>,
    higher_is_better: &[String],
) -> Option<f64> {
    let mut score = 0.0;
    for (metric, w) in weights {
        let v = *own.get(metric)?;
        let vals: Vec<f64> = cells
            .iter()
            .filter_map(|c| c.get(metric).copied())
            .collect();
        if vals.is_empty() {
            return None;
        }
        let max = vals.iter().cloned().fold(f64::MIN, f64::max);
        let min = vals.iter().cloned().fold(f64::MAX, f64::min);
        let higher = higher_is_better.iter().any(|h| h == metric);
        score += w * normalised(v, min, max, higher) * 100.0;
    }
    Some(score)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn score_against_cell_means_differs_between_repeats() {
        let p = |ops: f64, p99: f64| -> BTreeMap<String, f64> {
            [("ops_sec".to_string(), ops), ("p99".to_string(), p99)]
                .into_iter()
                .collect()
        };
        let w: BTreeMap<String, f64> = [("ops_sec".to_string(), 0.5), ("p99".to_string(), 0.5)]
            .into_iter()
            .collect();
        let hib = ["ops_sec".to_string()];
        let cells = [p(100.0, 10.0), p(50.0, 20.0)];
        // The repeats of the best cell: 90 and 110 ops/sec around its mean of 100.
        let low = score_against(&p(90.0, 10.0), &cells, &w, &hib).unwrap();
        let high = score_against(&p(110.0, 10.0), &cells, &w, &hib).unwrap();
        assert!((low - 95.0).abs() < 1e-9, "{low}");
        assert!((high - 105.0).abs() < 1e-9, "{high}");
        // A repeat of the other cell: 0.5 * 0.5 + 0.5 * 10/25 = 0.45.
        let other = score_against(&p(50.0, 25.0), &cells, &w, &hib).unwrap();
        assert!((other - 45.0).abs() < 1e-9, "{other}");
        // A run without one of the weighted metrics has no score.
        let mut partial = p(100.0, 10.0);
        partial.remove("p99");
        assert_eq!(score_against(&partial, &cells, &w, &hib), None);
    }
}
