//! Merge operators end to end: `uint64add` counters across flushes,
//! compactions and reopens; snapshots that keep old operands visible;
//! iterators in both directions over merged keys; a merge onto a value in a
//! blob file; a read without the operator; an application's own operator;
//! batches and column families; the statistics and the OPTIONS file.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use strata::merge::UInt64AddOperator;
use strata::stats::{Histogram, Ticker};
use strata::{Db, Error, MergeOperator, Options, ReadOptions, WriteBatch};
use strata_testkit::{key, options_file, small_options_with as small, tempdir};

fn counters() -> Options {
    small("merge_operator=uint64add")
}

fn n(x: u64) -> Vec<u8> {
    x.to_le_bytes().to_vec()
}

fn num(v: &[u8]) -> u64 {
    UInt64AddOperator::decode(v)
}

fn files(db: &Db) -> u64 {
    (0..7)
        .map(|l| {
            db.property(&format!("rocksdb.num-files-at-level{l}"))
                .unwrap()
                .parse::<u64>()
                .unwrap()
        })
        .sum()
}

/// The expected count of key `i` after `rounds` rounds of adding `i + r`.
fn expect(i: u32, rounds: u32) -> u64 {
    (0..rounds).map(|r| u64::from(i + r)).sum()
}

#[test]
fn counters_add_up_across_flushes_compactions_and_reopen() {
    let dir = tempdir();
    let keys = 400;
    let rounds = 12;
    {
        let db = Db::open(dir.path(), counters()).unwrap();
        for r in 0..rounds {
            for i in 0..keys {
                db.merge(key(i), n(u64::from(i + r))).unwrap();
            }
            if r % 3 == 2 && r + 1 < rounds {
                db.flush().unwrap();
            }
        }
        db.wait_for_compaction().unwrap();
        assert!(files(&db) > 0);
        for i in 0..keys {
            assert_eq!(
                num(&db.get(key(i)).unwrap().unwrap()),
                expect(i, rounds),
                "key {i}"
            );
        }
        let stats = db.statistics().unwrap();
        assert!(stats.ticker(Ticker::MergeOperationTotalTime) > 0);
        assert_eq!(stats.ticker(Ticker::NumberMergeFailures), 0);
        let h = stats.histogram_data(Histogram::ReadNumMergeOperands);
        assert!(h.count > 0 && h.max >= 1, "{h:?}");
    }
    // The last rounds are only in the WAL: reopen replays them.
    let db = Db::open(dir.path(), counters()).unwrap();
    let got: Vec<(Vec<u8>, Vec<u8>)> = db.iter().map(|r| r.unwrap()).collect();
    assert_eq!(got.len(), keys as usize);
    for (i, (k, v)) in got.iter().enumerate() {
        assert_eq!(k, &key(i as u32));
        assert_eq!(num(v), expect(i as u32, rounds));
    }
    // After a full compaction every key is one value at the bottom.
    db.compact_range(None, None).unwrap();
    let keys_refs: Vec<Vec<u8>> = (0..keys).map(key).collect();
    let refs: Vec<&[u8]> = keys_refs.iter().map(Vec::as_slice).collect();
    for (i, r) in db
        .multi_get(&ReadOptions::default(), &refs)
        .into_iter()
        .enumerate()
    {
        assert_eq!(num(&r.unwrap().unwrap()), expect(i as u32, rounds));
    }
    let before = db
        .statistics()
        .unwrap()
        .histogram_data(Histogram::ReadNumMergeOperands)
        .count;
    db.get(key(7)).unwrap();
    let after = db
        .statistics()
        .unwrap()
        .histogram_data(Histogram::ReadNumMergeOperands)
        .count;
    assert_eq!(before, after, "a compacted key reads without operands");
    // More merges on top of compacted values, then a reopen.
    db.merge(key(3), n(1000)).unwrap();
    drop(db);
    let db = Db::open(dir.path(), counters()).unwrap();
    assert_eq!(
        num(&db.get(key(3)).unwrap().unwrap()),
        expect(3, rounds) + 1000
    );
    let text = std::fs::read_to_string(options_file(dir.path())).unwrap();
    assert!(
        text.contains("  merge_operator=UInt64AddOperator\n"),
        "{text}"
    );
}

#[test]
fn puts_and_deletes_under_merges() {
    let dir = tempdir();
    let db = Db::open(dir.path(), counters()).unwrap();
    db.put(b"a", n(10)).unwrap();
    db.merge(b"a", n(1)).unwrap();
    db.flush().unwrap();
    db.merge(b"a", n(2)).unwrap();
    assert_eq!(num(&db.get(b"a").unwrap().unwrap()), 13);
    db.delete(b"a").unwrap();
    assert_eq!(db.get(b"a").unwrap(), None);
    db.merge(b"a", n(5)).unwrap();
    assert_eq!(num(&db.get(b"a").unwrap().unwrap()), 5);
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    assert_eq!(num(&db.get(b"a").unwrap().unwrap()), 5);
    db.put(b"a", n(100)).unwrap();
    assert_eq!(num(&db.get(b"a").unwrap().unwrap()), 100);
    // A merge onto a key never written starts from nothing.
    db.merge(b"fresh", n(4)).unwrap();
    db.flush().unwrap();
    assert_eq!(num(&db.get(b"fresh").unwrap().unwrap()), 4);
}

#[test]
fn snapshots_keep_the_operands_they_see() {
    let dir = tempdir();
    let db = Db::open(dir.path(), counters()).unwrap();
    db.put(b"k", n(100)).unwrap();
    db.merge(b"k", n(1)).unwrap();
    let s1 = db.snapshot();
    db.merge(b"k", n(10)).unwrap();
    db.flush().unwrap();
    db.merge(b"k", n(20)).unwrap();
    let s2 = db.snapshot();
    db.merge(b"k", n(300)).unwrap();
    db.delete(b"gone").unwrap();
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    let at = |s: &strata::Snapshot| ReadOptions::default().snapshot(Some(s.clone()));
    let check = |db: &Db| {
        assert_eq!(num(&db.get_opt(&at(&s1), b"k").unwrap().unwrap()), 101);
        assert_eq!(num(&db.get_opt(&at(&s2), b"k").unwrap().unwrap()), 131);
        assert_eq!(num(&db.get(b"k").unwrap().unwrap()), 431);
        let scan = |ro: &ReadOptions| -> Vec<u64> {
            db.iter_opt(ro).map(|r| num(&r.unwrap().1)).collect()
        };
        assert_eq!(scan(&at(&s1)), [101]);
        assert_eq!(scan(&at(&s2)), [131]);
        let rev: Vec<u64> = db
            .iter_opt(&at(&s2))
            .reverse()
            .map(|r| num(&r.unwrap().1))
            .collect();
        assert_eq!(rev, [131]);
    };
    check(&db);
    // More merges and another full compaction keep the snapshots' views.
    db.merge(b"k", n(5000)).unwrap();
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    assert_eq!(num(&db.get(b"k").unwrap().unwrap()), 5431);
    assert_eq!(num(&db.get_opt(&at(&s1), b"k").unwrap().unwrap()), 101);
    assert_eq!(num(&db.get_opt(&at(&s2), b"k").unwrap().unwrap()), 131);
    drop((s1, s2));
    db.compact_range(None, None).unwrap();
    assert_eq!(num(&db.get(b"k").unwrap().unwrap()), 5431);
}

/// Appends operands with a `+`, oldest first; counts its calls.
struct Append {
    full: AtomicUsize,
    partial: AtomicUsize,
    partial_merges: bool,
}

impl Append {
    fn new(partial_merges: bool) -> Arc<Self> {
        Arc::new(Append {
            full: AtomicUsize::new(0),
            partial: AtomicUsize::new(0),
            partial_merges,
        })
    }
}

impl MergeOperator for Append {
    fn name(&self) -> &str {
        "TestAppend"
    }
    fn full_merge(&self, _: &[u8], base: Option<&[u8]>, operands: &[&[u8]]) -> Option<Vec<u8>> {
        self.full.fetch_add(1, Ordering::Relaxed);
        if operands.contains(&&b"fail"[..]) {
            return None;
        }
        let mut v = base.map(<[u8]>::to_vec).unwrap_or_else(|| b"[]".to_vec());
        for op in operands {
            v.push(b'+');
            v.extend_from_slice(op);
        }
        Some(v)
    }
    fn partial_merge(&self, _key: &[u8], operands: &[&[u8]]) -> Option<Vec<u8>> {
        if !self.partial_merges || operands.contains(&&b"fail"[..]) {
            return None;
        }
        self.partial.fetch_add(1, Ordering::Relaxed);
        Some(operands.join(&b'+'))
    }
}

fn with_op(op: Arc<dyn MergeOperator>, extra: &str) -> Options {
    small(extra).merge_operator(Some(op))
}

#[test]
fn an_application_operator_sees_operands_oldest_first() {
    for partial_merges in [false, true] {
        let dir = tempdir();
        let op = Append::new(partial_merges);
        let db = Db::open(dir.path(), with_op(op.clone(), "")).unwrap();
        db.put(b"s", b"base").unwrap();
        db.merge(b"s", b"a").unwrap();
        db.flush().unwrap();
        db.merge(b"s", b"b").unwrap();
        db.merge(b"s", b"c").unwrap();
        db.flush().unwrap();
        db.merge(b"s", b"d").unwrap();
        assert_eq!(db.get(b"s").unwrap().unwrap(), b"base+a+b+c+d");
        // Operands only (no base): partial merges in flushes, a full
        // merge from "[]" when read.
        db.merge(b"t", b"1").unwrap();
        db.merge(b"t", b"2").unwrap();
        db.flush().unwrap();
        db.merge(b"t", b"3").unwrap();
        db.flush().unwrap();
        assert_eq!(db.get(b"t").unwrap().unwrap(), b"[]+1+2+3");
        assert_eq!(op.partial.load(Ordering::Relaxed) > 0, partial_merges);
        db.compact_range(None, None).unwrap();
        assert_eq!(db.get(b"s").unwrap().unwrap(), b"base+a+b+c+d");
        assert_eq!(db.get(b"t").unwrap().unwrap(), b"[]+1+2+3");
        drop(db);
        let db = Db::open(dir.path(), with_op(op.clone(), "")).unwrap();
        let all: Vec<_> = db.iter().map(|r| r.unwrap()).collect();
        assert_eq!(
            all,
            vec![
                (b"s".to_vec(), b"base+a+b+c+d".to_vec()),
                (b"t".to_vec(), b"[]+1+2+3".to_vec())
            ]
        );
    }
}

#[test]
fn a_failing_merge_is_an_error_and_compaction_keeps_the_operands() {
    let dir = tempdir();
    let op = Append::new(true);
    let db = Db::open(dir.path(), with_op(op.clone(), "")).unwrap();
    db.put(b"bad", b"v").unwrap();
    db.merge(b"bad", b"fail").unwrap();
    db.merge(b"good", b"x").unwrap();
    let e = db.get(b"bad").unwrap_err();
    assert!(matches!(e, Error::MergeFailed(_)), "{e}");
    assert!(
        e.to_string().contains("'TestAppend'") && e.to_string().contains("'bad'"),
        "{e}"
    );
    let stats = db.statistics().unwrap();
    assert_eq!(stats.ticker(Ticker::NumberMergeFailures), 1);
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    assert!(stats.ticker(Ticker::NumberMergeFailures) >= 2);
    // The entries are intact: a put over them ends the failure.
    assert!(matches!(db.get(b"bad"), Err(Error::MergeFailed(_))));
    let mut it = db.iter();
    it.seek_to_first();
    assert!(!it.valid());
    assert!(matches!(it.status(), Err(Error::MergeFailed(_))));
    assert_eq!(db.get(b"good").unwrap().unwrap(), b"[]+x");
    db.put(b"bad", b"fixed").unwrap();
    assert_eq!(db.get(b"bad").unwrap().unwrap(), b"fixed");
}

#[test]
fn without_the_operator_reads_fail_clearly_and_nothing_is_lost() {
    let dir = tempdir();
    {
        let db = Db::open(dir.path(), counters()).unwrap();
        db.put(b"c", n(1)).unwrap();
        db.merge(b"c", n(2)).unwrap();
        db.flush().unwrap();
        db.merge(b"c", n(3)).unwrap();
        db.put(b"plain", b"p").unwrap();
    }
    {
        let db = Db::open(dir.path(), small("")).unwrap();
        let e = db.get(b"c").unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
        let text = e.to_string();
        assert!(
            text.contains("'c'") && text.contains("merge operator"),
            "{text}"
        );
        let mut it = db.iter();
        it.seek_to_first();
        assert!(!it.valid());
        assert!(matches!(it.status(), Err(Error::InvalidArgument(_))));
        let mut rev = db.iter();
        rev.seek_to_last();
        assert_eq!(rev.key(), b"plain");
        rev.retreat();
        assert!(!rev.valid() && rev.status().is_err());
        // Keys without operands read, writes work, and flushes and
        // compactions keep the operands. `Db::merge` refuses without an
        // operator (RocksDB's "Provide a merge_operator"); a batch's
        // merge is taken.
        assert_eq!(db.get(b"plain").unwrap().unwrap(), b"p");
        let e = db.merge(b"c", n(4)).unwrap_err();
        assert!(matches!(e, Error::NotSupported(_)), "{e}");
        assert!(e.to_string().contains("merge operator"), "{e}");
        let mut b = WriteBatch::new();
        b.merge(b"c", n(4));
        db.write(b).unwrap();
        db.flush().unwrap();
        db.compact_range(None, None).unwrap();
        assert!(db.get(b"c").is_err());
    }
    let db = Db::open(dir.path(), counters()).unwrap();
    assert_eq!(num(&db.get(b"c").unwrap().unwrap()), 10);
}

#[test]
fn iterators_merge_in_both_directions() {
    let dir = tempdir();
    let db = Db::open(dir.path(), counters()).unwrap();
    // Keys: a (put), b (merges only), c (put then merges), d (delete then
    // merge), e (deleted), f (merges only, the last key). Spread over two
    // tables and the memtable.
    db.put(b"a", n(1)).unwrap();
    db.merge(b"b", n(2)).unwrap();
    db.put(b"c", n(30)).unwrap();
    db.put(b"d", n(99)).unwrap();
    db.put(b"e", n(5)).unwrap();
    db.merge(b"f", n(6)).unwrap();
    db.flush().unwrap();
    db.merge(b"b", n(20)).unwrap();
    db.merge(b"c", n(3)).unwrap();
    db.delete(b"d").unwrap();
    db.delete(b"e").unwrap();
    db.flush().unwrap();
    db.merge(b"c", n(300)).unwrap();
    db.merge(b"d", n(4)).unwrap();
    db.merge(b"f", n(60)).unwrap();
    let want: Vec<(Vec<u8>, u64)> = vec![
        (b"a".to_vec(), 1),
        (b"b".to_vec(), 22),
        (b"c".to_vec(), 333),
        (b"d".to_vec(), 4),
        (b"f".to_vec(), 66),
    ];
    let check = |db: &Db| {
        let fwd: Vec<(Vec<u8>, u64)> = db
            .iter()
            .map(|r| r.map(|(k, v)| (k, num(&v))).unwrap())
            .collect();
        assert_eq!(fwd, want);
        let mut rev: Vec<(Vec<u8>, u64)> = db
            .iter()
            .reverse()
            .map(|r| r.map(|(k, v)| (k, num(&v))).unwrap())
            .collect();
        rev.reverse();
        assert_eq!(rev, want);
        // Direction switches on and around merged keys.
        let mut it = db.iter();
        it.seek(b"c");
        assert_eq!((it.key(), num(it.value())), (&b"c"[..], 333));
        it.retreat();
        assert_eq!((it.key(), num(it.value())), (&b"b"[..], 22));
        it.advance();
        assert_eq!((it.key(), num(it.value())), (&b"c"[..], 333));
        it.advance();
        assert_eq!((it.key(), num(it.value())), (&b"d"[..], 4));
        it.advance();
        assert_eq!((it.key(), num(it.value())), (&b"f"[..], 66));
        // Off the end after a merged key, then back.
        it.advance();
        assert!(!it.valid());
        it.seek_to_last();
        assert_eq!((it.key(), num(it.value())), (&b"f"[..], 66));
        it.retreat();
        assert_eq!((it.key(), num(it.value())), (&b"d"[..], 4));
        it.seek(b"f");
        it.retreat();
        assert_eq!((it.key(), num(it.value())), (&b"d"[..], 4));
        it.retreat();
        it.retreat();
        assert_eq!((it.key(), num(it.value())), (&b"b"[..], 22));
        it.advance();
        assert_eq!((it.key(), num(it.value())), (&b"c"[..], 333));
        it.seek_for_prev(b"e");
        assert_eq!((it.key(), num(it.value())), (&b"d"[..], 4));
        it.advance();
        assert_eq!((it.key(), num(it.value())), (&b"f"[..], 66));
        it.status().unwrap();
        // Bounds.
        let ro = ReadOptions::default()
            .iterate_lower_bound(Some(b"b".to_vec()))
            .iterate_upper_bound(Some(b"d".to_vec()));
        let got: Vec<Vec<u8>> = db.iter_opt(&ro).reverse().map(|r| r.unwrap().0).collect();
        assert_eq!(got, [b"c".to_vec(), b"b".to_vec()]);
    };
    check(&db);
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    check(&db);
}

#[test]
fn a_merge_onto_a_value_in_a_blob_file() {
    let dir = tempdir();
    let op = Append::new(true);
    let opts = with_op(op, "enable_blob_files=true;min_blob_size=64");
    let big = vec![b'x'; 1000];
    let mut want = big.clone();
    {
        let db = Db::open(dir.path(), opts.clone()).unwrap();
        db.put(b"blob", &big).unwrap();
        db.put(b"z", b"after").unwrap();
        db.flush().unwrap();
        assert_eq!(db.property("rocksdb.num-blob-files").unwrap(), "1");
        db.merge(b"blob", b"m1").unwrap();
        want.extend_from_slice(b"+m1");
        // The operand in the memtable, the base in a blob file.
        assert_eq!(db.get(b"blob").unwrap().unwrap(), want);
        let fwd: Vec<_> = db.iter().map(|r| r.unwrap()).collect();
        assert_eq!(fwd[0], (b"blob".to_vec(), want.clone()));
        let rev: Vec<_> = db.iter().reverse().map(|r| r.unwrap()).collect();
        assert_eq!(rev[1], (b"blob".to_vec(), want.clone()));
        // The operand in a table over the blob: then a compaction merges
        // them, reading the blob (and may write the result to a new one).
        db.flush().unwrap();
        assert_eq!(db.get(b"blob").unwrap().unwrap(), want);
        db.compact_range(None, None).unwrap();
        assert_eq!(db.get(b"blob").unwrap().unwrap(), want);
        db.merge(b"blob", b"m2").unwrap();
        want.extend_from_slice(b"+m2");
    }
    let db = Db::open(dir.path(), opts).unwrap();
    assert_eq!(db.get(b"blob").unwrap().unwrap(), want);
    db.flush().unwrap();
    db.compact_range(None, None).unwrap();
    assert_eq!(db.get(b"blob").unwrap().unwrap(), want);
    let rev: Vec<_> = db.iter().reverse().map(|r| r.unwrap()).collect();
    assert_eq!(rev[1], (b"blob".to_vec(), want));
}

#[test]
fn batches_and_column_families_have_their_own_operators() {
    let dir = tempdir();
    let opts = with_op(Append::new(false), "");
    let db = Db::open(dir.path(), opts.clone()).unwrap();
    let cf = db
        .create_column_family("counters", "merge_operator=uint64add".parse().unwrap())
        .unwrap();
    let mut b = WriteBatch::new();
    b.merge(b"k", b"x");
    b.merge_cf(&cf, b"k", n(7));
    b.merge(b"k", b"y");
    b.merge_cf(&cf, b"k", n(8));
    db.write(b).unwrap();
    db.merge_cf(&cf, b"k", n(1)).unwrap();
    assert_eq!(db.get(b"k").unwrap().unwrap(), b"[]+x+y");
    assert_eq!(num(&db.get_cf(&cf, b"k").unwrap().unwrap()), 16);
    drop(cf);
    drop(db);
    let db = Db::open_cf(
        dir.path(),
        opts,
        [(
            "counters",
            "merge_operator=uint64add".parse::<Options>().unwrap(),
        )],
    )
    .unwrap();
    let cf = db.column_family("counters").unwrap();
    db.flush_cf(&cf).unwrap();
    assert_eq!(num(&db.get_cf(&cf, b"k").unwrap().unwrap()), 16);
    assert_eq!(db.get(b"k").unwrap().unwrap(), b"[]+x+y");
}
