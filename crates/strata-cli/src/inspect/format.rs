//! How `strata inspect` shows bytes and sizes: keys and values as escaped
//! text or hex, byte counts in human units.

use strata::tools::sstable::escape_bytes;
use strata::tools::types::{parse_internal_key, ValueType};

/// How keys and values are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum BytesFmt {
    /// `'text'`: printable ASCII as is, anything else (and `\`) as `\xNN`.
    #[default]
    Escaped,
    /// `0x` followed by lowercase hex digits.
    Hex,
}

impl BytesFmt {
    /// `Hex` when `hex` is set, else `Escaped`.
    pub fn from_hex_flag(hex: bool) -> Self {
        if hex {
            BytesFmt::Hex
        } else {
            BytesFmt::Escaped
        }
    }

    /// Renders `b` in this format.
    pub fn show(self, b: &[u8]) -> String {
        match self {
            BytesFmt::Escaped => format!("'{}'", escape_bytes(b)),
            BytesFmt::Hex => {
                let mut s = String::with_capacity(2 + 2 * b.len());
                s.push_str("0x");
                for c in b {
                    s.push_str(&format!("{c:02x}"));
                }
                s
            }
        }
    }

    /// Renders `b` without the quotes of the escaped form (for JSON strings).
    pub fn bare(self, b: &[u8]) -> String {
        match self {
            BytesFmt::Escaped => escape_bytes(b),
            BytesFmt::Hex => self.show(b),
        }
    }

    /// The user key of an internal key without quotes (for JSON strings).
    pub fn bare_user_key(self, ikey: &[u8]) -> String {
        match parse_internal_key(ikey) {
            Some(p) => self.bare(p.user_key),
            None => self.bare(ikey),
        }
    }

    /// An internal key as `key @ seq : Type` (the entry type's engine name,
    /// as in the MANIFEST dump: `Value`, `Deletion`, `BlobIndex`), or the
    /// raw bytes marked as malformed when it does not parse.
    pub fn internal_key(self, ikey: &[u8]) -> String {
        match parse_internal_key(ikey) {
            Some(p) => format!("{} @ {} : {:?}", self.show(p.user_key), p.seq, p.value_type),
            None => format!("(malformed internal key {})", self.show(ikey)),
        }
    }

    /// The user key of an internal key (the whole bytes if malformed).
    pub fn user_key(self, ikey: &[u8]) -> String {
        match parse_internal_key(ikey) {
            Some(p) => self.show(p.user_key),
            None => format!("(malformed internal key {})", self.show(ikey)),
        }
    }
}

/// The name printed for a write-batch operation of a type.
pub fn type_name(t: ValueType) -> &'static str {
    match t {
        ValueType::Value => "Put",
        ValueType::Deletion => "Delete",
        ValueType::BlobIndex => "PutBlobIndex",
        ValueType::Merge => "Merge",
        ValueType::RangeDeletion => "DeleteRange",
    }
}

/// `bytes` in binary units with one decimal (`512 B`, `4.0 KiB`, `1.5 MiB`).
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut v = bytes as f64 / 1024.0;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    format!("{v:.1} {}", UNITS[unit])
}

#[cfg(test)]
mod tests {
    use super::*;
    use strata::tools::types::make_internal_key;

    #[test]
    fn escaped_and_hex() {
        assert_eq!(BytesFmt::Escaped.show(b"ab\x00\\"), "'ab\\x00\\x5c'");
        assert_eq!(BytesFmt::Hex.show(b"ab\x00"), "0x616200");
        assert_eq!(BytesFmt::Hex.show(b""), "0x");
        assert_eq!(BytesFmt::Escaped.bare(b"a\x01"), "a\\x01");
        assert_eq!(BytesFmt::Hex.bare(b"a"), "0x61");
    }

    #[test]
    fn internal_keys() {
        let k = make_internal_key(b"k1", 42, ValueType::Deletion);
        assert_eq!(BytesFmt::Escaped.internal_key(&k), "'k1' @ 42 : Deletion");
        assert_eq!(type_name(ValueType::Deletion), "Delete");
        assert_eq!(BytesFmt::Hex.user_key(&k), "0x6b31");
        assert!(BytesFmt::Escaped
            .internal_key(b"short")
            .starts_with("(malformed"));
    }

    #[test]
    fn human_units() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(1536), "1.5 KiB");
        assert_eq!(human_bytes(3 << 20), "3.0 MiB");
    }
}
