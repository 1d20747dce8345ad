//! TOPK.ADD key item [item ...] and TOPK.INCRBY key item increment [item increment ...]:
//! per item, the item the add expelled from the top k (a bulk string, whole), or a null.
//!
//! An INCRBY increment must be an integer in [0, 100000]. As in RedisBloom, the pairs
//! before a bad increment are applied and the bad one ends the reply with an error element;
//! unlike RedisBloom, which announces one element per pair and so leaves the client short
//! of elements (it then reads the next reply as the missing ones), the array here counts
//! the elements it holds.

use rsbloom_core::error::{Error, Result};
use rsbloom_core::topk::sketch::MAX_INCREMENT;
use rsbloom_core::topk::TopK;

use super::write;
use crate::commands::grammar;
use crate::commands::key::{open_write, Writing};
use crate::commands::reply::Reply;
use crate::commands::Call;

fn expelled(topk: &mut Writing<TopK>, item: &[u8], by: u32) -> Reply {
    match topk.add(item, by) {
        Some(Some(old)) => Reply::Bulk(old.into_vec()),
        _ => Reply::Null,
    }
}

/// TOPK.ADD key item [item ...]
pub fn add(call: &Call) -> Result<Reply> {
    let key = open_write(call);
    let mut topk = write(&key)?;
    let items = call.args[2..]
        .iter()
        .map(|item| topk.add(item.as_slice(), 1).flatten())
        .collect();
    drop(topk);
    call.ctx.replicate_verbatim();
    call.notify();
    Ok(Reply::Items(items))
}

/// TOPK.INCRBY key item increment [item increment ...]
pub fn incrby(call: &Call) -> Result<Reply> {
    if !call.args.len().is_multiple_of(2) {
        return Err(call.wrong_arity());
    }
    let key = open_write(call);
    let mut topk = write(&key)?;
    let mut replies = Vec::with_capacity((call.args.len() - 2) / 2);
    for pair in call.args[2..].chunks_exact(2) {
        let by = grammar::integer(&pair[1]).filter(|&v| (0..=MAX_INCREMENT as i64).contains(&v));
        let Some(by) = by else {
            replies.push(Reply::Error(Error::TopkBadIncrement));
            break;
        };
        replies.push(expelled(&mut topk, pair[0].as_slice(), by as u32));
    }
    drop(topk);
    call.ctx.replicate_verbatim();
    call.notify();
    Ok(Reply::Array(replies))
}
