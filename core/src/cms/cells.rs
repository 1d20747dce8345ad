//! A sketch's counters at RedisBloom 8.12's cell sizes: 1, 2, 4 or 8 bytes each, unsigned,
//! 4 by default (the only size before 8.12). A cell holds at most `2^(8·size) - 1`, an 8-byte
//! one `2^63 - 1` (counts are replied as signed 64-bit integers). The sketch's arithmetic is
//! written once, generic over [`Cell`], and [`Cells`] picks the width once per call, so the
//! 4-byte path runs on plain `u32`s as before.

use std::borrow::Cow;

use crate::error::{Error, Result};
use crate::memory::fallible;

/// Bytes per counter, as `CELL_SIZE` gives it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CellSize {
    One,
    Two,
    Four,
    Eight,
}

impl CellSize {
    /// Every size, smallest first.
    pub const ALL: [CellSize; 4] = [
        CellSize::One,
        CellSize::Two,
        CellSize::Four,
        CellSize::Eight,
    ];
    /// The size without `CELL_SIZE`, and of every sketch encoded before 8.12.
    pub const DEFAULT: CellSize = CellSize::Four;

    /// The size of `bytes` bytes, if it is one.
    pub fn from_bytes(bytes: u64) -> Option<CellSize> {
        match bytes {
            1 => Some(CellSize::One),
            2 => Some(CellSize::Two),
            4 => Some(CellSize::Four),
            8 => Some(CellSize::Eight),
            _ => None,
        }
    }

    /// `CELL_SIZE`'s value: an integer that is a size, else `CMS: CELL_SIZE must be ...`.
    pub fn parse(value: Option<i64>) -> Result<CellSize> {
        value
            .and_then(|v| u64::try_from(v).ok())
            .and_then(CellSize::from_bytes)
            .ok_or(Error::CmsInvalidCellSize)
    }

    pub fn bytes(self) -> u64 {
        match self {
            CellSize::One => 1,
            CellSize::Two => 2,
            CellSize::Four => 4,
            CellSize::Eight => 8,
        }
    }

    /// The largest count a cell of this size holds.
    pub fn max(self) -> u64 {
        match self {
            CellSize::One => u8::MAX as u64,
            CellSize::Two => u16::MAX as u64,
            CellSize::Four => u32::MAX as u64,
            CellSize::Eight => i64::MAX as u64,
        }
    }
}

/// One counter's type.
pub trait Cell: Copy + Default + Eq + std::fmt::Debug + 'static {
    const SIZE: CellSize;
    /// The largest count the cell holds (for `u64`, 2^63 - 1).
    const MAX: u64;
    fn get(self) -> u64;
    /// `value` must be at most [`Cell::MAX`].
    fn new(value: u64) -> Self;
    /// The cell from its little-endian bytes (exactly its size).
    fn from_le(bytes: &[u8]) -> Self;
    /// The counters of `cells` if they are of this type.
    fn slice(cells: &Cells) -> Option<&[Self]>;
}

macro_rules! cell {
    ($t:ty, $variant:ident, $max:expr) => {
        impl Cell for $t {
            const SIZE: CellSize = CellSize::$variant;
            const MAX: u64 = $max;
            #[inline(always)]
            fn get(self) -> u64 {
                self as u64
            }
            #[inline(always)]
            fn new(value: u64) -> Self {
                value as $t
            }
            #[inline]
            fn from_le(bytes: &[u8]) -> Self {
                <$t>::from_le_bytes(bytes.try_into().expect("one cell's bytes"))
            }
            #[inline]
            fn slice(cells: &Cells) -> Option<&[Self]> {
                match cells {
                    Cells::$variant(v) => Some(v),
                    _ => None,
                }
            }
        }
    };
}

cell!(u8, One, u8::MAX as u64);
cell!(u16, Two, u16::MAX as u64);
cell!(u32, Four, u32::MAX as u64);
cell!(u64, Eight, i64::MAX as u64);

/// The counters, row after row, at one cell size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Cells {
    One(Vec<u8>),
    Two(Vec<u16>),
    Four(Vec<u32>),
    Eight(Vec<u64>),
}

/// Runs `$body` with `$v` bound to the vector inside `$cells` (by reference or mutably, as
/// `$cells` is given), generic code then being compiled once per cell type.
macro_rules! with_cells {
    ($cells:expr, $v:ident => $body:expr) => {
        match $cells {
            $crate::cms::cells::Cells::One($v) => $body,
            $crate::cms::cells::Cells::Two($v) => $body,
            $crate::cms::cells::Cells::Four($v) => $body,
            $crate::cms::cells::Cells::Eight($v) => $body,
        }
    };
}
pub(crate) use with_cells;

impl Cells {
    /// `len` zero counters of `size` (an allocation the machine refuses is an error).
    pub fn zeroed(size: CellSize, len: usize) -> Result<Cells> {
        Ok(match size {
            CellSize::One => Cells::One(fallible::zeroed(len)?),
            CellSize::Two => Cells::Two(fallible::zeroed(len)?),
            CellSize::Four => Cells::Four(fallible::zeroed(len)?),
            CellSize::Eight => Cells::Eight(fallible::zeroed(len)?),
        })
    }

    /// The counters of `bytes`, little-endian cells of `size` (the caller has checked that
    /// the length is a whole number of them; an allocation refused is an error).
    pub fn from_le_bytes(size: CellSize, bytes: &[u8]) -> Result<Cells> {
        fn read<T: Cell>(bytes: &[u8]) -> Result<Vec<T>> {
            let size = T::SIZE.bytes() as usize;
            let mut cells = fallible::with_capacity(bytes.len() / size)?;
            cells.extend(bytes.chunks_exact(size).map(T::from_le));
            Ok(cells)
        }
        Ok(match size {
            CellSize::One => Cells::One(fallible::copied(bytes)?),
            CellSize::Two => Cells::Two(read(bytes)?),
            CellSize::Four => Cells::Four(read(bytes)?),
            CellSize::Eight => Cells::Eight(read(bytes)?),
        })
    }

    pub fn size(&self) -> CellSize {
        match self {
            Cells::One(_) => CellSize::One,
            Cells::Two(_) => CellSize::Two,
            Cells::Four(_) => CellSize::Four,
            Cells::Eight(_) => CellSize::Eight,
        }
    }

    pub fn len(&self) -> usize {
        with_cells!(self, v => v.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Counter `i` (row after row).
    pub fn get(&self, i: usize) -> u64 {
        with_cells!(self, v => v[i].get())
    }

    /// Every counter, in order.
    pub fn values(&self) -> Vec<u64> {
        with_cells!(self, v => v.iter().map(|c| c.get()).collect())
    }

    /// The counters as their little-endian bytes, row after row: their own memory on a
    /// little-endian machine (no copy of a possibly huge array), a copy elsewhere.
    pub fn le_bytes(&self) -> Cow<'_, [u8]> {
        fn bytes<T: Cell>(cells: &[T]) -> Cow<'_, [u8]> {
            #[cfg(target_endian = "little")]
            {
                // SAFETY: the pointer and length cover exactly the cells' initialised memory,
                // the unsigned integer types have no padding and every byte is a valid u8; the
                // borrow keeps the cells alive.
                let len = std::mem::size_of_val(cells);
                Cow::Borrowed(unsafe { std::slice::from_raw_parts(cells.as_ptr().cast(), len) })
            }
            #[cfg(not(target_endian = "little"))]
            {
                let size = T::SIZE.bytes() as usize;
                let mut out = Vec::with_capacity(std::mem::size_of_val(cells));
                for c in cells {
                    out.extend_from_slice(&c.get().to_le_bytes()[..size]);
                }
                Cow::Owned(out)
            }
        }
        with_cells!(self, v => bytes(v))
    }
}
