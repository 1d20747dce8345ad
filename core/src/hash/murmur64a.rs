//! Austin Appleby's MurmurHash64A, the hash of RedisBloom's filters (Bloom and cuckoo).

use super::murmur3::{le_partial, le_word};

/// The multiplier of the algorithm; RedisBloom also uses it as the first seed.
pub const M: u64 = 0xc6a4_a793_5bd1_e995;
const R: u32 = 47;

/// MurmurHash64A: 8-byte little-endian blocks, then the 1-7 tail bytes (unsigned) folded in
/// little-endian order.
pub fn murmur64a(data: &[u8], seed: u64) -> u64 {
    let mut h = seed ^ (data.len() as u64).wrapping_mul(M);
    let mut blocks = data.chunks_exact(8);
    for block in &mut blocks {
        let mut k = le_word(block);
        k = k.wrapping_mul(M);
        k ^= k >> R;
        k = k.wrapping_mul(M);
        h ^= k;
        h = h.wrapping_mul(M);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        h ^= le_partial(tail);
        h = h.wrapping_mul(M);
    }
    h ^= h >> R;
    h = h.wrapping_mul(M);
    h ^ (h >> R)
}
