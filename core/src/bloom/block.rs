//! The blocked layout's bit arithmetic: which 512-bit block an item falls in and which bits
//! of it its probes set. A leaf of pure functions, so the layer (which applies them) and the
//! layout's sizing in [`blocked`](super::blocked) (which needs the layer's hash bound) both
//! import it and not each other.

use crate::hash::murmur3::fmix64;

/// Bits of one block.
pub const BLOCK_BITS: u64 = 512;
/// 64-bit words of one block.
pub const BLOCK_WORDS: u64 = BLOCK_BITS / 64;

const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;
/// 9-bit fields taken from one 64-bit word.
const FIELDS_PER_WORD: u32 = 7;

/// The block an item falls in, of `blocks` (multiply-high: `h1 * blocks / 2^64`).
#[inline(always)]
pub fn block_of(h1: u64, blocks: u64) -> u64 {
    ((h1 as u128 * blocks as u128) >> 64) as u64
}

/// The item's `k` bit positions inside its block (each below [`BLOCK_BITS`]).
#[inline(always)]
pub fn bits_in_block(h2: u64, k: u32) -> impl Iterator<Item = u32> {
    let (mut word, mut left, mut round) = (h2, FIELDS_PER_WORD, 0u64);
    (0..k).map(move |_| {
        if left == 0 {
            round += 1;
            word = fmix64(h2.wrapping_add(round.wrapping_mul(GOLDEN)));
            left = FIELDS_PER_WORD;
        }
        let bit = (word & (BLOCK_BITS - 1)) as u32;
        word >>= 9;
        left -= 1;
        bit
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testkit::Rng;

    #[test]
    fn bits_stay_in_the_block_and_refill_after_seven() {
        let mut rng = Rng::new(7);
        for _ in 0..1000 {
            let h2 = rng.next_u64();
            let bits: Vec<u32> = bits_in_block(h2, 20).collect();
            assert!(bits.iter().all(|&b| b < 512));
            assert_eq!(bits[0] as u64, h2 & 511);
            assert_eq!(bits[6] as u64, (h2 >> 54) & 511);
            assert_eq!(bits[7] as u64, fmix64(h2.wrapping_add(GOLDEN)) & 511);
        }
        for blocks in [1u64, 2, 3, 1000, u64::MAX] {
            assert_eq!(block_of(0, blocks), 0);
            assert_eq!(block_of(u64::MAX, blocks), blocks - 1);
        }
    }
}
