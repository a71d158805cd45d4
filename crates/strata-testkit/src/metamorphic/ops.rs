//! The operations of a metamorphic sequence, as data: what the generator
//! draws, the model and the DB both run, and a divergence prints (their
//! `Debug` form is the reproducer).

use std::fmt;

/// Column families every sequence's DB has: "default" and two created at
/// the first open. A family is named by its index here.
pub const FAMILIES: [&str; 3] = ["default", "a", "b"];

/// Snapshot slots a sequence takes snapshots into and reads at.
pub const SNAPSHOT_SLOTS: usize = 4;

/// Iterator slots a sequence opens long-lived iterators in.
pub const ITERATOR_SLOTS: usize = 4;

/// Bytes, printed as a byte string (`b"00012"`), a long run of one byte at
/// the end as `+ b'x' * N`: values are a `seed:step:` tag padded with one
/// letter, so the reproducer stays short and exact.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Bytes(pub Vec<u8>);

impl fmt::Debug for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = &self.0;
        let run = match b.last() {
            Some(&last) => b.iter().rev().take_while(|&&c| c == last).count(),
            None => 0,
        };
        if run > 16 {
            let head = &b[..b.len() - run];
            let last = b[b.len() - 1];
            write!(
                f,
                "b\"{}\" + b'{}' * {run}",
                head.escape_ascii(),
                [last].escape_ascii()
            )
        } else {
            write!(f, "b\"{}\"", b.escape_ascii())
        }
    }
}

/// One write: into one family, alone or in a batch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Write {
    /// Sets `key` to `value`.
    Put {
        /// Index into [`FAMILIES`].
        cf: usize,
        /// The key.
        key: Bytes,
        /// The value.
        value: Bytes,
    },
    /// Deletes `key`.
    Delete {
        /// Index into [`FAMILIES`].
        cf: usize,
        /// The key.
        key: Bytes,
    },
    /// Deletes the keys in `[begin, end)` (none when `begin >= end`).
    DeleteRange {
        /// Index into [`FAMILIES`].
        cf: usize,
        /// The first key deleted.
        begin: Bytes,
        /// The first key kept after the range.
        end: Bytes,
    },
    /// Appends `operand` to `key`'s value with the `stringappend` merge
    /// operator (`old,operand`; the operand alone on an absent key).
    Merge {
        /// Index into [`FAMILIES`].
        cf: usize,
        /// The key.
        key: Bytes,
        /// The operand.
        operand: Bytes,
    },
}

/// What a scan or an iterator reads: the keys in `[lower, upper)` of
/// family `cf`, at the snapshot in slot `snap` (the latest state when the
/// slot is empty or `None`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Range {
    /// Index into [`FAMILIES`].
    pub cf: usize,
    /// The inclusive lower bound.
    pub lower: Option<Bytes>,
    /// The exclusive upper bound.
    pub upper: Option<Bytes>,
    /// A snapshot slot.
    pub snap: Option<usize>,
}

/// Reads up to `limit` entries whose keys start with `prefix` in family
/// `cf`, at snapshot slot `snap`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrefixScan {
    /// Index into [`FAMILIES`].
    pub cf: usize,
    /// The prefix.
    pub prefix: Bytes,
    /// How many entries it reads at most.
    pub limit: usize,
    /// A snapshot slot.
    pub snap: Option<usize>,
}

/// Where an iterator moves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Move {
    /// To the first key (at or after the lower bound).
    First,
    /// To the last key (before the upper bound).
    Last,
    /// To the first key `>= key`.
    Seek(Bytes),
    /// To the last key `<= key`.
    SeekForPrev(Bytes),
    /// To the next key (nothing when not on one).
    Next,
    /// To the previous key (nothing when not on one).
    Prev,
}

/// One step of a sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// One write on its own.
    Write(Write),
    /// Writes applied atomically, across families.
    Batch(Vec<Write>),
    /// A point read of `key` in family `cf`, at the snapshot in slot
    /// `snap` (the latest state when the slot is empty or `None`), through
    /// `get_pinned_cf` when `pinned`, else `get_cf_opt`.
    Get {
        /// Index into [`FAMILIES`].
        cf: usize,
        /// The key.
        key: Bytes,
        /// A snapshot slot.
        snap: Option<usize>,
        /// Whether the value is read pinned in its block.
        pinned: bool,
    },
    /// `multi_get` of `keys` in "default", at snapshot slot `snap`.
    MultiGet {
        /// The keys, in the order read.
        keys: Vec<Bytes>,
        /// A snapshot slot.
        snap: Option<usize>,
    },
    /// A prefix scan (`prefix_cf`).
    Prefix(PrefixScan),
    /// Reads up to `limit` entries of `range`, from the end when
    /// `reverse`.
    Scan {
        /// The family, bounds and snapshot read.
        range: Range,
        /// Whether the scan runs from the end.
        reverse: bool,
        /// How many entries it reads at most.
        limit: usize,
    },
    /// Takes a snapshot into slot `slot` (releasing the one there).
    Snapshot {
        /// A slot below [`SNAPSHOT_SLOTS`].
        slot: usize,
    },
    /// Releases the snapshot in `slot`, if any.
    ReleaseSnapshot {
        /// A slot below [`SNAPSHOT_SLOTS`].
        slot: usize,
    },
    /// Opens an iterator over `range` in `slot` (replacing the one
    /// there). It keeps its view while later writes, flushes and
    /// compactions go on.
    IterOpen {
        /// A slot below [`ITERATOR_SLOTS`].
        slot: usize,
        /// The family, bounds and snapshot it reads.
        range: Range,
    },
    /// Moves the iterator in `slot` (if open) and reads where it is.
    IterMove {
        /// A slot below [`ITERATOR_SLOTS`].
        slot: usize,
        /// The move.
        to: Move,
    },
    /// Drops the iterator in `slot`, if any.
    IterClose {
        /// A slot below [`ITERATOR_SLOTS`].
        slot: usize,
    },
    /// Flushes family `cf`'s memtable.
    Flush {
        /// Index into [`FAMILIES`].
        cf: usize,
    },
    /// `compact_range` of `[begin, end]` in family `cf`.
    Compact {
        /// Index into [`FAMILIES`].
        cf: usize,
        /// The first key, `None` from the start.
        begin: Option<Bytes>,
        /// The last key, `None` to the end.
        end: Option<Bytes>,
    },
    /// Closes the DB (dropping snapshots and iterators) and opens it again.
    Reopen,
    /// Creates a checkpoint, opens it as a DB and reads every family whole.
    Checkpoint,
}

/// What one operation returned: a read's result, or `Done` for a step that
/// reads nothing; an error as its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Out {
    /// A step that returned `Ok` and reads nothing.
    Done,
    /// A point read's value.
    Value(Option<Bytes>),
    /// The values of a `multi_get`, in the order of its keys.
    Values(Vec<Option<Bytes>>),
    /// Entries read, in the order read.
    Entries(Vec<(Bytes, Bytes)>),
    /// Where an iterator is: its key and value, `None` when not on one (a
    /// slot with no iterator reads `None` too).
    At(Option<(Bytes, Bytes)>),
    /// Every family's entries, in [`FAMILIES`] order.
    Families(Vec<Vec<(Bytes, Bytes)>>),
    /// An error, or a panic.
    Error(String),
}
