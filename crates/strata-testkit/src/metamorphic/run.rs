//! Runs a sequence on a real DB under one option set and records what each
//! operation returned.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use strata::{ColumnFamily, Db, DbIterator, ReadOptions, Snapshot, WriteBatch, WriteOptions};

use super::ops::{Bytes, Move, Op, Out, Range, Write, FAMILIES, ITERATOR_SLOTS, SNAPSHOT_SLOTS};
use super::options::OptionSet;
use crate::TempDir;

/// An open DB with the snapshots and iterators the sequence holds.
struct Live {
    db: Db,
    /// Handles of [`FAMILIES`], in order.
    cfs: Vec<ColumnFamily>,
    snaps: Vec<Option<Snapshot>>,
    iters: Vec<Option<DbIterator>>,
}

/// The DB of one run: its directory, option set and what is open.
struct Runner<'a> {
    set: &'a OptionSet,
    dir: TempDir,
    wo: WriteOptions,
    live: Option<Live>,
    checkpoints: u64,
}

/// Opens the DB in `path` with every family of [`FAMILIES`].
fn open(path: &Path, set: &OptionSet) -> strata::Result<(Db, Vec<ColumnFamily>)> {
    let opts = set.db_options();
    let fams = FAMILIES.iter().map(|n| (*n, opts.clone()));
    let db = Db::open_cf(path, opts.clone(), fams)?;
    let cfs = FAMILIES
        .iter()
        .map(|n| db.column_family(n).expect("a family just opened"))
        .collect();
    Ok((db, cfs))
}

fn text(e: strata::Error) -> Out {
    Out::Error(e.to_string())
}

fn done(r: strata::Result<()>) -> Out {
    r.map_or_else(text, |()| Out::Done)
}

fn pair((k, v): (Vec<u8>, Vec<u8>)) -> (Bytes, Bytes) {
    (Bytes(k), Bytes(v))
}

fn add(b: &mut WriteBatch, cfs: &[ColumnFamily], w: &Write) {
    match w {
        Write::Put { cf, key, value } => b.put_cf(&cfs[*cf], &key.0, &value.0),
        Write::Delete { cf, key } => b.delete_cf(&cfs[*cf], &key.0),
        Write::DeleteRange { cf, begin, end } => b.delete_range_cf(&cfs[*cf], &begin.0, &end.0),
        Write::Merge { cf, key, operand } => b.merge_cf(&cfs[*cf], &key.0, &operand.0),
    }
}

/// Every entry of `it`, or its error.
fn collect(
    it: impl Iterator<Item = strata::Result<(Vec<u8>, Vec<u8>)>>,
) -> strata::Result<Vec<(Bytes, Bytes)>> {
    it.map(|r| r.map(pair)).collect()
}

/// Where `it` is after a move.
fn at(it: &DbIterator) -> Out {
    if it.valid() {
        Out::At(Some((Bytes(it.key().to_vec()), Bytes(it.value().to_vec()))))
    } else {
        match it.status() {
            Ok(()) => Out::At(None),
            Err(e) => text(e),
        }
    }
}

impl Live {
    fn snap(&self, slot: &Option<usize>) -> Option<Snapshot> {
        slot.and_then(|s| self.snaps[s].clone())
    }

    /// An iterator over `r`.
    fn iter(&self, r: &Range) -> strata::Result<DbIterator> {
        let bound = |b: &Option<Bytes>| b.as_ref().map(|b| b.0.clone());
        let ro = ReadOptions::default()
            .snapshot(self.snap(&r.snap))
            .iterate_lower_bound(bound(&r.lower))
            .iterate_upper_bound(bound(&r.upper));
        self.db.iter_cf(&self.cfs[r.cf], &ro)
    }

    /// Drops snapshots and iterators, then closes the DB.
    fn close(mut self) -> strata::Result<()> {
        self.iters.clear();
        self.snaps.clear();
        self.db.close()
    }
}

impl Runner<'_> {
    fn live(&mut self) -> &mut Live {
        self.live.as_mut().expect("the DB is open")
    }

    fn reopen(&mut self) -> strata::Result<()> {
        if let Some(live) = self.live.take() {
            live.close()?;
        }
        let (db, cfs) = open(self.dir.path(), self.set)?;
        self.live = Some(Live {
            db,
            cfs,
            snaps: vec![None; SNAPSHOT_SLOTS],
            iters: (0..ITERATOR_SLOTS).map(|_| None).collect(),
        });
        Ok(())
    }

    fn checkpoint(&mut self) -> strata::Result<Vec<Vec<(Bytes, Bytes)>>> {
        self.checkpoints += 1;
        let path = self
            .dir
            .path()
            .join(format!("checkpoint-{}", self.checkpoints));
        self.live().db.create_checkpoint(&path)?;
        let (db, cfs) = open(&path, self.set)?;
        let all = cfs
            .iter()
            .map(|cf| collect(db.iter_cf(cf, &ReadOptions::default())?))
            .collect::<strata::Result<Vec<_>>>()?;
        db.close()?;
        // The run's directory goes at the end in any case.
        let _ = std::fs::remove_dir_all(&path);
        Ok(all)
    }

    fn step(&mut self, op: &Op) -> Out {
        let wo = self.wo.clone();
        match op {
            Op::Reopen => return done(self.reopen()),
            Op::Checkpoint => return self.checkpoint().map_or_else(text, Out::Families),
            _ => {}
        }
        let l = self.live();
        match op {
            Op::Write(w) => {
                let mut b = WriteBatch::new();
                add(&mut b, &l.cfs, w);
                done(l.db.write_opt(&wo, b))
            }
            Op::Batch(ws) => {
                let mut b = WriteBatch::new();
                ws.iter().for_each(|w| add(&mut b, &l.cfs, w));
                done(l.db.write_opt(&wo, b))
            }
            Op::Get {
                cf,
                key,
                snap,
                pinned,
            } => {
                let ro = ReadOptions::default().snapshot(l.snap(snap));
                let cf = &l.cfs[*cf];
                let r = if *pinned {
                    l.db.get_pinned_cf(cf, &ro, &key.0)
                        .map(|v| v.map(|p| p.into_vec()))
                } else {
                    l.db.get_cf_opt(cf, &ro, &key.0)
                };
                r.map_or_else(text, |v| Out::Value(v.map(Bytes)))
            }
            Op::MultiGet { keys, snap } => {
                let ro = ReadOptions::default().snapshot(l.snap(snap));
                let keys: Vec<&[u8]> = keys.iter().map(|k| k.0.as_slice()).collect();
                let r: strata::Result<Vec<Option<Bytes>>> =
                    l.db.multi_get(&ro, &keys)
                        .into_iter()
                        .map(|v| v.map(|v| v.map(|p| Bytes(p.into_vec()))))
                        .collect();
                r.map_or_else(text, Out::Values)
            }
            Op::Prefix(p) => {
                let ro = ReadOptions::default().snapshot(l.snap(&p.snap));
                let r =
                    l.db.prefix_cf(&l.cfs[p.cf], &ro, &p.prefix.0)
                        .and_then(|it| collect(it.take(p.limit)));
                r.map_or_else(text, Out::Entries)
            }
            Op::Scan {
                range,
                reverse,
                limit,
            } => {
                let r = l.iter(range).and_then(|it| {
                    let it = if *reverse { it.reverse() } else { it };
                    collect(it.take(*limit))
                });
                r.map_or_else(text, Out::Entries)
            }
            Op::Snapshot { slot } => {
                l.snaps[*slot] = Some(l.db.snapshot());
                Out::Done
            }
            Op::ReleaseSnapshot { slot } => {
                l.snaps[*slot] = None;
                Out::Done
            }
            Op::IterOpen { slot, range } => {
                l.iters[*slot] = None;
                match l.iter(range) {
                    Ok(it) => {
                        l.iters[*slot] = Some(it);
                        Out::Done
                    }
                    Err(e) => text(e),
                }
            }
            Op::IterMove { slot, to } => match &mut l.iters[*slot] {
                None => Out::At(None),
                Some(it) => {
                    match to {
                        Move::First => it.seek_to_first(),
                        Move::Last => it.seek_to_last(),
                        Move::Seek(k) => it.seek(&k.0),
                        Move::SeekForPrev(k) => it.seek_for_prev(&k.0),
                        Move::Next => it.advance(),
                        Move::Prev => it.retreat(),
                    }
                    at(it)
                }
            },
            Op::IterClose { slot } => {
                l.iters[*slot] = None;
                Out::Done
            }
            Op::Flush { cf } => done(l.db.flush_cf(&l.cfs[*cf])),
            Op::Compact { cf, begin, end } => done(l.db.compact_range_cf(
                &l.cfs[*cf],
                begin.as_ref().map(|b| b.0.as_slice()),
                end.as_ref().map(|b| b.0.as_slice()),
            )),
            Op::Reopen | Op::Checkpoint => unreachable!("handled above"),
        }
    }
}

/// What each of `ops` returns on a new DB opened with `set`, up to the
/// first panic (recorded as an error, ending the run). A final step
/// closes the DB; its error, if any, is recorded as one more output.
pub fn run(ops: &[Op], set: &OptionSet) -> Vec<Out> {
    let dir = if set.needs_disk() {
        crate::disk_tempdir()
    } else {
        crate::tempdir()
    };
    let mut r = Runner {
        set,
        dir,
        wo: set.write_options(),
        live: None,
        checkpoints: 0,
    };
    let mut outs = Vec::with_capacity(ops.len());
    let result = catch_unwind(AssertUnwindSafe(|| {
        if let Err(e) = r.reopen() {
            return Err(format!("open: {e}"));
        }
        for op in ops {
            let o = r.step(op);
            outs.push(o);
        }
        match r.live.take().map(Live::close) {
            Some(Err(e)) => Err(format!("close: {e}")),
            _ => Ok(()),
        }
    }));
    match result {
        Ok(Ok(())) => {}
        Ok(Err(e)) => outs.push(Out::Error(e)),
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            outs.push(Out::Error(format!("panic: {msg}")));
        }
    }
    outs
}
