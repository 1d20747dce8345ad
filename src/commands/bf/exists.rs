//! BF.EXISTS and BF.MEXISTS. As in RedisBloom, a missing key or a key of another type
//! answers 0 for every item (in valkey-bloom's dialect, see `valkey.rs`, another type is
//! WRONGTYPE).

use rsbloom_core::bloom::Chain;
use rsbloom_core::error::Result;

use super::dialect::{BloomKey, Dialect};
use super::valkey;
use crate::commands::argv::Arg;
use crate::commands::reply::Reply;
use crate::commands::{shard, Call};
use crate::config;

/// BF.MEXISTS's answers for `call.args[2..]`.
fn exists_all(call: &Call, key: &BloomKey) -> Result<Vec<bool>> {
    let items = &call.args[2..];
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
    let key = BloomKey::open_read(call)?;
    let item = &call.args[2..3];
    match key.dialect() {
        Dialect::Valkey => valkey::exists(call, &key),
        Dialect::Own => Ok(Reply::Bool(match key.read::<Chain>().unwrap_or(None) {
            Some(chain) => {
                shard::check_items(chain.shard(), item)?;
                chain.contains(item[0].as_slice())
            }
            None => false,
        })),
    }
}

/// BF.MEXISTS key item [item ...]
pub fn mexists(call: &Call) -> Result<Reply> {
    let key = BloomKey::open_read(call)?;
    match key.dialect() {
        Dialect::Valkey => valkey::mexists(call, &key),
        Dialect::Own => Ok(Reply::Bools(exists_all(call, &key)?)),
    }
}
