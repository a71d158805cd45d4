//! Constants and header coding shared by the log [`Writer`](super::Writer)
//! and [`Reader`](super::Reader). See `docs/formats/wal.md`.

use crate::byte_enum::byte_enum;
// Log records mask their CRCs as tables and blob files do.
pub(super) use crate::sstable::format::{mask_crc, unmask_crc};

/// Logs are written in blocks of this many bytes; a physical record never
/// crosses a block boundary.
pub const BLOCK_SIZE: usize = 32 * 1024;

/// Bytes in a physical record header: masked CRC32C (4), length (2), type (1).
pub const HEADER_SIZE: usize = 7;

byte_enum! {
    /// The type byte of a physical record; 0 is unwritten space, never a
    /// record.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub enum RecordType {
        /// A whole logical record in one physical record.
        Full = 1,
        /// The first fragment of a logical record.
        First = 2,
        /// A fragment that is neither first nor last.
        Middle = 3,
        /// The last fragment of a logical record.
        Last = 4,
    }
}

/// The CRC32C a physical record's header stores (unmasked): over the type
/// byte followed by the payload.
pub fn record_crc(record_type: u8, payload: &[u8]) -> u32 {
    crc32c::crc32c_append(crc32c::crc32c(&[record_type]), payload)
}

/// Encodes a physical record header for `payload` (at most `u16::MAX` bytes).
pub fn encode_header(record_type: RecordType, payload: &[u8]) -> [u8; HEADER_SIZE] {
    let crc = mask_crc(record_crc(record_type as u8, payload));
    let len = payload.len() as u16;
    let mut h = [0u8; HEADER_SIZE];
    h[..4].copy_from_slice(&crc.to_le_bytes());
    h[4..6].copy_from_slice(&len.to_le_bytes());
    h[6] = record_type as u8;
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32c_matches_known_vector() {
        // RFC 3720 B.4: 32 bytes of zeros.
        assert_eq!(crc32c::crc32c(&[0u8; 32]), 0x8a91_36aa);
        assert_eq!(record_crc(1, b"abc"), crc32c::crc32c(b"\x01abc"));
    }

    #[test]
    fn header_layout() {
        let h = encode_header(RecordType::Last, b"hello");
        assert_eq!(&h[4..6], &5u16.to_le_bytes());
        assert_eq!(h[6], 4);
        let stored = u32::from_le_bytes([h[0], h[1], h[2], h[3]]);
        assert_eq!(unmask_crc(stored), record_crc(4, b"hello"));
    }
}
