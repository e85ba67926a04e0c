//! The one pseudo-random generator of the crate: xorshift64*, small, fast
//! and the same on every machine, so a seed always gives the same sample
//! data (test keys' analyses) and the same test corpora.

/// xorshift64* over a non-zero state.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// 0 ≤ n < bound.
    pub fn below(&mut self, bound: u64) -> u64 {
        self.next_u64() % bound.max(1)
    }

    /// A skewed pick: low indexes more often (a few big customers).
    pub fn skewed(&mut self, bound: u64) -> u64 {
        let a = self.below(bound);
        let b = self.below(bound);
        a.min(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seed_gives_the_same_sequence_and_zero_is_a_seed() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        assert_eq!(a.next_u64(), b.next_u64());
        assert_ne!(Rng::new(0).next_u64(), 0);
        assert!((0..100).all(|_| a.below(10) < 10));
    }
}
