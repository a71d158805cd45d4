//! Where a leveled compaction cuts its output files, besides the size
//! target: at the boundaries of the files it overlaps in the first deeper
//! level that has any (the *grandparents*, `Version::grandparents`), so
//! that a later compaction of each output file overlaps few grandparent
//! files. Without this, an L0 -> L1 compaction of random
//! keys writes L1 files that each span a wide key range, and every later
//! L1 -> L2 compaction rewrites a large share of L2 (the write
//! amplification it saves is discussed in docs/design/engine.md).
//!
//! The rules, as RocksDB applies them (`level_compaction_dynamic_file_size`,
//! `max_compaction_bytes`), are checked only when the next key crosses a
//! grandparent file boundary:
//! 1. cut if the current output plus the grandparent bytes it overlaps
//!    exceeds `max_compaction_bytes` (a later compaction of it would be too
//!    big);
//! 2. cut if the key skips over a whole grandparent file bigger than 1/8 of
//!    the target file size (so that later compactions need not read it);
//! 3. cut if the output has reached 50% of the target size, plus 5% per
//!    boundary it crossed (at most 90%): files end on grandparent
//!    boundaries at the cost of somewhat smaller files.
//!
//! Rules 2 and 3 are the "dynamic file size" ones; rule 1 always applies.
//!
//! With grandparents to cut at, an output file ends by size only at twice
//! the target ([`GrandparentCutter::max_file_size`], RocksDB's
//! `max_output_file_size` for a non-bottommost output). Rule 3 ends most
//! files near the target on a boundary anyway; the files that run on are
//! the ones crossing no boundary, i.e. lying in a gap of the next level,
//! and one such file can later move down whole. With the target as the hard
//! limit, the file reaching it just before a grandparent boundary ended
//! there and the next one began with a sliver of that grandparent file, so
//! it could no longer move down over the gap it covered: a large L1 file
//! then merges with an L2 file it shares a few keys with, where RocksDB
//! moves it down whole.
//! This is policy only: [`GrandparentCutter`] sees user keys and sizes and
//! answers yes or no; the output writer does the cutting.

/// One grandparent file: smallest and largest user key, size in bytes.
#[derive(Debug, Clone)]
pub struct Grandparent {
    /// Smallest user key.
    pub smallest: Vec<u8>,
    /// Largest user key.
    pub largest: Vec<u8>,
    /// File size in bytes.
    pub size: u64,
}

/// Decides output file cuts from the grandparent files (module docs).
#[derive(Debug)]
pub struct GrandparentCutter {
    /// Grandparent files in key order, with disjoint user-key ranges.
    files: Vec<Grandparent>,
    target_file_size: u64,
    max_compaction_bytes: u64,
    dynamic: bool,
    /// Index of the grandparent file at or after the last key.
    index: usize,
    /// The last key lies before `files[index]` (between files).
    in_gap: bool,
    seen_key: bool,
    /// Grandparent bytes the current output file overlaps.
    overlapped: u64,
    /// Grandparent boundaries crossed since the current output began.
    boundaries: u64,
}

impl GrandparentCutter {
    /// A cutter over `files` (sorted, disjoint) for outputs of
    /// `target_file_size` bytes; `dynamic` enables rules 2 and 3.
    pub fn new(
        files: Vec<Grandparent>,
        target_file_size: u64,
        max_compaction_bytes: u64,
        dynamic: bool,
    ) -> Self {
        GrandparentCutter {
            files,
            target_file_size,
            max_compaction_bytes,
            dynamic,
            index: 0,
            in_gap: true,
            seen_key: false,
            overlapped: 0,
            boundaries: 0,
        }
    }

    /// Moves past the grandparent boundaries up to `key`; returns how many
    /// were crossed since the previous key.
    fn advance(&mut self, key: &[u8]) -> u64 {
        let mut crossed = 0;
        while let Some(f) = self.files.get(self.index) {
            if self.in_gap {
                if key < f.smallest.as_slice() {
                    break;
                }
                if self.seen_key {
                    crossed += 1;
                    self.overlapped += f.size;
                }
                self.in_gap = false;
            } else {
                if key <= f.largest.as_slice() {
                    break;
                }
                if self.seen_key {
                    crossed += 1;
                }
                self.in_gap = true;
                self.index += 1;
            }
        }
        if !self.seen_key {
            self.overlapped = self.current_overlap();
        }
        self.seen_key = true;
        self.boundaries += crossed;
        crossed
    }

    /// Bytes of the grandparent file holding the last key (0 in a gap).
    fn current_overlap(&self) -> u64 {
        match (self.in_gap, self.files.get(self.index)) {
            (false, Some(f)) => f.size,
            _ => 0,
        }
    }

    /// Called with each new user key before it is written; `current_size`
    /// is the size of the output file being written (`None` when no file is
    /// open). True when the file should end before this key.
    pub fn should_cut(&mut self, key: &[u8], current_size: Option<u64>) -> bool {
        let before = self.overlapped;
        let crossed = self.advance(key);
        let Some(size) = current_size else {
            return false;
        };
        if crossed == 0 {
            return false;
        }
        if self.overlapped + size > self.max_compaction_bytes {
            return true;
        }
        if !self.dynamic {
            return false;
        }
        let skippable = if self.in_gap { 2 } else { 3 };
        if crossed >= skippable && self.overlapped - before > self.target_file_size / 8 {
            return true;
        }
        let pct = 50 + (self.boundaries * 5).min(40);
        size >= self.target_file_size.div_ceil(100) * pct
    }

    /// The size at which an output file ends whatever the boundaries: twice
    /// `target_file_size` when there are grandparent files to cut at, the
    /// target itself when there are none (module docs).
    pub fn max_file_size(&self) -> u64 {
        if self.files.is_empty() {
            self.target_file_size
        } else {
            self.target_file_size.saturating_mul(2)
        }
    }

    /// A new output file starts at the key last given to `should_cut`.
    pub fn file_started(&mut self) {
        self.boundaries = 0;
        self.overlapped = self.current_overlap();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gp(lo: &str, hi: &str, size: u64) -> Grandparent {
        Grandparent {
            smallest: lo.as_bytes().to_vec(),
            largest: hi.as_bytes().to_vec(),
            size,
        }
    }

    /// Feeds keys with a fixed size per entry, cutting as told; returns the
    /// output files as key lists.
    fn run(c: &mut GrandparentCutter, keys: &[&str], entry: u64, target: u64) -> Vec<Vec<String>> {
        let mut files: Vec<Vec<String>> = Vec::new();
        let mut size: Option<u64> = None;
        for k in keys {
            let cut = c.should_cut(k.as_bytes(), size) || size.is_some_and(|s| s >= target);
            if cut {
                size = None;
            }
            if size.is_none() {
                files.push(Vec::new());
                c.file_started();
            }
            files.last_mut().unwrap().push(k.to_string());
            size = Some(size.unwrap_or(0) + entry);
        }
        files
    }

    #[test]
    fn pre_cuts_at_a_grandparent_boundary_past_half_the_target() {
        // Grandparents [a..c] [d..f] [g..i]; entries of 30 bytes, target 100.
        let gps = vec![gp("a", "c", 50), gp("d", "f", 50), gp("g", "i", 50)];
        let mut c = GrandparentCutter::new(gps, 100, u64::MAX, true);
        let files = run(&mut c, &["a", "b", "c", "d", "e", "f", "g", "h"], 30, 100);
        // Keys inside [a..c] cross no boundary; d crosses two (the end of
        // [a..c], the start of [d..f]) with 90 bytes written, past the 60%
        // threshold: the cut comes before d.
        assert_eq!(files[0], vec!["a", "b", "c"]);
        assert_eq!(files[1], vec!["d", "e", "f"]);
        assert_eq!(files[2], vec!["g", "h"]);
    }

    #[test]
    fn without_dynamic_sizes_only_the_size_target_and_max_bytes_cut() {
        let gps = vec![gp("a", "c", 50), gp("d", "f", 50), gp("g", "i", 50)];
        let mut c = GrandparentCutter::new(gps, 100, u64::MAX, false);
        let files = run(&mut c, &["a", "b", "c", "d", "e", "f", "g", "h"], 30, 100);
        assert_eq!(files.len(), 2, "{files:?}");
        assert_eq!(files[0], vec!["a", "b", "c", "d"]);
    }

    #[test]
    fn max_compaction_bytes_cuts_when_overlap_grows_too_big() {
        let gps = vec![gp("a", "b", 500), gp("c", "d", 500), gp("e", "f", 500)];
        let mut c = GrandparentCutter::new(gps, 1 << 30, 1100, false);
        let files = run(&mut c, &["a", "c", "e", "f"], 10, 1 << 30);
        // a overlaps 500, c adds 500 (1000 + 10 <= 1100), e would reach 1500.
        assert_eq!(files[0], vec!["a", "c"]);
        assert_eq!(files[1], vec!["e", "f"]);
    }

    #[test]
    fn skipping_a_big_grandparent_file_cuts_before_it_is_pinned() {
        // Keys jump from b to z over the big file [m..n].
        let gps = vec![gp("a", "c", 10), gp("m", "n", 1000), gp("y", "z", 10)];
        let mut c = GrandparentCutter::new(gps, 4_000, u64::MAX, true);
        let files = run(&mut c, &["a", "b", "z"], 1, 4_000);
        assert_eq!(files, vec![vec!["a", "b"], vec!["z"]]);
        // A small skipped file does not cut.
        let gps = vec![gp("a", "c", 10), gp("m", "n", 100), gp("y", "z", 10)];
        let mut c = GrandparentCutter::new(gps, 4_000, u64::MAX, true);
        assert_eq!(run(&mut c, &["a", "b", "z"], 1, 4_000).len(), 1);
    }

    #[test]
    fn a_file_in_a_grandparent_gap_grows_to_twice_the_target() {
        // Grandparents cover [a..c] only; keys d.. lie in the gap after it.
        let mut c = GrandparentCutter::new(vec![gp("a", "c", 50)], 100, u64::MAX, true);
        assert_eq!(c.max_file_size(), 200);
        let keys = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"];
        let files = run(&mut c, &keys, 30, 200);
        // The cut comes where the keys leave [a..c] (90 bytes, past 55%);
        // the gap file then runs to 200 bytes, not 100.
        assert_eq!(files[0], vec!["a", "b", "c"]);
        assert_eq!(files[1], vec!["d", "e", "f", "g", "h", "i", "j"]);
        assert_eq!(files[2], vec!["k"]);
        // Without grandparents the target stays the limit.
        assert_eq!(
            GrandparentCutter::new(Vec::new(), 100, 0, true).max_file_size(),
            100
        );
    }

    #[test]
    fn no_grandparents_never_cuts() {
        let mut c = GrandparentCutter::new(Vec::new(), 100, 0, true);
        assert!(!c.should_cut(b"a", None));
        assert!(!c.should_cut(b"b", Some(1_000)));
    }
}
