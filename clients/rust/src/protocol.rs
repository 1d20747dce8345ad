//! The pure functions of protocol `rsbloom-sharding/1` (docs/sharding.md), under the names
//! and contracts of the Python client's `rsbloom.protocol`: slot ranges are inclusive
//! `(first, last)` pairs and a shard's key is asked for by `(name, index, count)`. They are
//! the core's own functions, so the module, rsbloom-cli and every client agree.

pub use rsbloom_core::shard::layout::shard_of_item as shard_of;
pub use rsbloom_core::shard::layout::{
    shard_capacity, shard_key, shard_keys, shard_of_slot, slot_range, tags, MAX_SHARDS,
    MIN_DEFAULT_SHARDS,
};
pub use rsbloom_core::shard::slot::{key_slot, SLOTS};
