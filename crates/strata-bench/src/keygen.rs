//! Keys as db_bench makes them: the key number as a big-endian integer
//! (its low `min(8, key_size)` bytes), padded with ASCII `'0'` to `key_size`.

use crate::rng::Random64;

/// Writes key number `v` into `key` (whose length is the key size).
pub fn generate_key_from_int(v: u64, key: &mut [u8]) {
    let n = key.len().min(8);
    for (i, b) in key.iter_mut().take(n).enumerate() {
        *b = (v >> ((n - i - 1) * 8)) as u8;
    }
    for b in key.iter_mut().skip(n) {
        *b = b'0';
    }
}

/// A fresh key buffer of `key_size` bytes holding key number `v`.
pub fn make_key(v: u64, key_size: usize) -> Vec<u8> {
    let mut k = vec![0u8; key_size];
    generate_key_from_int(v, &mut k);
    k
}

/// Key order of a write benchmark.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyOrder {
    /// 0, 1, 2, ... (wrapping at `num`)
    Sequential,
    /// `rand.Next() % num`
    Random,
}

/// db_bench's `KeyGenerator` for the two orders used here.
pub struct KeyGenerator {
    order: KeyOrder,
    num: u64,
    next: u64,
}

impl KeyGenerator {
    /// A generator over [0, num).
    pub fn new(order: KeyOrder, num: u64) -> Self {
        Self {
            order,
            num: num.max(1),
            next: 0,
        }
    }

    /// The next key number.
    pub fn next(&mut self, rand: &mut Random64) -> u64 {
        match self.order {
            KeyOrder::Sequential => {
                let v = self.next;
                self.next += 1;
                v
            }
            KeyOrder::Random => rand.next_u64() % self.num,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_big_endian_and_padded() {
        assert_eq!(
            make_key(0x0102, 16),
            b"\0\0\0\0\0\0\x01\x0200000000".to_vec()
        );
        assert_eq!(
            make_key(0x0102, 4),
            vec![0, 0, 1, 2],
            "short keys keep low bytes"
        );
        assert!(make_key(1, 16) < make_key(2, 16));
        assert!(
            make_key(255, 16) < make_key(256, 16),
            "byte order sorts numerically"
        );
    }

    #[test]
    fn sequential_and_random_orders() {
        let mut r = Random64::new(1);
        let mut g = KeyGenerator::new(KeyOrder::Sequential, 10);
        assert_eq!(
            (0..3).map(|_| g.next(&mut r)).collect::<Vec<_>>(),
            vec![0, 1, 2]
        );
        let mut g = KeyGenerator::new(KeyOrder::Random, 10);
        let mut r2 = Random64::new(1);
        for _ in 0..100 {
            assert_eq!(g.next(&mut r), r2.next_u64() % 10);
        }
    }
}
