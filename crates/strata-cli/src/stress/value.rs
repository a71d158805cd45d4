//! Keys, deterministic values and a small seeded random generator.
//!
//! A value is a function of `(key index, version)`: it starts with
//! `"<key:08>:<version:016x>:"` and is padded with bytes derived from both,
//! so any value read back names the version it claims to be and can be
//! checked byte for byte.

/// The key for index `k`: `key` + 8 decimal digits (sorts like `k`).
pub fn key_bytes(k: u32) -> Vec<u8> {
    format!("key{k:08}").into_bytes()
}

/// The key index of a key made by [`key_bytes`], if it is one.
pub fn parse_key(key: &[u8]) -> Option<u32> {
    let digits = key.strip_prefix(b"key")?;
    if digits.len() != 8 {
        return None;
    }
    std::str::from_utf8(digits).ok()?.parse().ok()
}

/// splitmix64: a well-mixed 64-bit hash step.
pub fn mix64(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The value for `(k, version)` with a length in `[min, max]` (never shorter
/// than its 27-byte header).
pub fn value_bytes(k: u32, version: u64, min: usize, max: usize) -> Vec<u8> {
    let h = mix64(u64::from(k) << 40 ^ version);
    let span = max.saturating_sub(min) as u64 + 1;
    let len = min + (h % span) as usize;
    let mut v = format!("{k:08}:{version:016x}:").into_bytes();
    let mut state = h;
    while v.len() < len {
        state = mix64(state);
        v.push(b'a' + (state % 26) as u8);
    }
    v
}

/// The `(key, version)` a value claims in its header, if well formed.
pub fn parse_value(v: &[u8]) -> Option<(u32, u64)> {
    let k = std::str::from_utf8(v.get(0..8)?).ok()?.parse().ok()?;
    if v.get(8) != Some(&b':') || v.get(25) != Some(&b':') {
        return None;
    }
    let ver = u64::from_str_radix(std::str::from_utf8(v.get(9..25)?).ok()?, 16).ok()?;
    Some((k, ver))
}

/// A small seeded generator (xorshift64*), one per thread.
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (any value, zero included).
    pub fn new(seed: u64) -> Rng {
        Rng(mix64(seed) | 1)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// Uniform in `[0, n)`; 0 when `n` is 0.
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next_u64() % n
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_round_trips_and_is_deterministic() {
        let v = value_bytes(42, 7, 10, 100);
        assert_eq!(parse_value(&v), Some((42, 7)));
        assert_eq!(v, value_bytes(42, 7, 10, 100));
        assert_ne!(v, value_bytes(42, 8, 10, 100));
        assert!(v.len() >= 27 && v.len() <= 100);
        assert_eq!(parse_value(b"garbage"), None);
    }

    #[test]
    fn keys_sort_by_index() {
        assert!(key_bytes(9) < key_bytes(10));
        assert_eq!(parse_key(&key_bytes(1234)), Some(1234));
        assert_eq!(parse_key(b"other"), None);
    }
}
