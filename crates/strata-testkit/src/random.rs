//! The keys, values, scans, snapshots and crashes the randomized model
//! tests draw, and the entries a bounded scan of the model holds.

use std::ops::{Bound, Range};

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use strata::fs::fault::FaultInjectionFs;
use strata::{Db, DbIterator, ReadOptions, Snapshot};

use crate::{show, Model};

/// What a randomized run draws from: its seed, the step it is at, a
/// generator seeded with the seed and the size of its key space.
#[derive(Debug)]
pub struct Draws {
    /// The run's seed.
    pub seed: u64,
    /// The step the run is at (the run counts its steps here).
    pub step: u64,
    /// The generator, seeded with [`Draws::seed`].
    pub rng: StdRng,
    /// The size of the key space: [`key`] 0 to `nkeys - 1`.
    pub nkeys: u32,
    /// The lengths of the occasional big value.
    big: Range<usize>,
}

impl Draws {
    /// Draws for the run of `seed` over `nkeys` keys, its big values
    /// `big` bytes long, at step 0.
    pub fn new(seed: u64, nkeys: u32, big: Range<usize>) -> Draws {
        Draws {
            seed,
            step: 0,
            rng: StdRng::seed_from_u64(seed),
            nkeys,
            big,
        }
    }

    /// `seed S step N`, to begin a failure message.
    pub fn ctx(&self) -> String {
        format!("seed {} step {}", self.seed, self.step)
    }

    /// A key as [`rand_key`] draws it.
    pub fn key(&mut self) -> Vec<u8> {
        rand_key(&mut self.rng, self.nkeys)
    }

    /// A value as [`rand_value`] draws it.
    pub fn value(&mut self) -> Vec<u8> {
        rand_value(&mut self.rng, self.seed, self.step, self.big.clone())
    }

    /// Scan bounds as [`rand_bounds`] draws them.
    pub fn bounds(&mut self) -> (Option<Vec<u8>>, Option<Vec<u8>>) {
        rand_bounds(&mut self.rng, self.nkeys)
    }

    /// A scan as [`Scan::draw`] draws it.
    pub fn scan(&mut self) -> Scan {
        Scan::draw(&mut self.rng, self.nkeys)
    }

    /// A `compact_range` range as [`rand_compact_range`] draws it.
    pub fn compact_range(&mut self) -> (Option<Vec<u8>>, Option<Vec<u8>>) {
        rand_compact_range(&mut self.rng, self.nkeys)
    }
}

/// Key number `i`: five digits, every seventh with a long suffix so that
/// keys of different lengths share prefixes.
pub fn key(i: u32) -> Vec<u8> {
    if i.is_multiple_of(7) {
        format!("{i:05}-with-a-longer-shared-suffix").into_bytes()
    } else {
        format!("{i:05}").into_bytes()
    }
}

/// One of `nkeys` keys, or (one time in 50) a key outside that space:
/// empty, between two keys, or after them all.
pub fn rand_key(rng: &mut impl Rng, nkeys: u32) -> Vec<u8> {
    if rng.gen_ratio(1, 50) {
        match rng.gen_range(0..3) {
            0 => b"".to_vec(),
            1 => format!("{:05}x", rng.gen_range(0..nkeys)).into_bytes(),
            _ => b"zzzz".to_vec(),
        }
    } else {
        key(rng.gen_range(0..nkeys))
    }
}

/// A value that starts `seed:step:` (so a wrong value names where it was
/// written) padded with one letter: empty one time in 100, `big` bytes
/// long one time in 100, else 1 to 119 bytes.
pub fn rand_value(rng: &mut impl Rng, seed: u64, step: u64, big: Range<usize>) -> Vec<u8> {
    let len = match rng.gen_range(0..100) {
        0 => 0,
        1 => rng.gen_range(big),
        _ => rng.gen_range(1..120),
    };
    let mut v = format!("{seed}:{step}:").into_bytes();
    let fill = rng.gen_range(b'a'..=b'z');
    v.resize(len.max(v.len()), fill);
    if len == 0 {
        v.clear();
    }
    v
}

/// A lower and an upper scan bound, each present half the time.
pub fn rand_bounds(rng: &mut impl Rng, nkeys: u32) -> (Option<Vec<u8>>, Option<Vec<u8>>) {
    let lower = rng.gen_bool(0.5).then(|| rand_key(rng, nkeys));
    let upper = rng.gen_bool(0.5).then(|| rand_key(rng, nkeys));
    (lower, upper)
}

/// The range of a `compact_range`: the whole key space half the time,
/// else between two keys of the `nkeys`, in order.
pub fn rand_compact_range(rng: &mut impl Rng, nkeys: u32) -> (Option<Vec<u8>>, Option<Vec<u8>>) {
    if rng.gen_bool(0.5) {
        return (None, None);
    }
    let a = rand_key(rng, nkeys);
    let b = rand_key(rng, nkeys);
    (Some(a.clone().min(b.clone())), Some(a.max(b)))
}

/// Takes a snapshot of `db` and keeps it with a copy of `model` (while
/// fewer than `max` are held, 6 times in 10), or else releases a random
/// one of `held`.
pub fn take_or_release<M: Clone>(
    rng: &mut impl Rng,
    held: &mut Vec<(Snapshot, M)>,
    max: usize,
    db: &Db,
    model: &M,
) {
    if held.len() < max && rng.gen_bool(0.6) {
        held.push((db.snapshot(), model.clone()));
    } else if !held.is_empty() {
        let i = rng.gen_range(0..held.len());
        held.swap_remove(i);
    }
}

/// A copy of a random one of `items`; `None` when there is none.
pub fn pick<T: Clone>(rng: &mut impl Rng, items: &[T]) -> Option<T> {
    (!items.is_empty()).then(|| items[rng.gen_range(0..items.len())].clone())
}

/// Simulates power loss as the model tests do: 7 times in 10 the file
/// system freezes first (like a kill: nothing the closing DB does reaches
/// the disk), `close` drops the DB, then the crash drops what was not
/// durable, half the time keeping a torn part of it. Returns the choices
/// (`freeze=..., torn=...`) for failure messages.
pub fn crash(fs: &FaultInjectionFs, rng: &mut impl Rng, close: impl FnOnce()) -> String {
    let freeze = rng.gen_bool(0.7);
    if freeze {
        fs.set_active(false);
    }
    close();
    let torn = rng.gen_bool(0.5).then(|| rng.gen::<u64>());
    fs.set_torn_writes(torn);
    fs.crash().unwrap();
    fs.set_active(true);
    format!("freeze={freeze}, torn={torn:?}")
}

/// A bounded scan: its bounds, its direction and how many entries it reads.
#[derive(Debug, Clone)]
pub struct Scan {
    /// The inclusive lower bound, if any.
    pub lower: Option<Vec<u8>>,
    /// The exclusive upper bound, if any.
    pub upper: Option<Vec<u8>>,
    /// Whether the scan runs from the end.
    pub reverse: bool,
    /// How many entries it reads at most.
    pub limit: usize,
}

impl Scan {
    /// Draws a scan: bounds as [`rand_bounds`] draws them, reverse 4 times
    /// in 10, 1 to 59 entries.
    pub fn draw(rng: &mut impl Rng, nkeys: u32) -> Scan {
        let (lower, upper) = rand_bounds(rng, nkeys);
        let reverse = rng.gen_bool(0.4);
        let limit = rng.gen_range(1..60);
        Scan {
            lower,
            upper,
            reverse,
            limit,
        }
    }

    /// Read options with the scan's bounds, at `snapshot`.
    pub fn read_options(&self, snapshot: Option<Snapshot>) -> ReadOptions {
        ReadOptions::default()
            .snapshot(snapshot)
            .iterate_lower_bound(self.lower.clone())
            .iterate_upper_bound(self.upper.clone())
    }

    /// Runs the scan on `it` (an iterator opened with
    /// [`Scan::read_options`]) and checks it returns what it would of `m`;
    /// `what` begins the failure message.
    pub fn check(&self, it: DbIterator, m: &Model, what: &str) {
        let it = if self.reverse { it.reverse() } else { it };
        let got: Vec<(Vec<u8>, Vec<u8>)> = it
            .take(self.limit)
            .collect::<strata::Result<_>>()
            .unwrap_or_else(|e| panic!("{what}: {e}"));
        let want = expected_scan(m, &self.lower, &self.upper, self.reverse, self.limit);
        assert!(
            got == want,
            "{what} reverse={} lower={:?} upper={:?}: got {} entries, want {}; first keys got {:?} want {:?}",
            self.reverse,
            self.lower.as_deref().map(show),
            self.upper.as_deref().map(show),
            got.len(),
            want.len(),
            got.first().map(|e| show(&e.0)),
            want.first().map(|e| show(&e.0)),
        );
    }
}

/// The model's entries in `[lower, upper)` (none when `lower >= upper`).
pub fn model_range<'a>(
    m: &'a Model,
    lower: &Option<Vec<u8>>,
    upper: &Option<Vec<u8>>,
) -> Vec<(&'a Vec<u8>, &'a Vec<u8>)> {
    if let (Some(l), Some(u)) = (lower, upper) {
        if l >= u {
            return Vec::new();
        }
    }
    let lo = lower
        .as_ref()
        .map_or(Bound::Unbounded, |l| Bound::Included(l.clone()));
    let hi = upper
        .as_ref()
        .map_or(Bound::Unbounded, |u| Bound::Excluded(u.clone()));
    m.range::<Vec<u8>, _>((lo, hi)).collect()
}

/// What a scan of `m` over `[lower, upper)` yields: the first `limit`
/// entries, in reverse order when `reverse` is set.
pub fn expected_scan(
    m: &Model,
    lower: &Option<Vec<u8>>,
    upper: &Option<Vec<u8>>,
    reverse: bool,
    limit: usize,
) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut entries = model_range(m, lower, upper);
    if reverse {
        entries.reverse();
    }
    entries
        .into_iter()
        .take(limit)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::rngs::StdRng;
    use rand::SeedableRng;

    fn model(keys: &[&str]) -> Model {
        keys.iter()
            .map(|k| (k.as_bytes().to_vec(), k.as_bytes().to_vec()))
            .collect()
    }

    #[test]
    fn a_scan_with_crossed_bounds_is_empty() {
        let m = model(&["a", "b", "c"]);
        let (l, u) = (Some(b"c".to_vec()), Some(b"a".to_vec()));
        assert!(model_range(&m, &l, &u).is_empty());
    }

    #[test]
    fn a_scan_keeps_the_lower_bound_and_drops_the_upper() {
        let m = model(&["a", "b", "c", "d"]);
        let (l, u) = (Some(b"b".to_vec()), Some(b"d".to_vec()));
        let keys: Vec<Vec<u8>> = expected_scan(&m, &l, &u, false, 10)
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(keys, vec![b"b".to_vec(), b"c".to_vec()]);
        let rev = expected_scan(&m, &None, &None, true, 2);
        assert_eq!(rev[0].0, b"d".to_vec());
        assert_eq!(rev.len(), 2);
    }

    #[test]
    fn values_name_their_seed_and_step_and_keys_stay_in_their_space() {
        let mut rng = StdRng::seed_from_u64(7);
        for _ in 0..2_000 {
            let v = rand_value(&mut rng, 3, 9, 5_000..6_000);
            assert!(v.is_empty() || v.starts_with(b"3:9:"), "{v:?}");
            assert!(v.len() < 6_000);
            let k = rand_key(&mut rng, 10);
            let s = String::from_utf8(k).unwrap();
            assert!(
                s.is_empty() || s == "zzzz" || s[..5].parse::<u32>().unwrap() < 10,
                "{s}"
            );
        }
    }
}
