//! CF.DEL and CF.COMPACT. A delete removes one copy of the item's fingerprint: deleting an
//! item that was never added may remove another item's copy (a false positive).

use redis_module::Context;

use rsbloom_core::error::{Error, Result};

use super::write_filter;
use crate::commands::argv::Arg;
use crate::commands::reply::Reply;
use crate::commands::{arity, notify, open_write};

/// CF.DEL key item: 1 if a copy was removed, 0 if there was none. A missing key or one of
/// another type is RedisBloom's `Not found`.
pub fn del(ctx: &Context, argv: &[Arg]) -> Result<Reply> {
    arity(argv, 3, 3, "cf.del")?;
    let key = open_write(ctx, &argv[1]);
    let filter = write_filter(&key)
        .unwrap_or(None)
        .ok_or(Error::CfDelNotFound)?;
    let deleted = filter.delete(argv[2].as_slice());
    if deleted {
        // The delete (and the compaction it may start) is deterministic: replicas redo it.
        ctx.replicate_verbatim();
        notify(ctx, c"cf.del", &argv[1]);
    }
    Ok(Reply::Bool(deleted))
}

/// CF.COMPACT key: moves fingerprints into older sub-filters and frees the newest ones left
/// empty.
pub fn compact(ctx: &Context, argv: &[Arg]) -> Result<Reply> {
    arity(argv, 2, 2, "cf.compact")?;
    let key = open_write(ctx, &argv[1]);
    let filter = write_filter(&key)
        .unwrap_or(None)
        .ok_or(Error::CfCompactNotFound)?;
    filter.compact(true);
    ctx.replicate_verbatim();
    notify(ctx, c"cf.compact", &argv[1]);
    Ok(Reply::Ok)
}
