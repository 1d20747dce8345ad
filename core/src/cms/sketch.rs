//! One Count-Min Sketch: its dimensions, counters and total, and everything the CMS.*
//! commands do to it, with RedisBloom 8.12's arithmetic: an increment (or, negative, a
//! decrement) is applied to an item's counter in every row only if every one of them stays
//! within `0..=max` of the cell size and the total within `0..=2^63 - 1`; otherwise nothing
//! changes and the item's answer is `CMS: INCRBY overflow` / `underflow`. A merge writes
//! `Σ weight · source` after checking every sum first.

use super::cells::{with_cells, Cell, CellSize, Cells};
use super::rows::{self, Ahead, Rows, PREFETCH_MIN_BYTES};
use crate::error::{check_limit, Error, Result};
use crate::hash::rows::{with_row_indexes, RowIndexes, FOUND_AT_ONCE};
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
    /// Where an item's counters are (from `width` and `depth`).
    rows: Rows,
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
            rows: Rows::new(width, depth),
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
            rows: Rows::new(width, depth),
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
        self.check_total(value)?;
        let mut buf = [0; FOUND_AT_ONCE as usize];
        let (_, at) = self.rows.find(item, 0, &mut buf);
        let min = with_row_indexes!(at, at => self.change(at, value))?;
        self.add_to_total(value);
        Ok(min)
    }

    /// [`CountMinSketch::incr_by`] for each pair in order, handing each result to `each`.
    /// In a sketch larger than the caches every item's counters are found before any is
    /// changed, and with `prefetch` requested a few items ahead; the results are the same
    /// either way.
    pub fn incr_by_batch(
        &mut self,
        pairs: &[(&[u8], i64)],
        prefetch: bool,
        mut each: impl FnMut(Result<u64>),
    ) {
        if !self.finds_first() {
            pairs
                .iter()
                .for_each(|&(item, value)| each(self.incr_by(item, value)));
            return;
        }
        let rows = self.rows;
        let chunk_items = rows::chunk_items(rows).min(pairs.len());
        let mut buffer = vec![0; chunk_items * rows.depth() as usize];
        for chunk in pairs.chunks(chunk_items.max(1)) {
            let indexes = &mut buffer[..chunk.len() * rows.depth() as usize];
            rows.indexes(chunk.iter().map(|&(item, _)| item), indexes);
            let ahead = prefetch.then(|| with_cells!(&self.cells, v => Ahead::of(v)));
            rows::walk(indexes, rows.depth() as usize, ahead, |i, at| {
                let value = chunk[i].1;
                each(self.check_total(value).and_then(|()| {
                    let min = self.change(at, value)?;
                    self.add_to_total(value);
                    Ok(min)
                }));
            });
        }
    }

    /// The estimate of `item`: its smallest counter over the rows, never below its true
    /// count as long as nothing was decremented that was not added.
    pub fn query(&self, item: &[u8]) -> u64 {
        let mut buf = [0; FOUND_AT_ONCE as usize];
        let (_, at) = self.rows.find(item, 0, &mut buf);
        with_row_indexes!(at, at => with_cells!(&self.cells, v => smallest(v, at)))
    }

    /// [`CountMinSketch::query`] of each item, in order, found as in
    /// [`CountMinSketch::incr_by_batch`].
    pub fn query_batch<'a>(
        &self,
        mut items: impl ExactSizeIterator<Item = &'a [u8]>,
        prefetch: bool,
    ) -> Vec<u64> {
        if !self.finds_first() {
            return items.map(|item| self.query(item)).collect();
        }
        let rows = self.rows;
        let chunk = rows::chunk_items(rows).min(items.len());
        let mut out = Vec::with_capacity(items.len());
        let mut buffer = vec![0; chunk * rows.depth() as usize];
        while items.len() > 0 {
            let indexes = &mut buffer[..chunk.min(items.len()) * rows.depth() as usize];
            rows.indexes(items.by_ref().take(chunk), indexes);
            with_cells!(&self.cells, v => {
                let ahead = prefetch.then(|| Ahead::of(v));
                rows::walk(indexes, rows.depth() as usize, ahead, |_, at| {
                    out.push(smallest(v, at))
                })
            });
        }
        out
    }

    /// Whether a batch finds every item's counters before it serves any: in a sketch larger
    /// than the caches (in cache it buys nothing), of rows found at once (so the batch's
    /// buffer stays small).
    fn finds_first(&self) -> bool {
        self.memory_bytes() >= PREFETCH_MIN_BYTES && self.depth <= FOUND_AT_ONCE
    }

    /// Refuses a change that would take the total out of `0..=2^63 - 1`: the total is a
    /// reply's signed integer, capped like a cell (a total past it, loaded from a RedisBloom
    /// that let it wrap, takes no increment), and a total below the counters (a crafted
    /// value) must not wrap either.
    fn check_total(&self, value: i64) -> Result<()> {
        let magnitude = value.unsigned_abs();
        if value >= 0 && magnitude > (i64::MAX as u64).saturating_sub(self.count) {
            return Err(Error::CmsIncrByOverflow);
        }
        if value < 0 && magnitude > self.count {
            return Err(Error::CmsIncrByUnderflow);
        }
        Ok(())
    }

    /// Adds `value` to the total, which [`Self::check_total`] allowed.
    fn add_to_total(&mut self, value: i64) {
        self.count = self.count.wrapping_add_signed(value);
    }

    /// Adds `value` to the counters at `at` (one per row), all or none.
    #[inline]
    fn change(&mut self, at: impl RowIndexes, value: i64) -> Result<u64> {
        let by = value.unsigned_abs();
        if value >= 0 {
            with_cells!(&mut self.cells, v => raise(v, at, by))
        } else {
            with_cells!(&mut self.cells, v => lower(v, at, by))
        }
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

/// Adds `by` to the counters at `at`, row after row; at the first that would pass the
/// cell's maximum, takes it back from the rows done and answers overflow.
#[inline]
fn raise<T: Cell>(cells: &mut [T], at: impl RowIndexes, by: u64) -> Result<u64> {
    let mut min = u64::MAX;
    for row in 0..at.rows() {
        let i = at.at(row);
        let c = cells[i].get();
        if by > T::MAX.saturating_sub(c) {
            for done in 0..row {
                let j = at.at(done);
                cells[j] = T::new(cells[j].get() - by);
            }
            return Err(Error::CmsIncrByOverflow);
        }
        let n = c + by;
        cells[i] = T::new(n);
        min = min.min(n);
    }
    Ok(min)
}

/// The smallest of the counters at `at`.
#[inline]
fn smallest<T: Cell>(cells: &[T], at: impl RowIndexes) -> u64 {
    (0..at.rows())
        .map(|row| cells[at.at(row)].get())
        .min()
        .unwrap_or(u64::MAX)
}

/// Takes `by` from the counters at `at`, row after row; at the first that holds less, gives
/// it back to the rows done and answers underflow.
#[inline]
fn lower<T: Cell>(cells: &mut [T], at: impl RowIndexes, by: u64) -> Result<u64> {
    let mut min = u64::MAX;
    for row in 0..at.rows() {
        let i = at.at(row);
        let c = cells[i].get();
        if by > c {
            for done in 0..row {
                let j = at.at(done);
                cells[j] = T::new(cells[j].get() + by);
            }
            return Err(Error::CmsIncrByUnderflow);
        }
        let n = c - by;
        cells[i] = T::new(n);
        min = min.min(n);
    }
    Ok(min)
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
