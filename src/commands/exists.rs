//! BF.EXISTS and BF.MEXISTS. A missing key answers 0 for every item.

use redis_module::{Context, RedisString};

use super::reply::Reply;
use super::{arity, read_filter};
use crate::config;
use crate::error::{Error, Result};
use crate::filter::ItemHash;

fn exists_all(ctx: &Context, key_name: &RedisString, items: &[RedisString]) -> Result<Vec<Reply>> {
    let key = ctx.open_key(key_name);
    let answers = match read_filter(&key)? {
        Some(chain) => {
            let hashes: Vec<ItemHash> = items.iter().map(|i| ItemHash::of(i.as_slice())).collect();
            chain.contains_batch(&hashes, config::batch_prefetch())
        }
        None => vec![false; items.len()],
    };
    Ok(answers.into_iter().map(Reply::Bool).collect())
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
