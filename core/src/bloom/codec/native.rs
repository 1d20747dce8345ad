//! Our own type's (`RSbloom--`) formats.
//!
//! RDB value (encoding version [`ENCODING_VERSION`]): the [parameter block](super::params),
//! then each layer's bit array as one byte string of little-endian words.
//!
//! SCANDUMP header: `b"RSBF"`, a format version byte, then the parameter block in the
//! [byte form](crate::fields::Writer) of the field stream (fixed-width little-endian
//! fields). Nothing may follow it.

use super::params;
use crate::bloom::{Chain, ChainMeta};
use crate::error::{bad_data, Result};
use crate::fields::{FieldSink, FieldSource, Reader, Writer};

/// The Redis type name of filters in this format (part of every RDB and DUMP payload).
pub const TYPE_NAME: &str = "RSbloom--";
/// Written with every value; `rdb_load` refuses newer versions.
pub const ENCODING_VERSION: i32 = 1;

const MAGIC: &[u8; 4] = b"RSBF";
const HEADER_VERSION: u8 = 1;

pub fn save(chain: &Chain, out: &mut dyn FieldSink) {
    params::encode(&chain.meta(), out);
    for layer in chain.layers() {
        out.put_bytes(&layer.le_bytes());
    }
}

pub fn load(src: &mut dyn FieldSource, version: i32, limit: u64) -> Result<Chain> {
    if version != ENCODING_VERSION {
        return Err(bad_data(format!("unknown encoding version {version}")));
    }
    let meta = params::decode(src, limit)?;
    // Validated here, before the bits are read.
    let mut chain = Chain::from_meta(&meta, limit)?;
    for i in 0..meta.layers.len() {
        src.with_bytes(&mut |bytes| chain.set_layer_bytes(i, bytes))?;
    }
    Ok(chain)
}

pub fn encode_header(chain: &Chain) -> Vec<u8> {
    encode_header_meta(&chain.meta())
}

/// The header of a filter with these parameters, without needing the filter (tools that
/// convert a stream build it from parameters alone).
pub fn encode_header_meta(meta: &ChainMeta) -> Vec<u8> {
    let mut out = Writer(Vec::with_capacity(64));
    out.0.extend_from_slice(MAGIC);
    out.0.push(HEADER_VERSION);
    params::encode(meta, &mut out);
    out.0
}

/// The bytes start like one of our headers (RedisBloom's do not, see `scandump`).
pub fn has_magic(bytes: &[u8]) -> bool {
    bytes.starts_with(MAGIC)
}

/// Parses and validates a header (as strictly as an RDB value).
pub fn decode_header(bytes: &[u8], limit: u64) -> Result<ChainMeta> {
    let rest = bytes
        .strip_prefix(MAGIC)
        .ok_or_else(|| bad_data("not an rsbloom header"))?;
    let (&version, rest) = rest
        .split_first()
        .ok_or_else(|| bad_data("header is truncated"))?;
    if version != HEADER_VERSION {
        return Err(bad_data(format!("unknown header version {version}")));
    }
    let mut reader = Reader(rest);
    let meta = params::decode(&mut reader, limit)?;
    if !reader.rest().is_empty() {
        return Err(bad_data("trailing bytes after the header"));
    }
    meta.validate(limit)?;
    Ok(meta)
}
