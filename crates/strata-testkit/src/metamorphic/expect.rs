//! What a sequence must return: the operations run on the model (a
//! [`Model`] per family), with snapshots as copies of it and iterators as
//! the bounded entries they saw when opened.

use super::ops::{Bytes, Move, Op, Out, Range, Write, FAMILIES, ITERATOR_SLOTS, SNAPSHOT_SLOTS};
use crate::random::model_range;
use crate::Model;

/// The entries an iterator sees, ascending, and where it is.
#[derive(Clone, Debug, Default)]
struct ModelIter {
    entries: Vec<(Bytes, Bytes)>,
    pos: Option<usize>,
}

impl ModelIter {
    fn open(snaps: &[Option<Vec<Model>>], fams: &[Model], r: &Range) -> ModelIter {
        let m = view(snaps, fams, &r.snap, r.cf);
        let (lower, upper) = (unwrap_bound(&r.lower), unwrap_bound(&r.upper));
        let entries = model_range(&m, &lower, &upper)
            .into_iter()
            .map(|(k, v)| (Bytes(k.clone()), Bytes(v.clone())))
            .collect();
        ModelIter { entries, pos: None }
    }

    fn step(&mut self, to: &Move) -> Out {
        let n = self.entries.len();
        let first_at_or_after = |k: &Bytes| self.entries.partition_point(|(e, _)| e < k);
        let after_last_at_or_before = |k: &Bytes| self.entries.partition_point(|(e, _)| e <= k);
        self.pos = match to {
            Move::First => (n > 0).then_some(0),
            Move::Last => n.checked_sub(1),
            Move::Seek(k) => Some(first_at_or_after(k)).filter(|&i| i < n),
            Move::SeekForPrev(k) => after_last_at_or_before(k).checked_sub(1),
            Move::Next => self.pos.map(|p| p + 1).filter(|&i| i < n),
            Move::Prev => self.pos.and_then(|p| p.checked_sub(1)),
        };
        Out::At(self.pos.map(|i| self.entries[i].clone()))
    }
}

fn unwrap_bound(b: &Option<Bytes>) -> Option<Vec<u8>> {
    b.as_ref().map(|b| b.0.clone())
}

/// Applies one write to the families of `fams`.
pub fn apply_write(fams: &mut [Model], w: &Write) {
    match w {
        Write::Put { cf, key, value } => {
            fams[*cf].insert(key.0.clone(), value.0.clone());
        }
        Write::Delete { cf, key } => {
            fams[*cf].remove(&key.0);
        }
        Write::DeleteRange { cf, begin, end } => {
            if begin < end {
                let gone: Vec<Vec<u8>> = fams[*cf]
                    .range(begin.0.clone()..end.0.clone())
                    .map(|(k, _)| k.clone())
                    .collect();
                for k in gone {
                    fams[*cf].remove(&k);
                }
            }
        }
        Write::Merge { cf, key, operand } => {
            let m = &mut fams[*cf];
            let v = match m.get(&key.0) {
                Some(old) => [old.as_slice(), b",", &operand.0].concat(),
                None => operand.0.clone(),
            };
            m.insert(key.0.clone(), v);
        }
    }
}

/// The entries of `m`, in order.
pub fn entries(m: &Model) -> Vec<(Bytes, Bytes)> {
    m.iter()
        .map(|(k, v)| (Bytes(k.clone()), Bytes(v.clone())))
        .collect()
}

/// Family `cf` at snapshot slot `snap` (the latest when it is empty).
fn view(snaps: &[Option<Vec<Model>>], fams: &[Model], snap: &Option<usize>, cf: usize) -> Model {
    match snap.and_then(|s| snaps[s].as_ref()) {
        Some(s) => s[cf].clone(),
        None => fams[cf].clone(),
    }
}

/// What each of `ops` returns when run on an empty DB.
pub fn expected(ops: &[Op]) -> Vec<Out> {
    let mut fams: Vec<Model> = vec![Model::new(); FAMILIES.len()];
    let mut snaps: Vec<Option<Vec<Model>>> = vec![None; SNAPSHOT_SLOTS];
    let mut iters: Vec<Option<ModelIter>> = vec![None; ITERATOR_SLOTS];
    let mut out = Vec::with_capacity(ops.len());
    for op in ops {
        out.push(match op {
            Op::Write(w) => {
                apply_write(&mut fams, w);
                Out::Done
            }
            Op::Batch(ws) => {
                for w in ws {
                    apply_write(&mut fams, w);
                }
                Out::Done
            }
            Op::Get { cf, key, snap, .. } => Out::Value(
                view(&snaps, &fams, snap, *cf)
                    .get(&key.0)
                    .cloned()
                    .map(Bytes),
            ),
            Op::MultiGet { keys, snap } => {
                let m = view(&snaps, &fams, snap, 0);
                Out::Values(
                    keys.iter()
                        .map(|k| m.get(&k.0).cloned().map(Bytes))
                        .collect(),
                )
            }
            Op::Prefix(p) => {
                let m = view(&snaps, &fams, &p.snap, p.cf);
                let found = m.iter().filter(|(k, _)| k.starts_with(&p.prefix.0));
                let found = found
                    .take(p.limit)
                    .map(|(k, v)| (Bytes(k.clone()), Bytes(v.clone())));
                Out::Entries(found.collect())
            }
            Op::Scan {
                range,
                reverse,
                limit,
            } => {
                let mut it = ModelIter::open(&snaps, &fams, range);
                if *reverse {
                    it.entries.reverse();
                }
                it.entries.truncate(*limit);
                Out::Entries(it.entries)
            }
            Op::Snapshot { slot } => {
                snaps[*slot] = Some(fams.clone());
                Out::Done
            }
            Op::ReleaseSnapshot { slot } => {
                snaps[*slot] = None;
                Out::Done
            }
            Op::IterOpen { slot, range } => {
                iters[*slot] = Some(ModelIter::open(&snaps, &fams, range));
                Out::Done
            }
            Op::IterMove { slot, to } => match &mut iters[*slot] {
                Some(it) => it.step(to),
                None => Out::At(None),
            },
            Op::IterClose { slot } => {
                iters[*slot] = None;
                Out::Done
            }
            Op::Flush { .. } | Op::Compact { .. } => Out::Done,
            Op::Reopen => {
                snaps.iter_mut().for_each(|s| *s = None);
                iters.iter_mut().for_each(|i| *i = None);
                Out::Done
            }
            Op::Checkpoint => Out::Families(fams.iter().map(entries).collect()),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(s: &str) -> Bytes {
        Bytes(s.as_bytes().to_vec())
    }

    fn put(cf: usize, k: &str, v: &str) -> Op {
        Op::Write(Write::Put {
            cf,
            key: b(k),
            value: b(v),
        })
    }

    fn at(k: &str, v: &str) -> Out {
        Out::At(Some((b(k), b(v))))
    }

    #[test]
    fn merges_append_and_range_deletes_drop_the_range_in_one_family() {
        let ops = vec![
            put(0, "a", "1"),
            put(0, "b", "2"),
            put(1, "b", "other"),
            Op::Write(Write::Merge {
                cf: 0,
                key: b("a"),
                operand: b("x"),
            }),
            Op::Write(Write::Merge {
                cf: 0,
                key: b("z"),
                operand: b("y"),
            }),
            Op::Write(Write::DeleteRange {
                cf: 0,
                begin: b("b"),
                end: b("c"),
            }),
            Op::Checkpoint,
        ];
        let out = expected(&ops);
        let fams = vec![
            vec![(b("a"), b("1,x")), (b("z"), b("y"))],
            vec![(b("b"), b("other"))],
            vec![],
        ];
        assert_eq!(out.last(), Some(&Out::Families(fams)));
    }

    #[test]
    fn an_iterator_keeps_its_view_and_its_bounds_and_stops_at_the_ends() {
        let ops = vec![
            put(0, "a", "1"),
            put(0, "b", "2"),
            put(0, "c", "3"),
            Op::IterOpen {
                slot: 0,
                range: Range {
                    cf: 0,
                    lower: Some(b("b")),
                    upper: None,
                    snap: None,
                },
            },
            put(0, "d", "4"),
            Op::IterMove {
                slot: 0,
                to: Move::Seek(b("a")),
            },
            Op::IterMove {
                slot: 0,
                to: Move::Next,
            },
            Op::IterMove {
                slot: 0,
                to: Move::Next,
            },
            Op::IterMove {
                slot: 0,
                to: Move::Prev,
            },
            Op::IterMove {
                slot: 0,
                to: Move::SeekForPrev(b("bb")),
            },
            Op::IterMove {
                slot: 0,
                to: Move::Prev,
            },
            Op::IterMove {
                slot: 1,
                to: Move::First,
            },
        ];
        let out = expected(&ops);
        assert_eq!(
            out[5..],
            [
                at("b", "2"),
                at("c", "3"),
                Out::At(None),
                Out::At(None),
                at("b", "2"),
                Out::At(None),
                Out::At(None),
            ]
        );
    }

    #[test]
    fn a_snapshot_reads_what_was_there_until_a_reopen_drops_it() {
        let get = Op::Get {
            cf: 0,
            key: b("k"),
            snap: Some(2),
            pinned: false,
        };
        let ops = vec![
            put(0, "k", "old"),
            Op::Snapshot { slot: 2 },
            put(0, "k", "new"),
            get.clone(),
            Op::Reopen,
            get,
        ];
        let out = expected(&ops);
        assert_eq!(out[3], Out::Value(Some(b("old"))));
        assert_eq!(out[5], Out::Value(Some(b("new"))));
    }
}
