//! One sub-filter: `buckets` buckets of `bucket_size` one-byte slots, bucket after bucket
//! (bucket `b` is bytes `[b * bucket_size, (b + 1) * bucket_size)`), and what is done to
//! one bucket at a time: find a free slot, look a fingerprint up, count it, clear it.

use std::ops::Range;

use super::hash::{alt_offset, CfHash, EMPTY};
use crate::error::{Error, Result};
use crate::hash::divisor::Divisor;
use crate::memory::fallible::zeroed;
use crate::memory::pages::advise_huge_pages;
use crate::memory::prefetch::prefetch;
use crate::memory::relocate::{relocate_vec, Relocate};

/// Reduces a hash to a bucket index: a mask for power-of-two bucket counts (every filter
/// made by commands), an exact remainder otherwise (RDB values may hold any count).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reduce {
    Mask(u64),
    Rem(Divisor),
}

impl Reduce {
    fn new(buckets: u64) -> Reduce {
        if buckets.is_power_of_two() {
            Reduce::Mask(buckets - 1)
        } else {
            Reduce::Rem(Divisor::new(buckets))
        }
    }
}

/// One sub-filter's slots.
#[derive(Debug, Clone, PartialEq)]
pub struct SubFilter {
    buckets: u64,
    bucket_size: usize,
    reduce: Reduce,
    slots: Vec<u8>,
}

impl SubFilter {
    /// Moves the slot array's block where `mover` says (active defragmentation).
    pub fn relocate(&mut self, mover: &mut dyn Relocate) {
        relocate_vec(&mut self.slots, mover);
    }

    /// An empty sub-filter. The caller has checked the size against its limit; the zeroed
    /// allocation goes through `calloc`, so untouched pages cost nothing.
    pub fn zeroed(buckets: u64, bucket_size: u8) -> Result<SubFilter> {
        let len = slot_len(buckets, bucket_size)?;
        SubFilter::from_slots(buckets, bucket_size, zeroed(len)?)
    }

    /// A sub-filter over existing slots, which must be exactly `buckets * bucket_size`.
    pub fn from_slots(buckets: u64, bucket_size: u8, slots: Vec<u8>) -> Result<SubFilter> {
        if buckets == 0 || bucket_size == 0 || slots.len() != slot_len(buckets, bucket_size)? {
            return Err(Error::Internal);
        }
        advise_huge_pages(&slots);
        Ok(SubFilter {
            buckets,
            bucket_size: bucket_size as usize,
            reduce: Reduce::new(buckets),
            slots,
        })
    }

    pub fn buckets(&self) -> u64 {
        self.buckets
    }
    /// The slot array, bucket after bucket.
    pub fn slots(&self) -> &[u8] {
        &self.slots
    }
    pub fn slots_mut(&mut self) -> &mut [u8] {
        &mut self.slots
    }

    /// The bucket a hash (or a bucket index moved by a fingerprint offset) falls in.
    #[inline(always)]
    pub fn index(&self, h: u64) -> u64 {
        match self.reduce {
            Reduce::Mask(mask) => h & mask,
            Reduce::Rem(d) => d.remainder(h),
        }
    }

    /// Whether moving between a fingerprint's buckets by XOR can be walked backwards:
    /// `(b ^ x) mod n` has one preimage below `n` only when `n` is a power of two.
    pub fn xor_reversible(&self) -> bool {
        matches!(self.reduce, Reduce::Mask(_))
    }

    /// The slot positions of bucket `b` (`b` below `buckets`).
    #[inline(always)]
    fn bucket_range(&self, b: u64) -> Range<usize> {
        let start = b as usize * self.bucket_size;
        start..start + self.bucket_size
    }

    #[inline(always)]
    fn bucket(&self, b: u64) -> &[u8] {
        self.slots.get(self.bucket_range(b)).unwrap_or(&[])
    }

    /// The position of the first empty slot of bucket `b`.
    #[inline]
    pub fn free_slot(&self, b: u64) -> Option<usize> {
        let at = self.bucket(b).iter().position(|&s| s == EMPTY)?;
        Some(b as usize * self.bucket_size + at)
    }

    /// The first empty slot of bucket `h1 mod n`, else of bucket `h2 mod n`.
    #[inline]
    pub fn free_slot_for(&self, h1: u64, h2: u64) -> Option<usize> {
        self.free_slot(self.index(h1))
            .or_else(|| self.free_slot(self.index(h2)))
    }

    /// Writes `fp` at slot position `at` (from [`SubFilter::free_slot`]).
    #[inline]
    pub fn put(&mut self, at: usize, fp: u8) {
        if let Some(slot) = self.slots.get_mut(at) {
            *slot = fp;
        }
    }

    /// Swaps `fp` with slot `v` of bucket `b`, returning what was there.
    #[inline]
    pub fn swap(&mut self, b: u64, v: usize, fp: u8) -> u8 {
        let at = b as usize * self.bucket_size + v;
        match self.slots.get_mut(at) {
            Some(slot) => std::mem::replace(slot, fp),
            None => fp,
        }
    }

    /// The item's fingerprint is in one of its buckets.
    #[inline]
    pub fn contains(&self, h: CfHash) -> bool {
        self.bucket(self.index(h.h1)).contains(&h.fp)
            || self.bucket(self.index(h.h2)).contains(&h.fp)
    }

    /// Copies of the fingerprint in bucket `h1` plus copies in bucket `h2`; a bucket that is
    /// both counts twice, as RedisBloom counts it.
    #[inline]
    pub fn count(&self, h: CfHash) -> u64 {
        let copies = |b: u64| self.bucket(b).iter().filter(|&&s| s == h.fp).count() as u64;
        copies(self.index(h.h1)) + copies(self.index(h.h2))
    }

    /// Clears the first copy of the fingerprint in bucket `h1`, else in bucket `h2`.
    #[inline]
    pub fn delete(&mut self, h: CfHash) -> bool {
        for b in [self.index(h.h1), self.index(h.h2)] {
            let range = self.bucket_range(b);
            if let Some(bucket) = self.slots.get_mut(range) {
                if let Some(slot) = bucket.iter_mut().find(|s| **s == h.fp) {
                    *slot = EMPTY;
                    return true;
                }
            }
        }
        false
    }

    /// Where a fingerprint found in bucket `b` of a newer sub-filter can go in this one
    /// (compaction): the first empty slot of bucket `b mod n`, else of its other bucket.
    #[inline]
    pub fn free_slot_for_moved(&self, b: u64, fp: u8) -> Option<usize> {
        self.free_slot_for(b, b ^ alt_offset(fp))
    }

    /// Starts loading both of the item's buckets (a hint).
    #[inline]
    pub fn prefetch(&self, h: CfHash) {
        for b in [self.index(h.h1), self.index(h.h2)] {
            prefetch(&self.slots, b as usize * self.bucket_size);
        }
    }
}

/// `buckets * bucket_size` as a length in memory, or `TooLarge`.
fn slot_len(buckets: u64, bucket_size: u8) -> Result<usize> {
    buckets
        .checked_mul(bucket_size as u64)
        .and_then(|n| usize::try_from(n).ok())
        .ok_or(Error::TooLarge {
            needed: u64::MAX,
            limit: usize::MAX as u64,
        })
}
