//! Top-K's use of MurmurHash2 ([`crate::hash::murmur2`], shared with the Count-Min Sketch):
//! the item's fingerprint is the hash with seed 1919, its bucket in row `i` the hash with
//! seed `i` modulo the width.

pub use crate::hash::murmur2::murmur2;

/// The fingerprint seed (RedisBloom's `GA`).
pub const FINGERPRINT_SEED: u32 = 1919;

/// The fingerprint of an item.
pub fn fingerprint(item: &[u8]) -> u32 {
    murmur2(item, FINGERPRINT_SEED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        // Fingerprints RedisBloom stored (tests/vectors/redisbloom-topk/binary.info.json).
        assert_eq!(fingerprint(b"\xff\xfe\xfd"), 695901073);
        assert_eq!(fingerprint(b"a\0b"), 1667890427);
        assert_eq!(fingerprint(b"\r\n"), 2682082854);
        assert_eq!(fingerprint(&[b'x'; 300]), 3281617518);
        assert_ne!(fingerprint(b""), 0);
    }
}
