//! The SCANDUMP / LOADCHUNK iterator protocol (RedisBloom's, so client helpers work):
//! iterator 0 asks for the header, which comes back with iterator 1; iterator `it >= 1` asks
//! for the data from byte `it - 1` of the layers' bit arrays laid end to end, and comes back
//! with `it + len`. The end is `(0, "")`. LOADCHUNK receives the iterator SCANDUMP returned
//! *after* a chunk, so that chunk starts at `it - 1 - len`.

use super::{mbbloom, native};
use crate::bloom::{Chain, ChainMeta, Scheme};
use crate::error::{Error, Result};

/// The SCANDUMP header of a filter, in its type's format.
pub fn header_of(chain: &Chain) -> Vec<u8> {
    header_of_meta(&chain.meta())
}

/// The SCANDUMP header of a filter with these parameters, in its scheme's type's format.
pub fn header_of_meta(meta: &ChainMeta) -> Vec<u8> {
    match meta.scheme {
        Scheme::Guava => native::encode_header_meta(meta),
        Scheme::RedisBloom => mbbloom::encode_header_meta(meta),
    }
}

/// Parses a header of either format: ours starts with its magic; anything else is read as
/// RedisBloom's. A RedisBloom header could start with our magic by chance (its first
/// bytes are an item count), so that is tried too before giving up.
pub fn parse_header(data: &[u8], limit: u64) -> Result<ChainMeta> {
    if !native::has_magic(data) {
        return mbbloom::decode_header(data, limit);
    }
    native::decode_header(data, limit)
        .or_else(|ours| mbbloom::decode_header(data, limit).map_err(|_| ours))
}

/// One SCANDUMP step: the next iterator and the bytes to return; `(0, "")` past the end
/// and for an iterator below 0 (RedisBloom finds no layer there either).
pub fn dump_step(chain: &Chain, iter: i64, max_chunk: u64) -> (i64, Vec<u8>) {
    step(
        iter,
        || header_of(chain),
        |at| chain.read_chunk(at, max_chunk),
    )
}

/// The SCANDUMP protocol for any filter with one header and one data stream: iterator 0
/// gives `header()` with iterator 1; iterator `it >= 1` gives `chunk(it - 1)` (the data from
/// that byte) with `it + len`; past the end and below 0, `(0, "")`.
pub fn step(
    iter: i64,
    header: impl FnOnce() -> Vec<u8>,
    chunk: impl FnOnce(u64) -> Option<Vec<u8>>,
) -> (i64, Vec<u8>) {
    match iter {
        0 => (1, header()),
        it if it > 0 => match chunk(it as u64 - 1) {
            Some(chunk) => (it + chunk.len() as i64, chunk),
            None => (0, Vec::new()),
        },
        _ => (0, Vec::new()),
    }
}

/// Every `(iterator, data)` LOADCHUNK call that rebuilds a filter, header first, from its
/// SCANDUMP steps (the AOF rewrite, tools).
pub fn load_calls(mut dump_step: impl FnMut(i64) -> (i64, Vec<u8>)) -> Vec<(i64, Vec<u8>)> {
    let mut out = Vec::new();
    let mut iter = 0i64;
    loop {
        let (next, data) = dump_step(iter);
        if next == 0 {
            return out;
        }
        out.push((next, data));
        iter = next;
    }
}

/// Where a LOADCHUNK data chunk of `len` bytes starts in the layers' byte stream, read as
/// RedisBloom reads its iterator (the one SCANDUMP returned after the chunk, counting from
/// 1): an iterator below 1 or below `len` is bad data, a chunk starting before the stream is
/// an invalid offset.
pub fn chunk_start(iter: i64, len: usize) -> Result<u64> {
    let iter = u64::try_from(iter)
        .ok()
        .filter(|&it| it >= 1 && it >= len as u64)
        .ok_or(Error::ReceivedBadData)?;
    (iter - len as u64)
        .checked_sub(1)
        .ok_or(Error::InvalidOffset)
}

/// What a LOADCHUNK call carries.
#[derive(Debug, PartialEq)]
pub enum Load<'a> {
    /// Iterator 1 on a missing key: the header of a new filter.
    Header(ChainMeta),
    /// A data chunk and the byte offset it starts at.
    Data { offset: u64, data: &'a [u8] },
}

/// Classifies and checks one LOADCHUNK call as RedisBloom does: iterator 1 on a missing
/// key is a header, any iterator on an existing key a data chunk, anything else on a
/// missing key `NotFound`.
pub fn parse_load(iter: i64, data: &[u8], limit: u64, exists: bool) -> Result<Load<'_>> {
    match (exists, iter) {
        (false, 1) => Ok(Load::Header(parse_header(data, limit)?)),
        (false, _) => Err(Error::NotFound),
        (true, _) => Ok(Load::Data {
            offset: chunk_start(iter, data.len())?,
            data,
        }),
    }
}
