//! The verdict model: how the lab decides whether a published claim holds
//! in a run, with the uncertainty of the run's repeats.
//!
//! Every kind of claim reduces to effects on a scale ([`Scale`]: log ratios
//! for positive metrics) estimated from the repeats of each cell, each with
//! a 95% t-interval ([`Est`]). An interval is read against a minimum effect
//! size ([`DEFAULT_MIN_EFFECT`] unless a finding sets `min_effect`): above
//! it in the claimed direction, below it in the other, inside it (no effect
//! that large), or straddling a bound (the data cannot tell). The kinds in
//! [`kinds`] turn those readings into one of four verdicts; [`sim`] measures
//! how often each kind errs on synthetic repeats (docs/lab.md, "Verdicts").

pub(crate) mod estimate;
pub(crate) mod kinds;
pub(crate) mod sim;

/// The smallest relative difference a verdict calls an effect (5%), unless
/// a finding sets its own `min_effect`.
pub(crate) const DEFAULT_MIN_EFFECT: f64 = 0.05;

/// Outcome of checking a published claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Verdict {
    /// The data shows the claimed effect beyond its uncertainty.
    Reproduced,
    /// The data shows the claim does not hold (no effect as large as the
    /// minimum, or an effect elsewhere than claimed).
    NotReproduced,
    /// The data shows the opposite effect beyond its uncertainty.
    Reversed,
    /// The repeats are too few or too spread to tell.
    Inconclusive,
    /// No successful run measured it.
    NoData,
}

impl Verdict {
    /// Word used in reports.
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Reproduced => "reproduced",
            Verdict::NotReproduced => "not reproduced",
            Verdict::Reversed => "reversed",
            Verdict::Inconclusive => "inconclusive",
            Verdict::NoData => "no data",
        }
    }
}

/// A verdict with the figures and reasoning behind it, in words.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Judgement {
    /// The verdict.
    pub verdict: Verdict,
    /// Why, with the estimates and their 95% intervals.
    pub text: String,
}

impl Judgement {
    /// A judgement from its parts.
    pub fn new(verdict: Verdict, text: impl Into<String>) -> Judgement {
        Judgement {
            verdict,
            text: text.into(),
        }
    }
}

/// One verdict for a claim judged separately at several values of axes it
/// holds across: reproduced only where it is reproduced at every value,
/// reversed only where it is reversed at every value, not reproduced when
/// it fails clearly at any value, inconclusive otherwise.
pub(crate) fn combine(vs: &[Verdict]) -> Verdict {
    let judged: Vec<Verdict> = vs
        .iter()
        .copied()
        .filter(|v| *v != Verdict::NoData)
        .collect();
    if judged.is_empty() {
        return Verdict::NoData;
    }
    let all = |v: Verdict| judged.iter().all(|x| *x == v);
    let any = |v: Verdict| judged.contains(&v);
    if all(Verdict::Reproduced) {
        Verdict::Reproduced
    } else if all(Verdict::Reversed) {
        Verdict::Reversed
    } else if any(Verdict::NotReproduced) || (any(Verdict::Reversed) && any(Verdict::Reproduced)) {
        Verdict::NotReproduced
    } else {
        Verdict::Inconclusive
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Verdict::*;

    #[test]
    fn combining_facets() {
        assert_eq!(combine(&[Reproduced, Reproduced]), Reproduced);
        assert_eq!(combine(&[Reproduced, Inconclusive]), Inconclusive);
        assert_eq!(combine(&[Reproduced, NotReproduced]), NotReproduced);
        assert_eq!(combine(&[Reversed, Reversed, NoData]), Reversed);
        assert_eq!(combine(&[Reversed, Reproduced]), NotReproduced);
        assert_eq!(combine(&[Reversed, Inconclusive]), Inconclusive);
        assert_eq!(combine(&[NoData]), NoData);
    }
}
