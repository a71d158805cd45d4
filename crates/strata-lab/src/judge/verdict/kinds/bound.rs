//! `bound`: a series stays within a limit at every point.

use super::reading::{no_data, unclear_at, Series};
use crate::data::format::fmt_num;
use crate::judge::verdict::estimate::{floored_means, Est};
use crate::judge::verdict::{Judgement, Verdict};

/// Claim: the metric's mean is at most `max` (and/or at least `min`) at
/// every point. Reproduced when every point's one-sided 95% bounds lie within the
/// bound; not reproduced when some point's interval lies beyond it.
pub(crate) fn bound(
    xs: &[String],
    what: &str,
    y: &Series,
    max: Option<f64>,
    min: Option<f64>,
) -> Judgement {
    let ests: Vec<Option<Est>> = floored_means(y, false);
    if ests.iter().all(Option::is_none) {
        return no_data();
    }
    let mut inside = true;
    let mut beyond = Vec::new();
    let mut unclear = Vec::new();
    for (x, e) in xs.iter().zip(&ests) {
        let Some(e) = e else { continue };
        // One repeat, or a spread that cannot be estimated: only the value.
        let (lo, hi) = e.bounds().unwrap_or((f64::NEG_INFINITY, f64::INFINITY));
        let out = max.is_some_and(|m| lo > m) || min.is_some_and(|m| hi < m);
        let ok = max.is_none_or(|m| hi <= m) && min.is_none_or(|m| lo >= m);
        if out {
            beyond.push(x.clone());
        } else if !ok {
            unclear.push(x.clone());
        }
        inside &= ok;
    }
    let limit = match (min, max) {
        (Some(a), Some(b)) => format!("between {} and {}", fmt_num(a), fmt_num(b)),
        (None, Some(b)) => format!("at most {}", fmt_num(b)),
        (Some(a), None) => format!("at least {}", fmt_num(a)),
        (None, None) => "unbounded".into(),
    };
    let figs = format!(
        "{what}: {}",
        xs.iter()
            .zip(&ests)
            .map(|(x, e)| match e.and_then(|e| e.bounds().map(|i| (e, i))) {
                Some((e, (lo, hi))) => format!(
                    "{x} {} [{}, {}]",
                    fmt_num(e.value),
                    fmt_num(lo),
                    fmt_num(hi)
                ),
                None => match e {
                    Some(e) => format!("{x} {} (too few repeats)", fmt_num(e.value)),
                    None => format!("{x} no data"),
                },
            })
            .collect::<Vec<_>>()
            .join(", ")
    );
    let (v, why) = if !beyond.is_empty() {
        (
            Verdict::NotReproduced,
            format!("{what} is not {limit} at {}", beyond.join(", ")),
        )
    } else if inside {
        (
            Verdict::Reproduced,
            format!("{what} is {limit} at every point"),
        )
    } else {
        unclear_at(&unclear, &format!("reach across the bound ({limit})"))
    };
    Judgement::new(v, format!("{why}. {figs}"))
}
