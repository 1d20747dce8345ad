//! The SCANDUMP header: `b"RSBF"`, a format version byte, then the parameter block in the
//! [`wire`](super::wire) form (fixed-width little-endian fields). Nothing may follow it.

use super::meta;
use super::wire::{Reader, Writer};
use crate::error::{bad_data, Result};
use crate::filter::{Chain, ChainMeta};

const MAGIC: &[u8; 4] = b"RSBF";
const VERSION: u8 = 1;

pub fn encode(chain: &Chain) -> Vec<u8> {
    encode_meta(&chain.meta())
}

/// The header of a filter with these parameters, without needing the filter (tools that
/// convert a stream build it from parameters alone).
pub fn encode_meta(meta: &ChainMeta) -> Vec<u8> {
    let mut out = Writer(Vec::with_capacity(64));
    out.0.extend_from_slice(MAGIC);
    out.0.push(VERSION);
    meta::encode(meta, &mut out);
    out.0
}

/// The bytes start like one of our headers (RedisBloom's do not, see `chunks`).
pub fn has_magic(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// Parses and validates a header (as strictly as an RDB value).
pub fn decode(bytes: &[u8], limit: u64) -> Result<ChainMeta> {
    let rest = bytes
        .strip_prefix(MAGIC)
        .ok_or_else(|| bad_data("not an rsbloom header"))?;
    let (&version, rest) = rest
        .split_first()
        .ok_or_else(|| bad_data("header is truncated"))?;
    if version != VERSION {
        return Err(bad_data(format!("unknown header version {version}")));
    }
    let mut reader = Reader(rest);
    let meta = meta::decode(&mut reader, limit)?;
    if !reader.rest().is_empty() {
        return Err(bad_data("trailing bytes after the header"));
    }
    Ok(meta)
}
