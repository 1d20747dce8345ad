//! Which hashing and sizing a Bloom filter uses: fixed for its lifetime, and what decides its
//! Redis type. Each scheme's knowledge lives in its own file ([`guava`], [`redisbloom`]);
//! this one only dispatches.

use super::probe::ItemHash;
use super::{guava, redisbloom};

/// How a filter hashes items and sizes its layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// Guava's `MURMUR128_MITZ_64` and Guava's sizing (type `RSbloom--`).
    Guava,
    /// RedisBloom's MurmurHash64A pair and its sizing (type `MBbloom--`).
    RedisBloom,
}

/// What a new layer of `capacity` items at `error` takes under a scheme.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LayerShape {
    pub k: u32,
    /// 64-bit words of the bit array.
    pub words: u64,
    /// Bits per entry as the format records it (0 where it records none).
    pub bpe: f64,
}

impl Scheme {
    /// The item's hash words under this scheme (binary safe, nothing re-encoded).
    #[inline]
    pub fn hash(self, item: &[u8]) -> ItemHash {
        match self {
            Scheme::Guava => guava::hash(item),
            Scheme::RedisBloom => redisbloom::hash(item),
        }
    }

    /// The shape of a new layer; `error` is the layer's part of the filter's rate. A Guava
    /// layer of a non-scaling filter is exactly Guava's `create(capacity, error)`; one of a
    /// scaling filter is held under its part (see [`guava::Sizing::scaling`]). RedisBloom's
    /// links are RedisBloom's either way. Absurd inputs saturate; the caller checks its limit.
    pub fn layer_shape(self, capacity: u64, error: f64, scaling: bool) -> LayerShape {
        match self {
            Scheme::Guava => {
                let s = if scaling {
                    guava::Sizing::scaling(capacity, error)
                } else {
                    guava::Sizing::guava(capacity, error)
                };
                LayerShape {
                    k: s.k,
                    words: s.words,
                    bpe: 0.0,
                }
            }
            Scheme::RedisBloom => {
                let s = redisbloom::LinkSizing::of(capacity, error);
                LayerShape {
                    k: s.k,
                    words: s.words,
                    bpe: s.bpe,
                }
            }
        }
    }

    /// The growth factor the format records for a filter created with `expansion`:
    /// RedisBloom records one for non-scaling filters too (kept so its bytes round-trip).
    pub fn recorded_growth(self, expansion: u32) -> u32 {
        match (self, expansion) {
            (Scheme::RedisBloom, 0) => redisbloom::IDLE_GROWTH,
            _ => expansion,
        }
    }
}
