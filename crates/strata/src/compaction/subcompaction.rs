//! Subcompaction boundaries: user keys that split a compaction's key space
//! into ranges of about equal input bytes, so that the ranges can be
//! compacted on parallel threads (RocksDB's `GenSubcompactionBoundaries`).
//! See `docs/design/subcompactions.md`.
//!
//! Files only record their smallest and largest keys and their size, so the
//! input bytes are modelled as spread evenly over each file's key range. To
//! measure "evenly", keys are mapped to numbers: the bytes that follow the
//! common prefix of all input keys, read as a big-endian `u64` (8 bytes,
//! zero-padded). The estimated bytes below any key is then a sum of
//! clamped linear terms, one per file, and each boundary is the key where
//! that sum reaches the next multiple of `total / ranges`. A boundary
//! within a small tolerance of a file's own bound snaps to that bound.

use std::sync::Arc;

use super::task::CompactionTask;
use crate::types::user_key;
use crate::version::edit::FileMetaData;

/// A boundary may move this fraction of an ideal range's bytes to land on a
/// real file bound instead of an interpolated key.
const SNAP_FRACTION: f64 = 1.0 / 16.0;

/// True if RocksDB would split this task into subcompactions
/// (`Compaction::ShouldFormSubcompactions`): `max_subcompactions > 1`, not a
/// trivial move, and an L0 -> Lbase compaction, a manual compaction into a
/// level >= 1, or a universal compaction into a level >= 1 of a tree with
/// more than one level.
pub fn should_form_subcompactions(
    task: &CompactionTask,
    max_subcompactions: usize,
    num_levels: usize,
) -> bool {
    if max_subcompactions <= 1 || task.trivial_move || task.output_level == 0 {
        return false;
    }
    if task.reason.is_universal() {
        return num_levels > 1;
    }
    match task.reason {
        super::CompactionReason::ManualCompaction => true,
        _ => task.level == 0,
    }
}

/// One input file in the byte model: bytes spread evenly over `[lo, hi]`
/// (a point mass when `lo == hi`).
#[derive(Debug, Clone, Copy)]
struct Span {
    lo: u64,
    hi: u64,
    bytes: f64,
}

/// The byte model of a task's inputs.
struct Model {
    prefix: Vec<u8>,
    spans: Vec<Span>,
    total: f64,
    min_key: Vec<u8>,
    max_key: Vec<u8>,
    /// Distinct file bounds (user keys), sorted, with their positions.
    bounds: Vec<(Vec<u8>, u64)>,
}

fn common_prefix_len(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// The 8 bytes of `key` after the first `skip`, zero-padded, as a number.
fn position(key: &[u8], skip: usize) -> u64 {
    let mut b = [0u8; 8];
    for (slot, byte) in b.iter_mut().zip(key.iter().skip(skip)) {
        *slot = *byte;
    }
    u64::from_be_bytes(b)
}

impl Model {
    fn new<'a>(files: impl Iterator<Item = &'a Arc<FileMetaData>>) -> Option<Model> {
        let files: Vec<(&[u8], &[u8], u64)> = files
            .map(|f| (user_key(&f.smallest), user_key(&f.largest), f.file_size))
            .collect();
        let (first_lo, _, _) = files.first()?;
        let mut min_key: &[u8] = first_lo;
        let mut max_key: &[u8] = first_lo;
        let mut plen = first_lo.len();
        for &(s, l, _) in &files {
            plen = plen
                .min(common_prefix_len(first_lo, s))
                .min(common_prefix_len(first_lo, l));
            min_key = min_key.min(s);
            max_key = max_key.max(l);
        }
        let mut spans: Vec<Span> = files
            .iter()
            .map(|&(s, l, size)| {
                let (lo, hi) = (position(s, plen), position(l, plen));
                Span {
                    lo: lo.min(hi),
                    hi: lo.max(hi),
                    bytes: size as f64,
                }
            })
            .collect();
        // A fixed order keeps the float sums, and so the boundaries,
        // independent of the order the inputs come in.
        spans.sort_by(|a, b| {
            (a.lo, a.hi)
                .cmp(&(b.lo, b.hi))
                .then(a.bytes.total_cmp(&b.bytes))
        });
        let total = spans.iter().map(|s| s.bytes).sum();
        let mut bounds: Vec<(Vec<u8>, u64)> = files
            .iter()
            .flat_map(|&(s, l, _)| [s, l])
            .map(|k| (k.to_vec(), position(k, plen)))
            .collect();
        bounds.sort();
        bounds.dedup_by(|a, b| a.0 == b.0);
        Some(Model {
            prefix: first_lo.get(..plen).unwrap_or(&[]).to_vec(),
            spans,
            total,
            min_key: min_key.to_vec(),
            max_key: max_key.to_vec(),
            bounds,
        })
    }

    /// Estimated bytes at positions below `x`.
    fn below(&self, x: u64) -> f64 {
        self.spans
            .iter()
            .map(|s| {
                if x <= s.lo {
                    0.0
                } else if x >= s.hi {
                    s.bytes
                } else {
                    s.bytes * ((x - s.lo) as f64 / (s.hi - s.lo) as f64)
                }
            })
            .sum()
    }

    /// Estimated bytes of user keys below `key`.
    #[cfg(test)]
    fn below_key(&self, key: &[u8]) -> f64 {
        // Keys outside the common prefix sort before or after every input.
        let n = self.prefix.len();
        match key.get(..n) {
            Some(p) if p == self.prefix.as_slice() => self.below(position(key, n)),
            _ if key < self.prefix.as_slice() => 0.0,
            _ => self.total,
        }
    }

    /// The smallest position at which `below` reaches `q`.
    fn quantile(&self, q: f64) -> u64 {
        let (mut lo, mut hi) = (0u64, u64::MAX);
        if self.below(hi) < q {
            return hi;
        }
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            if self.below(mid) >= q {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        lo
    }

    /// The user key of position `x` (common prefix, then the 8 position
    /// bytes without trailing zeros).
    fn key_at(&self, x: u64) -> Vec<u8> {
        let mut k = self.prefix.clone();
        let bytes = x.to_be_bytes();
        let used = bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
        k.extend_from_slice(&bytes[..used]);
        k
    }
}

/// Number of ranges worth forming: at most `max_subcompactions`, and no
/// range smaller than the output file size target (as RocksDB, whose range
/// target is `max(total / N, MaxFileSizeForLevel(output))`).
fn planned_ranges(total: f64, target_file_size: u64, max_subcompactions: usize) -> usize {
    let target = target_file_size.max(1) as f64;
    if total <= target {
        return 1;
    }
    let by_size = (total / target).ceil();
    if by_size >= max_subcompactions as f64 {
        max_subcompactions
    } else {
        by_size as usize
    }
}

/// Boundaries splitting `task`'s key space into at most `max_subcompactions`
/// ranges of about equal estimated input bytes: `b[0] < b[1] < ...`, range 0
/// is every user key `< b[0]`, range i is `b[i-1] <= key < b[i]`, the last
/// is `>= b[last]`. Together the ranges cover every key, and all versions
/// of one user key fall in one range.
///
/// Fewer ranges come back when the inputs are too small (no range below
/// `task.target_file_size`; nothing for a `u64::MAX` target) or have too few
/// distinct keys to split (e.g. every file holds one and the same key).
/// Deterministic: the same inputs in any order give the same boundaries.
pub fn subcompaction_boundaries(task: &CompactionTask, max_subcompactions: usize) -> Vec<Vec<u8>> {
    if max_subcompactions <= 1 {
        return Vec::new();
    }
    let Some(model) = Model::new(task.all_inputs()) else {
        return Vec::new();
    };
    let ranges = planned_ranges(model.total, task.target_file_size, max_subcompactions);
    if ranges <= 1 || model.min_key == model.max_key {
        return Vec::new();
    }
    let ideal = model.total / ranges as f64;
    let tolerance = ideal * SNAP_FRACTION;
    let bound_bytes: Vec<f64> = model.bounds.iter().map(|(_, p)| model.below(*p)).collect();
    let mut out: Vec<Vec<u8>> = Vec::with_capacity(ranges - 1);
    for i in 1..ranges {
        let x = model.quantile(ideal * i as f64);
        // What the cut at x really achieves (a file holding a single key
        // makes the estimate jump past the quantile).
        let reached = model.below(x);
        // The real file bound whose estimate is nearest; on a tie the larger
        // key, so that a cut between two files falls on the next file's
        // first key rather than the previous file's last.
        let nearest = model
            .bounds
            .iter()
            .zip(&bound_bytes)
            .filter(|((k, _), _)| *k > model.min_key)
            .min_by(|((ka, _), a), ((kb, _), b)| {
                (*a - reached)
                    .abs()
                    .total_cmp(&(*b - reached).abs())
                    .then_with(|| kb.cmp(ka))
            });
        let key = match nearest {
            Some(((k, _), b)) if (b - reached).abs() <= tolerance => k.clone(),
            _ => model.key_at(x),
        };
        let fresh = out.last().is_none_or(|prev| key > *prev);
        if fresh && key > model.min_key && key <= model.max_key {
            out.push(key);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::CompactionReason;
    use crate::types::{make_internal_key, ValueType};

    /// One subcompaction's user-key range: `(start, end)`, `start` inclusive,
    /// `end` exclusive, `None` unbounded.
    type KeyRange = (Option<Vec<u8>>, Option<Vec<u8>>);

    /// The ranges the boundaries describe, in key order.
    fn subcompaction_ranges(boundaries: &[Vec<u8>]) -> Vec<KeyRange> {
        let mut out = Vec::with_capacity(boundaries.len() + 1);
        let mut start: Option<Vec<u8>> = None;
        for b in boundaries {
            out.push((start.take(), Some(b.clone())));
            start = Some(b.clone());
        }
        out.push((start, None));
        out
    }

    /// Estimated input bytes of each range (same model as the boundaries; one
    /// entry per range, summing to the inputs' total size up to rounding).
    fn estimate_range_bytes(task: &CompactionTask, boundaries: &[Vec<u8>]) -> Vec<u64> {
        let Some(model) = Model::new(task.all_inputs()) else {
            return vec![0; boundaries.len() + 1];
        };
        let mut out = Vec::with_capacity(boundaries.len() + 1);
        let mut prev = 0.0;
        for b in boundaries {
            let cur = model.below_key(b);
            out.push((cur - prev).max(0.0).round() as u64);
            prev = cur;
        }
        out.push((model.total - prev).max(0.0).round() as u64);
        out
    }

    /// A file holding `keys` (sorted user keys), `entry` bytes each.
    fn file(number: u64, keys: &[Vec<u8>], entry: u64) -> Arc<FileMetaData> {
        let lo = keys.iter().min().cloned().unwrap_or_default();
        let hi = keys.iter().max().cloned().unwrap_or_default();
        Arc::new(FileMetaData {
            number,
            file_size: keys.len() as u64 * entry,
            smallest: make_internal_key(&lo, number, ValueType::Value),
            largest: make_internal_key(&hi, number, ValueType::Value),
            smallest_seq: number,
            largest_seq: number,
            num_entries: keys.len() as u64,
            num_deletions: 0,
            oldest_blob_file: 0,
            newest_key_time: 0,
            wasted_reads: Default::default(),
        })
    }

    fn task(l0: Vec<Arc<FileMetaData>>, l1: Vec<Arc<FileMetaData>>, target: u64) -> CompactionTask {
        CompactionTask {
            level: 0,
            output_level: 1,
            inputs: l0,
            extra_inputs: Vec::new(),
            output_level_inputs: l1,
            score: 1.0,
            reason: CompactionReason::LevelL0FilesNum,
            target_file_size: target,
            trivial_move: false,
        }
    }

    /// A small deterministic generator (xorshift64*).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn between(&mut self, lo: u64, hi: u64) -> u64 {
            lo + self.next() % (hi - lo)
        }
    }

    /// db_bench-style 16-byte keys: the number big-endian, then padding.
    fn bench_key(n: u64) -> Vec<u8> {
        let mut k = n.to_be_bytes().to_vec();
        k.extend_from_slice(b"00000000");
        k
    }

    /// Real bytes per range, counting the actual keys of every file.
    fn actual_range_bytes(files: &[Vec<Vec<u8>>], boundaries: &[Vec<u8>], entry: u64) -> Vec<u64> {
        let mut out = vec![0u64; boundaries.len() + 1];
        for keys in files {
            for k in keys {
                let i = boundaries.partition_point(|b| b <= k);
                out[i] += entry;
            }
        }
        out
    }

    fn check_shape(b: &[Vec<u8>], t: &CompactionTask, n: usize) {
        assert!(b.len() < n.max(1), "{} boundaries for {n} ranges", b.len());
        assert!(b.windows(2).all(|w| w[0] < w[1]), "sorted, distinct");
        let (lo, hi) = t.user_key_range();
        assert!(
            b.iter().all(|k| *k > lo && *k <= hi),
            "inside the inputs' range"
        );
    }

    fn max_over_mean(bytes: &[u64]) -> f64 {
        let mean = bytes.iter().sum::<u64>() as f64 / bytes.len() as f64;
        *bytes.iter().max().unwrap_or(&0) as f64 / mean
    }

    /// L0 files of random keys over the whole space, plus L1 files
    /// partitioning it with densities that differ by up to 16x.
    fn l0_to_l1(
        rng: &mut Rng,
        key: &dyn Fn(u64) -> Vec<u8>,
        space: u64,
    ) -> (Vec<Vec<Vec<u8>>>, CompactionTask) {
        let mut sets = Vec::new();
        let mut l0 = Vec::new();
        for i in 0..4 {
            let mut keys: Vec<_> = (0..1500).map(|_| key(rng.next() % space)).collect();
            keys.sort();
            l0.push(file(100 + i, &keys, 100));
            sets.push(keys);
        }
        let mut l1 = Vec::new();
        let parts = 12;
        for i in 0..parts {
            let (a, b) = (space / parts * i, space / parts * (i + 1));
            let count = 200 * (1 + (i * 7) % 16);
            let mut keys: Vec<_> = (0..count).map(|_| key(rng.between(a, b))).collect();
            keys.sort();
            l1.push(file(i + 1, &keys, 100));
            sets.push(keys);
        }
        (sets, task(l0, l1, 1000))
    }

    #[test]
    fn balanced_on_binary_keys() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (sets, t) = l0_to_l1(&mut rng, &bench_key, 1 << 40);
        for n in [2, 3, 4, 8] {
            let b = subcompaction_boundaries(&t, n);
            check_shape(&b, &t, n);
            assert_eq!(b.len(), n - 1, "enough data for {n} ranges");
            let actual = actual_range_bytes(&sets, &b, 100);
            let ratio = max_over_mean(&actual);
            assert!(
                ratio <= 1.1,
                "n={n}: ranges {actual:?} (max/mean {ratio:.3})"
            );
            // The model's own estimate agrees with the real split.
            let est = estimate_range_bytes(&t, &b);
            assert_eq!(est.iter().sum::<u64>(), actual.iter().sum::<u64>());
            for (e, a) in est.iter().zip(&actual) {
                assert!(
                    (*e as f64 - *a as f64).abs() <= 0.1 * *a as f64,
                    "{est:?} vs {actual:?}"
                );
            }
        }
    }

    #[test]
    fn balanced_on_decimal_keys() {
        // Text keys ("0000000000123456") are not linear in the position
        // model; per-file bounds keep the error moderate.
        let mut rng = Rng(7);
        let (sets, t) = l0_to_l1(&mut rng, &|n| format!("{n:016}").into_bytes(), 10_000_000);
        for n in [2, 3, 4, 8] {
            let b = subcompaction_boundaries(&t, n);
            check_shape(&b, &t, n);
            let actual = actual_range_bytes(&sets, &b, 100);
            let ratio = max_over_mean(&actual);
            assert!(
                ratio <= 1.35,
                "n={n}: ranges {actual:?} (max/mean {ratio:.3})"
            );
        }
    }

    #[test]
    fn deterministic_and_independent_of_input_order() {
        let mut rng = Rng(42);
        let (_, t) = l0_to_l1(&mut rng, &bench_key, 1 << 40);
        let a = subcompaction_boundaries(&t, 4);
        assert_eq!(a, subcompaction_boundaries(&t, 4));
        let mut shuffled = t.clone();
        shuffled.inputs.reverse();
        shuffled.output_level_inputs.reverse();
        assert_eq!(a, subcompaction_boundaries(&shuffled, 4));
    }

    #[test]
    fn ranges_cover_everything_without_overlap() {
        let mut rng = Rng(3);
        let (sets, t) = l0_to_l1(&mut rng, &bench_key, 1 << 40);
        let b = subcompaction_boundaries(&t, 4);
        let ranges = subcompaction_ranges(&b);
        assert_eq!(ranges.len(), b.len() + 1);
        assert_eq!(ranges[0].0, None);
        assert_eq!(ranges[ranges.len() - 1].1, None);
        for w in ranges.windows(2) {
            assert_eq!(w[0].1, w[1].0, "each range starts where the previous ends");
        }
        // Every key lands in exactly one range.
        let inside = |k: &Vec<u8>, (s, e): &KeyRange| {
            s.as_ref().is_none_or(|s| k >= s) && e.as_ref().is_none_or(|e| k < e)
        };
        for k in sets.iter().flatten().chain([&Vec::new(), &vec![0xff; 20]]) {
            assert_eq!(ranges.iter().filter(|r| inside(k, r)).count(), 1);
        }
    }

    #[test]
    fn single_file_is_split_evenly() {
        let keys: Vec<_> = (0..4000u64).map(|n| bench_key(n * 1000)).collect();
        let t = task(vec![file(1, &keys, 100)], Vec::new(), 1000);
        let b = subcompaction_boundaries(&t, 4);
        check_shape(&b, &t, 4);
        let actual = actual_range_bytes(&[keys], &b, 100);
        assert_eq!(actual.len(), 4);
        assert!(max_over_mean(&actual) <= 1.01, "{actual:?}");
    }

    #[test]
    fn degenerate_inputs_give_fewer_ranges() {
        let k = |s: &str| s.as_bytes().to_vec();
        // No inputs, or one range asked for.
        assert!(subcompaction_boundaries(&task(Vec::new(), Vec::new(), 1), 4).is_empty());
        let t = task(vec![file(1, &[k("a"), k("z")], 1000)], Vec::new(), 1);
        assert!(subcompaction_boundaries(&t, 1).is_empty());
        assert!(subcompaction_boundaries(&t, 0).is_empty());
        // Every file holds the same single key: it cannot be split.
        let same = task(
            vec![file(1, &[k("m")], 1000), file(2, &[k("m")], 1000)],
            vec![file(3, &[k("m")], 1000)],
            1,
        );
        assert!(subcompaction_boundaries(&same, 4).is_empty());
        // Two distinct keys as point files: at most one boundary, between them.
        let two = task(
            vec![file(1, &[k("a")], 1000), file(2, &[k("b")], 1000)],
            Vec::new(),
            1,
        );
        assert_eq!(subcompaction_boundaries(&two, 4), vec![k("b")]);
        // Too little data for the output file size: no split (RocksDB).
        assert!(subcompaction_boundaries(
            &task(vec![file(1, &[k("a"), k("z")], 1000)], Vec::new(), 5000),
            4
        )
        .is_empty());
        assert!(subcompaction_boundaries(
            &task(vec![file(1, &[k("a"), k("z")], 1000)], Vec::new(), u64::MAX),
            4
        )
        .is_empty());
        // 2000 bytes at 800 per file: ceil(2.5) = 3 ranges, not 4.
        assert_eq!(
            subcompaction_boundaries(
                &task(vec![file(1, &[k("a"), k("z")], 1000)], Vec::new(), 800),
                4
            )
            .len(),
            2
        );
    }

    #[test]
    fn identical_bounds_split_by_interpolation() {
        // Four files over the same [a, z]: the bounds give no cut, the
        // uniform model does.
        let k = |s: &str| s.as_bytes().to_vec();
        let l0: Vec<_> = (0..4)
            .map(|i| file(i + 1, &[k("a"), k("z")], 1000))
            .collect();
        let t = task(l0, Vec::new(), 1);
        let b = subcompaction_boundaries(&t, 2);
        assert_eq!(b.len(), 1);
        // Halfway between 'a' and 'z' ('a' + 12.5): "m\x80", up to float
        // rounding in the last bits.
        assert!(
            b[0].as_slice() > b"m\x7f".as_slice() && b[0].as_slice() <= b"m\x80".as_slice(),
            "{b:?}"
        );
        let est = estimate_range_bytes(&t, &b);
        assert!(
            est[0].abs_diff(4000) <= 1 && est[1].abs_diff(4000) <= 1,
            "{est:?}"
        );
    }

    #[test]
    fn snaps_to_file_bounds() {
        // Two equal L1 files: the midpoint of the bytes is file 2's first key.
        let a: Vec<_> = (0..100u64).map(bench_key).collect();
        let b: Vec<_> = (1000..1100u64).map(bench_key).collect();
        let t = task(Vec::new(), vec![file(1, &a, 10), file(2, &b, 10)], 1);
        assert_eq!(subcompaction_boundaries(&t, 2), vec![bench_key(1000)]);
    }

    #[test]
    fn eligibility_follows_rocksdb() {
        let k = |s: &str| s.as_bytes().to_vec();
        let mut t = task(vec![file(1, &[k("a"), k("z")], 1000)], Vec::new(), 1);
        assert!(should_form_subcompactions(&t, 2, 7));
        assert!(!should_form_subcompactions(&t, 1, 7));
        t.level = 1;
        t.output_level = 2;
        assert!(
            !should_form_subcompactions(&t, 4, 7),
            "L1 -> L2 is not split"
        );
        t.reason = CompactionReason::ManualCompaction;
        assert!(should_form_subcompactions(&t, 4, 7));
        t.reason = CompactionReason::UniversalSizeRatio;
        assert!(should_form_subcompactions(&t, 4, 7));
        t.output_level = 0;
        assert!(!should_form_subcompactions(&t, 4, 7), "universal into L0");
        t.output_level = 2;
        t.trivial_move = true;
        assert!(!should_form_subcompactions(&t, 4, 7));
    }
}
