//! The RedisBloom scheme (type `MBbloom--`): RedisBloom's hashing, link sizing and memory
//! accounting, for filters kept in its format.
//!
//! Hashing: `a = MurmurHash64A(item, 0xc6a4a7935bd1e995)`, `b = MurmurHash64A(item, a)`, and
//! probe `i` is bit `(a + i*b) mod bits` — the full 64-bit sum, no sign mask as in Guava's.
//! Bit `j` is bit `j & 7` of byte `j >> 3`, which on little-endian words is exactly the
//! layout of [`Layer`](super::Layer), so the same bit arrays serve both schemes.

use super::probe::ItemHash;
pub use crate::hash::murmur64a::murmur64a;
use crate::hash::murmur64a::M;

/// The growth RedisBloom records with a non-scaling filter (its default expansion).
pub const IDLE_GROWTH: u32 = 2;
/// RedisBloom's `MEMORY USAGE` / `BF.INFO Size` count its chain and link structs at these
/// sizes (64-bit builds); its filters report the same figures here.
pub const CHAIN_BYTES: u64 = 32;
pub const LINK_BYTES: u64 = 64;

/// The item's two hash words as RedisBloom's 64-bit ("FORCE64") filters derive them.
pub fn hash(item: &[u8]) -> ItemHash {
    let a = murmur64a(item, M);
    let b = murmur64a(item, a);
    ItemHash {
        h1: a,
        h2: b,
        mask: u64::MAX,
    }
}

/// RedisBloom writes ln(2)^2 and ln(2) with these digits; using the same truncated values
/// keeps `bpe` and k bit-identical to its filters.
const LN2_SQUARED: f64 = 0.480453013918201;
#[allow(clippy::approx_constant)]
const LN2: f64 = 0.693147180559945;

/// A link's shape as RedisBloom's `bloom_init` computes it (without power-of-two rounding).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkSizing {
    /// Bits per entry, stored with the link.
    pub bpe: f64,
    pub k: u32,
    /// 64-bit words of the bit array.
    pub words: u64,
}

impl LinkSizing {
    /// `bpe = -ln(error) / ln2^2`, `bits = trunc(entries * bpe)` (at least 1) rounded up to
    /// whole words, `k = ceil(ln2 * bpe)`. Absurd inputs saturate; the caller checks limits.
    pub fn of(entries: u64, error: f64) -> LinkSizing {
        let bpe = -error.ln() / LN2_SQUARED;
        // `as` saturates (NaN gives 0), so no input can make this undefined.
        let bits = ((entries as f64 * bpe) as u64).max(1);
        LinkSizing {
            bpe,
            k: (LN2 * bpe).ceil() as u32,
            words: bits.div_ceil(64),
        }
    }

    /// Bytes of the bit array, saturating.
    pub fn bytes(&self) -> u64 {
        self.words.saturating_mul(8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizing_of_the_readme_examples() {
        // 10 @ 0.005: 110 bits rounded to 128, k 8; 1000 @ 0.001: 14,377 -> 14,400, k 10.
        let tiny = LinkSizing::of(10, 0.005);
        assert_eq!((tiny.words * 64, tiny.k), (128, 8));
        assert_eq!(tiny.bpe.to_bits(), 0x40260e35b22f86e9);
        let n = LinkSizing::of(1000, 0.001);
        assert_eq!((n.words * 64, n.k), (14_400, 10));
    }

    #[test]
    fn absurd_sizes_saturate() {
        let s = LinkSizing::of(u64::MAX, 1e-300);
        assert!(s.bytes() >= u64::MAX / 64);
        assert_eq!(LinkSizing::of(1, 0.999).words, 1);
    }
}
