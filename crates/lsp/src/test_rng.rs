//! A seeded xorshift generator for the randomized unit tests (`text`,
//! `edit_map`): the same sequence on every run, no dependency.

pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    /// The next number below `n` (0 when `n` is 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n.max(1) as u64) as usize
    }
}
