//! valkey-bloom's scaling filter (its `BloomObject`): sub-filters of the `bloomfilter` crate,
//! each `expansion` times the previous one's capacity at the previous error rate times the
//! tightening ratio, all on the first one's seed. An item goes into the last sub-filter only
//! when no sub-filter has it.
//!
//! Sizes (BF.INFO SIZE, MEMORY USAGE, `bf.bloom-memory-usage-limit`) are valkey-bloom's own
//! arithmetic over its Rust structs, reproduced here with those structs' sizes, including the
//! capacity of its vector of sub-filters, which depends on how the object was made.

use super::subfilter::{bitmap_bytes, ItemHash, Seed, SubFilter};
use crate::error::{Result, ValkeyError};

/// `size_of` valkey-bloom's `BloomObject` (u32, two f64, bool, Vec).
pub const OBJECT_BYTES: u64 = 48;
/// `size_of` a `Box<BloomFilter>`.
pub const SLOT_BYTES: u64 = 8;
/// `size_of` valkey-bloom's `BloomFilter` (a Box and two i64) plus the crate's `Bloom<[u8]>`
/// (the tests check the latter against the crate).
pub const SUBFILTER_BYTES: u64 = 24 + CRATE_BLOOM_BYTES;
pub const CRATE_BLOOM_BYTES: u64 = 184;
/// valkey-bloom's bound on sub-filters per object.
pub const MAX_FILTERS: usize = i32::MAX as usize;

/// valkey-bloom's fixed seed (`bloom-use-random-seed no`).
pub const FIXED_SEED: Seed = [
    89, 15, 245, 34, 234, 120, 17, 218, 167, 20, 216, 9, 59, 62, 123, 217, 29, 137, 138, 115, 62,
    152, 136, 135, 48, 127, 151, 205, 40, 7, 51, 131,
];

/// The bytes valkey-bloom counts for a sub-filter of `capacity` at `fp` before making it;
/// None when no allocation could be that big (a capacity from hostile data).
pub fn subfilter_size(capacity: u64, fp: f64) -> Option<u64> {
    SUBFILTER_BYTES.checked_add(bitmap_bytes(capacity, fp))
}

/// The error rate of sub-filter `index`: refused when it is not above f64::MIN_POSITIVE
/// (or, from hostile data, not below 1, where no filter can be sized).
pub fn fp_rate_at(fp: f64, index: u64, tightening: f64) -> Result<f64> {
    let rate = fp * tightening.powi(index.min(i32::MAX as u64) as i32);
    if rate > f64::MIN_POSITIVE && rate < 1.0 {
        Ok(rate)
    } else {
        Err(ValkeyError::FpDegradesToZero.into())
    }
}

/// Whether a loaded sub-filter can be one valkey-bloom made in an object at error rate `fp`:
/// no more items than its capacity (it scales at capacity), and bits enough for that capacity
/// at `fp` (every sub-filter's rate is `fp` or tighter, which needs more bits). A count or
/// capacity beyond these is refused at load, before any arithmetic reads it.
pub fn plausible(f: &SubFilter, fp: f64) -> bool {
    f.num_items >= 0
        && f.num_items <= f.capacity
        && f.capacity >= 1
        && bitmap_bytes(f.capacity as u64, fp) <= f.bitmap_bytes()
}

/// Whether an object of `count` sub-filters at `fp` and `tightening` can exist: its last
/// sub-filter's error rate is one a filter can be made for.
pub fn plausible_rates(fp: f64, tightening: f64, count: u64) -> bool {
    fp_rate_at(fp, count.saturating_sub(1), tightening).is_ok()
}

/// A Rust `Vec`'s capacity after one push onto a full one (amortized growth, at least 4 for
/// 8-byte elements).
fn grown(capacity: u64) -> u64 {
    (capacity * 2).max(capacity + 1).max(4)
}

#[derive(Debug, Clone, PartialEq)]
pub struct ValkeyBloom {
    pub expansion: u32,
    pub fp_rate: f64,
    pub tightening: f64,
    pub seed_random: bool,
    filters: Vec<SubFilter>,
    /// The capacity valkey-bloom's vector of sub-filters would have.
    slots: u64,
}

/// What a create is given.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Shape {
    pub capacity: u64,
    pub fp_rate: f64,
    pub tightening: f64,
    pub expansion: u32,
    pub seed: Seed,
    pub seed_random: bool,
}

impl ValkeyBloom {
    /// A new filter; `limit` (bytes) for a client's create, None for a replicated one.
    pub fn create(shape: Shape, limit: Option<u64>) -> Result<ValkeyBloom> {
        let needed = subfilter_size(shape.capacity, shape.fp_rate)
            .and_then(|s| s.checked_add(OBJECT_BYTES + SLOT_BYTES))
            .ok_or(ValkeyError::ExceedsMemoryLimit)?;
        if limit.is_some_and(|l| needed > l) {
            return Err(ValkeyError::ExceedsMemoryLimit.into());
        }
        let first = SubFilter::new(shape.capacity, shape.fp_rate, &shape.seed)?;
        Ok(ValkeyBloom {
            expansion: shape.expansion,
            fp_rate: shape.fp_rate,
            tightening: shape.tightening,
            seed_random: shape.seed_random,
            filters: vec![first],
            slots: 1,
        })
    }

    /// An object from decoded parts (at least one sub-filter; the codecs check).
    pub(crate) fn from_parts(
        expansion: u32,
        fp_rate: f64,
        tightening: f64,
        seed_random: bool,
        filters: Vec<SubFilter>,
        slots: u64,
    ) -> ValkeyBloom {
        ValkeyBloom {
            expansion,
            fp_rate,
            tightening,
            seed_random,
            filters,
            slots,
        }
    }

    pub fn filters(&self) -> &[SubFilter] {
        &self.filters
    }

    /// The only sub-filter, while there is one (a batch's path for the common case).
    pub(super) fn only_mut(&mut self) -> Option<&mut SubFilter> {
        match self.filters.as_mut_slice() {
            [only] => Some(only),
            _ => None,
        }
    }

    pub fn seed(&self) -> Seed {
        self.filters[0].seed()
    }

    pub fn starting_capacity(&self) -> i64 {
        self.filters[0].capacity
    }

    /// The item's hash under the first sub-filter's keys, which every sub-filter valkey-bloom
    /// makes shares: one pair of SipHash calls per item per command, whatever the count.
    pub fn hash(&self, item: &[u8]) -> ItemHash {
        ItemHash::of(&self.filters[0], item)
    }

    /// Whether every sub-filter is keyed like the first, as valkey-bloom makes them (only
    /// loaded data can differ). Decided once per command: adds never change it, since a new
    /// sub-filter takes the first one's seed.
    pub(super) fn uniform(&self) -> bool {
        let first = &self.filters[0];
        self.filters.iter().all(|f| f.same_keys(first))
    }

    /// Whether the filter may hold `item`. Most absent items stop at their first bit
    /// position, as in the crate valkey-bloom checks with: one SipHash call, not two.
    pub fn exists(&self, item: &[u8]) -> bool {
        self.exists_one(item, self.uniform())
    }

    /// [`exists`](Self::exists), `uniform` being [`uniform`](Self::uniform)`()`; a filter
    /// keyed otherwise hashes the item under each sub-filter's keys, as the crate does.
    pub(super) fn exists_one(&self, item: &[u8], uniform: bool) -> bool {
        if !uniform {
            return self.filters.iter().any(|f| f.check(item));
        }
        let first = &self.filters[0];
        let h0 = ItemHash::first_half(first, item);
        if self.filters.iter().all(|f| !f.first_probe_set(h0)) {
            return false;
        }
        let hash = ItemHash::completed(first, item, h0);
        self.filters.iter().any(|f| f.check_hashed(hash))
    }

    /// Items added (earlier sub-filters count as full), wrapping as valkey-bloom's i64 sum.
    pub fn cardinality(&self) -> i64 {
        self.filters
            .iter()
            .fold(0i64, |sum, f| sum.wrapping_add(f.num_items))
    }

    pub fn capacity(&self) -> i64 {
        self.filters
            .iter()
            .fold(0i64, |sum, f| sum.wrapping_add(f.capacity))
    }

    /// valkey-bloom's memory usage (BF.INFO SIZE, MEMORY USAGE).
    pub fn memory_usage(&self) -> u64 {
        OBJECT_BYTES
            + self.slots * SLOT_BYTES
            + self
                .filters
                .iter()
                .map(|f| SUBFILTER_BYTES + f.bitmap_bytes())
                .sum::<u64>()
    }

    /// A copy as valkey-bloom's COPY makes it (same vector capacity).
    pub fn copy(&self) -> ValkeyBloom {
        self.clone()
    }

    /// Adds `item`: Ok(true) when added, Ok(false) when some sub-filter already has it.
    /// `limit` is the memory limit for a client's write, None for a replicated one.
    pub fn add(&mut self, item: &[u8], limit: Option<u64>) -> Result<bool> {
        let hash = self.hash(item);
        match self.uniform() {
            true => self.add_uniform(hash, limit),
            false => self.add_keyed_otherwise(item, hash, limit),
        }
    }

    /// [`add`](Self::add) to a [`uniform`](Self::uniform) filter, `hash` being the item's
    /// (every sub-filter's, so the item's bytes are not needed).
    pub(super) fn add_uniform(&mut self, hash: ItemHash, limit: Option<u64>) -> Result<bool> {
        let (last, earlier) = self.filters.split_last_mut().expect("a sub-filter");
        if earlier.iter().any(|f| f.check_hashed(hash)) {
            return Ok(false);
        }
        // Setting the bits of an item the last sub-filter has already changes nothing: one
        // pass over its bit positions both checks and sets.
        if last.num_items < last.capacity {
            if last.test_and_set(hash) {
                return Ok(false);
            }
            last.num_items += 1;
            return Ok(true);
        }
        if last.check_hashed(hash) {
            return Ok(false);
        }
        self.scale_with(hash, limit)
    }

    /// [`add`](Self::add) to a filter keyed otherwise (only loaded data): each sub-filter
    /// hashes the item under its own keys; `hash` is the item's under the first one's.
    pub(super) fn add_keyed_otherwise(
        &mut self,
        item: &[u8],
        hash: ItemHash,
        limit: Option<u64>,
    ) -> Result<bool> {
        if self.filters.iter().any(|f| f.check(item)) {
            return Ok(false);
        }
        let last = self.filters.last_mut().expect("at least one sub-filter");
        if last.num_items < last.capacity {
            last.set(item);
            last.num_items += 1;
            return Ok(true);
        }
        self.scale_with(hash, limit)
    }

    /// A new sub-filter holding the item (`hash` under the first sub-filter's keys, which
    /// the new one takes), when the last one is full and the rules allow one.
    fn scale_with(&mut self, hash: ItemHash, limit: Option<u64>) -> Result<bool> {
        let count = self.filters.len();
        let last = self.filters.last().expect("at least one sub-filter");
        if self.expansion == 0 {
            return Err(ValkeyError::NonScalingFull.into());
        }
        if count >= MAX_FILTERS {
            return Err(ValkeyError::MaxFilters.into());
        }
        let rate = fp_rate_at(self.fp_rate, count as u64, self.tightening)?;
        let capacity = last
            .capacity
            .checked_mul(self.expansion as i64)
            .ok_or(ValkeyError::BadCapacity)?;
        if capacity <= 0 {
            return Err(ValkeyError::BadCapacity.into());
        }
        let needed = subfilter_size(capacity as u64, rate)
            .and_then(|s| s.checked_add(self.memory_usage()))
            .ok_or(ValkeyError::ExceedsMemoryLimit)?;
        if limit.is_some_and(|l| needed > l) {
            return Err(ValkeyError::ExceedsMemoryLimit.into());
        }
        // The new sub-filter takes the first one's seed, so `hash` is its hash too.
        let mut next = SubFilter::new(capacity as u64, rate, &self.seed())?;
        next.set_hashed(hash);
        next.num_items = 1;
        self.filters
            .try_reserve(1)
            .map_err(|_| crate::error::Error::AllocFailed { bytes: SLOT_BYTES })?;
        if self.filters.len() as u64 >= self.slots {
            self.slots = grown(self.slots);
        }
        self.filters.push(next);
        Ok(true)
    }
}

/// The total capacity this shape reaches before a sub-filter would pass `limit` bytes or its
/// error rate would degrade to 0 (`scale_to` None: BF.INFO's MAXSCALEDCAPACITY); with
/// `Some(target)`, whether `target` is reached (BF.INSERT VALIDATESCALETO).
pub fn max_scaled_capacity(
    capacity: i64,
    fp: f64,
    scale_to: Option<i64>,
    tightening: f64,
    expansion: u32,
    limit: u64,
) -> Result<i64> {
    let mut filter_capacity = capacity;
    let mut total: i64 = 0;
    let mut count: u64 = 0;
    let mut filters_bytes: u64 = 0;
    while scale_to.is_none_or(|t| total < t) {
        let rate = fp * tightening.powi(count.min(i32::MAX as u64) as i32);
        if rate <= f64::MIN_POSITIVE || rate.is_nan() {
            return match scale_to {
                None => Ok(total),
                Some(_) => Err(ValkeyError::ScaleToFpDegrades.into()),
            };
        }
        let size = SUBFILTER_BYTES + bitmap_bytes(filter_capacity.max(1) as u64, rate.min(0.99));
        let slots = if count == 0 {
            1
        } else {
            (count + 1).max(4).next_power_of_two()
        };
        if OBJECT_BYTES + slots * SLOT_BYTES + filters_bytes + size > limit {
            return match scale_to {
                None => Ok(total),
                Some(_) => Err(ValkeyError::ScaleToExceedsMemoryLimit.into()),
            };
        }
        filters_bytes += size;
        total = total.wrapping_add(filter_capacity);
        filter_capacity = filter_capacity
            .checked_mul(expansion as i64)
            .ok_or(ValkeyError::BadCapacity)?;
        count += 1;
    }
    Ok(total)
}
