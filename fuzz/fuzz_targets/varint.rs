//! coding: varint and fixed-width decoders and the Decoder cursor agree with
//! the encoders on arbitrary bytes.
#![no_main]
use libfuzzer_sys::fuzz_target;
use strata::tools::coding::{
    decode_fixed32, decode_fixed64, decode_varint32, decode_varint64, put_varint32, put_varint64,
    varint_length, Decoder,
};

fuzz_target!(|data: &[u8]| {
    if let Some((v, n)) = decode_varint64(data) {
        assert!((1..=10).contains(&n) && n <= data.len());
        let mut e = Vec::new();
        put_varint64(&mut e, v);
        assert_eq!(e.len(), varint_length(v));
        // Canonical encodings round-trip exactly.
        if e.len() == n {
            assert_eq!(&e[..], &data[..n]);
        }
    }
    if let Some((v, n)) = decode_varint32(data) {
        assert!((1..=5).contains(&n) && n <= data.len());
        let mut e = Vec::new();
        put_varint32(&mut e, v);
        assert_eq!(decode_varint32(&e), Some((v, e.len())));
    }
    let _ = (decode_fixed32(data), decode_fixed64(data));
    let mut d = Decoder::new(data);
    let mut steps = 0;
    while !d.is_empty() && steps < 10_000 {
        steps += 1;
        let before = d.position();
        let ok = match data.get(before).copied().unwrap_or(0) % 7 {
            0 => d.varint32().is_some(),
            1 => d.varint64().is_some(),
            2 => d.fixed32().is_some(),
            3 => d.fixed64().is_some(),
            4 => d.u8().is_some(),
            5 => d.length_prefixed().is_some(),
            _ => d.bytes(3).is_some(),
        };
        assert!(d.position() <= data.len());
        assert_eq!(d.remaining().len(), data.len() - d.position());
        if !ok {
            break;
        }
        assert!(d.position() > before || data.get(before).copied().unwrap_or(0) % 7 == 5);
    }
});
