//! Merge operators for tests, built on the engine's own.

use std::sync::Arc;

use strata::MergeOperator;

/// `inner` without partial merges: operands stay apart until a full merge
/// (a read or a compaction that reaches the value), as with an operator
/// that does not implement `partial_merge`.
#[derive(Clone)]
pub struct FullMergesOnly(pub Arc<dyn MergeOperator>);

impl MergeOperator for FullMergesOnly {
    fn name(&self) -> &str {
        self.0.name()
    }
    fn full_merge(&self, k: &[u8], v: Option<&[u8]>, ops: &[&[u8]]) -> Option<Vec<u8>> {
        self.0.full_merge(k, v, ops)
    }
}

/// The engine's `stringappend` (the value and the operands, oldest first,
/// joined by `,`), with partial merges only when `partial` is set.
pub fn string_append(partial: bool) -> Arc<dyn MergeOperator> {
    let op = strata::merge::builtin("stringappend").expect("a built-in operator");
    if partial {
        op
    } else {
        Arc::new(FullMergesOnly(op))
    }
}
