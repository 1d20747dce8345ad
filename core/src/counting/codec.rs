//! The counting filter's formats (type `RSbloomCB`), all validated before anything is
//! allocated.
//!
//! Parameter block (field stream): `flags` (0, or [`KEYED`]), `counter_bits`, `capacity`,
//! `error_rate`, `k`, `words` (Guava's 64-bit words: the filter has `64 * words` counters),
//! `count` (adds less deletes), then for a keyed filter its secret's two words. `k` and
//! `words` must be Guava's shape for the capacity and rate, and the counters' bytes fit
//! `bf.max-filter-bytes`. A plain filter's block is what it was before keyed filters (flags
//! 0, no secret), byte for byte; a release without them refuses a keyed one (unknown flags)
//! rather than read it with Guava's hash.
//!
//! RDB value (encoding version [`ENCODING_VERSION`]): the parameter block, then the counters
//! as one byte string of little-endian 64-bit words (`words * counter_bits * 8` bytes).
//!
//! SCANDUMP: iterator 0 gives the header (`b"RSCB"`, a version byte, the parameter block in
//! the [byte form](crate::fields::Writer); nothing may follow), returned with iterator 1;
//! iterator `it >= 1` gives counter data from byte `it - 1`, returned with `it + len`; the
//! end is `(0, "")`. LOADCHUNK takes the iterator SCANDUMP returned after a chunk, as the
//! Bloom filters' protocol does ([`crate::bloom::codec::scandump::chunk_start`]).

use super::filter::{counter_bytes, CountingFilter, CountingMeta};
use crate::bloom::codec::scandump::{self, chunk_start};
use crate::bloom::keyed::Secret;
use crate::error::{bad_data, Error, Result};
use crate::fields::{FieldSink, FieldSource, Reader, Writer};
use crate::le_words;

/// The Redis type name (part of every RDB and DUMP payload).
pub const TYPE_NAME: &str = "RSbloomCB";
/// Written with every value; `rdb_load` refuses others.
pub const ENCODING_VERSION: i32 = 1;

const MAGIC: &[u8; 4] = b"RSCB";
/// The flag of a keyed filter: its secret follows the count.
pub const KEYED: u64 = 1;
const HEADER_VERSION: u8 = 1;

fn encode_meta(meta: &CountingMeta, out: &mut dyn FieldSink) {
    out.put_u64(if meta.secret.is_some() { KEYED } else { 0 });
    out.put_u64(meta.counter_bits as u64);
    out.put_u64(meta.capacity);
    out.put_f64(meta.error_rate);
    out.put_u64(meta.k as u64);
    out.put_u64(meta.words);
    out.put_u64(meta.count);
    if let Some(secret) = meta.secret {
        secret.words().iter().for_each(|&w| out.put_u64(w));
    }
}

fn to_u32(value: u64, what: &str) -> Result<u32> {
    u32::try_from(value).map_err(|_| bad_data(format!("{what} out of range")))
}

/// Reads and validates a parameter block (nothing allocated).
fn decode_meta(src: &mut dyn FieldSource, limit: u64) -> Result<CountingMeta> {
    let flags = src.get_u64()?;
    if flags & !KEYED != 0 {
        return Err(bad_data("unknown flags"));
    }
    let mut meta = CountingMeta {
        counter_bits: to_u32(src.get_u64()?, "counter bits")?,
        capacity: src.get_u64()?,
        error_rate: src.get_f64()?,
        k: to_u32(src.get_u64()?, "number of hashes")?,
        words: src.get_u64()?,
        count: src.get_u64()?,
        secret: None,
    };
    if flags & KEYED != 0 {
        meta.secret = Some(Secret::from_words([src.get_u64()?, src.get_u64()?]));
    }
    meta.validate(limit)?;
    Ok(meta)
}

pub fn save(filter: &CountingFilter, out: &mut dyn FieldSink) {
    encode_meta(&filter.meta(), out);
    out.put_bytes(&le_words::as_bytes(filter.counter_words()));
}

pub fn load(src: &mut dyn FieldSource, version: i32, limit: u64) -> Result<CountingFilter> {
    if version != ENCODING_VERSION {
        return Err(bad_data(format!("unknown encoding version {version}")));
    }
    let meta = decode_meta(src, limit)?;
    let expected = counter_bytes(meta.words, meta.counter_bits);
    // The stored length is checked before the counters are allocated.
    let mut loaded = None;
    src.with_bytes(&mut |bytes| {
        if bytes.len() as u64 != expected {
            return Err(bad_data(format!(
                "counters: {} bytes, the shape needs {expected}",
                bytes.len()
            )));
        }
        let mut filter = CountingFilter::from_meta(&meta, limit)?;
        filter.write_chunk(0, bytes)?;
        loaded = Some(filter);
        Ok(())
    })?;
    loaded.ok_or_else(|| bad_data("no counters"))
}

/// The SCANDUMP header of a filter with these parameters.
pub fn encode_header(meta: &CountingMeta) -> Vec<u8> {
    let mut out = Writer(Vec::with_capacity(64));
    out.0.extend_from_slice(MAGIC);
    out.0.push(HEADER_VERSION);
    encode_meta(meta, &mut out);
    out.0
}

/// Parses and validates a header (as strictly as an RDB value; nothing may follow).
pub fn decode_header(bytes: &[u8], limit: u64) -> Result<CountingMeta> {
    let rest = bytes
        .strip_prefix(MAGIC)
        .ok_or_else(|| bad_data("not a counting filter header"))?;
    let (&version, rest) = rest
        .split_first()
        .ok_or_else(|| bad_data("header is truncated"))?;
    if version != HEADER_VERSION {
        return Err(bad_data(format!("unknown header version {version}")));
    }
    let mut reader = Reader(rest);
    let meta = decode_meta(&mut reader, limit)?;
    if !reader.rest().is_empty() {
        return Err(bad_data("trailing bytes after the header"));
    }
    Ok(meta)
}

/// One SCANDUMP step ([`scandump::step`]): the header, then the words' stream.
pub fn dump_step(filter: &CountingFilter, iter: i64, max_chunk: u64) -> (i64, Vec<u8>) {
    scandump::step(
        iter,
        || encode_header(&filter.meta()),
        |at| filter.read_chunk(at, max_chunk),
    )
}

/// Every `(iterator, data)` LOADCHUNK call that rebuilds the filter, header first (the AOF
/// rewrite, tools).
pub fn load_calls(filter: &CountingFilter, max_chunk: u64) -> Vec<(i64, Vec<u8>)> {
    scandump::load_calls(|iter| dump_step(filter, iter, max_chunk))
}

/// What a LOADCHUNK call carries.
#[derive(Debug, PartialEq)]
pub enum Load<'a> {
    /// Iterator 1 on a missing key: the header of a new filter.
    Header(CountingMeta),
    /// A data chunk and the byte offset it starts at.
    Data { offset: u64, data: &'a [u8] },
}

/// Classifies and checks one LOADCHUNK call as the Bloom filters' does: iterator 1 on a
/// missing key is a header, any iterator on an existing key a data chunk, anything else on a
/// missing key `NotFound`.
pub fn parse_load(iter: i64, data: &[u8], limit: u64, exists: bool) -> Result<Load<'_>> {
    match (exists, iter) {
        (false, 1) => Ok(Load::Header(decode_header(data, limit)?)),
        (false, _) => Err(Error::NotFound),
        (true, _) => Ok(Load::Data {
            offset: chunk_start(iter, data.len())?,
            data,
        }),
    }
}
