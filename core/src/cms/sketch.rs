//! One Count-Min Sketch: its dimensions, counters and total, and everything the CMS.*
//! commands do to it, with RedisBloom 8.12's arithmetic: an increment (or, negative, a
//! decrement) is applied to an item's counter in every row only if every one of them stays
//! within `0..=max` of the cell size and the total within `0..=2^63 - 1`; otherwise nothing
//! changes and the item's answer is `CMS: INCRBY overflow` / `underflow`. A merge writes
//! `Σ weight · source` after checking every sum first.

use super::cells::{with_cells, Cell, CellSize, Cells};
use crate::error::{check_limit, Error, Result};
use crate::hash::murmur2::murmur2;
use crate::memory::relocate::{relocate_vec, Relocate};

/// The bytes `MEMORY USAGE` counts for a sketch besides its counters: RedisBloom's struct
/// before 8.12 (width, depth, counters pointer, total).
pub const STRUCT_BYTES: u64 = 32;

/// The memory a `width` x `depth` sketch of `cell`-byte counters takes (struct and
/// counters), `None` when it cannot be counted in 64 bits.
pub fn memory_for(width: u64, depth: u64, cell: CellSize) -> Option<u64> {
    width
        .checked_mul(depth)?
        .checked_mul(cell.bytes())?
        .checked_add(STRUCT_BYTES)
}

/// Both dimensions at least 1 and their product within 2^63 - 1, else RedisBloom 8's
/// `CMS: invalid init arguments`. Checked before `CELL_SIZE` is read.
pub fn check_product(width: u64, depth: u64) -> Result<()> {
    if width == 0 || depth == 0 || width > i64::MAX as u64 / depth {
        return Err(Error::CmsInvalidInit);
    }
    Ok(())
}

/// Checks dimensions as RedisBloom 8.12 does, then against `limit` (`bf.max-filter-bytes`):
/// [`check_product`], the counters addressable (`CMS: Insufficient memory to create the
/// key`), the memory within the limit ([`Error::TooLarge`]). Nothing is allocated before
/// this passes.
pub fn check_dims(width: u64, depth: u64, cell: CellSize, limit: u64) -> Result<u64> {
    check_product(width, depth)?;
    let needed = memory_for(width, depth, cell).ok_or(Error::CmsInsufficientMemory)?;
    if width * depth > usize::MAX as u64 / cell.bytes() {
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
    /// The total of all increments: at most 2^63 - 1 by any command (CMS.INFO prints it
    /// signed); a sketch RedisBloom before 8.12 let wrap may hold more.
    count: u64,
    /// Row after row, `width` counters each.
    cells: Cells,
}

impl CountMinSketch {
    /// An empty sketch of 4-byte counters; the dimensions are checked first
    /// ([`check_dims`]).
    pub fn new(width: u64, depth: u64, limit: u64) -> Result<CountMinSketch> {
        Self::with_cell_size(width, depth, CellSize::DEFAULT, limit)
    }

    /// An empty sketch of `cell`-byte counters; the dimensions are checked first.
    pub fn with_cell_size(
        width: u64,
        depth: u64,
        cell: CellSize,
        limit: u64,
    ) -> Result<CountMinSketch> {
        check_dims(width, depth, cell, limit)?;
        Ok(CountMinSketch {
            width,
            depth,
            count: 0,
            cells: Cells::zeroed(cell, (width * depth) as usize)?,
        })
    }

    /// A sketch from its persisted parts, which the caller has checked ([`check_dims`] and
    /// the counters' length).
    pub(crate) fn from_parts(width: u64, depth: u64, count: u64, cells: Cells) -> Self {
        debug_assert_eq!(cells.len() as u64, width * depth);
        CountMinSketch {
            width,
            depth,
            count,
            cells,
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
    pub fn cell_size(&self) -> CellSize {
        self.cells.size()
    }
    /// The counters, row after row.
    pub fn cells(&self) -> &Cells {
        &self.cells
    }

    /// Moves the counters' heap block where `mover` says (active defragmentation).
    pub fn relocate(&mut self, mover: &mut dyn Relocate) {
        with_cells!(&mut self.cells, v => relocate_vec(v, mover))
    }

    /// What the sketch takes in memory, the figure `MEMORY USAGE` reports.
    pub fn memory_bytes(&self) -> u64 {
        STRUCT_BYTES + self.cell_size().bytes() * self.cells.len() as u64
    }

    /// Adds `value` (a decrement when negative) to `item`'s counter in every row and to the
    /// total, and returns the item's estimate after it; or, when a counter would leave its
    /// cell's range or the total `0..=2^63 - 1`, changes nothing and returns
    /// [`Error::CmsIncrByOverflow`] / [`Error::CmsIncrByUnderflow`].
    pub fn incr_by(&mut self, item: &[u8], value: i64) -> Result<u64> {
        let (width, depth) = (self.width, self.depth);
        let magnitude = value.unsigned_abs();
        if value >= 0 {
            // The total is a reply's signed integer: capped like a cell. A total past it
            // (loaded from a RedisBloom that let it wrap) takes no increment.
            if magnitude > (i64::MAX as u64).saturating_sub(self.count) {
                return Err(Error::CmsIncrByOverflow);
            }
            let min = with_cells!(&mut self.cells, v => raise(v, width, depth, item, magnitude))?;
            self.count += magnitude;
            Ok(min)
        } else {
            // A total below the counters (a crafted value) must not wrap either.
            if magnitude > self.count {
                return Err(Error::CmsIncrByUnderflow);
            }
            let min = with_cells!(&mut self.cells, v => lower(v, width, depth, item, magnitude))?;
            self.count -= magnitude;
            Ok(min)
        }
    }

    /// The estimate of `item`: its smallest counter over the rows, never below its true
    /// count as long as nothing was decremented that was not added.
    pub fn query(&self, item: &[u8]) -> u64 {
        let (width, depth) = (self.width, self.depth);
        with_cells!(&self.cells, v => smallest(v, width, depth, item))
    }

    /// Replaces the counters by `Σ weight · source` and the total by `Σ weight · total`
    /// over `sources`, all of this sketch's dimensions (the caller checks them) and cell size
    /// ([`Error::CmsCellSizeMismatch`]). Every counter sum must lie in `0..=max` of the cell
    /// size and the total sum in 0..=2^63 - 1, each product and partial sum within a signed
    /// 64-bit integer, else [`Error::CmsMergeOverflow`] and nothing changes.
    pub fn merge(&mut self, sources: &[Source]) -> Result<()> {
        let total = self.merged_count(sources)?;
        with_cells!(&mut self.cells, v => merge_cells(v, sources))?;
        self.count = total as u64;
        Ok(())
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

/// The counter of `item` in row `row` of a sketch `width` wide.
#[inline(always)]
fn cell_of(width: u64, item: &[u8], row: u64) -> usize {
    let hash = murmur2(item, row as u32);
    // The same remainder as RedisBloom's 64-bit one, by a 32-bit division where the width
    // allows (every width under the default limit).
    let column = match u32::try_from(width) {
        Ok(width) => (hash % width) as u64,
        Err(_) => hash as u64 % width,
    };
    (column + row * width) as usize
}

/// Adds `by` to `item`'s counters, row after row; at the first that would pass the cell's
/// maximum, takes it back from the rows done and answers overflow. One hash per row on the
/// way that succeeds.
#[inline]
fn raise<T: Cell>(cells: &mut [T], width: u64, depth: u64, item: &[u8], by: u64) -> Result<u64> {
    let mut min = u64::MAX;
    for row in 0..depth {
        let at = cell_of(width, item, row);
        let c = cells[at].get();
        if by > T::MAX.saturating_sub(c) {
            for done in 0..row {
                let at = cell_of(width, item, done);
                cells[at] = T::new(cells[at].get() - by);
            }
            return Err(Error::CmsIncrByOverflow);
        }
        let n = c + by;
        cells[at] = T::new(n);
        min = min.min(n);
    }
    Ok(min)
}

/// Takes `by` from `item`'s counters, row after row; at the first that holds less, gives it
/// back to the rows done and answers underflow.
#[inline]
fn lower<T: Cell>(cells: &mut [T], width: u64, depth: u64, item: &[u8], by: u64) -> Result<u64> {
    let mut min = u64::MAX;
    for row in 0..depth {
        let at = cell_of(width, item, row);
        let c = cells[at].get();
        if by > c {
            for done in 0..row {
                let at = cell_of(width, item, done);
                cells[at] = T::new(cells[at].get() + by);
            }
            return Err(Error::CmsIncrByUnderflow);
        }
        let n = c - by;
        cells[at] = T::new(n);
        min = min.min(n);
    }
    Ok(min)
}

#[inline]
fn smallest<T: Cell>(cells: &[T], width: u64, depth: u64, item: &[u8]) -> u64 {
    (0..depth)
        .map(|row| cells[cell_of(width, item, row)].get())
        .min()
        .unwrap_or(u64::MAX)
}

/// The merge of [`CountMinSketch::merge`] on counters of type `T`: every sum checked, then
/// written (cell `i` of the destination read before it is written, as RedisBloom does).
fn merge_cells<T: Cell>(dest: &mut [T], sources: &[Source]) -> Result<()> {
    let typed: Vec<(Option<&[T]>, i64)> = sources
        .iter()
        .map(|s| match *s {
            Source::Other(sk, w) => T::slice(&sk.cells)
                .map(|c| (Some(c), w))
                .ok_or(Error::CmsCellSizeMismatch),
            Source::Destination(w) => Ok((None, w)),
        })
        .collect::<Result<_>>()?;
    let sum = |dest: &[T], i: usize| -> Result<T> {
        let mut sum = 0i64;
        for &(src, w) in &typed {
            // Counters are at most 2^63 - 1 (8-byte ones are checked on load).
            let c = src.map_or(dest[i], |s| s[i]).get() as i64;
            sum = c
                .checked_mul(w)
                .and_then(|p| sum.checked_add(p))
                .ok_or(Error::CmsMergeOverflow)?;
        }
        if !(0..=T::MAX as i64).contains(&sum) {
            return Err(Error::CmsMergeOverflow);
        }
        Ok(T::new(sum as u64))
    };
    for i in 0..dest.len() {
        sum(dest, i)?;
    }
    for i in 0..dest.len() {
        dest[i] = sum(dest, i)?;
    }
    Ok(())
}
