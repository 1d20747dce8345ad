//! RedisBloom's SCANDUMP / LOADCHUNK protocol for cuckoo filters.
//!
//! Iterator 0 asks for the header, which comes back with iterator 1. Iterator `it >= 1`
//! asks for the chunk at stream byte `it - 1` (the slot arrays end to end, oldest first;
//! see [`CuckooFilter::read_chunk`] for how RedisBloom cuts it) and comes back with `it` plus
//! the chunk's length. Past the end the answer is `(0, null)`, and a filter whose item count
//! is 0 answers `(0, null)` at once. LOADCHUNK receives the iterator SCANDUMP returned
//! after a chunk, so that chunk starts at `it - 1 - len`.
//!
//! Header (38 bytes, packed, little-endian): u64 numItems, u64 numBuckets, u64 numDeletes,
//! u64 numFilters, u16 bucketSize, u16 maxIterations, u16 expansion.

use std::borrow::Cow;

use super::sharded;
use crate::cuckoo::meta::MAX_BUCKETS;
use crate::cuckoo::{CuckooFilter, CuckooMeta};
use crate::error::{Error, Result};
use crate::fields::Packed;
use crate::shard::ShardPlace;

pub const HEADER_LEN: usize = 38;
/// RedisBloom's chunk size: sub-filters up to this size come back whole.
pub const MAX_CHUNK: u64 = 16 << 20;

/// The SCANDUMP header of a filter with these parameters.
pub fn encode_header(meta: &CuckooMeta) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER_LEN);
    for v in [meta.items, meta.num_buckets, meta.deletes, meta.num_filters] {
        out.extend_from_slice(&v.to_le_bytes());
    }
    // Validated or created parameters: all below 2^16.
    for v in [meta.bucket_size, meta.max_iterations, meta.expansion] {
        out.extend_from_slice(&(v as u16).to_le_bytes());
    }
    out
}

/// Who sends a LOADCHUNK call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sender {
    /// A user: RedisBloom's header checks, refusals included.
    User,
    /// The server replaying its own writes (the AOF at load, a primary's stream): an AOF
    /// rewrite emits headers of filters that came from an RDB or a RESTORE, which may have
    /// a bucket count that is not a power of two or 0 iterations (RedisBloom's loader takes
    /// both, its LOADCHUNK neither). Refusing them here would lose the key on a restart, so
    /// only what makes a valid filter is checked.
    Server,
}

/// Parses and checks a user's header: `CfInvalidHeader` unless 38 bytes, `CfCannotCreate`
/// for parameters RedisBloom refuses or that do not make a filter, `TooLarge` over `limit`.
/// As in RedisBloom, the sub-filter count is read in 16 bits (65537 is 1), and the counters
/// are taken as they are.
pub fn decode_header(bytes: &[u8], limit: u64) -> Result<CuckooMeta> {
    decode_header_from(bytes, limit, Sender::User)
}

/// [`decode_header`] with the checks for `sender`.
pub fn decode_header_from(bytes: &[u8], limit: u64, sender: Sender) -> Result<CuckooMeta> {
    if bytes.len() != HEADER_LEN {
        return Err(Error::CfInvalidHeader);
    }
    let mut p = Packed(bytes);
    let meta = CuckooMeta {
        items: p.u64(),
        num_buckets: p.u64(),
        deletes: p.u64(),
        num_filters: p.u64() as u16 as u64,
        bucket_size: p.u16(),
        max_iterations: p.u16(),
        expansion: p.u16(),
    };
    let refused = !(1..=255).contains(&meta.bucket_size)
        || !(1..=MAX_BUCKETS).contains(&meta.num_buckets)
        || meta.num_filters == 0
        || (meta.expansion == 0 && meta.num_filters > 1);
    let user_refused = !meta.num_buckets.is_power_of_two() || meta.max_iterations == 0;
    if refused || (sender == Sender::User && user_refused) {
        return Err(Error::CfCannotCreate);
    }
    match meta.validate(limit) {
        Ok(_) => Ok(meta),
        Err(e @ Error::TooLarge { .. }) => Err(e),
        Err(_) => Err(Error::CfCannotCreate),
    }
}

/// One SCANDUMP step: the next iterator and the bytes, `None` for RedisBloom's null.
/// `CfInvalidPosition` for a negative iterator.
pub fn dump_step(
    filter: &CuckooFilter,
    iter: i64,
    max_chunk: u64,
) -> Result<(i64, Option<Cow<'_, [u8]>>)> {
    if iter < 0 {
        return Err(Error::CfInvalidPosition);
    }
    if filter.items() == 0 {
        return Ok((0, None));
    }
    Ok(step(filter, iter, max_chunk))
}

/// A step without the empty-filter shortcut (which SCANDUMP has and the AOF rewrite has
/// not). `iter` is not negative.
fn step(filter: &CuckooFilter, iter: i64, max_chunk: u64) -> (i64, Option<Cow<'_, [u8]>>) {
    if iter == 0 {
        return (1, Some(Cow::Owned(sharded::header_of(filter))));
    }
    let chunk = filter.read_chunk(iter as u64 - 1, max_chunk);
    let next = chunk.and_then(|c| iter.checked_add(i64::try_from(c.len()).ok()?));
    match (chunk, next) {
        (Some(c), Some(next)) => (next, Some(Cow::Borrowed(c))),
        _ => (0, None),
    }
}

/// The LOADCHUNK calls (iterator, data) that rebuild the filter, header first: what an AOF
/// rewrite emits. The same iterators and bytes as SCANDUMP, also for a filter that counts
/// no items.
pub fn load_calls(filter: &CuckooFilter, max_chunk: u64) -> Vec<(i64, Cow<'_, [u8]>)> {
    let mut calls = Vec::new();
    let mut iter = 0;
    while let (next, Some(data)) = step(filter, iter, max_chunk) {
        calls.push((next, data));
        iter = next;
    }
    calls
}

/// What a LOADCHUNK call carries.
#[derive(Debug, PartialEq)]
pub enum Load<'a> {
    /// Iterator 1: the header of a new filter.
    Header(CuckooMeta),
    /// Iterator 1: the header of a new shard (rsbloom's header, see [`sharded`]).
    ShardHeader(CuckooMeta, Box<ShardPlace>),
    /// A data chunk and the stream byte it starts at (checked against the filter by
    /// [`CuckooFilter::write_chunk`]).
    Data { offset: u64, data: &'a [u8] },
}

/// Classifies and checks one LOADCHUNK call of a user: iterator 0 is `CfInvalidPosition`;
/// 1 a header; any other needs `0 < len <= it - 1` (`CfCannotLoadChunk`, as for negative
/// iterators).
pub fn parse_load(iter: i64, data: &[u8], limit: u64) -> Result<Load<'_>> {
    parse_load_from(iter, data, limit, Sender::User)
}

/// [`parse_load`] with the header checks for `sender`.
pub fn parse_load_from(iter: i64, data: &[u8], limit: u64, sender: Sender) -> Result<Load<'_>> {
    match iter {
        0 => Err(Error::CfInvalidPosition),
        1 => Ok(match sharded::decode_any_header(data, limit, sender)? {
            (meta, None) => Load::Header(meta),
            (meta, Some(place)) => Load::ShardHeader(meta, Box::new(place)),
        }),
        it if it > 1 && !data.is_empty() => {
            let offset = (it as u64 - 1)
                .checked_sub(data.len() as u64)
                .ok_or(Error::CfCannotLoadChunk)?;
            Ok(Load::Data { offset, data })
        }
        _ => Err(Error::CfCannotLoadChunk),
    }
}
