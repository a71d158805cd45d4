//! Constants and header coding shared by the log [`Writer`](super::Writer)
//! and [`Reader`](super::Reader). See `docs/formats/wal.md`.

/// Logs are written in blocks of this many bytes; a physical record never
/// crosses a block boundary.
pub const BLOCK_SIZE: usize = 32 * 1024;

/// Bytes in a physical record header: masked CRC32C (4), length (2), type (1).
pub const HEADER_SIZE: usize = 7;

/// Added to the rotated CRC by [`mask_crc`] (LevelDB's `kMaskDelta`).
const MASK_DELTA: u32 = 0xa282_ead8;

/// The type byte of a physical record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
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

impl RecordType {
    /// Decodes a type byte; `None` for 0 (unwritten space) and unknown values.
    pub fn from_u8(b: u8) -> Option<Self> {
        match b {
            1 => Some(RecordType::Full),
            2 => Some(RecordType::First),
            3 => Some(RecordType::Middle),
            4 => Some(RecordType::Last),
            _ => None,
        }
    }
}

/// Masks a CRC so that a CRC stored inside checksummed data does not make
/// the outer checksum degenerate (LevelDB's `crc32c::Mask`).
pub fn mask_crc(crc: u32) -> u32 {
    crc.rotate_right(15).wrapping_add(MASK_DELTA)
}

/// Inverse of [`mask_crc`].
pub fn unmask_crc(masked: u32) -> u32 {
    masked.wrapping_sub(MASK_DELTA).rotate_left(15)
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
    fn mask_round_trips_and_changes_value() {
        for crc in [0u32, 1, 0xdead_beef, u32::MAX] {
            assert_ne!(mask_crc(crc), crc);
            assert_eq!(unmask_crc(mask_crc(crc)), crc);
        }
        // Masking twice is not the identity (LevelDB's crc32c_test).
        assert_ne!(mask_crc(mask_crc(7)), 7);
    }

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
