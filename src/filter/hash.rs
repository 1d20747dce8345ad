//! The one hashing seam: item bytes -> two 64-bit hashes -> the probe sequence.
//!
//! [`Scheme`] picks how: Guava's (every filter this module creates by default) or
//! RedisBloom's (filters kept in its format, see [`redisbloom`](super::redisbloom)).
//!
//! The Guava scheme is its `MURMUR128_MITZ_64` strategy bit for bit: MurmurHash3_x64_128 with seed 0
//! over the raw item bytes gives `(h1, h2)`; probe `i` is `(h1 + i*h2) & i64::MAX` taken modulo
//! the layer's bit size (the mask clears the sign bit, it is not `abs`). A filter built here
//! holds exactly the bits Guava's `BloomFilter<byte[]>` would.

/// How a filter hashes items and sizes its layers; fixed for the filter's lifetime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// Guava's `MURMUR128_MITZ_64` and Guava's sizing (type `RSbloom--`).
    Guava,
    /// RedisBloom's MurmurHash64A pair and its sizing (type `MBbloom--`).
    RedisBloom,
}

impl Scheme {
    /// The item's hash words under this scheme (binary safe, nothing re-encoded).
    #[inline]
    pub fn hash(self, item: &[u8]) -> ItemHash {
        match self {
            Scheme::Guava => ItemHash::of(item),
            Scheme::RedisBloom => super::redisbloom::hash(item),
        }
    }
}

/// The two hash words of one item, computed once and reused for every layer of a chain,
/// and the mask that turns their combination into a probe value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ItemHash {
    pub h1: u64,
    pub h2: u64,
    /// `i64::MAX` for Guava (it clears the sign bit), all ones for RedisBloom.
    pub mask: u64,
}

impl ItemHash {
    /// Guava's hash of the item's bytes.
    pub fn of(item: &[u8]) -> ItemHash {
        let (h1, h2) = super::murmur3::x64_128(item);
        ItemHash {
            h1,
            h2,
            mask: i64::MAX as u64,
        }
    }

    /// The `k` probe values `(h1 + i*h2) & mask` (wrapping); probe `i` lands on bit
    /// `value % bit_size` of a layer.
    #[inline(always)]
    pub fn probe_values(self, k: u32) -> impl Iterator<Item = u64> {
        let mut combined = self.h1;
        (0..k).map(move |_| {
            let value = combined & self.mask;
            combined = combined.wrapping_add(self.h2);
            value
        })
    }

    /// The `k` bit indexes of this item in a layer of `bit_size` bits (`bit_size > 0`).
    pub fn probes(self, k: u32, bit_size: u64) -> impl Iterator<Item = u64> {
        self.probe_values(k).map(move |v| v % bit_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_item_hashes_to_zero_and_probes_bit_zero() {
        let h = ItemHash::of(b"");
        assert_eq!((h.h1, h.h2), (0, 0));
        assert!(h.probes(5, 960).all(|b| b == 0));
    }

    #[test]
    fn item_0_probes_match_guava_readme() {
        // Guava README: item:0 in n100_p0.01 (960 bits, k = 7).
        let h = ItemHash::of(b"item:0");
        assert_eq!(h.h1 as i64, -3758777554311830397);
        assert_eq!(h.h2 as i64, -416301126824177463);
        let bits: Vec<u64> = h.probes(7, 960).collect();
        assert_eq!(bits, vec![131, 908, 725, 542, 359, 176, 953]);
    }
}
