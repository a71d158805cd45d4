//! Block handles, block trailers, the footer and the checksum mask.
//!
//! Byte layout: see `docs/formats/sstable.md` ("Block trailer", "Block
//! handle", "Footer").

use std::sync::Arc;

use crate::coding::{
    decode_fixed32, decode_fixed64, put_fixed32, put_fixed64, put_varint64, Decoder,
};
use crate::error::{Error, Result};
use crate::fs::RandomAccessFile;
use crate::stats::{Histogram, Statistics, Ticker};

use super::block::Block;
use super::block_bytes::BlockBytes;
use super::compression::{decompress, CompressionType};

/// Bytes after every block: 1 compression-type byte + 4 bytes masked CRC32C.
pub const BLOCK_TRAILER_SIZE: usize = 5;

/// The magic number ending every table file ("STRATSST" read as big-endian ASCII).
pub const TABLE_MAGIC: u64 = 0x5354_5241_5453_5354;

/// The newest table format version this code reads and writes: 4, whose
/// data blocks may carry a hash index (RocksDB's `kDataBlockBinaryAndHash`).
/// A table is written as version 4 only when built with that index, and as
/// version 3 otherwise, so builds that read up to 3 still read it. Version
/// 3 has index entries without a value length (their values are block
/// handles, which delimit themselves), as RocksDB's format_version 4 and
/// later; versions 1 (internal-key index separators) and 2 (user-key
/// separators) store the length (docs/formats/sstable.md, "Versions").
pub const FORMAT_VERSION: u32 = 4;

/// The first format version whose index entries have no value length.
pub const INDEX_WITHOUT_VALUE_LENGTH: u32 = 3;

/// The first format version whose data blocks may carry a hash index.
pub const DATA_BLOCK_HASH_INDEX: u32 = 4;

/// The oldest table format version this code reads.
pub const MIN_FORMAT_VERSION: u32 = 1;

/// Size of the fixed footer at the end of every table file.
pub const FOOTER_SIZE: usize = 16 + 16 + 4 + 4 + 8;

/// LevelDB's CRC mask delta (`kMaskDelta`).
const MASK_DELTA: u32 = 0xa282_ead8;

/// Masks a CRC so that a CRC stored inside checksummed data does not weaken
/// the outer checksum (LevelDB's `crc32c::Mask`). Tables, blob files and
/// the WAL all store their CRCs masked by it.
pub fn mask_crc(crc: u32) -> u32 {
    crc.rotate_right(15).wrapping_add(MASK_DELTA)
}

/// Inverse of [`mask_crc`].
pub fn unmask_crc(masked: u32) -> u32 {
    masked.wrapping_sub(MASK_DELTA).rotate_left(15)
}

/// The masked CRC32C stored in a block trailer: over the block contents and
/// then the compression-type byte.
pub fn block_checksum(contents: &[u8], type_byte: u8) -> u32 {
    let crc = crc32c::crc32c(contents);
    mask_crc(crc32c::crc32c_append(crc, &[type_byte]))
}

/// Where a block lives in the file: its offset and the size of its stored
/// contents (without the trailer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct BlockHandle {
    /// Offset of the block's first byte.
    pub offset: u64,
    /// Size of the stored (possibly compressed) contents, trailer excluded.
    pub size: u64,
}

impl BlockHandle {
    /// Appends the varint encoding used in index and metaindex values.
    pub fn encode_to(&self, dst: &mut Vec<u8>) {
        put_varint64(dst, self.offset);
        put_varint64(dst, self.size);
    }

    /// Decodes a varint-encoded handle; `None` if malformed or if bytes follow.
    pub fn decode(src: &[u8]) -> Option<BlockHandle> {
        let mut d = Decoder::new(src);
        let offset = d.varint64()?;
        let size = d.varint64()?;
        if !d.is_empty() {
            return None;
        }
        Some(BlockHandle { offset, size })
    }

    /// Offset just past this block's trailer.
    pub fn end(&self) -> u64 {
        self.offset
            .saturating_add(self.size)
            .saturating_add(BLOCK_TRAILER_SIZE as u64)
    }
}

/// The fixed-size record at the end of every table file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Footer {
    /// Handle of the metaindex block.
    pub metaindex: BlockHandle,
    /// Handle of the index block.
    pub index: BlockHandle,
    /// Format version (`FORMAT_VERSION`).
    pub format_version: u32,
}

impl Footer {
    /// Encodes the footer ([`FOOTER_SIZE`] bytes).
    pub fn encode(&self) -> Vec<u8> {
        let mut buf = Vec::with_capacity(FOOTER_SIZE);
        put_fixed64(&mut buf, self.metaindex.offset);
        put_fixed64(&mut buf, self.metaindex.size);
        put_fixed64(&mut buf, self.index.offset);
        put_fixed64(&mut buf, self.index.size);
        put_fixed32(&mut buf, self.format_version);
        let crc = mask_crc(crc32c::crc32c(&buf));
        put_fixed32(&mut buf, crc);
        put_fixed64(&mut buf, TABLE_MAGIC);
        buf
    }

    /// Decodes and validates a footer read at `offset` of `file`.
    pub fn decode(src: &[u8], file: &str, offset: u64) -> Result<Footer> {
        let bad = |msg: &str| Error::corruption(file, offset, msg);
        if src.len() != FOOTER_SIZE {
            return Err(bad("footer has the wrong size"));
        }
        let magic = decode_fixed64(&src[40..]).ok_or_else(|| bad("short footer"))?;
        if magic != TABLE_MAGIC {
            return Err(bad(
                "bad table magic number (not a strata table, or truncated)",
            ));
        }
        let stored = decode_fixed32(&src[36..]).ok_or_else(|| bad("short footer"))?;
        if unmask_crc(stored) != crc32c::crc32c(&src[..36]) {
            return Err(bad("footer checksum mismatch"));
        }
        let mut d = Decoder::new(src);
        let mut next = || d.fixed64().ok_or_else(|| bad("short footer"));
        let metaindex = BlockHandle {
            offset: next()?,
            size: next()?,
        };
        let index = BlockHandle {
            offset: next()?,
            size: next()?,
        };
        let format_version = decode_fixed32(&src[32..]).ok_or_else(|| bad("short footer"))?;
        if !(MIN_FORMAT_VERSION..=FORMAT_VERSION).contains(&format_version) {
            return Err(Error::NotSupported(format!(
                "{file}: table format version {format_version} (this build reads {MIN_FORMAT_VERSION} to {FORMAT_VERSION})"
            )));
        }
        Ok(Footer {
            metaindex,
            index,
            format_version,
        })
    }
}

/// Appends the 5-byte trailer for `contents` stored with compression `ctype`.
#[cfg(test)]
pub fn put_block_trailer(dst: &mut Vec<u8>, contents: &[u8], ctype: CompressionType) {
    let t = ctype as u8;
    dst.push(t);
    put_fixed32(dst, block_checksum(contents, t));
}

/// Where a table's blocks are read from: the file, the name errors give
/// it, where its blocks end (the footer's start: no block may lie past
/// it), and the statistics reads count into.
#[derive(Clone, Copy)]
pub struct BlockSource<'a> {
    /// The table file (or a read-ahead window over it).
    pub file: &'a Arc<dyn RandomAccessFile>,
    /// The file's name in errors.
    pub file_name: &'a Arc<str>,
    /// Where the footer starts.
    pub data_end: u64,
    /// Where block reads, checksums and decompressions are counted.
    pub stats: Option<&'a Statistics>,
}

impl BlockSource<'_> {
    /// Reads the block at `handle`, checks its trailer (the checksum only when
    /// `verify` is set), decompresses it and parses its restart array. From a
    /// mapped file, an uncompressed block stays in place in the map.
    ///
    /// With `stats`, counts the checksum computed (`rocksdb.block.checksum.compute.count`)
    /// and a decompression (`rocksdb.number.block.decompressed`), as RocksDB does
    /// for every block it reads from a file.
    pub fn read_block(&self, handle: BlockHandle, verify: bool) -> Result<Block> {
        let BlockSource {
            file_name, stats, ..
        } = *self;
        let (contents, ctype_byte) = self.read_raw_block(handle, verify)?;
        let ctype = CompressionType::from_u8(ctype_byte).ok_or_else(|| {
            Error::corruption(
                &**file_name,
                handle.offset,
                format!("unknown block compression type {ctype_byte}"),
            )
        })?;
        if ctype == CompressionType::None {
            return Block::new(contents, file_name.clone(), handle.offset);
        }
        // Only a compressed block counts as decompressed.
        if let Some(s) = stats {
            s.record_tick(Ticker::NumberBlockDecompressed, 1);
        }
        let data = decompress(ctype, &contents)
            .map_err(|m| Error::corruption(&**file_name, handle.offset, m))?;
        if let Some(s) = stats {
            s.record_histogram(Histogram::BytesDecompressed, data.len() as u64);
        }
        Block::new(data, file_name.clone(), handle.offset)
    }

    /// Reads a block's stored bytes and its type byte, checking bounds and (if
    /// `verify`) the checksum; no decompression. From a mapped file the bytes
    /// stay in place in the map; otherwise they are read into a buffer a
    /// dropped block left behind (`block_buffers`), or a new one.
    /// With `stats`, a checksum check counts in
    /// `rocksdb.block.checksum.compute.count`, and the read (from the file or
    /// the map) is timed into `rocksdb.sst.read.micros`.
    pub fn read_raw_block(&self, handle: BlockHandle, verify: bool) -> Result<(BlockBytes, u8)> {
        let BlockSource {
            file,
            file_name,
            data_end,
            stats,
        } = *self;
        let end = handle
            .offset
            .checked_add(handle.size)
            .and_then(|e| e.checked_add(BLOCK_TRAILER_SIZE as u64));
        match end {
            Some(e) if e <= data_end => {}
            _ => {
                return Err(Error::corruption(
                    &**file_name,
                    handle.offset,
                    format!(
                "block handle (offset {}, size {}) points past the end of the data ({data_end})",
                handle.offset, handle.size
            ),
                ))
            }
        }
        let n = handle.size as usize;
        let at = handle.offset as usize;
        let short = || Error::corruption(&**file_name, handle.offset, "short block read");
        let start = stats.map(|_| std::time::Instant::now());
        let (contents, trailer) = if let Some(map) = file.mapped() {
            let trailer: [u8; BLOCK_TRAILER_SIZE] = map
                .get(at + n..at + n + BLOCK_TRAILER_SIZE)
                .and_then(|t| t.try_into().ok())
                .ok_or_else(short)?;
            let contents = BlockBytes::mapped(file, at..at + n).ok_or_else(short)?;
            (contents, trailer)
        } else {
            let mut buf = super::block_buffers::take(n + BLOCK_TRAILER_SIZE);
            file.read_into(handle.offset, n + BLOCK_TRAILER_SIZE, &mut buf)?;
            if buf.len() != n + BLOCK_TRAILER_SIZE {
                return Err(short());
            }
            let trailer: [u8; BLOCK_TRAILER_SIZE] = buf[n..].try_into().map_err(|_| short())?;
            buf.truncate(n);
            (BlockBytes::from(buf), trailer)
        };
        if let (Some(s), Some(t)) = (stats, start) {
            s.record_histogram(Histogram::SstReadMicros, t.elapsed().as_micros() as u64);
        }
        let type_byte = trailer[0];
        if verify {
            if let Some(s) = stats {
                s.record_tick(Ticker::BlockChecksumComputeCount, 1);
            }
            let stored = decode_fixed32(&trailer[1..]).unwrap_or(0);
            if stored != block_checksum(&contents, type_byte) {
                return Err(Error::corruption(
                    &**file_name,
                    handle.offset,
                    "block checksum mismatch",
                ));
            }
        }
        Ok((contents, type_byte))
    }
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
    fn handle_round_trip_and_rejects_trailing_bytes() {
        let h = BlockHandle {
            offset: 123_456_789,
            size: 4096,
        };
        let mut buf = Vec::new();
        h.encode_to(&mut buf);
        assert_eq!(BlockHandle::decode(&buf), Some(h));
        buf.push(0);
        assert_eq!(BlockHandle::decode(&buf), None);
        assert_eq!(BlockHandle::decode(&[0x80]), None);
    }

    #[test]
    fn footer_round_trip_and_detects_damage() {
        let f = Footer {
            metaindex: BlockHandle {
                offset: 10,
                size: 20,
            },
            index: BlockHandle {
                offset: 35,
                size: 99,
            },
            format_version: FORMAT_VERSION,
        };
        let enc = f.encode();
        assert_eq!(enc.len(), FOOTER_SIZE);
        assert_eq!(Footer::decode(&enc, "t", 0).unwrap(), f);
        for i in 0..FOOTER_SIZE {
            let mut bad = enc.clone();
            bad[i] ^= 0x10;
            let err = Footer::decode(&bad, "t.sst", 7).unwrap_err();
            assert!(err.is_corruption(), "byte {i}: {err}");
            assert!(err.to_string().contains("t.sst at offset 7"), "{err}");
        }
        let future = Footer {
            format_version: FORMAT_VERSION + 1,
            ..f
        };
        let err = Footer::decode(&future.encode(), "t", 0).unwrap_err();
        assert!(matches!(err, Error::NotSupported(_)), "{err}");
    }
}
