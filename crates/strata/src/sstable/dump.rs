//! Bytes as printable text, for the dumps of `strata inspect` (which walks
//! a table itself, in `strata-cli`) and the blob file dump.

use std::fmt::Write as _;

/// Bytes as text: printable ASCII as is, everything else as `\xNN`.
pub fn escape_bytes(b: &[u8]) -> String {
    let mut s = String::with_capacity(b.len());
    for &c in b {
        if (0x20..0x7f).contains(&c) && c != b'\\' {
            s.push(c as char);
        } else {
            let _ = write!(s, "\\x{c:02x}");
        }
    }
    s
}
