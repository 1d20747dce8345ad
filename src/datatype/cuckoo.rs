//! The cuckoo filter type, `MBbloomCF`: RedisBloom's name and encoding version 4, so its
//! RDB files, DUMP payloads and AOFs load here and go back to RedisBloom.
//!
//! Values of encoding versions 0-3 (RedisBloom before v2.2) load too, as RedisBloom loads
//! them: bucket size 2, 20 iterations, expansion 1, no deletes and every sub-filter of the
//! first one's bucket count; they are written back as version 4.

use std::ffi::CStr;

use redis_module::native_types::RedisType;
use rsbloom_core::cuckoo::codec::{rdb, scandump};
use rsbloom_core::cuckoo::filter::{DEFAULT_EXPANSION, DEFAULT_MAX_ITERATIONS};
use rsbloom_core::cuckoo::sub_filter::SubFilter;
use rsbloom_core::cuckoo::{CuckooFilter, CuckooMeta};
use rsbloom_core::error::{bad_data, Result};
use rsbloom_core::fields::{FieldSink, FieldSource};

use super::{methods, ValueType};

/// The Redis type of cuckoo filters.
pub struct CuckooType;

/// The bucket size every legacy (encoding 0-3) value has.
const LEGACY_BUCKET_SIZE: u64 = 2;

pub static CUCKOO_TYPE: RedisType = RedisType::new(
    CuckooType::NAME,
    CuckooType::ENCODING_VERSION,
    methods::<CuckooType>(),
);

/// A value of encoding 0-3: `numFilters`, `numBuckets`, `numItems`, then each sub-filter's
/// slots. Checked against `limit` before the first slot array is read.
fn load_legacy(src: &mut dyn FieldSource, limit: u64) -> Result<CuckooFilter> {
    let meta = CuckooMeta {
        num_filters: src.get_u64()?,
        num_buckets: src.get_u64()?,
        items: src.get_u64()?,
        deletes: 0,
        bucket_size: LEGACY_BUCKET_SIZE,
        max_iterations: DEFAULT_MAX_ITERATIONS as u64,
        expansion: DEFAULT_EXPANSION as u64,
    };
    let sizes = meta.validate(limit)?;
    let mut filters = Vec::with_capacity(sizes.len());
    for (k, &buckets) in sizes.iter().enumerate() {
        let mut slots = Vec::new();
        src.with_bytes(&mut |bytes| {
            if bytes.len() as u64 != buckets * LEGACY_BUCKET_SIZE {
                return Err(bad_data(format!(
                    "sub-filter {k}: {} slot bytes for {buckets} buckets of {LEGACY_BUCKET_SIZE}",
                    bytes.len()
                )));
            }
            slots = bytes.to_vec();
            Ok(())
        })?;
        filters.push(SubFilter::from_slots(
            buckets,
            LEGACY_BUCKET_SIZE as u8,
            slots,
        )?);
    }
    CuckooFilter::from_parts(&meta, filters)
}

impl ValueType for CuckooType {
    type Value = CuckooFilter;
    const NAME: &'static str = "MBbloomCF";
    const ENCODING_VERSION: i32 = rdb::ENCODING_VERSION;
    const LOADCHUNK: &'static CStr = c"CF.LOADCHUNK";

    fn load(src: &mut dyn FieldSource, encver: i32, limit: u64) -> Result<CuckooFilter> {
        match encver {
            0..=3 => load_legacy(src, limit),
            _ => rdb::load(src, encver, limit),
        }
    }

    fn save(filter: &CuckooFilter, out: &mut dyn FieldSink) {
        rdb::save(filter, out)
    }

    /// The header, then the slot arrays as SCANDUMP cuts them; also for a filter that
    /// counts no items (SCANDUMP gives nothing for those), as RedisBloom's rewrite does.
    fn chunks(filter: &CuckooFilter, max_chunk: u64, emit: &mut dyn FnMut(i64, &[u8])) {
        for (iter, data) in scandump::load_calls(filter, max_chunk) {
            emit(iter, &data);
        }
    }

    fn memory(filter: &CuckooFilter) -> usize {
        filter.memory_bytes() as usize
    }

    /// The SCANDUMP header, then each sub-filter's slots.
    fn digest(filter: &CuckooFilter, add: &mut dyn FnMut(&[u8])) {
        add(&scandump::encode_header(&filter.meta()));
        for f in filter.sub_filters() {
            add(f.slots());
        }
    }
}
