//! CBF.EXISTS, CBF.MEXISTS and CBF.COUNT. As BF.EXISTS, a missing key answers 0 for every
//! item; a key of another type is WRONGTYPE.

use rsbloom_core::counting::CountingFilter;
use rsbloom_core::error::Result;

use crate::commands::argv::Arg;
use crate::commands::key::open_read;
use crate::commands::reply::Reply;
use crate::commands::Call;
use crate::config;

/// CBF.EXISTS key item
pub fn exists(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    let found = key
        .read::<CountingFilter>()?
        .is_some_and(|f| f.contains(call.args[2].as_slice()));
    Ok(Reply::Bool(found))
}

/// CBF.MEXISTS key item [item ...]
pub fn mexists(call: &Call) -> Result<Reply> {
    let items = &call.args[2..];
    let key = open_read(call);
    let found = match key.read::<CountingFilter>()? {
        Some(f) => {
            let hashes = f.hash_all(items.iter().map(Arg::as_slice));
            f.contains_batch(&hashes, config::batch_prefetch())
        }
        None => vec![false; items.len()],
    };
    Ok(Reply::Bools(found))
}

/// CBF.COUNT key item: the smallest of the item's counters (an integer in both protocols).
pub fn count(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    let n = key
        .read::<CountingFilter>()?
        .map_or(0, |f| f.count_of(call.args[2].as_slice()));
    Ok(Reply::count(n))
}
