//! RedisBloom's formats, for filters of the `MBbloom--` type: its RDB value (encoding
//! version 4) and its SCANDUMP header, both validated as strictly as ours and written back
//! byte for byte.
//!
//! RDB value: `size`, `nfilters`, `options`, `growth`, then per link, oldest first:
//! `entries`, `error` (double), `hashes`, `bpe` (double), `bits`, `n2`, the bit array as
//! one string, `size`. SCANDUMP header (packed, little-endian): u64 size, u32 nfilters,
//! u32 options, u32 growth, then per link u64 bytes, u64 bits, u64 size, f64 error,
//! f64 bpe, u32 hashes, u64 entries, u8 n2.

use crate::bloom::chain::TIGHTENING;
use crate::bloom::footprint::{max_layers, memory_for};
use crate::bloom::{Chain, ChainMeta, Layer, LayerMeta, Scheme};
use crate::error::{bad_data, Error, Result};
use crate::fields::{FieldSink, FieldSource, Packed};
use crate::memory::fallible;

/// RedisBloom's type name for Bloom filters (part of every RDB and DUMP payload).
pub const TYPE_NAME: &str = "MBbloom--";
/// RedisBloom's encoding version; the only one whose layout is known for certain here.
pub const ENCODING_VERSION: i32 = 4;

/// Option bits: no power-of-two rounding, 64-bit hashing, no scaling. Every filter
/// RedisBloom 2.x creates has the first two; older layouts would need other hashing.
const NOROUND: u64 = 1;
const FORCE64: u64 = 4;
const NO_SCALING: u64 = 8;
const SCALING_OPTIONS: u64 = NOROUND | FORCE64;

const HEADER_FIXED: usize = 20;
const HEADER_PER_LINK: usize = 53;

/// The chain-level fields both formats carry.
struct ChainFields {
    size: u64,
    nfilters: u64,
    options: u64,
    growth: u64,
}

/// The link fields both formats carry (the bit array aside).
struct LinkFields {
    entries: u64,
    error: f64,
    hashes: u64,
    bpe: f64,
    bits: u64,
    n2: u64,
    size: u64,
}

impl ChainFields {
    /// Refuses what RedisBloom 2.x never writes or what this module cannot serve, before
    /// anything is allocated for the links.
    fn check(&self, limit: u64) -> Result<()> {
        if self.options != SCALING_OPTIONS && self.options != SCALING_OPTIONS | NO_SCALING {
            return Err(bad_data(format!(
                "unsupported RedisBloom options {} (only 64-bit hashing without power-of-two \
                 rounding, 5 or 13, is supported)",
                self.options
            )));
        }
        if self.nfilters == 0 || self.nfilters > max_layers(Scheme::RedisBloom, limit) {
            return Err(bad_data("bad number of filters"));
        }
        Ok(())
    }

    fn scaling(&self) -> bool {
        self.options & NO_SCALING == 0
    }
}

impl LinkFields {
    fn check(&self, i: usize) -> Result<()> {
        if self.n2 != 0 {
            return Err(bad_data(format!(
                "link {i}: power-of-two sized links are not supported"
            )));
        }
        if self.bits == 0 || !self.bits.is_multiple_of(64) {
            return Err(bad_data(format!("link {i}: bit size not a multiple of 64")));
        }
        // RedisBloom refuses a LOADCHUNK header whose hash count does not follow from its
        // bits per entry, as it computes them; RDB values are held to it too, so whatever
        // loads can also be copied through SCANDUMP (RedisBloom never writes otherwise).
        if self.hashes as f64 != (LN2 * self.bpe).ceil() {
            return Err(bad_data(format!(
                "link {i}: hash count does not follow from bits per entry"
            )));
        }
        Ok(())
    }

    fn meta(&self) -> Result<LayerMeta> {
        Ok(LayerMeta {
            capacity: self.entries,
            count: self.size,
            k: u32::try_from(self.hashes).map_err(|_| bad_data("number of hashes out of range"))?,
            error: self.error,
            bit_size: self.bits,
            bpe: self.bpe,
        })
    }

    fn of(layer: &LayerMeta) -> LinkFields {
        LinkFields {
            entries: layer.capacity,
            error: layer.error,
            hashes: layer.k as u64,
            bpe: layer.bpe,
            bits: layer.bit_size,
            n2: 0,
            size: layer.count,
        }
    }
}

/// The chain's parameters from RedisBloom's fields, validated (with `limit`).
fn chain_meta(chain: &ChainFields, layers: Vec<LayerMeta>, limit: u64) -> Result<ChainMeta> {
    let total = layers
        .iter()
        .try_fold(0u64, |sum, l| sum.checked_add(l.count));
    if total != Some(chain.size) {
        return Err(bad_data("filter size is not the sum of its links' sizes"));
    }
    let growth = u32::try_from(chain.growth).map_err(|_| bad_data("growth out of range"))?;
    let first_error = layers.first().map_or(0.0, |l| l.error);
    // RedisBloom keeps no chain error rate; the first link's error implies it.
    // A scaling filter of growth 0 (RedisBloom 2.8 keeps `EXPANSION 4294967296` in 32
    // bits) scales but cannot grow: expansion 1 marks it scaling, the growth 0 refuses
    // its next layer, as RedisBloom 8 does ("problem inserting into filter").
    let (error_rate, expansion) = if chain.scaling() {
        (first_error / TIGHTENING, growth.max(1))
    } else {
        (first_error, 0)
    };
    let meta = ChainMeta {
        scheme: Scheme::RedisBloom,
        error_rate,
        expansion,
        growth,
        layers,
        shard: None,
        variant: Default::default(),
    };
    meta.validate(limit)?;
    Ok(meta)
}

fn chain_fields(meta: &ChainMeta) -> ChainFields {
    ChainFields {
        size: meta
            .layers
            .iter()
            .fold(0u64, |sum, l| sum.saturating_add(l.count)),
        nfilters: meta.layers.len() as u64,
        options: if meta.expansion != 0 {
            SCALING_OPTIONS
        } else {
            SCALING_OPTIONS | NO_SCALING
        },
        growth: meta.growth as u64,
    }
}

/// Writes the RDB value of an `MBbloom--` filter.
pub fn save(chain: &Chain, out: &mut dyn FieldSink) {
    let meta = chain.meta();
    let c = chain_fields(&meta);
    for v in [c.size, c.nfilters, c.options, c.growth] {
        out.put_u64(v);
    }
    for (layer, l) in chain
        .layers()
        .iter()
        .zip(meta.layers.iter().map(LinkFields::of))
    {
        out.put_u64(l.entries);
        out.put_f64(l.error);
        out.put_u64(l.hashes);
        out.put_f64(l.bpe);
        out.put_u64(l.bits);
        out.put_u64(l.n2);
        out.put_bytes(&layer.le_bytes());
        out.put_u64(l.size);
    }
}

/// Reads an `MBbloom--` RDB value. Each link is checked, and the running size held
/// against `limit`, before its bit array is allocated.
pub fn load(src: &mut dyn FieldSource, version: i32, limit: u64) -> Result<Chain> {
    if version != ENCODING_VERSION {
        return Err(bad_data(format!(
            "RedisBloom encoding version {version} is not supported (only {ENCODING_VERSION})"
        )));
    }
    let chain = ChainFields {
        size: src.get_u64()?,
        nfilters: src.get_u64()?,
        options: src.get_u64()?,
        growth: src.get_u64()?,
    };
    chain.check(limit)?;
    let mut metas = Vec::new();
    let mut layers = Vec::new();
    let mut data_bytes = 0u64;
    for i in 0..chain.nfilters as usize {
        let mut link = LinkFields {
            entries: src.get_u64()?,
            error: src.get_f64()?,
            hashes: src.get_u64()?,
            bpe: src.get_f64()?,
            bits: src.get_u64()?,
            n2: src.get_u64()?,
            size: 0,
        };
        link.check(i)?;
        data_bytes = data_bytes.saturating_add(link.bits / 8);
        // The links read so far already need this much: the size-limit refusal.
        let needed = memory_for(Scheme::RedisBloom, i as u64 + 1, data_bytes);
        if needed > limit {
            return Err(Error::TooLarge { needed, limit });
        }
        let mut words = Vec::new();
        src.with_bytes(&mut |bytes| {
            if bytes.len() as u64 != link.bits / 8 {
                return Err(bad_data(format!(
                    "link {i}: data length does not match its bit size"
                )));
            }
            words = fallible::with_capacity(bytes.len() / 8)?;
            words.extend(
                bytes
                    .chunks_exact(8)
                    .map(|w| u64::from_le_bytes(w.try_into().unwrap_or_default())),
            );
            Ok(())
        })?;
        link.size = src.get_u64()?;
        let meta = link.meta()?;
        layers.push(
            Layer::from_words(meta.capacity, meta.count, meta.error, meta.k, words)
                .with_bpe(meta.bpe),
        );
        metas.push(meta);
    }
    let meta = chain_meta(&chain, metas, limit)?;
    Chain::from_layers(&meta, layers)
}

/// RedisBloom's SCANDUMP header of a filter with these parameters.
pub fn encode_header_meta(meta: &ChainMeta) -> Vec<u8> {
    let c = chain_fields(meta);
    let mut out = Vec::with_capacity(HEADER_FIXED + HEADER_PER_LINK * meta.layers.len());
    out.extend_from_slice(&c.size.to_le_bytes());
    // The u32 fields hold what the chain was validated or created with, all below 2^32.
    out.extend_from_slice(&(c.nfilters as u32).to_le_bytes());
    out.extend_from_slice(&(c.options as u32).to_le_bytes());
    out.extend_from_slice(&(c.growth as u32).to_le_bytes());
    for l in meta.layers.iter().map(LinkFields::of) {
        out.extend_from_slice(&(l.bits / 8).to_le_bytes());
        out.extend_from_slice(&l.bits.to_le_bytes());
        out.extend_from_slice(&l.size.to_le_bytes());
        out.extend_from_slice(&l.error.to_le_bytes());
        out.extend_from_slice(&l.bpe.to_le_bytes());
        out.extend_from_slice(&(l.hashes as u32).to_le_bytes());
        out.extend_from_slice(&l.entries.to_le_bytes());
        out.push(l.n2 as u8);
    }
    out
}

/// Parses and validates RedisBloom's SCANDUMP header: exactly `20 + 53 * nfilters` bytes.
/// RedisBloom's `ln 2`, to the digits it writes (`hashes = ceil(LN2 * bpe)`): not `LN_2`,
/// whose last digits could round a product the other way.
#[allow(clippy::approx_constant)]
const LN2: f64 = 0.693147180559945;

pub fn decode_header(bytes: &[u8], limit: u64) -> Result<ChainMeta> {
    if bytes.len() < HEADER_FIXED {
        return Err(bad_data("header is truncated"));
    }
    let mut p = Packed(bytes);
    let chain = ChainFields {
        size: p.u64(),
        nfilters: p.u32(),
        options: p.u32(),
        growth: p.u32(),
    };
    let expected = HEADER_FIXED as u64 + HEADER_PER_LINK as u64 * chain.nfilters;
    if bytes.len() as u64 != expected {
        return Err(bad_data(format!(
            "RedisBloom header of {} filters must be {expected} bytes, got {}",
            chain.nfilters,
            bytes.len()
        )));
    }
    chain.check(limit)?;
    let mut layers = Vec::with_capacity(chain.nfilters as usize);
    for i in 0..chain.nfilters as usize {
        let bytes = p.u64();
        let link = LinkFields {
            bits: p.u64(),
            size: p.u64(),
            error: p.f64(),
            bpe: p.f64(),
            hashes: p.u32(),
            entries: p.u64(),
            n2: p.u8(),
        };
        link.check(i)?;
        if bytes != link.bits / 8 {
            return Err(bad_data(format!("link {i}: byte and bit sizes disagree")));
        }
        layers.push(link.meta()?);
    }
    chain_meta(&chain, layers, limit)
}
