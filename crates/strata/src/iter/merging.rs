//! Merges several sorted internal iterators into one (LevelDB's
//! `MergingIterator`), in both directions. Children are few (memtables, L0
//! files, one per deeper level), so the smallest is found by a linear scan.

use std::cmp::Ordering;

use super::InternalIterator;
use crate::error::Result;
use crate::types::compare_internal_keys;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Direction {
    Forward,
    Reverse,
}

/// The merge of its children, ordered by internal key.
pub struct MergingIterator {
    children: Vec<Box<dyn InternalIterator>>,
    current: Option<usize>,
    direction: Direction,
}

impl MergingIterator {
    /// Merges `children`.
    pub fn new(children: Vec<Box<dyn InternalIterator>>) -> Self {
        MergingIterator {
            children,
            current: None,
            direction: Direction::Forward,
        }
    }

    /// Points `current` at the child with the smallest (`Less`) or largest
    /// (`Greater`) key, reading the entry of a lazily positioned child it
    /// picks (whose key may then move on, so the choice is made again):
    /// the merge's own entry is always a read one, and children that never
    /// reach the front are never read.
    fn find(&mut self, want: Ordering) {
        loop {
            self.find_once(want);
            match self.current {
                Some(i) if self.children[i].is_lazy() => self.children[i].materialize(),
                _ => return,
            }
        }
    }

    fn find_once(&mut self, want: Ordering) {
        let mut best: Option<usize> = None;
        for (i, c) in self.children.iter().enumerate() {
            if !c.valid() {
                // A child that stopped on an error makes the merge stop
                // too: going on without it would show a wrong view.
                if c.status().is_err() {
                    self.current = None;
                    return;
                }
                continue;
            }
            best = match best {
                None => Some(i),
                Some(b) => {
                    if compare_internal_keys(c.key(), self.children[b].key()) == want {
                        Some(i)
                    } else {
                        Some(b)
                    }
                }
            };
        }
        self.current = best;
    }

    fn cur(&self) -> &dyn InternalIterator {
        let i = self.current.expect("valid() checked by caller");
        self.children[i].as_ref()
    }
}

impl InternalIterator for MergingIterator {
    fn valid(&self) -> bool {
        self.current.is_some()
    }
    fn seek_to_first(&mut self) {
        for c in &mut self.children {
            c.seek_to_first();
        }
        self.direction = Direction::Forward;
        self.find(Ordering::Less);
    }
    fn seek_to_last(&mut self) {
        for c in &mut self.children {
            c.seek_to_last();
        }
        self.direction = Direction::Reverse;
        self.find(Ordering::Greater);
    }
    fn seek(&mut self, target: &[u8]) {
        for c in &mut self.children {
            c.seek(target);
        }
        self.direction = Direction::Forward;
        self.find(Ordering::Less);
    }
    fn seek_for_prev(&mut self, target: &[u8]) {
        for c in &mut self.children {
            c.seek_for_prev(target);
        }
        self.direction = Direction::Reverse;
        self.find(Ordering::Greater);
    }
    fn next(&mut self) {
        let Some(cur) = self.current else { return };
        if self.direction != Direction::Forward {
            let key = self.children[cur].key().to_vec();
            for (i, c) in self.children.iter_mut().enumerate() {
                if i == cur {
                    continue;
                }
                c.seek(&key);
                if c.valid() && compare_internal_keys(c.key(), &key) == Ordering::Equal {
                    c.next();
                }
            }
            self.direction = Direction::Forward;
        }
        self.children[cur].next();
        self.find(Ordering::Less);
    }
    fn prev(&mut self) {
        let Some(cur) = self.current else { return };
        if self.direction != Direction::Reverse {
            let key = self.children[cur].key().to_vec();
            for (i, c) in self.children.iter_mut().enumerate() {
                if i == cur {
                    continue;
                }
                c.seek_for_prev(&key);
                if c.valid() && compare_internal_keys(c.key(), &key) == Ordering::Equal {
                    c.prev();
                }
            }
            self.direction = Direction::Reverse;
        }
        self.children[cur].prev();
        self.find(Ordering::Greater);
    }
    fn key(&self) -> &[u8] {
        self.cur().key()
    }
    fn value(&self) -> &[u8] {
        self.cur().value()
    }
    fn pinned_value(&self) -> Option<crate::pinnable::PinnableSlice> {
        self.cur().pinned_value()
    }
    fn status(&self) -> Result<()> {
        for c in &self.children {
            c.status()?;
        }
        Ok(())
    }
}

/// An iterator over a sorted in-memory list of (internal key, value); used
/// in tests and for small merges.
#[cfg(test)]
pub struct VecIterator {
    entries: Vec<(Vec<u8>, Vec<u8>)>,
    pos: Option<usize>,
}

#[cfg(test)]
impl VecIterator {
    /// An iterator over `entries` (internal key, value), which it sorts by
    /// internal key.
    pub fn new(mut entries: Vec<(Vec<u8>, Vec<u8>)>) -> Self {
        entries.sort_by(|a, b| compare_internal_keys(&a.0, &b.0));
        VecIterator { entries, pos: None }
    }

    /// An iterator over `entries` given as (user key, sequence number,
    /// type, value), in any order.
    pub fn from_entries(entries: &[(&str, u64, crate::types::ValueType, &str)]) -> Self {
        VecIterator::new(
            entries
                .iter()
                .map(|&(k, s, t, v)| {
                    let ikey = crate::types::make_internal_key(k.as_bytes(), s, t);
                    (ikey, v.as_bytes().to_vec())
                })
                .collect(),
        )
    }
}

#[cfg(test)]
impl InternalIterator for VecIterator {
    fn valid(&self) -> bool {
        self.pos.is_some()
    }
    fn seek_to_first(&mut self) {
        self.pos = if self.entries.is_empty() {
            None
        } else {
            Some(0)
        };
    }
    fn seek_to_last(&mut self) {
        self.pos = self.entries.len().checked_sub(1);
    }
    fn seek(&mut self, target: &[u8]) {
        let i = self
            .entries
            .partition_point(|(k, _)| compare_internal_keys(k, target) == Ordering::Less);
        self.pos = (i < self.entries.len()).then_some(i);
    }
    fn seek_for_prev(&mut self, target: &[u8]) {
        let i = self
            .entries
            .partition_point(|(k, _)| compare_internal_keys(k, target) != Ordering::Greater);
        self.pos = i.checked_sub(1);
    }
    fn next(&mut self) {
        self.pos = self.pos.map(|p| p + 1).filter(|&p| p < self.entries.len());
    }
    fn prev(&mut self) {
        self.pos = self.pos.and_then(|p| p.checked_sub(1));
    }
    fn key(&self) -> &[u8] {
        &self.entries[self.pos.expect("valid")].0
    }
    fn value(&self) -> &[u8] {
        &self.entries[self.pos.expect("valid")].1
    }
    fn status(&self) -> Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{make_internal_key, ValueType};

    fn child(keys: &[(&str, u64)]) -> Box<dyn InternalIterator> {
        let v = keys.iter().map(|(k, s)| {
            (
                make_internal_key(k.as_bytes(), *s, ValueType::Value),
                format!("{k}{s}").into_bytes(),
            )
        });
        Box::new(VecIterator::new(v.collect()))
    }

    #[test]
    fn merges_and_switches_direction() {
        let mut m = MergingIterator::new(vec![
            child(&[("a", 1), ("c", 3), ("e", 5)]),
            child(&[("b", 2), ("c", 4), ("f", 6)]),
            child(&[]),
        ]);
        m.seek_to_first();
        let mut got = Vec::new();
        while m.valid() {
            got.push(String::from_utf8(m.value().to_vec()).unwrap());
            m.next();
        }
        assert_eq!(got, ["a1", "b2", "c4", "c3", "e5", "f6"]);
        m.seek(&make_internal_key(b"c", 3, ValueType::Value));
        assert_eq!(m.value(), b"c3");
        m.prev();
        assert_eq!(m.value(), b"c4");
        m.prev();
        assert_eq!(m.value(), b"b2");
        m.next();
        assert_eq!(m.value(), b"c4");
        m.next();
        assert_eq!(m.value(), b"c3");
        m.seek_to_last();
        assert_eq!(m.value(), b"f6");
        m.seek_for_prev(&make_internal_key(b"d", 100, ValueType::Value));
        assert_eq!(m.value(), b"c3");
    }
}
