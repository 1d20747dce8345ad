//! BF.EXISTS and BF.MEXISTS. As in RedisBloom, a missing key or a key of another type
//! answers 0 for every item (valkey-bloom's dialect answers WRONGTYPE on another type).

use rsbloom_core::bloom::Chain;
use rsbloom_core::error::{Error, Result};

use super::dialect::{BloomKey, Dialect, Kind};
use super::valkey;
use crate::commands::argv::Arg;
use crate::commands::reply::Reply;
use crate::commands::{shard, Call};
use crate::config;

/// BF.MEXISTS's answers for `call.args[2..]` on rsbloom's or RedisBloom's filter.
fn exists_all(call: &Call, chain: Option<&Chain>) -> Result<Vec<bool>> {
    let items = &call.args[2..];
    Ok(match chain {
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
    let key = BloomKey::read(call)?;
    match key.kind {
        Kind::Valkey | Kind::Missing(Dialect::Valkey) => Ok(valkey::exists(call, key.valkey())),
        Kind::Other(Dialect::Valkey) => Err(Error::WrongType),
        Kind::Chain | Kind::Missing(Dialect::Own) | Kind::Other(Dialect::Own) => {
            let item = &call.args[2..3];
            let found = match key.chain() {
                Some(chain) => {
                    shard::check_items(chain.shard(), item)?;
                    chain.contains(item[0].as_slice())
                }
                None => false,
            };
            Ok(Reply::Bool(found))
        }
    }
}

/// BF.MEXISTS key item [item ...]
pub fn mexists(call: &Call) -> Result<Reply> {
    let key = BloomKey::read(call)?;
    match key.kind {
        Kind::Valkey | Kind::Missing(Dialect::Valkey) => Ok(valkey::mexists(call, key.valkey())),
        Kind::Other(Dialect::Valkey) => Err(Error::WrongType),
        Kind::Chain | Kind::Missing(Dialect::Own) | Kind::Other(Dialect::Own) => {
            Ok(Reply::Bools(exists_all(call, key.chain())?))
        }
    }
}
