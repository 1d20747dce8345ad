//! APBF.EXISTS and APBF.MEXISTS: lookups at the server's clock (or the filter's latest time,
//! if later). As BF.EXISTS, a missing key answers 0 for every item; a key of another type
//! is WRONGTYPE.

use rsbloom_core::error::Result;
use rsbloom_core::window::WindowFilter;

use super::now_ms;
use crate::commands::argv::Arg;
use crate::commands::key::open_read;
use crate::commands::reply::Reply;
use crate::commands::Call;
use crate::config;

/// The time a lookup asks at: the server's clock for a TIME window; none for a COUNT window,
/// whose answers do not depend on it.
fn clock(f: &WindowFilter) -> u64 {
    if f.timed() {
        now_ms()
    } else {
        0
    }
}

/// APBF.EXISTS key item
pub fn exists(call: &Call) -> Result<Reply> {
    let key = open_read(call);
    let found = key
        .read::<WindowFilter>()?
        .is_some_and(|f| f.contains(call.args[2].as_slice(), clock(f)));
    Ok(Reply::Bool(found))
}

/// APBF.MEXISTS key item [item ...]
pub fn mexists(call: &Call) -> Result<Reply> {
    let items = &call.args[2..];
    let key = open_read(call);
    let found = match key.read::<WindowFilter>()? {
        Some(f) => {
            let hashes = f.hash_all(items.iter().map(Arg::as_slice));
            f.contains_batch(&hashes, clock(f), config::batch_prefetch())
        }
        None => vec![false; items.len()],
    };
    Ok(Reply::Bools(found))
}
