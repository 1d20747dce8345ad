//! Austin Appleby's 32-bit MurmurHash2, the hash of RedisBloom's Count-Min Sketch (one seed
//! per row) and Top-K.

const M: u32 = 0x5bd1_e995;
const R: u32 = 24;

/// MurmurHash2: 4-byte little-endian blocks, then the 1-3 tail bytes folded in
/// (`b2 << 16 ^ b1 << 8 ^ b0`). The length enters as RedisBloom's `int` does (items are at
/// most 512 MB, so it never wraps).
pub fn murmur2(data: &[u8], seed: u32) -> u32 {
    let mut h = seed ^ (data.len() as u32);
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

#[cfg(test)]
mod tests {
    use super::murmur2;

    /// Fixed values (every tail length); the CMS vector test checks the hash against
    /// RedisBloom's recorded counters and replies.
    #[test]
    fn known_values() {
        assert_eq!(murmur2(b"", 0), 0);
        assert_eq!(murmur2(b"", 1), 0x5bd1_5e36);
        assert_eq!(murmur2(b"abc", 0), 0x1357_7c9b);
        assert_eq!(murmur2(b"hello", 7), 0x0540_6e91);
        assert_eq!(murmur2(b"abcdefgh", 42), 0x8444_4d4d);
    }
}
