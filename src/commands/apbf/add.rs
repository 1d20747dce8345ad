//! APBF.ADD, APBF.MADD and APBF.INSERTAT: add items in order at one moment, creating a
//! missing key (ADD / MADD) as a COUNT window with the `bf.apbf-*` defaults.

use rsbloom_core::bloom::batch::hash_all;
use rsbloom_core::bloom::{ItemHash, Scheme};
use rsbloom_core::error::{Error, Result};
use rsbloom_core::window::WindowFilter;

use super::{now_ms, replicate_creation, replicate_insertat};
use crate::commands::argv::Arg;
use crate::commands::grammar;
use crate::commands::key::open_write;
use crate::commands::reply::Reply;
use crate::commands::Call;
use crate::config;

/// Adds `items` at `at` (the server's clock if `None`), creating the filter if `create`;
/// emits the keyspace event and replicates: a creation as its header, then the items as
/// `APBF.INSERTAT key <ms> items...` for a TIME window (the moment pinned) or as they came
/// for a COUNT window (whose answers do not depend on time).
fn add_items(call: &Call, at: Option<u64>, items: &[Arg], create: bool) -> Result<Added> {
    let key = open_write(call);
    let (mut filter, created) = match key.write::<WindowFilter>()? {
        Some(f) => (f, false),
        None if create => {
            let (error_rate, capacity) = config::apbf_defaults();
            let limit = call.size_limit();
            let new = WindowFilter::new(
                rsbloom_core::window::Window::Count,
                error_rate,
                capacity,
                limit,
            )?;
            (key.store(new)?, true)
        }
        None => return Err(Error::NotFound),
    };
    if created {
        replicate_creation(call.ctx, call.key(), &filter);
    }
    let now = at.unwrap_or_else(now_ms);
    // One item (APBF.ADD) needs no heap.
    let added = if let [item] = items {
        Added::One(filter.add_hash(WindowFilter::hash(item.as_slice()), now))
    } else {
        let hashes: Vec<ItemHash> = hash_all(Scheme::Guava, items.iter().map(Arg::as_slice));
        Added::Many(filter.add_batch(&hashes, now, config::batch_prefetch()))
    };
    call.notify();
    if filter.meta().span_ms().is_some() {
        replicate_insertat(call.ctx, call.key(), filter.meta().clock_ms, items);
    } else if created {
        let mut args: Vec<&[u8]> = vec![call.key().as_slice()];
        args.extend(items.iter().map(Arg::as_slice));
        call.ctx.replicate("APBF.MADD", args.as_slice());
    } else {
        call.ctx.replicate_verbatim();
    }
    Ok(added)
}

/// Whether each item was new to the window.
enum Added {
    One(bool),
    Many(Vec<bool>),
}

impl Added {
    /// One answer per item, as an array (MADD, INSERTAT).
    fn array(self) -> Reply {
        match self {
            Added::One(a) => Reply::Bools(vec![a]),
            Added::Many(a) => Reply::Bools(a),
        }
    }
}

/// APBF.ADD key item: 1 if the item was not in the window before, 0 if it was (added
/// either way, so its age starts again).
pub fn add(call: &Call) -> Result<Reply> {
    match add_items(call, None, &call.args[2..], true)? {
        Added::One(a) => Ok(Reply::Bool(a)),
        Added::Many(_) => Err(Error::Internal),
    }
}

/// APBF.MADD key item [item ...]: one answer per item.
pub fn madd(call: &Call) -> Result<Reply> {
    Ok(add_items(call, None, &call.args[2..], true)?.array())
}

/// APBF.INSERTAT key ms item [item ...]: the items added at `ms` (milliseconds since the
/// epoch; a time earlier than the filter's latest is taken as the latest). The form adds
/// of TIME windows are replicated in; the key must exist.
pub fn insertat(call: &Call) -> Result<Reply> {
    let ms = grammar::integer(&call.args[2])
        .filter(|&ms| ms >= 0)
        .ok_or(Error::ApbfBadTime)? as u64;
    Ok(add_items(call, Some(ms), &call.args[3..], false)?.array())
}
