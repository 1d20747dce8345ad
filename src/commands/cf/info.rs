//! CF.INFO and CF.DEBUG: a filter's parameters and counters.

use rsbloom_core::cuckoo::CuckooFilter;
use rsbloom_core::error::{Error, Result};

use crate::commands::key::open_read;
use crate::commands::reply::Reply;
use crate::commands::shard::shard_fields;
use crate::commands::Call;

/// CF.INFO key: RedisBloom's eight fields (a flat array in RESP2, a map in RESP3), values
/// as signed integers (an item count wrapped below 0 shows as -1); a shard's place after
/// them.
pub fn info(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    let filter = key.read::<CuckooFilter>()?.ok_or(Error::NotFound)?;
    let mut entries: Vec<_> = filter
        .info()
        .fields()
        .into_iter()
        .map(|(name, value)| (name, Reply::Int(value)))
        .collect();
    if let Some(place) = filter.shard() {
        entries.extend(shard_fields(place));
    }
    Ok(Reply::Map(entries))
}

/// CF.DEBUG key: the counters as one line, unsigned.
pub fn debug(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    let filter = key.read::<CuckooFilter>()?.ok_or(Error::NotFound)?;
    Ok(Reply::Bulk(filter.info().debug_line().into_bytes()))
}
