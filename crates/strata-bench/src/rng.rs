//! The two random generators db_bench uses, so key sequences and values match
//! db_bench's for the same `--seed`.
//!
//! * [`Random64`]: the 64-bit Mersenne Twister (`std::mt19937_64`), RocksDB's
//!   `Random64`, used per thread for keys: `Next() % num`.
//! * [`Random`]: LevelDB's Park-Miller generator (`seed * 16807 mod 2^31-1`),
//!   used with seed 301 to build the value buffer.

const NN: usize = 312;
const MM: usize = 156;
const MATRIX_A: u64 = 0xB502_6F5A_A966_19E9;
const UPPER: u64 = 0xFFFF_FFFF_8000_0000;
const LOWER: u64 = 0x7FFF_FFFF;

/// `std::mt19937_64`, seeded like its `result_type` constructor.
#[derive(Clone)]
pub struct Random64 {
    mt: [u64; NN],
    idx: usize,
}

impl Random64 {
    /// Seeds the generator (`std::mt19937_64(seed)`).
    pub fn new(seed: u64) -> Self {
        let mut mt = [0u64; NN];
        mt[0] = seed;
        for i in 1..NN {
            let prev = mt[i - 1];
            mt[i] = 6_364_136_223_846_793_005u64
                .wrapping_mul(prev ^ (prev >> 62))
                .wrapping_add(i as u64);
        }
        Self { mt, idx: NN }
    }

    fn refill(&mut self) {
        for i in 0..NN {
            let x = (self.mt[i] & UPPER) | (self.mt[(i + 1) % NN] & LOWER);
            let mut xa = x >> 1;
            if x & 1 != 0 {
                xa ^= MATRIX_A;
            }
            self.mt[i] = self.mt[(i + MM) % NN] ^ xa;
        }
        self.idx = 0;
    }

    /// The next 64-bit output.
    pub fn next_u64(&mut self) -> u64 {
        if self.idx >= NN {
            self.refill();
        }
        let mut x = self.mt[self.idx];
        self.idx += 1;
        x ^= (x >> 29) & 0x5555_5555_5555_5555;
        x ^= (x << 17) & 0x71D6_7FFF_EDA6_0000;
        x ^= (x << 37) & 0xFFF7_EEE0_0000_0000;
        x ^= x >> 43;
        x
    }
}

/// LevelDB/RocksDB `Random` (31-bit Park-Miller).
#[derive(Debug, Clone)]
pub struct Random {
    seed: u32,
}

impl Random {
    const M: u32 = 2_147_483_647;

    /// Seeds the generator; 0 and 2^31-1 are replaced by 1, as in LevelDB.
    pub fn new(seed: u32) -> Self {
        let mut s = seed & 0x7fff_ffff;
        if s == 0 || s == Self::M {
            s = 1;
        }
        Self { seed: s }
    }

    /// The next value in [1, 2^31-2].
    pub fn next_u32(&mut self) -> u32 {
        let product = u64::from(self.seed) * 16807;
        let mut s = ((product >> 31) + (product & u64::from(Self::M))) as u32;
        if s > Self::M {
            s -= Self::M;
        }
        self.seed = s;
        s
    }

    /// Uniform in [0, n); `n` must be > 0.
    pub fn uniform(&mut self, n: u32) -> u32 {
        self.next_u32() % n.max(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mt19937_64_matches_the_standard() {
        // C++11 [rand.predef]: the 10000th output of a default-constructed
        // mt19937_64 (seed 5489) is 9981545732273789042.
        let mut r = Random64::new(5489);
        let mut last = 0;
        for _ in 0..10000 {
            last = r.next_u64();
        }
        assert_eq!(last, 9_981_545_732_273_789_042);
    }

    #[test]
    fn park_miller_sequence() {
        let mut r = Random::new(1);
        assert_eq!(r.next_u32(), 16807);
        assert_eq!(r.next_u32(), 282_475_249);
        assert_eq!(Random::new(0).next_u32(), 16807, "seed 0 becomes 1");
    }
}
