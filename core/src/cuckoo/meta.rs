//! A cuckoo filter's parameters without its slots, as the RDB value and the SCANDUMP header
//! carry them; the sub-filter geometry they imply; the memory RedisBloom reports for them;
//! and the checks a persisted or received filter must pass before anything is allocated.

use crate::error::{bad_data, check_limit, Result};

/// The most buckets a sub-filter may have (RedisBloom's bound, 2^56 - 1).
pub const MAX_BUCKETS: u64 = (1 << 56) - 1;
/// The most sub-filters a filter may have: RedisBloom keeps the count in 16 bits.
pub const MAX_FILTERS: u64 = u16::MAX as u64;
/// The largest bucket size; fingerprints are bytes, and RedisBloom's commands stop here.
pub const MAX_BUCKET_SIZE: u64 = 255;
/// `Size` and `MEMORY USAGE` count RedisBloom's filter struct and each sub-filter struct at
/// these sizes (64-bit builds), plus one byte per slot.
pub const FILTER_BYTES: u64 = 40;
pub const SUB_FILTER_BYTES: u64 = 16;

/// The parameters both formats carry, as they come: nothing here is trusted until
/// [`CuckooMeta::validate`] has passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CuckooMeta {
    /// Buckets of sub-filter 0; sub-filter `k` has `num_buckets * expansion^k`.
    pub num_buckets: u64,
    /// RedisBloom's running counters: items added minus deleted (may have wrapped below 0)
    /// and deletes since the last compaction. Neither is checked against the slots.
    pub items: u64,
    pub deletes: u64,
    pub bucket_size: u64,
    pub max_iterations: u64,
    pub expansion: u64,
    pub num_filters: u64,
}

/// The memory of a filter with `filters` sub-filters and `slot_bytes` slots in all: the
/// figure `CF.INFO Size` and `MEMORY USAGE` report, and the one the size limit bounds.
pub fn memory_for(filters: u64, slot_bytes: u64) -> u64 {
    FILTER_BYTES
        .saturating_add(filters.saturating_mul(SUB_FILTER_BYTES))
        .saturating_add(slot_bytes)
}

/// Buckets of the sub-filter after one with `buckets`, or `None` past [`MAX_BUCKETS`] (or
/// for expansion 0, which never grows).
pub fn next_buckets(buckets: u64, expansion: u64) -> Option<u64> {
    buckets
        .checked_mul(expansion)
        .filter(|&n| (1..=MAX_BUCKETS).contains(&n))
}

impl CuckooMeta {
    /// Checks everything the parameters claim, before a byte is allocated: each field's
    /// range, the geometry of every sub-filter, and the total size against `limit`. Returns
    /// the bucket count of each sub-filter, oldest first.
    pub fn validate(&self, limit: u64) -> Result<Vec<u64>> {
        if self.bucket_size == 0 || self.bucket_size > MAX_BUCKET_SIZE {
            return Err(bad_data("bucket size out of range"));
        }
        if self.max_iterations > u16::MAX as u64 {
            return Err(bad_data("max iterations out of range"));
        }
        if self.expansion > u16::MAX as u64 {
            return Err(bad_data("expansion out of range"));
        }
        if self.num_filters == 0 || self.num_filters > MAX_FILTERS {
            return Err(bad_data("bad number of sub-filters"));
        }
        if self.num_buckets == 0 || self.num_buckets > MAX_BUCKETS {
            return Err(bad_data("bad number of buckets"));
        }
        // Each sub-filter costs its struct and at least one slot: a count the limit cannot
        // hold is refused before the geometry is walked.
        check_limit(memory_for(self.num_filters, self.num_filters), limit)?;
        let mut sizes = Vec::with_capacity(self.num_filters as usize);
        let mut buckets = self.num_buckets;
        let mut slot_bytes = 0u64;
        for k in 0..self.num_filters {
            if k > 0 {
                buckets = next_buckets(buckets, self.expansion)
                    .ok_or_else(|| bad_data(format!("sub-filter {k}: bad number of buckets")))?;
            }
            slot_bytes = slot_bytes.saturating_add(buckets.saturating_mul(self.bucket_size));
            check_limit(memory_for(self.num_filters, slot_bytes), limit)?;
            sizes.push(buckets);
        }
        Ok(sizes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    const NO_LIMIT: u64 = u64::MAX;

    fn good() -> CuckooMeta {
        CuckooMeta {
            num_buckets: 64,
            items: 10,
            deletes: 1,
            bucket_size: 4,
            max_iterations: 20,
            expansion: 2,
            num_filters: 3,
        }
    }

    #[test]
    fn geometry_follows_the_expansion() {
        assert_eq!(good().validate(NO_LIMIT).unwrap(), vec![64, 128, 256]);
        let odd = CuckooMeta {
            num_buckets: 4,
            expansion: 3,
            ..good()
        };
        assert_eq!(odd.validate(NO_LIMIT).unwrap(), vec![4, 12, 36]);
        // The exact figure is accepted, one byte less is not.
        let needed = memory_for(3, (64 + 128 + 256) * 4);
        assert!(good().validate(needed).is_ok());
        assert_eq!(
            good().validate(needed - 1),
            Err(Error::TooLarge {
                needed,
                limit: needed - 1
            })
        );
    }

    #[test]
    fn validation_rejects_inconsistent_meta() {
        let cases: Vec<fn(&mut CuckooMeta)> = vec![
            |m| m.bucket_size = 0,
            |m| m.bucket_size = 256,
            |m| m.max_iterations = 65536,
            |m| m.expansion = 65536,
            |m| m.num_filters = 0,
            |m| m.num_filters = MAX_FILTERS + 1,
            |m| m.num_buckets = 0,
            |m| m.num_buckets = MAX_BUCKETS + 1,
            |m| m.expansion = 0,
            |m| m.num_buckets = 1 << 55,
            |m| {
                m.expansion = 65535;
                m.num_filters = 5;
            },
            |m| {
                m.num_filters = MAX_FILTERS;
                m.num_buckets = 1 << 20;
                m.expansion = 1;
            },
        ];
        for (i, mutate) in cases.iter().enumerate() {
            let mut m = good();
            mutate(&mut m);
            assert!(m.validate(1 << 30).is_err(), "case {i} accepted");
        }
        // Counters are RedisBloom's running figures, never checked.
        let wrapped = CuckooMeta {
            items: u64::MAX,
            deletes: u64::MAX,
            ..good()
        };
        assert!(wrapped.validate(NO_LIMIT).is_ok());
    }
}
