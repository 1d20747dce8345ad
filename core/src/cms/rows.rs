//! A batch's walk over its items' counters: every item's counters are found first
//! ([`Rows::indexes`], RedisBloom's `CMS_HASH` rows), then served in order, with the
//! counters of the items a few places ahead requested from memory when the sketch is
//! larger than the caches.

use crate::memory::prefetch::prefetch_address;

/// Batches prefetch counters only in sketches at least this big; smaller ones stay in cache.
pub const PREFETCH_MIN_BYTES: u64 = 1 << 20;
/// How many items ahead of the one being served a batch requests counters for (each item
/// has `depth` of them, one cache line apiece).
pub const PREFETCH_ITEMS: usize = 4;
/// A batch finds the counters of at most this many `(item, row)` pairs before it serves
/// them, so a deep sketch's batch does not need a large buffer.
const CHUNK_INDEXES: usize = 4096;

pub use crate::hash::rows::Rows;

/// How many items a batch hashes at a time: `CHUNK_INDEXES` indexes' worth, at least one.
pub fn chunk_items(rows: Rows) -> usize {
    (CHUNK_INDEXES as u64 / rows.depth().max(1)).max(1) as usize
}

/// The counters a batch requests ahead of use: where counter 0 is and the bytes of one.
/// Only an address: requesting a line reads nothing, so the batch may change the counters
/// meanwhile.
#[derive(Debug, Clone, Copy)]
pub struct Ahead {
    base: *const u8,
    cell: usize,
}

impl Ahead {
    pub fn of<T>(cells: &[T]) -> Ahead {
        Ahead {
            base: cells.as_ptr().cast(),
            cell: std::mem::size_of::<T>(),
        }
    }

    fn request(self, indexes: &[usize]) {
        for &at in indexes {
            prefetch_address(self.base.wrapping_add(at * self.cell));
        }
    }
}

/// Walks a batch's items by their counter indexes (`depth` per item, as [`Rows::indexes`]
/// lays them out), calling `f(i, indexes of item i)`; with `ahead`, the counters of the
/// item [`PREFETCH_ITEMS`] places ahead are requested first.
#[inline]
pub fn walk(
    indexes: &[usize],
    depth: usize,
    ahead: Option<Ahead>,
    mut f: impl FnMut(usize, &[usize]),
) {
    let depth = depth.max(1);
    if let Some(ahead) = ahead {
        ahead.request(&indexes[..indexes.len().min(PREFETCH_ITEMS * depth)]);
    }
    for (i, item) in indexes.chunks_exact(depth).enumerate() {
        if let Some(ahead) = ahead {
            let from = (i + PREFETCH_ITEMS) * depth;
            if let Some(next) = indexes.get(from..from + depth) {
                ahead.request(next);
            }
        }
        f(i, item);
    }
}
