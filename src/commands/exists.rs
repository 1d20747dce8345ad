//! BF.EXISTS and BF.MEXISTS. A missing key answers 0 for every item.

use redis_module::{Context, RedisString};

use super::reply::Reply;
use super::{arity, read_filter};
use crate::error::{Error, Result};

fn exists_all(ctx: &Context, key_name: &RedisString, items: &[RedisString]) -> Result<Vec<Reply>> {
    let key = ctx.open_key(key_name);
    let chain = read_filter(&key)?;
    Ok(items
        .iter()
        .map(|item| Reply::Bool(chain.is_some_and(|c| c.contains(item.as_slice()))))
        .collect())
}

/// BF.EXISTS key item
pub fn exists(ctx: &Context, argv: &[RedisString]) -> Result<Reply> {
    arity(argv, 3, 3, "bf.exists")?;
    exists_all(ctx, &argv[1], &argv[2..])?
        .pop()
        .ok_or(Error::Internal)
}

/// BF.MEXISTS key item [item ...]
pub fn mexists(ctx: &Context, argv: &[RedisString]) -> Result<Reply> {
    arity(argv, 3, usize::MAX, "bf.mexists")?;
    Ok(Reply::Array(exists_all(ctx, &argv[1], &argv[2..])?))
}
