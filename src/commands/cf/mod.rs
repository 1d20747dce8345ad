//! The cuckoo family's commands (`CF.*`): their rows (`rows.rs`), one file per group of
//! commands, RedisBloom-style option values, and how a creation is replicated.
//!
//! Replies, defaults, limits and error texts are RedisBloom 8's, except where it crashes,
//! loses data or guesses at arguments (see docs/commands/cuckoo.md and docs/differences.md).

pub mod add;
pub mod del;
pub mod exists;
pub mod info;
pub mod options;
pub mod reserve;
pub mod rows;
pub mod scandump;

use redis_module::Context;
use rsbloom_core::cuckoo::CuckooFilter;

use super::argv::Arg;

/// Replicates the creation of `filter` at `key` with every parameter spelled out (a
/// replica's or an AOF replay's defaults may differ), as CF.RESERVE with the capacity that
/// gives exactly the filter's buckets, and a shard's place as SHARD. Commands replicated
/// after this one in the same call go with it in one MULTI/EXEC.
pub fn replicate_creation(ctx: &Context, key: &Arg, filter: &CuckooFilter) {
    let capacity = (filter.num_buckets() * filter.bucket_size() as u64).to_string();
    let bucket_size = filter.bucket_size().to_string();
    let iterations = filter.max_iterations().to_string();
    let expansion = filter.expansion().to_string();
    let mut args: Vec<&[u8]> = vec![
        key.as_slice(),
        capacity.as_bytes(),
        b"BUCKETSIZE",
        bucket_size.as_bytes(),
        b"MAXITERATIONS",
        iterations.as_bytes(),
        b"EXPANSION",
        expansion.as_bytes(),
    ];
    let place = filter
        .shard()
        .map(super::shard::place_words)
        .unwrap_or_default();
    args.extend(place.iter().map(Vec::as_slice));
    ctx.replicate("CF.RESERVE", args.as_slice());
}
