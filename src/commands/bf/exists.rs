//! BF.EXISTS and BF.MEXISTS. As in RedisBloom, a missing key or a key of another type
//! answers 0 for every item.

use rsbloom_core::bloom::Chain;
use rsbloom_core::error::Result;

use crate::commands::argv::Arg;
use crate::commands::key::open_read;
use crate::commands::reply::Reply;
use crate::commands::{shard, Call};
use crate::config;

/// BF.MEXISTS's answers for `call.args[2..]`.
fn exists_all(call: &Call) -> Result<Vec<bool>> {
    let items = &call.args[2..];
    let key = open_read(call);
    Ok(match key.read::<Chain>().unwrap_or(None) {
        Some(chain) => {
            shard::check_items(chain.shard(), items)?;
            let hashes = chain.hash_all(items.iter().map(Arg::as_slice));
            chain.contains_batch(&hashes, config::batch_prefetch())
        }
        None => vec![false; items.len()],
    })
}

/// BF.EXISTS key item
pub fn exists(call: &Call) -> Result<Reply> {
    if let Some(reply) = super::valkey::exists(call)? {
        return Ok(reply);
    }
    let key = open_read(call);
    let item = &call.args[2..3];
    let found = match key.read::<Chain>().unwrap_or(None) {
        Some(chain) => {
            shard::check_items(chain.shard(), item)?;
            chain.contains(item[0].as_slice())
        }
        None => false,
    };
    Ok(Reply::Bool(found))
}

/// BF.MEXISTS key item [item ...]
pub fn mexists(call: &Call) -> Result<Reply> {
    if let Some(reply) = super::valkey::mexists(call)? {
        return Ok(reply);
    }
    Ok(Reply::Bools(exists_all(call)?))
}
