//! Byte layout of a blob file: file header, record header and trailer, and
//! footer, with their checksums.
//!
//! The specification is `docs/formats/blob.md`; the constants and the
//! encode/decode functions here are the only place the layout is written
//! down in code.

use crate::coding::{decode_fixed32, decode_fixed64, put_fixed32, put_fixed64};
use crate::error::{Error, Result};
use crate::sstable::format::{mask_crc, unmask_crc};
use crate::sstable::CompressionType;

/// Magic number at the start (header) and end (footer) of every blob file:
/// "STRABLOB" read as big-endian ASCII.
pub const BLOB_MAGIC: u64 = 0x5354_5241_424c_4f42;

/// The blob file format version this code writes and reads.
pub const BLOB_FORMAT_VERSION: u32 = 1;

/// Size of the file header: magic (8), version (4), column family id (4),
/// compression (1), flags (1), masked CRC32C of the preceding 18 bytes (4).
pub const HEADER_SIZE: usize = 8 + 4 + 4 + 1 + 1 + 4;

/// Size of the fixed part before a record's key: key length (4), stored
/// value size (8), compression (1), masked CRC32C of those 13 bytes (4).
pub const RECORD_HEADER_SIZE: usize = 4 + 8 + 1 + 4;

/// Size of the record trailer: masked CRC32C of record header + key + value.
pub const RECORD_TRAILER_SIZE: usize = 4;

/// Size of the footer: blob count (8), blob bytes (8), masked CRC32C of
/// those 16 bytes (4), magic (8).
pub const FOOTER_SIZE: usize = 8 + 8 + 4 + 8;

/// Bytes of the record header covered by the header checksum.
const RECORD_HEADER_CRC_START: usize = RECORD_HEADER_SIZE - 4;

/// The fixed header at offset 0 of a blob file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlobFileHeader {
    /// The compression the writer was configured with (individual records
    /// may still be stored uncompressed; each record says which).
    pub compression: CompressionType,
    /// The id of the column family the file's blobs belong to.
    pub column_family_id: u32,
    /// Reserved flag bits; 0. Readers reject unknown bits.
    pub flags: u8,
}

impl BlobFileHeader {
    /// A header for a file written with `compression`.
    pub fn new(compression: CompressionType) -> Self {
        BlobFileHeader {
            compression,
            column_family_id: 0,
            flags: 0,
        }
    }

    /// Encodes the header ([`HEADER_SIZE`] bytes).
    pub fn encode(&self) -> Vec<u8> {
        let mut buf = Vec::with_capacity(HEADER_SIZE);
        put_fixed64(&mut buf, BLOB_MAGIC);
        put_fixed32(&mut buf, BLOB_FORMAT_VERSION);
        put_fixed32(&mut buf, self.column_family_id);
        buf.push(self.compression as u8);
        buf.push(self.flags);
        let crc = mask_crc(crc32c::crc32c(&buf));
        put_fixed32(&mut buf, crc);
        buf
    }

    /// Decodes and validates the header bytes of `file` (read at offset 0).
    pub fn decode(src: &[u8], file: &str) -> Result<BlobFileHeader> {
        let bad = |offset: u64, msg: String| Error::corruption(file, offset, msg);
        let src = src
            .get(..HEADER_SIZE)
            .ok_or_else(|| bad(0, "blob file header is truncated".into()))?;
        let magic = decode_fixed64(src).unwrap_or(0);
        if magic != BLOB_MAGIC {
            return Err(bad(
                0,
                format!("bad blob file magic {magic:#018x} (not a strata blob file)"),
            ));
        }
        let stored = decode_fixed32(&src[18..]).unwrap_or(0);
        if unmask_crc(stored) != crc32c::crc32c(&src[..18]) {
            return Err(bad(18, "blob file header checksum mismatch".into()));
        }
        let version = decode_fixed32(&src[8..]).unwrap_or(0);
        if version != BLOB_FORMAT_VERSION {
            return Err(Error::NotSupported(format!(
                "{file}: blob file format version {version} (this build reads {BLOB_FORMAT_VERSION})"
            )));
        }
        let column_family_id = decode_fixed32(&src[12..]).unwrap_or(0);
        let compression = CompressionType::from_u8(src[16])
            .ok_or_else(|| bad(16, format!("unknown compression type {}", src[16])))?;
        let flags = src[17];
        if flags != 0 {
            return Err(bad(17, format!("unknown header flags {flags:#04x}")));
        }
        Ok(BlobFileHeader {
            compression,
            column_family_id,
            flags,
        })
    }
}

/// The fixed footer that ends a completely written blob file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlobFileFooter {
    /// Number of records in the file.
    pub blob_count: u64,
    /// Sum of the sizes of all records ([`record_size`]), i.e. the file size
    /// minus header and footer.
    pub blob_bytes: u64,
}

impl BlobFileFooter {
    /// Encodes the footer ([`FOOTER_SIZE`] bytes).
    pub fn encode(&self) -> Vec<u8> {
        let mut buf = Vec::with_capacity(FOOTER_SIZE);
        put_fixed64(&mut buf, self.blob_count);
        put_fixed64(&mut buf, self.blob_bytes);
        let crc = mask_crc(crc32c::crc32c(&buf));
        put_fixed32(&mut buf, crc);
        put_fixed64(&mut buf, BLOB_MAGIC);
        buf
    }

    /// Decodes and validates a footer read at `offset` of `file`.
    pub fn decode(src: &[u8], file: &str, offset: u64) -> Result<BlobFileFooter> {
        let bad = |at: u64, msg: &str| Error::corruption(file, offset + at, msg);
        let src = src
            .get(..FOOTER_SIZE)
            .ok_or_else(|| bad(0, "blob file footer is truncated"))?;
        if decode_fixed64(&src[20..]) != Some(BLOB_MAGIC) {
            return Err(bad(
                20,
                "bad blob file footer magic (file not finished, or truncated)",
            ));
        }
        let stored = decode_fixed32(&src[16..]).unwrap_or(0);
        if unmask_crc(stored) != crc32c::crc32c(&src[..16]) {
            return Err(bad(16, "blob file footer checksum mismatch"));
        }
        Ok(BlobFileFooter {
            blob_count: decode_fixed64(src).unwrap_or(0),
            blob_bytes: decode_fixed64(&src[8..]).unwrap_or(0),
        })
    }
}

/// The fixed part in front of each record's key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordHeader {
    /// Length of the user key that follows.
    pub key_len: u32,
    /// Stored (possibly compressed) size of the value after the key.
    pub value_size: u64,
    /// How the value is stored.
    pub compression: CompressionType,
}

impl RecordHeader {
    /// Encodes the header ([`RECORD_HEADER_SIZE`] bytes, its own checksum
    /// last).
    pub fn encode(&self) -> [u8; RECORD_HEADER_SIZE] {
        let mut out = [0u8; RECORD_HEADER_SIZE];
        out[..4].copy_from_slice(&self.key_len.to_le_bytes());
        out[4..12].copy_from_slice(&self.value_size.to_le_bytes());
        out[12] = self.compression as u8;
        let crc = mask_crc(crc32c::crc32c(&out[..RECORD_HEADER_CRC_START]));
        out[RECORD_HEADER_CRC_START..].copy_from_slice(&crc.to_le_bytes());
        out
    }

    /// Decodes a record header found at `offset` of `file`, checking its
    /// checksum.
    pub fn decode(src: &[u8], file: &str, offset: u64) -> Result<RecordHeader> {
        let bad = |msg: String| Error::corruption(file, offset, msg);
        let src = src
            .get(..RECORD_HEADER_SIZE)
            .ok_or_else(|| bad("blob record header is truncated".into()))?;
        let stored = decode_fixed32(&src[RECORD_HEADER_CRC_START..]).unwrap_or(0);
        if unmask_crc(stored) != crc32c::crc32c(&src[..RECORD_HEADER_CRC_START]) {
            return Err(bad("blob record header checksum mismatch".into()));
        }
        let key_len = decode_fixed32(src).unwrap_or(0);
        let value_size = decode_fixed64(&src[4..]).unwrap_or(0);
        let compression = CompressionType::from_u8(src[12])
            .ok_or_else(|| bad(format!("unknown blob compression type {}", src[12])))?;
        Ok(RecordHeader {
            key_len,
            value_size,
            compression,
        })
    }
}

/// The record trailer: masked CRC32C over the record header (all
/// [`RECORD_HEADER_SIZE`] bytes, its own checksum included), the key and the
/// stored value, in that order.
pub fn record_checksum(header: &[u8], key: &[u8], stored_value: &[u8]) -> u32 {
    let crc = crc32c::crc32c(header);
    let crc = crc32c::crc32c_append(crc, key);
    mask_crc(crc32c::crc32c_append(crc, stored_value))
}

/// Total bytes of one record: header, key, stored value and trailer. This is
/// what a blob counts toward `total_blob_bytes` and garbage bytes.
pub fn record_size(key_len: u64, stored_value_size: u64) -> u64 {
    (RECORD_HEADER_SIZE as u64 + RECORD_TRAILER_SIZE as u64)
        .saturating_add(key_len)
        .saturating_add(stored_value_size)
}

/// Offset of a record's first byte given the offset of its value (what a
/// blob index stores) and its key length; `None` if that would lie before
/// the first record.
pub fn record_offset(value_offset: u64, key_len: u64) -> Option<u64> {
    let back = (RECORD_HEADER_SIZE as u64).checked_add(key_len)?;
    value_offset
        .checked_sub(back)
        .filter(|&o| o >= HEADER_SIZE as u64)
}

/// Offset of a record's value given the offset of the record.
pub fn value_offset(record_offset: u64, key_len: u64) -> u64 {
    record_offset
        .saturating_add(RECORD_HEADER_SIZE as u64)
        .saturating_add(key_len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip_and_damage() {
        for c in CompressionType::ALL {
            let h = BlobFileHeader::new(c);
            let enc = h.encode();
            assert_eq!(enc.len(), HEADER_SIZE);
            assert_eq!(BlobFileHeader::decode(&enc, "f").unwrap(), h);
            for i in 0..enc.len() {
                let mut bad = enc.clone();
                bad[i] ^= 0x01;
                let e = BlobFileHeader::decode(&bad, "f").unwrap_err();
                assert!(e.is_corruption(), "byte {i}: {e}");
            }
            let e = BlobFileHeader::decode(&enc[..HEADER_SIZE - 1], "f").unwrap_err();
            assert!(e.is_corruption());
        }
    }

    #[test]
    fn footer_round_trip_and_damage() {
        let f = BlobFileFooter {
            blob_count: 17,
            blob_bytes: 123_456,
        };
        let enc = f.encode();
        assert_eq!(enc.len(), FOOTER_SIZE);
        assert_eq!(BlobFileFooter::decode(&enc, "f", 100).unwrap(), f);
        for i in 0..enc.len() {
            let mut bad = enc.clone();
            bad[i] ^= 0x80;
            match BlobFileFooter::decode(&bad, "f", 100).unwrap_err() {
                Error::Corruption { file, offset, .. } => {
                    assert_eq!(file, "f");
                    assert!((100..100 + FOOTER_SIZE as u64).contains(&offset));
                }
                e => panic!("byte {i}: {e}"),
            }
        }
    }

    #[test]
    fn record_header_round_trip_and_damage() {
        let h = RecordHeader {
            key_len: 9,
            value_size: 1 << 40,
            compression: CompressionType::Zstd,
        };
        let enc = h.encode();
        assert_eq!(RecordHeader::decode(&enc, "f", 22).unwrap(), h);
        for i in 0..enc.len() {
            let mut bad = enc;
            bad[i] ^= 0x10;
            assert!(RecordHeader::decode(&bad, "f", 22).is_err(), "byte {i}");
        }
        assert!(RecordHeader::decode(&enc[..5], "f", 22).is_err());
    }

    #[test]
    fn offsets_are_consistent() {
        let rec = HEADER_SIZE as u64;
        let v = value_offset(rec, 5);
        assert_eq!(v, rec + RECORD_HEADER_SIZE as u64 + 5);
        assert_eq!(record_offset(v, 5), Some(rec));
        // A key length that does not match points before the first record.
        assert_eq!(record_offset(v, 6), None);
        assert_eq!(record_offset(3, u64::MAX), None);
        assert_eq!(record_size(5, 10), 5 + 10 + 21);
    }

    #[test]
    fn record_checksum_covers_every_part() {
        let h = [1u8; RECORD_HEADER_SIZE];
        let base = record_checksum(&h, b"key", b"value");
        assert_ne!(record_checksum(&h, b"kez", b"value"), base);
        assert_ne!(record_checksum(&h, b"key", b"valuf"), base);
        let mut h2 = h;
        h2[3] = 0;
        assert_ne!(record_checksum(&h2, b"key", b"value"), base);
        // Moving a byte between key and value must not go unnoticed through
        // the lengths: the header carries them.
        assert_eq!(record_checksum(&h, b"keyv", b"alue"), base);
    }
}
