//! An item's fingerprint and its two bucket hashes, as RedisBloom's cuckoo filter derives
//! them: `hash = MurmurHash64A(item, seed 0)`, `fp = hash mod 255 + 1` (0 marks an empty
//! slot), `h1 = hash`, `h2 = hash XOR fp * 0x5bd1e995`. A sub-filter of `n` buckets puts the
//! item in bucket `h1 mod n` or `h2 mod n`.

use crate::hash::murmur64a::murmur64a;

/// The multiplier that turns a fingerprint into the offset between its two buckets.
pub const ALT_MULTIPLIER: u64 = 0x5bd1_e995;

/// The slot value of an empty slot; fingerprints are 1..=255.
pub const EMPTY: u8 = 0;

/// What a cuckoo filter needs of an item: its fingerprint and both bucket hashes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CfHash {
    pub fp: u8,
    pub h1: u64,
    pub h2: u64,
}

impl CfHash {
    /// The item's hashes (binary safe: the bytes as they are).
    #[inline]
    pub fn of(item: &[u8]) -> CfHash {
        let hash = murmur64a(item, 0);
        // hash % 255 is below 255, so the sum fits a byte.
        let fp = (hash % 255) as u8 + 1;
        CfHash {
            fp,
            h1: hash,
            h2: hash ^ alt_offset(fp),
        }
    }
}

/// The value XORed into a bucket hash or index to reach a fingerprint's other bucket.
#[inline(always)]
pub fn alt_offset(fp: u8) -> u64 {
    fp as u64 * ALT_MULTIPLIER
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_empty_item_hashes_to_zero() {
        let h = CfHash::of(b"");
        assert_eq!((h.fp, h.h1, h.h2), (1, 0, ALT_MULTIPLIER));
    }

    #[test]
    fn fingerprints_are_never_empty() {
        for i in 0..100_000u32 {
            assert_ne!(CfHash::of(&i.to_le_bytes()).fp, EMPTY);
        }
    }
}
