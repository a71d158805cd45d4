//! `Db::range` and `Db::prefix` against a `BTreeMap` model: random bounds
//! (included, excluded, unbounded; keys present, absent, empty, with 0x00
//! and 0xff bytes; starts past their ends), forward and reversed, over data
//! spread across the memtable and tables, at a snapshot, in a column
//! family; and prefixes that end in 0xff bytes.

use std::ops::{Bound, RangeBounds};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use strata::{Db, DbIterator, ReadOptions};
use strata_testkit::{small_options, tempdir, Model};

/// A key over a small alphabet, so that keys share prefixes and bounds hit
/// them: 0-4 bytes of 0x00, 0x01, 'a', 'b', 0xfe, 0xff.
fn random_key(rng: &mut StdRng) -> Vec<u8> {
    const ALPHABET: [u8; 6] = [0x00, 0x01, b'a', b'b', 0xfe, 0xff];
    let len = rng.gen_range(0..5);
    (0..len)
        .map(|_| ALPHABET[rng.gen_range(0..ALPHABET.len())])
        .collect()
}

fn random_bound(rng: &mut StdRng) -> Bound<Vec<u8>> {
    match rng.gen_range(0..5) {
        0 => Bound::Unbounded,
        1 | 2 => Bound::Included(random_key(rng)),
        _ => Bound::Excluded(random_key(rng)),
    }
}

fn collect(it: DbIterator) -> Vec<(Vec<u8>, Vec<u8>)> {
    it.map(|r| r.unwrap()).collect()
}

/// The model's entries in `r` (`RangeBounds::contains` never panics,
/// unlike `BTreeMap::range` with a start past its end).
fn expected<R: RangeBounds<Vec<u8>>>(model: &Model, r: &R) -> Vec<(Vec<u8>, Vec<u8>)> {
    model
        .iter()
        .filter(|(k, _)| r.contains(*k))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Random puts and deletes, with flushes between some of them, so that
/// keys and their tombstones sit in the memtable and in tables.
fn fill(db: &Db, model: &mut Model, rng: &mut StdRng, ops: u32) {
    for i in 0..ops {
        let k = random_key(rng);
        if rng.gen_ratio(1, 5) {
            db.delete(&k).unwrap();
            model.remove(&k);
        } else {
            let v = format!("v{i}").into_bytes();
            db.put(&k, &v).unwrap();
            model.insert(k, v);
        }
        if i % 300 == 299 {
            db.flush().unwrap();
        }
    }
}

#[test]
fn ranges_match_the_model_for_random_bounds() {
    let dir = tempdir();
    let db = Db::open(dir.path(), small_options()).unwrap();
    let mut rng = StdRng::seed_from_u64(11);
    let mut model = Model::new();
    fill(&db, &mut model, &mut rng, 1500);
    assert!(model.len() > 100, "{} keys", model.len());
    let mut nonempty = 0;
    for _ in 0..1500 {
        let r = (random_bound(&mut rng), random_bound(&mut rng));
        let want = expected(&model, &r);
        nonempty += usize::from(!want.is_empty());
        assert_eq!(collect(db.range(r.clone())), want, "{r:?}");
        let mut back = want.clone();
        back.reverse();
        assert_eq!(
            collect(db.range(r.clone()).reverse()),
            back,
            "{r:?} reversed"
        );
    }
    assert!(nonempty > 500, "{nonempty} non-empty ranges");
}

#[test]
fn the_range_syntaxes_are_exact() {
    let dir = tempdir();
    let db = Db::open(dir.path(), small_options()).unwrap();
    for k in ["a", "b", "b\0", "ba", "c"] {
        db.put(k, k).unwrap();
    }
    let keys = |it: DbIterator| -> Vec<String> {
        it.map(|r| String::from_utf8(r.unwrap().0).unwrap())
            .collect()
    };
    assert_eq!(keys(db.range("b".."c")), ["b", "b\0", "ba"]);
    assert_eq!(keys(db.range("b"..="c")), ["b", "b\0", "ba", "c"]);
    assert_eq!(keys(db.range(.."b")), ["a"]);
    assert_eq!(keys(db.range(..="b")), ["a", "b"]);
    assert_eq!(keys(db.range("ba"..)), ["ba", "c"]);
    assert_eq!(keys(db.range::<str, _>(..)).len(), 5);
    // An excluded start skips exactly that key, not the keys it prefixes.
    let r = (Bound::Excluded(&b"b"[..]), Bound::Included(&b"ba"[..]));
    assert_eq!(keys(db.range::<[u8], _>(r)), ["b\0", "ba"]);
    let r = (
        Bound::Excluded(b"b".to_vec()),
        Bound::Excluded(b"ba".to_vec()),
    );
    assert_eq!(keys(db.range(r)), ["b\0"]);
    // Empty and inverted ranges hold nothing, and do not panic.
    assert!(keys(db.range("b".."b")).is_empty());
    assert!(keys(db.range("c".."a")).is_empty());
    assert!(keys(db.range("c"..="a").reverse()).is_empty());
    let r = (Bound::Excluded("b"), Bound::Excluded("b"));
    assert!(keys(db.range::<str, _>(r)).is_empty());
    // Seeks stay inside the range.
    let mut it = db.range("b".."c");
    it.seek(b"a");
    assert_eq!(it.key(), b"b");
    it.seek(b"bz");
    assert!(!it.valid());
    it.seek_to_last();
    assert_eq!(it.key(), b"ba");
    it.seek_for_prev(b"zzz");
    assert_eq!(it.key(), b"ba");
}

#[test]
fn ranges_at_a_snapshot_in_a_family_and_within_read_options_bounds() {
    let dir = tempdir();
    let db = Db::open(dir.path(), small_options()).unwrap();
    let cf = db.create_column_family("cf", small_options()).unwrap();
    let mut rng = StdRng::seed_from_u64(12);
    let mut model = Model::new();
    fill(&db, &mut model, &mut rng, 600);
    let snapshot = db.snapshot();
    let at_snapshot = model.clone();
    fill(&db, &mut model, &mut rng, 600);
    let mut cf_model = Model::new();
    for i in 0..400u32 {
        let k = random_key(&mut rng);
        db.put_cf(&cf, &k, i.to_string()).unwrap();
        cf_model.insert(k, i.to_string().into_bytes());
    }
    let snap_opts = ReadOptions::default().snapshot(Some(snapshot));
    let bounded = ReadOptions::default()
        .iterate_lower_bound(Some(vec![0x01]))
        .iterate_upper_bound(Some(vec![0xfe]));
    let within = (Bound::Included(vec![0x01]), Bound::Excluded(vec![0xfe]));
    for _ in 0..300 {
        let r = (random_bound(&mut rng), random_bound(&mut rng));
        assert_eq!(
            collect(db.range_opt(&snap_opts, r.clone())),
            expected(&at_snapshot, &r),
            "{r:?} at the snapshot"
        );
        assert_eq!(
            collect(
                db.range_cf(&cf, &ReadOptions::default(), r.clone())
                    .unwrap()
            ),
            expected(&cf_model, &r),
            "{r:?} in the family"
        );
        let both: Model = expected(&model, &within).into_iter().collect();
        assert_eq!(
            collect(db.range_opt(&bounded, r.clone())),
            expected(&both, &r),
            "{r:?} within the options' bounds"
        );
    }
}

#[test]
fn prefixes_match_the_model_also_when_they_end_in_0xff() {
    let dir = tempdir();
    let db = Db::open(dir.path(), small_options()).unwrap();
    let mut model = Model::new();
    let fixed: [&[u8]; 12] = [
        b"a",
        b"a\xff",
        b"a\xff\x00",
        b"a\xff\xff",
        b"a\xff\xff\x01",
        b"b",
        b"b\x00",
        b"\xfe\xff",
        b"\xff",
        b"\xff\xff",
        b"\xff\xff\x00",
        b"\xff\xff\xff\xff",
    ];
    for (i, k) in fixed.iter().enumerate() {
        db.put(k, [i as u8]).unwrap();
        model.insert(k.to_vec(), vec![i as u8]);
    }
    let mut rng = StdRng::seed_from_u64(13);
    fill(&db, &mut model, &mut rng, 800);
    let with_prefix = |m: &Model, p: &[u8]| -> Vec<(Vec<u8>, Vec<u8>)> {
        m.iter()
            .filter(|(k, _)| k.starts_with(p))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    };
    let mut prefixes: Vec<Vec<u8>> = fixed.iter().map(|p| p.to_vec()).collect();
    prefixes.extend([vec![], vec![0xff; 3], vec![b'a', 0xff, 0xff, 0xff]]);
    prefixes.extend((0..200).map(|_| random_key(&mut rng)));
    for p in &prefixes {
        let want = with_prefix(&model, p);
        assert_eq!(collect(db.prefix(p)), want, "prefix {p:x?}");
        let mut back = want.clone();
        back.reverse();
        assert_eq!(
            collect(db.prefix(p).reverse()),
            back,
            "prefix {p:x?} reversed"
        );
    }
    // The ones that end in 0xff bytes, spelled out.
    let keys = |p: &[u8]| -> Vec<Vec<u8>> { db.prefix(p).map(|r| r.unwrap().0).collect() };
    assert!(keys(b"a\xff").iter().all(|k| k.starts_with(b"a\xff")));
    assert!(keys(b"a\xff").contains(&b"a\xff\xff\x01".to_vec()));
    assert!(!keys(b"a\xff").contains(&b"b".to_vec()));
    assert!(keys(b"\xff\xff").contains(&b"\xff\xff\xff\xff".to_vec()));
    assert!(!keys(b"\xff\xff").contains(&b"\xff".to_vec()));
    // In a family and at a snapshot.
    let cf = db.create_column_family("cf", small_options()).unwrap();
    db.put_cf(&cf, b"\xff\x01", b"1").unwrap();
    db.put_cf(&cf, b"\xfe", b"2").unwrap();
    let got: Vec<Vec<u8>> = db
        .prefix_cf(&cf, &ReadOptions::default(), b"\xff")
        .unwrap()
        .map(|r| r.unwrap().0)
        .collect();
    assert_eq!(got, [b"\xff\x01".to_vec()]);
    let snap = ReadOptions::default().snapshot(Some(db.snapshot()));
    db.put(b"a\xff\x02", b"later").unwrap();
    assert_eq!(
        collect(db.prefix_opt(&snap, b"a\xff")),
        with_prefix(&model, b"a\xff")
    );
}
