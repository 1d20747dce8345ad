//! RedisBloom's SCANDUMP / LOADCHUNK protocol for cuckoo filters.
//!
//! Iterator 0 asks for the header, which comes back with iterator 1. Iterator `it >= 1`
//! asks for the chunk at stream byte `it - 1` (the slot arrays end to end, oldest first;
//! see [`CuckooFilter::read_chunk`] for how RedisBloom cuts it) and comes back with `it` plus
//! the chunk's length. Past the end the answer is `(0, null)`, and a filter whose item count
//! is 0 answers `(0, null)` at once. LOADCHUNK receives the iterator SCANDUMP returned
//! after a chunk, so that chunk starts at `it - 1 - len`.
//!
//! The 38-byte header itself is in [`header`](super::header), which a shard's header (see
//! [`sharded`]) wraps.

use std::borrow::Cow;

pub use super::header::{decode_header, decode_header_from, encode_header, Sender, HEADER_LEN};
use super::sharded;
use crate::cuckoo::{CuckooFilter, CuckooMeta};
use crate::error::{Error, Result};
use crate::shard::ShardPlace;

/// RedisBloom's chunk size: sub-filters up to this size come back whole.
pub const MAX_CHUNK: u64 = 16 << 20;

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
