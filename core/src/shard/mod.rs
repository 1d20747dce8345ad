//! One logical filter over many keys (protocol `rsbloom-sharding/1`, docs/sharding.md): the
//! cluster's key-slot function ([`slot`]), the shards' slot ranges, keys and sizes
//! ([`layout`]), and the place a shard records in its own data ([`place`]).

pub mod keyed;
pub mod layout;
pub mod place;
pub mod slot;

pub use place::ShardPlace;
