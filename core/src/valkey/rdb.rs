//! valkey-bloom's RDB value for `bloomfltr` (encoding version 1), which DUMP / RESTORE carry
//! too: num_filters, expansion, fp_rate (double), tightening_ratio (double), is_seed_random
//! (1 / 0), then per sub-filter the crate's bytes and its capacity, and after the last one
//! its item count (earlier sub-filters are full: their count is their capacity).

use super::object::{
    plausible, plausible_rates, ValkeyBloom, FIXED_SEED, MAX_FILTERS, OBJECT_BYTES, SLOT_BYTES,
    SUBFILTER_BYTES,
};
use super::subfilter::{SubFilter, HEADER_BYTES};
use crate::error::{bad_data, Result, ValkeyError};
use crate::fields::{FieldSink, FieldSource};

/// The encoding version valkey-bloom registers `bloomfltr` with; later ones are refused.
pub const ENCODING_VERSION: i32 = 1;

pub fn save(bloom: &ValkeyBloom, sink: &mut dyn FieldSink) {
    let filters = bloom.filters();
    sink.put_u64(filters.len() as u64);
    sink.put_u64(bloom.expansion as u64);
    sink.put_f64(bloom.fp_rate);
    sink.put_f64(bloom.tightening);
    sink.put_u64(bloom.seed_random as u64);
    for (i, f) in filters.iter().enumerate() {
        sink.put_bytes(f.as_bytes());
        sink.put_u64(f.capacity as u64);
        if i + 1 == filters.len() {
            sink.put_u64(f.num_items as u64);
        }
    }
}

/// Reads a value, checking every field before it allocates. `limit` is
/// `bf.bloom-memory-usage-limit` for a client's RESTORE; None for the server's own data.
pub fn load(src: &mut dyn FieldSource, limit: Option<u64>) -> Result<ValkeyBloom> {
    let count = src.get_u64()?;
    if count == 0 || count > MAX_FILTERS as u64 {
        return Err(bad_data(format!("bloomfltr with {count} sub-filters")));
    }
    // valkey-bloom keeps the low 32 bits, and writes those back.
    let expansion = src.get_u64()? as u32;
    let fp_rate = src.get_f64()?;
    let tightening = src.get_f64()?;
    if !(fp_rate > 0.0 && fp_rate < 1.0) {
        return Err(bad_data(format!("bloomfltr error rate {fp_rate}")));
    }
    if !(0.0..1.0).contains(&tightening) {
        return Err(bad_data(format!("bloomfltr tightening ratio {tightening}")));
    }
    if !plausible_rates(fp_rate, tightening, count) {
        return Err(bad_data(format!(
            "bloomfltr of {count} sub-filters at error rate {fp_rate}, tightening {tightening}"
        )));
    }
    let seed_random = src.get_u64()? == 1;
    let mut filters: Vec<SubFilter> = Vec::new();
    let mut slots: u64 = 1;
    let mut used = OBJECT_BYTES + SLOT_BYTES;
    for i in 0..count {
        let mut loaded = None;
        src.with_bytes(&mut |bytes| {
            let bits = bytes.len().saturating_sub(HEADER_BYTES) as u64;
            used = used.saturating_add(SUBFILTER_BYTES + bits);
            if limit.is_some_and(|l| used > l) {
                return Err(ValkeyError::ExceedsMemoryLimit.into());
            }
            loaded = Some(SubFilter::decode(bytes, 0, 0)?);
            Ok(())
        })?;
        let mut filter = loaded.expect("decoded above");
        let capacity = src.get_u64()?;
        if capacity == 0 || capacity > i64::MAX as u64 {
            return Err(bad_data(format!(
                "bloomfltr sub-filter capacity {capacity}"
            )));
        }
        filter.capacity = capacity as i64;
        filter.num_items = if i + 1 == count {
            let n = src.get_u64()?;
            if n > i64::MAX as u64 {
                return Err(bad_data(format!("bloomfltr item count {n}")));
            }
            n as i64
        } else {
            capacity as i64
        };
        if !plausible(&filter, fp_rate) {
            return Err(bad_data(format!(
                "bloomfltr sub-filter of {} bytes claims capacity {} and {} items",
                filter.bitmap_bytes(),
                filter.capacity,
                filter.num_items
            )));
        }
        if !seed_random && filter.seed() != FIXED_SEED {
            return Err(bad_data("bloomfltr in fixed-seed mode with another seed"));
        }
        if filters.len() as u64 == slots {
            slots = (slots * 2).max(4);
            used = used.saturating_add((slots - filters.len() as u64) * SLOT_BYTES);
        }
        filters
            .try_reserve(1)
            .map_err(|_| bad_data("out of memory"))?;
        filters.push(filter);
    }
    Ok(ValkeyBloom::from_parts(
        expansion,
        fp_rate,
        tightening,
        seed_random,
        filters,
        slots,
    ))
}
