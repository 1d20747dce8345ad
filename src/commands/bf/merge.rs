//! BF.MERGE destination source [source ...] (rsbloom's own; RedisBloom has no merge): the
//! union of Bloom filters of one shape ([`rsbloom_core::bloom::merge`]); the shared checks
//! are [`union_into`]'s. A destination created from shards must lie in its shard's slots.

use rsbloom_core::bloom::merge::{merge_into, union};
use rsbloom_core::bloom::Chain;
use rsbloom_core::error::Result;

use crate::commands::reply::Reply;
use crate::commands::union_into::union_into;
use crate::commands::Call;

pub fn merge(call: &Call) -> Result<Reply> {
    union_into::<Chain>(call, merge_into, |sources, limit| {
        let chain = union(sources, limit)?;
        if let Some(place) = chain.shard() {
            place.check_key(call.key().as_slice())?;
        }
        Ok(chain)
    })
}
