//! The Count-Min Sketch family, RedisBloom's `CMSk-TYPE` byte for byte: `depth` rows of
//! `width` counters of 1, 2, 4 (the default) or 8 bytes, row `i` indexed by the 32-bit
//! MurmurHash2 of the item with seed `i`; increments and decrements that would take a
//! counter out of its cell's range, or the total past 2^63 - 1, are refused and change
//! nothing (RedisBloom 8.12). A sketch built by the same commands holds the same counters
//! and formats as RedisBloom's.
//!
//! - [`cells`]: the counters at each cell size
//! - [`sketch`]: the sketch: dimensions (given or from error and probability), increments,
//!   queries, weighted merges, memory accounting
//! - [`rows`]: where an item's counters are, found eight rows at a time, and a batch's walk
//! - [`codec`]: the RDB value (what a DUMP payload holds), validated before allocating

pub mod cells;
pub mod codec;
pub mod rows;
pub mod sketch;

pub use cells::CellSize;
pub use sketch::{dims_from_prob, CountMinSketch, Source};

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
