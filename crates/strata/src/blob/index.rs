//! [`BlobIndex`]: what an SST (or memtable) stores in place of a value that
//! lives in a blob file, under `ValueType::BlobIndex`.

use crate::coding::{put_varint64, Decoder};
use crate::sstable::CompressionType;

use super::format::{record_size, value_offset};

/// Type byte of the one kind of blob index Strata writes (RocksDB's
/// `BlobIndex::Type::kBlob`).
pub const BLOB_INDEX_TYPE_BLOB: u8 = 1;

/// Where a separated value lives: the blob file, the offset of the value's
/// first stored byte and the stored size, and how it is compressed.
///
/// Encoding (see `docs/formats/blob.md`, "Blob index"): type byte `1`,
/// varint64 file number, varint64 offset, varint64 size, compression byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlobIndex {
    /// Blob file number (`NNNNNN.blob`).
    pub file_number: u64,
    /// Offset of the stored value in the file (not of the record).
    pub offset: u64,
    /// Stored (possibly compressed) size of the value.
    pub size: u64,
    /// Codec of the stored value.
    pub compression: CompressionType,
}

impl BlobIndex {
    /// Encodes the index (at most 1 + 3 × 10 + 1 bytes).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(16);
        self.encode_to(&mut out);
        out
    }

    /// Appends the encoding to `dst`.
    pub fn encode_to(&self, dst: &mut Vec<u8>) {
        dst.push(BLOB_INDEX_TYPE_BLOB);
        put_varint64(dst, self.file_number);
        put_varint64(dst, self.offset);
        put_varint64(dst, self.size);
        dst.push(self.compression as u8);
    }

    /// Decodes an index; `None` if it is malformed, of an unknown type, or
    /// followed by extra bytes.
    pub fn decode(src: &[u8]) -> Option<BlobIndex> {
        let mut d = Decoder::new(src);
        if d.u8()? != BLOB_INDEX_TYPE_BLOB {
            return None;
        }
        let file_number = d.varint64()?;
        let offset = d.varint64()?;
        let size = d.varint64()?;
        let compression = CompressionType::from_u8(d.u8()?)?;
        if !d.is_empty() || file_number == 0 {
            return None;
        }
        Some(BlobIndex {
            file_number,
            offset,
            size,
            compression,
        })
    }

    /// Bytes of the whole record this index points at, for a key of
    /// `key_len` bytes (what garbage accounting counts).
    pub fn record_size(&self, key_len: usize) -> u64 {
        record_size(key_len as u64, self.size)
    }

    /// Offset just past the stored value (the record trailer starts here).
    pub fn value_end(&self) -> u64 {
        self.offset.saturating_add(self.size)
    }

    /// Builds the index of a record written at `record_offset` for a key of
    /// `key_len` bytes.
    pub fn for_record(
        file_number: u64,
        record_offset: u64,
        key_len: usize,
        size: u64,
        compression: CompressionType,
    ) -> BlobIndex {
        BlobIndex {
            file_number,
            offset: value_offset(record_offset, key_len as u64),
            size,
            compression,
        }
    }
}

impl std::fmt::Display for BlobIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "[blob ref] file {} offset {} size {} compression {}",
            self.file_number,
            self.offset,
            self.size,
            self.compression.short_name()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_every_codec_and_extreme_values() {
        for c in CompressionType::ALL {
            for (n, o, s) in [(1, 0, 0), (7, 22, 4096), (u64::MAX, u64::MAX, u64::MAX)] {
                let i = BlobIndex {
                    file_number: n,
                    offset: o,
                    size: s,
                    compression: c,
                };
                let enc = i.encode();
                assert_eq!(BlobIndex::decode(&enc), Some(i));
            }
        }
    }

    #[test]
    fn malformed_input_is_rejected() {
        let i = BlobIndex {
            file_number: 12,
            offset: 300,
            size: 5000,
            compression: CompressionType::Lz4,
        };
        let enc = i.encode();
        for cut in 0..enc.len() {
            assert_eq!(BlobIndex::decode(&enc[..cut]), None, "cut {cut}");
        }
        let mut extra = enc.clone();
        extra.push(0);
        assert_eq!(BlobIndex::decode(&extra), None);
        let mut bad_type = enc.clone();
        bad_type[0] = 2;
        assert_eq!(BlobIndex::decode(&bad_type), None);
        let mut bad_codec = enc.clone();
        *bad_codec.last_mut().unwrap() = 3;
        assert_eq!(BlobIndex::decode(&bad_codec), None);
        // File number 0 means "no blob file" elsewhere; never valid here.
        let zero = BlobIndex {
            file_number: 0,
            ..i
        };
        assert_eq!(BlobIndex::decode(&zero.encode()), None);
    }

    #[test]
    fn display_names_every_field() {
        let i = BlobIndex {
            file_number: 9,
            offset: 40,
            size: 3,
            compression: CompressionType::None,
        };
        assert_eq!(
            i.to_string(),
            "[blob ref] file 9 offset 40 size 3 compression none"
        );
    }
}
