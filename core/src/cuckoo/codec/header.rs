//! RedisBloom's 38-byte cuckoo SCANDUMP header (packed, little-endian): u64 numItems, u64
//! numBuckets, u64 numDeletes, u64 numFilters, u16 bucketSize, u16 maxIterations, u16
//! expansion. A leaf: the SCANDUMP protocol and a shard's longer header both build on it.

use crate::cuckoo::meta::MAX_BUCKETS;
use crate::cuckoo::CuckooMeta;
use crate::error::{Error, Result};
use crate::fields::Packed;

pub const HEADER_LEN: usize = 38;

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
