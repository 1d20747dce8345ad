//! The parameter block of our own type (`RSbloom--`), shared by its RDB value and its
//! SCANDUMP header.
//!
//! Fields, in order: `flags`, `expansion` (0 = non-scaling), `error_rate`, `layers`, then
//! per layer `capacity`, `count`, `k`, `error`, `bit_size`; then, when flag bit 1
//! ([`KEYED_FLAG`]) is set, the filter's secret as two words (`k0`, `k1`); then, when flag
//! bit 0 ([`SHARD_FLAG`]) is set, the filter's [shard place](crate::shard::place). Flag bit
//! 2 ([`BLOCKED_FLAG`]) adds no field. A block with another flag bit set is refused: it was
//! written by a later version that added a field.
//!
//! A plain filter writes flags 0 and a plain shard flags 1, as every version before keyed
//! and blocked filters did, so their bytes are unchanged.

use crate::bloom::footprint::max_layers;
use crate::bloom::keyed::Secret;
use crate::bloom::{ChainMeta, LayerMeta, Scheme, Variant};
use crate::error::{bad_data, Result};
use crate::fields::{FieldSink, FieldSource};
use crate::shard::ShardPlace;

/// Flag bit 0: a shard place follows the layers' parameters. Plain filters write flags 0,
/// as every version before shards did.
pub const SHARD_FLAG: u64 = 1;
/// Flag bit 1: the filter is keyed; its secret follows the layers' parameters.
pub const KEYED_FLAG: u64 = 2;
/// Flag bit 2: the filter's layers are blocked.
pub const BLOCKED_FLAG: u64 = 4;
const KNOWN_FLAGS: u64 = SHARD_FLAG | KEYED_FLAG | BLOCKED_FLAG;

fn flags(meta: &ChainMeta) -> u64 {
    let flag = |set: bool, bit: u64| if set { bit } else { 0 };
    flag(meta.shard.is_some(), SHARD_FLAG)
        | flag(meta.variant.secret.is_some(), KEYED_FLAG)
        | flag(meta.variant.blocked, BLOCKED_FLAG)
}

pub fn encode(meta: &ChainMeta, out: &mut dyn FieldSink) {
    out.put_u64(flags(meta));
    out.put_u64(meta.expansion as u64);
    out.put_f64(meta.error_rate);
    out.put_u64(meta.layers.len() as u64);
    for layer in &meta.layers {
        out.put_u64(layer.capacity);
        out.put_u64(layer.count);
        out.put_u64(layer.k as u64);
        out.put_f64(layer.error);
        out.put_u64(layer.bit_size);
    }
    if let Some(secret) = meta.variant.secret {
        secret.words().iter().for_each(|&w| out.put_u64(w));
    }
    if let Some(place) = &meta.shard {
        place.encode(out);
    }
}

fn to_u32(value: u64, what: &str) -> Result<u32> {
    u32::try_from(value).map_err(|_| bad_data(format!("{what} out of range")))
}

/// Reads a parameter block: the layer count is held against `limit` before layers are read,
/// nothing large is allocated, and the caller validates the whole (after checking what must
/// follow the block, so a malformed input is refused as such before its claimed size is).
pub fn decode(src: &mut dyn FieldSource, limit: u64) -> Result<ChainMeta> {
    let flags = src.get_u64()?;
    if flags & !KNOWN_FLAGS != 0 {
        return Err(bad_data(format!("unknown flags {flags:#x}")));
    }
    let expansion = to_u32(src.get_u64()?, "expansion")?;
    let error_rate = src.get_f64()?;
    let count = src.get_u64()?;
    if count == 0 || count > max_layers(Scheme::Guava, limit) {
        return Err(bad_data("bad number of layers"));
    }
    // Not reserved from the claimed count: a short input must not cost a large allocation
    // (a tool decoding with no limit would abort on it).
    let mut layers = Vec::new();
    for _ in 0..count {
        layers.push(LayerMeta {
            capacity: src.get_u64()?,
            count: src.get_u64()?,
            k: to_u32(src.get_u64()?, "number of hashes")?,
            error: src.get_f64()?,
            bit_size: src.get_u64()?,
            bpe: 0.0,
        });
    }
    let secret = match flags & KEYED_FLAG {
        0 => None,
        _ => Some(Secret::from_words([src.get_u64()?, src.get_u64()?])),
    };
    let shard = match flags & SHARD_FLAG {
        0 => None,
        _ => Some(Box::new(ShardPlace::decode(src)?)),
    };
    Ok(ChainMeta {
        scheme: Scheme::Guava,
        error_rate,
        expansion,
        growth: expansion,
        layers,
        shard,
        variant: Variant {
            secret,
            blocked: flags & BLOCKED_FLAG != 0,
        },
    })
}
