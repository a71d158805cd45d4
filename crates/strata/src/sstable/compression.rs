//! Block compression: the codec names RocksDB uses and the encode/decode
//! functions for each codec.
//!
//! Stored form of each codec: see `docs/formats/sstable.md` ("Compression").

use std::cell::RefCell;
use std::fmt;
use std::str::FromStr;

use crate::byte_enum::byte_enum;
use crate::coding::{decode_varint32, put_varint32};
use crate::error::Error;

byte_enum! {
    /// A block codec. Names follow RocksDB's `CompressionType`; the
    /// discriminant is the byte stored in block trailers and blob records
    /// (RocksDB's numbering).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
    pub enum CompressionType {
        /// Blocks are stored as they are (`kNoCompression`).
        None = 0,
        /// Snappy raw format (`kSnappyCompression`). RocksDB's default.
        #[default]
        Snappy = 1,
        /// LZ4 block format with a varint32 length prefix (`kLZ4Compression`).
        Lz4 = 4,
        /// A zstd frame (`kZSTD`).
        Zstd = 7,
    }
}

/// zstd level used for blocks (the library's default level, as in RocksDB).
const ZSTD_LEVEL: i32 = 3;

/// No block decompresses to more than this; a larger claim is corruption.
const MAX_DECOMPRESSED: usize = 1 << 30;

impl CompressionType {
    /// Every codec.
    pub const ALL: [CompressionType; 4] = [
        CompressionType::None,
        CompressionType::Snappy,
        CompressionType::Lz4,
        CompressionType::Zstd,
    ];

    /// RocksDB's name (`kNoCompression`, `kSnappyCompression`, ...).
    pub fn name(self) -> &'static str {
        match self {
            CompressionType::None => "kNoCompression",
            CompressionType::Snappy => "kSnappyCompression",
            CompressionType::Lz4 => "kLZ4Compression",
            CompressionType::Zstd => "kZSTD",
        }
    }

    /// db_bench's short name (`none`, `snappy`, `lz4`, `zstd`).
    pub fn short_name(self) -> &'static str {
        match self {
            CompressionType::None => "none",
            CompressionType::Snappy => "snappy",
            CompressionType::Lz4 => "lz4",
            CompressionType::Zstd => "zstd",
        }
    }
}

impl fmt::Display for CompressionType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for CompressionType {
    type Err = Error;

    /// Accepts RocksDB's names and db_bench's short names (case-insensitive
    /// for the short names; `no` is an alias of `none`).
    fn from_str(s: &str) -> Result<Self, Error> {
        for c in CompressionType::ALL {
            if s == c.name() || s.eq_ignore_ascii_case(c.short_name()) {
                return Ok(c);
            }
        }
        if s.eq_ignore_ascii_case("no") {
            return Ok(CompressionType::None);
        }
        Err(Error::InvalidArgument(format!(
            "unknown compression type {s:?} (expected one of none, snappy, lz4, zstd \
             or kNoCompression, kSnappyCompression, kLZ4Compression, kZSTD)"
        )))
    }
}

thread_local! {
    /// One Snappy encoder per thread, reused: a new one allocates and zeroes
    /// 34 KiB of hash tables, eight times the 4 KiB block it compresses. A
    /// flush of 4 KB values took 15% less CPU with the encoder reused
    /// (docs/benchmarks.md).
    static SNAPPY_C: RefCell<snap::raw::Encoder> = RefCell::new(snap::raw::Encoder::new());
    static ZSTD_C: RefCell<Option<zstd::bulk::Compressor<'static>>> = const { RefCell::new(None) };
    static ZSTD_D: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
}

/// Compresses `raw` with `ctype` into `out` (cleared first). Returns the type
/// actually used: `None` (and `out` left empty) when the codec failed or saved
/// less than 12.5% of the size, as in LevelDB and RocksDB.
pub fn compress_block(ctype: CompressionType, raw: &[u8], out: &mut Vec<u8>) -> CompressionType {
    out.clear();
    let ok = match ctype {
        CompressionType::None => false,
        CompressionType::Snappy => {
            out.resize(snap::raw::max_compress_len(raw.len()), 0);
            match SNAPPY_C.with(|e| e.borrow_mut().compress(raw, out)) {
                Ok(n) => {
                    out.truncate(n);
                    true
                }
                Err(_) => false,
            }
        }
        CompressionType::Lz4 => match u32::try_from(raw.len()) {
            Ok(len) => {
                put_varint32(out, len);
                let prefix = out.len();
                out.resize(
                    prefix + lz4_flex::block::get_maximum_output_size(raw.len()),
                    0,
                );
                match lz4_flex::block::compress_into(raw, &mut out[prefix..]) {
                    Ok(n) => {
                        out.truncate(prefix + n);
                        true
                    }
                    Err(_) => false,
                }
            }
            Err(_) => false,
        },
        CompressionType::Zstd => ZSTD_C.with(|cell| {
            let mut slot = cell.borrow_mut();
            if slot.is_none() {
                *slot = zstd::bulk::Compressor::new(ZSTD_LEVEL).ok();
            }
            let Some(c) = slot.as_mut() else {
                return false;
            };
            out.reserve(zstd::zstd_safe::compress_bound(raw.len()));
            c.compress_to_buffer(raw, out).is_ok()
        }),
    };
    if ok && out.len() < raw.len() - raw.len() / 8 {
        ctype
    } else {
        out.clear();
        CompressionType::None
    }
}

/// Decompresses block contents stored with `ctype`. The error is a message
/// for a `Corruption` (the caller knows the file and offset).
pub fn decompress_block(ctype: CompressionType, stored: Vec<u8>) -> Result<Vec<u8>, String> {
    match ctype {
        CompressionType::None => Ok(stored),
        c => decompress(c, &stored),
    }
}

/// [`decompress_block`] from borrowed bytes (a block in a mapped file);
/// a block stored uncompressed comes back copied.
pub fn decompress(ctype: CompressionType, stored: &[u8]) -> Result<Vec<u8>, String> {
    match ctype {
        CompressionType::None => Ok(stored.to_vec()),
        CompressionType::Snappy => {
            let n = snap::raw::decompress_len(stored)
                .map_err(|e| format!("snappy: bad length header: {e}"))?;
            // Snappy cannot expand more than ~64x; a bigger claim is damage.
            if n > MAX_DECOMPRESSED || n > stored.len().saturating_mul(64) + 64 {
                return Err(format!("snappy: implausible decompressed size {n}"));
            }
            let mut out = super::block_buffers::take(n);
            out.resize(n, 0);
            let got = snap::raw::Decoder::new()
                .decompress(stored, &mut out)
                .map_err(|e| format!("snappy: {e}"))?;
            if got != n {
                return Err("snappy: length mismatch".to_string());
            }
            Ok(out)
        }
        CompressionType::Lz4 => {
            let (n, used) = decode_varint32(stored).ok_or("lz4: bad length prefix")?;
            let n = n as usize;
            let body = &stored[used..];
            // LZ4 cannot expand more than 255x.
            if n > MAX_DECOMPRESSED || n > body.len().saturating_mul(255) + 16 {
                return Err(format!("lz4: implausible decompressed size {n}"));
            }
            let mut out = super::block_buffers::take(n);
            out.resize(n, 0);
            let got = lz4_flex::block::decompress_into(body, &mut out)
                .map_err(|e| format!("lz4: {e}"))?;
            if got != n {
                return Err("lz4: length mismatch".to_string());
            }
            Ok(out)
        }
        CompressionType::Zstd => ZSTD_D.with(|cell| {
            let mut slot = cell.borrow_mut();
            if slot.is_none() {
                *slot = zstd::bulk::Decompressor::new().ok();
            }
            let d = slot
                .as_mut()
                .ok_or_else(|| "zstd: cannot create a decompression context".to_string())?;
            // A frame that records its size decompresses into a recycled
            // buffer of that size.
            match zstd::zstd_safe::get_frame_content_size(stored) {
                Ok(Some(n)) if n as usize <= MAX_DECOMPRESSED => {
                    let mut out = super::block_buffers::take(n as usize);
                    d.decompress_to_buffer(stored, &mut out)
                        .map_err(|e| format!("zstd: {e}"))?;
                    Ok(out)
                }
                _ => d
                    .decompress(stored, MAX_DECOMPRESSED)
                    .map_err(|e| format!("zstd: {e}")),
            }
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compressible(n: usize) -> Vec<u8> {
        (0..n).map(|i| b"abcdefgh"[(i / 7) % 8]).collect()
    }

    #[test]
    fn names_parse_both_ways() {
        for c in CompressionType::ALL {
            assert_eq!(c.name().parse::<CompressionType>().unwrap(), c);
            assert_eq!(c.short_name().parse::<CompressionType>().unwrap(), c);
            assert_eq!(CompressionType::from_u8(c as u8), Some(c));
        }
        assert_eq!(
            "kZSTD".parse::<CompressionType>().unwrap(),
            CompressionType::Zstd
        );
        assert_eq!(
            "LZ4".parse::<CompressionType>().unwrap(),
            CompressionType::Lz4
        );
        assert!("zlib".parse::<CompressionType>().is_err());
        assert_eq!(CompressionType::from_u8(2), None);
    }

    #[test]
    fn round_trip_every_codec() {
        let raw = compressible(10_000);
        for c in CompressionType::ALL {
            let mut out = Vec::new();
            let used = compress_block(c, &raw, &mut out);
            assert_eq!(used, c, "{c} should compress repetitive data");
            if c != CompressionType::None {
                assert!(out.len() < raw.len() / 2, "{c}: {}", out.len());
                assert_eq!(decompress_block(c, out).unwrap(), raw);
            }
        }
    }

    /// The thread's encoders are reused from block to block: what a block
    /// compresses to must not depend on the blocks compressed before it.
    #[test]
    fn a_reused_encoder_compresses_each_block_as_a_fresh_one() {
        let big = compressible(60_000);
        let small: Vec<u8> = compressible(3_000).iter().map(|b| b ^ 0x5a).collect();
        for c in CompressionType::ALL {
            let fresh = std::thread::scope(|s| {
                s.spawn(|| {
                    let mut out = Vec::new();
                    compress_block(c, &small, &mut out);
                    out
                })
                .join()
                .unwrap()
            });
            let mut out = Vec::new();
            compress_block(c, &big, &mut out);
            compress_block(c, &small, &mut out);
            assert_eq!(out, fresh, "{c}");
            if c != CompressionType::None {
                assert_eq!(decompress_block(c, out).unwrap(), small, "{c}");
            }
        }
    }

    #[test]
    fn incompressible_data_is_stored_raw() {
        let raw = crate::sstable::testutil::noise(4096, 0x1234_5678_9abc_def1);
        for c in CompressionType::ALL {
            let mut out = vec![1, 2, 3];
            assert_eq!(compress_block(c, &raw, &mut out), CompressionType::None);
            assert!(out.is_empty());
        }
    }

    #[test]
    fn damaged_input_is_an_error_not_a_panic() {
        let raw = compressible(5000);
        for c in [
            CompressionType::Snappy,
            CompressionType::Lz4,
            CompressionType::Zstd,
        ] {
            let mut out = Vec::new();
            compress_block(c, &raw, &mut out);
            for cut in [0, 1, out.len() / 2, out.len() - 1] {
                let r = decompress_block(c, out[..cut].to_vec());
                assert!(r.is_err() || r.as_deref() != Ok(&raw[..]), "{c} cut {cut}");
            }
            for i in (0..out.len()).step_by(7) {
                let mut bad = out.clone();
                bad[i] ^= 0xff;
                let _ = decompress_block(c, bad); // must not panic
            }
        }
    }
}
