//! CF.EXISTS, CF.MEXISTS and CF.COUNT. As in RedisBloom, a missing key or a key of another
//! type answers 0 for every item.

use redis_module::Context;

use rsbloom_core::cuckoo::batch::hash_all;
use rsbloom_core::error::Result;

use super::read_filter;
use crate::commands::argv::Arg;
use crate::commands::reply::Reply;
use crate::commands::{arity, open_read};
use crate::config;

/// CF.EXISTS key item
pub fn exists(ctx: &Context, argv: &[Arg]) -> Result<Reply> {
    arity(argv, 3, 3, "cf.exists")?;
    let key = open_read(ctx, &argv[1]);
    let found = read_filter(&key)
        .unwrap_or(None)
        .is_some_and(|f| f.exists(argv[2].as_slice()));
    Ok(Reply::Bool(found))
}

/// CF.MEXISTS key item [item ...]
pub fn mexists(ctx: &Context, argv: &[Arg]) -> Result<Reply> {
    arity(argv, 3, usize::MAX, "cf.mexists")?;
    let items = &argv[2..];
    let key = open_read(ctx, &argv[1]);
    let found = match read_filter(&key).unwrap_or(None) {
        Some(f) => {
            let hashes = hash_all(items.iter().map(Arg::as_slice));
            f.exists_batch(&hashes, config::batch_prefetch())
        }
        None => vec![false; items.len()],
    };
    Ok(Reply::Bools(found))
}

/// CF.COUNT key item: the copies of the item's fingerprint in its buckets (an integer in
/// both protocols).
pub fn count(ctx: &Context, argv: &[Arg]) -> Result<Reply> {
    arity(argv, 3, 3, "cf.count")?;
    let key = open_read(ctx, &argv[1]);
    let n = read_filter(&key)
        .unwrap_or(None)
        .map_or(0, |f| f.count(argv[2].as_slice()));
    Ok(Reply::count(n))
}
