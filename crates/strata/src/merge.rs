//! Merge operators (RocksDB's `MergeOperator`): a write that says how to
//! change a key's value instead of what the value is, combined with the
//! older versions when the key is read, flushed or compacted.
//!
//! A family's operator is [`Options::merge_operator`](crate::Options); the
//! writes are [`Db::merge`](crate::Db::merge) and
//! [`WriteBatch::merge`](crate::WriteBatch::merge). A read gathers the
//! operands of a key newest first until it meets a value, a tombstone or
//! the bottom of the tree, then calls [`MergeOperator::full_merge`] once
//! with the value under them (if any) and the operands oldest first.
//! Flushes and compactions combine operands within one snapshot stripe
//! (`compaction/merge_helper.rs`, docs/design/engine.md, "Merge operands").
//!
//! The built-in operators are RocksDB's, by the names `db_bench`'s
//! `--merge_operator` and RocksDB's option strings use ([`builtin`]).

use std::sync::Arc;
use std::time::Instant;

use crate::error::{Error, Result};
use crate::stats::{Statistics, Ticker};

/// Combines a key's merge operands with its older value (RocksDB's
/// `MergeOperator`, with `FullMergeV2`'s and `PartialMergeMulti`'s
/// arguments). Implementations must be deterministic: the same inputs give
/// the same output whenever and wherever (read, flush, compaction) they
/// run, and combining operands early with [`partial_merge`](Self::partial_merge)
/// must not change what a later [`full_merge`](Self::full_merge) gives.
pub trait MergeOperator: Send + Sync {
    /// The operator's name. The OPTIONS file records it
    /// (`merge_operator=NAME`), as RocksDB's does; the engine does not
    /// compare it with the name a DB was written with (neither does
    /// RocksDB).
    fn name(&self) -> &str;

    /// The value of `key` given `existing`, the value under the operands
    /// (`None` when there is none: the key was never put, or was deleted),
    /// and `operands`, oldest first (at least one). `None` means the merge
    /// failed: a read of the key then returns
    /// [`Error::MergeFailed`](crate::Error::MergeFailed) and
    /// `rocksdb.number.merge.failures` counts it.
    fn full_merge(
        &self,
        key: &[u8],
        existing: Option<&[u8]>,
        operands: &[&[u8]],
    ) -> Option<Vec<u8>>;

    /// Combines consecutive `operands` (oldest first, at least two) into
    /// one operand with the same effect on any value under them, or `None`
    /// when the operator cannot (the default); flushes and compactions then
    /// keep the operands as they are.
    fn partial_merge(&self, key: &[u8], operands: &[&[u8]]) -> Option<Vec<u8>> {
        let _ = (key, operands);
        None
    }
}

impl std::fmt::Debug for dyn MergeOperator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MergeOperator({})", self.name())
    }
}

/// A built-in operator: one associative function of a key's parts, oldest
/// first, that gives the merged value. A full merge combines the value
/// under the operands (if any) and the operands; a partial merge combines
/// the operands alone, which by associativity changes nothing a later full
/// merge gives.
trait Associative: Send + Sync {
    /// The operator's name ([`MergeOperator::name`]).
    const NAME: &'static str;

    /// The parts (at least one), oldest first, combined into one value.
    fn combine<'a>(&self, parts: impl Iterator<Item = &'a [u8]>) -> Option<Vec<u8>>;
}

impl<T: Associative> MergeOperator for T {
    fn name(&self) -> &str {
        T::NAME
    }
    fn full_merge(&self, _: &[u8], existing: Option<&[u8]>, ops: &[&[u8]]) -> Option<Vec<u8>> {
        self.combine(existing.into_iter().chain(ops.iter().copied()))
    }
    fn partial_merge(&self, _: &[u8], ops: &[&[u8]]) -> Option<Vec<u8>> {
        self.combine(ops.iter().copied())
    }
}

/// RocksDB's `uint64add`: values and operands are 8-byte little-endian
/// unsigned integers, and a merge adds the operands to the value (0 when
/// there is none), wrapping around at 2^64.
///
/// A value or operand that is not 8 bytes long counts as 0, as in RocksDB
/// (which also writes an error line to its LOG; this operator has no LOG to
/// write to). So a merge never fails, and a key holding a malformed value
/// reads back as the sum of the well-formed operands.
#[derive(Debug, Clone, Copy, Default)]
pub struct UInt64AddOperator;

impl UInt64AddOperator {
    /// An 8-byte little-endian integer, 0 for any other length.
    pub fn decode(v: &[u8]) -> u64 {
        <[u8; 8]>::try_from(v).map_or(0, u64::from_le_bytes)
    }
}

impl Associative for UInt64AddOperator {
    const NAME: &'static str = "UInt64AddOperator";
    fn combine<'a>(&self, parts: impl Iterator<Item = &'a [u8]>) -> Option<Vec<u8>> {
        let sum = parts.fold(0u64, |acc, p| acc.wrapping_add(Self::decode(p)));
        Some(sum.to_le_bytes().to_vec())
    }
}

/// RocksDB's `max`: the bytewise largest of the value and the operands.
#[derive(Debug, Clone, Copy, Default)]
pub struct MaxOperator;

impl Associative for MaxOperator {
    const NAME: &'static str = "MaxOperator";
    fn combine<'a>(&self, parts: impl Iterator<Item = &'a [u8]>) -> Option<Vec<u8>> {
        parts.max().map(<[u8]>::to_vec)
    }
}

/// RocksDB's `put`: the newest operand replaces the value (a merge that
/// behaves as a put, for measuring the merge path's cost).
#[derive(Debug, Clone, Copy, Default)]
pub struct PutOperator;

impl Associative for PutOperator {
    const NAME: &'static str = "PutOperator";
    fn combine<'a>(&self, parts: impl Iterator<Item = &'a [u8]>) -> Option<Vec<u8>> {
        parts.last().map(<[u8]>::to_vec)
    }
}

/// RocksDB's `stringappend`: the value and the operands, oldest first,
/// joined by a delimiter (`,` for the built-in).
#[derive(Debug, Clone)]
pub struct StringAppendOperator {
    delimiter: Vec<u8>,
}

impl StringAppendOperator {
    /// An operator that joins with `delimiter`.
    pub fn new(delimiter: impl Into<Vec<u8>>) -> Self {
        StringAppendOperator {
            delimiter: delimiter.into(),
        }
    }
}

impl Default for StringAppendOperator {
    /// RocksDB's default delimiter, `,`.
    fn default() -> Self {
        StringAppendOperator::new(b",".to_vec())
    }
}

impl Associative for StringAppendOperator {
    const NAME: &'static str = "StringAppendOperator";
    fn combine<'a>(&self, parts: impl Iterator<Item = &'a [u8]>) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        for (i, p) in parts.enumerate() {
            if i > 0 {
                out.extend_from_slice(&self.delimiter);
            }
            out.extend_from_slice(p);
        }
        Some(out)
    }
}

/// The names [`builtin`] knows, as `db_bench --merge_operator` spells them.
pub const BUILTIN_NAMES: &[&str] = &["uint64add", "max", "put", "stringappend"];

/// The built-in operator called `name`: db_bench's short name (`uint64add`,
/// `max`, `put`, `stringappend`) or the operator's own name
/// (`UInt64AddOperator`, ...), which the OPTIONS file records. `None` for
/// any other name.
pub fn builtin(name: &str) -> Option<Arc<dyn MergeOperator>> {
    Some(match name {
        "uint64add" | "UInt64AddOperator" => Arc::new(UInt64AddOperator),
        "max" | "MaxOperator" => Arc::new(MaxOperator),
        "put" | "PutOperator" => Arc::new(PutOperator),
        "stringappend" | "StringAppendOperator" => Arc::new(StringAppendOperator::default()),
        _ => return None,
    })
}

/// Stands for an operator whose name an OPTIONS file records but which is
/// not built in (an application's own): it keeps the name, so the options
/// print as they were written, and fails every merge.
#[derive(Debug)]
pub(crate) struct NamedOnly {
    name: String,
}

impl NamedOnly {
    pub(crate) fn new(name: &str) -> Self {
        NamedOnly {
            name: name.to_string(),
        }
    }
}

impl MergeOperator for NamedOnly {
    fn name(&self) -> &str {
        &self.name
    }
    fn full_merge(&self, _: &[u8], _: Option<&[u8]>, _: &[&[u8]]) -> Option<Vec<u8>> {
        None
    }
}

/// A key for an error message: escaped, at most 64 bytes of it.
pub(crate) fn show_key(key: &[u8]) -> String {
    let shown = key[..key.len().min(64)].escape_ascii().to_string();
    if key.len() > 64 {
        format!("'{shown}...' ({} bytes)", key.len())
    } else {
        format!("'{shown}'")
    }
}

/// Calls `op.full_merge`, adding its time to
/// `rocksdb.merge.operation.time.nanos` and a failure to
/// `rocksdb.number.merge.failures`.
pub(crate) fn timed_full_merge(
    op: &dyn MergeOperator,
    key: &[u8],
    existing: Option<&[u8]>,
    operands: &[&[u8]],
    stats: Option<&Statistics>,
) -> Option<Vec<u8>> {
    let start = stats.map(|_| Instant::now());
    let r = op.full_merge(key, existing, operands);
    if let (Some(s), Some(t)) = (stats, start) {
        s.record_tick(
            Ticker::MergeOperationTotalTime,
            t.elapsed().as_nanos() as u64,
        );
        if r.is_none() {
            s.record_tick(Ticker::NumberMergeFailures, 1);
        }
    }
    r
}

/// Calls `op.partial_merge`, adding its time to
/// `rocksdb.merge.operation.time.nanos` (declining is not a failure).
pub(crate) fn timed_partial_merge(
    op: &dyn MergeOperator,
    key: &[u8],
    operands: &[&[u8]],
    stats: Option<&Statistics>,
) -> Option<Vec<u8>> {
    let start = stats.map(|_| Instant::now());
    let r = op.partial_merge(key, operands);
    if let (Some(s), Some(t)) = (stats, start) {
        s.record_tick(
            Ticker::MergeOperationTotalTime,
            t.elapsed().as_nanos() as u64,
        );
    }
    r
}

/// The value a read sees for `key`: `existing` merged with `operands`
/// (oldest first) through `op`.
///
/// # Errors
/// `InvalidArgument` when the family has no merge operator (RocksDB's
/// "merge_operator is not properly initialized"); `MergeFailed` when the
/// operator fails.
pub(crate) fn merge_for_read(
    op: Option<&Arc<dyn MergeOperator>>,
    key: &[u8],
    existing: Option<&[u8]>,
    operands: &[&[u8]],
    stats: Option<&Statistics>,
) -> Result<Vec<u8>> {
    let Some(op) = op else {
        return Err(no_operator(key));
    };
    timed_full_merge(op.as_ref(), key, existing, operands, stats).ok_or_else(|| {
        Error::MergeFailed(format!(
            "merge operator '{}' failed on key {} ({} operand(s){})",
            op.name(),
            show_key(key),
            operands.len(),
            if existing.is_some() {
                " over a value"
            } else {
                ""
            }
        ))
    })
}

/// The error of a read that meets merge operands in a family without a
/// merge operator.
pub(crate) fn no_operator(key: &[u8]) -> Error {
    Error::InvalidArgument(format!(
        "key {} has merge operands but the column family has no merge operator \
         (set Options::merge_operator, or merge_operator=NAME for a built-in: {})",
        show_key(key),
        BUILTIN_NAMES.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full(op: &dyn MergeOperator, existing: Option<&[u8]>, ops: &[&[u8]]) -> Vec<u8> {
        op.full_merge(b"k", existing, ops).unwrap()
    }

    fn u(x: u64) -> [u8; 8] {
        x.to_le_bytes()
    }

    #[test]
    fn uint64add_adds_with_wraparound_and_reads_bad_lengths_as_zero() {
        let op = UInt64AddOperator;
        assert_eq!(full(&op, None, &[&u(1), &u(2)]), u(3));
        assert_eq!(full(&op, Some(&u(10)), &[&u(5)]), u(15));
        assert_eq!(full(&op, Some(&u(u64::MAX)), &[&u(2)]), u(1));
        // A value or operand of another length counts as 0.
        assert_eq!(full(&op, Some(b"abc"), &[&u(4), b"123456789"]), u(4));
        assert_eq!(full(&op, Some(b""), &[b""]), u(0));
        assert_eq!(op.partial_merge(b"k", &[&u(7), &u(8)]).unwrap(), u(15));
        // A partial merge changes nothing a full merge gives.
        let p = op.partial_merge(b"k", &[&u(7), &u(8)]).unwrap();
        assert_eq!(
            full(&op, Some(&u(1)), &[&p, &u(2)]),
            full(&op, Some(&u(1)), &[&u(7), &u(8), &u(2)])
        );
        assert_eq!(op.name(), "UInt64AddOperator");
    }

    #[test]
    fn max_put_and_stringappend() {
        assert_eq!(full(&MaxOperator, Some(b"b"), &[b"a", b"c", b"bb"]), b"c");
        assert_eq!(full(&MaxOperator, None, &[b"a"]), b"a");
        assert_eq!(full(&MaxOperator, Some(b"z"), &[b"a"]), b"z");
        assert_eq!(
            MaxOperator.partial_merge(b"k", &[b"x", b"y"]).unwrap(),
            b"y"
        );
        assert_eq!(full(&PutOperator, Some(b"old"), &[b"a", b"b"]), b"b");
        assert_eq!(
            PutOperator.partial_merge(b"k", &[b"a", b"b"]).unwrap(),
            b"b"
        );
        let s = StringAppendOperator::default();
        assert_eq!(full(&s, Some(b"a"), &[b"b", b"c"]), b"a,b,c");
        assert_eq!(full(&s, None, &[b"b"]), b"b");
        assert_eq!(s.partial_merge(b"k", &[b"b", b"c"]).unwrap(), b"b,c");
        let dash = StringAppendOperator::new(&b"--"[..]);
        assert_eq!(full(&dash, Some(b"a"), &[b"b"]), b"a--b");
    }

    #[test]
    fn builtins_by_short_and_class_name() {
        for (short, class) in [
            ("uint64add", "UInt64AddOperator"),
            ("max", "MaxOperator"),
            ("put", "PutOperator"),
            ("stringappend", "StringAppendOperator"),
        ] {
            assert!(BUILTIN_NAMES.contains(&short));
            assert_eq!(builtin(short).unwrap().name(), class);
            assert_eq!(builtin(class).unwrap().name(), class);
        }
        assert!(builtin("sortlist").is_none());
        assert!(builtin("").is_none());
    }

    #[test]
    fn reads_without_an_operator_or_with_a_failing_one_are_clear_errors() {
        let e = merge_for_read(None, b"counter", None, &[b"x"], None).unwrap_err();
        assert!(matches!(e, Error::InvalidArgument(_)), "{e}");
        assert!(e.to_string().contains("'counter'") && e.to_string().contains("merge operator"));
        let named: Arc<dyn MergeOperator> = Arc::new(NamedOnly::new("MyAppend"));
        let stats = Statistics::new();
        let e = merge_for_read(
            Some(&named),
            b"k\x01",
            Some(b"v"),
            &[b"x"],
            Some(stats.as_ref()),
        )
        .unwrap_err();
        assert!(matches!(e, Error::MergeFailed(_)), "{e}");
        assert!(
            e.to_string().contains("'MyAppend'") && e.to_string().contains("k\\x01"),
            "{e}"
        );
        assert_eq!(stats.ticker(Ticker::NumberMergeFailures), 1);
        let add: Arc<dyn MergeOperator> = Arc::new(UInt64AddOperator);
        let v = merge_for_read(Some(&add), b"k", None, &[&u(2)], Some(stats.as_ref())).unwrap();
        assert_eq!(v, u(2));
        assert_eq!(stats.ticker(Ticker::NumberMergeFailures), 1);
    }

    #[test]
    fn long_keys_are_cut_in_messages() {
        let k = vec![b'a'; 100];
        let s = show_key(&k);
        assert!(s.contains("(100 bytes)") && s.len() < 90, "{s}");
    }
}
