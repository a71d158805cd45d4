//! Little-endian fixed-width integers and LEB128 varints (LevelDB's encoding).
//!
//! Decoders return `None` on truncated or over-long input; callers turn that
//! into a `Corruption` error naming their file and offset.

/// Appends `v` as 4 little-endian bytes.
pub fn put_fixed32(dst: &mut Vec<u8>, v: u32) {
    dst.extend_from_slice(&v.to_le_bytes());
}

/// Appends `v` as 8 little-endian bytes.
pub fn put_fixed64(dst: &mut Vec<u8>, v: u64) {
    dst.extend_from_slice(&v.to_le_bytes());
}

/// Reads 4 little-endian bytes at the start of `src`.
pub fn decode_fixed32(src: &[u8]) -> Option<u32> {
    Some(u32::from_le_bytes(src.get(..4)?.try_into().ok()?))
}

/// Reads 8 little-endian bytes at the start of `src`.
pub fn decode_fixed64(src: &[u8]) -> Option<u64> {
    Some(u64::from_le_bytes(src.get(..8)?.try_into().ok()?))
}

/// Appends `v` as a varint (1 to 5 bytes).
pub fn put_varint32(dst: &mut Vec<u8>, v: u32) {
    put_varint64(dst, u64::from(v));
}

/// Appends `v` as a varint (1 to 10 bytes).
pub fn put_varint64(dst: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        dst.push((v as u8) | 0x80);
        v >>= 7;
    }
    dst.push(v as u8);
}

/// Number of bytes `v` takes as a varint.
pub fn varint_length(mut v: u64) -> usize {
    let mut n = 1;
    while v >= 0x80 {
        v >>= 7;
        n += 1;
    }
    n
}

/// Decodes a varint64; returns the value and the number of bytes used.
#[inline]
pub fn decode_varint64(src: &[u8]) -> Option<(u64, usize)> {
    // One- and two-byte values (lengths below 16 KiB) are most of what a
    // block holds: decode them without the loop.
    match src {
        [b0, ..] if *b0 < 0x80 => return Some((u64::from(*b0), 1)),
        [b0, b1, ..] if *b1 < 0x80 => {
            return Some((u64::from(b0 & 0x7f) | u64::from(*b1) << 7, 2));
        }
        _ => {}
    }
    decode_varint64_slow(src)
}

/// [`decode_varint64`]'s general case.
fn decode_varint64_slow(src: &[u8]) -> Option<(u64, usize)> {
    let mut result: u64 = 0;
    for (i, &byte) in src.iter().enumerate().take(10) {
        let shift = 7 * i as u32;
        if i == 9 && byte > 1 {
            return None;
        }
        result |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Some((result, i + 1));
        }
    }
    None
}

/// Decodes a varint32; returns the value and the number of bytes used.
#[inline]
pub fn decode_varint32(src: &[u8]) -> Option<(u32, usize)> {
    let (v, n) = decode_varint64(src)?;
    if n > 5 {
        return None;
    }
    Some((u32::try_from(v).ok()?, n))
}

/// Appends a varint length followed by the bytes.
pub fn put_length_prefixed(dst: &mut Vec<u8>, data: &[u8]) {
    put_varint32(dst, data.len() as u32);
    dst.extend_from_slice(data);
}

/// A cursor over a byte slice for decoding; every getter returns `None` on
/// truncated input.
#[derive(Debug, Clone)]
pub struct Decoder<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Decoder<'a> {
    /// Starts decoding at the beginning of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Decoder { buf, pos: 0 }
    }
    /// Bytes consumed so far.
    pub fn position(&self) -> usize {
        self.pos
    }
    /// True when all input is consumed.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.buf.len()
    }
    /// The unconsumed input.
    pub fn remaining(&self) -> &'a [u8] {
        self.buf.get(self.pos..).unwrap_or(&[])
    }
    /// Reads a varint32.
    pub fn varint32(&mut self) -> Option<u32> {
        let (v, n) = decode_varint32(self.remaining())?;
        self.pos += n;
        Some(v)
    }
    /// Reads a varint64.
    pub fn varint64(&mut self) -> Option<u64> {
        let (v, n) = decode_varint64(self.remaining())?;
        self.pos += n;
        Some(v)
    }
    /// Reads a fixed32.
    pub fn fixed32(&mut self) -> Option<u32> {
        let v = decode_fixed32(self.remaining())?;
        self.pos += 4;
        Some(v)
    }
    /// Reads a fixed64.
    pub fn fixed64(&mut self) -> Option<u64> {
        let v = decode_fixed64(self.remaining())?;
        self.pos += 8;
        Some(v)
    }
    /// Reads one byte.
    pub fn u8(&mut self) -> Option<u8> {
        let v = *self.remaining().first()?;
        self.pos += 1;
        Some(v)
    }
    /// Reads `n` raw bytes.
    pub fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let v = self.remaining().get(..n)?;
        self.pos += n;
        Some(v)
    }
    /// Reads a varint32 length and that many bytes.
    pub fn length_prefixed(&mut self) -> Option<&'a [u8]> {
        let save = self.pos;
        let n = self.varint32()? as usize;
        match self.bytes(n) {
            Some(b) => Some(b),
            None => {
                self.pos = save;
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varint_round_trip() {
        let values = [
            0u64,
            1,
            127,
            128,
            255,
            300,
            16383,
            16384,
            u32::MAX as u64,
            u64::MAX,
        ];
        for &v in &values {
            let mut buf = Vec::new();
            put_varint64(&mut buf, v);
            assert_eq!(buf.len(), varint_length(v));
            assert_eq!(decode_varint64(&buf), Some((v, buf.len())));
        }
    }

    #[test]
    fn varint_one_and_two_byte_fast_paths_agree_with_the_loop() {
        for v in [
            0u64,
            1,
            127,
            128,
            129,
            300,
            16_383,
            16_384,
            1 << 21,
            u64::MAX,
        ] {
            let mut b = Vec::new();
            put_varint64(&mut b, v);
            assert_eq!(decode_varint64(&b), Some((v, b.len())), "{v}");
            assert_eq!(decode_varint64_slow(&b), Some((v, b.len())), "{v}");
            b.extend_from_slice(&[0xff, 0x01]);
            assert_eq!(
                decode_varint64(&b).map(|x| x.0),
                Some(v),
                "trailing bytes, {v}"
            );
        }
        // A continuation byte with nothing after it, and a two-byte
        // encoding whose second byte continues too.
        assert_eq!(decode_varint64(&[0x80]), None);
        assert_eq!(decode_varint64(&[0x81, 0x80]), None);
        assert_eq!(decode_varint64(&[0x81, 0x80, 0x01]), Some((1 | 1 << 14, 3)));
        assert_eq!(decode_varint64(&[]), None);
    }

    #[test]
    fn varint_truncated_and_overlong_are_rejected() {
        assert_eq!(decode_varint64(&[0x80]), None);
        assert_eq!(decode_varint64(&[0xff; 11]), None);
        assert_eq!(decode_varint32(&[0xff, 0xff, 0xff, 0xff, 0x7f]), None);
    }

    #[test]
    fn decoder_reads_in_order() {
        let mut buf = Vec::new();
        put_fixed32(&mut buf, 7);
        put_length_prefixed(&mut buf, b"abc");
        put_fixed64(&mut buf, 9);
        let mut d = Decoder::new(&buf);
        assert_eq!(d.fixed32(), Some(7));
        assert_eq!(d.length_prefixed(), Some(&b"abc"[..]));
        assert_eq!(d.fixed64(), Some(9));
        assert!(d.is_empty());
        assert_eq!(d.u8(), None);
    }
}
