//! BF.MADD and BF.MEXISTS on a valkey-bloom filter: every item hashed once for all of its
//! sub-filters, and, where a sub-filter is too big to stay in cache, its bit positions
//! requested a few items ahead so the misses overlap. The answers are those of one
//! [`add`](ValkeyBloom::add) or [`exists`](ValkeyBloom::exists) after another.

use super::object::ValkeyBloom;
use super::subfilter::ItemHash;
use crate::bloom::batch::{PREFETCH_DISTANCE, PREFETCH_MIN_BYTES};
use crate::error::Result;
use crate::memory::prefetch::with_ahead;
use smallvec::SmallVec;

/// A batch's scratch lives on the stack up to this many items: under glibc's malloc (Valkey
/// builds without jemalloc) the first block past its fast bins consolidates the argument
/// objects the server has just freed. With the scratch inline, the items borrowed and the
/// answers as flags, BF.MEXISTS x100 went from 57,211 to 50,824 module instructions.
const INLINE: usize = 128;
/// The largest k whose bit positions a batch keeps between requesting and writing them
/// (valkey-bloom's default 0.01 gives 7, 0.0001 gives 14).
const MAX_CACHED_K: usize = 16;

impl ValkeyBloom {
    /// Whether each item is in the filter (BF.MEXISTS).
    ///
    /// Every item's first half (probe 0) is hashed before any lookup; an item whose probe 0
    /// is clear everywhere is absent, after one SipHash call (most absent items, as in the
    /// crate valkey-bloom checks with), the others get their second half. With a large
    /// sub-filter, in two passes: the first requests probe 0's line in every large sub-filter
    /// a few items ahead, and every line of the items that go on, which are checked in the
    /// second pass, by when their lines have had the rest of the first to arrive (on a filter
    /// of one sub-filter their bit positions are kept from the request to the check).
    pub fn exists_batch<T: AsRef<[u8]>>(&self, items: &[T]) -> Vec<bool> {
        if !self.uniform() {
            return items
                .iter()
                .map(|i| self.exists_one(i.as_ref(), false))
                .collect();
        }
        // Small sub-filters stay in cache: nothing is requested ahead, an item is checked
        // once its probe 0 is found set.
        let large = self.has_large();
        let first = &self.filters()[0];
        let firsts: SmallVec<[u64; INLINE]> = items
            .iter()
            .map(|i| ItemHash::first_half(first, i.as_ref()))
            .collect();
        let k = first.k() as usize;
        let kept = large && self.filters().len() == 1 && k <= MAX_CACHED_K;
        let mut found = vec![false; items.len()];
        let mut pending: SmallVec<[(usize, ItemHash); INLINE]> = SmallVec::new();
        let mut positions: SmallVec<[usize; 8 * INLINE]> = SmallVec::new();
        let (ahead, walk) = with_ahead(&firsts, PREFETCH_DISTANCE, large);
        ahead.iter().for_each(|&h0| self.prefetch_first(h0));
        for (at, ((h0, next), item)) in walk.zip(items).enumerate() {
            if let Some(h0) = next {
                self.prefetch_first(h0);
            }
            if !self.filters().iter().any(|f| f.first_probe_set(h0)) {
                continue;
            }
            let hash = ItemHash::completed(first, item.as_ref(), h0);
            if !large {
                found[at] = self.filters().iter().any(|f| f.check_hashed(hash));
                continue;
            }
            if kept {
                let from = positions.len();
                positions.resize(from + k, 0);
                first.positions(hash, &mut positions[from..]);
                first.prefetch_positions(&positions[from..]);
            } else {
                self.prefetch(hash);
            }
            pending.push((at, hash));
        }
        for (n, &(at, hash)) in pending.iter().enumerate() {
            found[at] = match kept {
                true => first.all_set(&positions[n * k..(n + 1) * k]),
                false => self.filters().iter().any(|f| f.check_hashed(hash)),
            };
        }
        found
    }

    /// [`add`](Self::add) for each item in order (BF.MADD, BF.INSERT), each result to
    /// `each`, stopping after the first error. Every item is hashed whole first (an item
    /// that is added needs both halves); on a filter with a large sub-filter the bit
    /// positions of the item [`PREFETCH_DISTANCE`] ahead are requested before each add.
    pub fn add_batch<T: AsRef<[u8]>>(
        &mut self,
        items: &[T],
        limit: Option<u64>,
        mut each: impl FnMut(Result<bool>),
    ) {
        // One item (BF.ADD) has nothing to request ahead of, nor scratch to fill.
        if let [item] = items {
            each(self.add(item.as_ref(), limit));
            return;
        }
        let uniform = self.uniform();
        let hashes: SmallVec<[ItemHash; INLINE]> =
            items.iter().map(|i| self.hash(i.as_ref())).collect();
        let ahead = uniform && self.has_large();
        let start = match ahead {
            true => self.add_to_only(&hashes, &mut each),
            false => 0,
        };
        let (items, hashes) = (&items[start..], &hashes[start..]);
        let (first, walk) = with_ahead(hashes, PREFETCH_DISTANCE, ahead);
        first.iter().for_each(|&h| self.prefetch(h));
        for ((hash, next), item) in walk.zip(items) {
            if let Some(h) = next {
                self.prefetch(h);
            }
            let result = match uniform {
                true => self.add_uniform(hash, limit),
                false => self.add_keyed_otherwise(item.as_ref(), hash, limit),
            };
            let stop = result.is_err();
            each(result);
            if stop {
                break;
            }
        }
    }

    /// The adds of a filter with one large sub-filter, while it has room: each item's bit
    /// positions computed once, for the request ahead and for the write (which checks and
    /// sets in one pass, as [`add`](Self::add) does there). Returns how many items it
    /// added; the rest (from a full sub-filter on, which scales) take the general path.
    fn add_to_only(&mut self, hashes: &[ItemHash], each: &mut impl FnMut(Result<bool>)) -> usize {
        const D: usize = PREFETCH_DISTANCE;
        let Some(f) = self.only_mut().filter(|f| f.k() as usize <= MAX_CACHED_K) else {
            return 0;
        };
        let k = f.k() as usize;
        let mut ring = [[0usize; MAX_CACHED_K]; D];
        for (slot, &h) in ring.iter_mut().zip(hashes) {
            f.positions(h, &mut slot[..k]);
            f.prefetch_positions(&slot[..k]);
        }
        for at in 0..hashes.len() {
            if f.num_items >= f.capacity {
                return at;
            }
            let slot = &mut ring[at % D][..k];
            let added = !f.test_and_set_positions(slot);
            f.num_items += added as i64;
            each(Ok(added));
            if let Some(&h) = hashes.get(at + D) {
                f.positions(h, slot);
                f.prefetch_positions(slot);
            }
        }
        hashes.len()
    }

    /// Whether any sub-filter is big enough for prefetching to pay.
    fn has_large(&self) -> bool {
        self.filters()
            .iter()
            .any(|f| f.bitmap_bytes() >= PREFETCH_MIN_BYTES)
    }

    /// Starts loading the item's bit positions in every large sub-filter (of a uniform
    /// filter: `hash` is every sub-filter's). A sub-filter made after the request (an add
    /// that scales) is simply not prefetched.
    fn prefetch(&self, hash: ItemHash) {
        for f in self.filters() {
            if f.bitmap_bytes() >= PREFETCH_MIN_BYTES {
                f.prefetch(hash);
            }
        }
    }

    /// Starts loading probe 0's line (`h0`) in every large sub-filter.
    fn prefetch_first(&self, h0: u64) {
        for f in self.filters() {
            if f.bitmap_bytes() >= PREFETCH_MIN_BYTES {
                f.prefetch_first(h0);
            }
        }
    }
}
