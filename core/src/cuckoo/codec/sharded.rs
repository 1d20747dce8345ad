//! rsbloom's own cuckoo type, `RSbloomCF`, for shards of a logical filter (docs/sharding.md).
//! RedisBloom's `MBbloomCF` value has no room for another field and its encoding version is
//! the type's, not the value's, so a shard is a value of a second type; plain filters stay
//! `MBbloomCF` byte for byte.
//!
//! RDB value (encoding version [`ENCODING_VERSION`]): the `MBbloomCF` version 4 fields and
//! slot strings ([`rdb`]), then the [shard place](crate::shard::place).
//!
//! SCANDUMP header: `b"RSCF"`, a version byte, RedisBloom's 38-byte header, then the place
//! in the [byte form](crate::fields::Writer) of the field stream; nothing may follow. It is
//! told apart from RedisBloom's by its magic and its length (RedisBloom's is always 38).

use super::header::{self, Sender, HEADER_LEN};
use super::rdb;
use crate::cuckoo::{CuckooFilter, CuckooMeta};
use crate::error::{bad_data, Error, Result};
use crate::fields::{FieldSink, FieldSource, Reader, Writer};
use crate::shard::ShardPlace;

/// The Redis type name of cuckoo shards (part of every RDB and DUMP payload).
pub const TYPE_NAME: &str = "RSbloomCF";
/// Written with every value; `rdb_load` refuses other versions.
pub const ENCODING_VERSION: i32 = 1;

const MAGIC: &[u8; 4] = b"RSCF";
const HEADER_VERSION: u8 = 1;

/// Writes a shard's RDB value (a filter without a place writes RedisBloom's fields only,
/// which [`load`] refuses: the type is chosen by the place, so that never happens).
pub fn save(filter: &CuckooFilter, out: &mut dyn FieldSink) {
    rdb::save(filter, out);
    if let Some(place) = filter.shard() {
        place.encode(out);
    }
}

/// Reads a shard's RDB value, as strictly as `MBbloomCF`'s, then its place.
pub fn load(src: &mut dyn FieldSource, version: i32, limit: u64) -> Result<CuckooFilter> {
    if version != ENCODING_VERSION {
        return Err(bad_data(format!("unknown encoding version {version}")));
    }
    let filter = rdb::load(src, rdb::ENCODING_VERSION, limit)?;
    Ok(filter.with_shard(ShardPlace::decode(src)?))
}

/// The SCANDUMP header of a filter with these parameters and this place.
pub fn encode_header(meta: &CuckooMeta, place: &ShardPlace) -> Vec<u8> {
    let mut out = Writer(Vec::with_capacity(64 + place.name.len()));
    out.0.extend_from_slice(MAGIC);
    out.0.push(HEADER_VERSION);
    out.0.extend_from_slice(&header::encode_header(meta));
    place.encode(&mut out);
    out.0
}

/// The SCANDUMP header of any filter: RedisBloom's for a plain one, ours for a shard.
pub fn header_of(filter: &CuckooFilter) -> Vec<u8> {
    match filter.shard() {
        None => header::encode_header(&filter.meta()),
        Some(place) => encode_header(&filter.meta(), place),
    }
}

/// Parses a header of either kind with the checks for `sender`: 38 bytes are RedisBloom's
/// (no place); anything else must be ours, whose RedisBloom part gets the same checks and
/// whose place is read as strictly as an RDB value's. Anything else is `CfInvalidHeader`,
/// RedisBloom's answer to a header of the wrong length.
pub fn decode_any_header(
    bytes: &[u8],
    limit: u64,
    sender: Sender,
) -> Result<(CuckooMeta, Option<ShardPlace>)> {
    if bytes.len() == HEADER_LEN {
        return Ok((header::decode_header_from(bytes, limit, sender)?, None));
    }
    let rest = bytes.strip_prefix(MAGIC).ok_or(Error::CfInvalidHeader)?;
    let (&version, rest) = rest.split_first().ok_or(Error::CfInvalidHeader)?;
    if version != HEADER_VERSION {
        return Err(bad_data(format!("unknown cuckoo header version {version}")));
    }
    let (head, rest) = rest
        .split_at_checked(HEADER_LEN)
        .ok_or(Error::CfInvalidHeader)?;
    let mut reader = Reader(rest);
    let place = ShardPlace::decode(&mut reader)?;
    if !reader.rest().is_empty() {
        return Err(bad_data("trailing bytes after the header"));
    }
    let meta = header::decode_header_from(head, limit, sender)?;
    Ok((meta, Some(place)))
}
