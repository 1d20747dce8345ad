//! APBF.EXISTS and APBF.MEXISTS: lookups at the server's clock (or the filter's latest time,
//! if later). As BF.EXISTS, a missing key answers 0 for every item; a key of another type
//! is WRONGTYPE.

use rsbloom_core::bloom::batch::hash_all;
use rsbloom_core::bloom::Scheme;
use rsbloom_core::error::Result;
use rsbloom_core::window::WindowFilter;

use super::now_ms;
use crate::commands::argv::Arg;
use crate::commands::key::open_read;
use crate::commands::reply::Reply;
use crate::commands::Call;
use crate::config;

/// APBF.EXISTS key item
pub fn exists(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    let found = key
        .read::<WindowFilter>()?
        .is_some_and(|f| f.contains(call.args[2].as_slice(), now_ms()));
    Ok(Reply::Bool(found))
}

/// APBF.MEXISTS key item [item ...]
pub fn mexists(call: &Call) -> Result<Reply> {
    let items = &call.args[2..];
    let key = open_read(call);
    let found = match key.read::<WindowFilter>()? {
        Some(f) => {
            let hashes = hash_all(Scheme::Guava, items.iter().map(Arg::as_slice));
            f.contains_batch(&hashes, now_ms(), config::batch_prefetch())
        }
        None => vec![false; items.len()],
    };
    Ok(Reply::Bools(found))
}
