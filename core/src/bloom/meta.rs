//! A filter's parameters without its bits, as persistence formats carry them, and the
//! checks a persisted or received filter must pass before anything is allocated for it.

use super::block::BLOCK_BITS;
use super::footprint::memory_for;
use super::keyed::Secret;
use super::layer::MAX_HASHES;
use super::Scheme;
use crate::error::{bad_data, check_limit, Result};
use crate::shard::ShardPlace;

/// Largest expansion factor our commands take, and that a filter of our own format may
/// record. RedisBloom 2.8 takes any `EXPANSION` from 1 and keeps it as a 32-bit unsigned
/// number (`BF.RESERVE k 0.01 100 EXPANSION 100000` grows each layer 100,000-fold), so its
/// filters load with any 32-bit growth.
pub const MAX_EXPANSION: u32 = 32768;

/// The largest expansion a filter of `scheme` may record.
fn max_expansion(scheme: Scheme) -> u32 {
    match scheme {
        Scheme::Guava => MAX_EXPANSION,
        Scheme::RedisBloom => u32::MAX,
    }
}
/// The largest capacity BF.RESERVE and BF.INSERT take (RedisBloom 8's `bf-initial-size`
/// range).
pub const MAX_CAPACITY: u64 = 1 << 30;
/// Error rates above this are lowered to it when a filter is created (RedisBloom 8).
pub const ERROR_RATE_CAP: f64 = 0.25;

/// A layer's parameters without its bits: what persistence formats carry.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayerMeta {
    pub capacity: u64,
    pub count: u64,
    pub k: u32,
    pub error: f64,
    pub bit_size: u64,
    /// Bits per entry as RedisBloom records it (0 for Guava-scheme layers).
    pub bpe: f64,
}

/// A chain's parameters without its bits. `expansion == 0` means non-scaling.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainMeta {
    pub scheme: Scheme,
    pub error_rate: f64,
    pub expansion: u32,
    /// The growth factor the format records: `expansion` when scaling; RedisBloom records
    /// one for non-scaling filters too (kept so its bytes round-trip).
    pub growth: u32,
    pub layers: Vec<LayerMeta>,
    /// The filter's place in a logical filter when it is a shard (our own format only).
    pub shard: Option<Box<ShardPlace>>,
    /// Keyed hashing and the blocked layout (our own format only).
    pub variant: Variant,
}

/// How a filter of our own format hashes and lays out its items beyond Guava's way: fixed
/// for its lifetime, the same for every layer. The default is Guava's exactly.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Variant {
    /// `KEYED`: probes from SipHash under this secret instead of Guava's murmur3.
    pub secret: Option<Secret>,
    /// `BLOCKED`: all probes of an item in one 512-bit block.
    pub blocked: bool,
}

impl Variant {
    /// Guava's hashing and layout: what RedisBloom's and Guava's formats can hold.
    pub fn is_plain(&self) -> bool {
        self.secret.is_none() && !self.blocked
    }
}

pub(super) fn valid_rate(p: f64) -> bool {
    p > 0.0 && p < 1.0
}

impl ChainMeta {
    /// Checks everything a persisted or received filter claims before a byte is allocated:
    /// ranges, consistency between fields, and the total size against `limit`.
    pub fn validate(&self, limit: u64) -> Result<()> {
        // RedisBloom records no chain error rate (its codec infers one from the first
        // link, which may be anything in (0, 1)); ours is the one new layers derive from.
        if self.scheme == Scheme::Guava && !valid_rate(self.error_rate) {
            return Err(bad_data("error rate out of range"));
        }
        if self.expansion > max_expansion(self.scheme) {
            return Err(bad_data("expansion out of range"));
        }
        if self.shard.is_some() && self.scheme != Scheme::Guava {
            return Err(bad_data("a shard in RedisBloom's format"));
        }
        if !self.variant.is_plain() && self.scheme != Scheme::Guava {
            return Err(bad_data("a keyed or blocked filter in RedisBloom's format"));
        }
        if self.layers.is_empty() {
            return Err(bad_data("no layers"));
        }
        if self.expansion == 0 && self.layers.len() != 1 {
            return Err(bad_data("non-scaling filter with more than one layer"));
        }
        // A non-scaling RedisBloom filter records the expansion in effect when it was made
        // (0 after `EXPANSION 0`) and never reads it. A scaling one records its growth,
        // which RedisBloom 2.8 may have truncated to 0 (then it cannot grow).
        if self.scheme == Scheme::RedisBloom
            && self.expansion != 0
            && self.growth != 0
            && self.growth != self.expansion
        {
            return Err(bad_data("growth is not the expansion"));
        }
        let mut data_bytes = 0u64;
        for (i, layer) in self.layers.iter().enumerate() {
            if layer.capacity == 0 {
                return Err(bad_data(format!("layer {i}: zero capacity")));
            }
            if layer.count > layer.capacity {
                return Err(bad_data(format!("layer {i}: count above capacity")));
            }
            if layer.k == 0 || layer.k > MAX_HASHES {
                return Err(bad_data(format!("layer {i}: bad number of hashes")));
            }
            if !valid_rate(layer.error) {
                return Err(bad_data(format!("layer {i}: error rate out of range")));
            }
            if layer.bit_size == 0 || layer.bit_size % 64 != 0 {
                return Err(bad_data(format!(
                    "layer {i}: bit size not a multiple of 64"
                )));
            }
            if self.variant.blocked && layer.bit_size % BLOCK_BITS != 0 {
                return Err(bad_data(format!(
                    "layer {i}: blocked bit size not a multiple of 512"
                )));
            }
            let bpe_ok = match self.scheme {
                Scheme::Guava => layer.bpe == 0.0,
                Scheme::RedisBloom => layer.bpe.is_finite() && layer.bpe > 0.0,
            };
            if !bpe_ok {
                return Err(bad_data(format!("layer {i}: bad bits per entry")));
            }
            data_bytes = data_bytes.saturating_add(layer.bit_size / 8);
        }
        // Over the limit is the one size-limit refusal (`TooLarge`), wherever it is met.
        check_limit(
            memory_for(self.scheme, self.layers.len() as u64, data_bytes),
            limit,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bloom::Chain;

    const NO_LIMIT: u64 = u64::MAX;

    #[test]
    fn validation_rejects_inconsistent_meta() {
        let good = Chain::new(0.01, 100, 2, NO_LIMIT).unwrap().meta();
        assert!(good.validate(NO_LIMIT).is_ok());
        let cases: Vec<fn(&mut ChainMeta)> = vec![
            |m| m.error_rate = 0.0,
            |m| m.error_rate = f64::NAN,
            |m| m.expansion = MAX_EXPANSION + 1,
            |m| m.layers.clear(),
            |m| {
                m.expansion = 0;
                m.layers.push(m.layers[0]);
            },
            |m| m.layers[0].capacity = 0,
            |m| m.layers[0].count = m.layers[0].capacity + 1,
            |m| m.layers[0].k = 0,
            |m| m.layers[0].k = MAX_HASHES + 1,
            |m| m.layers[0].error = f64::INFINITY,
            |m| m.layers[0].bit_size = 65,
            |m| m.layers[0].bit_size = 0,
            |m| m.layers[0].bit_size = u64::MAX - 63,
            |m| {
                m.variant.blocked = true;
                m.layers[0].bit_size = 576;
            },
            |m| {
                m.scheme = Scheme::RedisBloom;
                m.variant.blocked = true;
                m.layers[0].bpe = 9.6;
                m.layers[0].bit_size = 1024;
            },
        ];
        for (i, mutate) in cases.iter().enumerate() {
            let mut m = good.clone();
            mutate(&mut m);
            assert!(m.validate(1 << 40).is_err(), "case {i} accepted");
        }
    }
}
