//! The sliding-window filter's formats (type `RSbloomAP`), all validated before anything is
//! allocated.
//!
//! Parameter block of a ring (field stream): `flags` (0, or [`KEYED`] for a keyed window's
//! reserved ring: the secret's two words follow the flags), `window` (0 COUNT, 1
//! TIME), `span_ms` (0 for COUNT), `capacity`, `error_rate`, `k`, `l`, `slices`,
//! `generation`, `blocks`, `head`, `turns`, `clock_ms`, `turned_ms`, `added`, `overflows`,
//! then per physical slice its generation's `items`, `first_ms`, `last_ms`. The shape is
//! checked against itself (slices from `k` and `l`, at most 64) and the words' bytes against
//! `bf.max-filter-bytes`; it is not recomputed from the rate, so a later release may choose
//! shapes differently and still load this one. A plain window's blocks are what they were
//! before keyed windows (flags 0, no secret), byte for byte, in both versions; a keyed one is
//! written as version 2 only, and a release without keyed windows refuses it (unknown flags)
//! rather than read it with Guava's hash. A burst layer is never keyed: it hashes what the
//! window's hash gave.
//!
//! Layers (version 2): after the reserved ring's block, the number of burst layers, then
//! per layer its `level` and its ring's block (a TIME window over the same span, of
//! `capacity << level` items at `error_rate / 2^level`, levels rising; a COUNT window has
//! none). Every block is read and the whole window's memory checked before a word is
//! allocated.
//!
//! RDB value (encoding version [`ENCODING_VERSION`], 2): the blocks as above, then each
//! ring's words (reserved first, then the layers' in order) as one byte string of
//! little-endian 64-bit words (`blocks * (slices + 1) * 8` bytes each). Version 1 (before
//! burst layers): the reserved ring's block, then its words; it loads as a window without
//! layers.
//!
//! SCANDUMP: iterator 0 gives the header (`b"RSAP"`, a version byte, the blocks in the
//! [byte form](crate::fields::Writer); nothing may follow), returned with iterator 1;
//! iterator `it >= 1` gives word data from byte `it - 1` of the rings' words one after the
//! other (a chunk ends where a ring does), returned with `it + len`; the end is `(0, "")`.
//! LOADCHUNK takes the iterator SCANDUMP returned after a chunk, as the Bloom filters'
//! protocol does ([`crate::bloom::codec::scandump::chunk_start`]). Headers of version 1
//! (the reserved ring's block alone) still load.

use super::burst::{layer_params, MAX_LEVEL};
use super::filter::{memory_for, words_for, Generation, Layer, WindowFilter, WindowMeta};
use super::shape::{Shape, Window};
use crate::bloom::codec::scandump::{self, chunk_start};
use crate::bloom::keyed::Secret;
use crate::error::{bad_data, check_limit, Error, Result};
use crate::fields::{FieldSink, FieldSource, Reader, Writer};
use crate::le_words;

/// The Redis type name (part of every RDB and DUMP payload).
pub const TYPE_NAME: &str = "RSbloomAP";
/// Written with every value; `rdb_load` takes it and [`ENCODING_VERSION_1`].
pub const ENCODING_VERSION: i32 = 2;
/// Values written before burst layers: a window without layers.
pub const ENCODING_VERSION_1: i32 = 1;

const MAGIC: &[u8; 4] = b"RSAP";
/// The flag of a keyed window's reserved ring: the secret's two words follow the flags.
pub const KEYED: u64 = 1;
const HEADER_VERSION: u8 = 2;
const HEADER_VERSION_1: u8 = 1;

/// A ring's parameter block.
fn encode_ring(ring: &WindowFilter, out: &mut dyn FieldSink) {
    let m = ring.meta();
    match ring.secret() {
        None => out.put_u64(0),
        Some(secret) => {
            out.put_u64(KEYED);
            secret.words().iter().for_each(|&w| out.put_u64(w));
        }
    }
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
    for g in ring.generations() {
        out.put_u64(g.items);
        out.put_u64(g.first_ms);
        out.put_u64(g.last_ms);
    }
}

/// Every block of a version 2 value or header: the reserved ring's, the layer count, each
/// layer's level and block.
fn encode_blocks(filter: &WindowFilter, out: &mut dyn FieldSink) {
    encode_ring(filter, out);
    out.put_u64(filter.layers().len() as u64);
    for layer in filter.layers() {
        out.put_u64(layer.level as u64);
        encode_ring(&layer.ring, out);
    }
}

fn to_u32(value: u64, what: &str) -> Result<u32> {
    u32::try_from(value).map_err(|_| bad_data(format!("{what} out of range")))
}

/// A parsed, validated ring block: its parameters and generations, nothing of its size
/// allocated.
struct Ring {
    meta: WindowMeta,
    generations: Vec<Generation>,
    secret: Option<Secret>,
}

impl Ring {
    /// The ring it describes, its words zero (or `AllocFailed`).
    fn build(&self) -> Result<WindowFilter> {
        let mut ring = WindowFilter::empty(self.meta)?;
        ring.generations_mut().copy_from_slice(&self.generations);
        Ok(match self.secret {
            Some(secret) => ring.with_secret(secret),
            None => ring,
        })
    }
}

/// A parsed, validated window: the reserved ring and the layers, nothing of their size
/// allocated.
struct Parsed {
    reserved: Ring,
    layers: Vec<(u32, Ring)>,
}

impl Parsed {
    /// The window it describes, every ring's words zero.
    fn build(&self) -> Result<WindowFilter> {
        let mut filter = self.reserved.build()?;
        for (level, ring) in &self.layers {
            filter.layers.push(Layer {
                level: *level,
                ring: ring.build()?,
            });
        }
        Ok(filter)
    }

    /// Bytes of every ring's words, in stream order.
    fn word_bytes(&self) -> impl Iterator<Item = u64> + '_ {
        std::iter::once(&self.reserved)
            .chain(self.layers.iter().map(|(_, r)| r))
            .map(|r| words_for(&r.meta.shape) * 8)
    }
}

/// Reads a ring's block and checks it against itself (the caller checks the capacity and
/// the memory).
fn parse_ring(src: &mut dyn FieldSource) -> Result<Ring> {
    let flags = src.get_u64()?;
    if flags & !KEYED != 0 {
        return Err(bad_data("unknown flags"));
    }
    let secret = if flags & KEYED != 0 {
        Some(Secret::from_words([src.get_u64()?, src.get_u64()?]))
    } else {
        None
    };
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
    meta.validate_ring()?;
    let mut generations = Vec::with_capacity(shape.slices as usize);
    for _ in 0..shape.slices {
        let g = Generation {
            items: src.get_u64()?,
            first_ms: src.get_u64()?,
            last_ms: src.get_u64()?,
        };
        // A generation closes when it holds `generation` items, so no true ring has more;
        // the room and count sums read these, and must not be fed what cannot be.
        if g.items > shape.generation {
            return Err(bad_data("a generation holds more items than it takes"));
        }
        generations.push(g);
    }
    Ok(Ring {
        meta,
        generations,
        secret,
    })
}

/// Reads and validates the blocks of a value or header of `version` (1: the reserved ring
/// alone), the whole window's memory against `limit`, nothing of its size allocated.
fn parse_blocks(src: &mut dyn FieldSource, version: i32, limit: u64) -> Result<Parsed> {
    let reserved = parse_ring(src)?;
    // Keyed windows came with version 2: an older value is never keyed (one form per window).
    if version < 2 && reserved.secret.is_some() {
        return Err(bad_data("a keyed window in a version 1 value"));
    }
    let base = reserved.meta;
    base.validate(u64::MAX)?;
    let mut layers: Vec<(u32, Ring)> = Vec::new();
    if version >= 2 {
        let n = src.get_u64()?;
        if n > 0 && base.span_ms().is_none() {
            return Err(bad_data("burst layers in a COUNT window"));
        }
        if n > MAX_LEVEL as u64 {
            return Err(bad_data("too many burst layers"));
        }
        for _ in 0..n {
            let level = to_u32(src.get_u64()?, "layer level")?;
            let after = layers.last().map_or(0, |(l, _)| *l);
            if level <= after || level > MAX_LEVEL {
                return Err(bad_data("layer levels out of order or range"));
            }
            let ring = parse_ring(src)?;
            if ring.secret.is_some() {
                return Err(bad_data("a keyed burst layer"));
            }
            let m = ring.meta;
            let (capacity, error_rate) = layer_params(base.capacity, base.error_rate, level)
                .ok_or_else(|| bad_data("layer capacity out of range"))?;
            if m.window != base.window
                || m.capacity != capacity
                || m.error_rate.to_bits() != error_rate.to_bits()
            {
                return Err(bad_data("a layer does not match its level"));
            }
            layers.push((level, ring));
        }
    }
    let needed = layers
        .iter()
        .map(|(_, r)| memory_for(&r.meta.shape))
        .fold(memory_for(&base.shape), u64::saturating_add);
    check_limit(needed, limit)?;
    Ok(Parsed { reserved, layers })
}

pub fn save(filter: &WindowFilter, out: &mut dyn FieldSink) {
    encode_blocks(filter, out);
    for ring in filter.rings() {
        out.put_bytes(&le_words::as_bytes(ring.words()));
    }
}

pub fn load(src: &mut dyn FieldSource, version: i32, limit: u64) -> Result<WindowFilter> {
    if version != ENCODING_VERSION && version != ENCODING_VERSION_1 {
        return Err(bad_data(format!("unknown encoding version {version}")));
    }
    let parsed = parse_blocks(src, version, limit)?;
    // Every block is checked (the memory too) before a ring is allocated; each ring's
    // stored length before its words are.
    let mut loaded: Option<WindowFilter> = None;
    let mut offset = 0u64;
    for (i, expected) in parsed.word_bytes().enumerate() {
        src.with_bytes(&mut |bytes| {
            if bytes.len() as u64 != expected {
                return Err(bad_data(format!(
                    "words of ring {i}: {} bytes, the shape needs {expected}",
                    bytes.len()
                )));
            }
            let filter = match loaded.as_mut() {
                None => loaded.insert(parsed.reserved.build()?),
                Some(filter) => {
                    let (level, ring) = &parsed.layers[i - 1];
                    filter.layers.push(Layer {
                        level: *level,
                        ring: ring.build()?,
                    });
                    filter
                }
            };
            filter.write_chunk(offset, bytes)
        })?;
        offset += expected;
    }
    loaded.ok_or_else(|| bad_data("no words"))
}

/// A window without layers as a version 1 value (what this module wrote before burst
/// layers): for the tests of loading old values.
#[cfg(any(test, feature = "testkit"))]
pub fn save_v1(filter: &WindowFilter, out: &mut dyn FieldSink) {
    assert!(filter.layers().is_empty(), "version 1 has no layers");
    assert!(!filter.keyed(), "version 1 has no keyed windows");
    encode_ring(filter, out);
    out.put_bytes(&le_words::as_bytes(filter.words()));
}

/// A window without layers as a version 1 header (tests).
#[cfg(any(test, feature = "testkit"))]
pub fn encode_header_v1(filter: &WindowFilter) -> Vec<u8> {
    assert!(filter.layers().is_empty(), "version 1 has no layers");
    assert!(!filter.keyed(), "version 1 has no keyed windows");
    let mut out = Writer(Vec::with_capacity(256));
    out.0.extend_from_slice(MAGIC);
    out.0.push(HEADER_VERSION_1);
    encode_ring(filter, &mut out);
    out.0
}

/// The SCANDUMP header of a filter: its blocks.
pub fn encode_header(filter: &WindowFilter) -> Vec<u8> {
    let mut out = Writer(Vec::with_capacity(256));
    out.0.extend_from_slice(MAGIC);
    out.0.push(HEADER_VERSION);
    encode_blocks(filter, &mut out);
    out.0
}

/// The version and blocks of a header (after the magic and version byte).
fn header_blocks(bytes: &[u8], limit: u64) -> Result<(u8, Parsed, usize)> {
    let rest = bytes
        .strip_prefix(MAGIC)
        .ok_or_else(|| bad_data("not a sliding-window filter header"))?;
    let (&version, rest) = rest
        .split_first()
        .ok_or_else(|| bad_data("header is truncated"))?;
    if version != HEADER_VERSION && version != HEADER_VERSION_1 {
        return Err(bad_data(format!("unknown header version {version}")));
    }
    let mut reader = Reader(rest);
    let parsed = parse_blocks(&mut reader, version as i32, limit)?;
    Ok((version, parsed, reader.rest().len()))
}

/// Parses and validates a header (as strictly as an RDB value; nothing may follow) into the
/// empty filter it describes.
pub fn decode_header(bytes: &[u8], limit: u64) -> Result<WindowFilter> {
    let (_, parsed, trailing) = header_blocks(bytes, limit)?;
    if trailing != 0 {
        return Err(bad_data("trailing bytes after the header"));
    }
    parsed.build()
}

/// The version byte of a header this module wrote or takes (1 or 2), for tools and tests.
pub fn header_version(bytes: &[u8]) -> Option<u8> {
    bytes.strip_prefix(MAGIC)?.first().copied()
}

/// The bytes of word data that follow a header (tools), nothing allocated but the header's
/// generations.
pub fn header_data_len(bytes: &[u8], limit: u64) -> Result<u64> {
    let (_, parsed, _) = header_blocks(bytes, limit)?;
    Ok(parsed.word_bytes().fold(0, u64::saturating_add))
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
