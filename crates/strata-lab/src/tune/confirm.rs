//! The confirmation test: the winner against the baseline on fresh,
//! alternating runs, with the verdict model's estimate (the difference of
//! the mean log objectives, a Welch t-interval; see
//! `judge::verdict::estimate`), read as a ratio with its 95% interval.

use crate::judge::verdict::estimate::Est;

/// The test's result.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Confirmation {
    /// Runs of the baseline and of the winner.
    pub runs: (usize, usize),
    /// The winner over the baseline (better > 1), as a ratio of geometric means.
    pub gain: f64,
    /// Its 95% interval, when both sides have two or more runs.
    pub interval: Option<(f64, f64)>,
    /// The reading.
    pub verdict: Verdict,
}

/// What the confirmation shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The interval lies above 1: the gain is real at this spread.
    Confirmed,
    /// The interval lies below 1: the winner is worse on fresh runs.
    Reversed,
    /// The interval includes 1.
    Inconclusive,
}

impl Verdict {
    /// The word in reports.
    pub(crate) fn word(self) -> &'static str {
        match self {
            Verdict::Confirmed => "confirmed",
            Verdict::Reversed => "reversed",
            Verdict::Inconclusive => "inconclusive",
        }
    }
}

/// Tests `winner` against `baseline`: objective values on the model's
/// scale (log, higher is better), one per run.
pub(crate) fn confirm(baseline: &[f64], winner: &[f64]) -> Option<Confirmation> {
    let a = Est::mean(baseline)?;
    let b = Est::mean(winner)?;
    let d = Est::diff(&a, &b);
    let interval = d.interval().map(|(lo, hi)| (lo.exp(), hi.exp()));
    let verdict = match interval {
        Some((lo, _)) if lo > 1.0 => Verdict::Confirmed,
        Some((_, hi)) if hi < 1.0 => Verdict::Reversed,
        _ => Verdict::Inconclusive,
    };
    Some(Confirmation {
        runs: (baseline.len(), winner.len()),
        gain: d.value.exp(),
        interval,
        verdict,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ln(xs: &[f64]) -> Vec<f64> {
        xs.iter().map(|x| x.ln()).collect()
    }

    #[test]
    fn a_clear_gain_is_confirmed_and_noise_is_not() {
        let c = confirm(&ln(&[100.0, 104.0, 98.0]), &ln(&[150.0, 149.0, 155.0])).unwrap();
        assert_eq!(c.verdict, Verdict::Confirmed);
        assert!((c.gain - 1.5).abs() < 0.03, "{c:?}");
        let (lo, hi) = c.interval.unwrap();
        assert!(lo > 1.0 && hi > c.gain && lo < c.gain);
        let c = confirm(&ln(&[100.0, 130.0, 80.0]), &ln(&[110.0, 90.0, 125.0])).unwrap();
        assert_eq!(c.verdict, Verdict::Inconclusive);
        let c = confirm(&ln(&[150.0, 149.0, 155.0]), &ln(&[100.0, 104.0, 98.0])).unwrap();
        assert_eq!(c.verdict, Verdict::Reversed);
        let c = confirm(&ln(&[100.0]), &ln(&[150.0])).unwrap();
        assert_eq!((c.interval, c.verdict), (None, Verdict::Inconclusive));
        assert!(confirm(&[], &[1.0]).is_none());
    }
}
