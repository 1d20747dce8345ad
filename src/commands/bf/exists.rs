//! BF.EXISTS and BF.MEXISTS. A missing key answers 0 for every item.

use redis_module::Context;

use rsbloom_core::bloom::ItemHash;
use rsbloom_core::error::Result;

use super::read_filter;
use crate::commands::argv::Arg;
use crate::commands::reply::Reply;
use crate::commands::{arity, open_read};
use crate::config;

fn exists_all(ctx: &Context, key_name: &Arg, items: &[Arg]) -> Result<Vec<bool>> {
    let key = open_read(ctx, key_name);
    Ok(match read_filter(&key)? {
        Some(chain) => {
            let hashes: Vec<ItemHash> = items.iter().map(|i| chain.hash(i.as_slice())).collect();
            chain.contains_batch(&hashes, config::batch_prefetch())
        }
        None => vec![false; items.len()],
    })
}

/// BF.EXISTS key item
pub fn exists(ctx: &Context, argv: &[Arg]) -> Result<Reply> {
    arity(argv, 3, 3, "bf.exists")?;
    let key = open_read(ctx, &argv[1]);
    let found = read_filter(&key)?.is_some_and(|c| c.contains(argv[2].as_slice()));
    Ok(Reply::Bool(found))
}

/// BF.MEXISTS key item [item ...]
pub fn mexists(ctx: &Context, argv: &[Arg]) -> Result<Reply> {
    arity(argv, 3, usize::MAX, "bf.mexists")?;
    Ok(Reply::Bools(exists_all(ctx, &argv[1], &argv[2..])?))
}
