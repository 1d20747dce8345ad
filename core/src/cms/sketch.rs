//! One Count-Min Sketch: its dimensions, counters and total, and everything the CMS.*
//! commands do to it. RedisBloom's arithmetic exactly: a counter takes an increment cut to
//! 32 bits and is set to 2^32 - 1 when the sum comes out below the whole increment; the
//! total adds the whole 64-bit increment and wraps; a merge writes `Σ weight · source` after
//! checking every sum first.

use crate::error::{check_limit, Error, Result};
use crate::hash::murmur2::murmur2;
use crate::memory::fallible::zeroed;
use crate::memory::relocate::{relocate_vec, Relocate};

/// The bytes `MEMORY USAGE` counts for a sketch besides its counters: RedisBloom's struct
/// (width, depth, counters pointer, total), which rsbloom's matches in size.
pub const STRUCT_BYTES: u64 = 32;
/// A saturated counter; an item whose estimate is this is reported as overflowed.
pub const SATURATED: u32 = u32::MAX;

/// The memory a `width` x `depth` sketch takes (struct and 4-byte counters), `None` when it
/// cannot be counted in 64 bits.
pub fn memory_for(width: u64, depth: u64) -> Option<u64> {
    width
        .checked_mul(depth)?
        .checked_mul(4)?
        .checked_add(STRUCT_BYTES)
}

/// Checks dimensions as RedisBloom 8 does, then against `limit` (`bf.max-filter-bytes`):
/// both at least 1 (`CMS: invalid init arguments`, as for a product over 2^63 - 1), counters
/// addressable (`CMS: Insufficient memory to create the key`), the memory within the limit
/// ([`Error::TooLarge`]). Nothing is allocated before this passes.
pub fn check_dims(width: u64, depth: u64, limit: u64) -> Result<u64> {
    if width == 0 || depth == 0 || width > i64::MAX as u64 / depth {
        return Err(Error::CmsInvalidInit);
    }
    let needed = memory_for(width, depth).ok_or(Error::CmsInsufficientMemory)?;
    if width * depth > usize::MAX as u64 / 4 {
        return Err(Error::CmsInsufficientMemory);
    }
    check_limit(needed, limit)?;
    Ok(needed)
}

/// Width and depth for an overestimation `error` and a probability `prob`, as
/// `CMS.INITBYPROB` computes them: `ceil(2 / error)` and
/// `ceil(log10f(prob) / log10f(0.5))`, the depth in single precision as RedisBloom's
/// `log10f` gives it. Both arguments must be strictly between 0 and 1 (NaN is not);
/// dimensions that do not fit a signed 64-bit count are `CMS: invalid init arguments`
/// (RedisBloom reaches that through an undefined float-to-integer conversion).
pub fn dims_from_prob(error: f64, prob: f64) -> Result<(u64, u64)> {
    if !(error > 0.0 && error < 1.0) {
        return Err(Error::CmsInvalidOverestimation);
    }
    if !(prob > 0.0 && prob < 1.0) {
        return Err(Error::CmsInvalidProb);
    }
    let width = (2.0 / error).ceil();
    let depth = ((prob as f32).log10() / 0.5f32.log10()).ceil() as f64;
    let fits = |v: f64| (1.0..9_223_372_036_854_775_808.0).contains(&v);
    if !fits(width) || !fits(depth) {
        return Err(Error::CmsInvalidInit);
    }
    Ok((width as u64, depth as u64))
}

/// A source of a merge with its weight: another sketch, or the destination itself (which
/// RedisBloom reads before it writes each counter).
#[derive(Debug, Clone, Copy)]
pub enum Source<'a> {
    Other(&'a CountMinSketch, i64),
    Destination(i64),
}

/// RedisBloom's Count-Min Sketch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CountMinSketch {
    width: u64,
    depth: u64,
    /// The total of all increments, wrapping at 2^64 (CMS.INFO prints it signed).
    count: u64,
    /// Row after row, `width` counters each.
    counters: Vec<u32>,
}

impl CountMinSketch {
    /// An empty sketch; the dimensions are checked first ([`check_dims`]).
    pub fn new(width: u64, depth: u64, limit: u64) -> Result<CountMinSketch> {
        check_dims(width, depth, limit)?;
        Ok(CountMinSketch {
            width,
            depth,
            count: 0,
            counters: zeroed((width * depth) as usize)?,
        })
    }

    /// A sketch from its persisted parts, which the caller has checked ([`check_dims`] and
    /// the counters' length).
    pub(crate) fn from_parts(width: u64, depth: u64, count: u64, counters: Vec<u32>) -> Self {
        debug_assert_eq!(counters.len() as u64, width * depth);
        CountMinSketch {
            width,
            depth,
            count,
            counters,
        }
    }

    pub fn width(&self) -> u64 {
        self.width
    }
    pub fn depth(&self) -> u64 {
        self.depth
    }
    /// The 64-bit total of increments (reported as a signed integer).
    pub fn count(&self) -> u64 {
        self.count
    }
    /// The counters, row after row.
    pub fn counters(&self) -> &[u32] {
        &self.counters
    }

    /// Moves the counters' heap block where `mover` says (active defragmentation).
    pub fn relocate(&mut self, mover: &mut dyn Relocate) {
        relocate_vec(&mut self.counters, mover);
    }

    /// What the sketch takes in memory, the figure `MEMORY USAGE` reports.
    pub fn memory_bytes(&self) -> u64 {
        STRUCT_BYTES + 4 * self.counters.len() as u64
    }

    /// The counter of `item` in row `row`.
    #[inline]
    fn cell(&self, item: &[u8], row: u64) -> usize {
        let hash = murmur2(item, row as u32);
        // The same remainder as RedisBloom's 64-bit one, by a 32-bit division where the
        // width allows (every width under the default limit).
        let column = match u32::try_from(self.width) {
            Ok(width) => (hash % width) as u64,
            Err(_) => hash as u64 % self.width,
        };
        (column + row * self.width) as usize
    }

    /// Adds `value` to `item`'s counter in every row and to the total; returns the item's
    /// estimate after it, or [`Error::CmsIncrByOverflow`] when that estimate is saturated
    /// (the counters are updated all the same, as RedisBloom does).
    pub fn incr_by(&mut self, item: &[u8], value: u64) -> Result<u64> {
        let mut min = u32::MAX;
        for row in 0..self.depth {
            let at = self.cell(item, row);
            let c = &mut self.counters[at];
            *c = c.wrapping_add(value as u32);
            if (*c as u64) < value {
                *c = SATURATED;
            }
            min = min.min(*c);
        }
        self.count = self.count.wrapping_add(value);
        if min == SATURATED {
            return Err(Error::CmsIncrByOverflow);
        }
        Ok(min as u64)
    }

    /// The estimate of `item`: its smallest counter over the rows, never below its true
    /// count unless a counter saturated.
    pub fn query(&self, item: &[u8]) -> u64 {
        (0..self.depth)
            .map(|row| self.counters[self.cell(item, row)])
            .min()
            .unwrap_or(u32::MAX) as u64
    }

    /// Replaces the counters by `Σ weight · source` and the total by `Σ weight · total`
    /// over `sources`, all of this sketch's dimensions (the caller checks them). Every
    /// counter sum must lie in 0..=2^32 - 1 and the total sum in 0..=2^63 - 1, each product
    /// and partial sum within a signed 64-bit integer, else [`Error::CmsMergeOverflow`] and
    /// nothing changes.
    pub fn merge(&mut self, sources: &[Source]) -> Result<()> {
        let n = self.counters.len();
        let total = self.merged_count(sources)?;
        for i in 0..n {
            self.merged_cell(sources, i)?;
        }
        for i in 0..n {
            let sum = self.merged_cell(sources, i)?;
            self.counters[i] = sum as u32;
        }
        self.count = total as u64;
        Ok(())
    }

    /// One counter's weighted sum, checked.
    #[inline]
    fn merged_cell(&self, sources: &[Source], i: usize) -> Result<i64> {
        let mut sum = 0i64;
        for s in sources {
            let (c, w) = match *s {
                Source::Other(sk, w) => (sk.counters[i], w),
                Source::Destination(w) => (self.counters[i], w),
            };
            sum = (c as i64)
                .checked_mul(w)
                .and_then(|p| sum.checked_add(p))
                .ok_or(Error::CmsMergeOverflow)?;
        }
        if !(0..=u32::MAX as i64).contains(&sum) {
            return Err(Error::CmsMergeOverflow);
        }
        Ok(sum)
    }

    /// The total's weighted sum, checked as RedisBloom checks it (the unsigned total times
    /// the weight must fit a signed 64-bit integer).
    fn merged_count(&self, sources: &[Source]) -> Result<i64> {
        let mut sum = 0i64;
        for s in sources {
            let (c, w) = match *s {
                Source::Other(sk, w) => (sk.count, w),
                Source::Destination(w) => (self.count, w),
            };
            let product = i64::try_from(c as i128 * w as i128).ok();
            sum = product
                .and_then(|p| sum.checked_add(p))
                .ok_or(Error::CmsMergeOverflow)?;
        }
        if sum < 0 {
            return Err(Error::CmsMergeOverflow);
        }
        Ok(sum)
    }
}
