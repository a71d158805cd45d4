//! The keys, values and scan bounds the randomized model tests draw, and
//! the entries a bounded scan of the model holds.

use std::ops::{Bound, Range};

use rand::Rng;

use crate::Model;

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
