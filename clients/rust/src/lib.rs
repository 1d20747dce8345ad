//! One Bloom or cuckoo filter over many keys of a Redis Cluster or Valkey Cluster running
//! rsbloom: protocol `rsbloom-sharding/1` (docs/sharding.md), on redis-rs.
//!
//! ```no_run
//! use rsbloom_client::{BloomOptions, ShardedBloom};
//!
//! let client = redis::cluster::ClusterClient::new(vec!["redis://127.0.0.1:7000/"])?;
//! let mut con = client.get_connection()?;
//! let seen = ShardedBloom::reserve(&mut con, "seen", 0.01, 100_000_000, None, BloomOptions::default())?;
//! let new = seen.madd(&mut con, &["a", "b", "c"])?;          // per item, in order
//! let again = ShardedBloom::open(&mut con, "seen")?;          // by name, from the description
//! assert_eq!(again.mexists(&mut con, &["a", "z"])?[0], true);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The routing, keys and sizes are the core's (`rsbloom_core::shard`), so this client, the
//! module's checks and rsbloom-cli agree by construction. Connections: see [`Transport`].

mod bloom;
mod cuckoo;
mod description;
mod error;
mod nodes;
pub mod protocol;
mod shards;
mod transport;

pub use bloom::{BloomOptions, ShardedBloom};
pub use cuckoo::{CuckooOptions, ShardedCuckoo};
pub use description::{Description, Family, Params};
pub use error::{Error, Result};
pub use shards::{ShardInfo, Shards};
pub use transport::{Access, Transport};

use rsbloom_core::shard::layout::{default_shards, MAX_SHARDS};

/// The protocol a description names; any other is refused.
pub const PROTOCOL: &str = "rsbloom-sharding/1";

/// The largest capacity BF.RESERVE and CF.RESERVE take.
pub const MAX_SHARD_CAPACITY: u64 = 1 << 30;

/// The shard count asked for, checked, or the protocol's default for `capacity` items whose
/// shard of `c` items is planned at `bytes(c)`.
fn check_shards(shards: Option<u32>, capacity: u64, bytes: impl Fn(u64) -> u64) -> Result<u32> {
    if capacity == 0 {
        return Err(Error::Argument("capacity must be at least 1".into()));
    }
    match shards {
        Some(n) if (1..=MAX_SHARDS).contains(&n) => Ok(n),
        Some(n) => Err(Error::Argument(format!(
            "{n} shards: a logical filter has 1 to {MAX_SHARDS}"
        ))),
        None => default_shards(capacity, MAX_SHARD_CAPACITY, bytes).ok_or_else(|| {
            Error::Argument(format!(
                "{capacity} items do not fit in {MAX_SHARDS} shards"
            ))
        }),
    }
}
