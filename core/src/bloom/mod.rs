//! The Bloom filter family: two schemes (Guava's and RedisBloom's hashing and sizing),
//! fixed-size layers, the scaling chain, batches, and the formats a filter is stored in.

pub mod batch;
pub mod block;
pub mod blocked;
pub mod chain;
pub mod chunks;
pub mod codec;
pub mod footprint;
pub mod guava;
pub mod keyed;
pub mod lanes;
pub mod layer;
pub mod merge;
pub mod meta;
pub mod probe;
pub mod redisbloom;
pub mod scheme;

pub use chain::Chain;
pub use layer::Layer;
pub use meta::{ChainMeta, LayerMeta, Variant};
pub use probe::ItemHash;
pub use scheme::Scheme;
