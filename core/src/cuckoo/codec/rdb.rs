//! RedisBloom's RDB value of an `MBbloomCF` filter, encoding version 4, written back byte
//! for byte. Fields: `numFilters`, `numBuckets` (sub-filter 0), `numItems`, `numDeletes`,
//! `bucketSize`, `maxIterations`, `expansion`, then per sub-filter, oldest first, its bucket
//! count and its slots as one string.
//!
//! RedisBloom validates little here (a bucket size of 0 loads and crashes the next add; a
//! short slot string aborts). Every field is checked instead, and the sub-filters' bucket
//! counts must follow the geometry (`numBuckets * expansion^k`) RedisBloom always gives
//! them. Bucket counts that are not powers of two, 0 iterations and odd expansions load, as
//! in RedisBloom: they work, with plain remainders.

use crate::cuckoo::filter::{DEFAULT_EXPANSION, DEFAULT_MAX_ITERATIONS};
use crate::cuckoo::sub_filter::SubFilter;
use crate::cuckoo::{CuckooFilter, CuckooMeta};
use crate::error::{bad_data, Result};
use crate::fields::{FieldSink, FieldSource};
use crate::memory::fallible;

/// RedisBloom's type name for cuckoo filters (part of every RDB and DUMP payload).
pub const TYPE_NAME: &str = "MBbloomCF";
/// The encoding version RedisBloom v2.8 writes; the only one [`load`] reads. Versions 0-3
/// (no per-sub-filter bucket counts, implied parameters) are read by [`load_legacy`].
pub const ENCODING_VERSION: i32 = 4;

/// The bucket size every legacy (encoding 0-3) value has.
const LEGACY_BUCKET_SIZE: u64 = 2;

/// Writes the RDB value.
pub fn save(filter: &CuckooFilter, out: &mut dyn FieldSink) {
    let m = filter.meta();
    for v in [
        m.num_filters,
        m.num_buckets,
        m.items,
        m.deletes,
        m.bucket_size,
        m.max_iterations,
        m.expansion,
    ] {
        out.put_u64(v);
    }
    for f in filter.sub_filters() {
        out.put_u64(f.buckets());
        out.put_bytes(f.slots());
    }
}

/// Reads an RDB value of encoding `version`. The parameters are checked against each other
/// and the whole filter's size against `limit` before the first slot array is copied.
pub fn load(src: &mut dyn FieldSource, version: i32, limit: u64) -> Result<CuckooFilter> {
    if version != ENCODING_VERSION {
        return Err(bad_data(format!(
            "RedisBloom cuckoo filter encoding version {version} is not supported (only \
             {ENCODING_VERSION})"
        )));
    }
    let num_filters = src.get_u64()?;
    let meta = CuckooMeta {
        num_filters,
        num_buckets: src.get_u64()?,
        items: src.get_u64()?,
        deletes: src.get_u64()?,
        bucket_size: src.get_u64()?,
        max_iterations: src.get_u64()?,
        expansion: src.get_u64()?,
    };
    read_sub_filters(src, &meta, limit, true)
}

/// Reads a value of encoding 0-3 (RedisBloom before v2.2), as RedisBloom loads it:
/// `numFilters`, `numBuckets`, `numItems`, then each sub-filter's slots; bucket size 2,
/// 20 iterations, expansion 1, no deletes, every sub-filter of the first one's bucket count.
/// Checked against `limit` before the first slot array is read.
pub fn load_legacy(src: &mut dyn FieldSource, limit: u64) -> Result<CuckooFilter> {
    let meta = CuckooMeta {
        num_filters: src.get_u64()?,
        num_buckets: src.get_u64()?,
        items: src.get_u64()?,
        deletes: 0,
        bucket_size: LEGACY_BUCKET_SIZE,
        max_iterations: DEFAULT_MAX_ITERATIONS as u64,
        expansion: DEFAULT_EXPANSION as u64,
    };
    read_sub_filters(src, &meta, limit, false)
}

/// The sub-filters `meta` announces, each its slot string, preceded by its bucket count
/// when `counted` (version 4), which must be the one the geometry gives.
fn read_sub_filters(
    src: &mut dyn FieldSource,
    meta: &CuckooMeta,
    limit: u64,
    counted: bool,
) -> Result<CuckooFilter> {
    let sizes = meta.validate(limit)?;
    let bucket_size = meta.bucket_size as u8;
    let mut filters = Vec::with_capacity(sizes.len());
    for (k, &buckets) in sizes.iter().enumerate() {
        if counted {
            let claimed = src.get_u64()?;
            if claimed != buckets {
                return Err(bad_data(format!(
                    "sub-filter {k}: {claimed} buckets where the geometry gives {buckets}"
                )));
            }
        }
        let mut slots = Vec::new();
        src.with_bytes(&mut |bytes| {
            if bytes.len() as u64 != buckets * meta.bucket_size {
                return Err(bad_data(format!(
                    "sub-filter {k}: {} slot bytes for {buckets} buckets of {}",
                    bytes.len(),
                    meta.bucket_size
                )));
            }
            slots = fallible::copied(bytes)?;
            Ok(())
        })?;
        filters.push(SubFilter::from_slots(buckets, bucket_size, slots)?);
    }
    CuckooFilter::from_parts(meta, filters)
}
