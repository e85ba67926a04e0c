//! The crate's generator (`shared::rng`) with what the corpus draws:
//! floats, normals, ranges and picks. A seed always gives the same corpus.

pub struct Rng(shared::rng::Rng);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(shared::rng::Rng::new(
            seed.wrapping_mul(0x9E37_79B9_7F4A_7C15),
        ))
    }

    pub fn next(&mut self) -> u64 {
        self.0.next_u64()
    }

    /// A number in `[0, 1)`.
    pub fn float(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A number in `[low, high)`.
    pub fn between(&mut self, low: f64, high: f64) -> f64 {
        low + (high - low) * self.float()
    }

    /// A standard normal number (Box–Muller).
    pub fn gaussian(&mut self) -> f64 {
        let u = self.float().max(f64::MIN_POSITIVE);
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * self.float()).cos()
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A number in `low..=high`.
    pub fn range(&mut self, low: u64, high: u64) -> u64 {
        low + self.next() % (high - low + 1)
    }

    /// True with probability `percent` / 100.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    pub fn digits(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from(b'0' + self.below(10) as u8))
            .collect()
    }
}
