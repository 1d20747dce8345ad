//! The bytes a Bloom filter counts for: the figure `BF.INFO Size` and `MEMORY USAGE` report
//! and the one `bf.max-filter-bytes` limits. A leaf, so the parameter checks (`meta`) and the
//! chain itself both use it without importing each other.

use super::{redisbloom, Scheme};

/// Bookkeeping bytes of one of our own chains: `size_of::<Chain>()`, asserted where `Chain`
/// is defined, so a new field there is a deliberate change of the reported size.
pub const CHAIN_BYTES: u64 = 88;
/// Bookkeeping bytes of one of our own layers: `size_of::<Layer>()`, asserted the same way.
pub const LAYER_BYTES: u64 = 96;

/// The bookkeeping bytes a chain and each of its layers count for, by scheme: our own
/// structs, or the sizes RedisBloom reports for its own.
fn overhead(scheme: Scheme) -> (u64, u64) {
    match scheme {
        Scheme::Guava => (CHAIN_BYTES, LAYER_BYTES),
        Scheme::RedisBloom => (redisbloom::CHAIN_BYTES, redisbloom::LINK_BYTES),
    }
}

/// Memory a chain of `layers` layers with `data_bytes` bytes of bits takes.
pub fn memory_for(scheme: Scheme, layers: u64, data_bytes: u64) -> u64 {
    let (chain, layer) = overhead(scheme);
    chain
        .saturating_add(layers.saturating_mul(layer))
        .saturating_add(data_bytes)
}

/// The most layers a filter within `limit` can have: each costs its bookkeeping plus at
/// least one word. Decoders check a claimed layer count against it before reading on.
pub fn max_layers(scheme: Scheme, limit: u64) -> u64 {
    limit / (overhead(scheme).1 + 8)
}
