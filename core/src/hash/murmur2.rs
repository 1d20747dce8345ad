//! Austin Appleby's 32-bit MurmurHash2, the hash of RedisBloom's Count-Min Sketch (one seed
//! per row) and Top-K.

pub(crate) const M: u32 = 0x5bd1_e995;
const R: u32 = 24;

/// One 4-byte block (little-endian) mixed as every seed's hash takes it.
#[inline(always)]
pub(crate) fn mix_block(block: &[u8]) -> u32 {
    let mut k = u32::from_le_bytes([block[0], block[1], block[2], block[3]]);
    k = k.wrapping_mul(M);
    k ^= k >> R;
    k.wrapping_mul(M)
}

/// The 1-3 tail bytes as one word (`b2 << 16 ^ b1 << 8 ^ b0`).
#[inline(always)]
pub(crate) fn tail_word(tail: &[u8]) -> u32 {
    tail.iter()
        .enumerate()
        .fold(0, |t, (i, &b)| t ^ (b as u32) << (8 * i))
}

/// MurmurHash2: 4-byte little-endian blocks, then the 1-3 tail bytes folded in
/// (`b2 << 16 ^ b1 << 8 ^ b0`). The length enters as RedisBloom's `int` does (items are at
/// most 512 MB, so it never wraps).
pub fn murmur2(data: &[u8], seed: u32) -> u32 {
    let mut h = seed ^ (data.len() as u32);
    let mut blocks = data.chunks_exact(4);
    for block in &mut blocks {
        h = h.wrapping_mul(M) ^ mix_block(block);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        h = (h ^ tail_word(tail)).wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^ (h >> 15)
}

/// How many seeds [`murmur2_lanes`] hashes at once.
pub const LANES: usize = 8;

/// [`murmur2`] of one item under [`LANES`] seeds at once: what a sketch needs for its rows
/// (and Top-K for its fingerprint). Each 4-byte block is mixed once, not once per seed (the
/// mix does not depend on the seed), and the per-seed steps run side by side, which the
/// compiler turns into vector instructions ([`super::rows`] has an AVX2 copy). Every lane
/// equals `murmur2(data, seed)`.
#[inline(always)]
pub fn murmur2_lanes(data: &[u8], seeds: [u32; LANES]) -> [u32; LANES] {
    let len = data.len() as u32;
    let mut h = seeds.map(|s| s ^ len);
    let mut blocks = data.chunks_exact(4);
    for block in &mut blocks {
        let k = mix_block(block);
        for x in &mut h {
            *x = x.wrapping_mul(M) ^ k;
        }
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        let t = tail_word(tail);
        for x in &mut h {
            *x = (*x ^ t).wrapping_mul(M);
        }
    }
    for x in &mut h {
        *x ^= *x >> 13;
        *x = x.wrapping_mul(M);
        *x ^= *x >> 15;
    }
    h
}

#[cfg(test)]
mod tests {
    use super::{murmur2, murmur2_lanes, LANES};
    use crate::testkit::Rng;

    /// Every lane is the one-seed hash, for every tail length and for seeds at the ends of
    /// the range.
    #[test]
    fn lanes_equal_one_seed_hashes() {
        let mut rng = Rng::new(0x05ee_d0f1_a4e5);
        for len in (0..40).chain([63, 64, 65, 1000]) {
            for _ in 0..20 {
                let data: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
                let base = rng.next_u64() as u32;
                let mut seeds: [u32; LANES] = std::array::from_fn(|l| base.wrapping_add(l as u32));
                seeds[LANES - 1] = [0, u32::MAX, 1919][len % 3];
                let got = murmur2_lanes(&data, seeds);
                for (l, &seed) in seeds.iter().enumerate() {
                    assert_eq!(got[l], murmur2(&data, seed), "len {len} seed {seed}");
                }
            }
        }
    }

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
