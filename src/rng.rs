//! A small deterministic pseudo-random generator (xorshift64) for everything in the engine that
//! wants reproducible randomness from a seed: self-play openings, the trainer's initial weights
//! and shuffle, and randomised tests. Not for anything that needs statistical quality beyond
//! that.

/// Marsaglia's xorshift64 (shifts 13, 7, 17). Its state is never zero.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (a zero seed, which xorshift cannot leave, is taken as 1).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    /// The next 64 bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform-ish in `0..n` (`n` of 0 is taken as 1).
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    /// In `[-1, 1)`.
    #[inline]
    pub fn signed_unit(&mut self) -> f32 {
        (self.next_u64() >> 11) as f32 / (1u64 << 53) as f32 * 2.0 - 1.0
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;

    #[test]
    fn sequences_are_reproducible_and_in_range() {
        let (mut a, mut b) = (Rng::new(42), Rng::new(42));
        for _ in 0..1000 {
            assert_eq!(a.next_u64(), b.next_u64());
        }
        let mut r = Rng::new(0);
        assert_ne!(r.next_u64(), 0, "a zero seed must not stick at zero");
        let mut seen = [false; 7];
        for _ in 0..1000 {
            let k = r.below(7);
            seen[k] = true;
            let x = r.signed_unit();
            assert!((-1.0..1.0).contains(&x));
        }
        assert!(seen.iter().all(|&s| s), "every value below 7 appears in 1000 draws");
    }
}
