//! The t-digest family's commands (`TDIGEST.*`): their rows (`rows.rs`), the writes
//! (`write.rs`: CREATE, RESET, ADD, MERGE) and the queries (`query.rs`).
//!
//! Replies, defaults, limits and error texts are RedisBloom 8's, except where it crashes
//! (huge compressions), answers a NaN cast to an integer (RANK of a one-value digest) or
//! ignores words it does not know (see docs/commands/tdigest.md and docs/differences.md).

pub mod query;
pub mod rows;
pub mod write;

use rsbloom_core::error::{Error, Result};
use rsbloom_core::tdigest::TDigest;

use super::key::Key;

/// The t-digest at an opened key: `key does not exist` when missing, WRONGTYPE for another
/// type. Queries change it too (they compress pending values first, as RedisBloom's do).
pub fn digest<'a>(key: &Key) -> Result<super::key::Writing<'a, TDigest>> {
    // A match, not `ok_or`: that builds (and drops) the error on every call.
    match key.write::<TDigest>()? {
        Some(d) => Ok(d),
        None => Err(Error::TdKeyMissing),
    }
}
