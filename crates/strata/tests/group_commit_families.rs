//! Group commit with column families: writers to different families,
//! queued behind one another, share one WAL record and one memtable pass
//! (`WriteBatch::append` merges the families a group writes to). Every
//! write lands in its own family, before and after a reopen, whichever
//! writer led the group.

use std::sync::Arc;

use strata::stats::Ticker;
use strata::{Db, Options, WriteBatch};

const FAMILIES: [&str; 3] = ["default", "a", "b"];
const WRITERS: usize = 6;
const BATCHES: usize = 400;

fn key(w: usize, i: usize) -> Vec<u8> {
    format!("w{w}-{i:05}").into_bytes()
}

fn open(dir: &std::path::Path) -> Db {
    let opts = Options::default()
        .create_missing_column_families(true)
        .statistics(true);
    let fams = FAMILIES.iter().map(|n| (*n, opts.clone()));
    Db::open_cf(dir, opts.clone(), fams).unwrap()
}

/// Writer `w`'s batch `i`: a put into family `w % 3`, and every third
/// batch a put of the same key into the next family too.
fn batch(db: &Db, w: usize, i: usize) -> WriteBatch {
    let mut b = WriteBatch::new();
    let cf = |n: usize| db.column_family(FAMILIES[n % 3]).unwrap();
    b.put_cf(&cf(w), key(w, i), format!("{w}:{i}"));
    if i.is_multiple_of(3) {
        b.put_cf(&cf(w + 1), key(w, i), format!("{w}:{i}+"));
    }
    b
}

fn check(db: &Db) {
    for w in 0..WRITERS {
        let home = db.column_family(FAMILIES[w % 3]).unwrap();
        let next = db.column_family(FAMILIES[(w + 1) % 3]).unwrap();
        for i in 0..BATCHES {
            let got = db.get_cf(&home, key(w, i)).unwrap();
            assert_eq!(
                got,
                Some(format!("{w}:{i}").into_bytes()),
                "writer {w} batch {i}"
            );
            let got = db.get_cf(&next, key(w, i)).unwrap();
            let want = i
                .is_multiple_of(3)
                .then(|| format!("{w}:{i}+").into_bytes());
            assert_eq!(got, want, "writer {w} batch {i}, next family");
        }
    }
}

#[test]
fn writes_grouped_across_families_land_in_their_families() {
    let dir = strata_testkit::tempdir();
    let db = Arc::new(open(dir.path()));
    let threads: Vec<_> = (0..WRITERS)
        .map(|w| {
            let db = db.clone();
            std::thread::spawn(move || {
                for i in 0..BATCHES {
                    db.write(batch(&db, w, i)).unwrap();
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
    let grouped = db.statistics().unwrap().ticker(Ticker::WriteDoneByOther);
    check(&db);
    Arc::try_unwrap(db).ok().unwrap().close().unwrap();
    check(&open(dir.path()));
    // On a loaded machine writers queue behind one another; on an idle
    // one they may not, and then the test says so rather than fail.
    if grouped == 0 {
        eprintln!("no write was grouped with another writer's: the grouping path did not run");
    }
}
