//! TOPK.QUERY, TOPK.COUNT, TOPK.LIST and TOPK.INFO.

use rsbloom_core::error::{Error, Result};

use super::read;
use crate::commands::grammar;
use crate::commands::key::open_read;
use crate::commands::reply::Reply;
use crate::commands::Call;

/// TOPK.QUERY key item [item ...]: whether each item is in the top k (RESP2 1/0, RESP3
/// booleans).
pub fn query(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    let topk = read(&key)?;
    Ok(Reply::Bools(
        call.args[2..]
            .iter()
            .map(|item| topk.query(item.as_slice()))
            .collect(),
    ))
}

/// TOPK.COUNT key item [item ...]: each item's estimated count.
pub fn count(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    let topk = read(&key)?;
    Ok(Reply::Array(
        call.args[2..]
            .iter()
            .map(|item| Reply::Int(topk.count(item.as_slice()) as i64))
            .collect(),
    ))
}

/// TOPK.LIST key [WITHCOUNT]: the top k, heaviest first, items whole, with their counts
/// after `WITHCOUNT` (a whole word; RedisBloom takes any prefix of it, the empty word too).
/// The word is checked before the key, as RedisBloom does.
pub fn list(call: &Call) -> Result<Reply> {
    let with_count = match call.args.get(2) {
        None => false,
        Some(word) if grammar::is(word, "WITHCOUNT") => true,
        Some(_) => return Err(Error::TopkWithcountExpected),
    };
    let key = open_read(call);
    let topk = read(&key)?;
    let mut out = Vec::new();
    for (item, count) in topk.list() {
        out.push(Reply::Bulk(item.to_vec()));
        if with_count {
            out.push(Reply::Int(count as i64));
        }
    }
    Ok(Reply::Array(out))
}

/// TOPK.INFO key: k, width, depth and decay (a map in RESP3, the decay a double).
pub fn info(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    let p = read(&key)?.params();
    Ok(Reply::Map(vec![
        ("k", Reply::Int(p.k as i64)),
        ("width", Reply::Int(p.width as i64)),
        ("depth", Reply::Int(p.depth as i64)),
        ("decay", Reply::Double(p.decay)),
    ]))
}
