//! CF.DEL and CF.COMPACT. A delete removes one copy of the item's fingerprint: deleting an
//! item that was never added may remove another item's copy (a false positive).

use rsbloom_core::cuckoo::CuckooFilter;
use rsbloom_core::error::{Error, Result};

use crate::commands::key::open_write;
use crate::commands::reply::Reply;
use crate::commands::{shard, Call};

/// CF.DEL key item: 1 if a copy was removed, 0 if there was none. A missing key or one of
/// another type is RedisBloom's `Not found`.
pub fn del(call: &Call) -> Result<Reply> {
    let key = open_write(call);
    let mut filter = key
        .write::<CuckooFilter>()
        .unwrap_or(None)
        .ok_or(Error::CfDelNotFound)?;
    shard::check_items(filter.shard(), &call.args[2..3])?;
    let deleted = filter.delete(call.args[2].as_slice());
    if deleted {
        // The delete (and the compaction it may start) is deterministic: replicas redo it.
        call.ctx.replicate_verbatim();
        call.notify();
    }
    Ok(Reply::Bool(deleted))
}

/// CF.COMPACT key: moves fingerprints into older sub-filters and frees the newest ones left
/// empty.
pub fn compact(call: &Call) -> Result<Reply> {
    let key = open_write(call);
    let mut filter = key
        .write::<CuckooFilter>()
        .unwrap_or(None)
        .ok_or(Error::CfCompactNotFound)?;
    filter.compact(true);
    call.ctx.replicate_verbatim();
    call.notify();
    Ok(Reply::Ok)
}
