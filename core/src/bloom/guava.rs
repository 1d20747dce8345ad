//! The Guava scheme (type `RSbloom--`): Guava's `MURMUR128_MITZ_64` hashing and the layer
//! sizing of Guava 31.1's `BloomFilter.create(n, p)`, bit for bit, so a filter built here
//! holds exactly the bits Guava's `BloomFilter<byte[]>` would.
//!
//! Hashing: MurmurHash3_x64_128 with seed 0 over the raw item bytes gives `(h1, h2)`; probe
//! `i` is `(h1 + i*h2) & i64::MAX` taken modulo the layer's bit size (the mask clears the
//! sign bit, it is not `abs`).

use super::probe::ItemHash;
use crate::hash::murmur3;

/// Guava's hash of the item's bytes (binary safe, nothing re-encoded).
#[inline]
pub fn hash(item: &[u8]) -> ItemHash {
    let (h1, h2) = murmur3::x64_128(item);
    ItemHash {
        h1,
        h2,
        mask: i64::MAX as u64,
    }
}

/// A layer's shape, as Guava 31.1's `BloomFilter.create(n, p)` computes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizing {
    /// Optimal number of bits before rounding up to whole words (Guava's `optimalNumOfBits`).
    pub m: u64,
    pub k: u32,
    /// 64-bit words of the bit array (at least 1).
    pub words: u64,
}

impl Sizing {
    /// `m = trunc(-n ln p / ln2^2)`, `k = max(1, round(m / n * ln 2))` from the unrounded m,
    /// `words = max(1, ceil(m / 64))`, evaluated in exactly Guava's order so every double
    /// rounds the same way. Huge results saturate; the caller checks them against its limit.
    pub fn guava(capacity: u64, error: f64) -> Sizing {
        let n = capacity.max(1) as f64;
        let ln2 = 2f64.ln();
        let m_f = -n * error.ln() / (ln2 * ln2);
        // `as` saturates (and maps NaN to 0), so absurd inputs give a huge size, never UB.
        let m = m_f as u64;
        let k = ((m as f64) / n * ln2).round().max(1.0) as u32;
        let words = m.div_ceil(64).max(1);
        Sizing { m, k, words }
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
    fn empty_item_hashes_to_zero_and_probes_bit_zero() {
        let h = hash(b"");
        assert_eq!((h.h1, h.h2), (0, 0));
        assert!(h.probes(5, 960).all(|b| b == 0));
    }

    #[test]
    fn item_0_probes_match_guava_readme() {
        // Guava README: item:0 in n100_p0.01 (960 bits, k = 7).
        let h = hash(b"item:0");
        assert_eq!(h.h1 as i64, -3758777554311830397);
        assert_eq!(h.h2 as i64, -416301126824177463);
        let bits: Vec<u64> = h.probes(7, 960).collect();
        assert_eq!(bits, vec![131, 908, 725, 542, 359, 176, 953]);
    }

    #[test]
    fn sizing_of_a_known_configuration() {
        // n100_p0.01 in the Guava vectors: m 958, k 7, 15 words.
        assert_eq!(
            Sizing::guava(100, 0.01),
            Sizing {
                m: 958,
                k: 7,
                words: 15
            }
        );
    }

    #[test]
    fn absurd_sizes_saturate_instead_of_wrapping() {
        let s = Sizing::guava(u64::MAX, 1e-300);
        assert_eq!(s.m, u64::MAX);
        assert!(s.bytes() >= u64::MAX / 8);
        let zero_error = Sizing::guava(1000, 0.0);
        assert_eq!(zero_error.m, u64::MAX);
    }
}
