//! The verdict model: how the lab decides whether a published claim holds
//! in a run, with the uncertainty of the run's repeats.
//!
//! Every kind of claim reduces to effects on a scale ([`Scale`]: log ratios
//! for positive metrics) estimated from the repeats of each cell, each with
//! one-sided 95% t-bounds ([`Est::bounds`]). The bounds are read against a minimum effect
//! size ([`DEFAULT_MIN_EFFECT`] unless a finding sets `min_effect`): above
//! it in the claimed direction, below it in the other, inside it (no effect
//! that large), or straddling a bound (the data cannot tell). The kinds in
//! [`kinds`] turn those readings into one of four verdicts; [`sim`] measures
//! how often each kind errs on synthetic repeats (docs/lab.md, "Verdicts").

pub(crate) mod estimate;
pub(crate) mod kinds;
pub(crate) mod power;
pub(crate) mod sim;

/// The smallest relative difference a verdict calls an effect (5%), unless
/// a finding sets its own `min_effect`.
pub(crate) const DEFAULT_MIN_EFFECT: f64 = 0.05;

/// Outcome of checking a published claim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Verdict {
    /// The data shows the claimed effect beyond its uncertainty.
    Reproduced,
    /// A ratio claim whose effect goes the claimed way and is larger than
    /// the published range, beyond its uncertainty.
    LargerThanPublished,
    /// The claimed direction holds beyond its uncertainty (the effect,
    /// pooled over the points, is on the claimed side of no effect at the
    /// stricter [`estimate::DIRECTION_SHARE`] of the error rate), while its
    /// size against the minimum effect or the published range is not
    /// settled. Never counted as reproduced.
    DirectionOnly,
    /// The data shows the claim does not hold (no effect as large as the
    /// minimum, or an effect elsewhere than claimed).
    NotReproduced,
    /// The data shows the opposite effect beyond its uncertainty.
    Reversed,
    /// The repeats are too few or too spread to tell.
    Inconclusive,
    /// The run cannot exercise the claim: a precondition it declares
    /// (cores, bytes written, compactions run) does not hold here. Never
    /// counted as a failure of the claim.
    NotTestable,
    /// No successful run measured it.
    NoData,
}

impl Verdict {
    /// Word used in reports.
    pub fn word(&self) -> &'static str {
        match self {
            Verdict::Reproduced => "reproduced",
            Verdict::LargerThanPublished => "reproduced, larger than published",
            Verdict::DirectionOnly => "direction reproduced",
            Verdict::NotReproduced => "not reproduced",
            Verdict::Reversed => "reversed",
            Verdict::Inconclusive => "inconclusive",
            Verdict::NotTestable => "not testable here",
            Verdict::NoData => "no data",
        }
    }
}

/// A verdict with the figures and reasoning behind it, in words.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Judgement {
    /// The verdict.
    pub verdict: Verdict,
    /// Why, with the estimates and their 90% intervals (one-sided 95% bounds).
    pub text: String,
    /// The ratio of the two series the verdict reads, pooled over its
    /// points, when it reads one on the log scale (`ordering`, `ratio`,
    /// `parity`): the figure the report sets beside a published ratio.
    pub pooled: Option<Pooled>,
}

impl Judgement {
    /// A judgement from its parts.
    pub fn new(verdict: Verdict, text: impl Into<String>) -> Judgement {
        Judgement {
            verdict,
            text: text.into(),
            pooled: None,
        }
    }

    /// This judgement carrying the pooled ratio `label` (`b/a` as its text
    /// names it) estimated by `est` on `scale`; kept only on the log scale,
    /// where the estimate is a log ratio.
    pub fn with_pooled(
        mut self,
        label: String,
        scale: &estimate::Scale,
        est: &estimate::Est,
    ) -> Judgement {
        if *scale == estimate::Scale::Log {
            self.pooled = Some(Pooled { label, est: *est });
        }
        self
    }
}

/// A ratio of two series pooled over points (a geometric mean), as a
/// verdict reads it.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Pooled {
    /// The ratio's name as the verdict's figures write it (`none/bloom64`).
    pub label: String,
    /// Its estimate on the log scale.
    pub est: estimate::Est,
}

impl Pooled {
    /// `1.024 [0.890, 1.179]`: the ratio and its 90% interval (the
    /// one-sided 95% bounds the verdicts read), as the verdicts write it.
    pub fn figure(&self) -> String {
        kinds::reading::iv(&estimate::Scale::Log, &self.est)
    }
}

/// One verdict for a claim judged separately at several values of axes it
/// holds across: reproduced only where it is reproduced at every value (a
/// facet without data keeps it from being reproduced), reversed only where
/// it is reversed at every value, not reproduced when it fails clearly at
/// any value, inconclusive otherwise. A facet larger than published counts
/// as reproduced; when every facet is, so is the claim. Where every facet
/// holds or holds in direction only, the claim holds in direction only.
/// Facets that cannot be tested here are left out (all of them: not
/// testable).
pub(crate) fn combine(vs: &[Verdict]) -> Verdict {
    let testable: Vec<Verdict> = vs
        .iter()
        .copied()
        .filter(|v| *v != Verdict::NotTestable)
        .collect();
    if testable.is_empty() && !vs.is_empty() {
        return Verdict::NotTestable;
    }
    let missing = testable.contains(&Verdict::NoData);
    let judged: Vec<Verdict> = testable
        .iter()
        .copied()
        .filter(|v| *v != Verdict::NoData)
        .collect();
    if judged.is_empty() {
        return Verdict::NoData;
    }
    let all = |v: Verdict| judged.iter().all(|x| *x == v);
    let any = |v: Verdict| judged.contains(&v);
    let holds = |v: &Verdict| matches!(v, Verdict::Reproduced | Verdict::LargerThanPublished);
    if judged.iter().all(holds) && !missing {
        if all(Verdict::LargerThanPublished) {
            Verdict::LargerThanPublished
        } else {
            Verdict::Reproduced
        }
    } else if judged
        .iter()
        .all(|v| holds(v) || *v == Verdict::DirectionOnly)
        && !missing
    {
        Verdict::DirectionOnly
    } else if all(Verdict::Reversed) && !missing {
        Verdict::Reversed
    } else if any(Verdict::NotReproduced) || (any(Verdict::Reversed) && judged.iter().any(holds)) {
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
        // A facet without data keeps a claim from being decided either way.
        assert_eq!(combine(&[Reversed, Reversed, NoData]), Inconclusive);
        assert_eq!(combine(&[Reproduced, NoData]), Inconclusive);
        assert_eq!(combine(&[LargerThanPublished, Reproduced]), Reproduced);
        assert_eq!(
            combine(&[LargerThanPublished, LargerThanPublished]),
            LargerThanPublished
        );
        assert_eq!(combine(&[NotTestable, Reproduced]), Reproduced);
        assert_eq!(combine(&[NotTestable, NotTestable]), NotTestable);
        assert_eq!(combine(&[Reversed, Reproduced]), NotReproduced);
        assert_eq!(combine(&[Reversed, Inconclusive]), Inconclusive);
        assert_eq!(combine(&[NoData]), NoData);
        assert_eq!(combine(&[DirectionOnly, Reproduced]), DirectionOnly);
        assert_eq!(combine(&[DirectionOnly, DirectionOnly]), DirectionOnly);
        assert_eq!(combine(&[DirectionOnly, Inconclusive]), Inconclusive);
        assert_eq!(combine(&[DirectionOnly, NotReproduced]), NotReproduced);
        assert_eq!(combine(&[DirectionOnly, NoData]), Inconclusive);
    }
}
