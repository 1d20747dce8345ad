//! CF.EXISTS, CF.MEXISTS and CF.COUNT. As in RedisBloom, a missing key or a key of another
//! type answers 0 for every item.

use rsbloom_core::cuckoo::batch::hash_all;
use rsbloom_core::cuckoo::CuckooFilter;
use rsbloom_core::error::Result;

use crate::commands::argv::Arg;
use crate::commands::key::open_read;
use crate::commands::reply::Reply;
use crate::commands::{shard, Call};
use crate::config;

/// CF.EXISTS key item
pub fn exists(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    let item = &call.args[2..3];
    let found = match key.read::<CuckooFilter>().unwrap_or(None) {
        Some(f) => {
            shard::check_items(f.shard(), item)?;
            f.exists(item[0].as_slice())
        }
        None => false,
    };
    Ok(Reply::Bool(found))
}

/// CF.MEXISTS key item [item ...]
pub fn mexists(call: &Call) -> Result<Reply> {
    let items = &call.args[2..];
    let key = open_read(call);
    let found = match key.read::<CuckooFilter>().unwrap_or(None) {
        Some(f) => {
            shard::check_items(f.shard(), items)?;
            let hashes = hash_all(items.iter().map(Arg::as_slice));
            f.exists_batch(&hashes, config::batch_prefetch())
        }
        None => vec![false; items.len()],
    };
    Ok(Reply::Bools(found))
}

/// CF.COUNT key item: the copies of the item's fingerprint in its buckets (an integer in
/// both protocols).
pub fn count(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    let item = &call.args[2..3];
    let n = match key.read::<CuckooFilter>().unwrap_or(None) {
        Some(f) => {
            shard::check_items(f.shard(), item)?;
            f.count(item[0].as_slice())
        }
        None => 0,
    };
    Ok(Reply::count(n))
}
