//! The seeded generator of operation sequences.

use rand::Rng;

use super::ops::{
    Bytes, Move, Op, PrefixScan, Range, Write, FAMILIES, ITERATOR_SLOTS, SNAPSHOT_SLOTS,
};
use crate::random::Draws;

/// Keys a sequence draws from ([`crate::random::key`] 0 to 79, and now
/// and then one outside them): few enough that writes, deletes and reads
/// meet the same keys.
const NKEYS: u32 = 80;

/// The lengths of the occasional big value (past blob files' minimum).
const BIG: std::ops::Range<usize> = 1_000..5_000;

/// Draws `n` operations from `seed`. Writes are about half of them, reads
/// (gets, multi-gets, scans, prefix scans, iterator steps) most of the
/// rest; flushes, compactions, reopens and checkpoints come a few times in
/// a hundred.
pub fn generate(seed: u64, n: usize) -> Vec<Op> {
    let mut d = Draws::new(seed, NKEYS, BIG);
    (0..n)
        .map(|i| {
            d.step = i as u64;
            op(&mut d)
        })
        .collect()
}

fn bytes(v: Vec<u8>) -> Bytes {
    Bytes(v)
}

fn opt(v: Option<Vec<u8>>) -> Option<Bytes> {
    v.map(Bytes)
}

fn family(d: &mut Draws) -> usize {
    // "default" half the time, so that it holds the most data.
    if d.rng.gen_bool(0.5) {
        0
    } else {
        d.rng.gen_range(1..FAMILIES.len())
    }
}

fn snap(d: &mut Draws) -> Option<usize> {
    d.rng
        .gen_bool(0.3)
        .then(|| d.rng.gen_range(0..SNAPSHOT_SLOTS))
}

fn write(d: &mut Draws) -> Write {
    let cf = family(d);
    match d.rng.gen_range(0..100) {
        0..=54 => Write::Put {
            cf,
            key: bytes(d.key()),
            value: bytes(d.value()),
        },
        55..=74 => Write::Delete {
            cf,
            key: bytes(d.key()),
        },
        75..=81 => {
            let (a, b) = (d.key(), d.key());
            Write::DeleteRange {
                cf,
                begin: bytes(a.clone().min(b.clone())),
                end: bytes(a.max(b)),
            }
        }
        _ => {
            // Short operands: a merged value grows with each one.
            let mut operand = d.value();
            operand.truncate(d.rng.gen_range(0..12));
            Write::Merge {
                cf,
                key: bytes(d.key()),
                operand: bytes(operand),
            }
        }
    }
}

fn iter_move(d: &mut Draws) -> Move {
    match d.rng.gen_range(0..20) {
        0..=1 => Move::First,
        2..=3 => Move::Last,
        4..=6 => Move::Seek(bytes(d.key())),
        7..=8 => Move::SeekForPrev(bytes(d.key())),
        9..=15 => Move::Next,
        _ => Move::Prev,
    }
}

fn op(d: &mut Draws) -> Op {
    match d.rng.gen_range(0..1000) {
        0..=429 => Op::Write(write(d)),
        430..=499 => {
            let n = d.rng.gen_range(1..8);
            Op::Batch((0..n).map(|_| write(d)).collect())
        }
        500..=589 => Op::Get {
            cf: family(d),
            key: bytes(d.key()),
            snap: snap(d),
            pinned: d.rng.gen_bool(0.3),
        },
        590..=604 => {
            let n = d.rng.gen_range(1..6);
            Op::MultiGet {
                keys: (0..n).map(|_| bytes(d.key())).collect(),
                snap: snap(d),
            }
        }
        605..=619 => {
            // The first 0 to 5 bytes of a key: "", "0", "00", ... "00012".
            let mut prefix = d.key();
            prefix.truncate(d.rng.gen_range(0..6));
            Op::Prefix(PrefixScan {
                cf: family(d),
                prefix: bytes(prefix),
                limit: d.rng.gen_range(1..40),
                snap: snap(d),
            })
        }
        620..=679 => {
            let s = d.scan();
            Op::Scan {
                range: Range {
                    cf: family(d),
                    lower: opt(s.lower),
                    upper: opt(s.upper),
                    snap: snap(d),
                },
                reverse: s.reverse,
                limit: s.limit,
            }
        }
        680..=709 => Op::Snapshot {
            slot: d.rng.gen_range(0..SNAPSHOT_SLOTS),
        },
        710..=719 => Op::ReleaseSnapshot {
            slot: d.rng.gen_range(0..SNAPSHOT_SLOTS),
        },
        720..=749 => {
            let (lower, upper) = d.bounds();
            Op::IterOpen {
                slot: d.rng.gen_range(0..ITERATOR_SLOTS),
                range: Range {
                    cf: family(d),
                    lower: opt(lower),
                    upper: opt(upper),
                    snap: snap(d),
                },
            }
        }
        750..=929 => Op::IterMove {
            slot: d.rng.gen_range(0..ITERATOR_SLOTS),
            to: iter_move(d),
        },
        930..=939 => Op::IterClose {
            slot: d.rng.gen_range(0..ITERATOR_SLOTS),
        },
        940..=969 => Op::Flush { cf: family(d) },
        970..=984 => {
            let (begin, end) = d.compact_range();
            Op::Compact {
                cf: family(d),
                begin: opt(begin),
                end: opt(end),
            }
        }
        985..=993 => Op::Reopen,
        _ => Op::Checkpoint,
    }
}
