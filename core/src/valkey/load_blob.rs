//! BF.LOAD's value: what valkey-bloom's AOF rewrite emits for a `bloomfltr` key. Byte 1 (the
//! object version), then bincode 1's default encoding (fixed-width little-endian integers)
//! of (u32 expansion, f64 fp_rate, f64 tightening_ratio, bool is_seed_random, a u64-counted
//! sequence of sub-filters), each sub-filter the crate's bytes (u64 length first), i64
//! num_items, i64 capacity. Bytes after the last sub-filter are ignored, as bincode does.

use super::object::{plausible, plausible_rates, ValkeyBloom, MAX_FILTERS};
use super::subfilter::{SubFilter, HEADER_BYTES};
use crate::error::{Result, ValkeyError};

const OBJECT_VERSION: u8 = 1;

pub fn encode(bloom: &ValkeyBloom) -> Vec<u8> {
    let filters = bloom.filters();
    let size: usize = filters.iter().map(|f| 24 + f.as_bytes().len()).sum();
    let mut out = Vec::with_capacity(1 + 4 + 8 + 8 + 1 + 8 + size);
    out.push(OBJECT_VERSION);
    out.extend_from_slice(&bloom.expansion.to_le_bytes());
    out.extend_from_slice(&bloom.fp_rate.to_le_bytes());
    out.extend_from_slice(&bloom.tightening.to_le_bytes());
    out.push(bloom.seed_random as u8);
    out.extend_from_slice(&(filters.len() as u64).to_le_bytes());
    for f in filters {
        out.extend_from_slice(&(f.as_bytes().len() as u64).to_le_bytes());
        out.extend_from_slice(f.as_bytes());
        out.extend_from_slice(&f.num_items.to_le_bytes());
        out.extend_from_slice(&f.capacity.to_le_bytes());
    }
    out
}

struct Cursor<'a>(&'a [u8]);

impl<'a> Cursor<'a> {
    fn take(&mut self, n: u64) -> Result<&'a [u8]> {
        if n > self.0.len() as u64 {
            return Err(ValkeyError::DecodeFailed.into());
        }
        let (head, rest) = self.0.split_at(n as usize);
        self.0 = rest;
        Ok(head)
    }
    fn array<const N: usize>(&mut self) -> Result<[u8; N]> {
        Ok(self.take(N as u64)?.try_into().expect("N bytes"))
    }
}

/// Decodes a blob, refusing it as valkey-bloom does (its errors, in its order), and also
/// what would crash valkey-bloom (no sub-filter, a capacity or count below 0 or 1).
/// `limit`: `bf.bloom-memory-usage-limit` for a client's BF.LOAD, None for AOF replay.
pub fn decode(blob: &[u8], limit: Option<u64>) -> Result<ValkeyBloom> {
    let Some((&version, rest)) = blob.split_first() else {
        return Err(ValkeyError::DecodeFailed.into());
    };
    if version != OBJECT_VERSION {
        return Err(ValkeyError::DecodeUnsupportedVersion.into());
    }
    let mut c = Cursor(rest);
    let expansion = u32::from_le_bytes(c.array()?);
    let fp_rate = f64::from_le_bytes(c.array()?);
    let tightening = f64::from_le_bytes(c.array()?);
    let seed_random = match c.array::<1>()?[0] {
        0 => false,
        1 => true,
        _ => return Err(ValkeyError::DecodeFailed.into()),
    };
    let count = u64::from_le_bytes(c.array()?);
    // Each sub-filter takes at least 24 + 46 bytes: a count the blob cannot hold is refused
    // before anything is reserved for it.
    if count > (c.0.len() / (24 + HEADER_BYTES + 1)) as u64 {
        return Err(ValkeyError::DecodeFailed.into());
    }
    let mut filters = Vec::with_capacity(count as usize);
    for _ in 0..count {
        let len = u64::from_le_bytes(c.array()?);
        let bytes = c.take(len)?;
        let num_items = i64::from_le_bytes(c.array()?);
        let capacity = i64::from_le_bytes(c.array()?);
        if num_items < 0 || capacity < 1 {
            return Err(ValkeyError::DecodeFailed.into());
        }
        filters.push(
            SubFilter::decode(bytes, num_items, capacity).map_err(|_| ValkeyError::DecodeFailed)?,
        );
    }
    if !(fp_rate > 0.0 && fp_rate < 1.0) {
        return Err(ValkeyError::ErrorRateRange.into());
    }
    if !(tightening > 0.0 && tightening < 1.0) {
        return Err(ValkeyError::ErrorRateRange.into());
    }
    // Counts, capacities and rates no valkey-bloom filter can hold (rsbloom's refusal:
    // valkey-bloom takes them and fails later).
    if !filters.iter().all(|f| plausible(f, fp_rate))
        || !plausible_rates(fp_rate, tightening, count)
    {
        return Err(ValkeyError::DecodeFailed.into());
    }
    if filters.len() >= MAX_FILTERS {
        return Err(ValkeyError::MaxFilters.into());
    }
    if filters.is_empty() {
        return Err(ValkeyError::DecodeFailed.into());
    }
    let bloom =
        ValkeyBloom::from_parts(expansion, fp_rate, tightening, seed_random, filters, count);
    if limit.is_some_and(|l| bloom.memory_usage() > l) {
        return Err(ValkeyError::ExceedsMemoryLimit.into());
    }
    Ok(bloom)
}
