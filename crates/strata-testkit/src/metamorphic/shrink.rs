//! Finding where a run leaves the model, and shrinking a sequence that
//! does to a short reproducer (delta debugging: drop chunks of operations,
//! halving the chunk, while the divergence persists).

use std::fmt::Write as _;

use super::expect::expected;
use super::ops::{Op, Out};
use super::options::OptionSet;
use super::run::run;

/// Where a run first returned something other than the model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    /// The index of the operation (`ops.len()` for the final close).
    pub index: usize,
    /// What the DB returned (`None`: the run stopped before).
    pub got: Option<Out>,
    /// What the model returned (`None`: after the last operation).
    pub want: Option<Out>,
}

/// The first output of `got` that differs from `want`.
pub fn first_divergence(got: &[Out], want: &[Out]) -> Option<Divergence> {
    let n = got.len().max(want.len());
    (0..n).find_map(|i| {
        let (g, w) = (got.get(i), want.get(i));
        (g != w).then(|| Divergence {
            index: i,
            got: g.cloned(),
            want: w.cloned(),
        })
    })
}

/// Runs `ops` under `set` and compares with the model.
pub fn diverges(ops: &[Op], set: &OptionSet) -> Option<Divergence> {
    first_divergence(&run(ops, set), &expected(ops))
}

/// The shortest sequence found that still diverges under `set`: `ops` cut
/// after the divergence at `index`, then chunks of it dropped while a run
/// still leaves the model (anywhere), then writes dropped from batches.
/// At most `budget` runs.
pub fn shrink(ops: &[Op], index: usize, set: &OptionSet, mut budget: usize) -> Vec<Op> {
    let mut cur: Vec<Op> = ops[..(index + 1).min(ops.len())].to_vec();
    let mut fails = |cand: &[Op]| {
        if budget == 0 {
            return false;
        }
        budget -= 1;
        diverges(cand, set).is_some()
    };
    if !fails(&cur) {
        // Not reproduced on the cut sequence (a divergence that depends on
        // background timing, or on a later operation): keep it whole.
        cur = ops.to_vec();
    }
    let mut chunk = cur.len().div_ceil(2).max(1);
    loop {
        let mut removed = false;
        let mut i = 0;
        while i < cur.len() {
            let end = (i + chunk).min(cur.len());
            let cand: Vec<Op> = cur[..i].iter().chain(&cur[end..]).cloned().collect();
            if !cand.is_empty() && fails(&cand) {
                cur = cand;
                removed = true;
            } else {
                i += chunk;
            }
        }
        if chunk == 1 && !removed {
            return shrink_batches(cur, &mut fails);
        }
        if !removed {
            chunk = chunk.div_ceil(2);
        }
    }
}

/// `ops` with the writes of each batch dropped one at a time while
/// `fails` still holds.
fn shrink_batches(mut ops: Vec<Op>, fails: &mut impl FnMut(&[Op]) -> bool) -> Vec<Op> {
    for i in 0..ops.len() {
        let mut j = 0;
        while let Op::Batch(ws) = &ops[i] {
            if j >= ws.len() || ws.len() == 1 {
                break;
            }
            let mut fewer = ws.clone();
            fewer.remove(j);
            let mut cand = ops.clone();
            cand[i] = Op::Batch(fewer);
            if fails(&cand) {
                ops = cand;
            } else {
                j += 1;
            }
        }
    }
    ops
}

/// A reproducer: the option set, the operations one a line and what the
/// DB and the model returned where they first differ.
pub fn reproducer(ops: &[Op], set: &OptionSet) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "option set: {set:?}");
    let _ = writeln!(s, "operations ({}):", ops.len());
    for (i, op) in ops.iter().enumerate() {
        let _ = writeln!(s, "  {i:4}: {op:?}");
    }
    match diverges(ops, set) {
        Some(d) => {
            let _ = writeln!(
                s,
                "first divergence at operation {}:\n  got:  {:?}\n  want: {:?}",
                d.index, d.got, d.want
            );
        }
        None => {
            let _ = writeln!(s, "(this sequence did not diverge when run again)");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_difference_or_a_missing_output_is_the_divergence() {
        let v = |s: &str| Out::Value(Some(super::super::Bytes(s.into())));
        let want = [Out::Done, v("a"), v("b")];
        assert_eq!(first_divergence(&want, &want), None);
        let d = first_divergence(&[Out::Done, v("x"), v("b")], &want).unwrap();
        assert_eq!((d.index, d.got), (1, Some(v("x"))));
        let short = first_divergence(&[Out::Done], &want).unwrap();
        assert_eq!((short.index, short.got), (1, None));
        let extra = [Out::Done, v("a"), v("b"), Out::Error("close: x".into())];
        assert_eq!(first_divergence(&extra, &want).unwrap().index, 3);
    }
}
