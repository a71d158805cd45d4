//! The numbered keys tests write and read back: `key000042`, in key order
//! by number. The randomized model tests draw theirs from
//! [`crate::random::key`] instead (keys of different lengths sharing
//! prefixes).

/// Key number `i`: `key` and `i` in six digits (`key000042`), so that
/// keys sort by number up to a million.
pub fn key(i: u32) -> Vec<u8> {
    key_n(i, 6)
}

/// Key number `i` with `width` digits (`key_n(42, 8)` is `key00000042`),
/// for a test that writes more than a million keys or whose sizes were
/// worked out for that length.
pub fn key_n(i: u32, width: usize) -> Vec<u8> {
    format!("key{i:0width$}").into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_fixed_width_and_sort_by_number() {
        assert_eq!(key(42), b"key000042");
        assert_eq!(key_n(42, 8), b"key00000042");
        assert!(key(9) < key(10) && key(99_999) < key(100_000));
    }
}
