//! The Count-Min Sketch family, RedisBloom's `CMSk-TYPE` byte for byte: `depth` rows of
//! `width` 32-bit counters, row `i` indexed by the 32-bit MurmurHash2 of the item with seed
//! `i`, counters that saturate at 2^32 - 1 and a 64-bit total that wraps. A sketch built by
//! the same commands holds the same counters and formats as RedisBloom's.
//!
//! - [`sketch`]: the sketch: dimensions (given or from error and probability), increments,
//!   queries, weighted merges, memory accounting
//! - [`codec`]: the RDB value (what a DUMP payload holds), validated before allocating

pub mod codec;
pub mod sketch;

pub use sketch::{dims_from_prob, CountMinSketch, Source};

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
