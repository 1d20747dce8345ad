//! CF.INFO and CF.DEBUG: a filter's parameters and counters.

use redis_module::Context;

use rsbloom_core::error::{Error, Result};

use super::read_filter;
use crate::commands::argv::Arg;
use crate::commands::reply::Reply;
use crate::commands::{arity, open_read};

/// CF.INFO key: RedisBloom's eight fields (a flat array in RESP2, a map in RESP3), values
/// as signed integers (an item count wrapped below 0 shows as -1).
pub fn info(ctx: &Context, argv: &[Arg]) -> Result<Reply> {
    arity(argv, 2, 2, "cf.info")?;
    let key = open_read(ctx, &argv[1]);
    let filter = read_filter(&key)?.ok_or(Error::NotFound)?;
    let entries = filter
        .info()
        .fields()
        .into_iter()
        .map(|(name, value)| (name, Reply::Int(value)))
        .collect();
    Ok(Reply::Map(entries))
}

/// CF.DEBUG key: the counters as one line, unsigned.
pub fn debug(ctx: &Context, argv: &[Arg]) -> Result<Reply> {
    arity(argv, 2, 2, "cf.debug")?;
    let key = open_read(ctx, &argv[1]);
    let filter = read_filter(&key)?.ok_or(Error::NotFound)?;
    Ok(Reply::Bulk(filter.info().debug_line().into_bytes()))
}
