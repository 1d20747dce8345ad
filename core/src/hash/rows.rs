//! Where an item falls in the rows of RedisBloom's sketches (the Count-Min Sketch's counters,
//! Top-K's buckets): in row `r`, column `murmur2(item, r) % width`, index
//! `r * width + column`. Rows go eight at a time: one pass over the item's bytes hashes all
//! eight seeds ([`murmur2_lanes`]), and the remainders come from a multiplication
//! ([`Divisor32`]), never a division instruction. On CPUs with AVX2 the eight lanes run in
//! vector registers, remainders included.

use super::divisor::Divisor32;
use super::murmur2::{murmur2, murmur2_lanes, LANES};

/// A sketch's rows: `depth` of them, `width` wide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rows {
    width: u64,
    depth: u64,
    /// The reduction of a hash to a column; `None` when the width exceeds 32 bits, where
    /// every 32-bit hash is its own column.
    divisor: Option<Divisor32>,
    avx2: bool,
}

impl Rows {
    pub fn new(width: u64, depth: u64) -> Rows {
        Rows {
            width,
            depth,
            divisor: u32::try_from(width).ok().map(Divisor32::new),
            avx2: has_avx2(),
        }
    }

    pub fn depth(self) -> u64 {
        self.depth
    }

    /// Writes the index of `item` in each row to `out` (one per row, `out.len()` the
    /// depth), and returns the item's hash under `extra_seed` (Top-K's fingerprint), computed
    /// in a spare lane where the last group of eight rows has one.
    #[inline]
    pub fn fill(self, item: &[u8], out: &mut [usize], extra_seed: u32) -> u32 {
        debug_assert_eq!(out.len() as u64, self.depth);
        #[cfg(target_arch = "x86_64")]
        if let (true, Some(d)) = (self.avx2, self.divisor) {
            // SAFETY: `avx2` is set only where the CPU has AVX2.
            return unsafe { avx2::fill(item, out, d, self.width, extra_seed) };
        }
        self.fill_plain(item, out, extra_seed)
    }

    fn fill_plain(self, item: &[u8], out: &mut [usize], extra_seed: u32) -> u32 {
        let mut extra = None;
        for (g, group) in out.chunks_mut(LANES).enumerate() {
            let base = (g * LANES) as u64;
            let mut seeds: [u32; LANES] =
                std::array::from_fn(|l| base.wrapping_add(l as u64) as u32);
            seeds[LANES - 1] = if group.len() < LANES {
                extra_seed
            } else {
                seeds[LANES - 1]
            };
            let hashes = murmur2_lanes(item, seeds);
            if group.len() < LANES {
                extra = Some(hashes[LANES - 1]);
            }
            for (l, at) in group.iter_mut().enumerate() {
                let column = match self.divisor {
                    Some(d) => d.remainder(hashes[l]) as u64,
                    None => hashes[l] as u64,
                };
                let row = base.wrapping_add(l as u64);
                *at = column.wrapping_add(row.wrapping_mul(self.width)) as usize;
            }
        }
        extra.unwrap_or_else(|| murmur2(item, extra_seed))
    }

    /// Writes the indexes of every item to `out`, row after row, item after item (`depth`
    /// per item: `out` holds as many items' as there are, or fewer).
    pub fn indexes<'a>(self, items: impl Iterator<Item = &'a [u8]>, out: &mut [usize]) {
        for (item, slot) in items.zip(out.chunks_exact_mut(self.depth.max(1) as usize)) {
            self.fill(item, slot, 0);
        }
    }

    /// The index of `item` in row `row` alone (one hash).
    #[inline]
    pub fn index(self, item: &[u8], row: u64) -> usize {
        let hash = murmur2(item, row as u32);
        let column = match self.divisor {
            Some(d) => d.remainder(hash) as u64,
            None => hash as u64,
        };
        column.wrapping_add(row.wrapping_mul(self.width)) as usize
    }

    /// The item's hash under `seed` and its indexes, one per row: all found at once into
    /// `buf` up to [`FOUND_AT_ONCE`] rows; in deeper sketches (a client may ask for millions
    /// of rows) each row's when asked, so nothing grows with the depth. Callers serve the
    /// two kinds with [`with_row_indexes!`], code compiled once for each.
    #[inline]
    pub fn find<'a>(
        self,
        item: &'a [u8],
        seed: u32,
        buf: &'a mut [usize; FOUND_AT_ONCE as usize],
    ) -> (u32, Indexes<'a>) {
        if self.depth <= FOUND_AT_ONCE {
            let at = &mut buf[..self.depth as usize];
            let hash = self.fill(item, at, seed);
            (hash, Indexes::Found(at))
        } else {
            (
                murmur2(item, seed),
                Indexes::Each(EachRow { rows: self, item }),
            )
        }
    }
}

/// Sketches up to this many rows deep find an item's indexes all at once.
pub const FOUND_AT_ONCE: u64 = 32;

/// An item's index in each row of a sketch: found all at once, or each when asked.
#[derive(Debug, Clone, Copy)]
pub enum Indexes<'a> {
    Found(&'a [usize]),
    Each(EachRow<'a>),
}

/// An item's indexes found one row at a time.
#[derive(Debug, Clone, Copy)]
pub struct EachRow<'a> {
    rows: Rows,
    item: &'a [u8],
}

/// An item's index in each row, however found.
pub trait RowIndexes: Copy {
    fn rows(self) -> usize;
    fn at(self, row: usize) -> usize;
}

impl RowIndexes for &[usize] {
    #[inline(always)]
    fn rows(self) -> usize {
        self.len()
    }
    #[inline(always)]
    fn at(self, row: usize) -> usize {
        self[row]
    }
}

impl RowIndexes for EachRow<'_> {
    #[inline(always)]
    fn rows(self) -> usize {
        self.rows.depth as usize
    }
    #[inline(always)]
    fn at(self, row: usize) -> usize {
        self.rows.index(self.item, row as u64)
    }
}

/// Runs `$body` with `$at` bound to the [`RowIndexes`] inside `$indexes`, compiled once per
/// kind, so the per-row work never branches on it.
macro_rules! with_row_indexes {
    ($indexes:expr, $at:ident => $body:expr) => {
        match $indexes {
            $crate::hash::rows::Indexes::Found($at) => $body,
            $crate::hash::rows::Indexes::Each($at) => $body,
        }
    };
}
pub(crate) use with_row_indexes;

fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    return std::is_x86_feature_detected!("avx2");
    #[cfg(not(target_arch = "x86_64"))]
    return false;
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use std::arch::x86_64::*;

    use super::super::divisor::Divisor32;
    use super::super::murmur2::{mix_block, tail_word, M};
    use super::LANES;

    /// [`super::Rows::fill`] in vector registers: eight rows' hashes in one 256-bit
    /// register through every step, the remainders as `((m * h mod 2^64) * d) >> 64` from
    /// 32-bit multiplies (even lanes and odd lanes in turn), the row offsets added, the
    /// indexes stored in row order.
    #[target_feature(enable = "avx2")]
    pub unsafe fn fill(
        data: &[u8],
        out: &mut [usize],
        d: Divisor32,
        width: u64,
        extra_seed: u32,
    ) -> u32 {
        let mul = _mm256_set1_epi32(M as i32);
        let len = _mm256_set1_epi32(data.len() as u32 as i32);
        let (m, div) = d.parts();
        let m_lo = _mm256_set1_epi64x(m as u32 as i64);
        let m_hi = _mm256_set1_epi64x((m >> 32) as i64);
        let dv = _mm256_set1_epi64x(div as i64);
        // Row offsets of the even lanes (rows 0, 2, 4, 6 of a group) and the odd ones, and
        // their step from one group of eight rows to the next.
        let w = width as i64;
        let mut even_at = _mm256_set_epi64x(6 * w, 4 * w, 2 * w, 0);
        let mut odd_at = _mm256_add_epi64(even_at, _mm256_set1_epi64x(w));
        let group_step = _mm256_set1_epi64x(8i64.wrapping_mul(w));
        let mut seeds = _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0);
        let eight = _mm256_set1_epi32(8);
        let mut extra = None;
        let mut rest = out;
        while !rest.is_empty() {
            let take = rest.len().min(LANES);
            let s = if take < LANES {
                _mm256_blend_epi32::<0x80>(seeds, _mm256_set1_epi32(extra_seed as i32))
            } else {
                seeds
            };
            let mut h = _mm256_xor_si256(s, len);
            let mut blocks = data.chunks_exact(4);
            for block in &mut blocks {
                let k = mix_block(block);
                h = _mm256_xor_si256(_mm256_mullo_epi32(h, mul), _mm256_set1_epi32(k as i32));
            }
            let tail = blocks.remainder();
            if !tail.is_empty() {
                let t = tail_word(tail);
                h = _mm256_mullo_epi32(_mm256_xor_si256(h, _mm256_set1_epi32(t as i32)), mul);
            }
            h = _mm256_xor_si256(h, _mm256_srli_epi32::<13>(h));
            h = _mm256_mullo_epi32(h, mul);
            h = _mm256_xor_si256(h, _mm256_srli_epi32::<15>(h));
            if take < LANES {
                extra = Some(_mm256_extract_epi32::<7>(h) as u32);
            }
            // a % d for the four 32-bit values in the low halves of `a`'s 64-bit lanes.
            let rem = |a: __m256i| {
                let low = _mm256_add_epi64(
                    _mm256_mul_epu32(a, m_lo),
                    _mm256_slli_epi64::<32>(_mm256_mul_epu32(a, m_hi)),
                );
                let t1 = _mm256_mul_epu32(low, dv);
                let t2 = _mm256_mul_epu32(_mm256_srli_epi64::<32>(low), dv);
                _mm256_srli_epi64::<32>(_mm256_add_epi64(t2, _mm256_srli_epi64::<32>(t1)))
            };
            let even = _mm256_add_epi64(rem(h), even_at);
            let odd = _mm256_add_epi64(rem(_mm256_srli_epi64::<32>(h)), odd_at);
            // [r0 r1 | r4 r5] and [r2 r3 | r6 r7], then the halves in row order.
            let lo = _mm256_unpacklo_epi64(even, odd);
            let hi = _mm256_unpackhi_epi64(even, odd);
            let first = _mm256_permute2x128_si256::<0x20>(lo, hi);
            let second = _mm256_permute2x128_si256::<0x31>(lo, hi);
            // Only the `take` slots `rest` has are written (masked stores for a short group).
            let to = rest.as_mut_ptr().cast::<i64>();
            let lanes_below = |n: usize| {
                _mm256_cmpgt_epi64(_mm256_set1_epi64x(n as i64), _mm256_set_epi64x(3, 2, 1, 0))
            };
            if take >= 4 {
                _mm256_storeu_si256(to.cast(), first);
                if take == LANES {
                    _mm256_storeu_si256(to.add(4).cast(), second);
                } else {
                    _mm256_maskstore_epi64(to.add(4), lanes_below(take - 4), second);
                }
            } else {
                _mm256_maskstore_epi64(to, lanes_below(take), first);
            }
            rest = &mut rest[take..];
            seeds = _mm256_add_epi32(seeds, eight);
            even_at = _mm256_add_epi64(even_at, group_step);
            odd_at = _mm256_add_epi64(odd_at, group_step);
        }
        extra.unwrap_or_else(|| super::super::murmur2::murmur2(data, extra_seed))
    }
}

#[cfg(test)]
mod tests {
    use super::{RowIndexes, Rows};
    use crate::hash::murmur2::murmur2;
    use crate::testkit::Rng;

    /// The indexes are RedisBloom's `murmur2(item, row) % width + row * width` (with the
    /// vector path and without), for depths around the lane count, widths at the ends of
    /// 32 bits and past them, and the extra seed's hash.
    #[test]
    fn indexes_are_redisbloom_s() {
        let mut rng = Rng::new(0xc0ff_ee00_1234);
        let mut shapes = vec![
            (1u64, 1u64),
            (7, 3),
            (2000, 7),
            (2000, 8),
            (13, 9),
            (5, 17),
            (3, 33),
            (1000, 70),
            (u32::MAX as u64, 3),
            ((1 << 31) + 1, 2),
            (1 << 33, 2),
        ];
        shapes.extend((0..40).map(|_| {
            (
                (rng.next_u64() >> (rng.next_u64() % 64)).max(1),
                1 + rng.next_u64() % 40,
            )
        }));
        for (width, depth) in shapes {
            for avx2 in [false, true] {
                let rows = Rows {
                    avx2: avx2 && super::has_avx2(),
                    ..Rows::new(width, depth)
                };
                for len in 0..14 {
                    let item: Vec<u8> = (0..len).map(|_| rng.next_u64() as u8).collect();
                    let mut got = vec![0; depth as usize];
                    rows.indexes(std::iter::once(&item[..]), &mut got);
                    let want: Vec<usize> = (0..depth)
                        .map(|r| {
                            let row = r.wrapping_mul(width);
                            (murmur2(&item, r as u32) as u64 % width).wrapping_add(row) as usize
                        })
                        .collect();
                    assert_eq!(got, want, "width {width} depth {depth} avx2 {avx2}");
                    let mut at = vec![0; depth as usize];
                    assert_eq!(rows.fill(&item, &mut at, 1919), murmur2(&item, 1919));
                    assert_eq!(at, want);
                    let mut buf = [0; super::FOUND_AT_ONCE as usize];
                    let (hash, at) = rows.find(&item, 1919, &mut buf);
                    let each: Vec<usize> = super::with_row_indexes!(at, at => {
                        (0..at.rows()).map(|r| at.at(r)).collect()
                    });
                    assert_eq!((hash, each), (murmur2(&item, 1919), want));
                }
            }
        }
    }
}
