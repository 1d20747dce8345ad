//! The parameter block of our own type (`RSbloom--`), shared by its RDB value and its
//! SCANDUMP header.
//!
//! Fields, in order: `flags` (reserved, 0), `expansion` (0 = non-scaling), `error_rate`,
//! `layers`, then per layer `capacity`, `count`, `k`, `error`, `bit_size`.

use crate::bloom::meta::max_layers;
use crate::bloom::{ChainMeta, LayerMeta, Scheme};
use crate::error::{bad_data, Result};
use crate::fields::{FieldSink, FieldSource};

pub fn encode(meta: &ChainMeta, out: &mut dyn FieldSink) {
    out.put_u64(0);
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
}

fn to_u32(value: u64, what: &str) -> Result<u32> {
    u32::try_from(value).map_err(|_| bad_data(format!("{what} out of range")))
}

/// Reads a parameter block: the layer count is held against `limit` before layers are read,
/// nothing large is allocated, and the caller validates the whole (after checking what must
/// follow the block, so a malformed input is refused as such before its claimed size is).
pub fn decode(src: &mut dyn FieldSource, limit: u64) -> Result<ChainMeta> {
    if src.get_u64()? != 0 {
        return Err(bad_data("unknown flags"));
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
    Ok(ChainMeta {
        scheme: Scheme::Guava,
        error_rate,
        expansion,
        growth: expansion,
        layers,
    })
}
