//! The model randomized tests check a DB against: a `BTreeMap` from key to
//! value, the writes applied to it, and comparisons with a DB's contents.

use std::collections::BTreeMap;

use strata::{Db, WriteBatch};

/// The model of a DB: key to value.
pub type Model = BTreeMap<Vec<u8>, Vec<u8>>;

/// One logical write as the model sees it: `(key, Some(value) | None)`.
pub type Ops = Vec<(Vec<u8>, Option<Vec<u8>>)>;

/// Applies `ops` to `model` in order.
pub fn apply(model: &mut Model, ops: &Ops) {
    for (k, v) in ops {
        match v {
            Some(v) => {
                model.insert(k.clone(), v.clone());
            }
            None => {
                model.remove(k);
            }
        }
    }
}

/// Builds the batch for `ops`.
pub fn batch_of(ops: &Ops) -> WriteBatch {
    let mut b = WriteBatch::new();
    for (k, v) in ops {
        match v {
            Some(v) => b.put(k, v),
            None => b.delete(k),
        }
    }
    b
}

/// Every key and value of the DB, by forward iteration.
pub fn dump(db: &Db) -> strata::Result<Model> {
    let mut m = Model::new();
    for r in db.iter() {
        let (k, v) = r?;
        m.insert(k, v);
    }
    Ok(m)
}

/// Describes the first difference between two models (for assertion messages).
pub fn first_diff(got: &Model, want: &Model) -> String {
    for (k, v) in want {
        match got.get(k) {
            None => return format!("key {} missing", show(k)),
            Some(g) if g != v => {
                return format!("key {}: got {} want {}", show(k), show(g), show(v))
            }
            _ => {}
        }
    }
    for k in got.keys() {
        if !want.contains_key(k) {
            return format!("unexpected key {}", show(k));
        }
    }
    "no difference".into()
}

/// Checks that a read of `k` returned `want`, the model's value; `what`
/// (and the key) begins the failure message.
pub fn check_read(
    got: strata::Result<Option<Vec<u8>>>,
    want: Option<&Vec<u8>>,
    k: &[u8],
    what: &str,
) {
    let got = got.unwrap_or_else(|e| panic!("{what} {}: {e}", show(k)));
    assert_eq!(got.as_ref(), want, "{what} {}", show(k));
}

/// A short printable form of bytes.
pub fn show(b: &[u8]) -> String {
    let s = String::from_utf8_lossy(&b[..b.len().min(40)]).into_owned();
    if b.len() > 40 {
        format!("{s:?}..({} bytes)", b.len())
    } else {
        format!("{s:?}")
    }
}

/// Finds whether `got` equals `durable` with some prefix of `pending`
/// applied (`pending[..k]` for some `k`). Returns that `k`.
///
/// Runs in time proportional to the models plus the pending writes: it
/// tracks the set of keys on which the candidate state differs from `got`.
pub fn matching_prefix(got: &Model, durable: &Model, pending: &[Ops]) -> Option<usize> {
    let mut cand = durable.clone();
    let mut differ: std::collections::BTreeSet<Vec<u8>> = std::collections::BTreeSet::new();
    for (k, v) in &cand {
        if got.get(k) != Some(v) {
            differ.insert(k.clone());
        }
    }
    for k in got.keys() {
        if !cand.contains_key(k) {
            differ.insert(k.clone());
        }
    }
    if differ.is_empty() {
        return Some(0);
    }
    for (i, ops) in pending.iter().enumerate() {
        apply(&mut cand, ops);
        for (k, _) in ops {
            if cand.get(k) == got.get(k) {
                differ.remove(k);
            } else {
                differ.insert(k.clone());
            }
        }
        if differ.is_empty() {
            return Some(i + 1);
        }
    }
    None
}

/// The writes a crash lost: checks that `got`, the DB after the crash,
/// equals `durable` with a prefix of `pending` applied and returns how many
/// of `pending` it lacks. Panics otherwise, naming `what` and the first
/// difference from `durable` and from `acknowledged` (every write applied).
pub fn lost_writes(
    got: &Model,
    durable: &Model,
    pending: &[Ops],
    acknowledged: &Model,
    what: &str,
) -> usize {
    match matching_prefix(got, durable, pending) {
        Some(k) => pending.len() - k,
        None => panic!(
            "{what}: not the durable state plus a prefix of the {} later writes; vs. durable: {}; vs. all acknowledged: {}",
            pending.len(),
            first_diff(got, durable),
            first_diff(got, acknowledged)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matching_prefix_finds_the_prefix_and_rejects_holes() {
        let k = |s: &str| s.as_bytes().to_vec();
        let durable: Model = [(k("a"), k("1"))].into_iter().collect();
        let pending = vec![
            vec![(k("b"), Some(k("2")))],
            vec![(k("a"), None)],
            vec![(k("c"), Some(k("3")))],
        ];
        let mut got = durable.clone();
        assert_eq!(matching_prefix(&got, &durable, &pending), Some(0));
        got.insert(k("b"), k("2"));
        assert_eq!(matching_prefix(&got, &durable, &pending), Some(1));
        got.remove(&k("a"));
        got.insert(k("c"), k("3"));
        assert_eq!(matching_prefix(&got, &durable, &pending), Some(3));
        // A hole: the last write without the second.
        let mut hole = durable.clone();
        hole.insert(k("b"), k("2"));
        hole.insert(k("c"), k("3"));
        assert_eq!(matching_prefix(&hole, &durable, &pending), None);
    }
}
