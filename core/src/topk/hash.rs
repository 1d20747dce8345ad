//! MurmurHash2 (32-bit, Austin Appleby's public-domain algorithm) as RedisBloom's Top-K uses
//! it: the item's fingerprint is the hash with seed 1919, its bucket in row `i` the hash with
//! seed `i` modulo the width. Blocks are read little-endian (RedisBloom runs on x86 and ARM,
//! both little-endian).

const M: u32 = 0x5bd1e995;
const R: u32 = 24;

/// The fingerprint seed (RedisBloom's `GA`).
pub const FINGERPRINT_SEED: u32 = 1919;

/// MurmurHash2 of `data` with `seed`. The length enters as a 32-bit value, as the C `int`
/// length does for every item a Redis string can hold.
pub fn murmur2(data: &[u8], seed: u32) -> u32 {
    let mut h = seed ^ data.len() as u32;
    let mut blocks = data.chunks_exact(4);
    for block in &mut blocks {
        let mut k = u32::from_le_bytes([block[0], block[1], block[2], block[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M) ^ k;
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        for (i, &b) in tail.iter().enumerate() {
            h ^= (b as u32) << (8 * i);
        }
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^ (h >> 15)
}

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
