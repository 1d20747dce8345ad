//! Exact remainders by a divisor fixed per layer, without a division instruction.
//!
//! Lemire, Kaser and Kurz, "Faster Remainder by Direct Computation" (2019): with
//! `M = ceil(2^128 / d)`, `a % d` is the high 64 bits of `(M * a mod 2^128) * d`, exactly, for
//! every 64-bit `a` and `d`. Two multiplications instead of a 64-bit `div` (tens of cycles),
//! which matters when every item costs k remainders.

/// A divisor with its precomputed multiplier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Divisor {
    d: u64,
    m: u128,
}

impl Divisor {
    /// `d` must not be 0.
    pub fn new(d: u64) -> Divisor {
        debug_assert!(d != 0);
        // For d = 1 this wraps to M = 0, which gives the right remainder, 0.
        let m = (u128::MAX / d.max(1) as u128).wrapping_add(1);
        Divisor { d, m }
    }

    /// `d`.
    pub fn divisor(self) -> u64 {
        self.d
    }

    /// `a % d`.
    #[inline(always)]
    pub fn remainder(self, a: u64) -> u64 {
        let low = self.m.wrapping_mul(a as u128);
        let bottom = ((low as u64 as u128) * self.d as u128) >> 64;
        let top = (low >> 64) * self.d as u128;
        ((bottom + top) >> 64) as u64
    }
}

/// [`Divisor`] for 32-bit hashes and divisors, one 64-bit multiplier: `a % d` is the high
/// 64 bits of `(M * a mod 2^64) * d` with `M = ceil(2^64 / d)`, exactly, for every 32-bit
/// `a` and `d` (the same paper). The sketches' rows reduce their 32-bit hashes this way.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Divisor32 {
    d: u32,
    m: u64,
}

impl Divisor32 {
    /// `d` must not be 0.
    pub fn new(d: u32) -> Divisor32 {
        debug_assert!(d != 0);
        // For d = 1 this wraps to M = 0, which gives the right remainder, 0.
        let m = (u64::MAX / d.max(1) as u64).wrapping_add(1);
        Divisor32 { d, m }
    }

    /// The multiplier and the divisor.
    pub fn parts(self) -> (u64, u32) {
        (self.m, self.d)
    }

    /// `a % d`.
    #[inline(always)]
    pub fn remainder(self, a: u32) -> u32 {
        let low = self.m.wrapping_mul(a as u64);
        ((low as u128 * self.d as u128) >> 64) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::{Divisor, Divisor32};

    #[test]
    fn matches_the_32_bit_remainder_operator() {
        let mut rng = crate::testkit::Rng::new(0x0123_4567_89ab_cdef);
        let edges = [
            0,
            1,
            2,
            3,
            7,
            1999,
            2000,
            2001,
            1 << 31,
            u32::MAX - 1,
            u32::MAX,
        ];
        let mut divisors: Vec<u32> = edges.iter().copied().filter(|&d| d != 0).collect();
        divisors.extend((0..300).map(|_| (rng.next_u64() >> (rng.next_u64() % 64)) as u32));
        divisors.retain(|&d| d != 0);
        for d in divisors {
            let div = Divisor32::new(d);
            for &a in &edges {
                assert_eq!(div.remainder(a), a % d, "{a} % {d}");
            }
            for _ in 0..500 {
                let a = rng.next_u64() as u32;
                assert_eq!(div.remainder(a), a % d, "{a} % {d}");
            }
        }
    }
    use crate::testkit::Rng;

    #[test]
    fn matches_the_remainder_operator() {
        let mut rng = Rng::new(0x9E37_79B9_7F4A_7C15);
        let mut next = || rng.next_u64();
        let edges = [
            0,
            1,
            2,
            3,
            63,
            64,
            65,
            u32::MAX as u64,
            i64::MAX as u64,
            u64::MAX - 1,
            u64::MAX,
        ];
        let mut divisors: Vec<u64> = vec![
            1,
            2,
            3,
            7,
            15,
            64,
            225,
            14977,
            114039,
            1 << 33,
            (1 << 37) + 1,
        ];
        divisors.extend(edges.iter().copied().filter(|&d| d != 0));
        divisors.extend(
            (0..200)
                .map(|_| next() >> (next() % 64))
                .filter(|&d| d != 0),
        );
        for d in divisors {
            let div = Divisor::new(d);
            for &a in &edges {
                assert_eq!(div.remainder(a), a % d, "{a} % {d}");
            }
            for _ in 0..500 {
                let a = next();
                assert_eq!(div.remainder(a), a % d, "{a} % {d}");
            }
        }
    }
}
