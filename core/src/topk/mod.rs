//! The Top-K family, RedisBloom's `TopK-TYPE` byte for byte: a HeavyKeeper sketch with a
//! min-heap of the `k` heaviest items, with a deterministic decay in place of RedisBloom's
//! `rand()` (same probabilities, same answers on every replica and after every reload).
//!
//! - [`hash`]: MurmurHash2, fingerprints and bucket indices
//! - [`decay`]: the decay probabilities and the deterministic draw
//! - [`sketch`]: the sketch: add, query, count, list
//! - [`codec`]: the RDB value (what a DUMP payload holds)

pub mod codec;
pub mod decay;
pub mod hash;
pub mod sketch;

pub use sketch::{Params, TopK};

#[cfg(test)]
mod tests;
