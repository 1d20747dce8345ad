//! The async API on tokio: the same operations, errors and guarantees as the blocking one
//! (the same state machines, driven here by an async executor). A [`Client`] is cheap to
//! clone and may run many batches at once: one multiplexed connection per node carries them.
//!
//! ```no_run
//! # async fn f() -> rsbloom_client::Result<()> {
//! use rsbloom_client::aio::{Client, ShardedCuckoo};
//! use rsbloom_client::CuckooOptions;
//!
//! let con = Client::connect("redis://127.0.0.1:7000/?protocol=resp3").await?;
//! let users = ShardedCuckoo::reserve(&con, "users", 1_000_000, None, CuckooOptions::default()).await?;
//! users.madd(&con, &["ann", "bob"]).await?;
//! # Ok(()) }
//! ```

mod client;
mod sharded;

pub use client::Client;
pub use sharded::{Sharded, ShardedBloom, ShardedCuckoo};
