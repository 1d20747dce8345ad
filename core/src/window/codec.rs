//! The sliding-window filter's formats (type `RSbloomAP`), all validated before anything is
//! allocated.
//!
//! Parameter block (field stream): `flags` (reserved, 0), `window` (0 COUNT, 1 TIME),
//! `span_ms` (0 for COUNT), `capacity`, `error_rate`, `k`, `l`, `slices`, `generation`,
//! `blocks`, `head`, `turns`, `clock_ms`, `turned_ms`, `added`, `overflows`, then per
//! physical slice its
//! generation's `items`, `first_ms`, `last_ms`. The shape is checked against itself (slices
//! from `k` and `l`, at most 64) and the words' bytes against `bf.max-filter-bytes`; it is
//! not recomputed from the rate, so a later release may choose shapes differently and still
//! load this one.
//!
//! RDB value (encoding version [`ENCODING_VERSION`]): the parameter block, then the words as
//! one byte string of little-endian 64-bit words (`blocks * (slices + 1) * 8` bytes).
//!
//! SCANDUMP: iterator 0 gives the header (`b"RSAP"`, a version byte, the parameter block in
//! the [byte form](crate::fields::Writer); nothing may follow), returned with iterator 1;
//! iterator `it >= 1` gives word data from byte `it - 1`, returned with `it + len`; the end
//! is `(0, "")`. LOADCHUNK takes the iterator SCANDUMP returned after a chunk, as the Bloom
//! filters' protocol does ([`crate::bloom::codec::scandump::chunk_start`]).

use super::filter::{words_for, Generation, WindowFilter, WindowMeta};
use super::shape::{Shape, Window};
use crate::bloom::codec::scandump::{self, chunk_start};
use crate::error::{bad_data, Error, Result};
use crate::fields::{FieldSink, FieldSource, Reader, Writer};
use crate::le_words;

/// The Redis type name (part of every RDB and DUMP payload).
pub const TYPE_NAME: &str = "RSbloomAP";
/// Written with every value; `rdb_load` refuses others.
pub const ENCODING_VERSION: i32 = 1;

const MAGIC: &[u8; 4] = b"RSAP";
const HEADER_VERSION: u8 = 1;

fn encode_meta(filter: &WindowFilter, out: &mut dyn FieldSink) {
    let m = filter.meta();
    out.put_u64(0);
    match m.window {
        Window::Count => {
            out.put_u64(0);
            out.put_u64(0);
        }
        Window::Time { span_ms } => {
            out.put_u64(1);
            out.put_u64(span_ms);
        }
    }
    out.put_u64(m.capacity);
    out.put_f64(m.error_rate);
    let s = m.shape;
    for v in [
        s.k as u64,
        s.l as u64,
        s.slices as u64,
        s.generation,
        s.blocks,
    ] {
        out.put_u64(v);
    }
    for v in [
        m.head as u64,
        m.turns,
        m.clock_ms,
        m.turned_ms,
        m.added,
        m.overflows,
    ] {
        out.put_u64(v);
    }
    for g in filter.generations() {
        out.put_u64(g.items);
        out.put_u64(g.first_ms);
        out.put_u64(g.last_ms);
    }
}

fn to_u32(value: u64, what: &str) -> Result<u32> {
    u32::try_from(value).map_err(|_| bad_data(format!("{what} out of range")))
}

/// Reads and validates a parameter block, then makes the empty filter it describes.
fn decode_meta(src: &mut dyn FieldSource, limit: u64) -> Result<WindowFilter> {
    let (meta, generations) = parse_meta(src, limit)?;
    build(meta, &generations)
}

/// The filter a validated parameter block describes, its words zero.
fn build(meta: WindowMeta, generations: &[Generation]) -> Result<WindowFilter> {
    let mut filter = WindowFilter::empty(meta)?;
    filter.generations_mut().copy_from_slice(generations);
    Ok(filter)
}

/// Reads and validates a parameter block (nothing of the filter's size allocated).
fn parse_meta(src: &mut dyn FieldSource, limit: u64) -> Result<(WindowMeta, Vec<Generation>)> {
    if src.get_u64()? != 0 {
        return Err(bad_data("unknown flags"));
    }
    let window = match (src.get_u64()?, src.get_u64()?) {
        (0, 0) => Window::Count,
        (1, span_ms) => Window::Time { span_ms },
        _ => return Err(bad_data("unknown window")),
    };
    let capacity = src.get_u64()?;
    let error_rate = src.get_f64()?;
    let shape = Shape {
        k: to_u32(src.get_u64()?, "k")?,
        l: to_u32(src.get_u64()?, "generations")?,
        slices: to_u32(src.get_u64()?, "slices")?,
        generation: src.get_u64()?,
        blocks: src.get_u64()?,
    };
    let meta = WindowMeta {
        window,
        capacity,
        error_rate,
        shape,
        head: to_u32(src.get_u64()?, "ring position")?,
        turns: src.get_u64()?,
        clock_ms: src.get_u64()?,
        turned_ms: src.get_u64()?,
        added: src.get_u64()?,
        overflows: src.get_u64()?,
    };
    meta.validate(limit)?;
    let mut generations = Vec::with_capacity(shape.slices as usize);
    for _ in 0..shape.slices {
        generations.push(Generation {
            items: src.get_u64()?,
            first_ms: src.get_u64()?,
            last_ms: src.get_u64()?,
        });
    }
    Ok((meta, generations))
}

pub fn save(filter: &WindowFilter, out: &mut dyn FieldSink) {
    encode_meta(filter, out);
    out.put_bytes(&le_words::as_bytes(filter.words()));
}

pub fn load(src: &mut dyn FieldSource, version: i32, limit: u64) -> Result<WindowFilter> {
    if version != ENCODING_VERSION {
        return Err(bad_data(format!("unknown encoding version {version}")));
    }
    let (meta, generations) = parse_meta(src, limit)?;
    let expected = words_for(&meta.shape) * 8;
    // The stored length is checked before the words are allocated.
    let mut loaded = None;
    src.with_bytes(&mut |bytes| {
        if bytes.len() as u64 != expected {
            return Err(bad_data(format!(
                "words: {} bytes, the shape needs {expected}",
                bytes.len()
            )));
        }
        let mut filter = build(meta, &generations)?;
        filter.write_chunk(0, bytes)?;
        loaded = Some(filter);
        Ok(())
    })?;
    loaded.ok_or_else(|| bad_data("no words"))
}

/// The SCANDUMP header of a filter: its parameter block.
pub fn encode_header(filter: &WindowFilter) -> Vec<u8> {
    let mut out = Writer(Vec::with_capacity(256));
    out.0.extend_from_slice(MAGIC);
    out.0.push(HEADER_VERSION);
    encode_meta(filter, &mut out);
    out.0
}

/// Parses and validates a header (as strictly as an RDB value; nothing may follow) into the
/// empty filter it describes.
pub fn decode_header(bytes: &[u8], limit: u64) -> Result<WindowFilter> {
    let rest = bytes
        .strip_prefix(MAGIC)
        .ok_or_else(|| bad_data("not a sliding-window filter header"))?;
    let (&version, rest) = rest
        .split_first()
        .ok_or_else(|| bad_data("header is truncated"))?;
    if version != HEADER_VERSION {
        return Err(bad_data(format!("unknown header version {version}")));
    }
    let mut reader = Reader(rest);
    let filter = decode_meta(&mut reader, limit)?;
    if !reader.rest().is_empty() {
        return Err(bad_data("trailing bytes after the header"));
    }
    Ok(filter)
}

/// The bytes of word data that follow a header (tools), nothing allocated but the header's
/// generations.
pub fn header_data_len(bytes: &[u8], limit: u64) -> Result<u64> {
    let rest = bytes
        .strip_prefix(MAGIC)
        .and_then(|r| r.strip_prefix(&[HEADER_VERSION]))
        .ok_or_else(|| bad_data("not a sliding-window filter header"))?;
    let (meta, _) = parse_meta(&mut Reader(rest), limit)?;
    Ok(words_for(&meta.shape).saturating_mul(8))
}

/// One SCANDUMP step ([`scandump::step`]): the header, then the words' stream.
pub fn dump_step(filter: &WindowFilter, iter: i64, max_chunk: u64) -> (i64, Vec<u8>) {
    scandump::step(
        iter,
        || encode_header(filter),
        |at| filter.read_chunk(at, max_chunk),
    )
}

/// Every `(iterator, data)` LOADCHUNK call that rebuilds the filter, header first (the AOF
/// rewrite, tools).
pub fn load_calls(filter: &WindowFilter, max_chunk: u64) -> Vec<(i64, Vec<u8>)> {
    scandump::load_calls(|iter| dump_step(filter, iter, max_chunk))
}

/// What a LOADCHUNK call carries.
#[derive(Debug)]
pub enum Load<'a> {
    /// Iterator 1 on a missing key: the header of a new filter (its words zero).
    Header(Box<WindowFilter>),
    /// A data chunk and the byte offset it starts at.
    Data { offset: u64, data: &'a [u8] },
}

/// Classifies and checks one LOADCHUNK call as the Bloom filters' does: iterator 1 on a
/// missing key is a header, any iterator on an existing key a data chunk, anything else on a
/// missing key `NotFound`.
pub fn parse_load(iter: i64, data: &[u8], limit: u64, exists: bool) -> Result<Load<'_>> {
    match (exists, iter) {
        (false, 1) => Ok(Load::Header(Box::new(decode_header(data, limit)?))),
        (false, _) => Err(Error::NotFound),
        (true, _) => Ok(Load::Data {
            offset: chunk_start(iter, data.len())?,
            data,
        }),
    }
}
