//! valkey-bloom's Bloom filters (its `bloomfltr` type): the `bloomfilter` crate's sub-filter
//! and its bytes, the scaling object with valkey-bloom's rules and sizes, its RDB value and
//! BF.LOAD's blob. Tests check bytes and answers against the crate itself.

mod batch;
pub mod load_blob;
pub mod object;
pub mod rdb;
pub mod subfilter;

#[cfg(test)]
mod tests;

pub use object::{Shape, ValkeyBloom, FIXED_SEED};
