//! The Bloom filter itself: hashing, one fixed-size layer, and the scaling chain.
//! Nothing below this module knows about Redis.

pub mod chain;
pub mod divisor;
pub mod hash;
pub mod lanes;
pub mod layer;
pub mod murmur3;
pub mod pages;
pub mod prefetch;
pub mod redisbloom;

pub use chain::{Chain, ChainMeta, LayerMeta};
pub use hash::{ItemHash, Scheme};
pub use layer::{Layer, Sizing};
