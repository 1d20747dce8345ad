//! The Top-K sketch: RedisBloom's HeavyKeeper (`depth` rows of `width` buckets, each a
//! fingerprint and a count) with a min-heap of the `k` heaviest items seen.
//!
//! Add (an increment `n`, 1 for TOPK.ADD), per row, in the item's bucket
//! (`murmur2(item, row) % width`): an empty bucket (count 0) is taken with `n`; a bucket
//! with the item's fingerprint adds `n` (32-bit wrap, as RedisBloom's); a bucket of another
//! fingerprint decays, once per unit of `n`, with probability `decay^count`
//! ([`super::decay`], deterministic here), and when it reaches 0 the item takes it with the
//! rest of its increment. The largest count the item holds in a row then meets the heap: if
//! it is at least the heap's minimum, the item's heap entry (searched from the last entry
//! down: fingerprint, length and bytes) takes that count and sifts down, or, when the item
//! is not there, it replaces the minimum entry, which is expelled (the reply), and sifts
//! down. The sift-down and the LIST order are RedisBloom's, ties included.

use super::decay::{DecayTable, Draws};
use super::hash::{fingerprint, FINGERPRINT_SEED};
use crate::error::{check_limit, Result};
use crate::hash::rows::{with_row_indexes, RowIndexes, Rows, FOUND_AT_ONCE};
use crate::memory::fallible::filled;
use crate::memory::relocate::{relocate_vec, Relocate};

/// RedisBloom's defaults for `TOPK.RESERVE key k`.
pub const DEFAULT_WIDTH: u32 = 8;
pub const DEFAULT_DEPTH: u32 = 7;
pub const DEFAULT_DECAY: f64 = 0.9;
/// The largest TOPK.INCRBY increment.
pub const MAX_INCREMENT: u32 = 100_000;
/// Bytes of one bucket (fingerprint and count) in memory and in the persisted value.
pub const BUCKET_BYTES: u64 = 8;
/// Bytes of one heap entry as RedisBloom lays it out (and persists it).
pub const HEAP_ENTRY_BYTES: u64 = 24;
/// RedisBloom's `sizeof(TopK)` (parameters, two pointers and the decay table), which its
/// MEMORY USAGE counts.
pub const HEADER_BYTES: u64 = 2088;

/// One bucket of a row, laid out as RedisBloom persists it (fingerprint, then count).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[repr(C)]
pub struct Bucket {
    pub fp: u32,
    pub count: u32,
}

/// One heap entry. `item` is `None` for an entry no item has used yet.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Entry {
    pub fp: u32,
    pub count: u32,
    pub item: Option<Box<[u8]>>,
    /// The item was loaded from RedisBloom data that stores it cut at its first NUL byte:
    /// only that prefix is known (the rest is zeros here), and it is written back the same.
    pub cut: bool,
}

impl Entry {
    /// The item's bytes as a reply carries them: whole, or the known prefix of a cut item.
    pub fn shown(&self) -> Option<&[u8]> {
        let item = self.item.as_deref()?;
        Some(if self.cut {
            &item[..item.iter().position(|&b| b == 0).unwrap_or(item.len())]
        } else {
            item
        })
    }

    /// The item as [`Entry::shown`] gives it, taken out of the entry without a copy.
    fn into_shown(self) -> Option<Box<[u8]>> {
        let item = self.item?;
        if !self.cut {
            return Some(item);
        }
        let mut item = item.into_vec();
        item.truncate(item.iter().position(|&b| b == 0).unwrap_or(item.len()));
        Some(item.into_boxed_slice())
    }
}

/// The parameters of a sketch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    pub k: u32,
    pub width: u32,
    pub depth: u32,
    pub decay: f64,
}

impl Params {
    /// Checks the ranges (k, width, depth at least 1; `0 < decay <= 1`) and that the
    /// buckets and the heap fit `limit` bytes; returns the bytes they take.
    pub fn validate(&self, limit: u64) -> Result<u64> {
        if self.k == 0 || self.width == 0 || self.depth == 0 {
            return Err(crate::error::bad_data(
                "k, width and depth must be at least 1",
            ));
        }
        if !(self.decay > 0.0 && self.decay <= 1.0) {
            return Err(crate::error::bad_data(format!(
                "decay {} is not in (0, 1]",
                self.decay
            )));
        }
        let needed = self.fixed_bytes();
        check_limit(needed, limit)?;
        Ok(needed)
    }

    /// Bytes of the buckets and the heap entries (items aside). Saturating: a loaded
    /// value's width and depth (u32 each) can multiply past u64, and `u64::MAX` is then
    /// over any limit `validate` checks (the fuzzer's topk_value found the overflow).
    pub fn fixed_bytes(&self) -> u64 {
        (self.width as u64)
            .saturating_mul(self.depth as u64)
            .saturating_mul(BUCKET_BYTES)
            .saturating_add((self.k as u64).saturating_mul(HEAP_ENTRY_BYTES))
    }
}

/// A Top-K sketch.
#[derive(Debug, Clone, PartialEq)]
pub struct TopK {
    pub(super) params: Params,
    /// Row after row, `width` buckets each.
    pub(super) buckets: Vec<Bucket>,
    pub(super) heap: Vec<Entry>,
    /// Decay rolls made so far: the position of the deterministic decay.
    pub(super) rolls: u64,
    pub(super) table: DecayTable,
    /// Where an item's buckets are (from the width and depth).
    rows: Rows,
}

impl TopK {
    /// An empty sketch (TOPK.RESERVE); `TooLarge` over `limit` before anything is allocated.
    pub fn new(params: Params, limit: u64) -> Result<TopK> {
        params.validate(limit)?;
        Ok(TopK::from_parts(
            params,
            filled(
                params.width as usize * params.depth as usize,
                Bucket::default(),
            )?,
            filled(params.k as usize, Entry::default())?,
            0,
        ))
    }

    pub(super) fn from_parts(
        params: Params,
        buckets: Vec<Bucket>,
        heap: Vec<Entry>,
        rolls: u64,
    ) -> TopK {
        TopK {
            table: DecayTable::new(params.decay),
            rows: Rows::new(params.width as u64, params.depth as u64),
            params,
            buckets,
            heap,
            rolls,
        }
    }

    pub fn params(&self) -> Params {
        self.params
    }

    pub fn buckets(&self) -> &[Bucket] {
        &self.buckets
    }

    pub fn heap(&self) -> &[Entry] {
        &self.heap
    }

    /// The buckets as RedisBloom's persisted string (`fp u32, count u32` little-endian, row
    /// after row): the buckets' own memory where the machine is little-endian (no copy of a
    /// possibly huge array), a copy elsewhere.
    pub fn bucket_bytes(&self) -> std::borrow::Cow<'_, [u8]> {
        #[cfg(target_endian = "little")]
        {
            let b = &self.buckets;
            // SAFETY: `Bucket` is two u32s, `repr(C)`, without padding; the pointer and
            // length cover exactly the buckets' initialised memory, every byte is a valid
            // u8, and the borrow keeps the buckets alive.
            let bytes = unsafe {
                std::slice::from_raw_parts(b.as_ptr().cast::<u8>(), b.len() * BUCKET_BYTES as usize)
            };
            std::borrow::Cow::Borrowed(bytes)
        }
        #[cfg(not(target_endian = "little"))]
        {
            let mut out = Vec::with_capacity(self.buckets.len() * BUCKET_BYTES as usize);
            for b in &self.buckets {
                out.extend_from_slice(&b.fp.to_le_bytes());
                out.extend_from_slice(&b.count.to_le_bytes());
            }
            std::borrow::Cow::Owned(out)
        }
    }

    /// Decay rolls made so far.
    pub fn rolls(&self) -> u64 {
        self.rolls
    }

    /// What MEMORY USAGE reports, RedisBloom's way: its struct, the buckets and the heap.
    pub fn memory_bytes(&self) -> u64 {
        HEADER_BYTES + self.params.fixed_bytes()
    }

    /// Bytes this sketch holds, items included (the size limit counts these).
    pub fn held_bytes(&self) -> u64 {
        self.params.fixed_bytes() + self.item_bytes()
    }

    fn item_bytes(&self) -> u64 {
        self.heap
            .iter()
            .map(|e| e.item.as_ref().map_or(0, |i| i.len() as u64))
            .sum()
    }

    /// Adds `item` `increment` times (TOPK.ADD: 1; TOPK.INCRBY: 0 to 100,000). Returns the
    /// item expelled from the heap: `Some(None)` when the replaced entry was unused, `None`
    /// when nothing was expelled. `Some(Some(bytes))` holds the expelled item as shown.
    pub fn add(&mut self, item: &[u8], increment: u32) -> Option<Option<Box<[u8]>>> {
        let mut buf = [0; FOUND_AT_ONCE as usize];
        let (fp, at) = self.rows.find(item, FINGERPRINT_SEED, &mut buf);
        let max_count = with_row_indexes!(at, at => self.count_in(at, fp, increment));
        let heap_min = self.heap[0].count;
        if max_count < heap_min {
            return None;
        }
        self.meet_heap(item, fp, max_count)
    }

    /// The add's work in the item's buckets (`at`, one per row): returns the largest count
    /// the item holds in a row after it.
    #[inline]
    fn count_in(&mut self, at: impl RowIndexes, fp: u32, increment: u32) -> u32 {
        let mut max_count = 0u32;
        for row in 0..at.rows() {
            let bucket = &mut self.buckets[at.at(row)];
            let row = row as u32;
            if bucket.count == 0 {
                bucket.fp = fp;
                bucket.count = increment;
                max_count = max_count.max(bucket.count);
            } else if bucket.fp == fp {
                bucket.count = bucket.count.wrapping_add(increment);
                max_count = max_count.max(bucket.count);
            } else if let Some(taken) =
                decay(bucket, &self.table, &mut self.rolls, fp, row, increment)
            {
                max_count = max_count.max(taken);
            }
        }
        max_count
    }

    /// The item, holding `max_count` in its heaviest row, meets the heap (see the module's
    /// notes): what it expels, if anything.
    fn meet_heap(&mut self, item: &[u8], fp: u32, max_count: u32) -> Option<Option<Box<[u8]>>> {
        if let Some(at) = self.find(fp, item) {
            let entry = &mut self.heap[at];
            entry.count = max_count;
            // The item is known whole now (it matched every byte).
            entry.cut = false;
            self.sift_down(at);
            return None;
        }
        let old = std::mem::replace(
            &mut self.heap[0],
            Entry {
                fp,
                count: max_count,
                item: Some(item.into()),
                cut: false,
            },
        );
        self.sift_down(0);
        Some(old.into_shown())
    }

    /// The heap entry holding `item` (fingerprint `fp`), searched from the last one down.
    fn find(&self, fp: u32, item: &[u8]) -> Option<usize> {
        self.heap
            .iter()
            .rposition(|e| e.fp == fp && e.item.as_deref().unwrap_or(&[]) == item)
    }

    /// RedisBloom's sift-down from `start`: the smaller child (the left one on ties) moves
    /// up while it is not larger than the moving entry at the first step and strictly
    /// smaller after that.
    fn sift_down(&mut self, mut start: usize) {
        let len = self.heap.len();
        if len < 2 || (len - 2) / 2 < start {
            return;
        }
        let smaller_child = |heap: &[Entry], parent: usize| {
            let c = 2 * parent + 1;
            if c + 1 < len && heap[c].count > heap[c + 1].count {
                c + 1
            } else {
                c
            }
        };
        let mut child = smaller_child(&self.heap, start);
        let moving = self.heap[start].count;
        if self.heap[child].count > moving {
            return;
        }
        loop {
            self.heap.swap(start, child);
            start = child;
            if (len - 2) / 2 < child {
                break;
            }
            child = smaller_child(&self.heap, child);
            if self.heap[child].count >= moving {
                break;
            }
        }
    }

    /// Whether `item` is in the heap (TOPK.QUERY).
    pub fn query(&self, item: &[u8]) -> bool {
        self.find(fingerprint(item), item).is_some()
    }

    /// TOPK.COUNT: the largest count of the item's buckets holding its fingerprint; when the
    /// item is in the heap, only buckets at or above the heap's minimum count.
    pub fn count(&self, item: &[u8]) -> u32 {
        let mut buf = [0; FOUND_AT_ONCE as usize];
        let (fp, at) = self.rows.find(item, FINGERPRINT_SEED, &mut buf);
        let in_heap = self.find(fp, item).is_some();
        let heap_min = self.heap[0].count;
        with_row_indexes!(at, at => (0..at.rows())
            .map(|row| self.buckets[at.at(row)])
            .filter(|b| b.fp == fp && (!in_heap || b.count >= heap_min))
            .map(|b| b.count)
            .max()
            .unwrap_or(0))
    }

    /// TOPK.LIST: the heap by count, largest first (a stable order among equal counts, as
    /// RedisBloom's sort gave), up to the first entry with count 0. Each item as shown.
    pub fn list(&self) -> Vec<(&[u8], u32)> {
        let mut sorted: Vec<&Entry> = self.heap.iter().collect();
        sorted.sort_by_key(|e| std::cmp::Reverse(e.count));
        sorted
            .into_iter()
            .take_while(|e| e.count != 0)
            .map(|e| (e.shown().unwrap_or(&[]), e.count))
            .collect()
    }
}

/// Rolls the decay of `bucket`, held by another item, once per unit of `increment` of the
/// item with fingerprint `fp` in row `row`, until it reaches 0; the item then takes it with
/// the rest of its increment, which is returned. Each roll is one draw of [`uniform`];
/// within a run of rolls that leave the count as it is, the probability and the draw's
/// item part are worked out once, and a probability of 0 (`decay^count` below the
/// smallest double) skips the rest of the rolls, as no draw can be below it, while a
/// probability of 1 decays on every roll.
#[inline(always)]
fn decay(
    bucket: &mut Bucket,
    table: &DecayTable,
    rolls: &mut u64,
    fp: u32,
    row: u32,
    increment: u32,
) -> Option<u32> {
    let mut left = increment;
    while left > 0 {
        let p = table.probability(bucket.count);
        if p == 0.0 {
            *rolls = rolls.wrapping_add(left as u64);
            return None;
        }
        if p == 1.0 {
            // Only with a decay of 1 (a count above 0 has `decay^count < 1` otherwise):
            // every roll decays, down to 0 or to the end of the increment.
            let n = left.min(bucket.count);
            *rolls = rolls.wrapping_add(n as u64);
            bucket.count -= n;
            if bucket.count > 0 {
                return None;
            }
            bucket.fp = fp;
            bucket.count = left - n + 1;
            return Some(bucket.count);
        }
        let draws = Draws::new(fp, row, bucket.count);
        loop {
            let u = draws.at(*rolls);
            *rolls = rolls.wrapping_add(1);
            if u < p {
                break;
            }
            left -= 1;
            if left == 0 {
                return None;
            }
        }
        bucket.count -= 1;
        if bucket.count == 0 {
            bucket.fp = fp;
            bucket.count = left;
            return Some(left);
        }
        left -= 1;
    }
    None
}

impl TopK {
    /// Moves the bucket array and the heap array where `mover` says (active
    /// defragmentation). Contents stay as they are.
    pub fn relocate(&mut self, mover: &mut dyn Relocate) {
        relocate_vec(&mut self.buckets, mover);
        relocate_vec(&mut self.heap, mover);
    }
}
