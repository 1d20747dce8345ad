//! CBF.DEL and CBF.MDEL: 1 where the item answered present and its counters were
//! decremented (saturated ones stay), 0 where it was not present and nothing changed. A
//! missing key is `ERR not found`, as BF.INFO's. Deleting an item that was never added but
//! answers present (a false positive) takes counts from the items it collides with.

use rsbloom_core::counting::CountingFilter;
use rsbloom_core::error::{Error, Result};

use crate::commands::argv::Arg;
use crate::commands::key::open_write;
use crate::commands::reply::Reply;
use crate::commands::Call;
use crate::config;

/// Deletes `argv[2..]` in order; replicates the command as it came if anything changed
/// (deletes are deterministic: a replica in the same state decides the same).
fn delete_items(call: &Call) -> Result<Vec<bool>> {
    let key = open_write(call);
    let mut filter = key.write::<CountingFilter>()?.ok_or(Error::NotFound)?;
    let items = &call.args[2..];
    let deleted = match items {
        [item] => vec![filter.delete(item.as_slice())],
        _ => {
            let hashes = filter.hash_all(items.iter().map(Arg::as_slice));
            filter.delete_batch(&hashes, config::batch_prefetch())
        }
    };
    if deleted.iter().any(|&d| d) {
        call.ctx.replicate_verbatim();
        call.notify();
    }
    Ok(deleted)
}

/// CBF.DEL key item
pub fn del(call: &Call) -> Result<Reply> {
    let key = open_write(call);
    let mut filter = key.write::<CountingFilter>()?.ok_or(Error::NotFound)?;
    // One item allocates nothing.
    let deleted = filter.delete(call.args[2].as_slice());
    if deleted {
        call.ctx.replicate_verbatim();
        call.notify();
    }
    Ok(Reply::Bool(deleted))
}

/// CBF.MDEL key item [item ...]
pub fn mdel(call: &Call) -> Result<Reply> {
    delete_items(call).map(Reply::Bools)
}
