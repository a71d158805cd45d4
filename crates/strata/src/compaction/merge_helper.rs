//! Merge operands in flushes and compactions (RocksDB's
//! `MergeHelper::MergeUntil`).
//!
//! The drop rules keep the newest entry of each snapshot stripe of a key.
//! When that entry is a merge operand, the entries under it in the same
//! stripe are not shadowed: they are more operands and, below them, the
//! value they apply to. [`merge_until`] takes that run, and only that run
//! (never an entry of another stripe, so every snapshot still reads what it
//! read), and writes in its place:
//!
//! - one value, the operator's full merge, when the run ends on a value, a
//!   blob (read from its blob file) or a tombstone, or runs out of entries
//!   of the key where nothing older can exist (no deeper file holds the
//!   key); it takes the newest operand's sequence number;
//! - else one operand, the operator's partial merge of two or more
//!   operands, with the newest operand's key;
//! - else the entries as they are: when the operator declines to merge
//!   partially, fails a full merge (`rocksdb.number.merge.failures`), or the
//!   family has no operator. RocksDB fails the flush or compaction in the
//!   last two cases; keeping the entries loses nothing, and reads of the key
//!   report the problem.

use crate::error::Result;
use crate::iter::InternalIterator;
use crate::merge::{timed_full_merge, timed_partial_merge, MergeOperator};
use crate::stats::Statistics;
use crate::types::{make_internal_key, parse_internal_key, ValueType};

use super::drop_rules::DropRules;

/// What a flush or compaction needs to merge operands.
pub struct MergeContext<'a> {
    /// The family's operator (`None`: operands are kept as they are).
    pub op: Option<&'a dyn MergeOperator>,
    /// Where the operator's time and failures are counted.
    pub stats: Option<&'a Statistics>,
}

/// Reads the value a blob index points to: `(user_key, encoded index)`.
pub type FetchBlob<'a> = dyn FnMut(&[u8], &[u8]) -> Result<Vec<u8>> + 'a;

/// Told of an input entry: `(internal key, value)`.
pub type OnInput<'a> = dyn FnMut(&[u8], &[u8]) -> Result<()> + 'a;

/// What [`merge_until`] did with one run of operands.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Merged {
    /// The entries to write in the run's place, in internal-key order.
    pub entries: Vec<(Vec<u8>, Vec<u8>)>,
    /// Entries the run consumed besides the first operand.
    pub consumed: u64,
    /// The operator failed a full merge (the run is kept as it is).
    pub failed: bool,
}

/// Merges the run of entries that starts at the merge operand `input` is
/// on, which `rules` kept as the newest entry of its stripe (see the module
/// comment). Leaves `input` on the first entry after the run: another
/// stripe or key, an entry under a value the run ended on, or the end.
///
/// `at_bottom(user_key)` says whether no file outside the job may hold an
/// older version of the key; `fetch_blob(user_key, index)` reads the value
/// a blob index points to; `on_input(ikey, value)` is told of every entry
/// the run consumes after the first.
///
/// # Errors
/// An error of `input`, `fetch_blob` or `on_input`.
pub fn merge_until(
    ctx: &MergeContext<'_>,
    input: &mut dyn InternalIterator,
    rules: &DropRules,
    at_bottom: &dyn Fn(&[u8]) -> bool,
    fetch_blob: &mut FetchBlob<'_>,
    on_input: &mut OnInput<'_>,
) -> Result<Merged> {
    let first = input.key().to_vec();
    let Some(p) = parse_internal_key(&first) else {
        // Not reached: the caller checked the type.
        let entries = vec![(first, input.value().to_vec())];
        input.next();
        return Ok(Merged {
            entries,
            ..Merged::default()
        });
    };
    let (user_key, newest_seq) = (p.user_key.to_vec(), p.seq);
    let stripe = rules.stripe(newest_seq);
    // Operands newest first, with their internal keys.
    let mut operands = vec![(first, input.value().to_vec())];
    let mut base: Option<(Vec<u8>, ValueType, Vec<u8>)> = None;
    let mut consumed = 0;
    let mut end_of_key = true;
    input.next();
    while input.valid() {
        let k = input.key();
        let Some(q) = parse_internal_key(k) else {
            end_of_key = false;
            break;
        };
        if q.user_key != user_key.as_slice() {
            break;
        }
        if rules.stripe(q.seq) != stripe {
            end_of_key = false;
            break;
        }
        on_input(k, input.value())?;
        consumed += 1;
        if q.value_type == ValueType::Merge {
            operands.push((k.to_vec(), input.value().to_vec()));
            input.next();
            continue;
        }
        base = Some((k.to_vec(), q.value_type, input.value().to_vec()));
        input.next();
        break;
    }
    input.status()?;
    let keep = |operands: Vec<(Vec<u8>, Vec<u8>)>, base: Option<(Vec<u8>, ValueType, Vec<u8>)>| {
        let mut entries = operands;
        entries.extend(base.map(|(k, _, v)| (k, v)));
        entries
    };
    let Some(op) = ctx.op else {
        return Ok(Merged {
            entries: keep(operands, base),
            consumed,
            failed: false,
        });
    };
    if base.is_some() || (end_of_key && at_bottom(&user_key)) {
        let existing = match &base {
            Some((_, ValueType::Value, v)) => Some(v.clone()),
            Some((_, ValueType::BlobIndex, index)) => Some(fetch_blob(&user_key, index)?),
            _ => None,
        };
        let ops: Vec<&[u8]> = operands.iter().rev().map(|(_, v)| v.as_slice()).collect();
        return Ok(
            match timed_full_merge(op, &user_key, existing.as_deref(), &ops, ctx.stats) {
                Some(v) => Merged {
                    entries: vec![(
                        make_internal_key(&user_key, newest_seq, ValueType::Value),
                        v,
                    )],
                    consumed,
                    failed: false,
                },
                None => Merged {
                    entries: keep(operands, base),
                    consumed,
                    failed: true,
                },
            },
        );
    }
    if operands.len() >= 2 {
        let ops: Vec<&[u8]> = operands.iter().rev().map(|(_, v)| v.as_slice()).collect();
        if let Some(v) = timed_partial_merge(op, &user_key, &ops, ctx.stats) {
            let newest = operands.swap_remove(0).0;
            return Ok(Merged {
                entries: vec![(newest, v)],
                consumed,
                failed: false,
            });
        }
    }
    Ok(Merged {
        entries: keep(operands, base),
        consumed,
        failed: false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::iter::VecIterator;
    use crate::merge::{StringAppendOperator, UInt64AddOperator};

    const V: ValueType = ValueType::Value;
    const D: ValueType = ValueType::Deletion;
    const M: ValueType = ValueType::Merge;
    const B: ValueType = ValueType::BlobIndex;

    /// Runs the helper from the first entry; the entries written (as
    /// `key@seq:type=value`), then where the input was left.
    fn run(
        op: Option<&dyn MergeOperator>,
        entries: &[(&str, u64, ValueType, &str)],
        snapshots: Vec<u64>,
        bottom: bool,
    ) -> (Vec<String>, Option<String>, Merged) {
        let mut it = VecIterator::from_entries(entries);
        it.seek_to_first();
        let mut rules = DropRules::new(snapshots);
        assert_eq!(
            rules.decide(it.key(), |_| bottom),
            super::super::drop_rules::Decision::Keep
        );
        let ctx = MergeContext { op, stats: None };
        let mut seen = 0;
        let m = merge_until(
            &ctx,
            &mut it,
            &rules,
            &|_| bottom,
            &mut |_, idx| Ok([b"blob:", idx].concat()),
            &mut |_, _| {
                seen += 1;
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen, m.consumed);
        let show = |k: &[u8], v: &[u8]| {
            let p = parse_internal_key(k).unwrap();
            format!(
                "{}@{}:{:?}={}",
                String::from_utf8_lossy(p.user_key),
                p.seq,
                p.value_type,
                String::from_utf8_lossy(v)
            )
        };
        let out = m.entries.iter().map(|(k, v)| show(k, v)).collect();
        let next = it.valid().then(|| show(it.key(), it.value()));
        (out, next, m)
    }

    fn append() -> StringAppendOperator {
        StringAppendOperator::default()
    }

    #[test]
    fn a_value_under_the_operands_ends_in_one_full_merge() {
        let (out, next, _) = run(
            Some(&append()),
            &[
                ("a", 9, M, "z"),
                ("a", 7, M, "y"),
                ("a", 5, V, "x"),
                ("a", 3, V, "old"),
                ("b", 1, V, "b"),
            ],
            vec![],
            false,
        );
        assert_eq!(out, ["a@9:Value=x,y,z"]);
        // Left on the shadowed version under the value.
        assert_eq!(next.as_deref(), Some("a@3:Value=old"));
    }

    #[test]
    fn a_tombstone_or_a_blob_under_the_operands() {
        let (out, next, _) = run(
            Some(&append()),
            &[("a", 9, M, "z"), ("a", 6, D, ""), ("a", 5, V, "x")],
            vec![],
            false,
        );
        assert_eq!(out, ["a@9:Value=z"]);
        assert_eq!(next.as_deref(), Some("a@5:Value=x"));
        let (out, _, _) = run(
            Some(&append()),
            &[("a", 9, M, "z"), ("a", 6, B, "idx")],
            vec![],
            false,
        );
        assert_eq!(out, ["a@9:Value=blob:idx,z"]);
    }

    #[test]
    fn operands_alone_merge_fully_only_at_the_bottom() {
        let e = [("a", 9, M, "z"), ("a", 7, M, "y"), ("b", 1, V, "b")];
        let (out, next, _) = run(Some(&append()), &e, vec![], true);
        assert_eq!(out, ["a@9:Value=y,z"]);
        assert_eq!(next.as_deref(), Some("b@1:Value=b"));
        // Not at the bottom: a partial merge into one operand.
        let (out, _, _) = run(Some(&append()), &e, vec![], false);
        assert_eq!(out, ["a@9:Merge=y,z"]);
        // One operand alone stays as it is.
        let (out, _, _) = run(Some(&append()), &[("a", 9, M, "z")], vec![], false);
        assert_eq!(out, ["a@9:Merge=z"]);
    }

    #[test]
    fn a_snapshot_stops_the_run() {
        // A snapshot at 7 sees y over x; the run above it is z alone.
        let e = [
            ("a", 9, M, "z"),
            ("a", 8, M, "w"),
            ("a", 7, M, "y"),
            ("a", 5, V, "x"),
        ];
        let (out, next, m) = run(Some(&append()), &e, vec![7], true);
        assert_eq!(out, ["a@9:Merge=w,z"]);
        assert_eq!(next.as_deref(), Some("a@7:Merge=y"));
        assert_eq!(m.consumed, 1);
    }

    #[test]
    fn no_operator_a_failure_or_no_partial_merge_keep_the_entries() {
        let e = [
            ("a", 9, M, "z"),
            ("a", 7, M, "y"),
            ("a", 5, V, "x"),
            ("a", 3, V, "old"),
        ];
        let (out, next, m) = run(None, &e, vec![], true);
        assert_eq!(out, ["a@9:Merge=z", "a@7:Merge=y", "a@5:Value=x"]);
        assert_eq!(next.as_deref(), Some("a@3:Value=old"));
        assert!(!m.failed);
        struct Fails;
        impl MergeOperator for Fails {
            fn name(&self) -> &str {
                "Fails"
            }
            fn full_merge(&self, _: &[u8], _: Option<&[u8]>, _: &[&[u8]]) -> Option<Vec<u8>> {
                None
            }
        }
        let (out, _, m) = run(Some(&Fails), &e, vec![], true);
        assert_eq!(out, ["a@9:Merge=z", "a@7:Merge=y", "a@5:Value=x"]);
        assert!(m.failed);
        // Declining a partial merge (the default) keeps the operands.
        let (out, _, m) = run(Some(&Fails), &e[..2], vec![], false);
        assert_eq!(out, ["a@9:Merge=z", "a@7:Merge=y"]);
        assert!(!m.failed);
    }

    #[test]
    fn counters_add_up() {
        let one = 1u64.to_le_bytes();
        let two = 2u64.to_le_bytes();
        let mut it = VecIterator::new(vec![
            (make_internal_key(b"c", 3, M), one.to_vec()),
            (make_internal_key(b"c", 2, M), two.to_vec()),
        ]);
        it.seek_to_first();
        let rules = DropRules::new(vec![]);
        let m = merge_until(
            &MergeContext {
                op: Some(&UInt64AddOperator),
                stats: None,
            },
            &mut it,
            &rules,
            &|_| true,
            &mut |_, _| unreachable!(),
            &mut |_, _| Ok(()),
        )
        .unwrap();
        assert_eq!(
            m.entries,
            vec![(make_internal_key(b"c", 3, V), 3u64.to_le_bytes().to_vec())]
        );
        assert!(!it.valid());
    }
}
