//! options_file::parse over arbitrary text. When the first byte is odd the
//! harness appends a correct checksum line so the body's parser is reached;
//! accepted options render and parse back to the same text.
#![no_main]
use libfuzzer_sys::fuzz_target;
use strata::tools::options_file::{parse_families, render};

fn with_checksum(body: &[u8]) -> Vec<u8> {
    let mut v = body.to_vec();
    if !v.is_empty() && !v.ends_with(b"\n") {
        v.push(b'\n');
    }
    let crc = crc32c::crc32c(&v);
    v.extend_from_slice(format!("checksum={crc:08x}\n").as_bytes());
    v
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let bytes = if mode & 1 == 1 {
        with_checksum(rest)
    } else {
        rest.to_vec()
    };
    let Ok((o, families)) = parse_families(&bytes, "OPTIONS-000001") else {
        return;
    };
    let text = render(&o, &families);
    match parse_families(&with_checksum(text.as_bytes()), "OPTIONS-000001") {
        Ok((o2, f2)) => assert_eq!(render(&o2, &f2), text, "options round trip"),
        Err(e) => panic!("rendered options do not parse: {e}"),
    }
});
