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

    /// A layer of a scaling filter whose part of the filter's error rate is `share`: the
    /// smallest shape, from Guava's `create(n, SCALING_MARGIN * share)` up in steps of 1/64,
    /// whose [`predicted_rate`] is within `SCALING_MARGIN * share`. k stays Guava's for that
    /// rate (more bits alone lower both terms, and keep the probes per item down).
    ///
    /// Why: sized to exactly its share, a layer lands above it (k rounded to an integer,
    /// double hashing's floor on small layers, the luck of one item set), and a chain whose
    /// shares add up to the whole rate then overshoots it: 1.03 x at 1,000 -> 1,000,000 items
    /// at 0.01, 1.48 x from 100 items at 0.001. The prediction covers the first two exactly
    /// enough; the margin covers the third (the rate of one 1,000-item layer varies by about
    /// 3 % between item sets, more below) with room for a million-query sample.
    pub fn scaling(capacity: u64, share: f64) -> Sizing {
        let target = share * SCALING_MARGIN;
        let first = Sizing::guava(capacity, target);
        let n = capacity.max(1) as f64;
        let mut words = first.words;
        // At most MAX_GROWTH times Guava's words: where the floor wants more, the part is
        // below what double hashing gives so few items at any sane cost (deep layers of
        // expansion 1, rates like 1e-300), and the layer keeps that best effort. Each step adds
        // at least a word and soon 1/64, so the search is short, and runs only at creation.
        let most = first.words.saturating_mul(MAX_GROWTH);
        while words < most && predicted_rate(n, words as f64 * 64.0, first.k) > target {
            words = words.saturating_add(words.div_ceil(64)).min(most);
        }
        Sizing {
            m: words.saturating_mul(64).max(first.m),
            k: first.k,
            words,
        }
    }

    /// Bytes of the bit array, saturating.
    pub fn bytes(&self) -> u64 {
        self.words.saturating_mul(8)
    }
}

/// A scaling layer is held to this fraction of its share of the error rate (see
/// [`Sizing::scaling`]); it costs -ln(0.9) / ln2^2 = 0.22 bits per item.
pub const SCALING_MARGIN: f64 = 0.9;

/// How many times Guava's size for the target a scaling layer may take (see
/// [`Sizing::scaling`]): enough for ten layers of expansion 1 at 0.001.
const MAX_GROWTH: u64 = 4;

/// Double hashing's floor, `PAIR_FLOOR * n / bits^2`: a query is also a false positive when
/// one stored item's probe progression covers its own (same step up to sign, start within
/// k probes, the rest hit by chance), about 6 n / bits^2 for probes modulo an odd size; Guava's
/// sizes are multiples of 64, so steps that agree modulo a power of two confine probes to
/// residue classes and add more. Measured 6.3 to 9.1 for n 100 to 1,000, k 8 to 20.
const PAIR_FLOOR: f64 = 10.0;

/// The expected false-positive rate of a full layer of `n` items in `bits` bits probed `k`
/// times: the textbook `(1 - e^(-k n / bits))^k` for the integer k actually used, plus
/// double hashing's floor.
pub fn predicted_rate(n: f64, bits: f64, k: u32) -> f64 {
    let fill = 1.0 - (-(k as f64) * n / bits).exp();
    fill.powi(k as i32) + PAIR_FLOOR * n / (bits * bits)
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
    fn scaling_layers_are_held_under_their_part() {
        for &share in &[0.25, 0.05, 0.005, 5e-4, 1e-6] {
            for &n in &[10u64, 100, 1000, 64_000, 10_000_000] {
                let tight = Sizing::guava(n, share * SCALING_MARGIN);
                let s = Sizing::scaling(n, share);
                assert_eq!(s.k, tight.k, "n {n} share {share}");
                assert!(s.words >= tight.words, "n {n} share {share}");
                let rate = predicted_rate(n as f64, 64.0 * s.words as f64, s.k);
                let capped = s.words == MAX_GROWTH * tight.words;
                assert!(
                    capped || rate <= share * SCALING_MARGIN,
                    "n {n} share {share}"
                );
                // Only a part far below what so few items allow hits the bound.
                assert!(
                    !capped || (n <= 100 && share <= 1e-6),
                    "n {n} share {share}"
                );
                // The smallest such size: one step less would not do (where a step was taken).
                if s.words > tight.words && !capped {
                    let less = s.words - (s.words - 1).div_ceil(65).max(1);
                    let over = predicted_rate(n as f64, 64.0 * less as f64, s.k);
                    assert!(over > share * SCALING_MARGIN, "n {n} share {share}");
                }
            }
        }
        // 1,000 at 0.005 (the first layer at 0.01): Guava's 173 words for 0.0045, plus two
        // steps for k = 8's rounding and the floor.
        assert_eq!(Sizing::scaling(1000, 0.005).words, 179);
        assert_eq!(Sizing::guava(1000, 0.005).words, 173);
    }

    #[test]
    fn absurd_sizes_saturate_instead_of_wrapping() {
        let s = Sizing::guava(u64::MAX, 1e-300);
        assert_eq!(s.m, u64::MAX);
        assert!(s.bytes() >= u64::MAX / 8);
        let zero_error = Sizing::guava(1000, 0.0);
        assert_eq!(zero_error.m, u64::MAX);
        // A part below double hashing's floor gets at most four times Guava's size.
        let floor_bound = Sizing::scaling(1, 1e-300);
        assert_eq!(floor_bound.words, 4 * Sizing::guava(1, 0.9e-300).words);
        assert!(Sizing::scaling(u64::MAX, 1e-300).words >= u64::MAX.div_ceil(64));
    }
}
