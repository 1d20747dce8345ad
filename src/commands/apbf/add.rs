//! APBF.ADD, APBF.MADD and APBF.INSERTAT: add items in order at one moment, creating a
//! missing key (ADD / MADD) as a COUNT window with the `bf.apbf-*` defaults.

use rsbloom_core::bloom::batch::hash_all;
use rsbloom_core::bloom::{ItemHash, Scheme};
use rsbloom_core::error::{Error, Result};
use rsbloom_core::window::{Window, WindowFilter};

use super::{now_ms, replicate_creation, replicate_insertat};
use crate::commands::argv::Arg;
use crate::commands::grammar;
use crate::commands::key::{open_write, Key, Writing};
use crate::commands::reply::Reply;
use crate::commands::Call;
use crate::config;

/// Adds `items` at `at` (the server's clock if `None`) in order, creating the filter if
/// `create`, up to the first one refused (a TIME window that cannot grow for its burst);
/// emits the keyspace event and replicates what changed: a creation as its header, then the
/// items added as `APBF.INSERTAT key <ms> items...` for a TIME window (the moment pinned) or
/// as they came for a COUNT window (whose answers do not depend on time, and which never
/// refuses). A refused add changes nothing, so the items after the last one added are not
/// replicated: a replica never meets the refusal (its limit may differ).
fn add_items(call: &Call, at: Option<u64>, items: &[Arg], create: bool) -> Result<Added> {
    let key = open_write(call);
    // None for the server's own data (the primary's stream, the AOF): a replica takes every
    // add its primary took, whatever the two limits are. Asked for only when a burst grows
    // the window (the server's context flags cost more than a steady add's other work).
    let limit = || call.size_limit();
    let (mut filter, created) = match key.write::<WindowFilter>()? {
        Some(f) => (f, false),
        None if create => (create_count(call, &key, call.size_limit())?, true),
        None => return Err(Error::NotFound),
    };
    // A COUNT window's adds happen at moment 0 whatever the time: no clock to read.
    let now = at.unwrap_or_else(|| if filter.timed() { now_ms() } else { 0 });
    // One item (APBF.ADD) needs no heap.
    let added = if let [item] = items {
        let one = filter.add_hash(WindowFilter::hash(item.as_slice()), now, limit);
        Added::One(one)
    } else {
        let hashes: Vec<ItemHash> = hash_all(Scheme::Guava, items.iter().map(Arg::as_slice));
        let (added, refused) = filter.add_batch(&hashes, now, config::batch_prefetch(), limit);
        Added::Many(added, refused)
    };
    let done = added.count();
    if done > 0 {
        call.notify();
    }
    if filter.timed() {
        if done > 0 {
            replicate_insertat(call.ctx, call.key(), filter.clock_ms(), &items[..done]);
        }
    } else if created {
        let mut args: Vec<&[u8]> = vec![call.key().as_slice()];
        args.extend(items.iter().map(Arg::as_slice));
        call.ctx.replicate("APBF.MADD", args.as_slice());
    } else {
        call.ctx.replicate_verbatim();
    }
    Ok(added)
}

/// Creates the missing key as a COUNT window with the `bf.apbf-*` defaults, and replicates
/// the creation.
#[cold]
fn create_count<'a>(call: &Call, key: &Key, limit: u64) -> Result<Writing<'a, WindowFilter>> {
    let (error_rate, capacity) = config::apbf_defaults();
    let new = WindowFilter::new(Window::Count, error_rate, capacity, limit)?;
    let filter = key.store(new)?;
    replicate_creation(call.ctx, call.key(), &filter);
    Ok(filter)
}

/// Whether each item was new to the window, up to a refusal.
enum Added {
    One(Result<bool>),
    /// The answers of the items added, and the refusal that stopped the others.
    Many(Vec<bool>, Option<Error>),
}

impl Added {
    /// Items added.
    fn count(&self) -> usize {
        match self {
            Added::One(a) => a.is_ok() as usize,
            Added::Many(a, _) => a.len(),
        }
    }

    /// One answer per item added, as an array (MADD, INSERTAT), the refusal last if one
    /// stopped them (as BF.MADD answers a filter that cannot grow).
    fn array(self) -> Reply {
        match self {
            Added::One(Ok(a)) => Reply::Bools(vec![a]),
            Added::One(Err(e)) => Reply::Array(vec![Reply::Error(e)]),
            Added::Many(a, None) => Reply::Bools(a),
            Added::Many(a, Some(e)) => {
                let mut replies: Vec<Reply> = a.into_iter().map(Reply::Bool).collect();
                replies.push(Reply::Error(e));
                Reply::Array(replies)
            }
        }
    }
}

/// APBF.ADD key item: 1 if the item was not in the window before, 0 if it was (added
/// either way, so its age starts again).
pub fn add(call: &Call) -> Result<Reply> {
    match add_items(call, None, &call.args[2..], true)? {
        Added::One(a) => Ok(Reply::Bool(a?)),
        Added::Many(..) => Err(Error::Internal),
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
