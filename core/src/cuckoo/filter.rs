//! The filter: sub-filters oldest first, RedisBloom's counters and parameters, and its
//! insert (with the kick sequence and growth), lookups, delete and compaction.
//!
//! Insert: the first empty slot of bucket `h1`, else `h2`, in the sub-filters newest to
//! oldest; else kick inside the newest one (below); else grow by one sub-filter of
//! `expansion` times the last one's buckets and put the item there. Kick: with the new
//! fingerprint in hand, start at bucket `h1 mod n`, victim slot 0; up to `max_iterations`
//! times swap the hand with the victim slot, move to `(bucket ^ evicted * 0x5bd1e995) mod n`
//! and stop there if it has an empty slot, else take the next victim slot. A walk that
//! fails is undone step by step, so the sub-filter is as it was. Nothing is random.

use super::hash::{alt_offset, CfHash};
use super::meta::{
    memory_for, next_buckets, CuckooMeta, MAX_BUCKETS, MAX_BUCKET_SIZE, MAX_FILTERS,
};
use super::sub_filter::SubFilter;
use crate::error::{check_limit, Error, Result};
use crate::memory::limit::GrowthLimit;
use crate::memory::relocate::{relocate_vec, Relocate};
use crate::shard::ShardPlace;
use compact::COMPACT_SHARE;

/// RedisBloom's defaults: a key created by CF.ADD / CF.INSERT, and CF.RESERVE's options.
pub const DEFAULT_CAPACITY: u64 = 1024;
pub const DEFAULT_BUCKET_SIZE: u8 = 2;
pub const DEFAULT_MAX_ITERATIONS: u16 = 20;
pub const DEFAULT_EXPANSION: u16 = 1;
/// RedisBloom's `CF_MAX_EXPANSIONS` default.
pub const DEFAULT_MAX_EXPANSIONS: u64 = 32;
/// The largest expansion CF.RESERVE accepts.
pub const MAX_EXPANSION: u16 = 32768;

/// What a filter may grow to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits<B = u64> {
    /// The most memory (as [`CuckooFilter::memory_bytes`] counts it) a filter may take:
    /// a number, or how to find it (asked only when the filter grows).
    pub bytes: B,
    /// The most sub-filters a filter may have (RedisBloom's `CF_MAX_EXPANSIONS`). RedisBloom
    /// checks it only once per command, so one CF.INSERT can grow far past it; here growth
    /// is refused at the bound, item by item.
    pub max_expansions: u64,
}

impl Limits<u64> {
    /// `bytes` of memory and RedisBloom's default of 32 sub-filters.
    pub fn new(bytes: u64) -> Limits {
        Limits {
            bytes,
            max_expansions: DEFAULT_MAX_EXPANSIONS,
        }
    }
}

/// A cuckoo filter with RedisBloom's semantics.
#[derive(Debug, Clone, PartialEq)]
pub struct CuckooFilter {
    pub(super) num_buckets: u64,
    pub(super) bucket_size: u8,
    pub(super) max_iterations: u16,
    pub(super) expansion: u16,
    pub(super) items: u64,
    pub(super) deletes: u64,
    pub(super) filters: Vec<SubFilter>,
    /// Its place when the filter is a shard: boxed, so a plain filter pays one pointer.
    pub(super) shard: Option<Box<ShardPlace>>,
}

impl CuckooFilter {
    /// Moves the filter's heap blocks (the sub-filter list, each one's slots) where `mover`
    /// says, for a server's active defragmentation. Contents stay as they are.
    pub fn relocate(&mut self, mover: &mut dyn Relocate) {
        relocate_vec(&mut self.filters, mover);
        for f in &mut self.filters {
            f.relocate(mover);
        }
    }

    /// A filter as CF.RESERVE creates it: `next_power_of_two(capacity / bucket_size)`
    /// buckets, the expansion rounded up to a power of two (0 stays 0: never grow).
    /// `TooLarge` over `limit`, before anything is allocated.
    pub fn new(
        capacity: u64,
        bucket_size: u8,
        max_iterations: u16,
        expansion: u16,
        limit: u64,
    ) -> Result<CuckooFilter> {
        if bucket_size == 0 {
            return Err(Error::CfBucketSizeRange {
                max: MAX_BUCKET_SIZE,
            });
        }
        if expansion > MAX_EXPANSION {
            return Err(Error::CfExpansionRange);
        }
        if capacity < 2 * bucket_size as u64 {
            return Err(Error::CfCannotCreateFilter);
        }
        let num_buckets = (capacity / bucket_size as u64)
            .checked_next_power_of_two()
            .filter(|&n| n <= MAX_BUCKETS)
            .ok_or(Error::CfTooManyBuckets)?;
        let expansion = if expansion == 0 {
            0
        } else {
            expansion.next_power_of_two()
        };
        check_limit(memory_for(1, num_buckets * bucket_size as u64), limit)?;
        Ok(CuckooFilter {
            num_buckets,
            bucket_size,
            max_iterations,
            expansion,
            items: 0,
            deletes: 0,
            filters: vec![SubFilter::zeroed(num_buckets, bucket_size)?],
            shard: None,
        })
    }

    /// Rebuilds a filter from parameters (validated here, with `limit`) with every slot
    /// empty; the caller fills the slots in (LOADCHUNK).
    pub fn from_meta(meta: &CuckooMeta, limit: u64) -> Result<CuckooFilter> {
        let sizes = meta.validate(limit)?;
        let bucket_size = meta.bucket_size as u8;
        let filters = sizes
            .iter()
            .map(|&n| SubFilter::zeroed(n, bucket_size))
            .collect::<Result<Vec<_>>>()?;
        CuckooFilter::from_parts(meta, filters)
    }

    /// A filter from validated parameters and sub-filters that already hold their slots.
    pub fn from_parts(meta: &CuckooMeta, filters: Vec<SubFilter>) -> Result<CuckooFilter> {
        let sizes = meta.validate(u64::MAX)?;
        let shapes_match = sizes.len() == filters.len()
            && sizes
                .iter()
                .zip(&filters)
                .all(|(&n, f)| f.buckets() == n && f.slots().len() as u64 == n * meta.bucket_size);
        if !shapes_match {
            return Err(Error::Internal);
        }
        Ok(CuckooFilter {
            num_buckets: meta.num_buckets,
            bucket_size: meta.bucket_size as u8,
            max_iterations: meta.max_iterations as u16,
            expansion: meta.expansion as u16,
            items: meta.items,
            deletes: meta.deletes,
            filters,
            shard: None,
        })
    }

    /// Makes the filter a shard at `place`.
    pub fn with_shard(mut self, place: ShardPlace) -> CuckooFilter {
        self.shard = Some(Box::new(place));
        self
    }

    /// The same filter as a plain one (tools that check the RedisBloom part alone).
    pub fn without_shard(mut self) -> CuckooFilter {
        self.shard = None;
        self
    }

    /// The filter's place when it is a shard.
    #[inline]
    pub fn shard(&self) -> Option<&ShardPlace> {
        self.shard.as_deref()
    }

    /// The parameters persistence formats store.
    pub fn meta(&self) -> CuckooMeta {
        CuckooMeta {
            num_buckets: self.num_buckets,
            items: self.items,
            deletes: self.deletes,
            bucket_size: self.bucket_size as u64,
            max_iterations: self.max_iterations as u64,
            expansion: self.expansion as u64,
            num_filters: self.filters.len() as u64,
        }
    }

    /// `CfMaxExpansions` when the filter already has `max_expansions` sub-filters or more:
    /// RedisBloom's check before any add-type command touches an item (so even an ADDNX of
    /// a present item is refused).
    pub fn check_expansions(&self, max_expansions: u64) -> Result<()> {
        if self.filters.len() as u64 >= max_expansions {
            return Err(Error::CfMaxExpansions);
        }
        Ok(())
    }

    /// Adds the item, even if it is there already (CF.ADD). Errors: `CfFull` when there is
    /// no room and the filter does not grow; `CfMaxExpansions`, `CfGrowthRefused` or
    /// `TooLarge` when growth is refused. The filter is unchanged on error.
    pub fn add<B: GrowthLimit>(&mut self, item: &[u8], limits: &Limits<B>) -> Result<()> {
        self.add_hash(CfHash::of(item), limits)
    }

    /// Adds the item unless it is (probably) there: `Ok(false)` if it was (CF.ADDNX).
    pub fn add_nx<B: GrowthLimit>(&mut self, item: &[u8], limits: &Limits<B>) -> Result<bool> {
        self.add_nx_hash(CfHash::of(item), limits)
    }

    /// [`CuckooFilter::add_nx`] for an already hashed item.
    pub fn add_nx_hash<B: GrowthLimit>(&mut self, h: CfHash, limits: &Limits<B>) -> Result<bool> {
        if self.contains_hash(h) {
            return Ok(false);
        }
        self.add_hash(h, limits).map(|()| true)
    }

    /// [`CuckooFilter::add`] for an already hashed item.
    pub fn add_hash<B: GrowthLimit>(&mut self, h: CfHash, limits: &Limits<B>) -> Result<()> {
        if self.place(h) || self.kick(h) {
            self.items = self.items.wrapping_add(1);
            return Ok(());
        }
        self.grow(limits)?;
        if self.place(h) {
            self.items = self.items.wrapping_add(1);
            return Ok(());
        }
        // A new sub-filter is empty: unreachable.
        Err(Error::Internal)
    }

    /// The first free slot of the item's buckets, newest sub-filter first.
    #[inline]
    fn place(&mut self, h: CfHash) -> bool {
        for f in self.filters.iter_mut().rev() {
            if let Some(at) = f.free_slot_for(h.h1, h.h2) {
                f.put(at, h.fp);
                return true;
            }
        }
        false
    }

    /// RedisBloom's kick walk in the newest sub-filter; undone if it finds no room. Only in
    /// sub-filters whose bucket count is a power of two: elsewhere (possible only in loaded
    /// data, never from commands) `(b ^ fp * M) mod n` is not the moved fingerprint's other
    /// bucket, and RedisBloom's walk there leaves fingerprints where no lookup finds them.
    /// Such a sub-filter takes items only into free slots; the filter grows sooner instead
    /// of losing an item it acknowledged.
    fn kick(&mut self, h: CfHash) -> bool {
        let bucket_size = self.bucket_size as usize;
        let steps = self.max_iterations;
        let Some(f) = self.filters.last_mut() else {
            return false;
        };
        if !f.xor_reversible() {
            return false;
        }
        let mut hand = h.fp;
        let mut b = f.index(h.h1);
        let mut victim = 0usize;
        for _ in 0..steps {
            hand = f.swap(b, victim, hand);
            b = f.index(b ^ alt_offset(hand));
            if let Some(at) = f.free_slot(b) {
                f.put(at, hand);
                return true;
            }
            victim = (victim + 1) % bucket_size;
        }
        // Undo in reverse order: each step puts the hand back where it came from and takes
        // up what had been put there (XOR by the same offset leads back).
        for _ in 0..steps {
            victim = (victim + bucket_size - 1) % bucket_size;
            b = f.index(b ^ alt_offset(hand));
            hand = f.swap(b, victim, hand);
        }
        debug_assert_eq!(hand, h.fp);
        false
    }

    /// Appends an empty sub-filter of `expansion` times the last one's buckets, if every
    /// bound allows it; checked before allocating.
    fn grow<B: GrowthLimit>(&mut self, limits: &Limits<B>) -> Result<()> {
        if self.expansion == 0 {
            return Err(Error::CfFull);
        }
        let count = self.filters.len() as u64;
        if count >= limits.max_expansions {
            return Err(Error::CfMaxExpansions);
        }
        let last = self.filters.last().map_or(0, SubFilter::buckets);
        let buckets = next_buckets(last, self.expansion as u64)
            .filter(|_| count < MAX_FILTERS)
            .ok_or(Error::CfGrowthRefused)?;
        let slot_bytes = self
            .slot_bytes()
            .saturating_add(buckets.saturating_mul(self.bucket_size as u64));
        check_limit(memory_for(count + 1, slot_bytes), limits.bytes.limit())?;
        self.filters
            .push(SubFilter::zeroed(buckets, self.bucket_size)?);
        Ok(())
    }

    /// The item is (probably) in the filter (CF.EXISTS).
    pub fn exists(&self, item: &[u8]) -> bool {
        self.contains_hash(CfHash::of(item))
    }

    /// [`CuckooFilter::exists`] for an already hashed item.
    #[inline]
    pub fn contains_hash(&self, h: CfHash) -> bool {
        self.filters.iter().rev().any(|f| f.contains(h))
    }

    /// Copies of the item's fingerprint in its buckets over all sub-filters (CF.COUNT):
    /// false positives and repeats included, a bucket that is both of its buckets twice.
    pub fn count(&self, item: &[u8]) -> u64 {
        self.count_hash(CfHash::of(item))
    }

    /// [`CuckooFilter::count`] for an already hashed item.
    pub fn count_hash(&self, h: CfHash) -> u64 {
        self.filters.iter().map(|f| f.count(h)).sum()
    }

    /// Removes one copy of the item's fingerprint, newest sub-filter first (CF.DEL);
    /// `false` if there was none. A false positive removes another item's copy. After a
    /// delete, a filter of several sub-filters whose deletes exceed 10 % of its items is
    /// compacted (stopping at the first sub-filter that cannot be emptied).
    pub fn delete(&mut self, item: &[u8]) -> bool {
        self.delete_hash(CfHash::of(item))
    }

    /// [`CuckooFilter::delete`] for an already hashed item.
    pub fn delete_hash(&mut self, h: CfHash) -> bool {
        if !self.filters.iter_mut().rev().any(|f| f.delete(h)) {
            return false;
        }
        // RedisBloom's counters: the item count wraps below 0 when loaded data held
        // fingerprints it did not count.
        self.items = self.items.wrapping_sub(1);
        self.deletes = self.deletes.wrapping_add(1);
        if self.filters.len() > 1 && self.deletes as f64 > self.items as f64 * COMPACT_SHARE {
            self.compact(false);
        }
        true
    }

    /// The sub-filters, oldest first.
    pub fn sub_filters(&self) -> &[SubFilter] {
        &self.filters
    }
    /// Buckets of sub-filter 0.
    pub fn num_buckets(&self) -> u64 {
        self.num_buckets
    }
    pub fn bucket_size(&self) -> u8 {
        self.bucket_size
    }
    pub fn max_iterations(&self) -> u16 {
        self.max_iterations
    }
    /// The expansion factor (a power of two for filters made by commands; 0: never grows).
    pub fn expansion(&self) -> u16 {
        self.expansion
    }
    /// RedisBloom's item counter: adds minus deletes (wraps below 0 as RedisBloom's does).
    pub fn items(&self) -> u64 {
        self.items
    }
    /// Deletes since the last compaction.
    pub fn deletes(&self) -> u64 {
        self.deletes
    }
    /// Bytes of all slot arrays (the SCANDUMP data stream).
    pub fn slot_bytes(&self) -> u64 {
        self.filters.iter().map(|f| f.slots().len() as u64).sum()
    }
    /// The filter's memory as RedisBloom reports it (`CF.INFO Size`; `MEMORY USAGE` adds the
    /// key's own overhead to it).
    pub fn memory_bytes(&self) -> u64 {
        memory_for(self.filters.len() as u64, self.slot_bytes())
    }
}

mod compact;
#[cfg(test)]
mod tests;
