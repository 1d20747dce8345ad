//! One Bloom or cuckoo filter over many keys of a Redis Cluster or Valkey Cluster running
//! rsbloom: protocol `rsbloom-sharding/1` (docs/sharding.md) with issue 44's contract
//! (creation ids, no stale answers, every outcome of a failed batch, exactly-once cuckoo
//! writes, both protocols, keyed routing), blocking or async (module [`aio`]).
//!
//! ```no_run
//! use rsbloom_client::{BloomOptions, Client, ShardedBloom};
//!
//! let mut con = Client::connect("redis://127.0.0.1:7000/")?;
//! let seen = ShardedBloom::reserve(&mut con, "seen", 0.01, 100_000_000, None, BloomOptions::default())?;
//! let new = seen.madd(&mut con, &["a", "b", "c"])?;          // per item, in order
//! let again = ShardedBloom::open(&mut con, "seen")?;          // by name, from the description
//! assert_eq!(again.mexists(&mut con, &["a", "z"])?[0], true);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The routing, keys and sizes are the core's (`rsbloom_core::shard`), so this client, the
//! module's checks and rsbloom-cli agree by construction. The transport is the crate's own
//! (per-node pipelines, MOVED / ASK / TRYAGAIN per command, no library retry loop); every
//! operation is written once as a state machine without I/O (`ops`) that the blocking
//! [`Client`] and the async [`aio::Client`] drive.

pub mod aio;
mod client;
mod command;
mod description;
mod dispatch;
mod error;
mod family;
mod filter;
mod ops;
mod options;
pub mod protocol;
mod reply;
mod routing;
mod sharded;
mod shared;
mod topology;

pub use client::{Client, Options};
pub use description::{Description, FamilyName, Layout, Params};
pub use error::{BatchError, BatchKind, Error, Result};
pub use family::{Bloom, Cuckoo, Family};
pub use filter::ShardInfo;
pub use options::{
    BloomOptions, CuckooOptions, DEFAULT_BLOOM_EXPANSION, DEFAULT_BUCKET_SIZE,
    DEFAULT_CUCKOO_EXPANSION, DEFAULT_MAX_ITERATIONS,
};
pub use routing::Routing;
pub use sharded::{Sharded, ShardedBloom, ShardedCuckoo};

/// The protocol a description names; any other is refused.
pub const PROTOCOL: &str = "rsbloom-sharding/1";

/// The largest capacity BF.RESERVE and CF.RESERVE take.
pub const MAX_SHARD_CAPACITY: u64 = 1 << 30;
