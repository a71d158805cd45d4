//! Values as db_bench makes them: slices of a buffer of at least 1 MiB built
//! from 100-byte pieces, each a random run of `100 * compression_ratio` bytes
//! repeated to 100 bytes, so block compression shrinks values to about
//! `compression_ratio` of their size. The buffer comes from `Random(301)`,
//! so every thread and every run sees the same bytes.

use crate::rng::Random;

/// db_bench's `RandomGenerator`.
pub struct ValueGenerator {
    data: Vec<u8>,
    pos: usize,
}

fn compressible_piece(rnd: &mut Random, ratio: f64, len: usize, out: &mut Vec<u8>) {
    let raw = ((len as f64 * ratio) as usize).max(1);
    let random: Vec<u8> = (0..raw).map(|_| rnd.uniform(256) as u8).collect();
    let start = out.len();
    while out.len() - start < len {
        let take = (len - (out.len() - start)).min(random.len());
        out.extend_from_slice(&random[..take]);
    }
}

impl ValueGenerator {
    /// Builds the buffer for values up to `value_size` bytes.
    pub fn new(compression_ratio: f64, value_size: usize) -> Self {
        let target = value_size.max(1 << 20);
        let mut rnd = Random::new(301);
        let mut data = Vec::with_capacity(target + 100);
        while data.len() < target {
            compressible_piece(&mut rnd, compression_ratio, 100, &mut data);
        }
        Self { data, pos: 0 }
    }

    /// The next `len` bytes (wrapping to the start when the buffer runs out).
    pub fn generate(&mut self, len: usize) -> &[u8] {
        let len = len.min(self.data.len());
        if self.pos + len > self.data.len() {
            self.pos = 0;
        }
        self.pos += len;
        &self.data[self.pos - len..self.pos]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratio_controls_repetition() {
        let mut g = ValueGenerator::new(0.5, 100);
        let v = g.generate(100).to_vec();
        assert_eq!(v.len(), 100);
        assert_eq!(v[..50], v[50..], "a 0.5 piece is a 50-byte run twice");
        let mut g = ValueGenerator::new(1.0, 100);
        let v = g.generate(100).to_vec();
        assert_ne!(v[..50], v[50..]);
    }

    #[test]
    fn deterministic_and_wraps() {
        let mut a = ValueGenerator::new(0.5, 100);
        let mut b = ValueGenerator::new(0.5, 100);
        assert_eq!(a.generate(1000), b.generate(1000));
        let mut big = ValueGenerator::new(0.5, 3 << 20);
        let first = big.generate(3 << 20).to_vec();
        assert_eq!(big.generate(3 << 20), &first[..], "wraps to the start");
    }
}
